//! Corpus summaries: for each comparison of two rule sets, how often they
//! name different winners, with a 95% Wilson interval, overall and broken
//! down by board size, komi, handicap, recorded rules, how the game ended,
//! how dead stones were decided, year, top-level input and variant
//! (`standard`, `dajiefang`), and re-scored at each komi of a sweep.
//!
//! Counts are keyed by typed values ([`CellKey`]: a pair of [`RuleSet`]s
//! and a [`Group`]); they become text only when written
//! ([`Summary::rows`], through [`SUMMARY_COLUMNS`]) and are read back from
//! text only from the wire ([`CellKey::parse`]). The komi sweep re-scores
//! each game with [`RuleSet::margin`], the rules crate's own formula.

use std::collections::BTreeMap;

use verdict_rules::analyse::{CheckStatus, DeadSource};
use verdict_rules::game::SkipKind;
use verdict_rules::info::Rules;
use verdict_rules::outcome::HowEnded;
use verdict_rules::score::{RuleSet, Winner};

use crate::row::{Cell, GameRow, Kind, RowStatus, Variant};

/// The headline comparisons of the mission: the two editions of 计枰点, and
/// 计活子 against 计枰点 edition by edition.
pub const HEADLINE: [(RuleSet, RuleSet); 3] = [
    (RuleSet::JpdA, RuleSet::JpdB),
    (RuleSet::JhzA, RuleSet::JpdA),
    (RuleSet::JhzB, RuleSet::JpdB),
];

/// Counts of one (comparison, dimension, value) cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub scorable: u64,
    pub disagreements: u64,
    /// Games where either rule set says draw.
    pub draws: u64,
}

impl Tally {
    pub fn rate(&self) -> f64 {
        self.disagreements as f64 / self.scorable.max(1) as f64
    }

    /// The 95% Wilson score interval of the disagreement rate.
    pub fn wilson(&self) -> (f64, f64) {
        wilson(self.disagreements, self.scorable)
    }

    /// Counts one game the two rule sets name `a` and `b` the winners of.
    pub fn add(&mut self, a: Winner, b: Winner) {
        self.scorable += 1;
        if a != b {
            self.disagreements += 1;
        }
        if a == Winner::Draw || b == Winner::Draw {
            self.draws += 1;
        }
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &Tally) {
        self.scorable += other.scorable;
        self.disagreements += other.disagreements;
        self.draws += other.draws;
    }
}

/// 95% Wilson score interval for `k` successes in `n` trials; `(0, 1)` when
/// `n` is 0.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    // At the ends the bound is exact; the formula leaves rounding dust there.
    let lo = if p == 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if p == 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// A komi in points, as a summary key: ordered and compared by its bits
/// (`total_cmp`), written as Rust writes an `f64` (`6.5`, `7`, `-0`).
#[derive(Copy, Clone, Debug)]
pub struct Komi(pub f64);

impl PartialEq for Komi {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}

impl Eq for Komi {}

impl PartialOrd for Komi {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Komi {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl std::fmt::Display for Komi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What a summary breaks its comparisons down by.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dimension {
    All,
    BoardSize,
    Komi,
    Handicap,
    Rules,
    HowEnded,
    DeadSource,
    Year,
    Input,
    Variant,
    /// Every game re-scored at each komi of `--komi start:end:step`.
    KomiSweep,
}

impl Dimension {
    pub const ALL: [Dimension; 11] = [
        Dimension::All,
        Dimension::BoardSize,
        Dimension::Komi,
        Dimension::Handicap,
        Dimension::Rules,
        Dimension::HowEnded,
        Dimension::DeadSource,
        Dimension::Year,
        Dimension::Input,
        Dimension::Variant,
        Dimension::KomiSweep,
    ];

