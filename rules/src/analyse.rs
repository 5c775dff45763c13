//! One game from record to verdicts: replay, settle, count, score, and check
//! the result against what the record itself claims.
//!
//! This is the whole per-game pipeline of verdict in one call, so that a
//! single game (`verdict score`) and a corpus of millions (the worker) are
//! scored by exactly the same code.

use crate::game::Game;
use crate::info::Rules;
use crate::replay::{ReplayReport, Replayer};
use crate::score::{verdicts, Counter, Counts, Position, RuleSet, Terms, Verdict};
use crate::settle::{Layer, Settlement, Settler, Status};
use crate::{Color, Point};

/// Where the dead stones of a game came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeadSource {
    /// The record's `TB`/`TW` territory marks: a stone inside the other
    /// colour's marked territory is dead.
    Marks,
    /// The settler ([`crate::settle`]) decided, from the position alone.
    Settled,
    /// The settler decided, and the record's own result picked the status
    /// of chains it left open (layer 5). The self-check of such a game
    /// agrees by construction and is reported apart.
    SettledWithResult,
    /// None: a 大解放 game ended by four consecutive 虚着, after which every
    /// stone with a liberty is alive (RULES.md section 6).
    FourXu,
    /// The settler was unsure ([`Settlement::confidence`] at or below the
    /// threshold) and the opt-in [`Referee`] answered instead.
    Referee,
}

impl DeadSource {
    pub const ALL: [DeadSource; 5] = [
        DeadSource::Marks,
        DeadSource::Settled,
        DeadSource::SettledWithResult,
        DeadSource::FourXu,
        DeadSource::Referee,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            DeadSource::Marks => "marks",
            DeadSource::Settled => "settled",
            DeadSource::SettledWithResult => "settled_result",
            DeadSource::FourXu => "four_xu",
            DeadSource::Referee => "referee",
        }
    }
}

/// What the settler did for a game without marks: its whole answer and
/// what the rows say of it.
#[derive(Clone, Debug, PartialEq)]
pub struct SettleFacts {
    /// Every chain's fate as the settler decided it (before layer 5 or a
    /// referee, which [`Analysis::dead`] reflects).
    pub settlement: Settlement,
    /// The most expensive layer that decided any chain.
    pub deepest: Layer,
    /// The least sure decision, 0 to 1.
    pub confidence: f32,
    /// Stones decided by each layer, in [`Layer::ALL`] order.
    pub stones_by_layer: [u32; Layer::ALL.len()],
    /// Chains the layers could not separate ([`crate::settle::ChainFate::is_open`]).
    pub open_chains: u32,
}

impl SettleFacts {
    fn of(settlement: &Settlement) -> SettleFacts {
        SettleFacts {
            settlement: settlement.clone(),
            deepest: settlement.deepest_layer(),
            confidence: settlement.confidence(),
            stones_by_layer: settlement.stones_by_layer(),
            open_chains: settlement.open_chains().count() as u32,
        }
    }
}

/// A second opinion on the dead stones of the games the settler is unsure
/// of: another program (GNU Go over GTP, `--referee gnugo`) that is slower
/// and, on some positions, more exact. The trait keeps this crate free of
/// processes and I/O: the caller brings the referee, the analyser decides
/// when to ask it. One referee serves every thread, so it is shared.
pub trait Referee: Send + Sync + std::fmt::Debug {
    /// The dead stones of `position` (every stone of a dead chain), with
    /// `to_move` to play and `komi` in points; an error says why there is
    /// no answer, and the settler's answer then stands.
    fn dead_stones(
        &self,
        position: &Position,
        komi: f64,
        to_move: Color,
    ) -> Result<Vec<Point>, String>;
}

