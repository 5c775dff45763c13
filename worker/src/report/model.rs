//! The report's numbers, computed once from a run read back: every figure
//! and table is drawn from these, and the page embeds them as JSON, so what
//! a reader sees and what a test checks are the same values.

use std::collections::{BTreeMap, BTreeSet};

use verdict_rules::score::RuleSet;

use super::data::{Cell, Row, RunData, Win};
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

/// Builds the model; `examples` games per comparison, `max_boards` boards in
/// all.
pub fn build(run: &RunData, examples: usize, max_boards: usize) -> Model {
    let mut m = Model::default();
    let cells = &run.summary.cells;
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
    let rows = &run.rows;
    m.rule_sets = (0..RuleSet::ALL.len())
        .filter(|&i| rows.iter().any(|r| r.winner[i].is_some()))
        .collect();

    // Breakdowns from the summary, and certainty from the rows.
    for dim in DIMENSIONS {
        m.breakdowns.push(breakdown_of_cells(cells, dim, &panels));
    }
    let certainty_at = 6; // after dead_source
    m.breakdowns
        .insert(certainty_at, certainty_breakdown(rows, &pairs, &panels));
    m.certainty = certainty_counts(rows);

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

    for (name, pair) in pairs.iter() {
        if let Some(oriented) = pair.headline() {
            m.splits.push(split(rows, name, oriented));
        }
    }
    for &i in &m.rule_sets {
        let mut w = Winners {
            rule_set: RuleSet::ALL[i].id().to_string(),
            black: 0,
            white: 0,
            draw: 0,
        };
        for r in rows {
            match r.winner[i] {
                Some(Win::B) => w.black += 1,
                Some(Win::W) => w.white += 1,
                Some(Win::Draw) => w.draw += 1,
                None => {}
            }
        }
        m.winners.push(w);
    }
    m.self_check = self_check(rows);
    for (name, pair) in &pairs {
        m.uncertainty.push(uncertainty(rows, name, *pair));
    }
    pick_examples(&mut m, rows, &pairs, examples, max_boards);

    // Inputs, in order of appearance.
    let mut inputs: Vec<(String, u64)> = Vec::new();
    for r in rows {
        match inputs.last_mut() {
            Some((i, n)) if **i == *r.input => *n += 1,
            _ => match inputs.iter_mut().find(|(i, _)| **i == *r.input) {
                Some((_, n)) => *n += 1,
                None => inputs.push((r.input.to_string(), 1)),
            },
        }
    }
    m.inputs = inputs;
    m.warnings = cross_check(run, &m, &pairs);
    m
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
pub const CERTAINTY: [&str; 5] = [
    "marks",
    "proven",
    "settled, no doubtful chain",
    "settled, doubtful chains",
    "settled with the result",
];

fn certainty_class(r: &Row) -> &'static str {
    match r.dead_source.as_deref() {
        Some("marks") => CERTAINTY[0],
        Some("settled_result") => CERTAINTY[4],
        _ if r.certain() => CERTAINTY[1],
        _ if r.doubtful_chains.unwrap_or(0) > 0
            || r.confidence.is_some_and(|c| {
                c <= f64::from(verdict_rules::settle::DOUBTFUL_CONFIDENCE) + 1e-6
            }) =>
        {
            CERTAINTY[3]
        }
        _ => CERTAINTY[2],
    }
}