    /// The `dimension` column's value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Dimension::All => "all",
            Dimension::BoardSize => "board_size",
            Dimension::Komi => "komi",
            Dimension::Handicap => "handicap",
            Dimension::Rules => "rules",
            Dimension::HowEnded => "how_ended",
            Dimension::DeadSource => "dead_source",
            Dimension::Year => "year",
            Dimension::Input => "input",
            Dimension::Variant => "variant",
            Dimension::KomiSweep => "komi_sweep",
        }
    }

    pub fn from_id(id: &str) -> Option<Dimension> {
        Dimension::ALL.into_iter().find(|d| d.as_str() == id)
    }
}

/// One breakdown cell of a comparison: a dimension and its value, typed.
/// `None` is a value the row does not have (written `unknown`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// Every game of the comparison.
    All,
    /// Width and height.
    BoardSize(Option<(i64, i64)>),
    /// The komi the game was scored at.
    Komi(Option<Komi>),
    /// Whether the game had a handicap (`handicap`) or not (`even`).
    Handicap(bool),
    Rules(Option<Rules>),
    HowEnded(Option<HowEnded>),
    DeadSource(Option<DeadSource>),
    Year(Option<i64>),
    /// The command-line input the game was found under.
    Input(String),
    Variant(Option<Variant>),
    /// The game re-scored at this komi.
    KomiSweep(Komi),
}

const UNKNOWN: &str = "unknown";

impl Group {
    pub const fn dimension(&self) -> Dimension {
        match self {
            Group::All => Dimension::All,
            Group::BoardSize(_) => Dimension::BoardSize,
            Group::Komi(_) => Dimension::Komi,
            Group::Handicap(_) => Dimension::Handicap,
            Group::Rules(_) => Dimension::Rules,
            Group::HowEnded(_) => Dimension::HowEnded,
            Group::DeadSource(_) => Dimension::DeadSource,
            Group::Year(_) => Dimension::Year,
            Group::Input(_) => Dimension::Input,
            Group::Variant(_) => Dimension::Variant,
            Group::KomiSweep(_) => Dimension::KomiSweep,
        }
    }

    /// The `value` column's text.
    pub fn value(&self) -> String {
        fn opt<T>(v: &Option<T>, f: impl FnOnce(&T) -> String) -> String {
            v.as_ref().map_or_else(|| UNKNOWN.to_string(), f)
        }
        match self {
            Group::All => "all".to_string(),
            Group::BoardSize(v) => opt(v, |(w, h)| format!("{w}x{h}")),
            Group::Komi(v) => opt(v, Komi::to_string),
            Group::Handicap(true) => "handicap".to_string(),
            Group::Handicap(false) => "even".to_string(),
            Group::Rules(v) => opt(v, |r| r.as_str().to_string()),
            Group::HowEnded(v) => opt(v, |h| h.as_str().to_string()),
            Group::DeadSource(v) => opt(v, |d| d.as_str().to_string()),
            Group::Year(v) => opt(v, i64::to_string),
            Group::Input(v) => v.clone(),
            Group::Variant(v) => opt(v, |x| x.as_str().to_string()),
            Group::KomiSweep(k) => k.to_string(),
        }
    }