/// The referee's dead stones of `position` as verdict takes them: only
/// stones (a referee may name an empty point), each once, row by row from
/// the top. The one way verdict asks a referee, for a run and for
/// `verdict eval` alike.
///
/// # Errors
/// The referee's own: why it gave no answer.
pub fn ask_referee(
    referee: &dyn Referee,
    position: &Position,
    komi: f64,
    to_move: Color,
) -> Result<Vec<Point>, String> {
    let mut theirs = referee.dead_stones(position, komi, to_move)?;
    theirs.retain(|&p| position.get(p).is_some());
    theirs.sort_unstable_by_key(|p| (p.y(), p.x()));
    theirs.dedup();
    Ok(theirs)
}

/// What the referee did for a game it was asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refereed {
    /// Its dead stones are the game's ([`DeadSource::Referee`]).
    Decided,
    /// It gave no answer (the message says why); the settler's stands.
    Failed(String),
}

impl Refereed {
    /// `decided` or `failed`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Refereed::Decided => "decided",
            Refereed::Failed(_) => "failed",
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

/// What a [`SelfCheck`] found, without the margins: what summaries count.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheckStatus {
    Agrees,
    Disagrees,
    Unchecked,
}

impl CheckStatus {
    pub const ALL: [CheckStatus; 3] = [
        CheckStatus::Agrees,
        CheckStatus::Disagrees,
        CheckStatus::Unchecked,
    ];

