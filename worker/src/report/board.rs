//! A counted final position drawn as SVG: the board of `verdict score
//! --svg` and of the report's examples.
//!
//! Only black, white and greys, and shapes that say what a point is
//! (squares for territory, diamonds for seki eyes, triangles for seki
//! liberties, rings for points to fill, crosses on dead stones), so a
//! greyscale print shows everything.

use std::fmt::Write as _;

use verdict_rules::score::PointState;
use verdict_rules::{BoardSize, Color, Point};

use super::chart::esc;

/// Point pitch in SVG units.
const P: f64 = 22.0;
const MARGIN: f64 = 26.0;

/// The styles a board needs; the report puts them in its stylesheet once,
/// a standalone SVG carries its own.
pub const BOARD_CSS: &str = ".bd-bg{fill:#e8e2d0}.bd-grid{stroke:#444;stroke-width:.8;fill:none}.bd-coord{font:10px sans-serif;fill:#333}.bd-b{fill:#111;stroke:#000}.bd-w{fill:#fff;stroke:#111;stroke-width:1.2}.bd-dead{opacity:.45}.bd-x{stroke:#000;stroke-width:1.8}.bd-xw{stroke:#fff;stroke-width:1.8}.bd-tb{fill:#111}.bd-tw{fill:#fff;stroke:#111;stroke-width:1}.bd-seki{fill:none;stroke:#111;stroke-width:1.2}.bd-fill{fill:none;stroke-width:1.6}.bd-doubt{fill:none;stroke:#000;stroke-width:1.4;stroke-dasharray:3 2}.bd-key{font:11px sans-serif;fill:#111}";

/// What is drawn: a board of `size`, each point's state row by row from the
/// top, and the stones of chains the settler was unsure of (dashed rings).
#[derive(Clone, Debug)]
pub struct BoardView<'a> {
    pub size: BoardSize,
    pub states: &'a [PointState],
    pub doubtful: &'a [Point],
    /// The title (also the SVG's accessible name).
    pub title: String,
}

/// Counts of what the drawing shows, for its description.
fn describe(view: &BoardView<'_>) -> String {
    let mut stones = [0; 2];
    let mut dead = [0; 2];
    let mut terr = [0; 2];
    let (mut seki, mut fills) = (0, 0);
    for s in view.states {
        match s {
            PointState::Stone(c) => stones[c.index()] += 1,
            PointState::Dead(c) => dead[c.index()] += 1,
            PointState::Territory(c) => terr[c.index()] += 1,
            PointState::SekiEye(_) | PointState::SekiLiberty => seki += 1,
            PointState::Fill(_) => fills += 1,
            PointState::Dame => {}
        }
    }
    format!(
        "{} board: {} black and {} white stones alive, {} black and {} white dead; territory {} black, {} white; {} seki points; {} points to fill; {} stones in doubtful chains.",
        view.size,
        stones[0],
        stones[1],
        dead[0],
        dead[1],
        terr[0],
        terr[1],
        seki,
        fills,
        view.doubtful.len()
    )
}