    /// The group a dimension and value name (as [`Group::dimension`] and
    /// [`Group::value`] write them), if they name one.
    pub fn parse(dimension: &str, value: &str) -> Option<Group> {
        fn opt<T>(value: &str, f: impl FnOnce(&str) -> Option<T>) -> Option<Option<T>> {
            if value == UNKNOWN {
                Some(None)
            } else {
                f(value).map(Some)
            }
        }
        let komi = |v: &str| v.parse::<f64>().ok().map(Komi);
        Some(match Dimension::from_id(dimension)? {
            Dimension::All => (value == "all").then_some(Group::All)?,
            Dimension::BoardSize => Group::BoardSize(opt(value, |v| {
                let (w, h) = v.split_once('x')?;
                Some((w.parse().ok()?, h.parse().ok()?))
            })?),
            Dimension::Komi => Group::Komi(opt(value, komi)?),
            Dimension::Handicap => match value {
                "handicap" => Group::Handicap(true),
                "even" => Group::Handicap(false),
                _ => return None,
            },
            // `unknown` is a family of its own, as the rows write it.
            Dimension::Rules => {
                Group::Rules(Some(Rules::ALL.into_iter().find(|r| r.as_str() == value)?))
            }
            Dimension::HowEnded => Group::HowEnded(opt(value, HowEnded::from_id)?),
            Dimension::DeadSource => Group::DeadSource(opt(value, |v| {
                DeadSource::ALL.into_iter().find(|d| d.as_str() == v)
            })?),
            Dimension::Year => Group::Year(opt(value, |v| v.parse().ok())?),
            Dimension::Input => Group::Input(value.to_string()),
            Dimension::Variant => Group::Variant(opt(value, |v| {
                Variant::ALL.into_iter().find(|x| x.as_str() == v)
            })?),
            Dimension::KomiSweep => Group::KomiSweep(komi(value)?),
        })
    }

    /// The groups a row falls in, [`Group::All`] first (the komi sweep
    /// apart).
    pub fn of(row: &GameRow) -> [Group; 10] {
        [
            Group::All,
            Group::BoardSize(row.board_width.zip(row.board_height)),
            Group::Komi(row.komi.map(Komi)),
            Group::Handicap(row.handicap.is_some_and(|h| h != 0)),
            Group::Rules(row.rules),
            Group::HowEnded(row.how_ended),
            Group::DeadSource(row.dead_source),
            Group::Year(row.year),
            Group::Input(row.input.clone()),
            Group::Variant(row.variant),
        ]
    }
}

/// A comparison of two rule sets: `<a>_vs_<b>` in the summary files.
pub fn comparison_name((a, b): (RuleSet, RuleSet)) -> String {
    format!("{}_vs_{}", a.id(), b.id())
}

/// The comparison [`comparison_name`] writes as `name`.
pub fn parse_comparison(name: &str) -> Option<(RuleSet, RuleSet)> {
    let (a, b) = name.split_once("_vs_")?;
    Some((RuleSet::from_id(a)?, RuleSet::from_id(b)?))
}

/// The counts of one comparison in one group.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CellKey {
    pub pair: (RuleSet, RuleSet),
    pub group: Group,
}

impl CellKey {
    /// The key the summary files write (comparison, dimension, value).
    pub fn names(&self) -> (String, &'static str, String) {
        (
            comparison_name(self.pair),
            self.group.dimension().as_str(),
            self.group.value(),
        )
    }

    /// The key of `names`, if it names one.
    pub fn parse(comparison: &str, dimension: &str, value: &str) -> Option<CellKey> {
        Some(CellKey {
            pair: parse_comparison(comparison)?,
            group: Group::parse(dimension, value)?,
        })
    }
}

/// One row of the summary table, as the files write it.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    pub comparison: String,
    pub dimension: &'static str,
    pub value: String,
    pub tally: Tally,
}

/// A column of the summary table: its name, type, `docs/schema.md` line,
/// and how it is read from a row.
pub struct SummaryColumn {
    pub name: &'static str,
    pub kind: Kind,
    pub doc: &'static str,
    get: for<'a> fn(&'a SummaryRow) -> Cell<'a>,
}

impl std::fmt::Debug for SummaryColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SummaryColumn")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl SummaryColumn {
    pub fn cell<'a>(&self, row: &'a SummaryRow) -> Cell<'a> {
        (self.get)(row)
    }
}

