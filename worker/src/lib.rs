//! Reads SGF inputs and runs `verdict-rules` over them on every core.
//!
//! Brief overview:
//! - [`inputs`] turns the paths a user gives into a sorted list of files,
//!   listing what it will not read instead of failing on it.
//! - [`run`] is the corpus job: [`row`]s to Parquet ([`parquet_out`]) and
//!   [`summary`] files.
//! - [`shard`] is one piece of a distributed job: the same rows as [`run`]
//!   for some files or a byte range of one, and the summary to add up.
//! - [`engine`] is the one way every command walks a corpus: inputs,
//!   archives and compressed files read in order, cut into chunks bounded
//!   by games and bytes, each analysed on every core.
//! - [`process`] is the worker process of the cluster (lease, heartbeat,
//!   drain), speaking gRPC through [`connect`].
//! - [`replay`] replays every game and adds up what it saw
//!   ([`replay::ReplayStats`]); [`check`] scores every game and compares
//!   the record's own result ([`check::CheckStats`]); [`eval`] measures the
//!   dead-stone settler against players' marks (and GNU Go).
//!
//! - [`confined`] opens folders once and works inside them by handle, never
//!   following a symbolic link; [`publish`] is the output folder's layout and
//!   how a finished run replaces the previous one in one step.
//!
//! One bad file never stops a run: unreadable files and unreadable games are
//! counted with a reason, like ripgrep reports a file and carries on.
#![warn(missing_debug_implementations)]

pub use verdict_corpus::{row, summary};

pub mod archive;
pub mod check;
pub mod confined;
pub mod connect;
pub mod engine;
pub mod eval;
pub mod ids;
pub mod inputs;
pub mod objects;
pub mod parquet_out;
pub mod plan;
pub mod process;
pub mod publish;
pub mod replay;
pub mod report;
pub mod run;
pub mod run_remote;
pub mod shard;
pub mod static_shard;
