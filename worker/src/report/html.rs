//! The page: sections in the order a researcher asks, every figure beside
//! the table of its numbers, and the numbers once more as JSON.

use std::fmt::Write as _;

use serde_json::{json, Value};
use verdict_rules::score::RuleSet;

use super::board::{board_svg, BoardView, BOARD_CSS};
use super::chart::{self, esc, pct, Mark, Panel};
use super::data::{Row, RunData, Win};
use super::model::{Breakdown, Model, Pair, Rate, Uncertainty, SPARSE};
use super::records;
use super::{Page, ReportOptions};

const CSS: &str = "
:root{color-scheme:light}
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','DejaVu Sans','WenQuanYi Micro Hei','Noto Sans CJK SC',sans-serif;color:#111;background:#fff;margin:0;line-height:1.45}
header,main,nav{max-width:1120px;margin:0 auto;padding:0 20px}
header{padding-top:24px}
h1{font-size:1.7em;margin:.2em 0}
h2{font-size:1.35em;border-bottom:2px solid #111;padding-bottom:4px;margin-top:2em}
h3{font-size:1.1em;margin:1.4em 0 .4em}
.lede{font-size:1.08em;max-width:60em}
nav ol{columns:2;padding-left:1.4em;margin:.6em 0}
figure{margin:1em 0 1.6em;break-inside:avoid;page-break-inside:avoid}
figcaption{font-size:.9em;color:#333;max-width:60em}
svg{max-width:100%;height:auto;overflow:visible}
.chart text{font-size:12px;fill:#111}
.chart .tick{font-size:11px;fill:#333}
.chart .axlab{font-size:12px;font-weight:600}
.chart .ptitle{font-size:12.5px;font-weight:700}
.chart .note{font-size:10.5px;fill:#444;font-style:italic}
.chart .count{font-size:10px}
.chart .inv{fill:#fff}
.chart .grid{stroke:#ddd;stroke-width:1}
.chart .axis{stroke:#111;stroke-width:1.2}
.chart .band{fill:#f3f3f3}
.chart .whisker{stroke:#111;stroke-width:1.6}
.chart .dot{fill:#111;stroke:#111}
.chart .sparse .whisker{stroke-dasharray:3 2;stroke:#555}
.chart .sparse .dot{fill:#fff;stroke:#555;stroke-width:1.5}
.chart .cline{fill:none;stroke:#111;stroke-width:2}
table{border-collapse:collapse;margin:.6em 0 1em;font-size:.92em}
th,td{border-bottom:1px solid #ccc;padding:3px 9px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.sparse td{color:#555;font-style:italic}
.warn{border:2px solid #111;padding:8px 12px;background:#f2f2f2}
.examples{display:flex;flex-wrap:wrap;gap:24px}
article.game{border:1px solid #bbb;padding:12px;break-inside:avoid;page-break-inside:avoid;width:100%;box-sizing:border-box}
.gamebody{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
article.game h4{margin:.2em 0 .5em;font-size:1em}
.terms td{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.9em}
code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em}
.words{max-width:62em}
dl.prov{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}
dl.prov dt{font-weight:600}
dl.prov dd{margin:0}
@page{size:A4;margin:14mm}
@media print{nav{display:none}body{font-size:10pt}h2{break-after:avoid}a{color:#000;text-decoration:none}header,main{max-width:none;padding:0}}
";

/// A rule set's name for people, with its id.
pub fn rule_name(id: &str) -> String {
    let name = match id {
        "jpd_a" => "计枰点 唐宋 (A)",
        "jpd_b" => "计枰点 明清 (B)",
        "jhz_a" => "计活子 唐宋 (A)",
        "jhz_b" => "计活子 明清 (B)",
        "chinese" => "Chinese",
        "japanese" => "Japanese",
        "korean" => "Korean",
        "aga" => "AGA",
        "ing" => "Ing",
        "nz" => "New Zealand",
        "tromp_taylor" => "Tromp-Taylor",
        other => other,
    };
    format!("{name} [{id}]")
}

/// A comparison's name for people.
pub fn comparison_title(name: &str) -> String {
    match Pair::canonical(name).as_str() {
        "jpd_a_vs_jpd_b" => "Editions: 唐宋 vs 明清 (jpd_a vs jpd_b)".to_string(),
        "jhz_a_vs_jpd_a" => "计活子 vs 计枰点, 唐宋 edition (jhz_a vs jpd_a)".to_string(),
        "jhz_b_vs_jpd_b" => "计活子 vs 计枰点, 明清 edition (jhz_b vs jpd_b)".to_string(),
        other => other.replace("_vs_", " vs "),
    }
}

fn short_title(name: &str) -> String {
    match Pair::canonical(name).as_str() {
        "jpd_a_vs_jpd_b" => "唐宋 vs 明清 (jpd)".to_string(),
        "jhz_a_vs_jpd_a" => "计活子 vs 计枰点 (A)".to_string(),
        "jhz_b_vs_jpd_b" => "计活子 vs 计枰点 (B)".to_string(),
        other => other.replace("_vs_", " vs "),
    }
}

fn dimension_title(dim: &str) -> &str {
    match dim {
        "board_size" => "board size",
        "komi" => "komi (normalised, points)",
        "handicap" => "handicap",
        "rules" => "recorded rules",
        "how_ended" => "how the game ended",
        "dead_source" => "dead-stone source",
        "certainty" => "dead-stone confidence",
        "year" => "year",
        "input" => "source (top-level input)",
        other => other,
    }
}

fn mark_of(r: &Rate) -> Mark {
    Mark {
        n: r.scorable,
        k: r.disagreements,
        rate: r.rate,
        lo: r.lo,
        hi: r.hi,
        sparse: r.sparse(),
        attrs: vec![
            ("comparison", r.comparison.clone()),
            ("dimension", r.dimension.clone()),
            ("value", r.value.clone()),
            ("draws", r.draws.to_string()),
        ],
    }
}

fn cell_json(r: &Rate) -> Value {
    json!({"comparison": r.comparison, "dimension": r.dimension, "value": r.value,
           "scorable": r.scorable, "disagreements": r.disagreements, "rate": r.rate,
           "ci_low": r.lo, "ci_high": r.hi, "draws": r.draws})
}

/// The page, and what it drew.
pub fn page(run: &RunData, m: &Model, options: &ReportOptions, now: &str) -> Page {
    let mut h = String::with_capacity(256 * 1024);
    let mut data = serde_json::Map::new();
    let mut summary_cells: Vec<Value> = Vec::new();
    let mut counted_cells: Vec<Value> = Vec::new();
    let mut figures: Vec<String> = Vec::new();
    let out_name = run
        .out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| run.out.display().to_string());
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"generator\" content=\"verdict {}\"><title>verdict report: {}</title><style>{CSS}{BOARD_CSS}</style></head><body>",
        env!("CARGO_PKG_VERSION"),
        esc(&out_name)
    );
    let s = &run.summary;
    let scored = s.rows_by_status.get("scored").copied().unwrap_or(0)
        + s.rows_by_status.get("estimated").copied().unwrap_or(0);
    let _ = write!(
        h,
        "<header><h1>When the same games are counted under different rules, how often does the winner change?</h1><p class=\"lede\">{} games read from <code>{}</code>, {} of them scored. ",
        s.games,
        esc(&run.out.display().to_string()),
        scored
    );
    for r in m.headline.iter().take(3) {
        let _ = write!(
            h,
            "{}: winners differ in {} of {} games ({}, 95% interval {}–{}). ",
            esc(&comparison_title(&r.comparison)),
            r.disagreements,
            r.scorable,
            pct(r.rate),
            pct(r.lo),
            pct(r.hi)
        );
    }
    h.push_str("</p></header>");
    h.push_str("<nav aria-label=\"Sections\"><ol><li><a href=\"#headline\">Headline</a></li><li><a href=\"#breakdowns\">Breakdowns</a></li><li><a href=\"#komi-sweep\">Komi sweep</a></li><li><a href=\"#why\">Why the rules disagree</a></li><li><a href=\"#self-check\">Self-check</a></li><li><a href=\"#examples\">Example games</a></li><li><a href=\"#uncertainty\">Uncertainty</a></li><li><a href=\"#provenance\">Provenance</a></li></ol></nav><main>");
    if !m.warnings.is_empty() {
        h.push_str("<div class=\"warn\" role=\"alert\" id=\"warnings\"><strong>Before you read on:</strong><ul>");
        for w in &m.warnings {
            let _ = write!(h, "<li>{}</li>", esc(w));
        }
        h.push_str("</ul></div>");
    }

    // 1. Headline.
    h.push_str("<section id=\"headline\" data-section=\"headline\"><h2>1. Headline: how often two rule sets name different winners</h2>");
    if m.headline.is_empty() {
        h.push_str(
            "<p>No game was scored under two compared rule sets: there is nothing to compare.</p>",
        );
    } else {
        let labels: Vec<String> = m
            .headline
            .iter()
            .map(|r| comparison_title(&r.comparison))
            .collect();
        let marks: Vec<Option<Mark>> = m.headline.iter().map(|r| Some(mark_of(r))).collect();
        let desc = m
            .headline
            .iter()
            .map(|r| {
                format!(
                    "{}: {} [{}, {}], {} games",
                    comparison_title(&r.comparison),
                    pct(r.rate),
                    pct(r.lo),
                    pct(r.hi),
                    r.scorable
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        figure(
            &mut h,
            &mut figures,
            "fig-headline",
            &chart::intervals(
                "fig-headline",
                "Rate of games whose winners differ, with 95% Wilson intervals",
                &format!("Dot and whisker chart. {desc}."),
                &labels,
                &[Panel {
                    title: "all scorable games".to_string(),
                    marks,
                }],
                "games whose winners differ (a win against a draw counts)",
            ),
            "Each dot is the share of scorable games whose two rule sets name different winners; the whisker is its 95% Wilson interval.",
        );
        h.push_str("<table><thead><tr><th>comparison</th><th class=\"n\">scorable</th><th class=\"n\">differ</th><th class=\"n\">rate</th><th>95% interval</th><th class=\"n\">draws</th></tr></thead><tbody>");
        for r in &m.headline {
            summary_cells.push(cell_json(r));
            let _ = write!(
                h,
                "<tr data-comparison=\"{}\"><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>[{}, {}]</td><td class=\"n\">{}</td></tr>",
                esc(&r.comparison),
                esc(&comparison_title(&r.comparison)),
                r.scorable,
                r.disagreements,
                pct(r.rate),
                pct(r.lo),
                pct(r.hi),
                r.draws
            );
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</section>");

    // 2. Breakdowns.
    let _ = write!(
        h,
        "<section id=\"breakdowns\" data-section=\"breakdowns\"><h2>2. Breakdowns</h2><p class=\"words\">The headline comparisons by one property of the game at a time. Cells with fewer than {SPARSE} games are <em>sparse</em>: drawn hollow with a dashed interval, and their rows in italics; read them as hints.</p>"
    );
    for b in &m.breakdowns {
        breakdown(
            &mut h,
            &mut figures,
            b,
            &mut summary_cells,
            &mut counted_cells,
        );
    }
    h.push_str("</section>");

    // 3. Komi sweep.
    h.push_str("<section id=\"komi-sweep\" data-section=\"komi-sweep\"><h2>3. Komi sweep</h2>");
    if m.sweep.is_empty() {
        h.push_str("<p>This run had no komi sweep. <code>verdict run … --komi 5.5:8.5:0.5</code> re-scores every game at each komi of the range and adds these curves.</p>");
    } else {
        let names: Vec<String> = m.sweep.iter().map(|s| short_title(&s.comparison)).collect();
        let desc = m
            .sweep
            .iter()
            .map(|s| {
                let (lo, hi) = s.points.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
                    (a.min(p.1.rate), b.max(p.1.rate))
                });
                format!(
                    "{} from {} to {} over komi {} to {}",
                    short_title(&s.comparison),
                    pct(lo),
                    pct(hi),
                    s.points[0].0,
                    s.points[s.points.len() - 1].0
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        figure(
            &mut h,
            &mut figures,
            "fig-sweep",
            &chart::sweep(
                "fig-sweep",
                "Rate of games whose winners differ, by komi",
                &format!("Line chart with 95% bands. {desc}."),
                &m.sweep,
                &names,
            ),
            "Every game re-scored at each komi (the same board and accounting; each rule set keeps its handicap bonus). Lines are rates, bands 95% Wilson intervals.",
        );
        h.push_str("<table><thead><tr><th class=\"n\">komi</th>");
        for s in &m.sweep {
            let _ = write!(h, "<th>{}</th>", esc(&short_title(&s.comparison)));
        }
        h.push_str("</tr></thead><tbody>");
        let komis: Vec<f64> = m.sweep[0].points.iter().map(|p| p.0).collect();
        for k in komis {
            let _ = write!(h, "<tr><td class=\"n\">{k}</td>");
            for s in &m.sweep {
                match s.points.iter().find(|p| p.0 == k) {
                    Some((_, r)) => {
                        let _ = write!(
                            h,
                            "<td>{} [{}, {}] of {}</td>",
                            pct(r.rate),
                            pct(r.lo),
                            pct(r.hi),
                            r.scorable
                        );
                    }
                    None => h.push_str("<td>–</td>"),
                }
            }
            h.push_str("</tr>");
        }
        h.push_str("</tbody></table>");
        for s in &m.sweep {
            for (_, r) in &s.points {
                summary_cells.push(cell_json(r));
            }
        }
    }
    h.push_str("</section>");

    // 4. Why.
    why(&mut h, &mut figures, m);

    // 5. Self-check.
    self_check(&mut h, &mut figures, m);

    // 6. Examples.
    let (boards, example_json) = examples(&mut h, m);

    // 7. Uncertainty.
    uncertainty(&mut h, m);

    // 8. Provenance.
    let prov = provenance(&mut h, run, m, options, now);
    h.push_str("</main>");

    data.insert("verdict_version".into(), json!(env!("CARGO_PKG_VERSION")));
    data.insert(
        "summary_schema_version".into(),
        json!(run.summary.schema_version),
    );
    data.insert("games".into(), json!(run.summary.games));
    data.insert("rows".into(), json!(m.rows));
    data.insert("summary_cells".into(), Value::Array(summary_cells));
    data.insert("counted_cells".into(), Value::Array(counted_cells));
    data.insert(
        "splits".into(),
        Value::Array(
            m.splits
                .iter()
                .map(|s| json!({"comparison": s.comparison, "gaps": s.gaps, "margins": s.margins,
                    "cells": s.cells.iter().map(|r| r.iter().map(|c| json!([c.0, c.1])).collect::<Vec<_>>()).collect::<Vec<_>>(),
                    "scorable": s.scorable, "in_window": s.in_window, "disagreements": s.disagreements,
                    "disagreements_in_window": s.disagreements_in_window}))
                .collect(),
        ),
    );
    data.insert(
        "winners".into(),
        Value::Array(
            m.winners
                .iter()
                .map(
                    |w| json!({"rule_set": w.rule_set, "B": w.black, "W": w.white, "draw": w.draw}),
                )
                .collect(),
        ),
    );
    let sc = &m.self_check;
    let agreement = |v: &[super::model::Agreement]| -> Vec<Value> {
        v.iter()
            .map(|a| json!({"group": a.group, "agrees": a.agrees, "disagrees": a.disagrees}))
            .collect()
    };
    data.insert(
        "self_check".into(),
        json!({"agrees": sc.agrees, "disagrees": sc.disagrees, "unchecked": sc.unchecked,
               "by_dead_source": agreement(&sc.by_dead_source), "by_rule_set": agreement(&sc.by_rule_set),
               "by_input": agreement(&sc.by_input),
               "reasons": sc.reasons.iter().map(|(r, n)| json!({"reason": r, "games": n})).collect::<Vec<_>>(),
               "unchecked_reasons": sc.unchecked_reasons.iter().map(|(r, n)| json!({"reason": r, "games": n})).collect::<Vec<_>>()}),
    );
    data.insert(
        "uncertainty".into(),
        Value::Array(
            m.uncertainty
                .iter()
                .map(|u| json!({"comparison": u.comparison, "all": cell_json(&u.all), "certain": cell_json(&u.certain),
                    "bounds": u.bounds.map(|(lo, hi)| json!({"disagreements_low": lo, "disagreements_high": hi})),
                    "doubtful_games": u.doubtful_games, "flips": u.flips}))
                .collect(),
        ),
    );
    data.insert(
        "certainty".into(),
        Value::Array(
            m.certainty
                .iter()
                .map(|(c, n)| json!({"class": c, "games": n}))
                .collect(),
        ),
    );
    data.insert("examples".into(), Value::Array(example_json));
    data.insert("figures".into(), json!(figures));
    data.insert("warnings".into(), json!(m.warnings));
    data.insert("provenance".into(), prov);
    let json_text = serde_json::to_string(&Value::Object(data)).expect("JSON of plain values");
    // Written `<\/` and `\u003c!--` (the same strings in JSON), text can
    // neither close the script nor open a comment.
    let _ = writeln!(
        h,
        "<script type=\"application/json\" id=\"verdict-data\">{}</script></body></html>",
        json_text
            .replace("</", "<\\/")
            .replace("<!--", "\\u003c!--")
    );
    Page {
        html: h,
        rows: m.rows,
        boards,
        warnings: m.warnings.clone(),
    }
}

fn figure(h: &mut String, figures: &mut Vec<String>, id: &str, svg: &str, caption: &str) {
    figures.push(id.to_string());
    let _ = write!(
        h,
        "<figure id=\"{id}\" data-figure=\"{id}\">{svg}<figcaption>{}</figcaption></figure>",
        esc(caption)
    );
}

fn breakdown(
    h: &mut String,
    figures: &mut Vec<String>,
    b: &Breakdown,
    summary_cells: &mut Vec<Value>,
    counted_cells: &mut Vec<Value>,
) {
    let title = dimension_title(&b.dimension);
    let _ = write!(
        h,
        "<h3 id=\"by-{0}\">By {1}</h3>",
        esc(&b.dimension),
        esc(title)
    );
    if b.values.is_empty() || b.panels.is_empty() {
        h.push_str("<p>No scorable game.</p>");
        return;
    }
    let first = &b.panels[0].1;
    let labels: Vec<String> = b
        .values
        .iter()
        .zip(first)
        .map(|(v, r)| match r {
            Some(r) => format!("{v} (n={})", r.scorable),
            None => v.clone(),
        })
        .collect();
    let panels: Vec<Panel> = b
        .panels
        .iter()
        .map(|(name, rates)| Panel {
            title: short_title(name),
            marks: rates.iter().map(|r| r.as_ref().map(mark_of)).collect(),
        })
        .collect();
    let sparse = first.iter().flatten().filter(|r| r.sparse()).count();
    let id = format!("fig-by-{}", b.dimension);
    let desc = format!(
        "Small multiples, one panel per headline comparison, one row per {title}: {} values, {sparse} of them sparse (fewer than {SPARSE} games).",
        b.values.len()
    );
    let mut caption =
        format!("Rates by {title}, 95% intervals; hollow marks are sparse cells (n < {SPARSE}).");
    if b.omitted.0 > 0 {
        let _ = write!(
            caption,
            " {} more values with {} games in all are not drawn (every value is in summary.json).",
            b.omitted.0, b.omitted.1
        );
    }
    if !b.from_summary {
        caption.push_str(" Counted from the rows (summary.json has no such breakdown): marks are the players' own; proven means every chain was decided by Benson or by reading proofs; doubtful chains are those decided at confidence 0.6 or below.");
    }
    figure(
        h,
        figures,
        &id,
        &chart::intervals(
            &id,
            &format!("Rate of games whose winners differ, by {title}"),
            &desc,
            &labels,
            &panels,
            "games whose winners differ",
        ),
        &caption,
    );
    for (_, rates) in &b.panels {
        for r in rates.iter().flatten() {
            if b.from_summary {
                summary_cells.push(cell_json(r));
            } else {
                counted_cells.push(cell_json(r));
            }
        }
    }
}

fn why(h: &mut String, figures: &mut Vec<String>, m: &Model) {
    h.push_str("<section id=\"why\" data-section=\"why\"><h2>4. Why the rule sets disagree</h2><p class=\"words\">Two rule sets of a comparison count the same board, so their margins differ by a fixed amount per game: the 唐宋 edition charges the side that placed more stones, <code>N_B − N_W</code> (with the points an owner must still fill, <code>F_B − F_W</code>, and less the handicap bonus <code>H</code> of the 明清 count); 计活子 does not count basic eyes, <code>E_B − E_W</code>. The winners differ exactly when zero lies between the two margins, that is when the margin falls inside that gap. Each grid counts the games whose margin is near zero, by the gap (columns) and the margin (rows); hatched, outlined cells are games whose winners differ.</p>");
    for sp in &m.splits {
        let pair = Pair::parse(&sp.comparison).map(|p| p.headline().unwrap_or(p));
        let (a, b) = pair
            .map(|p| (RuleSet::ALL[p.a].id(), RuleSet::ALL[p.b].id()))
            .unwrap_or(("a", "b"));
        let gap_label = match Pair::canonical(&sp.comparison).as_str() {
            "jpd_a_vs_jpd_b" => "gap jpd_b − jpd_a = (N_B − N_W) + (F_B − F_W) − H".to_string(),
            "jhz_a_vs_jpd_a" | "jhz_b_vs_jpd_b" => format!("gap {b} − {a} = E_B − E_W"),
            _ => format!("gap {b} − {a}"),
        };
        let id = format!("fig-split-{}", sp.comparison);
        let desc = format!(
            "Grid of game counts. {} of {} scorable games have a {b} margin within ±{} points; {} of the {} games whose winners differ are among them.",
            sp.in_window,
            sp.scorable,
            super::model::MARGIN_WINDOW,
            sp.disagreements_in_window,
            sp.disagreements
        );
        let _ = write!(h, "<h3>{}</h3>", esc(&comparison_title(&sp.comparison)));
        if sp.in_window == 0 {
            h.push_str("<p>No game has a margin near zero.</p>");
            continue;
        }
        figure(
            h,
            figures,
            &id,
            &chart::split(
                &id,
                &format!(
                    "Margins near zero against the gap, {}",
                    comparison_title(&sp.comparison)
                ),
                &desc,
                sp,
                &gap_label,
                &format!("margin under {b} (points)"),
            ),
            &desc,
        );
    }
    if !m.winners.is_empty() {
        let names: Vec<String> = m.winners.iter().map(|w| rule_name(&w.rule_set)).collect();
        let desc = m
            .winners
            .iter()
            .map(|w| {
                let t = (w.black + w.white + w.draw).max(1) as f64;
                format!(
                    "{}: Black {:.1}%, White {:.1}%, draws {:.1}%",
                    w.rule_set,
                    100.0 * w.black as f64 / t,
                    100.0 * w.white as f64 / t,
                    100.0 * w.draw as f64 / t
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        h.push_str("<h3>Winner shares per rule set</h3>");
        figure(
            h,
            figures,
            "fig-winners",
            &chart::winners(
                "fig-winners",
                "Who wins under each rule set",
                &format!("Stacked bars. {desc}."),
                &m.winners,
                &names,
            ),
            "Share of scored games won by Black, by White, or drawn, under each rule set.",
        );
        h.push_str("<table><thead><tr><th>rule set</th><th class=\"n\">Black</th><th class=\"n\">White</th><th class=\"n\">draw</th></tr></thead><tbody>");
        for w in &m.winners {
            let _ = write!(h, "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>", esc(&rule_name(&w.rule_set)), w.black, w.white, w.draw);
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</section>");
}

fn agreement_marks(
    groups: &[super::model::Agreement],
    dimension: &str,
) -> (Vec<String>, Vec<Option<Mark>>) {
    let labels = groups
        .iter()
        .map(|a| format!("{} (n={})", a.group, a.agrees + a.disagrees))
        .collect();
    let marks = groups
        .iter()
        .map(|a| {
            let n = a.agrees + a.disagrees;
            let (lo, hi) = crate::summary::wilson(a.agrees, n);
            Some(Mark {
                n,
                k: a.agrees,
                rate: a.agrees as f64 / n.max(1) as f64,
                lo,
                hi,
                sparse: n < SPARSE,
                attrs: vec![
                    ("dimension", dimension.to_string()),
                    ("value", a.group.clone()),
                ],
            })
        })
        .collect();
    (labels, marks)
}

fn self_check(h: &mut String, figures: &mut Vec<String>, m: &Model) {
    let sc = &m.self_check;
    let _ = write!(
        h,
        "<section id=\"self-check\" data-section=\"self-check\"><h2>5. Self-check against the records' own results</h2><p class=\"words\">A record with a numeric result and rules verdict knows is counted under those rules with its own komi, and the margin compared with the one written in the record. {} games agree, {} disagree, {} could not be checked.</p>",
        sc.agrees, sc.disagrees, sc.unchecked
    );
    for (title, groups, dim) in [
        ("dead-stone source", &sc.by_dead_source, "dead_source"),
        ("rule set of the record", &sc.by_rule_set, "rule_set"),
        ("source (top-level input)", &sc.by_input, "input"),
    ] {
        if groups.is_empty() {
            continue;
        }
        let (labels, marks) = agreement_marks(groups, dim);
        let id = format!("fig-check-{dim}");
        let desc = groups
            .iter()
            .map(|a| {
                format!(
                    "{}: {} of {} agree",
                    a.group,
                    a.agrees,
                    a.agrees + a.disagrees
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        figure(
            h,
            figures,
            &id,
            &chart::intervals(&id, &format!("Self-check agreement by {title}"), &format!("Dot and whisker chart. {desc}."), &labels, &[Panel { title: "agreement".to_string(), marks }], "games whose recorded margin we reproduce"),
            &format!("Share of checked games whose recorded margin verdict reproduces, by {title}, with 95% intervals."),
        );
    }
    if !sc.reasons.is_empty() {
        h.push_str("<h3>Why the misses miss</h3><p class=\"words\">A guess from the size of each difference, for a reader to check: a difference equal to the komi or the handicap points to a convention in the record, one point or less to a dame or a fill, and a settler that left doubtful chains to its dead stones.</p><table><thead><tr><th>likely reason</th><th class=\"n\">games</th></tr></thead><tbody>");
        for (r, n) in &sc.reasons {
            let _ = write!(h, "<tr><td>{}</td><td class=\"n\">{n}</td></tr>", esc(r));
        }
        h.push_str("</tbody></table><table><thead><tr><th>record</th><th>rule set</th><th class=\"n\">recorded</th><th class=\"n\">computed</th><th>likely reason</th></tr></thead><tbody>");
        for miss in &sc.misses {
            let r = m.row(miss.row);
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{:+}</td><td class=\"n\">{:+}</td><td>{}</td></tr>",
                record_link(r),
                esc(&miss.rule_set),
                miss.recorded,
                miss.computed,
                esc(miss.reason)
            );
        }
        h.push_str("</tbody></table>");
        if sc.disagrees as usize > sc.misses.len() {
            let _ = write!(
                h,
                "<p>The first {} of {} misses; <code>verdict check</code> lists all.</p>",
                sc.misses.len(),
                sc.disagrees
            );
        }
    }
    if !sc.unchecked_reasons.is_empty() {
        h.push_str("<table><thead><tr><th>not checked because</th><th class=\"n\">games</th></tr></thead><tbody>");
        for (r, n) in &sc.unchecked_reasons {
            let _ = write!(h, "<tr><td>{}</td><td class=\"n\">{n}</td></tr>", esc(r));
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</section>");
}

fn file_url(path: &str) -> String {
    let p = std::path::Path::new(path);
    let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut url = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            url.push(b as char);
        } else {
            let _ = write!(url, "%{b:02X}");
        }
    }
    url
}

/// A link to a row's record: the file (the archive, for a member) and the
/// game's index, as `verdict score` counts it.
fn record_link(r: &Row) -> String {
    let file = r.source.split_once("!/").map_or(&*r.source, |(a, _)| a);
    format!(
        "<a href=\"{}\" data-source=\"{}\" data-game-index=\"{}\">{}</a> game {}",
        esc(&file_url(file)),
        esc(&r.source),
        r.game_index,
        esc(&r.source),
        r.game_index + 1
    )
}

fn win_str(w: Win) -> &'static str {
    match w {
        Win::B => "Black",
        Win::W => "White",
        Win::Draw => "draw",
    }
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

fn examples(h: &mut String, m: &Model) -> (usize, Vec<Value>) {
    h.push_str("<section id=\"examples\" data-section=\"examples\"><h2>6. Example games</h2><p class=\"words\">For each comparison, a few games whose winners differ (certain settlements first, then in input order), drawn at the end with their dead stones, territory, seki points and the points an owner must still fill, and counted term by term under each rule set. The margins are the rows'; the boards are the records replayed again.</p>");
    for (name, rows) in &m.examples_of {
        let _ = write!(h, "<h3>{}</h3>", esc(&comparison_title(name)));
        let total = m
            .uncertainty
            .iter()
            .find(|u| &u.comparison == name)
            .map_or(0, |u| u.all.disagreements);
        if rows.is_empty() {
            let _ = write!(
                h,
                "<p>No game differs{}.</p>",
                if total > 0 {
                    " among the games drawn"
                } else {
                    ""
                }
            );
            continue;
        }
        let _ = write!(
            h,
            "<p>{} of the {} games whose winners differ: ",
            rows.len(),
            total
        );
        let links: Vec<String> = rows
            .iter()
            .map(|i| {
                format!(
                    "<a href=\"#game-{i}\">{}</a>",
                    esc(&format!(
                        "{} #{}",
                        short_source(&m.row(*i).source),
                        m.row(*i).game_index + 1
                    ))
                )
            })
            .collect();
        h.push_str(&links.join(", "));
        h.push_str(".</p>");
    }
    let mut out = Vec::new();
    let mut boards = 0;
    h.push_str("<div class=\"examples\">");
    for e in &m.examples {
        let r = m.row(e.row);
        let _ = write!(
            h,
            "<article class=\"game\" id=\"game-{}\" data-row=\"{}\"><h4>{}</h4>",
            e.row,
            e.row,
            record_link(r)
        );
        let mut facts = Vec::new();
        if let Some((w, hh)) = r.board {
            facts.push(format!("{w}x{hh}"));
        }
        facts.push(format!("komi {}", num(r.komi.unwrap_or(0.0))));
        if let Some(hc) = r.handicap.filter(|h| *h > 0) {
            facts.push(format!("handicap {hc}"));
        }
        if let Some(ru) = &r.rules {
            facts.push(format!("rules {ru}"));
        }
        if let Some(re) = &r.result {
            facts.push(format!("result {re}"));
        }
        if let (Some(b), Some(w)) = (&r.player_black, &r.player_white) {
            facts.push(format!("{b} (B) vs {w} (W)"));
        }
        facts.push(format!(
            "dead stones: {}{}",
            r.dead_source.as_deref().unwrap_or("?"),
            if r.certain() {
                ", certain"
            } else {
                ", not certain"
            }
        ));
        let _ = write!(
            h,
            "<p>{}. Example of: {}.</p>",
            esc(&facts.join(", ")),
            esc(&e
                .comparisons
                .iter()
                .map(|c| short_title(c))
                .collect::<Vec<_>>()
                .join("; "))
        );
        h.push_str("<div class=\"gamebody\">");
        let drawn = records::draw(r);
        match &drawn {
            Ok(d) => {
                boards += 1;
                let title = format!("Final position of {} game {}", r.source, r.game_index + 1);
                h.push_str(&board_svg(
                    &BoardView {
                        size: d.size,
                        states: &d.states,
                        doubtful: &d.doubtful,
                        title,
                    },
                    &format!("board-{}", e.row),
                    false,
                ));
                if !d.mismatches.is_empty() {
                    let _ = write!(h, "<p class=\"warn\">The record counted again gives other margins under {}: it changed since the run, or another verdict version counts it.</p>", esc(&d.mismatches.join(", ")));
                }
            }
            Err(why) => {
                let _ = write!(h, "<p class=\"warn\">Board not drawn: {}.</p>", esc(why));
            }
        }
        h.push_str("<table class=\"terms\"><thead><tr><th>rule set</th><th>count</th><th class=\"n\">margin</th><th>winner</th></tr></thead><tbody>");
        let mut terms_json = Vec::new();
        for t in &e.terms {
            let symbols: Vec<String> = t
                .terms
                .iter()
                .enumerate()
                .map(|(i, (s, _))| {
                    if i > 0 && s.contains('−') {
                        format!("({s})")
                    } else {
                        s.to_string()
                    }
                })
                .collect();
            let values: Vec<String> = t
                .terms
                .iter()
                .map(|(_, v)| {
                    if *v < 0.0 {
                        format!("({})", num(*v))
                    } else {
                        num(*v)
                    }
                })
                .collect();
            let _ = write!(
                h,
                "<tr data-rule-set=\"{}\"><td>{}</td><td>{} = {} = {}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                esc(&t.rule_set),
                esc(&rule_name(&t.rule_set)),
                esc(&symbols.join(" − ")),
                esc(&values.join(" − ")),
                num(t.total()),
                num(t.margin),
                win_str(t.winner)
            );
            terms_json.push(json!({"rule_set": t.rule_set, "terms": t.terms.iter().map(|(s, v)| json!([s, v])).collect::<Vec<_>>(), "margin": t.margin, "winner": win_str(t.winner)}));
        }
        h.push_str("</tbody></table></div></article>");
        out.push(
            json!({"source": &*r.source, "game_index": r.game_index, "comparisons": e.comparisons,
            "drawn": drawn.is_ok(), "terms": terms_json, "consistent": e.consistent}),
        );
    }
    h.push_str("</div>");
    if m.examples.is_empty() {
        h.push_str("<p>No example: no compared rule sets name different winners in this run.</p>");
    }
    h.push_str("</section>");
    (boards, out)
}

fn short_source(s: &str) -> &str {
    s.rsplit(['/', '\\']).next().unwrap_or(s)
}

fn bound_rates(u: &Uncertainty) -> Option<(f64, f64)> {
    let n = u.all.scorable.max(1) as f64;
    u.bounds.map(|(lo, hi)| (lo as f64 / n, hi as f64 / n))
}

fn uncertainty(h: &mut String, m: &Model) {
    h.push_str("<section id=\"uncertainty\" data-section=\"uncertainty\"><h2>7. How much the answer depends on the settler</h2>");
    let total: u64 = m.certainty.iter().map(|c| c.1).sum();
    let _ = write!(h, "<p class=\"words\">Dead stones come from the players' marks, or from verdict's settler. A settlement is <em>certain</em> when every chain was proven (Benson's pass-alive test, or read out by force); otherwise some chains are guesses, and those decided at confidence 0.6 or below are <em>doubtful</em>. Of {total} scored games: ");
    let parts: Vec<String> = m
        .certainty
        .iter()
        .filter(|c| c.1 > 0)
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    let _ = write!(h, "{}.</p>", esc(&parts.join(", ")));
    h.push_str("<table><thead><tr><th>comparison</th><th>all scorable games</th><th>certain settlements only</th><th>if every doubtful chain went the other way</th></tr></thead><tbody>");
    for u in &m.uncertainty {
        let bounds = match bound_rates(u) {
            Some((lo, hi)) => format!(
                "{} to {} ({} of {} games with doubtful chains change)",
                pct(lo),
                pct(hi),
                u.flips,
                u.doubtful_games
            ),
            None => "not available (rows before schema 4)".to_string(),
        };
        let _ = write!(
            h,
            "<tr data-comparison=\"{}\"><td>{}</td><td>{} [{}, {}] of {}</td><td>{} [{}, {}] of {}</td><td>{}</td></tr>",
            esc(&u.comparison),
            esc(&comparison_title(&u.comparison)),
            pct(u.all.rate), pct(u.all.lo), pct(u.all.hi), u.all.scorable,
            pct(u.certain.rate), pct(u.certain.lo), pct(u.certain.hi), u.certain.scorable,
            esc(&bounds)
        );
    }
    h.push_str("</tbody></table><div class=\"words\" id=\"uncertainty-words\">");
    for u in m
        .uncertainty
        .iter()
        .filter(|u| Pair::parse(&u.comparison).is_some_and(Pair::is_headline))
    {
        let _ = write!(
            h,
            "<p><strong>{}.</strong> ",
            esc(&comparison_title(&u.comparison))
        );
        let share = u.certain.scorable as f64 / u.all.scorable.max(1) as f64;
        let _ = write!(h, "Winners differ in {} of {} games ({}). {} of the games ({:.0}%) have certain dead stones, ", u.all.disagreements, u.all.scorable, pct(u.all.rate), u.certain.scorable, 100.0 * share);
        if u.certain.scorable == 0 {
            h.push_str("so no rate rests on proofs alone. ");
        } else {
            let _ = write!(
                h,
                "and on those alone the rate is {} (95% interval {} to {}). ",
                pct(u.certain.rate),
                pct(u.certain.lo),
                pct(u.certain.hi)
            );
        }
        match bound_rates(u) {
            Some((lo, hi)) => {
                let half = (u.all.hi - u.all.lo) / 2.0;
                let moved = (u.all.rate - lo).max(hi - u.all.rate);
                let verdict = if moved == 0.0 {
                    "the settler's doubts cannot change it at all"
                } else if moved < half / 2.0 {
                    "small beside the sampling error"
                } else if moved <= half {
                    "about as large as the sampling error"
                } else {
                    "larger than the sampling error: lean on the certain-only rate"
                };
                let _ = write!(h, "Deciding every doubtful chain the other way would change {} of the {} games that have any, so the rate lies between {} and {}: the settler moves it by at most {:.2} percentage points, {verdict}.</p>", u.flips, u.doubtful_games, pct(lo), pct(hi), 100.0 * moved);
            }
            None => h.push_str("Bounds need the flipped margins of schema 4.</p>"),
        }
    }
    h.push_str("</div></section>");
}

fn provenance(
    h: &mut String,
    run: &RunData,
    m: &Model,
    options: &ReportOptions,
    now: &str,
) -> Value {
    let s = &run.summary;
    let mut items: Vec<(String, String)> = vec![
        (
            "verdict".into(),
            format!(
                "{} (this report); rows written with schema {}, summary schema {}",
                env!("CARGO_PKG_VERSION"),
                run.parts_schema.as_deref().unwrap_or("?"),
                if s.schema_version.is_empty() {
                    "?"
                } else {
                    &s.schema_version
                }
            ),
        ),
        ("output folder".into(), run.out.display().to_string()),
        (
            "games".into(),
            format!(
                "{} in {} part files; {}",
                s.games,
                run.parts.len(),
                s.rows_by_status
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
    ];
    if !s.skip_reasons.is_empty() {
        items.push((
            "skipped because".into(),
            s.skip_reasons
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    let mut inputs: Vec<String> = m
        .inputs
        .iter()
        .take(20)
        .map(|(i, n)| format!("{i} ({n} games)"))
        .collect();
    if m.inputs.len() > 20 {
        inputs.push(format!("and {} more", m.inputs.len() - 20));
    }
    items.push(("inputs".into(), inputs.join("; ")));
    if let Some(info) = &options.run {
        items.push(("command".into(), info.command.clone()));
        for (k, v) in &info.options {
            items.push((format!("option {k}"), v.clone()));
        }
        items.push((
            "run time".into(),
            format!("{:.1} s", info.elapsed.as_secs_f64()),
        ));
    } else {
        // Inferred from what the run wrote.
        items.push((
            "rule sets scored".into(),
            m.rule_sets
                .iter()
                .map(|i| RuleSet::ALL[*i].id())
                .collect::<Vec<_>>()
                .join(", "),
        ));
        items.push((
            "comparisons".into(),
            format!(
                "{}{}",
                m.headline.len(),
                if m.headline.len() > 3 {
                    " (all pairs)"
                } else {
                    ""
                }
            ),
        ));
        let sweep: Vec<String> = m
            .sweep
            .first()
            .map(|s| s.points.iter().map(|p| p.0.to_string()).collect())
            .unwrap_or_default();
        items.push((
            "komi sweep".into(),
            if sweep.is_empty() {
                "none".into()
            } else {
                sweep.join(", ")
            },
        ));
        items.push((
            "unfinished games scored as estimates".into(),
            if s.rows_by_status.contains_key("estimated") {
                "yes".into()
            } else {
                "no".into()
            },
        ));
        items.push((
            "records' results used to settle".into(),
            if m.settled_with_result {
                "yes (some games settled_result)".into()
            } else {
                "by no game".into()
            },
        ));
    }
    if let Some(t) = s.written {
        items.push(("run finished".into(), super::utc(t)));
    }
    items.push(("report written".into(), now.to_string()));
    h.push_str("<section id=\"provenance\" data-section=\"provenance\"><h2>8. Provenance</h2><dl class=\"prov\">");
    for (k, v) in &items {
        let _ = write!(h, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    h.push_str("</dl><p class=\"words\">Every number on this page is in the JSON block at its end (<code>#verdict-data</code>); the rates of the summary's cells equal <code>summary.json</code>, the rest are counted from <code>games/*.parquet</code>.</p></section>");
    Value::Object(
        items
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect(),
    )
}