/// The columns of `summary.parquet` and of `summary.json`'s `comparisons`.
pub const SUMMARY_COLUMNS: &[SummaryColumn] = &[
    SummaryColumn {
        name: "comparison",
        kind: Kind::Str,
        doc: "`<rule set>_vs_<rule set>`: `jpd_a_vs_jpd_b`, `jhz_a_vs_jpd_a`, `jhz_b_vs_jpd_b` (all pairs with `--all-pairs`)",
        get: |r| Cell::Str(Some(&r.comparison)),
    },
    SummaryColumn {
        name: "dimension",
        kind: Kind::Str,
        doc: "`all`, `board_size`, `komi`, `handicap` (`even`/`handicap`), `rules`, `how_ended`, `dead_source`, `year`, `input`, `variant` (`standard`/`dajiefang`), `komi_sweep` (with `--komi start:end:step`: every game re-scored at each komi, the value)",
        get: |r| Cell::Str(Some(r.dimension)),
    },
    SummaryColumn {
        name: "value",
        kind: Kind::Str,
        doc: "the value of the dimension (`all` for the overall row, `unknown` when a game has none)",
        get: |r| Cell::Str(Some(&r.value)),
    },
    SummaryColumn {
        name: "scorable",
        kind: Kind::Int,
        doc: "games with both verdicts",
        get: |r| Cell::Int(Some(r.tally.scorable as i64)),
    },
    SummaryColumn {
        name: "disagreements",
        kind: Kind::Int,
        doc: "games where the two name different winners (a win against a draw counts)",
        get: |r| Cell::Int(Some(r.tally.disagreements as i64)),
    },
    SummaryColumn {
        name: "rate",
        kind: Kind::Float,
        doc: "`disagreements / scorable`",
        get: |r| Cell::Float(Some(r.tally.rate())),
    },
    SummaryColumn {
        name: "ci_low",
        kind: Kind::Float,
        doc: "95% Wilson score interval of the rate",
        get: |r| Cell::Float(Some(r.tally.wilson().0)),
    },
    SummaryColumn {
        name: "ci_high",
        kind: Kind::Float,
        doc: "95% Wilson score interval of the rate",
        get: |r| Cell::Float(Some(r.tally.wilson().1)),
    },
    SummaryColumn {
        name: "draws",
        kind: Kind::Int,
        doc: "games where either rule set says draw",
        get: |r| Cell::Int(Some(r.tally.draws as i64)),
    },
];

/// The summary table of `docs/schema.md`.
pub fn summary_schema_table() -> String {
    crate::columns::markdown_table(SUMMARY_COLUMNS.iter().map(|c| (c.name, c.kind, c.doc)))
}

/// Counts under their public names, in the order of the names (as
/// `summary.json` and the wire write them).
pub fn named<K>(
    counts: &BTreeMap<K, u64>,
    name: impl Fn(&K) -> &'static str,
) -> BTreeMap<&'static str, u64> {
    counts.iter().map(|(k, v)| (name(k), *v)).collect()
}

/// Everything the summary files hold, added up row by row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub games: u64,
    pub by_status: BTreeMap<RowStatus, u64>,
    pub skip_reasons: BTreeMap<SkipKind, u64>,
    pub self_check: BTreeMap<CheckStatus, u64>,
    /// Comparison and group to counts.
    pub cells: BTreeMap<CellKey, Tally>,
    pub pairs: Vec<(RuleSet, RuleSet)>,
    /// Komi values to re-score every game at (`--komi 5.5:8.5:0.5`): each
    /// adds a `komi_sweep` row per comparison.
    pub sweep: Vec<f64>,
    /// Where the numbers come from (verdict version, options, inputs,
    /// times), written into `summary.json` as `provenance`; not a count, so
    /// merging leaves it alone.
    pub provenance: Option<serde_json::Value>,
}

impl Summary {
    /// Comparisons among `selected` rule sets: the headline pairs, or every
    /// pair with `all_pairs`.
    pub fn new(all_pairs: bool, selected: &[RuleSet]) -> Summary {
        let pairs: Vec<(RuleSet, RuleSet)> = if all_pairs {
            let mut p = Vec::new();
            for (i, a) in RuleSet::ALL.iter().enumerate() {
                for b in &RuleSet::ALL[i + 1..] {
                    p.push((*a, *b));
                }
            }
            p
        } else {
            HEADLINE.to_vec()
        };
        let pairs = pairs
            .into_iter()
            .filter(|(a, b)| selected.contains(a) && selected.contains(b))
            .collect();
        Summary {
            pairs,
            ..Summary::default()
        }
    }

