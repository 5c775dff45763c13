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
    /// What tells this version of an object from another of the same size
    /// (its ETag), for the fingerprints that decide whether a stopped run
    /// or a set of static shards saw the same inputs. `None` for local
    /// files: their modification time is read instead.
    pub version: Option<String>,
}

/// One file of a shard: the whole file, or a part of a big collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardFile {
    pub file: InputFile,
    /// `None` for the whole file.
    pub part: Option<FilePart>,
}

/// A byte range of a collection file, cut at the end of a game tree: its
/// games are those whose tree starts inside it, numbered from `first_game`,
/// and reading it gives exactly the games (and problems) reading the whole
/// file gives there (`verdict_rules::sgf::Reader::resume`). The file-level
/// rows (no game, unreadable) belong to the part with `first_game` 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePart {
    /// From the end of the tree before it (0 for the first part); the end
    /// may lie past the end of the file.
    pub bytes: Range<u64>,
    /// The index, in the file, of its first game.
    pub first_game: u64,
}
