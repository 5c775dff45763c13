//! The report's numbers, computed once from a run read back: every figure
//! and table is drawn from these, and the page embeds them as JSON, so what
//! a reader sees and what a test checks are the same values.

use std::collections::{BTreeMap, BTreeSet};

use verdict_rules::score::RuleSet;

use super::data::{Cell, ReadError, Row, RunData, SummaryFile, Win, RULE_SETS};
use crate::summary::{wilson, HEADLINE};

/// Fewer scorable games than this make a cell sparse: its interval is shown,
/// hollow, and the text says so.
pub const SPARSE: u64 = 30;

/// Most values a breakdown chart shows (the ones with most games); the rest
/// are counted in a note, and are in `summary.json`.
pub const MAX_VALUES: usize = 30;

/// The window of margins around zero the "why" figures show, in points.
pub const MARGIN_WINDOW: f64 = 8.0;

/// Gaps between two rule sets' margins beyond this are binned at the ends.
pub const MAX_GAP: i64 = 5;

/// A rate with its interval: one mark of a chart, one line of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    pub comparison: String,
    pub dimension: String,
    pub value: String,
    pub scorable: u64,
    pub disagreements: u64,
    pub rate: f64,
    pub lo: f64,
    pub hi: f64,
    pub draws: u64,
}

impl Rate {
    fn of_cell(c: &Cell) -> Rate {
        Rate {
            comparison: c.comparison.clone(),
            dimension: c.dimension.clone(),
            value: c.value.clone(),
            scorable: c.scorable,
            disagreements: c.disagreements,
            rate: c.rate,
            lo: c.ci_low,
            hi: c.ci_high,
            draws: c.draws,
        }
    }

    /// A rate counted here (not read from the summary).
    pub fn counted(
        comparison: &str,
        dimension: &str,
        value: &str,
        k: u64,
        n: u64,
        draws: u64,
    ) -> Rate {
        let (lo, hi) = wilson(k, n);
        Rate {
            comparison: comparison.to_string(),
            dimension: dimension.to_string(),
            value: value.to_string(),
            scorable: n,
            disagreements: k,
            rate: k as f64 / n.max(1) as f64,
            lo,
            hi,
            draws,
        }
    }

    pub fn sparse(&self) -> bool {
        self.scorable < SPARSE
    }
}

/// A comparison of two rule sets, by index into [`RuleSet::ALL`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub a: usize,
    pub b: usize,
}

impl Pair {
    pub fn parse(name: &str) -> Option<Pair> {
        let (a, b) = name.split_once("_vs_")?;
        let idx = |id: &str| RuleSet::ALL.iter().position(|r| r.id() == id);
        Some(Pair {
            a: idx(a)?,
            b: idx(b)?,
        })
    }

    pub fn name(self) -> String {
        format!(
            "{}_vs_{}",
            RuleSet::ALL[self.a].id(),
            RuleSet::ALL[self.b].id()
        )
    }

    /// One of the mission's three comparisons, in either order (`--all-pairs`
    /// names them in rule-set order: `jpd_a_vs_jhz_a`).
    pub fn is_headline(self) -> bool {
        self.headline().is_some()
    }

    /// The pair in the order of [`HEADLINE`] (计活子 first, then 计枰点;
    /// 唐宋, then 明清), when it is a headline pair.
    pub fn headline(self) -> Option<Pair> {
        let (x, y) = (RuleSet::ALL[self.a], RuleSet::ALL[self.b]);
        HEADLINE.iter().find_map(|(a, b)| {
            if (x, y) == (*a, *b) {
                Some(self)
            } else if (y, x) == (*a, *b) {
                Some(Pair {
                    a: self.b,
                    b: self.a,
                })
            } else {
                None
            }
        })
    }

    /// The canonical name of a headline pair (`jhz_a_vs_jpd_a` for
    /// `jpd_a_vs_jhz_a` too), else the name as given.
    pub fn canonical(name: &str) -> String {
        Pair::parse(name)
            .and_then(Pair::headline)
            .map_or_else(|| name.to_string(), Pair::name)
    }
}

/// One breakdown: a dimension's values, each comparison's rate at each.
#[derive(Clone, Debug, PartialEq)]
pub struct Breakdown {
    pub dimension: String,
    pub values: Vec<String>,
    /// Per headline comparison, its rates in `values` order (None: no cell).
    pub panels: Vec<(String, Vec<Option<Rate>>)>,
    /// Values left out of the chart, and their scorable games (first panel).
    pub omitted: (usize, u64),
    /// Whether the cells come from `summary.json` (else: counted from rows).
    pub from_summary: bool,
}

/// The komi sweep of one comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub comparison: String,
    pub points: Vec<(f64, Rate)>,
}

/// Where the two margins of a comparison fall, near zero: games by
/// (gap between the margins, margin of the second rule set).
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    pub comparison: String,
    /// `margin(b) - margin(a)`: `N_B - N_W` (with fills, less H) for the
    /// editions, `E_B - E_W` for 计活子 against 计枰点.
    pub gaps: Vec<i64>,
    /// Margins of `b` (rows of the grid), from high to low.
    pub margins: Vec<f64>,
    /// `cells[margin][gap] = (games, games whose winners differ)`.
    pub cells: Vec<Vec<(u64, u64)>>,
    /// Scorable games, games in the window, disagreements, disagreements in it.
    pub scorable: u64,
    pub in_window: u64,
    pub disagreements: u64,
    pub disagreements_in_window: u64,
}

/// Winners under one rule set.
#[derive(Clone, Debug, PartialEq)]
pub struct Winners {
    pub rule_set: String,
    pub black: u64,
    pub white: u64,
    pub draw: u64,
}

