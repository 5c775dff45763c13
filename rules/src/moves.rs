use crate::{Color, Point};

/// What a move does: put a stone on a point, or pass.
///
/// A pass written `B[tt]` on boards up to 19x19 is already a `Pass` here: the
/// SGF layer resolves that convention, so nothing downstream sees `tt`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Play(Point),
    Pass,
}

/// A move of the record, by the colour the record says moved.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub color: Color,
    pub action: Action,
}

impl Move {
    pub const fn play(color: Color, point: Point) -> Move {
        Move {
            color,
            action: Action::Play(point),
        }
    }

    pub const fn pass(color: Color) -> Move {
        Move {
            color,
            action: Action::Pass,
        }
    }

    pub const fn is_pass(self) -> bool {
        matches!(self.action, Action::Pass)
    }

    pub const fn point(self) -> Option<Point> {
        match self.action {
            Action::Play(p) => Some(p),
            Action::Pass => None,
        }
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.action {
            Action::Play(p) => write!(f, "{}[{}]", self.color.letter(), p),
            Action::Pass => write!(f, "{}[]", self.color.letter()),
        }
    }
}
