use std::ops::{Index, IndexMut, Not};

/// A side in the game. Black moves first unless the record says otherwise.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The opponent.
    #[must_use]
    pub const fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: a stable index for arrays and hash keys.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `B` or `W`, as SGF and results write it.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// Chooses between two values by colour, like shakmaty's `fold_wb`.
    pub fn fold<T>(self, black: T, white: T) -> T {
        match self {
            Color::Black => black,
            Color::White => white,
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        self.other()
    }
}

impl std::fmt::Display for Color {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// One value per colour, indexable by [`Color`]. Used for every per-side count
/// (stones placed, captures, passes) so that the two sides can never be mixed up
/// by position in a tuple.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    pub black: T,
    pub white: T,
}

impl<T> ByColor<T> {
    pub const fn new(black: T, white: T) -> Self {
        ByColor { black, white }
    }

    pub fn new_with(mut f: impl FnMut(Color) -> T) -> Self {
        ByColor {
            black: f(Color::Black),
            white: f(Color::White),
        }
    }

    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor {
            black: f(self.black),
            white: f(self.white),
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, color: Color) -> &T {
        self.get(color)
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, color: Color) -> &mut T {
        self.get_mut(color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_is_an_involution() {
        for c in Color::ALL {
            assert_ne!(c, c.other());
            assert_eq!(c, c.other().other());
            assert_eq!(!c, c.other());
        }
    }

    #[test]
    fn by_color_indexes_by_side() {
        let mut counts = ByColor::new(1, 2);
        counts[Color::White] += 5;
        assert_eq!(counts[Color::Black], 1);
        assert_eq!(counts[Color::White], 7);
        assert_eq!(counts.map(|n| n * 2), ByColor::new(2, 14));
    }
}