fn certainty_counts(rows: &[Row]) -> Vec<(&'static str, u64)> {
    let mut out: Vec<(&'static str, u64)> = CERTAINTY.iter().map(|c| (*c, 0)).collect();
    for r in rows.iter().filter(|r| r.dead_source.is_some()) {
        let c = certainty_class(r);
        if let Some(e) = out.iter_mut().find(|(k, _)| *k == c) {
            e.1 += 1;
        }
    }
    out
}

fn certainty_breakdown(rows: &[Row], pairs: &[(String, Pair)], panels: &[String]) -> Breakdown {
    let dim = "certainty";
    let mut counts: BTreeMap<(&str, &str), (u64, u64, u64)> = BTreeMap::new();
    for (name, pair) in pairs.iter().filter(|(n, _)| panels.contains(n)) {
        for r in rows {
            let Some((wa, wb)) = r.pair(pair.a, pair.b) else {
                continue;
            };
            let e = counts.entry((name, certainty_class(r))).or_default();
            e.0 += 1;
            e.1 += u64::from(wa != wb);
            e.2 += u64::from(wa == Win::Draw || wb == Win::Draw);
        }
    }
    let values: Vec<String> = CERTAINTY
        .iter()
        .filter(|c| counts.keys().any(|(_, v)| v == *c))
        .map(|c| c.to_string())
        .collect();
    let panels = panels
        .iter()
        .map(|p| {
            let rates = values
                .iter()
                .map(|v| {
                    counts
                        .get(&(p.as_str(), v.as_str()))
                        .map(|&(n, k, d)| Rate::counted(p, dim, v, k, n, d))
                })
                .collect();
            (p.clone(), rates)
        })
        .collect();
    Breakdown {
        dimension: dim.to_string(),
        values,
        panels,
        omitted: (0, 0),
        from_summary: false,
    }
}

/// Half-point bins of a margin.
fn half(m: f64) -> f64 {
    (m * 2.0).round() / 2.0
}

fn split(rows: &[Row], name: &str, pair: Pair) -> Split {
    let mut grid: BTreeMap<(i64, i64), (u64, u64)> = BTreeMap::new();
    let (mut scorable, mut in_window, mut disagreements, mut dis_in) = (0, 0, 0, 0);
    for r in rows {
        let (Some((wa, wb)), Some(ma), Some(mb)) =
            (r.pair(pair.a, pair.b), r.margin[pair.a], r.margin[pair.b])
        else {
            continue;
        };
        scorable += 1;
        let differ = wa != wb;
        disagreements += u64::from(differ);
        let y = half(mb);
        if y.abs() > MARGIN_WINDOW {
            continue;
        }
        in_window += 1;
        dis_in += u64::from(differ);
        let gap = ((mb - ma).round() as i64).clamp(-MAX_GAP, MAX_GAP);
        let e = grid.entry(((y * 2.0) as i64, gap)).or_default();
        e.0 += 1;
        e.1 += u64::from(differ);
    }
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
        comparison: name.to_string(),
        gaps,
        margins: ys.iter().map(|y| *y as f64 / 2.0).collect(),
        cells,
        scorable,
        in_window,
        disagreements,
        disagreements_in_window: dis_in,
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

fn self_check(rows: &[Row]) -> SelfCheck {
    let mut s = SelfCheck::default();
    let mut by_source: BTreeMap<String, Agreement> = BTreeMap::new();
    let mut by_rule: BTreeMap<String, Agreement> = BTreeMap::new();
    let mut by_input: BTreeMap<String, Agreement> = BTreeMap::new();
    let mut reasons: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut unchecked: BTreeMap<&'static str, u64> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
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
                *unchecked.entry(why).or_default() += 1;
                continue;
            }
            None => continue,
        };
        let groups = [
            (
                &mut by_source,
                r.dead_source.as_deref().unwrap_or("unknown"),
            ),
            (
                &mut by_rule,
                r.self_check_rule_set.as_deref().unwrap_or("unknown"),
            ),
            (&mut by_input, &*r.input),
        ];
        for (map, key) in groups {
            let e = map.entry(key.to_string()).or_insert_with(|| Agreement {
                group: key.to_string(),
                ..Agreement::default()
            });
            if agrees {
                e.agrees += 1;
            } else {
                e.disagrees += 1;
            }
        }
        if agrees {
            s.agrees += 1;
            continue;
        }
        s.disagrees += 1;
        let (rec, comp) = (
            r.self_check_recorded.unwrap_or(f64::NAN),
            r.self_check_computed.unwrap_or(f64::NAN),
        );
        let reason = miss_reason(r, rec, comp);
        *reasons.entry(reason).or_default() += 1;
        if s.misses.len() < 20 {
            s.misses.push(Miss {
                row: i,
                rule_set: r.self_check_rule_set.as_deref().unwrap_or("").to_string(),
                recorded: rec,
                computed: comp,
                reason,
            });
        }
    }
    s.by_dead_source = by_source.into_values().collect();
    s.by_rule_set = by_rule.into_values().collect();
    let mut inputs: Vec<Agreement> = by_input.into_values().collect();
    inputs.sort_by_key(|a| std::cmp::Reverse(a.agrees + a.disagrees));
    inputs.truncate(MAX_VALUES);
    s.by_input = inputs;
    let mut reasons: Vec<(&'static str, u64)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    s.reasons = reasons;
    s.unchecked_reasons = unchecked.into_iter().collect();
    s
}