    pub fn add(&mut self, row: &GameRow) {
        self.games += 1;
        *self.by_status.entry(row.status).or_default() += 1;
        if let Some(r) = row.skip_reason {
            *self.skip_reasons.entry(r.kind()).or_default() += 1;
        }
        if let Some(s) = &row.self_check {
            *self.self_check.entry(s.status()).or_default() += 1;
        }
        if row.margin.is_empty() {
            return;
        }
        let groups = Group::of(row);
        let Summary {
            cells,
            pairs,
            sweep,
            ..
        } = self;
        let index = |r: RuleSet| RuleSet::ALL.iter().position(|x| *x == r).expect("listed");
        let handicap = row.handicap.unwrap_or(0) as u8;
        for &pair in pairs.iter() {
            let (a, b) = pair;
            let (ia, ib) = (index(a), index(b));
            let winner = |i: usize| row.winner.get(i).copied().flatten();
            let (Some(wa), Some(wb)) = (winner(ia), winner(ib)) else {
                continue;
            };
            let mut count = |group: Group, x: Winner, y: Winner| {
                cells.entry(CellKey { pair, group }).or_default().add(x, y);
            };
            for &k in sweep.iter() {
                // Same board and accounting, another komi: margins move, the
                // handicap bonus of each rule set stays.
                let at = |i: usize, r: RuleSet| {
                    let before = row.margin_before_komi.get(i).copied().flatten()?;
                    Some(Winner::of_margin(r.margin(before, k, handicap)))
                };
                if let (Some(xa), Some(xb)) = (at(ia, a), at(ib, b)) {
                    count(Group::KomiSweep(Komi(k)), xa, xb);
                }
            }
            for group in &groups {
                count(group.clone(), wa, wb);
            }
        }
    }

    /// Adds the counts of `other` (a summary of other games, with the same
    /// comparisons and sweep) to these: summing shard summaries gives the
    /// summary of the whole corpus, as if it had been added row by row.
    pub fn merge(&mut self, other: &Summary) {
        self.games += other.games;
        fn add<K: Ord + Copy>(mine: &mut BTreeMap<K, u64>, theirs: &BTreeMap<K, u64>) {
            for (k, v) in theirs {
                *mine.entry(*k).or_default() += v;
            }
        }
        add(&mut self.by_status, &other.by_status);
        add(&mut self.skip_reasons, &other.skip_reasons);
        add(&mut self.self_check, &other.self_check);
        for (key, t) in &other.cells {
            self.cells.entry(key.clone()).or_default().merge(t);
        }
    }

