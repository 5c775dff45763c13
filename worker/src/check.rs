//! Scoring whole corpora and checking each record's own result against our
//! count under its own rules.

use std::collections::BTreeMap;

use verdict_rules::analyse::{Analyser, KomiPolicy, SelfCheck};
use verdict_rules::game::{Game, SkipReason};

use crate::engine::{self, Item, Run, Tally};
use crate::inputs::InputFile;

/// One game whose recorded result we do not reproduce.
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub file: String,
    /// Game index within the file, from 0.
    pub index: usize,
    pub rule_set: &'static str,
    pub dead_source: &'static str,
    pub recorded: f64,
    pub computed: f64,
}

/// Agreement counts for one group of games (e.g. one dead-stone source).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    pub agrees: u64,
    pub disagrees: u64,
}

impl Agreement {
    pub fn checked(&self) -> u64 {
        self.agrees + self.disagrees
    }

    pub fn rate(&self) -> f64 {
        self.agrees as f64 / self.checked().max(1) as f64
    }
}

/// What a check run saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckStats {
    pub files: u64,
    pub games: u64,
    pub skipped: u64,
    pub skip_reasons: BTreeMap<&'static str, u64>,
    /// Games left out by the run's filter (e.g. only marked games wanted).
    pub filtered_out: u64,
    pub scored: u64,
    /// Self-check over every checked game.
    pub all: Agreement,
    /// Self-check by dead-stone source (`marks`, `settled`, `settled_result`).
    pub by_dead_source: BTreeMap<&'static str, Agreement>,
    /// Self-check by the record's rule set.
    pub by_rule_set: BTreeMap<&'static str, Agreement>,
    /// Why games could not be checked.
    pub unchecked: BTreeMap<&'static str, u64>,
    pub misses: Vec<Miss>,
}

/// Which games a check run scores.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct CheckOptions {
    /// Only games whose final node marks territory (`TB`/`TW`).
    pub marked_only: bool,
    pub komi: KomiPolicy,
    /// The rule set records that do not say are checked under.
    pub assume_rules: Option<verdict_rules::score::RuleSet>,
}

impl CheckStats {
    fn skip(&mut self, reason: SkipReason) {
        self.games += 1;
        self.skipped += 1;
        *self.skip_reasons.entry(reason.as_str()).or_default() += 1;
    }

    pub fn add(&mut self, analyser: &mut Analyser, options: &CheckOptions, item: Item<'_, '_>) {
        let (file, index, sgf, bytes) = match item {
            Item::Unreadable { .. } => {
                self.files += 1;
                return;
            }
            Item::NoGame { .. } => {
                self.files += 1;
                return self.skip(SkipReason::NoGame);
            }
            Item::Game {
                unit,
                index,
                sgf,
                bytes,
            } => {
                if index == 0 {
                    self.files += 1;
                }
                (unit.path.as_path(), index, sgf, bytes)
            }
        };
        let game = match Game::from_sgf(sgf, bytes) {
            Ok(game) => game,
            Err(reason) => return self.skip(reason),
        };
        self.games += 1;
        if options.marked_only && game.territory_marks.is_none() {
            self.filtered_out += 1;
            return;
        }
        self.scored += 1;
        let a = analyser.analyse(&game, options.komi);
        let source = a.dead_source.as_str();
        let (agrees, rule_set, recorded, computed) = match a.self_check {
            SelfCheck::Agrees {
                rule_set,
                recorded,
                computed,
            } => (true, rule_set, recorded, computed),
            SelfCheck::Disagrees {
                rule_set,
                recorded,
                computed,
            } => (false, rule_set, recorded, computed),
            SelfCheck::Unchecked(why) => {
                let key = match why {
                    verdict_rules::analyse::Unchecked::NoNumericResult => "no_numeric_result",
                    verdict_rules::analyse::Unchecked::UnknownRules => "unknown_rules",
                };
                *self.unchecked.entry(key).or_default() += 1;
                return;
            }
        };
        for agreement in [
            &mut self.all,
            self.by_dead_source.entry(source).or_default(),
            self.by_rule_set.entry(rule_set.id()).or_default(),
        ] {
            if agrees {
                agreement.agrees += 1;
            } else {
                agreement.disagrees += 1;
            }
        }
        if !agrees {
            self.misses.push(Miss {
                file: file.display().to_string(),
                index,
                rule_set: rule_set.id(),
                dead_source: source,
                recorded,
                computed,
            });
        }
    }
}

impl Tally for CheckStats {
    fn merge(&mut self, other: CheckStats) {
        self.files += other.files;
        self.games += other.games;
        self.skipped += other.skipped;
        self.filtered_out += other.filtered_out;
        self.scored += other.scored;
        for (k, v) in other.skip_reasons {
            *self.skip_reasons.entry(k).or_default() += v;
        }
        for (k, v) in other.unchecked {
            *self.unchecked.entry(k).or_default() += v;
        }
        self.all.agrees += other.all.agrees;
        self.all.disagrees += other.all.disagrees;
        for (mine, theirs) in [
            (&mut self.by_dead_source, other.by_dead_source),
            (&mut self.by_rule_set, other.by_rule_set),
        ] {
            for (k, v) in theirs {
                let e = mine.entry(k).or_default();
                e.agrees += v.agrees;
                e.disagrees += v.disagrees;
            }
        }
        self.misses.extend(other.misses);
    }
}

/// Scores every game of `files` and checks each record's result.
pub fn check_files(files: &[InputFile], threads: usize, options: CheckOptions) -> Run<CheckStats> {
    let mut run = engine::fold(
        files,
        threads,
        || Analyser::new().assume_rules(options.assume_rules),
        |analyser, stats: &mut CheckStats, item| stats.add(analyser, &options, item),
    );
    run.tally
        .misses
        .sort_by(|a, b| (&a.file, a.index).cmp(&(&b.file, b.index)));
    run
}
