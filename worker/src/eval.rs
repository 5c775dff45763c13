//! `verdict eval deadstones`: the settler measured against players' marks.
//!
//! Every game whose final node marks territory (`TB`/`TW`) is a labelled
//! example: the stones inside the other colour's marked territory are the
//! ones the players agreed were dead. The settler sees the position without
//! the marks, and its answer is compared stone by stone, by winner under the
//! record's own rules, and by time. GNU Go, when asked, settles the same
//! positions in the same run, so the two are compared on equal terms.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use verdict_rules::analyse::{
    ask_referee, open_statuses_from_result, recorded_margin, rule_set_of, Analyser, KomiPolicy,
    Referee,
};
use verdict_rules::game::Game;
use verdict_rules::score::{verdict, Counter, Position, RuleSet, Terms, Verdict};
use verdict_rules::settle::{Settlement, Settler};
use verdict_rules::{Color, Point};

pub use verdict_lab::gnugo::{GnuGoError, GnuGoReferee};

use crate::engine::{self, Item, Tally};
use crate::inputs::InputFile;

/// One marked game, ready to settle.
#[derive(Clone, Debug)]
pub struct Case {
    pub file: PathBuf,
    /// Game index within the file, from 0.
    pub index: usize,
    pub position: Position,
    /// Stones the marks say are dead, row by row from the top.
    pub marked: Vec<Point>,
    pub terms: Terms,
    /// The record's own rules, or Japanese when it names none we know.
    pub rule_set: RuleSet,
    /// Who would play next.
    pub to_move: Color,
    /// The record's numeric result (Black's margin) when its rules are
    /// known: what layer 5 may use.
    pub recorded: Option<f64>,
}

/// Marked games of the inputs, in input order.
#[derive(Debug, Default)]
pub struct Cases(pub Vec<Case>);

impl Tally for Cases {
    fn merge(&mut self, other: Self) {
        self.0.extend(other.0);
    }
}

/// Which games of the inputs are cases.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Labels {
    /// Games whose final node marks territory: the marks are the label.
    Marks,
    /// Games without marks but with a numeric result and rules verdict
    /// knows: the recorded result is the label.
    Results,
}

/// The cases of some inputs, and what of the inputs could not be read.
#[derive(Debug, Default)]
pub struct Collected {
    pub cases: Vec<Case>,
    /// Files, archives and members that could not be read, with the reason.
    pub not_read: Vec<(String, String)>,
    /// Archive members that are not SGF, with the reason.
    pub left_aside: Vec<(String, String)>,
}

/// Reads every marked game of `files`.
pub fn collect(files: &[InputFile], threads: usize) -> Collected {
    collect_labelled(files, threads, Labels::Marks, None)
}

/// Reads every game of `files` that `labels` can judge. `assume` stands
/// for the rules of records whose `RU` names none verdict knows (every
/// Tygem record): with it, their results are labels too.
pub fn collect_labelled(
    files: &[InputFile],
    threads: usize,
    labels: Labels,
    assume: Option<RuleSet>,
) -> Collected {
    let run = engine::fold(
        files,
        threads,
        Analyser::new,
        |analyser, cases: &mut Cases, item| {
            let Item::Game {
                unit,
                index,
                sgf,
                bytes,
            } = item
            else {
                return;
            };
            let Ok(game) = Game::from_sgf(sgf, bytes) else {
                return;
            };
            let rule_set = rule_set_of(&game.info.rules).or(assume);
            let known_rules = rule_set.is_some();
            let wanted = match labels {
                Labels::Marks => game.territory_marks.is_some(),
                Labels::Results => {
                    game.territory_marks.is_none()
                        && known_rules
                        && recorded_margin(&game).is_some()
                }
            };
            if !wanted {
                return;
            }
            let a = analyser.analyse(&game, KomiPolicy::Game);
            let to_move = match game.moves.last() {
                Some(m) => m.color.other(),
                None => game.first_player.unwrap_or(Color::Black),
            };
            cases.0.push(Case {
                file: unit.path.clone(),
                index,
                marked: a.dead.clone(),
                terms: Terms {
                    placed: a.report.accounting.placed_to_first_stop,
                    captures: a.report.accounting.captures,
                    handicap: game.handicap.stones,
                    komi: a.komi,
                },
                rule_set: rule_set.unwrap_or(RuleSet::Japanese),
                position: a.position,
                to_move,
                recorded: recorded_margin(&game).filter(|_| known_rules),
            });
        },
    );
    let mut cases = run.tally.0;
    cases.sort_by(|a, b| (&a.file, a.index).cmp(&(&b.file, b.index)));
    Collected {
        cases,
        not_read: run.not_read,
        left_aside: run.left_aside,
    }
}

