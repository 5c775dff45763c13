use std::fmt;

use crate::{Color, Point};

/// One 大解放 move: the four kinds of RULES.md section 6. The names are the
/// seed's: placing (下子) takes a stone from the bowl, moving (移子) lifts one
/// of the mover's stones; 实着 ends on a point, 虚着 beside the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariantMove {
    /// 下子实着: a stone from the bowl on an empty point.
    Place(Point),
    /// 下子虚着: a stone from the bowl beside the board.
    PlaceOff,
    /// 移子实着: the mover's stone on `from` lifted and put on `to`.
    Move { from: Point, to: Point },
    /// 移子虚着: the mover's stone on `from` lifted and put beside the board.
    MoveOff { from: Point },
}

impl VariantMove {
    /// Whether the move ends beside the board (a 虚着 of either kind).
    pub const fn is_xu(self) -> bool {
        matches!(self, VariantMove::PlaceOff | VariantMove::MoveOff { .. })
    }

    /// Whether the move lifts a stone from the board (移子).
    pub const fn is_moving(self) -> bool {
        matches!(self, VariantMove::Move { .. } | VariantMove::MoveOff { .. })
    }

    /// The move as verdict's SGF convention writes it, by `color`:
    /// `B[dd]`, `B[]`, `B[dd]MF[cc]`, `B[]MF[cc]`.
    pub fn sgf(self, color: Color) -> impl fmt::Display {
        Sgf(color, self)
    }
}

struct Sgf(Color, VariantMove);

impl fmt::Display for Sgf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0.letter();
        match self.1 {
            VariantMove::Place(p) => write!(f, "{c}[{p}]"),
            VariantMove::PlaceOff => write!(f, "{c}[]"),
            VariantMove::Move { from, to } => write!(f, "{c}[{to}]MF[{from}]"),
            VariantMove::MoveOff { from } => write!(f, "{c}[]MF[{from}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_write_the_convention() {
        let p = |s: &[u8; 2]| Point::from_sgf(*s).unwrap();
        let b = Color::Black;
        assert_eq!(VariantMove::Place(p(b"dd")).sgf(b).to_string(), "B[dd]");
        assert_eq!(VariantMove::PlaceOff.sgf(Color::White).to_string(), "W[]");
        let m = VariantMove::Move {
            from: p(b"cc"),
            to: p(b"dd"),
        };
        assert_eq!(m.sgf(b).to_string(), "B[dd]MF[cc]");
        let off = VariantMove::MoveOff { from: p(b"cc") };
        assert_eq!(off.sgf(b).to_string(), "B[]MF[cc]");
        assert!(off.is_xu() && off.is_moving());
        assert!(!m.is_xu() && m.is_moving());
        assert!(VariantMove::PlaceOff.is_xu() && !VariantMove::PlaceOff.is_moving());
    }
}