fn uncertainty(rows: &[Row], name: &str, pair: Pair) -> Uncertainty {
    let (mut n, mut k, mut d) = (0, 0, 0);
    let (mut nc, mut kc, mut dc) = (0, 0, 0);
    let (mut lo, mut hi, mut doubtful, mut flips) = (0, 0, 0, 0);
    let has_flipped_columns = rows.iter().any(|r| r.doubtful_chains.is_some());
    for r in rows {
        let Some((wa, wb)) = r.pair(pair.a, pair.b) else {
            continue;
        };
        let differ = wa != wb;
        let draw = wa == Win::Draw || wb == Win::Draw;
        n += 1;
        k += u64::from(differ);
        d += u64::from(draw);
        if r.certain() {
            nc += 1;
            kc += u64::from(differ);
            dc += u64::from(draw);
        }
        let flipped = match (r.flipped_winner(pair.a), r.flipped_winner(pair.b)) {
            (Some(fa), Some(fb)) => Some(fa != fb),
            _ => None,
        };
        match flipped {
            Some(f) => {
                doubtful += 1;
                flips += u64::from(f != differ);
                lo += u64::from(f && differ);
                hi += u64::from(f || differ);
            }
            None => {
                lo += u64::from(differ);
                hi += u64::from(differ);
            }
        }
    }
    Uncertainty {
        comparison: name.to_string(),
        all: Rate::counted(name, "all", "all", k, n, d),
        certain: Rate::counted(name, "certainty", "certain", kc, nc, dc),
        bounds: has_flipped_columns.then_some((lo, hi)),
        doubtful_games: doubtful,
        flips,
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

fn pick_examples(
    m: &mut Model,
    rows: &[Row],
    pairs: &[(String, Pair)],
    per: usize,
    max_boards: usize,
) {
    let mut chosen: Vec<usize> = Vec::new();
    for (name, pair) in pairs {
        let differ = |r: &Row| r.pair(pair.a, pair.b).is_some_and(|(a, b)| a != b);
        // Certain games first (their disagreement is the rules', not the
        // settler's), then in input order; games already drawn are reused.
        let mut picks: Vec<usize> = Vec::new();
        for certain in [true, false] {
            for (i, r) in rows.iter().enumerate() {
                if picks.len() >= per {
                    break;
                }
                if r.certain() == certain && differ(r) {
                    picks.push(i);
                }
            }
        }
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
        let r = &rows[i];
        let comparisons: Vec<String> = m
            .examples_of
            .iter()
            .filter(|(_, rs)| rs.contains(&i))
            .map(|(n, _)| n.clone())
            .collect();
        let terms: Vec<Terms> = m.rule_sets.iter().filter_map(|&k| terms_of(r, k)).collect();
        let consistent = terms.iter().all(|t| (t.total() - t.margin).abs() < 1e-9);
        m.examples.push(Example {
            row: i,
            comparisons,
            terms,
            consistent,
        });
    }
}

/// What a reader must be told: the rows and the summary disagree (a run
/// cut short, a folder mixed from two runs), or terms do not add up.
fn cross_check(run: &RunData, m: &Model, pairs: &[(String, Pair)]) -> Vec<String> {
    let mut w = Vec::new();
    let rows = &run.rows;
    if rows.len() as u64 != run.summary.games {
        w.push(format!(
            "summary.json counts {} games but games/*.parquet holds {} rows: the run may be unfinished or its folder mixed with another's.",
            run.summary.games,
            rows.len()
        ));
    }
    for (name, pair) in pairs {
        let (mut n, mut k) = (0, 0);
        for r in rows {
            if let Some((a, b)) = r.pair(pair.a, pair.b) {
                n += 1;
                k += u64::from(a != b);
            }
        }
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
        let theirs = run.summary.self_check.get(key).copied().unwrap_or(0);
        if theirs != mine {
            w.push(format!(
                "self-check {key}: summary.json says {theirs}, the rows say {mine}."
            ));
        }
    }
    if m.examples.iter().any(|e| !e.consistent) {
        w.push("Some example's terms do not add up to its margin (see the examples).".to_string());
    }
    if !rows.is_empty()
        && rows.iter().all(|r| r.doubtful_chains.is_none())
        && rows
            .iter()
            .any(|r| r.dead_source.as_deref().is_some_and(|s| s != "marks"))
    {
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
        let u = uncertainty(&rows, "jpd_a_vs_jpd_b", pair);
        assert_eq!((u.all.disagreements, u.all.scorable), (2, 5));
        assert_eq!(u.bounds, Some((1, 3)));
        assert_eq!((u.doubtful_games, u.flips), (3, 2));
        // Only the marked game is certain (the others have guessed stones).
        assert_eq!((u.certain.disagreements, u.certain.scorable), (1, 1));
        assert_eq!(certainty_class(&rows[0]), "marks");
        assert_eq!(certainty_class(&rows[1]), "settled, doubtful chains");
        assert_eq!(certainty_class(&rows[4]), "settled, no doubtful chain");
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
        let s = split(&rows, "jpd_a_vs_jpd_b", pair);
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