/// How one settler did on one game.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub dead: Vec<Point>,
    pub elapsed: Duration,
    /// Why the settler gave no answer (GNU Go failing on a position).
    pub error: Option<String>,
    /// How sure the answer is ([`Settlement::confidence`]; 1 for an
    /// outside settler's): what picks the games a referee is asked about.
    pub confidence: f32,
}

/// Totals for one settler over all cases.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Score {
    pub games: u64,
    pub exact: u64,
    pub winner_flips: u64,
    /// Stones both call dead, stones only the settler calls dead, stones
    /// only the marks call dead.
    pub true_dead: u64,
    pub false_dead: u64,
    pub missed_dead: u64,
    pub ms_median: f64,
    pub ms_p99: f64,
    pub failures: u64,
}

impl Score {
    pub fn exact_rate(&self) -> f64 {
        self.exact as f64 / self.games.max(1) as f64
    }

    pub fn precision(&self) -> f64 {
        let called = self.true_dead + self.false_dead;
        if called == 0 {
            1.0
        } else {
            self.true_dead as f64 / called as f64
        }
    }

    pub fn recall(&self) -> f64 {
        let marked = self.true_dead + self.missed_dead;
        if marked == 0 {
            1.0
        } else {
            self.true_dead as f64 / marked as f64
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "games": self.games,
            "exact": self.exact,
            "exact_rate": self.exact_rate(),
            "stone_precision": self.precision(),
            "stone_recall": self.recall(),
            "winner_flips": self.winner_flips,
            "ms_median": self.ms_median,
            "ms_p99": self.ms_p99,
            "failures": self.failures,
        })
    }
}

/// Whether counting `dead` instead of the marked stones changes the winner
/// under the record's own rules.
pub fn changes_winner(case: &Case, counter: &mut Counter, dead: &[Point]) -> bool {
    verdict_with(case, counter, &case.marked).winner != verdict_with(case, counter, dead).winner
}

/// The case counted under its own rules with `dead` taken off.
fn verdict_with(case: &Case, counter: &mut Counter, dead: &[Point]) -> Verdict {
    let counts = counter.count(&case.position, dead);
    verdict(case.rule_set, &counts, &case.terms)
}

/// The stones the marks call dead and those `ours` does, as sets.
fn dead_sets(case: &Case, ours: &[Point]) -> (BTreeSet<Point>, BTreeSet<Point>) {
    (
        case.marked.iter().copied().collect(),
        ours.iter().copied().collect(),
    )
}

/// Whether the settler found exactly the stones the marks call dead.
pub fn is_exact(case: &Case, out: &Outcome) -> bool {
    let (marked, ours) = dead_sets(case, &out.dead);
    marked == ours
}

/// How one settler's dead stones reproduce the recorded results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultScore {
    pub games: u64,
    /// Games whose margin under their own rules is the recorded one.
    pub agree: u64,
    /// Games whose winner is the recorded one.
    pub winner_agree: u64,
    pub ms_median: f64,
    pub ms_p99: f64,
    pub failures: u64,
}