/// Self-check agreement of a group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    pub group: String,
    pub agrees: u64,
    pub disagrees: u64,
}

/// A self-check miss and its likely reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub row: usize,
    pub rule_set: String,
    pub recorded: f64,
    pub computed: f64,
    pub reason: &'static str,
}

/// The self-check section.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfCheck {
    pub agrees: u64,
    pub disagrees: u64,
    pub unchecked: u64,
    pub by_dead_source: Vec<Agreement>,
    pub by_rule_set: Vec<Agreement>,
    pub by_input: Vec<Agreement>,
    pub reasons: Vec<(&'static str, u64)>,
    pub unchecked_reasons: Vec<(&'static str, u64)>,
    /// The first misses in input order.
    pub misses: Vec<Miss>,
}

/// How much one comparison's rate owes to the settler.
#[derive(Clone, Debug, PartialEq)]
pub struct Uncertainty {
    pub comparison: String,
    pub all: Rate,
    /// Only games whose dead stones are certain (marks, Benson, proofs).
    pub certain: Rate,
    /// Disagreements had every doubtful chain gone whichever way makes
    /// fewest (`lo`) and most (`hi`); None when the run has no flipped
    /// margins (schema before 4).
    pub bounds: Option<(u64, u64)>,
    /// Games with doubtful chains among the scorable ones.
    pub doubtful_games: u64,
    /// Of those, games whose outcome for this comparison changes when flipped.
    pub flips: u64,
}

/// One rule set's count of an example game, term by term.
#[derive(Clone, Debug, PartialEq)]
pub struct Terms {
    pub rule_set: String,
    /// `(symbol, value)` in the order of the formula, each subtracted but
    /// the first (`A`, or the rule set's own count before komi).
    pub terms: Vec<(&'static str, f64)>,
    pub margin: f64,
    pub winner: Win,
}

/// A disagreeing game shown with its board.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub row: usize,
    /// Comparisons it is an example of.
    pub comparisons: Vec<String>,
    pub terms: Vec<Terms>,
    /// Whether the terms add up to the row's margins (they must).
    pub consistent: bool,
}

/// Everything the page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    pub headline: Vec<Rate>,
    pub breakdowns: Vec<Breakdown>,
    pub sweep: Vec<Sweep>,
    pub splits: Vec<Split>,
    pub winners: Vec<Winners>,
    pub self_check: SelfCheck,
    pub uncertainty: Vec<Uncertainty>,
    /// Scorable games by certainty class.
    pub certainty: Vec<(&'static str, u64)>,
    /// Comparison -> rows of its examples.
    pub examples_of: Vec<(String, Vec<usize>)>,
    pub examples: Vec<Example>,
    /// Disagreements between rows and summary, and other things a reader
    /// must know before trusting the page.
    pub warnings: Vec<String>,
    /// Distinct inputs with their games.
    pub inputs: Vec<(String, u64)>,
    pub rule_sets: Vec<usize>,
    /// Rows read.
    pub rows: usize,
    /// Whether some game was settled with the record's result.
    pub settled_with_result: bool,
    /// The rows the page names (example games, self-check misses), by
    /// index: the only rows a report keeps.
    pub shown: BTreeMap<usize, Row>,
}

impl Model {
    /// Row `i`, one the page names (an example game or a self-check miss).
    ///
    /// # Panics
    ///
    /// When row `i` is not one of [`Model::shown`].
    pub fn row(&self, i: usize) -> &Row {
        &self.shown[&i]
    }
}

/// The dimensions of `summary.json`, in the order the page shows them.
pub const DIMENSIONS: [&str; 8] = [
    "board_size",
    "komi",
    "handicap",
    "rules",
    "how_ended",
    "dead_source",
    "year",
    "input",
];

/// Builds the model of a run, reading its rows once, a batch at a time:
/// each row is folded into one accumulator per section, and only the rows
/// the page names are kept. `examples` games per comparison, `max_boards`
/// boards in all.
pub fn build(run: &RunData, examples: usize, max_boards: usize) -> Result<Model, ReadError> {
    let mut b = Builder::new(&run.summary, examples, max_boards);
    run.scan(|r| b.add(r))?;
    Ok(b.finish(&run.summary))
}

/// The model of rows already in memory, in the order a scan gives them:
/// the same numbers as [`build`] (tests compare the two).
pub fn build_from_rows(
    summary: &SummaryFile,
    rows: &[Row],
    examples: usize,
    max_boards: usize,
) -> Model {
    let mut b = Builder::new(summary, examples, max_boards);
    for r in rows {
        b.add(r);
    }
    b.finish(summary)
}

/// A model being built: what `summary.json` gives is set up first; then
/// every row, in order, is added to each section's accumulator, whose state
/// does not grow with the rows (counts, grids keyed by bounded values, the
/// first few games of each kind).
#[derive(Debug)]
pub struct Builder {
    m: Model,
    /// Every comparison of the summary, in headline order.
    pairs: Vec<(String, Pair)>,
    facts: Facts,
    winners: WinnerCounts,
    certainty: CertaintyCounts,
    splits: Vec<SplitGrid>,
    self_check: SelfCheckCounts,
    uncertainty: Vec<UncertaintyCounts>,
    examples: ExampleCandidates,
    max_boards: usize,
}

impl Builder {
    pub fn new(summary: &SummaryFile, examples: usize, max_boards: usize) -> Builder {
        let mut m = Model::default();
        let cells = &summary.cells;
        // Headline: the three pairs of the mission first, then the others.
        let mut overall: Vec<Rate> = cells
            .iter()
            .filter(|c| c.dimension == "all")
            .map(Rate::of_cell)
            .collect();
        overall.sort_by_key(|r| {
            let p = Pair::parse(&r.comparison).and_then(Pair::headline);
            let h = HEADLINE.iter().position(|(a, b)| {
                p.is_some_and(|p| RuleSet::ALL[p.a] == *a && RuleSet::ALL[p.b] == *b)
            });
            (h.unwrap_or(HEADLINE.len()), r.comparison.clone())
        });
        m.headline = overall;
        let panels: Vec<String> = m
            .headline
            .iter()
            .filter(|r| Pair::parse(&r.comparison).is_some_and(Pair::is_headline))
            .map(|r| r.comparison.clone())
            .collect();
        let pairs: Vec<(String, Pair)> = m
            .headline
            .iter()
            .filter_map(|r| Some((r.comparison.clone(), Pair::parse(&r.comparison)?)))
            .collect();

        // Breakdowns from the summary (certainty is counted from the rows).
        for dim in DIMENSIONS {
            m.breakdowns.push(breakdown_of_cells(cells, dim, &panels));
        }

        // Komi sweep.
        for name in &panels {
            let mut points: Vec<(f64, Rate)> = cells
                .iter()
                .filter(|c| &c.comparison == name && c.dimension == "komi_sweep")
                .filter_map(|c| Some((c.value.parse::<f64>().ok()?, Rate::of_cell(c))))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !points.is_empty() {
                m.sweep.push(Sweep {
                    comparison: name.clone(),
                    points,
                });
            }
        }

        Builder {
            m,
            certainty: CertaintyCounts::new(&pairs, panels),
            splits: pairs
                .iter()
                .filter_map(|(name, pair)| Some(SplitGrid::new(name, pair.headline()?)))
                .collect(),
            uncertainty: pairs
                .iter()
                .map(|(name, pair)| UncertaintyCounts::new(name, *pair))
                .collect(),
            examples: ExampleCandidates::new(pairs.len(), examples),
            pairs,
            facts: Facts::default(),
            winners: WinnerCounts::default(),
            self_check: SelfCheckCounts::default(),
            max_boards,
        }
    }

    /// Adds the next row (rows are numbered in the order they are added).
    pub fn add(&mut self, r: &Row) {
        let i = self.facts.rows;
        self.facts.add(r);
        self.winners.add(r);
        self.certainty.add(r);
        for s in &mut self.splits {
            s.add(r);
        }
        self.self_check.add(i, r);
        for u in &mut self.uncertainty {
            u.add(r);
        }
        self.examples.add(i, r, &self.pairs);
    }

    pub fn finish(self, summary: &SummaryFile) -> Model {
        let Builder {
            mut m,
            pairs,
            facts,
            winners,
            certainty,
            splits,
            self_check,
            uncertainty,
            examples,
            max_boards,
        } = self;
        m.rows = facts.rows;
        m.settled_with_result = facts.settled_result;
        m.rule_sets = (0..RULE_SETS).filter(|&i| facts.scored[i]).collect();
        let certainty_at = 6; // after dead_source
        m.breakdowns.insert(certainty_at, certainty.breakdown());
        m.certainty = certainty.classes();
        m.splits = splits.into_iter().map(SplitGrid::finish).collect();
        m.winners = winners.finish(&m.rule_sets);
        let (sc, missed) = self_check.finish();
        m.self_check = sc;
        m.uncertainty = uncertainty
            .into_iter()
            .map(|u| u.finish(facts.doubtful_column))
            .collect();
        m.shown = missed;
        examples.pick(&mut m, &pairs, max_boards);
        m.inputs = facts.inputs;
        m.warnings = cross_check(summary, &m, facts.settled_dead, facts.doubtful_column);
        m
    }
}

/// What the rows hold at all: how many, the rule sets they were scored
/// under, which columns are present, the inputs in order of appearance
/// (one per top-level input of the run, not per file).
#[derive(Debug, Default)]
struct Facts {
    rows: usize,
    scored: [bool; RULE_SETS],
    /// Some row has `doubtful_chains` (schema 4 and later: flipped margins).
    doubtful_column: bool,
    /// Some row's dead stones come from the settler, not the marks.
    settled_dead: bool,
    /// Some row was settled with the record's result.
    settled_result: bool,
    inputs: Vec<(String, u64)>,
}

impl Facts {
    fn add(&mut self, r: &Row) {
        self.rows += 1;
        for (s, w) in self.scored.iter_mut().zip(&r.winner) {
            *s |= w.is_some();
        }
        self.doubtful_column |= r.doubtful_chains.is_some();
        self.settled_dead |= r.dead_source.as_deref().is_some_and(|s| s != "marks");
        self.settled_result |= r.dead_source.as_deref() == Some("settled_result");
        match self.inputs.last_mut() {
            Some((i, n)) if **i == *r.input => *n += 1,
            _ => match self.inputs.iter_mut().find(|(i, _)| **i == *r.input) {
                Some((_, n)) => *n += 1,
                None => self.inputs.push((r.input.to_string(), 1)),
            },
        }
    }
}

/// Winners under each rule set: Black, White, draw.
#[derive(Debug, Default)]
struct WinnerCounts([[u64; 3]; RULE_SETS]);

impl WinnerCounts {
    fn add(&mut self, r: &Row) {
        for (c, w) in self.0.iter_mut().zip(&r.winner) {
            match w {
                Some(Win::B) => c[0] += 1,
                Some(Win::W) => c[1] += 1,
                Some(Win::Draw) => c[2] += 1,
                None => {}
            }
        }
    }

    fn finish(&self, rule_sets: &[usize]) -> Vec<Winners> {
        rule_sets
            .iter()
            .map(|&i| Winners {
                rule_set: RuleSet::ALL[i].id().to_string(),
                black: self.0[i][0],
                white: self.0[i][1],
                draw: self.0[i][2],
            })
            .collect()
    }
}

fn breakdown_of_cells(cells: &[Cell], dim: &str, panels: &[String]) -> Breakdown {
    let mut by_value: BTreeMap<&str, u64> = BTreeMap::new();
    for c in cells.iter().filter(|c| c.dimension == dim) {
        let e = by_value.entry(c.value.as_str()).or_default();
        *e = (*e).max(c.scorable);
    }
    let mut values: Vec<(&str, u64)> = by_value.into_iter().collect();
    values.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let total: u64 = values.iter().map(|v| v.1).sum();
    let kept: Vec<&str> = values.iter().take(MAX_VALUES).map(|v| v.0).collect();
    let shown: u64 = values.iter().take(MAX_VALUES).map(|v| v.1).sum();
    let mut kept: Vec<String> = kept.into_iter().map(str::to_string).collect();
    order_values(dim, &mut kept);
    let panels = panels
        .iter()
        .map(|p| {
            let rates = kept
                .iter()
                .map(|v| {
                    cells
                        .iter()
                        .find(|c| &c.comparison == p && c.dimension == dim && &c.value == v)
                        .map(Rate::of_cell)
                })
                .collect();
            (p.clone(), rates)
        })
        .collect();
    Breakdown {
        dimension: dim.to_string(),
        omitted: (values.len().saturating_sub(MAX_VALUES), total - shown),
        values: kept,
        panels,
        from_summary: true,
    }
}

/// Numbers in numeric order, sizes by area, the rest by games (as given).
fn order_values(dim: &str, values: &mut [String]) {
    let unknown_last = |v: &str| v == "unknown";
    match dim {
        "komi" | "year" => values.sort_by(|a, b| {
            let (x, y) = (a.parse::<f64>().ok(), b.parse::<f64>().ok());
            match (x, y) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.cmp(b),
            }
        }),
        "board_size" => values.sort_by_key(|v| {
            let area = v
                .split_once('x')
                .and_then(|(w, h)| Some(w.parse::<u64>().ok()? * h.parse::<u64>().ok()?));
            (unknown_last(v), area.unwrap_or(u64::MAX), v.clone())
        }),
        "handicap" => values.sort_by_key(|v| (v != "even", v.clone())),
        _ => {}
    }
}

