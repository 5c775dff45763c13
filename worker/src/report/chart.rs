//! The report's charts, as small hand-written SVG.
//!
//! Every chart is an `<svg role="img">` with a `<title>` and a `<desc>` (its
//! alt text), labelled axes, and marks that carry their numbers as `data-*`
//! attributes (the browser test and the summary test read them back). Only
//! black, white and greys, told apart by fill, hatching, dashes and marker
//! shapes, so a greyscale print loses nothing.

use std::fmt::Write as _;

use super::model::{Split, Sweep, Winners};

/// Escapes text for HTML and SVG, content and attributes alike.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A rate as a percentage, two decimals.
pub fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// The opening of a chart: `<svg>` with its title and description.
fn open(id: &str, w: f64, h: f64, title: &str, desc: &str, kind: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"{kind}\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>",
        esc(title),
        esc(desc)
    )
}

/// A round upper end for an axis holding `max` (a fraction).
fn nice_max(max: f64) -> f64 {
    let max = max.max(0.001);
    let mag = 10f64.powf(max.log10().floor());
    for step in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if step * mag >= max {
            return step * mag;
        }
    }
    10.0 * mag
}

/// One mark of an interval chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub n: u64,
    pub k: u64,
    pub rate: f64,
    pub lo: f64,
    pub hi: f64,
    pub sparse: bool,
    /// `data-*` attributes: what the mark is (comparison, dimension, value).
    pub attrs: Vec<(&'static str, String)>,
}

/// A panel of an interval chart: its title and one mark (or none) per row.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub title: String,
    pub marks: Vec<Option<Mark>>,
}

/// Rates with 95% intervals as dots and whiskers, one row per label, one
/// panel per comparison side by side on a shared axis (small multiples).
/// Sparse marks are hollow with a dashed whisker.
pub fn intervals(
    id: &str,
    title: &str,
    desc: &str,
    labels: &[String],
    panels: &[Panel],
    x_label: &str,
) -> String {
    // Wide enough for the longest label (CJK characters are twice as wide).
    let widest = labels
        .iter()
        .map(|l| {
            l.chars()
                .map(|c| if c.is_ascii() { 6.6 } else { 12.5 })
                .sum::<f64>()
        })
        .fold(60.0, f64::max);
    let label_w = widest + 16.0;
    let panel_w = 230.0;
    let gap = 40.0;
    let row_h = 20.0;
    let top = 40.0;
    let bottom = 46.0;
    let w = label_w + panels.len() as f64 * (panel_w + gap);
    let h = top + labels.len().max(1) as f64 * row_h + bottom;
    let max = panels
        .iter()
        .flat_map(|p| p.marks.iter().flatten())
        .map(|m| m.hi)
        .fold(0.0, f64::max);
    let max = nice_max(max);
    let ticks = ticks_of(max);
    let mut s = open(id, w, h, title, desc, "intervals");
    // Bands first, labels over them.
    for i in (1..labels.len()).step_by(2) {
        let y = top + i as f64 * row_h;
        let _ = write!(
            s,
            "<rect class=\"band\" x=\"0\" y=\"{y:.1}\" width=\"{w:.0}\" height=\"{row_h}\"/>"
        );
    }
    for (i, label) in labels.iter().enumerate() {
        let y = top + (i as f64 + 0.5) * row_h;
        let _ = write!(
            s,
            "<text class=\"lab\" x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
            label_w - 8.0,
            y,
            esc(label)
        );
    }
    for (p, panel) in panels.iter().enumerate() {
        let x0 = label_w + p as f64 * (panel_w + gap);
        let x = |v: f64| x0 + v / max * panel_w;
        let _ = write!(
            s,
            "<text class=\"ptitle\" x=\"{:.1}\" y=\"16\" text-anchor=\"middle\">{}</text>",
            x0 + panel_w / 2.0,
            esc(&panel.title)
        );
        // Axis, gridlines and ticks.
        let y_axis = top + labels.len().max(1) as f64 * row_h;
        for t in 0..=ticks {
            let v = max * f64::from(t) / f64::from(ticks);
            let _ = write!(
                s,
                "<line class=\"grid\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.0}\" y2=\"{2:.1}\"/><text class=\"tick\" x=\"{0:.1}\" y=\"{3:.1}\" text-anchor=\"middle\">{4}</text>",
                x(v),
                top - 6.0,
                y_axis,
                y_axis + 14.0,
                tick_pct(v, max)
            );
        }
        let _ = write!(
            s,
            "<line class=\"axis\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y_axis:.1}\" y2=\"{y_axis:.1}\"/><text class=\"axlab\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x0,
            x0 + panel_w,
            x0 + panel_w / 2.0,
            y_axis + 32.0,
            esc(x_label)
        );
        for (i, mark) in panel.marks.iter().enumerate() {
            let y = top + (i as f64 + 0.5) * row_h;
            let Some(m) = mark else {
                let _ = write!(
                    s,
                    "<text class=\"note\" x=\"{:.1}\" y=\"{y:.1}\" dominant-baseline=\"middle\">no games</text>",
                    x0 + 4.0
                );
                continue;
            };
            let cls = if m.sparse { "mark sparse" } else { "mark" };
            let _ = write!(s, "<g class=\"{cls}\"");
            for (k, v) in &m.attrs {
                let _ = write!(s, " data-{k}=\"{}\"", esc(v));
            }
            let _ = write!(
                s,
                " data-n=\"{}\" data-k=\"{}\" data-rate=\"{}\" data-lo=\"{}\" data-hi=\"{}\"><title>{}</title>",
                m.n,
                m.k,
                m.rate,
                m.lo,
                m.hi,
                esc(&format!(
                    "{} of {}: {} [{}, {}]{}",
                    m.k,
                    m.n,
                    pct(m.rate),
                    pct(m.lo),
                    pct(m.hi),
                    if m.sparse { " (sparse)" } else { "" }
                ))
            );
            let _ = write!(
                s,
                "<line class=\"whisker\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><line class=\"whisker\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{2:.1}\" y2=\"{3:.1}\"/><line class=\"whisker\" x1=\"{1:.1}\" x2=\"{1:.1}\" y1=\"{2:.1}\" y2=\"{3:.1}\"/><circle class=\"dot\" cx=\"{4:.1}\" cy=\"{y:.1}\" r=\"4\"/>",
                x(m.lo),
                x(m.hi),
                y - 4.0,
                y + 4.0,
                x(m.rate)
            );
            if m.sparse {
                // Right of the whisker, or left of it when it reaches the edge.
                let (nx, anchor) = if x(m.hi) + 76.0 <= x0 + panel_w + gap - 4.0 {
                    (x(m.hi) + 6.0, "start")
                } else {
                    (x(m.lo) - 6.0, "end")
                };
                let _ = write!(
                    s,
                    "<text class=\"note\" x=\"{nx:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" dominant-baseline=\"middle\">sparse, n={}</text>",
                    m.n
                );
            }
            s.push_str("</g>");
        }
    }
    s.push_str("</svg>");
    s
}