impl ResultScore {
    pub fn rate(&self) -> f64 {
        self.agree as f64 / self.games.max(1) as f64
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "games": self.games,
            "agree": self.agree,
            "agree_rate": self.rate(),
            "winner_agree": self.winner_agree,
            "ms_median": self.ms_median,
            "ms_p99": self.ms_p99,
            "failures": self.failures,
        })
    }
}

/// Black's margin under each case's own rules with the outcome's dead
/// stones taken off; `None` where the settler gave no answer.
pub fn margins(cases: &[Case], outcomes: &[Outcome]) -> Vec<Option<f64>> {
    let mut counter = Counter::new();
    cases
        .iter()
        .zip(outcomes)
        .map(|(case, out)| {
            out.error
                .is_none()
                .then(|| verdict_with(case, &mut counter, &out.dead).margin)
        })
        .collect()
}

/// Adds up how `outcomes` reproduce the recorded results, given their
/// [`margins`] (one of each per case, same order). A game the settler
/// failed on reproduces nothing.
pub fn score_results(cases: &[Case], outcomes: &[Outcome], margins: &[Option<f64>]) -> ResultScore {
    let mut s = ResultScore::default();
    let mut ms: Vec<f64> = Vec::with_capacity(outcomes.len());
    for ((case, out), margin) in cases.iter().zip(outcomes).zip(margins) {
        let Some(recorded) = case.recorded else {
            continue;
        };
        s.games += 1;
        ms.push(out.elapsed.as_secs_f64() * 1e3);
        let Some(margin) = *margin else {
            s.failures += 1;
            continue;
        };
        s.agree += u64::from(margin == recorded);
        s.winner_agree += u64::from(margin.total_cmp(&0.0) == recorded.total_cmp(&0.0));
    }
    ms.sort_by(f64::total_cmp);
    s.ms_median = percentile(&ms, 0.5);
    s.ms_p99 = percentile(&ms, 0.99);
    s
}

/// Stones two settlers both judge otherwise than the marks: `(dead, alive)`
/// are those both call dead that the marks leave standing, and those the
/// marks call dead that both keep.
///
/// The marks are what the players agreed, and players err: they leave a
/// stone in atari on the board, or give up a seki. Neither settler can be
/// exact on such a game without copying the mistake, so a game where two
/// independent referees agree with each other against the marks is
/// reported apart, with the stones in question, for a person to look at.
pub fn disputed_points(marked: &[Point], a: &[Point], b: &[Point]) -> (Vec<Point>, Vec<Point>) {
    let set = |v: &[Point]| v.iter().copied().collect::<BTreeSet<Point>>();
    let (marked, a, b) = (set(marked), set(a), set(b));
    let dead = a.intersection(&b).filter(|p| !marked.contains(p));
    let alive = marked.iter().filter(|p| !a.contains(p) && !b.contains(p));
    (dead.copied().collect(), alive.copied().collect())
}

/// A game whose marks verdict and GNU Go both dispute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispute {
    /// Index into the cases.
    pub case: usize,
    /// Stones both call dead that the marks leave standing.
    pub dead: Vec<Point>,
    /// Stones the marks call dead that both keep.
    pub alive: Vec<Point>,
}

/// Every game where `ours` and `theirs` (one outcome per case each) agree
/// against the marks on at least one stone. A settler that failed on a
/// game (GNU Go refusing a position) disputes nothing there.
pub fn disputes(cases: &[Case], ours: &[Outcome], theirs: &[Outcome]) -> Vec<Dispute> {
    cases
        .iter()
        .zip(ours.iter().zip(theirs))
        .enumerate()
        .filter(|(_, (_, (a, b)))| a.error.is_none() && b.error.is_none())
        .filter_map(|(k, (case, (a, b)))| {
            let (dead, alive) = disputed_points(&case.marked, &a.dead, &b.dead);
            (!dead.is_empty() || !alive.is_empty()).then_some(Dispute {
                case: k,
                dead,
                alive,
            })
        })
        .collect()
}