/// The certainty classes, in the order shown.
pub const CERTAINTY: [&str; 6] = [
    "marks",
    "proven",
    "settled, no doubtful chain",
    "settled, doubtful chains",
    "settled with the result",
    "decided by the referee",
];

/// The index in [`CERTAINTY`] of a row's class.
fn certainty_index(r: &Row) -> usize {
    match r.dead_source.as_deref() {
        Some("marks") => 0,
        Some("settled_result") => 4,
        Some("referee") => 5,
        _ if r.certain() => 1,
        _ if r.doubtful_chains.unwrap_or(0) > 0
            || r.confidence.is_some_and(|c| {
                c <= f64::from(verdict_rules::settle::DOUBTFUL_CONFIDENCE) + 1e-6
            }) =>
        {
            3
        }
        _ => 2,
    }
}

/// Games by certainty class (rows with a dead-stone source), and the
/// headline comparisons by certainty class.
#[derive(Debug)]
struct CertaintyCounts {
    classes: [u64; CERTAINTY.len()],
    /// The comparisons of the breakdown (the headline ones), by name.
    pairs: Vec<(String, Pair)>,
    /// Their `(scorable, disagreements, draws)` by class, as `pairs`.
    counts: Vec<[(u64, u64, u64); CERTAINTY.len()]>,
    panels: Vec<String>,
}

