//! What a corpus job is asked to do: the options `verdict run`, a cluster
//! job and a shard share. The wire contract (`verdict-proto`) converts
//! them; nothing here does I/O.

use std::path::PathBuf;

use verdict_rules::analyse::KomiPolicy;
use verdict_rules::score::RuleSet;

/// Default [`RunOptions::big_file_bytes`].
pub const BIG_FILE_BYTES: u64 = 64 << 20;

/// What a run is asked to do.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub out: PathBuf,
    pub threads: usize,
    pub komi: KomiPolicy,
    pub include_unfinished: bool,
    /// Stop after this many games.
    pub limit: Option<u64>,
    /// Leave out games whose `game_hash` was already seen in this run.
    pub dedup: bool,
    /// Summarise every pair of rule sets, not only the headline ones.
    pub all_pairs: bool,
    /// Files per chunk (and so per part file at most).
    pub chunk_files: usize,
    /// Extra komi values the summary re-scores every game at.
    pub komi_sweep: Vec<f64>,
    /// Rule sets whose verdicts are written and compared (default: all).
    pub rules: Vec<RuleSet>,
    /// Let each record's own result decide chains the settler could not
    /// (layer 5; see `Analyser::use_record_result`).
    pub settle_with_result: bool,
    /// The rule set the self-check uses for records whose `RU` does not
    /// name one (`Analyser::assume_rules`).
    pub assume_rules: Option<RuleSet>,
    /// SGF files larger than this are streamed a batch of games at a time
    /// (memory-mapped, rows written per batch) instead of read whole and
    /// analysed as one task: a single collection of millions of games needs
    /// no more memory than a small one.
    pub big_file_bytes: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            out: PathBuf::from("verdict-out"),
            threads: 0,
            komi: KomiPolicy::Game,
            include_unfinished: false,
            limit: None,
            dedup: false,
            all_pairs: false,
            chunk_files: 1024,
            komi_sweep: Vec::new(),
            rules: RuleSet::ALL.to_vec(),
            settle_with_result: false,
            assume_rules: None,
            big_file_bytes: BIG_FILE_BYTES,
        }
    }
}