    /// The comparison cells as the files write them, in the order of their
    /// names (comparison, dimension, value); groups written alike (a row
    /// whose rules are unknown and one with none) are one row.
    pub fn rows(&self) -> Vec<SummaryRow> {
        let mut named: BTreeMap<(String, &'static str, String), Tally> = BTreeMap::new();
        for (key, t) in &self.cells {
            named.entry(key.names()).or_default().merge(t);
        }
        named
            .into_iter()
            .map(|((comparison, dimension, value), tally)| SummaryRow {
                comparison,
                dimension,
                value,
                tally,
            })
            .collect()
    }

    /// The headline table: comparison -> overall counts, by name.
    pub fn overall(&self) -> Vec<(String, Tally)> {
        let mut out: Vec<(String, Tally)> = self
            .cells
            .iter()
            .filter(|(k, _)| k.group == Group::All)
            .map(|(k, t)| (comparison_name(k.pair), t.clone()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    pub fn to_json(&self, version: &str) -> serde_json::Value {
        use serde_json::json;
        let rows: Vec<serde_json::Value> = self
            .rows()
            .iter()
            .map(|r| {
                SUMMARY_COLUMNS
                    .iter()
                    .map(|c| {
                        let v = match c.cell(r) {
                            Cell::Str(v) => json!(v),
                            Cell::Int(v) => json!(v),
                            Cell::Float(v) => json!(v),
                            Cell::Bool(v) => json!(v),
                        };
                        (c.name.to_string(), v)
                    })
                    .collect::<serde_json::Map<_, _>>()
                    .into()
            })
            .collect();
        let mut out = json!({
            "schema_version": version,
            "games": self.games,
            "rows_by_status": named(&self.by_status, |k| k.as_str()),
            "skip_reasons": named(&self.skip_reasons, |k| k.as_str()),
            "self_check": named(&self.self_check, |k| k.as_str()),
            "comparisons": rows,
        });
        if let Some(p) = &self.provenance {
            out["provenance"] = p.clone();
        }
        out
    }

    /// The columns of `summary.parquet`: name, kind.
    pub fn columns() -> Vec<(String, Kind)> {
        SUMMARY_COLUMNS
            .iter()
            .map(|c| (c.name.to_string(), c.kind))
            .collect()
    }
}

impl SummaryRow {
    /// This row's cells in [`SUMMARY_COLUMNS`] order.
    pub fn cells(&self) -> Vec<Cell<'_>> {
        SUMMARY_COLUMNS.iter().map(|c| c.cell(self)).collect()
    }
}

/// Reads a komi sweep `start:end:step` (inclusive, at most 1000 values).
///
/// # Errors
/// A message saying what is wrong with the text.
pub fn parse_sweep(text: &str) -> Result<Vec<f64>, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let [start, end, step] = parts[..] else {
        return Err(format!("{text:?} is not start:end:step, e.g. 5.5:8.5:0.5"));
    };
    let num = |s: &str| {
        s.trim()
            .parse::<f64>()
            .map_err(|_| format!("{s:?} in {text:?} is not a number"))
    };
    let (start, end, step) = (num(start)?, num(end)?, num(step)?);
    if step.is_nan() || step <= 0.0 || end < start || (end - start) / step > 1000.0 {
        return Err(format!(
            "{text:?}: need start <= end and a positive step giving at most 1000 values"
        ));
    }
    let mut out = Vec::new();
    let mut i = 0u32;
    loop {
        let k = start + f64::from(i) * step;
        if k > end + 1e-9 {
            break;
        }
        out.push(k);
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `--komi` sweeps: `start:end:step`, inclusive.
    #[test]
    fn komi_sweeps_are_inclusive() {
        assert_eq!(parse_sweep("5.5:8.5:1").unwrap(), vec![5.5, 6.5, 7.5, 8.5]);
        assert_eq!(parse_sweep("6.5:6.5:0.5").unwrap(), vec![6.5]);
        assert!(parse_sweep("8:5:1").is_err());
        assert!(parse_sweep("5:8:0").is_err());
        assert!(parse_sweep("5:8").is_err());
    }

    /// A scored row with the two 计枰点 editions counted: `before` is the
    /// margin before komi of both.
    fn scored(before: i64, komi: f64, handicap: i64) -> GameRow {
        let n = RuleSet::ALL.len();
        let mut row = GameRow {
            input: "in".into(),
            board_width: Some(19),
            board_height: Some(19),
            komi: Some(komi),
            handicap: Some(handicap),
            rules: Some(Rules::Chinese),
            how_ended: Some(HowEnded::TwoPasses),
            dead_source: Some(DeadSource::Settled),
            variant: Some(Variant::Standard),
            margin_before_komi: vec![None; n],
            margin: vec![None; n],
            winner: vec![None; n],
            ..GameRow::default()
        };
        for r in [RuleSet::JpdA, RuleSet::JpdB] {
            let i = RuleSet::ALL.iter().position(|x| *x == r).unwrap();
            let m = r.margin(before, komi, handicap as u8);
            row.margin_before_komi[i] = Some(before);
            row.margin[i] = Some(m);
            row.winner[i] = Some(Winner::of_margin(m));
        }
        row
    }

    fn cell(s: &Summary, group: Group) -> Option<&Tally> {
        s.cells.get(&CellKey {
            pair: (RuleSet::JpdA, RuleSet::JpdB),
            group,
        })
    }

    #[test]
    fn games_are_counted_in_their_typed_groups() {
        let mut s = Summary::new(false, &[RuleSet::JpdA, RuleSet::JpdB]);
        assert_eq!(s.pairs, vec![(RuleSet::JpdA, RuleSet::JpdB)]);
        // Four handicap stones: 计枰点 B gives White 4 points, A none.
        s.add(&scored(5, 0.5, 4));
        s.add(&scored(5, 0.5, 0));
        s.add(&GameRow::skipped(
            "x",
            "in",
            0,
            verdict_rules::game::SkipReason::NoGame,
        ));
        assert_eq!(s.games, 3);
        assert_eq!(s.skip_reasons.get(&SkipKind::NoGame), Some(&1));
        let all = cell(&s, Group::All).unwrap();
        assert_eq!((all.scorable, all.disagreements, all.draws), (2, 0, 0));
        assert_eq!(cell(&s, Group::Handicap(true)).unwrap().scorable, 1);
        assert_eq!(cell(&s, Group::Handicap(false)).unwrap().scorable, 1);
        assert_eq!(cell(&s, Group::Komi(Some(Komi(0.5)))).unwrap().scorable, 2);
        assert_eq!(
            cell(&s, Group::BoardSize(Some((19, 19)))).unwrap().scorable,
            2
        );
        assert_eq!(
            cell(&s, Group::Rules(Some(Rules::Chinese)))
                .unwrap()
                .scorable,
            2
        );
        assert_eq!(
            cell(&s, Group::HowEnded(Some(HowEnded::TwoPasses)))
                .unwrap()
                .scorable,
            2
        );
        assert_eq!(cell(&s, Group::Input("in".into())).unwrap().scorable, 2);
        assert_eq!(cell(&s, Group::Year(None)).unwrap().scorable, 2);
    }

    #[test]
    fn the_komi_sweep_rescores_with_each_rule_set_s_margin() {
        let mut s = Summary::new(false, &RuleSet::ALL);
        s.sweep = vec![0.5, 1.0, 4.5];
        s.add(&scored(5, 0.5, 4));
        let at = |k: f64| cell(&s, Group::KomiSweep(Komi(k))).unwrap();
        // 0.5: A 4.5, B 0.5: both Black.
        assert_eq!((at(0.5).disagreements, at(0.5).draws), (0, 0));
        // 1: A 4, B 0: Black against a draw.
        assert_eq!((at(1.0).disagreements, at(1.0).draws), (1, 1));
        // 4.5: A 0.5, B -3.5: Black against White.
        assert_eq!((at(4.5).disagreements, at(4.5).draws), (1, 0));
        assert!(s
            .cells
            .keys()
            .all(|k| k.pair != (RuleSet::JhzA, RuleSet::JpdA)));
    }

    #[test]
    fn groups_are_written_and_read_back_by_name() {
        for g in [
            Group::All,
            Group::BoardSize(Some((9, 13))),
            Group::BoardSize(None),
            Group::Komi(Some(Komi(6.5))),
            Group::Komi(Some(Komi(-0.0))),
            Group::Komi(Some(Komi(7.0))),
            Group::Komi(None),
            Group::Handicap(true),
            Group::Handicap(false),
            Group::Rules(Some(Rules::NewZealand)),
            Group::HowEnded(Some(HowEnded::FourXu)),
            Group::HowEnded(None),
            Group::DeadSource(Some(DeadSource::SettledWithResult)),
            Group::Year(Some(1987)),
            Group::Year(None),
            Group::Input("a dir/with x".into()),
            Group::Variant(Some(Variant::Dajiefang)),
            Group::KomiSweep(Komi(5.25)),
        ] {
            let (d, v) = (g.dimension().as_str(), g.value());
            assert_eq!(Group::parse(d, &v), Some(g.clone()), "{d} {v}");
        }
        assert_eq!(Group::Komi(Some(Komi(7.0))).value(), "7");
        assert_eq!(Group::Komi(Some(Komi(-0.0))).value(), "-0");
        assert_eq!(Group::BoardSize(Some((9, 13))).value(), "9x13");
        // Unknown rules are a family of their own; no rules at all are
        // written alike and read back as it.
        assert_eq!(Group::Rules(None).value(), "unknown");
        assert_eq!(
            Group::parse("rules", "unknown"),
            Some(Group::Rules(Some(Rules::Unknown)))
        );
        for (d, v) in [
            ("moon", "all"),
            ("all", "x"),
            ("komi", "six"),
            ("rules", "go"),
            ("handicap", "2"),
        ] {
            assert_eq!(Group::parse(d, v), None, "{d} {v}");
        }
        assert_eq!(
            parse_comparison("jhz_b_vs_jpd_b"),
            Some((RuleSet::JhzB, RuleSet::JpdB))
        );
        assert_eq!(parse_comparison("jhz_b_jpd_b"), None);
    }

    #[test]
    fn rows_are_in_the_order_of_their_names_and_merge_what_reads_alike() {
        let mut s = Summary::new(false, &RuleSet::ALL);
        for (group, n) in [
            (Group::Komi(Some(Komi(6.5))), 1),
            (Group::Komi(Some(Komi(10.0))), 2),
            (Group::Rules(None), 3),
            (Group::Rules(Some(Rules::Unknown)), 4),
        ] {
            for pair in [
                (RuleSet::JpdA, RuleSet::JpdB),
                (RuleSet::JhzA, RuleSet::JpdA),
            ] {
                s.cells.insert(
                    CellKey {
                        pair,
                        group: group.clone(),
                    },
                    Tally {
                        scorable: n,
                        ..Tally::default()
                    },
                );
            }
        }
        let rows: Vec<(String, &str, String, u64)> = s
            .rows()
            .into_iter()
            .map(|r| (r.comparison, r.dimension, r.value, r.tally.scorable))
            .collect();
        let want = |c: &str| {
            vec![
                (c.to_string(), "komi", "10".to_string(), 2),
                (c.to_string(), "komi", "6.5".to_string(), 1),
                (c.to_string(), "rules", "unknown".to_string(), 7),
            ]
        };
        assert_eq!(
            rows,
            [want("jhz_a_vs_jpd_a"), want("jpd_a_vs_jpd_b")].concat()
        );
        let json = s.to_json("5");
        assert_eq!(json["comparisons"].as_array().unwrap().len(), 6);
        assert_eq!(json["comparisons"][1]["value"], "6.5");
        assert_eq!(json["comparisons"][2]["scorable"], 7);
        assert_eq!(json["comparisons"][2]["rate"], 0.0);
    }

    #[test]
    fn every_summary_cell_is_of_its_column_s_kind() {
        let row = SummaryRow {
            comparison: "a".into(),
            dimension: "all",
            value: "all".into(),
            tally: Tally::default(),
        };
        for c in SUMMARY_COLUMNS {
            assert_eq!(c.cell(&row).kind(), c.kind, "{}", c.name);
        }
    }

    #[test]
    fn wilson_matches_known_values() {
        // 10 of 100: the textbook interval is [0.0552, 0.1744].
        let (lo, hi) = wilson(10, 100);
        assert!((lo - 0.0552).abs() < 1e-4, "{lo}");
        assert!((hi - 0.1744).abs() < 1e-4, "{hi}");
        let (lo, hi) = wilson(0, 50);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.0713).abs() < 1e-4, "{hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