/// Intervals of an axis ending at a [`nice_max`] value, so every tick is a
/// round number (2.5% in fifths, 2% in quarters).
fn ticks_of(max: f64) -> u32 {
    let lead = max / 10f64.powf(max.log10().floor());
    if (lead - 2.0).abs() < 1e-9 {
        4
    } else {
        5
    }
}

fn tick_pct(v: f64, max: f64) -> String {
    // Ticks are fifths or quarters of the maximum: as many decimals as they need.
    let step = 100.0 * max / 5.0;
    let decimals = if step >= 1.0 - 1e-9 {
        0
    } else if step >= 0.1 - 1e-9 {
        1
    } else {
        2
    };
    let x = 100.0 * v;
    let text = format!("{x:.decimals$}%");
    // 0.5% steps of a 2% axis need their one decimal.
    if (x - x.round()).abs() > 1e-9 && decimals == 0 {
        format!("{x:.1}%")
    } else {
        text
    }
}

/// Fills of the bands and dash patterns of the lines, per series.
const DASHES: [&str; 3] = ["", "7 4", "2 3"];
const BAND_FILLS: [&str; 3] = ["#bdbdbd", "url(#ID-h)", "url(#ID-d)"];

/// Hatching and dots for bands and cells, unique to one chart.
fn patterns(id: &str) -> String {
    format!(
        "<defs><pattern id=\"{id}-h\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#555\" stroke-width=\"1.5\"/></pattern><pattern id=\"{id}-d\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\"><circle cx=\"2.5\" cy=\"2.5\" r=\"1\" fill=\"#555\"/></pattern></defs>"
    )
}

