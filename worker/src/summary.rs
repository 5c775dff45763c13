//! Corpus summaries: for each comparison of two rule sets, how often they
//! name different winners, with a 95% Wilson interval, overall and broken
//! down by board size, komi, handicap, recorded rules, how the game ended,
//! how dead stones were decided, year and top-level input.

use std::collections::BTreeMap;

use verdict_rules::score::RuleSet;

use crate::row::{Cell, GameRow, Kind};

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

/// Everything the summary files hold, added up row by row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub games: u64,
    pub by_status: BTreeMap<String, u64>,
    pub skip_reasons: BTreeMap<String, u64>,
    pub self_check: BTreeMap<String, u64>,
    /// (comparison, dimension, value) to counts.
    pub cells: BTreeMap<(String, String, String), Tally>,
    pub pairs: Vec<(RuleSet, RuleSet)>,
}

impl Summary {
    pub fn new(all_pairs: bool) -> Summary {
        let pairs = if all_pairs {
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
        Summary {
            pairs,
            ..Summary::default()
        }
    }

    pub fn add(&mut self, row: &GameRow) {
        self.games += 1;
        *self.by_status.entry(row.status.to_string()).or_default() += 1;
        if let Some(r) = row.skip_reason {
            *self.skip_reasons.entry(r.to_string()).or_default() += 1;
        }
        if let Some(s) = row.self_check_status {
            *self.self_check.entry(s.to_string()).or_default() += 1;
        }
        if row.margin.is_empty() {
            return;
        }
        let dims = dimensions(row);
        for (a, b) in self.pairs.clone() {
            let ia = RuleSet::ALL.iter().position(|r| *r == a).expect("listed");
            let ib = RuleSet::ALL.iter().position(|r| *r == b).expect("listed");
            let (Some(wa), Some(wb)) = (row.winner[ia], row.winner[ib]) else {
                continue;
            };
            let name = format!("{}_vs_{}", a.id(), b.id());
            for (dim, value) in &dims {
                let t = self
                    .cells
                    .entry((name.clone(), dim.to_string(), value.clone()))
                    .or_default();
                t.scorable += 1;
                if wa != wb {
                    t.disagreements += 1;
                }
                if wa == "draw" || wb == "draw" {
                    t.draws += 1;
                }
            }
        }
    }

    /// The headline table: comparison -> overall counts.
    pub fn overall(&self) -> Vec<(&str, &Tally)> {
        self.cells
            .iter()
            .filter(|((_, d, _), _)| d == "all")
            .map(|((c, _, _), t)| (c.as_str(), t))
            .collect()
    }

    pub fn to_json(&self, version: &str) -> serde_json::Value {
        use serde_json::json;
        let rows: Vec<_> = self
            .cells
            .iter()
            .map(|((c, d, v), t)| {
                let (lo, hi) = t.wilson();
                json!({"comparison": c, "dimension": d, "value": v, "scorable": t.scorable,
                       "disagreements": t.disagreements, "rate": t.rate(), "ci_low": lo, "ci_high": hi, "draws": t.draws})
            })
            .collect();
        json!({
            "schema_version": version,
            "games": self.games,
            "rows_by_status": self.by_status,
            "skip_reasons": self.skip_reasons,
            "self_check": self.self_check,
            "comparisons": rows,
        })
    }

    /// The comparison cells as table rows for `summary.parquet`.
    pub fn table(&self) -> (Vec<(String, Kind)>, Vec<Vec<Cell<'_>>>) {
        let cols = [
            ("comparison", Kind::Str),
            ("dimension", Kind::Str),
            ("value", Kind::Str),
            ("scorable", Kind::Int),
            ("disagreements", Kind::Int),
            ("rate", Kind::Float),
            ("ci_low", Kind::Float),
            ("ci_high", Kind::Float),
            ("draws", Kind::Int),
        ]
        .into_iter()
        .map(|(n, k)| (n.to_string(), k))
        .collect();
        let rows = self
            .cells
            .iter()
            .map(|((c, d, v), t)| {
                let (lo, hi) = t.wilson();
                vec![
                    Cell::Str(Some(c)),
                    Cell::Str(Some(d)),
                    Cell::Str(Some(v)),
                    Cell::Int(Some(t.scorable as i64)),
                    Cell::Int(Some(t.disagreements as i64)),
                    Cell::Float(Some(t.rate())),
                    Cell::Float(Some(lo)),
                    Cell::Float(Some(hi)),
                    Cell::Int(Some(t.draws as i64)),
                ]
            })
            .collect();
        (cols, rows)
    }
}

/// The breakdown values of a row, `("all", "all")` first.
fn dimensions(row: &GameRow) -> Vec<(&'static str, String)> {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "unknown".to_string());
    vec![
        ("all", "all".to_string()),
        (
            "board_size",
            match (row.board_width, row.board_height) {
                (Some(w), Some(h)) => format!("{w}x{h}"),
                _ => "unknown".to_string(),
            },
        ),
        ("komi", opt(row.komi.map(|k| format!("{k}")))),
        (
            "handicap",
            match row.handicap {
                Some(0) | None => "even".to_string(),
                Some(_) => "handicap".to_string(),
            },
        ),
        ("rules", opt(row.rules.map(str::to_string))),
        ("how_ended", opt(row.how_ended.map(str::to_string))),
        ("dead_source", opt(row.dead_source.map(str::to_string))),
        ("year", opt(row.year.map(|y| y.to_string()))),
        ("input", row.input.clone()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

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