/// Games exact among those no dispute names.
pub fn exact_undisputed(cases: &[Case], outcomes: &[Outcome], disputes: &[Dispute]) -> u64 {
    let named: BTreeSet<usize> = disputes.iter().map(|d| d.case).collect();
    cases
        .iter()
        .zip(outcomes)
        .enumerate()
        .filter(|(k, (c, o))| !named.contains(k) && is_exact(c, o))
        .count() as u64
}

/// Adds up `outcomes` (one per case, same order).
pub fn score(cases: &[Case], outcomes: &[Outcome]) -> Score {
    let mut s = Score::default();
    let mut counter = Counter::new();
    let mut ms: Vec<f64> = Vec::with_capacity(outcomes.len());
    for (case, out) in cases.iter().zip(outcomes) {
        s.games += 1;
        if out.error.is_some() {
            s.failures += 1;
        }
        ms.push(out.elapsed.as_secs_f64() * 1e3);
        let (marked, ours) = dead_sets(case, &out.dead);
        let both = marked.intersection(&ours).count() as u64;
        s.true_dead += both;
        s.false_dead += ours.len() as u64 - both;
        s.missed_dead += marked.len() as u64 - both;
        if marked == ours {
            s.exact += 1;
        } else if changes_winner(case, &mut counter, &out.dead) {
            s.winner_flips += 1;
        }
    }
    ms.sort_by(f64::total_cmp);
    s.ms_median = percentile(&ms, 0.5);
    s.ms_p99 = percentile(&ms, 0.99);
    s
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// verdict's settler on every case, one after another on this thread (the
/// times are one core's): layers 1-4, and when `with_result` the same with
/// layer 5 (the record's result deciding chains the settler left open,
/// timed together; empty otherwise). `seed` picks the playouts' random
/// sequence ([`Settler::with_seed`]; 0 is what `verdict run` uses).
pub fn settle_all(cases: &[Case], seed: u64, with_result: bool) -> (Vec<Outcome>, Vec<Outcome>) {
    let mut settler = Settler::with_seed(seed);
    let mut settlement = Settlement::default();
    let mut counter = Counter::new();
    let mut plain = Vec::with_capacity(cases.len());
    let mut layer5 = Vec::with_capacity(if with_result { cases.len() } else { 0 });
    for case in cases {
        let t = Instant::now();
        settler.settle(&case.position, &mut settlement);
        let elapsed = t.elapsed();
        plain.push(Outcome {
            dead: settlement.dead.clone(),
            elapsed,
            error: None,
            confidence: settlement.confidence(),
        });
        if !with_result {
            continue;
        }
        let t = Instant::now();
        let mut dead = settlement.dead.clone();
        if let Some(recorded) = case.recorded {
            if verdict_with(case, &mut counter, &dead).margin != recorded {
                if let Some(flipped) = open_statuses_from_result(
                    &settlement,
                    &mut counter,
                    &case.position,
                    &case.terms,
                    case.rule_set,
                    recorded,
                ) {
                    dead = flipped;
                }
            }
        }
        layer5.push(Outcome {
            dead,
            elapsed: elapsed + t.elapsed(),
            error: None,
            confidence: settlement.confidence(),
        });
    }
    (plain, layer5)
}

/// `ours` with the referee's dead stones on the cases `ours` is no surer
/// of than `threshold` (their [`Outcome::confidence`]), its time added to
/// verdict's on those: the opt-in referee, asked as `verdict run` asks it
/// ([`ask_referee`]). Returns the outcomes and the cases it decided (a
/// position it gives no answer for keeps verdict's).
pub fn refereed(
    cases: &[Case],
    ours: &[Outcome],
    threshold: f32,
    referee: &dyn Referee,
    threads: usize,
) -> (Vec<Outcome>, Vec<usize>) {
    let asked: Vec<usize> = (0..cases.len())
        .filter(|&k| ours[k].confidence <= threshold)
        .collect();
    let theirs = ask_all(cases, &asked, referee, threads);
    let mut out = ours.to_vec();
    let mut decided = Vec::with_capacity(asked.len());
    for (&k, t) in asked.iter().zip(theirs) {
        out[k].elapsed += t.elapsed;
        if t.error.is_none() {
            out[k].dead = t.dead;
            decided.push(k);
        }
    }
    (out, decided)
}

/// An outside settler (GNU Go) on every case, `threads` questions at once.
pub fn referee_all(cases: &[Case], referee: &dyn Referee, threads: usize) -> Vec<Outcome> {
    let all: Vec<usize> = (0..cases.len()).collect();
    ask_all(cases, &all, referee, threads)
}

/// The referee's answers on `cases[k]` for each `k` of `which`, in that
/// order, from `threads` threads taking the next case as they get free.
fn ask_all(cases: &[Case], which: &[usize], referee: &dyn Referee, threads: usize) -> Vec<Outcome> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut answers: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, which.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut got = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&k) = which.get(i) else {
                            return got;
                        };
                        let case = &cases[k];
                        let t = Instant::now();
                        let answer =
                            ask_referee(referee, &case.position, case.terms.komi, case.to_move);
                        let elapsed = t.elapsed();
                        let (dead, error) = match answer {
                            Ok(dead) => (dead, None),
                            Err(why) => (Vec::new(), Some(why)),
                        };
                        got.push((
                            i,
                            Outcome {
                                dead,
                                elapsed,
                                error,
                                confidence: 1.0,
                            },
                        ));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a referee thread does not panic"))
            .collect()
    });
    answers.sort_unstable_by_key(|(i, _)| *i);
    answers.into_iter().map(|(_, o)| o).collect()
}