    /// `agrees`, `disagrees` or `unchecked`: the `self_check_status` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Agrees => "agrees",
            CheckStatus::Disagrees => "disagrees",
            CheckStatus::Unchecked => "unchecked",
        }
    }

    /// The status named `name` ([`CheckStatus::as_str`]).
    pub fn parse(name: &str) -> Option<CheckStatus> {
        CheckStatus::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl SelfCheck {
    pub const fn status(&self) -> CheckStatus {
        match self {
            SelfCheck::Agrees { .. } => CheckStatus::Agrees,
            SelfCheck::Disagrees { .. } => CheckStatus::Disagrees,
            SelfCheck::Unchecked(_) => CheckStatus::Unchecked,
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

    /// The rules the result was checked under: the record's own, or the
    /// ones assumed for it ([`Analyser::assume_rules`]).
    pub const fn rule_set(&self) -> Option<RuleSet> {
        match *self {
            SelfCheck::Agrees { rule_set, .. } | SelfCheck::Disagrees { rule_set, .. } => {
                Some(rule_set)
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

/// A game replayed once: what the replay found and the final position,
/// owned. Settling and counting start from it ([`Analyser::analyse_replayed`])
/// instead of replaying again, so a corpus row that needs both the replay
/// facts and the verdicts costs one replay.
#[derive(Clone, Debug)]
pub struct Replayed {
    report: ReplayReport,
    position: Position,
    variant: Option<crate::dajiefang::Report>,
}

impl Replayed {
    /// What the replay found; for a 大解放 game, the variant's report as an
    /// ordinary one ([`crate::dajiefang::Report::as_replay_report`]).
    pub fn report(&self) -> &ReplayReport {
        &self.report
    }

    /// The stones on the board after the last move.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// All the variant replay found, for a 大解放 game.
    pub fn variant(&self) -> Option<&crate::dajiefang::Report> {
        self.variant.as_ref()
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
    /// Set when the settler decided the dead stones.
    pub settled: Option<SettleFacts>,
    pub counts: Counts,
    pub komi: f64,
    /// The verdicts of the rule sets that apply to the game, in
    /// [`RuleSet::ALL`] order: all of them for an ordinary game, the four
    /// seed rule sets ([`DAJIEFANG_RULE_SETS`]) for a 大解放 game (the
    /// others are not computed rather than computed wrongly).
    pub verdicts: Vec<Verdict>,
    pub self_check: SelfCheck,
    /// The terms the verdicts were computed with.
    pub terms: Terms,
    /// The variant replay, for a 大解放 game.
    pub variant: Option<crate::dajiefang::Report>,
    /// Set when the settler left doubtful chains: the count with all of
    /// them decided the other way at once. Not set when the referee
    /// decided: its answer replaces the settler's, doubts included.
    pub flipped: Option<Flipped>,
    /// Set when the game was put to the referee ([`Analyser::referee`]).
    pub refereed: Option<Refereed>,
}

/// A game counted again with every doubtful chain of its settlement
/// ([`crate::settle::ChainFate::is_doubtful`]) decided the other way: dead
/// ones alive, living and seki ones dead. Comparing these verdicts with the
/// settler's bounds how much a corpus's rates owe to the settler's guesses,
/// without settling anything twice.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Flipped {
    /// Doubtful chains, all of them flipped.
    pub chains: u32,
    pub verdicts: [Verdict; 11],
}

/// The rule sets a 大解放 game is scored under (RULES.md section 6: the
/// 计活子 and 计枰点 versions, each edition).
pub const DAJIEFANG_RULE_SETS: [RuleSet; 4] =
    [RuleSet::JpdA, RuleSet::JpdB, RuleSet::JhzA, RuleSet::JhzB];

impl Analysis {
    /// The verdict of `rule_set`.
    ///
    /// # Panics
    /// When `rule_set` does not apply to the game (see
    /// [`Analysis::get_verdict`]).
    pub fn verdict(&self, rule_set: RuleSet) -> &Verdict {
        self.get_verdict(rule_set)
            .expect("the rule set applies to this game")
    }

    /// The verdict of `rule_set`, if it applies to the game.
    pub fn get_verdict(&self, rule_set: RuleSet) -> Option<&Verdict> {
        self.verdicts.iter().find(|v| v.rule_set == rule_set)
    }
}

/// Reusable per-thread state: build one and analyse many games with it.
#[derive(Debug, Default)]
pub struct Analyser {
    /// The opt-in referee and the confidence at or below which a settled
    /// game is put to it.
    referee: Option<(std::sync::Arc<dyn Referee>, f32)>,
    replayer: Replayer,
    variant: crate::dajiefang::Replayer,
    counter: Counter,
    /// Counts the flipped settlement, so that [`Analyser::counter`] keeps
    /// the states of the settler's own answer.
    flip_counter: Counter,
    settler: Settler,
    settlement: Settlement,
    /// Layer 5 of settling: let the record's result decide chains the
    /// settler could not (off by default, see [`Analyser::use_record_result`]).
    use_result: bool,
    /// Settle even games whose record marks the dead stones.
    ignore_marks: bool,
    /// The rule set a record's result is checked under when its `RU` does
    /// not name one verdict knows (`--assume-rules`).
    assume_rules: Option<RuleSet>,
}

impl Analyser {
    pub fn new() -> Analyser {
        Analyser::default()
    }

    /// Lets the record's own numeric result decide the status of chains the
    /// settler could not separate (layer 5 of [`crate::settle`]).
    ///
    /// Off by default, because it cannot tell a tie from an error: a result
    /// written one point wrong is "explained" by flipping a lone stone the
    /// settler was unsure of, and the self-check of that game then agrees by
    /// construction. Games settled this way say so (`settled_result`).
    pub fn use_record_result(mut self, on: bool) -> Analyser {
        self.use_result = on;
        self
    }

    /// Checks the results of records whose `RU` names no rule set verdict
    /// knows (every Tygem record, say) as if it named `rules`.
    pub fn assume_rules(mut self, rules: Option<RuleSet>) -> Analyser {
        self.assume_rules = rules;
        self
    }

    /// Puts every game the settler settles no surer than `threshold`
    /// ([`Settlement::confidence`]) to `referee`, and counts its answer
    /// there ([`DeadSource::Referee`]). Games with marks, and 大解放 games,
    /// are never put to it. The referee is asked before layer 5: a game it
    /// decides is not settled again from its result.
    pub fn referee(
        mut self,
        referee: Option<std::sync::Arc<dyn Referee>>,
        threshold: f32,
    ) -> Analyser {
        self.referee = referee.map(|r| (r, threshold));
        self
    }

    /// Settles every game, even one whose record marks its dead stones:
    /// to see what the settler makes of a position the players already
    /// judged.
    pub fn ignore_marks(mut self, on: bool) -> Analyser {
        self.ignore_marks = on;
        self
    }

    /// Replays `game` only: enough to tell whether it is worth scoring
    /// (most corpus games are resigned and never counted). A 大解放 game is
    /// replayed by the variant's replayer and reported as an ordinary
    /// report ([`crate::dajiefang::Report::as_replay_report`]); see
    /// [`Analyser::replay_dajiefang`] for all it found.
    pub fn replay(&mut self, game: &Game<'_>) -> ReplayReport {
        match self.replay_dajiefang(game) {
            Some(report) => report.as_replay_report(to_move_after(game)),
            None => self.replayer.replay(game),
        }
    }

    /// Replays a 大解放 game under the variant's legality; `None` for an
    /// ordinary game.
    pub fn replay_dajiefang(&mut self, game: &Game<'_>) -> Option<crate::dajiefang::Report> {
        let record = game.dajiefang.as_ref()?;
        Some(self.variant.replay(game, record))
    }

    /// The variant replayer, with the illegal moves of the last 大解放 game.
    pub fn dajiefang_replayer(&self) -> &crate::dajiefang::Replayer {
        &self.variant
    }

    /// The counter of the last analysis, for per-point states.
    pub fn counter(&self) -> &Counter {
        &self.counter
    }

    /// Replays `game` once and keeps what the later stages need: the
    /// report and the final position ([`Replayed`]).
    pub fn replayed(&mut self, game: &Game<'_>) -> Replayed {
        let variant = self.replay_dajiefang(game);
        let (report, board) = match &variant {
            Some(v) => (
                v.as_replay_report(to_move_after(game)),
                self.variant.board(),
            ),
            None => (self.replayer.replay(game), self.replayer.board()),
        };
        Replayed {
            report,
            position: position_of(board),
            variant,
        }
    }

    /// Replays, settles and scores `game`.
    pub fn analyse(&mut self, game: &Game<'_>, komi: KomiPolicy) -> Analysis {
        let replayed = self.replayed(game);
        self.analyse_replayed(game, replayed, komi)
    }

    /// Settles and scores `game` from its replay (`replayed` must be this
    /// game's, from [`Analyser::replayed`]).
    pub fn analyse_replayed(
        &mut self,
        game: &Game<'_>,
        replayed: Replayed,
        komi: KomiPolicy,
    ) -> Analysis {
        let Replayed {
            report,
            position,
            variant,
        } = replayed;
        if let Some(variant) = variant {
            return self.analyse_dajiefang(game, report, position, variant, komi);
        }
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
        let marks = game.territory_marks.as_ref().filter(|_| !self.ignore_marks);
        let (mut dead, mut dead_source, mut settled) = match marks {
            Some(marks) => (dead_from_marks(&position, marks), DeadSource::Marks, None),
            None => {
                self.settler.settle(&position, &mut self.settlement);
                let facts = SettleFacts::of(&self.settlement);
                (
                    self.settlement.dead.clone(),
                    DeadSource::Settled,
                    Some(facts),
                )
            }
        };
        let mut refereed = None;
        if let (Some((referee, threshold)), Some(facts)) = (&self.referee, &settled) {
            if facts.confidence <= *threshold {
                refereed = Some(
                    match ask_referee(
                        referee.as_ref(),
                        &position,
                        game.info.komi.points,
                        to_move_after(game),
                    ) {
                        Ok(theirs) => {
                            dead = theirs;
                            dead_source = DeadSource::Referee;
                            Refereed::Decided
                        }
                        Err(why) => Refereed::Failed(why),
                    },
                );
            }
        }
        let mut counts = self.counter.count(&position, &dead);
        let mut verdicts = verdicts(&counts, &terms).to_vec();
        let mut self_check = self_check(game, &verdicts, self.assume_rules);
        if let (
            true,
            SelfCheck::Disagrees {
                rule_set, recorded, ..
            },
            Some(facts),
        ) = (
            self.use_result && dead_source == DeadSource::Settled,
            self_check,
            settled.as_mut(),
        ) {
            // The record's result was reached at the record's komi,
            // whatever komi this run scores with.
            let recorded_terms = Terms {
                komi: game.info.komi.points,
                ..terms
            };
            if let Some(flipped) = open_statuses_from_result(
                &self.settlement,
                &mut self.counter,
                &position,
                &recorded_terms,
                rule_set,
                recorded,
            ) {
                dead = flipped;
                dead_source = DeadSource::SettledWithResult;
                facts.deepest = Layer::RecordResult;
                counts = self.counter.count(&position, &dead);
                verdicts = crate::score::verdicts(&counts, &terms).to_vec();
                self_check = self::self_check(game, &verdicts, self.assume_rules);
            }
        }
        let flipped = match settled {
            Some(_) if dead_source != DeadSource::Referee => flip_doubtful(
                &self.settlement,
                &mut self.flip_counter,
                &position,
                &dead,
                &terms,
            ),
            _ => None,
        };
        Analysis {
            report,
            position,
            dead,
            dead_source,
            settled,
            counts,
            komi,
            verdicts,
            self_check,
            terms,
            variant: None,
            flipped,
            refereed,
        }
    }

    /// A 大解放 game (RULES.md section 6): replayed under the variant's
    /// legality; no dead stones after four consecutive 虚着, settled as any
    /// game otherwise; counted on the final board under the four seed rule
    /// sets with `N_X` the stones put on the board from the bowl, komi from
    /// `KM` and no handicap (空枰开局).
    fn analyse_dajiefang(
        &mut self,
        game: &Game<'_>,
        report: ReplayReport,
        position: Position,
        variant: crate::dajiefang::Report,
        komi: KomiPolicy,
    ) -> Analysis {
        let komi = match komi {
            KomiPolicy::Game => game.info.komi.points,
            KomiPolicy::Fixed(k) => k,
        };
        let terms = Terms {
            placed: variant.accounting.placed_on_board(),
            captures: variant.accounting.captures,
            handicap: 0,
            komi,
        };
        let marks = game.territory_marks.as_ref().filter(|_| !self.ignore_marks);
        let (dead, dead_source, settled) = if variant.accounting.ended_by_four_xu() {
            (Vec::new(), DeadSource::FourXu, None)
        } else if let Some(marks) = marks {
            (dead_from_marks(&position, marks), DeadSource::Marks, None)
        } else {
            self.settler.settle(&position, &mut self.settlement);
            let facts = SettleFacts::of(&self.settlement);
            (
                self.settlement.dead.clone(),
                DeadSource::Settled,
                Some(facts),
            )
        };
        let counts = self.counter.count(&position, &dead);
        let verdicts = DAJIEFANG_RULE_SETS
            .iter()
            .map(|&r| crate::score::verdict(r, &counts, &terms))
            .collect();
        // No numeric result names which version (计活子 or 计枰点) it counts.
        let self_check = match recorded_margin(game) {
            None => SelfCheck::Unchecked(Unchecked::NoNumericResult),
            Some(_) => SelfCheck::Unchecked(Unchecked::UnknownRules),
        };
        Analysis {
            report,
            position,
            dead,
            dead_source,
            settled,
            counts,
            komi,
            verdicts,
            self_check,
            terms,
            variant: Some(variant),
            // The bounds compare all eleven rule sets; a variant game has four.
            flipped: None,
            refereed: None,
        }
    }
}

/// The side to move after the record (the variant has no passes, so the
/// last move's colour decides).
fn to_move_after(game: &Game<'_>) -> Color {
    game.moves
        .last()
        .map(|m| !m.color)
        .or(game.first_player)
        .unwrap_or(Color::Black)
}

/// A board as a static position for counting.
fn position_of(board: &crate::board::Board) -> Position {
    let mut position = Position::empty(board.size());
    for p in board.size().iter() {
        if let Some(c) = board.get(p) {
            position.set(p, Some(c));
        }
    }
    position
}

/// The verdicts with every doubtful chain of `settlement` decided the other
/// way from `dead` (the settler's dead stones, or layer 5's); None when no
/// chain is doubtful.
pub fn flip_doubtful(
    settlement: &Settlement,
    counter: &mut Counter,
    position: &Position,
    dead: &[Point],
    terms: &Terms,
) -> Option<Flipped> {
    let mut dead = dead.to_vec();
    let mut chains = 0;
    for c in settlement.doubtful_chains() {
        chains += 1;
        let stones = crate::settle::chain_points(position, c.anchor);
        if dead.contains(&c.anchor) {
            dead.retain(|p| !stones.contains(p));
        } else {
            dead.extend_from_slice(&stones);
        }
    }
    if chains == 0 {
        return None;
    }
    let counts = counter.count(position, &dead);
    Some(Flipped {
        chains,
        verdicts: verdicts(&counts, terms),
    })
}

/// Most open chains the record's result may choose among (2^this countings
/// at worst).
const MAX_OPEN: usize = 8;

/// Layer 5 of settling: when the settler's count disagrees with the record's
/// numeric result, looks for the smallest change to the status of the chains
/// the settler could not separate ([`crate::settle::ChainFate::is_open`])
/// that makes the count under `rule_set` equal `recorded`. Returns the new
/// dead stones, or None when no such change exists (then the settler's
/// answer stands and the disagreement is reported as it is).
pub fn open_statuses_from_result(
    settlement: &Settlement,
    counter: &mut Counter,
    position: &Position,
    terms: &Terms,
    rule_set: RuleSet,
    recorded: f64,
) -> Option<Vec<Point>> {
    let mut open: Vec<(Status, Vec<Point>)> = settlement
        .open_chains()
        .map(|c| (c.status, crate::settle::chain_points(position, c.anchor)))
        .collect();
    if open.is_empty() {
        return None;
    }
    // The biggest chains matter most to the count.
    open.sort_by_key(|(_, stones)| std::cmp::Reverse(stones.len()));
    open.truncate(MAX_OPEN);
    let mut best: Option<(usize, Vec<Point>)> = None;
    for mask in 1u32..(1 << open.len()) {
        let mut dead = settlement.dead.clone();
        let mut changed = 0;
        for (k, (status, stones)) in open.iter().enumerate() {
            if mask & (1 << k) == 0 {
                continue;
            }
            changed += stones.len();
            if *status == Status::Dead {
                dead.retain(|p| !stones.contains(p));
            } else {
                dead.extend_from_slice(stones);
            }
        }
        if best.as_ref().is_some_and(|(c, _)| *c <= changed) {
            continue;
        }
        let counts = counter.count(position, &dead);
        if crate::score::verdict(rule_set, &counts, terms).margin == recorded {
            dead.sort_unstable_by_key(|p| (p.y(), p.x()));
            best = Some((changed, dead));
        }
    }
    best.map(|(_, dead)| dead)
}

/// The record's numeric result as Black's margin, if it has one.
pub fn recorded_margin(game: &Game<'_>) -> Option<f64> {
    crate::outcome::recorded_margin(&game.info.result)
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

/// The record's own result against our count under its own rules and its
/// own komi (a run scoring at another komi does not change what the
/// record's result was reached at).
fn self_check(game: &Game<'_>, verdicts: &[Verdict], assume: Option<RuleSet>) -> SelfCheck {
    let Some(recorded) = recorded_margin(game) else {
        return SelfCheck::Unchecked(Unchecked::NoNumericResult);
    };
    let Some(rule_set) = rule_set_of(&game.info.rules).or(assume) else {
        return SelfCheck::Unchecked(Unchecked::UnknownRules);
    };
    let Some(v) = verdicts.iter().find(|v| v.rule_set == rule_set) else {
        return SelfCheck::Unchecked(Unchecked::UnknownRules);
    };
    let computed = v.margin_at(game.info.komi.points);
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
