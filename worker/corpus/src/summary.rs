//! Corpus summaries: for each comparison of two rule sets, how often they
//! name different winners, with a 95% Wilson interval, overall and broken
//! down by board size, komi, handicap, recorded rules, how the game ended,
//! how dead stones were decided, year, top-level input and variant
//! (`standard`, `dajiefang`).

use std::collections::BTreeMap;

use verdict_rules::score::{RuleSet, Winner};

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
        let pairs = self.pairs.clone();
        for (a, b) in pairs {
            let ia = RuleSet::ALL.iter().position(|r| *r == a).expect("listed");
            let ib = RuleSet::ALL.iter().position(|r| *r == b).expect("listed");
            let (Some(wa), Some(wb)) = (row.winner[ia], row.winner[ib]) else {
                continue;
            };
            let name = format!("{}_vs_{}", a.id(), b.id());
            for &k in &self.sweep {
                // Same board and accounting, another komi: margins move, the
                // handicap bonus of each rule set stays.
                let winner = |i: usize, r: RuleSet| {
                    let before = row.margin_before_komi[i]?;
                    let m = before as f64
                        - k
                        - r.handicap_bonus(row.handicap.unwrap_or(0) as u8) as f64;
                    Some(Winner::of_margin(m))
                };
                let (Some(xa), Some(xb)) = (winner(ia, a), winner(ib, b)) else {
                    continue;
                };
                let t = self
                    .cells
                    .entry((name.clone(), "komi_sweep".to_string(), format!("{k}")))
                    .or_default();
                t.scorable += 1;
                if xa != xb {
                    t.disagreements += 1;
                }
                if xa == Winner::Draw || xb == Winner::Draw {
                    t.draws += 1;
                }
            }
            for (dim, value) in &dims {
                let t = self
                    .cells
                    .entry((name.clone(), dim.to_string(), value.clone()))
                    .or_default();
                t.scorable += 1;
                if wa != wb {
                    t.disagreements += 1;
                }
                if wa == Winner::Draw || wb == Winner::Draw {
                    t.draws += 1;
                }
            }
        }
    }

    /// Adds the counts of `other` (a summary of other games, with the same
    /// comparisons and sweep) to these: summing shard summaries gives the
    /// summary of the whole corpus, as if it had been added row by row.
    pub fn merge(&mut self, other: &Summary) {
        self.games += other.games;
        for (mine, theirs) in [
            (&mut self.by_status, &other.by_status),
            (&mut self.skip_reasons, &other.skip_reasons),
            (&mut self.self_check, &other.self_check),
        ] {
            for (k, v) in theirs {
                *mine.entry(k.clone()).or_default() += v;
            }
        }
        for (key, t) in &other.cells {
            let mine = self.cells.entry(key.clone()).or_default();
            mine.scorable += t.scorable;
            mine.disagreements += t.disagreements;
            mine.draws += t.draws;
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
        let mut out = json!({
            "schema_version": version,
            "games": self.games,
            "rows_by_status": self.by_status,
            "skip_reasons": self.skip_reasons,
            "self_check": self.self_check,
            "comparisons": rows,
        });
        if let Some(p) = &self.provenance {
            out["provenance"] = p.clone();
        }
        out
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
        ("variant", opt(row.variant.map(str::to_string))),
    ]
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