impl CertaintyCounts {
    fn new(pairs: &[(String, Pair)], panels: Vec<String>) -> CertaintyCounts {
        let pairs: Vec<(String, Pair)> = pairs
            .iter()
            .filter(|(n, _)| panels.contains(n))
            .cloned()
            .collect();
        CertaintyCounts {
            classes: [0; CERTAINTY.len()],
            counts: vec![[(0, 0, 0); CERTAINTY.len()]; pairs.len()],
            pairs,
            panels,
        }
    }

    fn add(&mut self, r: &Row) {
        let class = certainty_index(r);
        if r.dead_source.is_some() {
            self.classes[class] += 1;
        }
        for ((_, pair), c) in self.pairs.iter().zip(&mut self.counts) {
            let Some((wa, wb)) = r.pair(pair.a, pair.b) else {
                continue;
            };
            let e = &mut c[class];
            e.0 += 1;
            e.1 += u64::from(wa != wb);
            e.2 += u64::from(wa == Win::Draw || wb == Win::Draw);
        }
    }

    fn classes(&self) -> Vec<(&'static str, u64)> {
        CERTAINTY.iter().copied().zip(self.classes).collect()
    }

    fn breakdown(&self) -> Breakdown {
        let dim = "certainty";
        // A comparison named twice adds up, as one cell.
        let mut by_name: BTreeMap<&str, [(u64, u64, u64); CERTAINTY.len()]> = BTreeMap::new();
        for ((name, _), c) in self.pairs.iter().zip(&self.counts) {
            let e = by_name
                .entry(name.as_str())
                .or_insert([(0, 0, 0); CERTAINTY.len()]);
            for (x, y) in e.iter_mut().zip(c) {
                *x = (x.0 + y.0, x.1 + y.1, x.2 + y.2);
            }
        }
        let present: Vec<usize> = (0..CERTAINTY.len())
            .filter(|&c| by_name.values().any(|v| v[c].0 > 0))
            .collect();
        let panels = self
            .panels
            .iter()
            .map(|p| {
                let rates = present
                    .iter()
                    .map(|&c| {
                        by_name
                            .get(p.as_str())
                            .map(|v| v[c])
                            .filter(|&(n, _, _)| n > 0)
                            .map(|(n, k, d)| Rate::counted(p, dim, CERTAINTY[c], k, n, d))
                    })
                    .collect();
                (p.clone(), rates)
            })
            .collect();
        Breakdown {
            dimension: dim.to_string(),
            values: present.iter().map(|&c| CERTAINTY[c].to_string()).collect(),
            panels,
            omitted: (0, 0),
            from_summary: false,
        }
    }
}