/// A board diagram of a case with both answers: `X`/`O` stones alive in
/// both, `x`/`o` dead in both; dead only by the marks: `#` black, `@`
/// white; dead only by the settler: `*` black, `%` white.
pub fn diagram(case: &Case, ours: &[Point]) -> String {
    let size = case.position.size();
    let (marked, ours) = dead_sets(case, ours);
    let mut s = String::new();
    for y in 0..size.height() {
        for x in 0..size.width() {
            let p = Point::new(x, y).expect("on the board");
            let c = match (case.position.get(p), marked.contains(&p), ours.contains(&p)) {
                (None, _, _) => '.',
                (Some(Color::Black), false, false) => 'X',
                (Some(Color::White), false, false) => 'O',
                (Some(Color::Black), true, true) => 'x',
                (Some(Color::White), true, true) => 'o',
                (Some(Color::Black), true, false) => '#',
                (Some(Color::White), true, false) => '@',
                (Some(Color::Black), false, true) => '*',
                (Some(Color::White), false, true) => '%',
            };
            s.push(c);
            s.push(' ');
        }
        s.push('\n');
    }
    s
}

/// The file and game of a case, for messages.
pub fn case_name(case: &Case) -> String {
    format!("{} (game {})", case.file.display(), case.index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(v: &[(u8, u8)]) -> Vec<Point> {
        v.iter().map(|&(x, y)| Point::new(x, y).unwrap()).collect()
    }

    /// Only stones both settlers judge the same way, against the marks,
    /// are disputed; a stone one settler alone calls otherwise is that
    /// settler's own miss.
    #[test]
    fn a_dispute_needs_both_settlers_against_the_marks() {
        let marked = pts(&[(0, 0), (1, 1), (2, 2)]);
        // Both keep (1, 1); only `a` keeps (2, 2). Both kill (5, 5); only
        // `b` kills (6, 6).
        let a = pts(&[(0, 0), (5, 5)]);
        let b = pts(&[(0, 0), (2, 2), (5, 5), (6, 6)]);
        let (dead, alive) = disputed_points(&marked, &a, &b);
        assert_eq!(dead, pts(&[(5, 5)]));
        assert_eq!(alive, pts(&[(1, 1)]));
        // Settlers that agree with the marks dispute nothing.
        assert_eq!(disputed_points(&marked, &marked, &marked), (vec![], vec![]));
    }
}