/// Rate against komi, one line per comparison with its 95% band.
pub fn sweep(id: &str, title: &str, desc: &str, series: &[Sweep], names: &[String]) -> String {
    let (w, h) = (720.0, 360.0);
    let (left, right, top, bottom) = (64.0, 200.0, 24.0, 52.0);
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let (x_min, x_max) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let span = if x_max > x_min { x_max - x_min } else { 1.0 };
    let y_max = nice_max(
        series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1.hi))
            .fold(0.0, f64::max),
    );
    let pw = w - left - right;
    let ph = h - top - bottom;
    let x = |v: f64| left + (v - x_min) / span * pw;
    let y = |v: f64| top + ph - v / y_max * ph;
    let mut s = open(id, w, h, title, desc, "sweep");
    s.push_str(&patterns(id));
    let y_ticks = ticks_of(y_max);
    for t in 0..=y_ticks {
        let v = y_max * f64::from(t) / f64::from(y_ticks);
        let _ = write!(
            s,
            "<line class=\"grid\" x1=\"{left}\" x2=\"{x2:.1}\" y1=\"{yv:.1}\" y2=\"{yv:.1}\"/><text class=\"tick\" x=\"{tx:.1}\" y=\"{yv:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">{label}</text>",
            x2 = left + pw,
            yv = y(v),
            tx = left - 6.0,
            label = tick_pct(v, y_max)
        );
    }
    let mut ticks: Vec<f64> = xs.clone();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    let every = ticks.len().div_ceil(10).max(1);
    for t in ticks.iter().step_by(every) {
        let _ = write!(
            s,
            "<line class=\"grid\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{top}\" y2=\"{1:.1}\"/><text class=\"tick\" x=\"{0:.1}\" y=\"{2:.1}\" text-anchor=\"middle\">{3}</text>",
            x(*t),
            top + ph,
            top + ph + 14.0,
            t
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{left}\" x2=\"{x2:.1}\" y1=\"{ya:.1}\" y2=\"{ya:.1}\"/><line class=\"axis\" x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{ya:.1}\"/><text class=\"axlab\" x=\"{xm:.1}\" y=\"{yl:.1}\" text-anchor=\"middle\">komi (points)</text><text class=\"axlab\" transform=\"translate(16 {ym:.1}) rotate(-90)\" text-anchor=\"middle\">rate of games whose winners differ</text>",
        x2 = left + pw,
        ya = top + ph,
        xm = left + pw / 2.0,
        yl = h - 12.0,
        ym = top + ph / 2.0
    );
    for (k, sw) in series.iter().enumerate() {
        let fill = BAND_FILLS[k % 3].replace("ID", id);
        let mut band: Vec<String> = sw
            .points
            .iter()
            .map(|(kx, r)| format!("{:.1},{:.1}", x(*kx), y(r.hi)))
            .collect();
        band.extend(
            sw.points
                .iter()
                .rev()
                .map(|(kx, r)| format!("{:.1},{:.1}", x(*kx), y(r.lo))),
        );
        let _ = write!(
            s,
            "<polygon class=\"cband\" points=\"{}\" fill=\"{fill}\" fill-opacity=\"0.45\"/>",
            band.join(" ")
        );
    }
    for (k, sw) in series.iter().enumerate() {
        let line: Vec<String> = sw
            .points
            .iter()
            .map(|(kx, r)| format!("{:.1},{:.1}", x(*kx), y(r.rate)))
            .collect();
        let _ = write!(
            s,
            "<polyline class=\"cline\" points=\"{}\" stroke-dasharray=\"{}\"/>",
            line.join(" "),
            DASHES[k % 3]
        );
        for (kx, r) in &sw.points {
            let _ = write!(
                s,
                "<g class=\"mark\" data-comparison=\"{}\" data-dimension=\"komi_sweep\" data-value=\"{}\" data-n=\"{}\" data-k=\"{}\" data-rate=\"{}\" data-lo=\"{}\" data-hi=\"{}\"><title>{}</title>{}</g>",
                esc(&sw.comparison),
                esc(&r.value),
                r.scorable,
                r.disagreements,
                r.rate,
                r.lo,
                r.hi,
                esc(&format!("komi {kx}: {} [{}, {}]", pct(r.rate), pct(r.lo), pct(r.hi))),
                marker(k, x(*kx), y(r.rate))
            );
        }
        // Legend.
        let ly = top + 10.0 + k as f64 * 40.0;
        let lx = left + pw + 16.0;
        let _ = write!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"34\" height=\"14\" fill=\"{}\" fill-opacity=\"0.45\" stroke=\"#999\"/><line class=\"cline\" x1=\"{lx:.1}\" x2=\"{:.1}\" y1=\"{ly:.1}\" y2=\"{ly:.1}\" stroke-dasharray=\"{}\"/>{}<text class=\"lab\" x=\"{:.1}\" y=\"{ly:.1}\" dominant-baseline=\"middle\">{}</text>",
            ly - 7.0,
            BAND_FILLS[k % 3].replace("ID", id),
            lx + 34.0,
            DASHES[k % 3],
            marker(k, lx + 17.0, ly),
            lx + 42.0,
            esc(names.get(k).map_or(&sw.comparison, |n| n))
        );
    }
    s.push_str("</svg>");
    s
}