/// Half-point bins of a margin.
fn half(m: f64) -> f64 {
    (m * 2.0).round() / 2.0
}

/// One headline comparison's games near zero, by (margin in half points,
/// gap): at most 33 margins by 11 gaps, whatever the number of games.
#[derive(Debug)]
struct SplitGrid {
    comparison: String,
    pair: Pair,
    grid: BTreeMap<(i64, i64), (u64, u64)>,
    scorable: u64,
    in_window: u64,
    disagreements: u64,
    disagreements_in_window: u64,
}

impl SplitGrid {
    fn new(name: &str, pair: Pair) -> SplitGrid {
        SplitGrid {
            comparison: name.to_string(),
            pair,
            grid: BTreeMap::new(),
            scorable: 0,
            in_window: 0,
            disagreements: 0,
            disagreements_in_window: 0,
        }
    }

    fn add(&mut self, r: &Row) {
        let pair = self.pair;
        let (Some((wa, wb)), Some(ma), Some(mb)) =
            (r.pair(pair.a, pair.b), r.margin[pair.a], r.margin[pair.b])
        else {
            return;
        };
        self.scorable += 1;
        let differ = wa != wb;
        self.disagreements += u64::from(differ);
        let y = half(mb);
        if y.abs() > MARGIN_WINDOW {
            return;
        }
        self.in_window += 1;
        self.disagreements_in_window += u64::from(differ);
        let gap = ((mb - ma).round() as i64).clamp(-MAX_GAP, MAX_GAP);
        let e = self.grid.entry(((y * 2.0) as i64, gap)).or_default();
        e.0 += 1;
        e.1 += u64::from(differ);
    }

    fn finish(self) -> Split {
        let grid = self.grid;
        let gaps: Vec<i64> = grid
            .keys()
            .map(|k| k.1)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        // Every margin from the highest to the lowest, so the rows are an
        // axis: in whole points when all margins have the same fraction (a
        // half-point komi), else in half points.
        let present: BTreeSet<i64> = grid.keys().map(|k| k.0).collect();
        let step = if present.iter().all(|y| y.rem_euclid(2) == 0)
            || present.iter().all(|y| y.rem_euclid(2) == 1)
        {
            2
        } else {
            1
        };
        let mut ys: Vec<i64> = Vec::new();
        if let (Some(&lo), Some(&hi)) = (present.first(), present.last()) {
            let mut y = hi;
            while y >= lo {
                ys.push(y);
                y -= step;
            }
        }
        let cells = ys
            .iter()
            .map(|y| {
                gaps.iter()
                    .map(|g| grid.get(&(*y, *g)).copied().unwrap_or((0, 0)))
                    .collect()
            })
            .collect();
        Split {
            comparison: self.comparison,
            gaps,
            margins: ys.iter().map(|y| *y as f64 / 2.0).collect(),
            cells,
            scorable: self.scorable,
            in_window: self.in_window,
            disagreements: self.disagreements,
            disagreements_in_window: self.disagreements_in_window,
        }
    }
}

/// Why a self-check missed, as far as the sizes tell: a guess named for a
/// reader to check, not a diagnosis.
fn miss_reason(r: &Row, recorded: f64, computed: f64) -> &'static str {
    let d = (computed - recorded).abs();
    let near = |x: f64| (d - x).abs() < 1e-9;
    let komi = r.komi.unwrap_or(0.0).abs();
    let h = r.handicap.unwrap_or(0);
    if komi > 0.0 && near(komi) {
        "off by the komi"
    } else if h >= 2 && d > 1.0 && (near(h as f64) || near((h - 1) as f64)) {
        "off by the handicap"
    } else if r.dead_source.as_deref() == Some("settled") && r.doubtful_chains.unwrap_or(0) > 0 {
        "settler unsure (doubtful chains)"
    } else if near(1.0) || near(0.5) {
        "off by one point or less"
    } else if r.dead_source.as_deref() == Some("marks") {
        "other (marks)"
    } else {
        "other (dead stones?)"
    }
}

/// Most self-check misses the page lists (the first in input order).
pub const MAX_MISSES: usize = 20;

/// The self-check section, counted: groups are dead-stone sources, rule
/// sets and top-level inputs, a handful each.
#[derive(Debug, Default)]
struct SelfCheckCounts {
    s: SelfCheck,
    by_source: BTreeMap<String, Agreement>,
    by_rule: BTreeMap<String, Agreement>,
    by_input: BTreeMap<String, Agreement>,
    reasons: BTreeMap<&'static str, u64>,
    unchecked: BTreeMap<&'static str, u64>,
    /// The rows of the misses listed.
    missed: BTreeMap<usize, Row>,
}

