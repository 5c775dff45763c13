//! What a verdict corpus job is, as plain data: the options a run, a
//! cluster job and a shard share ([`options`]), the files they read
//! ([`input`]), one output row per game ([`row`]) with its columns defined
//! once ([`columns`]), and the summaries added up from rows ([`summary`]).
//!
//! It sits below the wire contract (`verdict-proto` converts these types)
//! and above the rules (`verdict-rules` analyses each game); it does no
//! I/O, so the coordinator, the worker and the wire contract can all
//! depend on it.
#![warn(missing_debug_implementations)]

pub mod columns;
pub mod input;
pub mod options;
pub mod row;
pub mod summary;
