//! Reading and replaying whole corpora, counting what happened.

use std::collections::BTreeMap;

use verdict_rules::dajiefang;
use verdict_rules::game::{Game, SkipReason};
use verdict_rules::replay::{Legality, Replayer};
use verdict_rules::Problem;

use crate::engine::{self, Item, Run, Tally};
use crate::inputs::InputFile;

/// What a replay run saw. Counts are per game; a file without any game counts
/// as one skipped game with reason `no_game`, so that nothing given to the run
/// disappears from its totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayStats {
    pub files: u64,
    pub bytes: u64,
    /// Files that could not be read from disk at all: path and error.
    pub unreadable_files: Vec<(String, String)>,
    pub games: u64,
    pub replayed: u64,
    /// Replayed with no problem of any kind.
    pub clean: u64,
    pub skipped: u64,
    pub moves: u64,
    pub variations: u64,
    /// Problem kind to number of games showing it.
    pub problems: BTreeMap<&'static str, u64>,
    /// Skip reason to number of games.
    pub skip_reasons: BTreeMap<&'static str, u64>,
    /// Rule family id to number of replayed games illegal under it. 大解放
    /// games are judged by their own family only, `dajiefang`.
    pub illegal_by_family: BTreeMap<&'static str, u64>,
    /// Replayed 大解放 games.
    pub dajiefang_games: u64,
}

/// Per-thread replay state: one replayer for ordinary games, one for 大解放
/// games.
#[derive(Debug, Default)]
pub struct Replayers {
    pub standard: Replayer,
    pub dajiefang: dajiefang::Replayer,
}

impl ReplayStats {
    /// Replayed games with at least one problem.
    pub fn with_problems(&self) -> u64 {
        self.replayed - self.clean
    }

    fn skip(&mut self, reason: SkipReason) {
        self.games += 1;
        self.skipped += 1;
        *self.skip_reasons.entry(reason.as_str()).or_default() += 1;
    }

    /// Adds one item of input to the counts.
    pub fn add(&mut self, replayers: &mut Replayers, item: Item<'_, '_>) {
        let (sgf, bytes) = match item {
            Item::Unreadable { unit, reason } => {
                self.files += 1;
                self.unreadable_files
                    .push((unit.source.clone(), reason.to_string()));
                return;
            }
            Item::NoGame { .. } => {
                self.files += 1;
                return self.skip(SkipReason::NoGame);
            }
            Item::Game {
                index, sgf, bytes, ..
            } => {
                if index == 0 {
                    self.files += 1;
                    self.bytes += bytes.len() as u64;
                }
                (sgf, bytes)
            }
        };
        let game = match Game::from_sgf(sgf, bytes) {
            Ok(game) => game,
            Err(reason) => return self.skip(reason),
        };
        self.games += 1;
        self.replayed += 1;
        self.moves += game.moves.len() as u64;
        self.variations += u64::from(game.variations);
        if let Some(record) = &game.dajiefang {
            let report = replayers.dajiefang.replay(&game, record);
            self.dajiefang_games += 1;
            self.add_problems(game.problems.union(report.problems));
            if !report.verdict.is_legal() {
                *self.illegal_by_family.entry(dajiefang::FAMILY).or_default() += 1;
            }
            return;
        }
        let report = replayers.standard.replay(&game);
        self.add_problems(game.problems.union(report.problems));
        for (legality, verdict) in Legality::ALL.iter().zip(report.legality.iter()) {
            if verdict.first_illegal.is_some() {
                *self.illegal_by_family.entry(legality.id()).or_default() += 1;
            }
        }
    }

    fn add_problems(&mut self, problems: verdict_rules::Problems) {
        if problems.iter().all(Problem::is_informational) {
            self.clean += 1;
        }
        for p in problems.iter() {
            *self.problems.entry(p.as_str()).or_default() += 1;
        }
    }
}

impl Tally for ReplayStats {
    fn merge(&mut self, other: ReplayStats) {
        self.files += other.files;
        self.bytes += other.bytes;
        self.unreadable_files.extend(other.unreadable_files);
        self.games += other.games;
        self.replayed += other.replayed;
        self.clean += other.clean;
        self.skipped += other.skipped;
        self.moves += other.moves;
        self.variations += other.variations;
        self.dajiefang_games += other.dajiefang_games;
        for (map, theirs) in [
            (&mut self.problems, other.problems),
            (&mut self.skip_reasons, other.skip_reasons),
            (&mut self.illegal_by_family, other.illegal_by_family),
        ] {
            for (k, v) in theirs {
                *map.entry(k).or_default() += v;
            }
        }
    }
}

/// Replays every game of `files` on `threads` threads (0: every core).
pub fn replay_files(files: &[InputFile], threads: usize) -> Run<ReplayStats> {
    let mut run = engine::fold(
        files,
        threads,
        Replayers::default,
        |replayers, stats: &mut ReplayStats, item| stats.add(replayers, item),
    );
    run.tally.unreadable_files.sort();
    run
}

/// Games per second of a run.
pub fn games_per_sec<T>(run: &Run<T>, games: u64) -> f64 {
    games as f64 / run.elapsed.as_secs_f64().max(1e-9)
}