impl SelfCheckCounts {
    fn add(&mut self, i: usize, r: &Row) {
        let s = &mut self.s;
        let agrees = match r.self_check_status.as_deref() {
            Some("agrees") => true,
            Some("disagrees") => false,
            Some(_) => {
                s.unchecked += 1;
                let why = if r.result_margin.is_none() {
                    "no numeric result"
                } else {
                    "rules verdict does not know"
                };
                *self.unchecked.entry(why).or_default() += 1;
                return;
            }
            None => return,
        };
        let groups = [
            (
                &mut self.by_source,
                r.dead_source.as_deref().unwrap_or("unknown"),
            ),
            (
                &mut self.by_rule,
                r.self_check_rule_set.as_deref().unwrap_or("unknown"),
            ),
            (&mut self.by_input, &*r.input),
        ];
        for (map, key) in groups {
            let e = match map.get_mut(key) {
                Some(e) => e,
                None => map.entry(key.to_string()).or_insert_with(|| Agreement {
                    group: key.to_string(),
                    ..Agreement::default()
                }),
            };
            if agrees {
                e.agrees += 1;
            } else {
                e.disagrees += 1;
            }
        }
        if agrees {
            s.agrees += 1;
            return;
        }
        s.disagrees += 1;
        let (rec, comp) = (
            r.self_check_recorded.unwrap_or(f64::NAN),
            r.self_check_computed.unwrap_or(f64::NAN),
        );
        let reason = miss_reason(r, rec, comp);
        *self.reasons.entry(reason).or_default() += 1;
        if s.misses.len() < MAX_MISSES {
            s.misses.push(Miss {
                row: i,
                rule_set: r.self_check_rule_set.as_deref().unwrap_or("").to_string(),
                recorded: rec,
                computed: comp,
                reason,
            });
            self.missed.insert(i, r.clone());
        }
    }

    /// The section, and the rows of its misses.
    fn finish(self) -> (SelfCheck, BTreeMap<usize, Row>) {
        let mut s = self.s;
        s.by_dead_source = self.by_source.into_values().collect();
        s.by_rule_set = self.by_rule.into_values().collect();
        let mut inputs: Vec<Agreement> = self.by_input.into_values().collect();
        inputs.sort_by_key(|a| std::cmp::Reverse(a.agrees + a.disagrees));
        inputs.truncate(MAX_VALUES);
        s.by_input = inputs;
        let mut reasons: Vec<(&'static str, u64)> = self.reasons.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        s.reasons = reasons;
        s.unchecked_reasons = self.unchecked.into_iter().collect();
        (s, self.missed)
    }
}

/// One comparison's rate on all games and on the certain ones, and its
/// bounds had every doubtful chain gone the other way.
#[derive(Debug)]
struct UncertaintyCounts {
    comparison: String,
    pair: Pair,
    /// `(scorable, disagreements, draws)` of all games, of the certain ones.
    all: (u64, u64, u64),
    certain: (u64, u64, u64),
    lo: u64,
    hi: u64,
    doubtful: u64,
    flips: u64,
}

impl UncertaintyCounts {
    fn new(name: &str, pair: Pair) -> UncertaintyCounts {
        UncertaintyCounts {
            comparison: name.to_string(),
            pair,
            all: (0, 0, 0),
            certain: (0, 0, 0),
            lo: 0,
            hi: 0,
            doubtful: 0,
            flips: 0,
        }
    }

    fn add(&mut self, r: &Row) {
        let pair = self.pair;
        let Some((wa, wb)) = r.pair(pair.a, pair.b) else {
            return;
        };
        let differ = wa != wb;
        let draw = wa == Win::Draw || wb == Win::Draw;
        let count = |c: &mut (u64, u64, u64)| {
            c.0 += 1;
            c.1 += u64::from(differ);
            c.2 += u64::from(draw);
        };
        count(&mut self.all);
        if r.certain() {
            count(&mut self.certain);
        }
        let flipped = match (r.flipped_winner(pair.a), r.flipped_winner(pair.b)) {
            (Some(fa), Some(fb)) => Some(fa != fb),
            _ => None,
        };
        match flipped {
            Some(f) => {
                self.doubtful += 1;
                self.flips += u64::from(f != differ);
                self.lo += u64::from(f && differ);
                self.hi += u64::from(f || differ);
            }
            None => {
                self.lo += u64::from(differ);
                self.hi += u64::from(differ);
            }
        }
    }

