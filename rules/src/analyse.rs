//! One game from record to verdicts: replay, settle, count, score, and check
//! the result against what the record itself claims.
//!
//! This is the whole per-game pipeline of verdict in one call, so that a
//! single game (`verdict score`) and a corpus of millions (the worker) are
//! scored by exactly the same code.

use crate::game::Game;
use crate::info::{GameResult, Rules, WinBy};
use crate::replay::{ReplayReport, Replayer};
use crate::score::{verdicts, Counter, Counts, Position, RuleSet, Terms, Verdict};
use crate::{Color, Point};

/// Where the dead stones of a game came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeadSource {
    /// The record's `TB`/`TW` territory marks: a stone inside the other
    /// colour's marked territory is dead.
    Marks,
    /// Nothing decided them: every stone on the board is taken as alive.
    AllAlive,
}

impl DeadSource {
    pub const fn as_str(self) -> &'static str {
        match self {
            DeadSource::Marks => "marks",
            DeadSource::AllAlive => "all_alive",
        }
    }
}

/// Which komi to score with.
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub enum KomiPolicy {
    /// The game's own komi, normalised to points (0 when the record has none).
    #[default]
    Game,
    /// A komi given by the caller, in points.
    Fixed(f64),
}

/// The record's claimed result checked against our count under its own rules.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SelfCheck {
    /// Our margin under the record's rules equals its numeric result.
    Agrees {
        rule_set: RuleSet,
        recorded: f64,
        computed: f64,
    },
    /// It does not; `computed - recorded` is the difference, Black's view.
    Disagrees {
        rule_set: RuleSet,
        recorded: f64,
        computed: f64,
    },
    /// No numeric result, or rules we cannot map to a rule set.
    Unchecked(Unchecked),
}

/// Why a game's result could not be checked.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Unchecked {
    /// Resignation, time, forfeit, void, unknown or missing result.
    NoNumericResult,
    /// `RU` missing or not one verdict knows.
    UnknownRules,
}

impl SelfCheck {
    /// `agrees`, `disagrees` or `unchecked`.
    pub const fn status(&self) -> &'static str {
        match self {
            SelfCheck::Agrees { .. } => "agrees",
            SelfCheck::Disagrees { .. } => "disagrees",
            SelfCheck::Unchecked(_) => "unchecked",
        }
    }

    pub const fn recorded_margin(&self) -> Option<f64> {
        match *self {
            SelfCheck::Agrees { recorded, .. } | SelfCheck::Disagrees { recorded, .. } => {
                Some(recorded)
            }
            SelfCheck::Unchecked(_) => None,
        }
    }

    pub const fn computed_margin(&self) -> Option<f64> {
        match *self {
            SelfCheck::Agrees { computed, .. } | SelfCheck::Disagrees { computed, .. } => {
                Some(computed)
            }
            SelfCheck::Unchecked(_) => None,
        }
    }
}

/// Everything verdict concludes about one game.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub report: ReplayReport,
    /// The final position as replayed, dead stones still on it.
    pub position: Position,
    pub dead: Vec<Point>,
    pub dead_source: DeadSource,
    pub counts: Counts,
    pub komi: f64,
    pub verdicts: [Verdict; 11],
    pub self_check: SelfCheck,
}

impl Analysis {
    pub fn verdict(&self, rule_set: RuleSet) -> &Verdict {
        self.verdicts
            .iter()
            .find(|v| v.rule_set == rule_set)
            .expect("every rule set is scored")
    }
}

/// Reusable per-thread state: build one and analyse many games with it.
#[derive(Debug, Default)]
pub struct Analyser {
    replayer: Replayer,
    counter: Counter,
}

impl Analyser {
    pub fn new() -> Analyser {
        Analyser::default()
    }

    /// Replays `game` only: enough to tell whether it is worth scoring
    /// (most corpus games are resigned and never counted).
    pub fn replay(&mut self, game: &Game<'_>) -> ReplayReport {
        self.replayer.replay(game)
    }

    /// The counter of the last analysis, for per-point states.
    pub fn counter(&self) -> &Counter {
        &self.counter
    }

    pub fn analyse(&mut self, game: &Game<'_>, komi: KomiPolicy) -> Analysis {
        let report = self.replayer.replay(game);
        let board = self.replayer.board();
        let mut position = Position::empty(game.size);
        for p in game.size.iter() {
            if let Some(c) = board.get(p) {
                position.set(p, Some(c));
            }
        }
        let (dead, dead_source) = match &game.territory_marks {
            Some(marks) => (dead_from_marks(&position, marks), DeadSource::Marks),
            None => (Vec::new(), DeadSource::AllAlive),
        };
        let counts = self.counter.count(&position, &dead);
        let komi = match komi {
            KomiPolicy::Game => game.info.komi.points,
            KomiPolicy::Fixed(k) => k,
        };
        let terms = Terms {
            placed: report.accounting.placed_to_first_stop,
            captures: report.accounting.captures,
            handicap: game.handicap.stones,
            komi,
        };
        let verdicts = verdicts(&counts, &terms);
        let self_check = self_check(game, &verdicts);
        Analysis {
            report,
            position,
            dead,
            dead_source,
            counts,
            komi,
            verdicts,
            self_check,
        }
    }
}

/// Stones of one colour standing on points the other colour marked as its
/// territory.
fn dead_from_marks(position: &Position, marks: &crate::ByColor<Vec<Point>>) -> Vec<Point> {
    let mut dead = Vec::new();
    for owner in Color::ALL {
        for &p in &marks[owner] {
            if position.get(p) == Some(owner.other()) {
                dead.push(p);
            }
        }
    }
    dead.sort_unstable();
    dead
}

/// The rule set that counts a game recorded under `rules`, if verdict knows one.
pub fn rule_set_of(rules: &Rules) -> Option<RuleSet> {
    Some(match rules {
        Rules::Japanese => RuleSet::Japanese,
        Rules::Korean => RuleSet::Korean,
        Rules::Chinese => RuleSet::Chinese,
        Rules::Aga => RuleSet::Aga,
        Rules::NewZealand => RuleSet::NewZealand,
        Rules::Ing => RuleSet::Ing,
        Rules::TrompTaylor => RuleSet::TrompTaylor,
        _ => return None,
    })
}

fn self_check(game: &Game<'_>, verdicts: &[Verdict; 11]) -> SelfCheck {
    let recorded = match game.info.result {
        GameResult::Draw => 0.0,
        GameResult::Win {
            winner,
            by: WinBy::Points(points),
            ..
        } => winner.fold(points, -points),
        _ => return SelfCheck::Unchecked(Unchecked::NoNumericResult),
    };
    let Some(rule_set) = rule_set_of(&game.info.rules) else {
        return SelfCheck::Unchecked(Unchecked::UnknownRules);
    };
    let computed = verdicts
        .iter()
        .find(|v| v.rule_set == rule_set)
        .expect("every rule set is scored")
        .margin;
    if computed == recorded {
        SelfCheck::Agrees {
            rule_set,
            recorded,
            computed,
        }
    } else {
        SelfCheck::Disagrees {
            rule_set,
            recorded,
            computed,
        }
    }
}