/// Circle, square, triangle: told apart without colour.
fn marker(k: usize, x: f64, y: f64) -> String {
    match k % 3 {
        0 => format!("<circle class=\"dot\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\"/>"),
        1 => format!(
            "<rect class=\"dot\" x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\"/>",
            x - 4.0,
            y - 4.0
        ),
        _ => format!(
            "<polygon class=\"dot\" points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\"/>",
            x,
            y - 5.0,
            x - 5.0,
            y + 4.0,
            x + 5.0,
            y + 4.0
        ),
    }
}

/// Games near zero by the gap between two margins (columns) and the
/// second margin (rows): shaded by games, hatched and outlined where the
/// winners differ.
pub fn split(
    id: &str,
    title: &str,
    desc: &str,
    sp: &Split,
    x_label: &str,
    y_label: &str,
) -> String {
    let (cw, ch) = (40.0, 15.0);
    let (left, top, bottom) = (70.0, 16.0, 50.0);
    let w = left + sp.gaps.len().max(1) as f64 * cw + 20.0;
    let h = top + sp.margins.len().max(1) as f64 * ch + bottom;
    let max = sp
        .cells
        .iter()
        .flatten()
        .map(|c| c.0)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut s = open(id, w, h, title, desc, "split");
    s.push_str(&patterns(id));
    for (r, m) in sp.margins.iter().enumerate() {
        let y = top + r as f64 * ch;
        if sp.margins.len() <= 20 || r % 2 == 0 || *m == 0.0 {
            let _ = write!(
                s,
                "<text class=\"tick\" x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
                left - 6.0,
                y + ch / 2.0,
                signed(*m)
            );
        }
        for (c, g) in sp.gaps.iter().enumerate() {
            let (games, differ) = sp.cells[r][c];
            if games == 0 {
                continue;
            }
            let x = left + c as f64 * cw;
            // Light to dark by the log of the count.
            let t = ((games as f64).ln_1p() / max.ln_1p()).clamp(0.0, 1.0);
            let grey = (235.0 - t * 150.0) as u8;
            let _ = write!(
                s,
                "<g class=\"cell{}\" data-gap=\"{g}\" data-margin=\"{m}\" data-games=\"{games}\" data-differ=\"{differ}\"><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cw}\" height=\"{ch}\" fill=\"rgb({grey},{grey},{grey})\"/>",
                if differ > 0 { " differ" } else { "" },
                esc(&format!("margin {m}, gap {g}: {games} games, {differ} with different winners"))
            );
            if differ > 0 {
                let _ = write!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"url(#{id}-h)\" stroke=\"#000\" stroke-width=\"2\"/>",
                    x + 1.0,
                    y + 1.0,
                    cw - 2.0,
                    ch - 2.0
                );
            }
            let _ = write!(
                s,
                "<text class=\"count{}\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{games}</text></g>",
                if grey < 150 { " inv" } else { "" },
                x + cw / 2.0,
                y + ch / 2.0
            );
        }
    }
    let y_axis = top + sp.margins.len().max(1) as f64 * ch;
    for (c, g) in sp.gaps.iter().enumerate() {
        let label = if *g == super::model::MAX_GAP {
            format!("≥{g}")
        } else if *g == -super::model::MAX_GAP {
            format!("≤{g}")
        } else {
            g.to_string()
        };
        let _ = write!(
            s,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            left + (c as f64 + 0.5) * cw,
            y_axis + 14.0,
            esc(&label)
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{left}\" x2=\"{:.1}\" y1=\"{y_axis:.1}\" y2=\"{y_axis:.1}\"/><text class=\"axlab\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text class=\"axlab\" transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        left + sp.gaps.len() as f64 * cw,
        left + sp.gaps.len() as f64 * cw / 2.0,
        y_axis + 34.0,
        esc(x_label),
        top + (y_axis - top) / 2.0,
        esc(y_label)
    );
    s.push_str("</svg>");
    s
}

fn signed(m: f64) -> String {
    if m > 0.0 {
        format!("+{m}")
    } else {
        format!("{m}")
    }
}