    /// `has_flipped_columns`: whether the rows have the flipped margins.
    fn finish(self, has_flipped_columns: bool) -> Uncertainty {
        let name = &self.comparison;
        let ((n, k, d), (nc, kc, dc)) = (self.all, self.certain);
        Uncertainty {
            comparison: name.clone(),
            all: Rate::counted(name, "all", "all", k, n, d),
            certain: Rate::counted(name, "certainty", "certain", kc, nc, dc),
            bounds: has_flipped_columns.then_some((self.lo, self.hi)),
            doubtful_games: self.doubtful,
            flips: self.flips,
        }
    }
}

/// Each rule set's count of a row, term by term (RULES.md section 4):
/// `A`, `N_B - N_W` (and the fills the README adds to it), `E_B - E_W`,
/// `K`, `H`. Japanese, Korean and Tromp-Taylor count other things; their
/// own count before komi stands as one term.
pub fn terms_of(r: &Row, i: usize) -> Option<Terms> {
    let rs = RuleSet::ALL[i];
    let margin = r.margin[i]?;
    let winner = r.winner[i]?;
    let jpd_b = RuleSet::ALL.iter().position(|x| *x == RuleSet::JpdB)?;
    let jhz_b = RuleSet::ALL.iter().position(|x| *x == RuleSet::JhzB)?;
    let k = r.komi.unwrap_or(0.0);
    let h = rs.handicap_bonus(r.handicap.unwrap_or(0).clamp(0, 255) as u8) as f64;
    let diff = |x: [Option<i64>; 2]| Some((x[0]? - x[1]?) as f64);
    let area = r.margin_before_komi[jpd_b].map(|a| a as f64);
    let eyes = r.margin_before_komi[jpd_b]
        .zip(r.margin_before_komi[jhz_b])
        .map(|(a, b)| (a - b) as f64);
    let n = diff(r.placed);
    let f = diff(r.fills);
    let mut terms: Vec<(&'static str, f64)> = Vec::new();
    match rs {
        RuleSet::JpdB | RuleSet::Chinese | RuleSet::Ing | RuleSet::Aga | RuleSet::NewZealand => {
            terms.push(("A", area?));
        }
        RuleSet::JpdA => {
            terms.extend([("A", area?), ("N_B − N_W", n?), ("F_B − F_W", f?)]);
        }
        RuleSet::JhzB => terms.extend([("A", area?), ("E_B − E_W", eyes?)]),
        RuleSet::JhzA => terms.extend([
            ("A", area?),
            ("E_B − E_W", eyes?),
            ("N_B − N_W", n?),
            ("F_B − F_W", f?),
        ]),
        RuleSet::Japanese | RuleSet::Korean => {
            terms.push(("territory + prisoners", r.margin_before_komi[i]? as f64))
        }
        RuleSet::TrompTaylor => terms.push(("area as it stands", r.margin_before_komi[i]? as f64)),
    }
    terms.push(("K", k));
    if h != 0.0 {
        terms.push(("H", h));
    }
    Some(Terms {
        rule_set: rs.id().to_string(),
        terms,
        margin,
        winner,
    })
}

impl Terms {
    /// The first term less all the others.
    pub fn total(&self) -> f64 {
        let mut it = self.terms.iter();
        let first = it.next().map_or(0.0, |t| t.1);
        it.fold(first, |acc, t| acc - t.1)
    }
}

/// The games examples are picked from: for each comparison, the first
/// `per` whose winners differ and whose dead stones are certain, and the
/// first `per` others (certain games are shown first, then in input order,
/// so no later game can be picked), with their rows.
#[derive(Debug)]
struct ExampleCandidates {
    per: usize,
    /// `(certain, others)` by comparison, as the builder's pairs.
    firsts: Vec<(Vec<usize>, Vec<usize>)>,
    rows: BTreeMap<usize, Row>,
}

impl ExampleCandidates {
    fn new(pairs: usize, per: usize) -> ExampleCandidates {
        ExampleCandidates {
            per,
            firsts: vec![(Vec::new(), Vec::new()); pairs],
            rows: BTreeMap::new(),
        }
    }

    fn add(&mut self, i: usize, r: &Row, pairs: &[(String, Pair)]) {
        let mut keep = false;
        let mut certain = None;
        for ((_, pair), (sure, others)) in pairs.iter().zip(&mut self.firsts) {
            if r.pair(pair.a, pair.b).is_none_or(|(a, b)| a == b) {
                continue;
            }
            let list = if *certain.get_or_insert_with(|| r.certain()) {
                sure
            } else {
                others
            };
            if list.len() < self.per {
                list.push(i);
                keep = true;
            }
        }
        if keep {
            self.rows.insert(i, r.clone());
        }
    }

    /// Picks each comparison's examples, within `max_boards` boards in all,
    /// and keeps the rows of those drawn in `m.shown`.
    fn pick(mut self, m: &mut Model, pairs: &[(String, Pair)], max_boards: usize) {
        let per = self.per;
        let mut chosen: Vec<usize> = Vec::new();
        for ((name, _), (sure, others)) in pairs.iter().zip(&self.firsts) {
            let mut picks: Vec<usize> = sure.iter().take(per).copied().collect();
            let more = per - picks.len();
            picks.extend(others.iter().take(more));
            picks.sort_unstable();
            // Past the budget of boards, only games already drawn are shown.
            picks.retain(|i| {
                chosen.contains(i)
                    || chosen.len() < max_boards && {
                        chosen.push(*i);
                        true
                    }
            });
            m.examples_of.push((name.clone(), picks));
        }
        chosen.sort_unstable();
        for i in chosen {
            let Some(r) = self.rows.remove(&i) else {
                continue;
            };
            let comparisons: Vec<String> = m
                .examples_of
                .iter()
                .filter(|(_, rs)| rs.contains(&i))
                .map(|(n, _)| n.clone())
                .collect();
            let terms: Vec<Terms> = m
                .rule_sets
                .iter()
                .filter_map(|&k| terms_of(&r, k))
                .collect();
            let consistent = terms.iter().all(|t| (t.total() - t.margin).abs() < 1e-9);
            m.examples.push(Example {
                row: i,
                comparisons,
                terms,
                consistent,
            });
            m.shown.insert(i, r);
        }
    }
}

/// What a reader must be told: the rows and the summary disagree (a run
/// cut short, a folder mixed from two runs), or terms do not add up.
fn cross_check(
    summary: &SummaryFile,
    m: &Model,
    settled_dead: bool,
    doubtful_column: bool,
) -> Vec<String> {
    let mut w = Vec::new();
    if m.rows as u64 != summary.games {
        w.push(format!(
            "summary.json counts {} games but games/*.parquet holds {} rows: the run may be unfinished or its folder mixed with another's.",
            summary.games,
            m.rows
        ));
    }
    // The uncertainty section counts every comparison on all its games.
    for u in &m.uncertainty {
        let (name, n, k) = (&u.comparison, u.all.scorable, u.all.disagreements);
        if let Some(h) = m.headline.iter().find(|h| &h.comparison == name) {
            if (h.scorable, h.disagreements) != (n, k) {
                w.push(format!(
                    "{name}: summary.json says {} of {} games differ, the rows say {k} of {n}.",
                    h.disagreements, h.scorable
                ));
            }
        }
    }
    let sc = &m.self_check;
    for (key, mine) in [
        ("agrees", sc.agrees),
        ("disagrees", sc.disagrees),
        ("unchecked", sc.unchecked),
    ] {
        let theirs = summary.self_check.get(key).copied().unwrap_or(0);
        if theirs != mine {
            w.push(format!(
                "self-check {key}: summary.json says {theirs}, the rows say {mine}."
            ));
        }
    }
    if m.examples.iter().any(|e| !e.consistent) {
        w.push("Some example's terms do not add up to its margin (see the examples).".to_string());
    }
    if m.rows > 0 && !doubtful_column && settled_dead {
        w.push("These rows predate schema 4: no flipped margins, so the bounds of the uncertainty section are not available. Run the corpus again to get them.".to_string());
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// A scored row: winners of jpd_a and jpd_b from their margins, komi 0.5.
    fn row(dead_source: &str, a: i64, b: i64, flipped: Option<(i64, i64)>) -> Row {
        let mut r = Row {
            status: Rc::from("scored"),
            dead_source: Some(Rc::from(dead_source)),
            komi: Some(0.5),
            handicap: Some(0),
            confidence: Some(if flipped.is_some() { 0.5 } else { 1.0 }),
            guessed_stones: Some(if dead_source == "settled" { 3 } else { 0 }),
            doubtful_chains: flipped.map(|_| 1).or(Some(0)),
            ..Row::default()
        };
        for (i, m) in [(0, a), (1, b)] {
            r.margin_before_komi[i] = Some(m);
            r.margin[i] = Some(m as f64 - 0.5);
            r.winner[i] = Some(Win::of_margin(m as f64 - 0.5));
            r.margin_before_komi_flipped[i] = flipped.map(|f| if i == 0 { f.0 } else { f.1 });
        }
        r
    }

    #[test]
    fn bounds_take_each_doubtful_game_both_ways() {
        let pair = Pair::parse("jpd_a_vs_jpd_b").unwrap();
        let rows = vec![
            // Marked, split: counts in every bound and in the certain rate.
            row("marks", 0, 1, None),
            // Settled, split, but not when flipped: only the high bound keeps it.
            row("settled", 0, 1, Some((5, 6))),
            // Settled, agreeing, split when flipped: only the high bound.
            row("settled", 4, 4, Some((0, 1))),
            // Settled, agreeing either way.
            row("settled", 4, 4, Some((3, 3))),
            // Settled without doubt, agreeing.
            row("settled", -3, -3, None),
        ];
        let mut u = UncertaintyCounts::new("jpd_a_vs_jpd_b", pair);
        for r in &rows {
            u.add(r);
        }
        let u = u.finish(true);
        assert_eq!((u.all.disagreements, u.all.scorable), (2, 5));
        assert_eq!(u.bounds, Some((1, 3)));
        assert_eq!((u.doubtful_games, u.flips), (3, 2));
        // Only the marked game is certain (the others have guessed stones).
        assert_eq!((u.certain.disagreements, u.certain.scorable), (1, 1));
        assert_eq!(CERTAINTY[certainty_index(&rows[0])], "marks");
        assert_eq!(
            CERTAINTY[certainty_index(&rows[1])],
            "settled, doubtful chains"
        );
        assert_eq!(
            CERTAINTY[certainty_index(&rows[4])],
            "settled, no doubtful chain"
        );
    }

    #[test]
    fn the_split_grid_puts_each_game_at_its_gap_and_margin() {
        let pair = Pair::parse("jpd_a_vs_jpd_b").unwrap();
        // Margins of jpd_b 0.5 and -0.5 with a gap of 1; one far from zero.
        let rows = vec![
            row("marks", 0, 1, None),
            row("marks", -1, 0, None),
            row("marks", 40, 41, None),
        ];
        let mut s = SplitGrid::new("jpd_a_vs_jpd_b", pair);
        for r in &rows {
            s.add(r);
        }
        let s = s.finish();
        assert_eq!(
            (
                s.scorable,
                s.in_window,
                s.disagreements,
                s.disagreements_in_window
            ),
            (3, 2, 1, 1)
        );
        assert_eq!(s.gaps, vec![1]);
        assert_eq!(s.margins, vec![0.5, -0.5]);
        assert_eq!(s.cells, vec![vec![(1, 1)], vec![(1, 0)]]);
    }

    #[test]
    fn terms_add_up_to_the_margin() {
        let mut r = row("marks", 0, 0, None);
        let (jpd_a, jpd_b, jhz_b) = (0, 1, 3);
        // A = 7, N_B - N_W = 1, no fills, E_B - E_W = 2, komi 6.5.
        r.komi = Some(6.5);
        r.placed = [Some(31), Some(30)];
        r.fills = [Some(0), Some(0)];
        r.margin_before_komi[jpd_b] = Some(7);
        r.margin_before_komi[jhz_b] = Some(5);
        r.margin_before_komi[jpd_a] = Some(6);
        for (i, m) in [(jpd_a, -0.5), (jpd_b, 0.5), (jhz_b, -1.5)] {
            r.margin[i] = Some(m);
            r.winner[i] = Some(Win::of_margin(m));
        }
        let a = terms_of(&r, jpd_a).unwrap();
        assert_eq!(
            a.terms,
            vec![
                ("A", 7.0),
                ("N_B − N_W", 1.0),
                ("F_B − F_W", 0.0),
                ("K", 6.5)
            ]
        );
        assert_eq!(a.total(), -0.5);
        let b = terms_of(&r, jhz_b).unwrap();
        assert_eq!(b.terms, vec![("A", 7.0), ("E_B − E_W", 2.0), ("K", 6.5)]);
        assert_eq!(b.total(), b.margin);
    }
}
