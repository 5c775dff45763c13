use crate::{BoardSize, Color, Point, MAX_SIZE};

/// Points of the largest board.
pub(crate) const MAX_POINTS: usize = MAX_SIZE as usize * MAX_SIZE as usize;

/// A static position: stones on points, nothing else. Counting works on this
/// rather than on the replay board because it never plays moves, only looks:
/// a flat array indexed `y * width + x` keeps the flood fills simple and fast.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    size: BoardSize,
    cells: [Option<Color>; MAX_POINTS],
}

pub use crate::diagram::DiagramError;

impl Position {
    pub fn empty(size: BoardSize) -> Position {
        Position {
            size,
            cells: [None; MAX_POINTS],
        }
    }

    /// Reads a diagram ([`crate::diagram`]: `X` Black, `O` White, `.`
    /// empty, rows from the top; row numbers and a column legend line are
    /// skipped, so that RULES.md-style diagrams paste in).
    ///
    /// # Errors
    /// On unknown characters, rows of different lengths, no rows, or a bad
    /// size.
    pub fn from_diagram(text: &str) -> Result<Position, DiagramError> {
        let (size, points) = crate::diagram::parse(text)?;
        let mut pos = Position::empty(size);
        pos.cells[..points.len()].copy_from_slice(&points);
        Ok(pos)
    }

    pub const fn size(&self) -> BoardSize {
        self.size
    }

    pub fn get(&self, p: Point) -> Option<Color> {
        if self.size.contains(p) {
            self.cells[self.index(p)]
        } else {
            None
        }
    }

    /// # Panics
    /// When `p` is not on the board.
    pub fn set(&mut self, p: Point, stone: Option<Color>) {
        assert!(self.size.contains(p), "{p} is off a {} board", self.size);
        let i = self.index(p);
        self.cells[i] = stone;
    }

    pub(crate) fn index(&self, p: Point) -> usize {
        p.y() as usize * self.size.width() as usize + p.x() as usize
    }

    pub(crate) fn cells(&self) -> &[Option<Color>] {
        &self.cells[..self.size.points()]
    }

    pub fn stones(&self, color: Color) -> u32 {
        self.cells().iter().filter(|c| **c == Some(color)).count() as u32
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Position {}", self.size)?;
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let w = self.size.width() as usize;
        for row in self.cells().chunks(w) {
            let line: String = row
                .iter()
                .map(|c| match c {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                })
                .collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// The up to four on-board neighbours of flat index `i`, without allocating.
pub(crate) fn neighbours(size: BoardSize, i: usize) -> impl Iterator<Item = usize> {
    let w = size.width() as usize;
    let h = size.height() as usize;
    let (x, y) = (i % w, i / w);
    let mut out = [usize::MAX; 4];
    if x > 0 {
        out[0] = i - 1;
    }
    if x + 1 < w {
        out[1] = i + 1;
    }
    if y > 0 {
        out[2] = i - w;
    }
    if y + 1 < h {
        out[3] = i + w;
    }
    out.into_iter().filter(|&n| n != usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagram_round_trips_and_accepts_legends() {
        let text = "7  . X . X X O .\n6  . X X X O . O\n   a b c d e f g\n";
        let pos = Position::from_diagram(text).unwrap();
        assert_eq!(pos.size(), BoardSize::new(7, 2).unwrap());
        assert_eq!(pos.to_string(), ".X.XXO.\n.XXXO.O\n");
        assert_eq!(pos.get(Point::new(5, 0).unwrap()), Some(Color::White));
        assert_eq!(pos.stones(Color::Black), 6);
    }

    #[test]
    fn diagram_errors_say_what_is_wrong() {
        assert_eq!(
            Position::from_diagram("X.\nX"),
            Err(DiagramError::Ragged {
                row: 2,
                found: 1,
                expected: 2
            })
        );
        assert_eq!(
            Position::from_diagram("X?"),
            Err(DiagramError::BadChar('?'))
        );
        assert_eq!(Position::from_diagram(""), Err(DiagramError::Empty));
    }

    #[test]
    fn neighbours_stay_on_the_board() {
        let size = BoardSize::new(3, 2).unwrap();
        assert_eq!(neighbours(size, 0).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(neighbours(size, 4).collect::<Vec<_>>(), [3, 5, 1]);
    }
}