/// Winner shares per rule set: Black solid dark, White white, draws hatched.
pub fn winners(id: &str, title: &str, desc: &str, rows: &[Winners], names: &[String]) -> String {
    let (left, bar_w, row_h, top) = (190.0, 460.0, 22.0, 28.0);
    let w = left + bar_w + 30.0;
    let h = top + rows.len() as f64 * row_h + 50.0;
    let mut s = open(id, w, h, title, desc, "winners");
    s.push_str(&patterns(id));
    // Legend.
    let mut lx = left;
    for (cls, fill, label) in [
        ("wb", "#222", "Black wins"),
        ("ww", "#fff", "White wins"),
        ("wd", "url(#ID-h)", "draw"),
    ] {
        let _ = write!(
            s,
            "<rect class=\"{cls}\" x=\"{lx:.0}\" y=\"4\" width=\"14\" height=\"12\" fill=\"{}\" stroke=\"#222\"/><text class=\"lab\" x=\"{:.0}\" y=\"10\" dominant-baseline=\"middle\">{label}</text>",
            fill.replace("ID", id),
            lx + 18.0
        );
        lx += 110.0;
    }
    for (i, r) in rows.iter().enumerate() {
        let y = top + i as f64 * row_h;
        let total = (r.black + r.white + r.draw).max(1) as f64;
        let _ = write!(
            s,
            "<text class=\"lab\" x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text><g class=\"mark\" data-rule-set=\"{}\" data-black=\"{}\" data-white=\"{}\" data-draw=\"{}\">",
            left - 8.0,
            y + row_h / 2.0 - 2.0,
            esc(names.get(i).map_or(&r.rule_set, |n| n)),
            esc(&r.rule_set),
            r.black,
            r.white,
            r.draw
        );
        let mut x = left;
        for (n, fill, text) in [
            (r.black, "#222".to_string(), " inv"),
            (r.white, "#fff".to_string(), ""),
            (r.draw, format!("url(#{id}-h)"), ""),
        ] {
            let bw = n as f64 / total * bar_w;
            if n == 0 {
                continue;
            }
            let _ = write!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{bw:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"#222\"/>",
                y + 2.0,
                row_h - 6.0
            );
            if bw > 44.0 {
                let _ = write!(
                    s,
                    "<text class=\"count{text}\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{:.1}%</text>",
                    x + bw / 2.0,
                    y + row_h / 2.0 - 1.0,
                    100.0 * n as f64 / total
                );
            }
            x += bw;
        }
        s.push_str("</g>");
    }
    let y_axis = top + rows.len() as f64 * row_h;
    for t in 0..=4 {
        let x = left + bar_w * f64::from(t) / 4.0;
        let _ = write!(
            s,
            "<text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}%</text>",
            y_axis + 12.0,
            25 * t
        );
    }
    let _ = write!(
        s,
        "<text class=\"axlab\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">share of scored games</text></svg>",
        left + bar_w / 2.0,
        y_axis + 34.0
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_attributes_and_content() {
        assert_eq!(
            esc("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
    }

    #[test]
    fn axes_end_on_round_numbers_above_the_data() {
        assert_eq!(nice_max(0.031), 0.05);
        assert_eq!(nice_max(0.2), 0.2);
        assert_eq!(nice_max(0.21), 0.25);
        assert!(nice_max(0.0) > 0.0);
        // Ticks are round: fifths of 2.5% and 5%, quarters of 2%.
        assert_eq!(ticks_of(0.025), 5);
        assert_eq!(ticks_of(0.05), 5);
        assert_eq!(ticks_of(0.02), 4);
        assert_eq!(tick_pct(0.005, 0.025), "0.5%");
        assert_eq!(tick_pct(0.01, 0.05), "1%");
        assert_eq!(tick_pct(0.015, 0.02), "1.5%");
    }

    #[test]
    fn sparse_marks_say_so_and_carry_their_numbers() {
        let mark = |n, sparse| Mark {
            n,
            k: 1,
            rate: 1.0 / n as f64,
            lo: 0.0,
            hi: 0.5,
            sparse,
            attrs: vec![("value", "9x9".to_string())],
        };
        let svg = intervals(
            "f1",
            "title",
            "alt text",
            &["9x9".to_string(), "19x19".to_string()],
            &[Panel {
                title: "p".to_string(),
                marks: vec![Some(mark(12, true)), None],
            }],
            "rate",
        );
        assert!(svg.contains("<title id=\"f1-t\">title</title>"));
        assert!(svg.contains("<desc id=\"f1-d\">alt text</desc>"));
        assert!(svg.contains("class=\"mark sparse\" data-value=\"9x9\" data-n=\"12\""));
        assert!(svg.contains("sparse, n=12"));
        assert!(svg.contains("no games"));
    }
}
