//! Board diagrams: the one text form of a position that tests, doc
//! examples and RULES.md-style figures share, read by one parser whatever
//! is built from it ([`crate::board::Board`] for play,
//! [`crate::score::Position`] for counting).
//!
//! Rows run from the top. Black is `X` (or `x`, `B`, `#`, `@`), White `O`
//! (or `o`, `W`), an empty point `.` (or `+`, `-`, `_`). Spaces are
//! ignored, blank lines skipped, and so are row numbers at the start of a
//! line and a column legend line of lowercase letters (`a b c d ...`), so
//! that a figure copied from RULES.md reads as it stands.

use thiserror::Error;

use crate::{BoardSize, Color, SizeError};

/// Why a diagram could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DiagramError {
    #[error("diagram has no rows")]
    Empty,
    #[error("row {row} has {found} points, the first row has {expected}")]
    Ragged {
        row: usize,
        found: usize,
        expected: usize,
    },
    #[error(
        "unknown character {0:?} in a board diagram (X, x, B, # or @ for Black; \
         O, o or W for White; ., +, - or _ for empty)"
    )]
    BadChar(char),
    #[error(transparent)]
    Size(#[from] SizeError),
}

/// The colour a diagram character stands for: `Some(None)` an empty point,
/// `None` not a point at all.
fn point_of(c: char) -> Option<Option<Color>> {
    match c {
        'X' | 'x' | 'B' | '#' | '@' => Some(Some(Color::Black)),
        'O' | 'o' | 'W' => Some(Some(Color::White)),
        '.' | '+' | '-' | '_' => Some(None),
        _ => None,
    }
}

/// A column legend: lowercase letters only, and not only the stone letters
/// `x` and `o` (a row of those is a row of stones).
fn is_legend(body: &str) -> bool {
    body.chars().all(|c| c.is_ascii_lowercase()) && body.chars().any(|c| c != 'x' && c != 'o')
}

/// Reads `text` into its size and its points, row by row from the top
/// (index `y * width + x`).
///
/// # Errors
/// An unknown character, rows of different lengths, no rows, or a size
/// outside 2x2..=25x25.
pub fn parse(text: &str) -> Result<(BoardSize, Vec<Option<Color>>), DiagramError> {
    let mut points = Vec::new();
    let mut width = 0;
    let mut rows = 0;
    for line in text.lines() {
        let body: String = line
            .chars()
            .skip_while(|c| c.is_ascii_digit() || c.is_whitespace())
            .filter(|c| !c.is_whitespace())
            .collect();
        if body.is_empty() || is_legend(&body) {
            continue;
        }
        let before = points.len();
        for c in body.chars() {
            points.push(point_of(c).ok_or(DiagramError::BadChar(c))?);
        }
        let found = points.len() - before;
        rows += 1;
        if rows == 1 {
            width = found;
        } else if found != width {
            return Err(DiagramError::Ragged {
                row: rows,
                found,
                expected: width,
            });
        }
    }
    if rows == 0 {
        return Err(DiagramError::Empty);
    }
    let size = BoardSize::new(width as u32, rows as u32)?;
    Ok((size, points))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alphabet_reads_the_same_position() {
        let plain = parse("X O .\n. X O").unwrap();
        for text in [
            "x o +\n+ x o",
            "B W -\n_ # o",
            "@ O .\n. X W",
            "2  X O .\n1  . X O\n   a b c",
        ] {
            assert_eq!(parse(text).unwrap(), plain, "{text:?}");
        }
        let (size, points) = plain;
        assert_eq!(size, BoardSize::new(3, 2).unwrap());
        assert_eq!(points[0], Some(Color::Black));
        assert_eq!(points[1], Some(Color::White));
        assert_eq!(points[2], None);
    }

    #[test]
    fn a_row_of_stone_letters_is_no_legend() {
        let (size, points) = parse("xo\nox").unwrap();
        assert_eq!(size, BoardSize::new(2, 2).unwrap());
        assert_eq!(points.iter().flatten().count(), 4);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(
            parse("X.\nX"),
            Err(DiagramError::Ragged {
                row: 2,
                found: 1,
                expected: 2
            })
        );
        assert_eq!(parse("X?"), Err(DiagramError::BadChar('?')));
        assert_eq!(parse(""), Err(DiagramError::Empty));
        assert!(matches!(parse("X"), Err(DiagramError::Size(_))));
    }
}
