//! What a corpus job is asked to do: the options `verdict run`, a cluster
//! job and a shard share. The wire contract (`verdict-proto`) converts
//! them; nothing here does I/O.

use std::path::PathBuf;

use std::sync::Arc;

use verdict_rules::analyse::{KomiPolicy, Referee};
use verdict_rules::score::RuleSet;

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
    /// Games the engine analyses together at most (a chunk): with
    /// `chunk_bytes`, what bounds a run's memory whatever its files.
    pub chunk_games: usize,
    /// Bytes of SGF per chunk at most.
    pub chunk_bytes: usize,
    /// Rows per part file at most (parts end at a chunk's end).
    pub part_rows: u64,
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
    /// Who settles the games the settler is unsure of (`--referee`).
    pub referee: Option<RefereeChoice>,
}

/// The opt-in referee of a run: which program, from what confidence
/// down, and the referee itself (shared by every thread).
#[derive(Clone, Debug)]
pub struct RefereeChoice {
    /// What the run's options and provenance call it (`gnugo`).
    pub name: String,
    /// Games settled no surer than this are put to it.
    pub threshold: f32,
    /// The referee itself, shared by every thread. None where the options
    /// are only carried (a coordinator's job): each worker starts its own,
    /// and a run given none refuses to start rather than ask nobody.
    pub referee: Option<Arc<dyn Referee>>,
}

impl RunOptions {
    /// The name of a referee the options ask for but nobody started (see
    /// [`RefereeChoice::referee`]): a run refuses such options.
    pub fn unstarted_referee(&self) -> Option<&str> {
        self.referee
            .as_ref()
            .filter(|r| r.referee.is_none())
            .map(|r| r.name.as_str())
    }
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
            chunk_games: 4096,
            chunk_bytes: 8 << 20,
            part_rows: 1 << 20,
            komi_sweep: Vec::new(),
            rules: RuleSet::ALL.to_vec(),
            settle_with_result: false,
            assume_rules: None,
            referee: None,
        }
    }
}