/// The board as an SVG element; `standalone` adds the XML namespace and
/// the styles, for a file of its own.
pub fn board_svg(view: &BoardView<'_>, id: &str, standalone: bool) -> String {
    let (w, h) = (
        usize::from(view.size.width()),
        usize::from(view.size.height()),
    );
    let bw = 2.0 * MARGIN + (w.max(1) - 1) as f64 * P;
    let bh = 2.0 * MARGIN + (h.max(1) - 1) as f64 * P;
    let key_h = 44.0;
    let mut s = String::with_capacity(16 * 1024);
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board\" data-board=\"{}\" viewBox=\"0 0 {bw:.0} {:.0}\" width=\"{bw:.0}\" height=\"{:.0}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>",
        view.size,
        bh + key_h,
        bh + key_h,
        esc(&view.title),
        esc(&describe(view))
    );
    if standalone {
        let _ = write!(s, "<style>{BOARD_CSS}</style>");
    }
    let _ = write!(
        s,
        "<rect class=\"bd-bg\" x=\"0\" y=\"0\" width=\"{bw:.0}\" height=\"{bh:.0}\"/>"
    );
    let px = |x: usize| MARGIN + x as f64 * P;
    // The grid as one path.
    let mut d = String::new();
    for x in 0..w {
        let _ = write!(
            d,
            "M{:.0} {:.0}V{:.0}",
            px(x),
            px(0),
            MARGIN + (h - 1) as f64 * P
        );
    }
    for y in 0..h {
        let _ = write!(
            d,
            "M{:.0} {:.0}H{:.0}",
            px(0),
            px(y),
            MARGIN + (w - 1) as f64 * P
        );
    }
    let _ = write!(s, "<path class=\"bd-grid\" d=\"{d}\"/>");
    // Coordinates: GTP letters (no I) along the top, rows counted from the bottom.
    for x in 0..w {
        let letter = Point::new(x as u8, 0)
            .map(|p| p.to_gtp(view.size))
            .unwrap_or_default();
        let letter: String = letter
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        let _ = write!(
            s,
            "<text class=\"bd-coord\" x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\">{letter}</text>",
            px(x),
            MARGIN - 12.0
        );
    }
    for y in 0..h {
        let _ = write!(
            s,
            "<text class=\"bd-coord\" x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{}</text>",
            MARGIN - 15.0,
            px(y),
            h - y
        );
    }
    let r = P * 0.46;
    let m = P * 0.17;
    for (i, state) in view.states.iter().enumerate().take(w * h) {
        let (cx, cy) = (px(i % w), px(i / w));
        match *state {
            PointState::Stone(c) => {
                let _ = write!(
                    s,
                    "<circle class=\"{}\" cx=\"{cx:.0}\" cy=\"{cy:.0}\" r=\"{r:.1}\"/>",
                    stone_class(c)
                );
            }
            PointState::Dead(c) => {
                let _ = write!(
                    s,
                    "<g class=\"bd-dead\"><circle class=\"{}\" cx=\"{cx:.0}\" cy=\"{cy:.0}\" r=\"{r:.1}\"/></g>",
                    stone_class(c)
                );
                // The point is now the other colour's territory, and the
                // stone is crossed out.
                let _ = write!(
                    s,
                    "<path class=\"{}\" d=\"M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}\"/>",
                    if c == Color::Black { "bd-xw" } else { "bd-x" },
                    cx - m * 1.6,
                    cy - m * 1.6,
                    cx + m * 1.6,
                    cy + m * 1.6,
                    cx - m * 1.6,
                    cy + m * 1.6,
                    cx + m * 1.6,
                    cy - m * 1.6
                );
            }
            PointState::Territory(c) => {
                let _ = write!(
                    s,
                    "<rect class=\"{}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{3:.1}\"/>",
                    terr_class(c),
                    cx - m,
                    cy - m,
                    2.0 * m
                );
            }
            PointState::SekiEye(c) => {
                let _ = write!(
                    s,
                    "<polygon class=\"{}\" points=\"{cx:.1},{:.1} {:.1},{cy:.1} {cx:.1},{:.1} {:.1},{cy:.1}\"/>",
                    terr_class(c),
                    cy - 1.4 * m,
                    cx + 1.4 * m,
                    cy + 1.4 * m,
                    cx - 1.4 * m
                );
            }
            PointState::SekiLiberty => {
                let _ = write!(
                    s,
                    "<polygon class=\"bd-seki\" points=\"{cx:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\"/>",
                    cy - 1.5 * m,
                    cx - 1.4 * m,
                    cy + 1.1 * m,
                    cx + 1.4 * m,
                    cy + 1.1 * m
                );
            }
            PointState::Fill(c) => {
                let _ = write!(
                    s,
                    "<circle class=\"bd-fill\" cx=\"{cx:.0}\" cy=\"{cy:.0}\" r=\"{:.1}\" stroke=\"{}\"/>",
                    1.3 * m,
                    if c == Color::Black { "#111" } else { "#777" }
                );
                if c == Color::White {
                    let _ = write!(
                        s,
                        "<circle cx=\"{cx:.0}\" cy=\"{cy:.0}\" r=\"{:.1}\" fill=\"#fff\" stroke=\"#111\" stroke-width=\".6\"/>",
                        0.6 * m
                    );
                }
            }
            PointState::Dame => {}
        }
    }
    for p in view.doubtful {
        let (x, y) = (usize::from(p.x()), usize::from(p.y()));
        let _ = write!(
            s,
            "<circle class=\"bd-doubt\" cx=\"{:.0}\" cy=\"{:.0}\" r=\"{:.1}\"/>",
            px(x),
            px(y),
            r + 2.5
        );
    }
    // The key, so a printed board explains itself.
    let ky = bh + 14.0;
    let items: [(&str, &str); 6] = [
        (
            "dead",
            "<circle class=\"bd-b\" cx=\"6\" cy=\"0\" r=\"6\" opacity=\".45\"/><path class=\"bd-xw\" d=\"M2 -4L10 4M2 4L10 -4\"/>",
        ),
        (
            "territory",
            "<rect class=\"bd-tb\" x=\"0\" y=\"-4\" width=\"8\" height=\"8\"/>",
        ),
        (
            "seki eye",
            "<polygon class=\"bd-tb\" points=\"5,-5 10,0 5,5 0,0\"/>",
        ),
        (
            "seki liberty",
            "<polygon class=\"bd-seki\" points=\"5,-5 0,4 10,4\"/>",
        ),
        (
            "to fill",
            "<circle class=\"bd-fill\" cx=\"5\" cy=\"0\" r=\"5\" stroke=\"#111\"/>",
        ),
        (
            "doubtful",
            "<circle class=\"bd-doubt\" cx=\"6\" cy=\"0\" r=\"6\"/>",
        ),
    ];
    let per_row = ((bw - 8.0) / 82.0).floor().max(1.0) as usize;
    for (k, (label, icon)) in items.iter().enumerate() {
        let x = 8.0 + (k % per_row) as f64 * 82.0;
        let y = ky + (k / per_row) as f64 * 16.0;
        let _ = write!(
            s,
            "<g transform=\"translate({x:.0} {y:.0})\">{icon}<text class=\"bd-key\" x=\"16\" y=\"0\" dominant-baseline=\"middle\">{label}</text></g>"
        );
    }
    s.push_str("</svg>");
    s
}

