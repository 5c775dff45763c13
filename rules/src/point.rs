use thiserror::Error;

/// The largest board side verdict replays. SGF allows up to 52, but no real
/// corpus plays on more than 25x25, and a fixed bound lets boards live on the
/// stack.
pub const MAX_SIZE: u8 = 25;

/// A board's dimensions, `2..=25` on each side. Non-square boards (`SZ[w:h]`)
/// are allowed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    width: u8,
    height: u8,
}

/// Why a size cannot be replayed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Error)]
#[error("board size {width}x{height} is outside 2x2..=25x25")]
pub struct SizeError {
    pub width: u32,
    pub height: u32,
}

impl BoardSize {
    pub const NINETEEN: BoardSize = BoardSize {
        width: 19,
        height: 19,
    };

    /// # Errors
    /// When either side is below 2 or above [`MAX_SIZE`].
    pub const fn new(width: u32, height: u32) -> Result<BoardSize, SizeError> {
        if width < 2 || height < 2 || width > MAX_SIZE as u32 || height > MAX_SIZE as u32 {
            return Err(SizeError { width, height });
        }
        Ok(BoardSize {
            width: width as u8,
            height: height as u8,
        })
    }

    /// # Errors
    /// When `n` is below 2 or above [`MAX_SIZE`].
    pub const fn square(n: u32) -> Result<BoardSize, SizeError> {
        BoardSize::new(n, n)
    }

    pub const fn width(self) -> u8 {
        self.width
    }

    pub const fn height(self) -> u8 {
        self.height
    }

    pub const fn is_square(self) -> bool {
        self.width == self.height
    }

    /// Number of points on the board.
    pub const fn points(self) -> usize {
        self.width as usize * self.height as usize
    }

    pub const fn contains(self, p: Point) -> bool {
        p.x < self.width && p.y < self.height
    }

    /// Every point of the board, row by row from the top.
    pub fn iter(self) -> impl Iterator<Item = Point> {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Point { x, y }))
    }
}

impl std::fmt::Display for BoardSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// A point of a board, in SGF orientation: `x` is the column from the left,
/// `y` the row from the top, both from 0. Always below [`MAX_SIZE`]; whether it
/// lies on a particular board is [`BoardSize::contains`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    x: u8,
    y: u8,
}

impl Point {
    /// `None` when a coordinate is not below [`MAX_SIZE`].
    pub const fn new(x: u8, y: u8) -> Option<Point> {
        if x < MAX_SIZE && y < MAX_SIZE {
            Some(Point { x, y })
        } else {
            None
        }
    }

    pub const fn x(self) -> u8 {
        self.x
    }

    pub const fn y(self) -> u8 {
        self.y
    }

    /// Reads an SGF coordinate pair (`b"dd"`): lowercase `a`-`z` are 0-25,
    /// uppercase `A`-`Z` are 26-51 (`FF[4]`); anything that is not below
    /// [`MAX_SIZE`] is `None`.
    pub const fn from_sgf(pair: [u8; 2]) -> Option<Point> {
        const fn coord(c: u8) -> Option<u8> {
            match c {
                b'a'..=b'z' => Some(c - b'a'),
                b'A'..=b'Z' => Some(c - b'A' + 26),
                _ => None,
            }
        }
        match (coord(pair[0]), coord(pair[1])) {
            (Some(x), Some(y)) => Point::new(x, y),
            _ => None,
        }
    }

    /// The SGF coordinate pair of this point.
    pub const fn to_sgf(self) -> [u8; 2] {
        [b'a' + self.x, b'a' + self.y]
    }

    /// Human coordinates as GTP and most boards print them: a column letter
    /// skipping `I`, and the row counted from the bottom (`D16`).
    pub fn to_gtp(self, size: BoardSize) -> String {
        let col = if self.x < 8 {
            b'A' + self.x
        } else {
            b'B' + self.x
        };
        format!("{}{}", col as char, size.height() - self.y)
    }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b] = self.to_sgf();
        write!(f, "{}{}", a as char, b as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_bounded() {
        assert!(BoardSize::square(19).is_ok());
        assert!(BoardSize::square(25).is_ok());
        assert!(BoardSize::new(2, 25).is_ok());
        assert_eq!(
            BoardSize::square(26),
            Err(SizeError {
                width: 26,
                height: 26
            })
        );
        assert!(BoardSize::square(1).is_err());
        assert!(BoardSize::new(0, 9).is_err());
    }

    #[test]
    fn sgf_coordinates_round_trip() {
        let p = Point::from_sgf(*b"dp").unwrap();
        assert_eq!((p.x(), p.y()), (3, 15));
        assert_eq!(&p.to_sgf(), b"dp");
        assert_eq!(p.to_gtp(BoardSize::NINETEEN), "D4");
        assert_eq!(
            Point::from_sgf(*b"sa").unwrap().to_gtp(BoardSize::NINETEEN),
            "T19"
        );
        assert_eq!(Point::from_sgf(*b"yy"), Point::new(24, 24));
        assert_eq!(Point::from_sgf(*b"zz"), None);
        assert_eq!(Point::from_sgf(*b"A1"), None);
    }

    #[test]
    fn contains_respects_non_square_boards() {
        let s = BoardSize::new(9, 5).unwrap();
        assert!(s.contains(Point::new(8, 4).unwrap()));
        assert!(!s.contains(Point::new(4, 8).unwrap()));
        assert_eq!(s.iter().count(), 45);
    }
}
