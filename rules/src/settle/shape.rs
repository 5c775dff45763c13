//! How many eyes an eye space is worth when the opponent moves first.
//!
//! The classical nakade shapes, recognised by their structure rather than
//! by a table of drawings: three points in a row or bent; four points in a
//! square or a T (pyramid four); five points holding a square (bulky five)
//! or a cross; six points holding both a square and a point with four
//! neighbours (rabbity six). Each of these is one eye when the opponent
//! plays its vital point first. Any other space of four to six points can be
//! split into two eyes whatever the opponent does (straight and bent four,
//! the rectangular six in the open...). Seven points or more are taken as
//! two eyes: in a finished game nobody leaves such a space killable.

/// A small set of points given by their indices on a board of `width`.
#[derive(Clone, Debug)]
pub(crate) struct Space<'a> {
    pub points: &'a [u16],
    pub width: usize,
}

/// The eyes a space of empty points is worth: 0 (nothing), 1, or 2.
pub(crate) fn eye_value(space: &Space<'_>) -> u8 {
    let k = space.points.len();
    match k {
        0 => 0,
        1..=3 => 1,
        4..=6 => {
            let (max_degree, square) = structure(space);
            let nakade = match k {
                4 => square || max_degree == 3,
                5 => square || max_degree == 4,
                _ => square && max_degree == 4,
            };
            if nakade {
                1
            } else {
                2
            }
        }
        _ => 2,
    }
}

fn xy(p: u16, width: usize) -> (usize, usize) {
    (p as usize % width, p as usize / width)
}

/// The most neighbours any point has inside the space, and whether the space
/// holds a 2x2 square.
fn structure(space: &Space<'_>) -> (u32, bool) {
    let mut buf = [(usize::MAX, usize::MAX); 6];
    let k = space.points.len().min(6);
    for (slot, &p) in buf.iter_mut().zip(space.points) {
        *slot = xy(p, space.width);
    }
    let pts = &buf[..k];
    let has = |x: usize, y: usize| pts.contains(&(x, y));
    let mut max_degree = 0;
    let mut square = false;
    for &(x, y) in pts {
        let degree = [
            x.checked_sub(1).map(|x| (x, y)),
            Some((x + 1, y)),
            y.checked_sub(1).map(|y| (x, y)),
            Some((x, y + 1)),
        ]
        .into_iter()
        .flatten()
        .filter(|&(a, b)| has(a, b))
        .count() as u32;
        max_degree = max_degree.max(degree);
        square |= has(x + 1, y) && has(x, y + 1) && has(x + 1, y + 1);
    }
    (max_degree, square)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points of a little diagram on a board 9 wide: `#` is in the space.
    fn space_of(rows: &[&str]) -> Vec<u16> {
        let mut out = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                if c == '#' {
                    out.push((y * 9 + x) as u16);
                }
            }
        }
        out
    }

    fn value(rows: &[&str]) -> u8 {
        let points = space_of(rows);
        eye_value(&Space {
            points: &points,
            width: 9,
        })
    }

    #[test]
    fn nakade_shapes_are_one_eye() {
        assert_eq!(value(&["###"]), 1, "straight three");
        assert_eq!(value(&["##", "#."]), 1, "bent three");
        assert_eq!(value(&["##", "##"]), 1, "square four");
        assert_eq!(value(&["###", ".#."]), 1, "pyramid four");
        assert_eq!(value(&["###", "##."]), 1, "bulky five");
        assert_eq!(value(&[".#.", "###", ".#."]), 1, "crossed five");
        assert_eq!(
            value(&["###", "###"]),
            2,
            "rectangular six lives in the open"
        );
        assert_eq!(value(&[".#.", "###", "##."]), 1, "rabbity six");
    }

    #[test]
    fn living_shapes_are_two_eyes() {
        assert_eq!(value(&["####"]), 2, "straight four");
        assert_eq!(value(&["###", "#.."]), 2, "bent four (L)");
        assert_eq!(value(&["##.", ".##"]), 2, "twisted four");
        assert_eq!(value(&["#####"]), 2, "straight five");
        assert_eq!(value(&["#######"]), 2, "seven points");
    }

    #[test]
    fn small_spaces() {
        assert_eq!(value(&[]), 0);
        assert_eq!(value(&["#"]), 1);
        assert_eq!(value(&["##"]), 1);
        assert_eq!(value(&["###"]), 1);
    }
}
