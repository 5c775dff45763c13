//! Tools around verdict's analysis, kept out of the analysis crates: what
//! they need (writing corpora to disk, self-play) is not what scoring a
//! corpus needs.
//!
//! - [`synth`] generates complete games by self-play, fully determined by
//!   `(seed, index)`, for `verdict synth`, `verdict demo`, tests and
//!   benchmarks.
//! - [`gnugo`] speaks GTP to GNU Go, the reference settler of `verdict
//!   eval --gnugo` and the opt-in referee.
#![warn(missing_debug_implementations)]

pub mod gnugo;
pub mod synth;