fn stone_class(c: Color) -> &'static str {
    if c == Color::Black {
        "bd-b"
    } else {
        "bd-w"
    }
}

fn terr_class(c: Color) -> &'static str {
    if c == Color::Black {
        "bd-tb"
    } else {
        "bd-tw"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_rules::score::{Counter, Position};

    #[test]
    fn every_kind_of_point_is_drawn_and_described() {
        // Black's wall on column c, White's on d, a dead White stone at a1.
        let pos = Position::from_diagram(
            ". . X O . .\n. . X O . .\n. . X O . .\n. . X O . .\n. . X O . .\nO . X O . .",
        )
        .unwrap();
        let dead = [Point::new(0, 5).unwrap()];
        let mut counter = Counter::new();
        counter.count(&pos, &dead);
        let view = BoardView {
            size: pos.size(),
            states: counter.states(),
            doubtful: &dead,
            title: "a <test> board".to_string(),
        };
        let svg = board_svg(&view, "b1", true);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("<title id=\"b1-t\">a &lt;test&gt; board</title>"));
        assert!(svg.contains("<style>"));
        // Six living stones on each wall, one dead White stone; the key
        // adds one of each symbol it explains.
        assert_eq!(svg.matches("class=\"bd-b\" cx").count(), 6 + 1);
        assert_eq!(svg.matches("class=\"bd-w\" cx").count(), 6 + 1);
        assert_eq!(svg.matches("class=\"bd-dead\"").count(), 1);
        // Black's 12 points on the left but the dead stone's (drawn as the
        // crossed stone), White's 12 on the right.
        assert_eq!(svg.matches("class=\"bd-tb\" x=").count(), 11 + 1);
        assert_eq!(svg.matches("class=\"bd-tw\" x=").count(), 12);
        assert!(svg.contains("0 black and 1 white dead"), "{svg}");
        assert_eq!(svg.matches("class=\"bd-doubt\" cx").count(), 2); // the stone and the key
        assert!(!board_svg(&view, "b2", false).contains("<style>"));
    }
}
