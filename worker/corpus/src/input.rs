//! The files a corpus job reads, as a shard names them: plain data the wire
//! contract converts (finding and opening them is the worker's).

use std::ops::Range;
use std::path::PathBuf;

/// One file to read, with the name it is reported under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    pub path: PathBuf,
    pub len: u64,
    /// The path given on the command line this file was found under.
    pub root: PathBuf,
    /// Where to open it, when it must be opened without following any
    /// link (a cluster shard: the coordinator resolved and checked this
    /// path against its allowed roots). `None` opens `path` as it is.
    pub real: Option<PathBuf>,
}

/// One file of a shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardFile {
    pub file: InputFile,
    /// Only the games whose index (from 0, in the file) is in this range;
    /// `None` for the whole file.
    pub range: Option<Range<u64>>,
}
