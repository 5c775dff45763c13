//! The physical board: stones, chains, liberties and a Zobrist hash, kept up
//! to date move by move.
//!
//! Replay runs over millions of games, so the board never allocates: every
//! size from 2x2 to 25x25 lives in one fixed 27x27 grid whose outer ring (and
//! everything outside a smaller board) is a border, so neighbour lookups need
//! no bounds checks. Chains are circular linked lists of stones with a head per
//! stone; each head keeps the chain's length and its *pseudo-liberties* (empty
//! neighbours counted once per adjacent stone), which are zero exactly when the
//! chain has no liberty. That is all capture and suicide detection need; exact
//! liberty counts are computed on demand by [`Board::liberties`].
//!
//! The board follows the record and knows no rules: a suicide removes the
//! suicided chain and says so, and whether that was allowed (or whether a move
//! repeated a position) is for [`crate::replay`] to decide.
//!
//! # Examples
//!
//! ```
//! use verdict_rules::board::Board;
//! use verdict_rules::{Color, Point};
//!
//! let mut board = Board::from_diagram(
//!     ". X O .
//!      X O . O
//!      . X O .",
//! )?;
//! let outcome = board.play(Color::Black, Point::new(2, 1).unwrap())?;
//! assert_eq!(outcome.captured, 1);
//! assert_eq!(outcome.ko, Point::new(1, 1));
//! assert_eq!(board.get(Point::new(1, 1).unwrap()), None);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use thiserror::Error;

use crate::{BoardSize, ByColor, Color, Point, MAX_SIZE};

pub(crate) mod chains;
pub(crate) mod flood;

use chains::{neighbours, Links, CELLS, STRIDE};

/// Words of a bitset over all cells.
const SET_WORDS: usize = CELLS.div_ceil(64);
/// Most points a board can have, hence most chains.
const MAX_POINTS: usize = MAX_SIZE as usize * MAX_SIZE as usize;

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const BORDER: u8 = 3;

/// Fixed seed of the Zobrist table, so that hashes are stable across runs and
/// builds (they may be stored or compared between workers).
const ZOBRIST_SEED: u64 = 0x7665_7264_6963_7421; // "verdict!"

/// One random key per colour and cell. Keys are indexed by padded cell, which
/// is a function of the point alone, so the hash of a position does not depend
/// on the board's size or on the order its stones were placed in.
static ZOBRIST: [[u64; CELLS]; 2] = zobrist_table();

/// The key of a stone (1 black, 2 white, as the settler's boards write
/// them) on a padded cell: the settler's reading hashes its positions
/// with the same table as the replay board.
#[inline]
pub(crate) fn zobrist(stone: u8, cell: usize) -> u64 {
    ZOBRIST[usize::from(stone - 1)][cell]
}

/// The `n`-th output of SplitMix64 from the Zobrist seed ([`crate::rng`]).
const fn splitmix64(n: u64) -> u64 {
    crate::rng::mix(ZOBRIST_SEED.wrapping_add(n.wrapping_mul(crate::rng::GOLDEN)))
}

const fn zobrist_table() -> [[u64; CELLS]; 2] {
    let mut table = [[0u64; CELLS]; 2];
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CELLS {
            table[c][i] = splitmix64((c * CELLS + i + 1) as u64);
            i += 1;
        }
        c += 1;
    }
    table
}

const fn cell_of(color: Color) -> u8 {
    color as u8 + 1
}

const fn color_of(cell: u8) -> Option<Color> {
    match cell {
        BLACK => Some(Color::Black),
        WHITE => Some(Color::White),
        _ => None,
    }
}

#[inline]
const fn is_stone(cell: u8) -> bool {
    cell.wrapping_sub(BLACK) < 2
}

#[inline]
const fn index(p: Point) -> usize {
    (p.y() as usize + 1) * STRIDE + p.x() as usize + 1
}

#[inline]
fn point_at(i: usize) -> Point {
    match Point::new((i % STRIDE - 1) as u8, (i / STRIDE - 1) as u8) {
        Some(p) => p,
        None => unreachable!("cell {i} is not a point"),
    }
}

/// Why a stone could not be put on the board. The board is left unchanged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Error)]
pub enum PlayError {
    #[error("{0} is off the board")]
    OffBoard(Point),
    #[error("{0} is occupied")]
    Occupied(Point),
}

/// What a stone move did to the board.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlayOutcome {
    /// Opponent stones removed.
    pub captured: u32,
    /// Own stones removed because the move left its chain without liberties
    /// (the new stone included); 0 when the move was not suicide.
    pub suicided: u32,
    /// The captured stone's point when exactly one stone was captured.
    pub single_capture: Option<Point>,
    /// The point a simple-ko rule forbids the opponent to play at once: set
    /// when a lone stone captured exactly one stone and was left with that
    /// point as its only liberty, so that retaking there would recreate the
    /// position before this move.
    pub ko: Option<Point>,
}

impl PlayOutcome {
    pub const fn is_suicide(&self) -> bool {
        self.suicided > 0
    }
}

/// Names one chain of a board. Valid only until the board next changes: merges,
/// captures and setup reassign chains.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChainId(u16);

impl ChainId {
    /// A small number (below [`ChainId::LIMIT`]) for indexing per-chain
    /// scratch arrays.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Every [`ChainId::index`] is below this.
    pub const LIMIT: usize = CELLS;
}

pub use crate::diagram::DiagramError;

/// A Go board of any size from 2x2 to 25x25, with incremental chains and hash.
///
/// Equality compares the stones on the board (and its size) and nothing else:
/// two boards are equal when they show the same position, which is the
/// positional-superko notion of "same board". [`Board::hash`] follows the same
/// notion.
#[derive(Clone)]
pub struct Board {
    size: BoardSize,
    /// Zobrist hash of the stones.
    hash: u64,
    stones: [u32; 2],
    /// `EMPTY`, `BLACK`, `WHITE` or `BORDER` per cell.
    cells: [u8; CELLS],
    /// Chains as circular lists of stones, with their lengths.
    links: Links,
    /// Per chain head: pseudo-liberties. Zero iff the chain has no liberty.
    libs: [u16; CELLS],
}

impl Board {
    /// An empty board.
    pub fn new(size: BoardSize) -> Board {
        let mut board = Board {
            size,
            hash: 0,
            stones: [0; 2],
            cells: [BORDER; CELLS],
            links: Links::new(),
            libs: [0; CELLS],
        };
        board.reset(size);
        board
    }

    /// Empties the board and gives it a new size, so that one board can serve
    /// game after game. Only the cell states are rewritten: chain data of
    /// empty cells is never read.
    pub fn reset(&mut self, size: BoardSize) {
        self.size = size;
        self.hash = 0;
        self.stones = [0; 2];
        self.cells = [BORDER; CELLS];
        for y in 0..size.height() as usize {
            let row = (y + 1) * STRIDE + 1;
            self.cells[row..row + size.width() as usize].fill(EMPTY);
        }
    }

    /// Reads a diagram ([`crate::diagram`]: `X` black, `O` white, `.`
    /// empty, rows from the top). Stones are put as setup: nothing is
    /// captured, even a chain drawn without liberties (see
    /// [`Board::remove_chains_without_liberties`]).
    ///
    /// # Errors
    /// An unknown character, rows of different lengths, no rows, or a size
    /// outside 2x2..=25x25.
    pub fn from_diagram(diagram: &str) -> Result<Board, DiagramError> {
        let (size, points) = crate::diagram::parse(diagram)?;
        let mut board = Board::new(size);
        for (p, color) in size.iter().zip(points) {
            if let Some(color) = color {
                let _ = board.put(index(p), color);
            }
        }
        Ok(board)
    }

    pub const fn size(&self) -> BoardSize {
        self.size
    }

    /// The stone on `point`; `None` for an empty or off-board point.
    #[inline]
    pub fn get(&self, point: Point) -> Option<Color> {
        if self.size.contains(point) {
            color_of(self.cells[index(point)])
        } else {
            None
        }
    }

    /// The Zobrist hash of the stones: equal positions have equal hashes
    /// whatever the moves that led to them. The empty board hashes to 0.
    #[inline]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// Stones of `color` on the board.
    #[inline]
    pub const fn stones(&self, color: Color) -> u32 {
        self.stones[color.index()]
    }

    /// Stones of both colours on the board.
    pub const fn stone_counts(&self) -> ByColor<u32> {
        ByColor::new(self.stones[0], self.stones[1])
    }

    /// Puts a stone of `color` on `point`, removes opponent chains left
    /// without liberties, then the mover's own chain if it has none (suicide).
    ///
    /// # Errors
    /// When `point` is off the board or occupied; the board is unchanged.
    #[inline]
    pub fn play(&mut self, color: Color, point: Point) -> Result<PlayOutcome, PlayError> {
        if !self.size.contains(point) {
            return Err(PlayError::OffBoard(point));
        }
        let p = index(point);
        if self.cells[p] != EMPTY {
            return Err(PlayError::Occupied(point));
        }
        let mut dead = self.put(p, color);
        let opp = cell_of(color.other());
        let mut out = PlayOutcome::default();
        let mut last_capture = 0;
        while dead != 0 {
            let n = neighbours(p)[dead.trailing_zeros() as usize];
            dead &= dead - 1;
            if self.cells[n] == opp {
                out.captured += self.remove_chain(self.links.head(n));
                last_capture = n;
            }
        }
        let h = self.links.head(p);
        if self.libs[h] == 0 {
            // Capturing frees a neighbour of the new stone, so a suicide
            // never captured anything.
            out.suicided = self.remove_chain(h);
        } else if out.captured == 1 {
            let q = point_at(last_capture);
            out.single_capture = Some(q);
            // A lone stone's pseudo-liberties are its liberties.
            if self.links.len(h) == 1 && self.libs[h] == 1 {
                out.ko = Some(q);
            }
        }
        Ok(out)
    }

    /// Setup (`AB`/`AW`/`AE`): puts a stone of the given colour on `point`, or
    /// empties it, whatever was there, and returns what was there. Nothing is
    /// captured; call [`Board::remove_chains_without_liberties`] once the whole
    /// setup is applied.
    ///
    /// # Errors
    /// When `point` is off the board; the board is unchanged.
    pub fn set(&mut self, point: Point, color: Option<Color>) -> Result<Option<Color>, PlayError> {
        if !self.size.contains(point) {
            return Err(PlayError::OffBoard(point));
        }
        let p = index(point);
        let old = color_of(self.cells[p]);
        if old != color {
            if let Some(old) = old {
                self.lift(p, old);
            }
            if let Some(color) = color {
                let _ = self.put(p, color);
            }
        }
        Ok(old)
    }

    /// Removes every chain that has no liberty, all judged on the position
    /// before any is removed (so that setup which surrounds two chains of
    /// opposite colours removes both, not whichever is found first). Returns
    /// the stones removed per colour.
    pub fn remove_chains_without_liberties(&mut self) -> ByColor<u32> {
        let mut dead = DeadChains::new();
        for i in self.cell_indices() {
            dead.consider(self, i);
        }
        dead.remove(self)
    }

    /// [`Board::remove_chains_without_liberties`] for a board that had none
    /// before stones were put on `points`: only a chain on or next to one of
    /// them can have lost its last liberty, so only those are looked at.
    pub fn remove_chains_without_liberties_near(
        &mut self,
        points: impl IntoIterator<Item = Point>,
    ) -> ByColor<u32> {
        let mut dead = DeadChains::new();
        for p in points {
            if self.size.contains(p) {
                let i = index(p);
                dead.consider(self, i);
                for n in neighbours(i) {
                    dead.consider(self, n);
                }
            }
        }
        dead.remove(self)
    }

    /// One point of every chain without a liberty: after setup, the chains
    /// [`Board::remove_chains_without_liberties`] would remove. (Play never
    /// leaves any.)
    pub fn chains_without_liberties(&self) -> impl Iterator<Item = Point> + '_ {
        self.chains().filter(|&p| !self.has_liberty(p))
    }

    /// Exact number of liberties of the chain on `point` (0 for an empty or
    /// off-board point).
    pub fn liberties(&self, point: Point) -> u32 {
        let mut count = 0;
        self.for_each_liberty(point, |_| count += 1);
        count
    }

    /// Calls `f` once for each liberty of the chain on `point`.
    pub fn for_each_liberty(&self, point: Point, mut f: impl FnMut(Point)) {
        if self.get(point).is_none() {
            return;
        }
        let mut seen = [0u64; SET_WORDS];
        let start = index(point);
        let mut s = start;
        loop {
            for n in neighbours(s) {
                if self.cells[n] == EMPTY {
                    let (word, bit) = (n / 64, 1u64 << (n % 64));
                    if seen[word] & bit == 0 {
                        seen[word] |= bit;
                        f(point_at(n));
                    }
                }
            }
            s = self.links.next(s);
            if s == start {
                break;
            }
        }
    }

    /// Whether the chain on `point` has at least one liberty, in O(1) (false
    /// for an empty point).
    pub fn has_liberty(&self, point: Point) -> bool {
        self.get(point).is_some() && self.libs[self.links.head(index(point))] > 0
    }

    /// The chain on `point`, if there is a stone.
    pub fn chain_id(&self, point: Point) -> Option<ChainId> {
        self.get(point)
            .map(|_| ChainId(self.links.head(index(point)) as u16))
    }

    /// Number of stones of the chain on `point` (0 for an empty point).
    pub fn chain_len(&self, point: Point) -> u32 {
        match self.get(point) {
            Some(_) => u32::from(self.links.len(self.links.head(index(point)))),
            None => 0,
        }
    }

    /// The stones of the chain on `point` (none for an empty point).
    pub fn chain(&self, point: Point) -> ChainStones<'_> {
        let start = if self.get(point).is_some() {
            index(point) as u16
        } else {
            0
        };
        ChainStones {
            board: self,
            start,
            cur: start,
            done: start == 0,
        }
    }

    /// One point of every chain on the board, in board order. With
    /// [`Board::chain`] this walks every chain exactly once.
    pub fn chains(&self) -> impl Iterator<Item = Point> + '_ {
        self.cell_indices()
            .filter(|&i| self.cells[i] != EMPTY && self.links.head(i) == i)
            .map(point_at)
    }

    /// The on-board neighbours of `point`.
    pub fn neighbors(&self, point: Point) -> impl Iterator<Item = Point> + '_ {
        let cells = if self.size.contains(point) {
            neighbours(index(point))
        } else {
            [0; 4]
        };
        cells
            .into_iter()
            .filter(|&n| n != 0 && self.cells[n] != BORDER)
            .map(point_at)
    }

    /// Every point of the board, row by row from the top.
    pub fn points(&self) -> impl Iterator<Item = Point> {
        self.size.iter()
    }

    /// Checks every incremental structure against a recomputation from the
    /// stones alone. For tests; slow.
    ///
    /// # Errors
    /// A description of the first inconsistency found.
    #[doc(hidden)]
    pub fn validate(&self) -> Result<(), String> {
        let mut hash = 0;
        let mut stones = [0u32; 2];
        for p in self.points() {
            let i = index(p);
            if let Some(c) = color_of(self.cells[i]) {
                hash ^= ZOBRIST[c.index()][i];
                stones[c.index()] += 1;
                let h = self.links.head(i);
                if self.cells[h] != self.cells[i] || self.links.head(h) != h {
                    return Err(format!("{p}: bad head"));
                }
                // Walk the chain from its head; it must contain this stone and
                // exactly the stones connected to it.
                let mut walked = 0u32;
                let mut pseudo = 0u32;
                let mut found = false;
                let mut s = h;
                loop {
                    walked += 1;
                    found |= s == i;
                    if self.links.head(s) != h || self.cells[s] != self.cells[i] {
                        return Err(format!("{p}: chain list crosses chains"));
                    }
                    pseudo += neighbours(s)
                        .iter()
                        .filter(|&&n| self.cells[n] == EMPTY)
                        .count() as u32;
                    for n in neighbours(s) {
                        if self.cells[n] == self.cells[i] && self.links.head(n) != h {
                            return Err(format!("{p}: adjacent stones in different chains"));
                        }
                    }
                    s = self.links.next(s);
                    if s == h || walked > MAX_POINTS as u32 {
                        break;
                    }
                }
                if !found || s != h {
                    return Err(format!("{p}: not on its chain's list"));
                }
                if walked != u32::from(self.links.len(h)) {
                    return Err(format!("{p}: length {} != {walked}", self.links.len(h)));
                }
                if pseudo != u32::from(self.libs[h]) {
                    return Err(format!(
                        "{p}: pseudo-liberties {} != {pseudo}",
                        self.libs[h]
                    ));
                }
            } else if self.cells[i] != EMPTY {
                return Err(format!("{p}: border inside the board"));
            }
        }
        if hash != self.hash {
            return Err("hash differs from recomputation".into());
        }
        if stones != self.stones {
            return Err("stone counts differ from recomputation".into());
        }
        Ok(())
    }

    /// The hash recomputed from the stones alone, for checking the
    /// incremental one.
    pub fn recompute_hash(&self) -> u64 {
        self.points()
            .filter_map(|p| self.get(p).map(|c| ZOBRIST[c.index()][index(p)]))
            .fold(0, |h, k| h ^ k)
    }

    fn cell_indices(&self) -> impl Iterator<Item = usize> {
        let (w, h) = (self.size.width() as usize, self.size.height() as usize);
        (0..h).flat_map(move |y| {
            let row = (y + 1) * STRIDE + 1;
            row..row + w
        })
    }

    /// Puts a stone on an empty cell and merges it with its friends, without
    /// removing anything. Returns which of [`neighbours`] hold an opponent
    /// chain the stone took the last liberty of (one bit per such chain), so
    /// that `play` looks for captures only when there are some.
    #[inline(always)]
    fn put(&mut self, p: usize, color: Color) -> u32 {
        let me = cell_of(color);
        let opp = cell_of(color.other());
        self.cells[p] = me;
        self.hash ^= ZOBRIST[color.index()][p];
        self.stones[color.index()] += 1;
        // Branch-free: which neighbour is what is unpredictable in real play.
        // An empty or border cell's `head` is stale but in range, and is
        // decremented by 0.
        let around = neighbours(p);
        let mut libs = 0;
        let mut friends = 0u32;
        let mut dead = 0u32;
        for (k, n) in around.into_iter().enumerate() {
            let cell = self.cells[n];
            libs += u16::from(cell == EMPTY);
            let h = self.links.head(n);
            let left = self.libs[h] - u16::from(is_stone(cell));
            self.libs[h] = left;
            friends |= u32::from(cell == me) << k;
            // A chain touching the stone twice reaches 0 only at its last
            // contact, so it is flagged once.
            dead |= u32::from((cell == opp) & (left == 0)) << k;
        }
        if friends == 0 {
            self.links.single(p);
            self.libs[p] = libs;
            return dead;
        }
        // Join the first friendly chain without relabelling it, then merge
        // any other.
        let h = self.links.head(around[friends.trailing_zeros() as usize]);
        self.links.attach(p, h);
        self.libs[h] += libs;
        friends &= friends - 1;
        while friends != 0 {
            let (a, b) = (
                self.links.head(p),
                self.links.head(around[friends.trailing_zeros() as usize]),
            );
            if a != b {
                self.merge(a, b);
            }
            friends &= friends - 1;
        }
        dead
    }

    /// Joins two chains, relabelling the smaller.
    #[inline]
    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = self.links.join(a, b);
        self.libs[big] += self.libs[small];
    }

    /// Removes the chain whose head is `h`; returns its length. The removed
    /// stones' list links are left intact (see [`Board::lift`]).
    fn remove_chain(&mut self, h: usize) -> u32 {
        let cell = self.cells[h];
        let c = (cell - 1) as usize;
        let mut s = h;
        let mut n = 0;
        loop {
            self.cells[s] = EMPTY;
            self.hash ^= ZOBRIST[c][s];
            n += 1;
            for m in neighbours(s) {
                // Stones of the chain itself not yet emptied may be bumped too;
                // harmless, the chain is going.
                let h = self.links.head(m);
                self.libs[h] += u16::from(is_stone(self.cells[m]));
            }
            s = self.links.next(s);
            if s == h {
                break;
            }
        }
        self.stones[c] -= n;
        n
    }

    /// Takes one stone off the board. Removing a stone can split its chain, so
    /// the chain is removed whole and its other stones put back one by one.
    fn lift(&mut self, p: usize, color: Color) {
        self.remove_chain(self.links.head(p));
        let mut s = self.links.next(p);
        while s != p {
            // `put` rewrites links of stones already put back only.
            let following = self.links.next(s);
            let _ = self.put(s, color);
            s = following;
        }
    }
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size && self.hash == other.hash && self.cells == other.cells
    }
}

impl Eq for Board {}

impl fmt::Display for Board {
    /// One line per row from the top, `X` black, `O` white, `.` empty: the
    /// format [`Board::from_diagram`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for y in 0..self.size.height() {
            for x in 0..self.size.width() {
                let p = Point::new(x, y).expect("on the board");
                f.write_str(match self.get(p) {
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                    None => ".",
                })?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Board {} (black {}, white {}, hash {:016x})",
            self.size, self.stones[0], self.stones[1], self.hash
        )?;
        fmt::Display::fmt(self, f)
    }
}

impl std::str::FromStr for Board {
    type Err = DiagramError;
    fn from_str(s: &str) -> Result<Board, DiagramError> {
        Board::from_diagram(s)
    }
}

/// Chains found without liberties, each once, to be removed together.
struct DeadChains {
    heads: [u16; MAX_POINTS],
    len: usize,
    seen: [u64; SET_WORDS],
}

impl DeadChains {
    fn new() -> DeadChains {
        DeadChains {
            heads: [0; MAX_POINTS],
            len: 0,
            seen: [0; SET_WORDS],
        }
    }

    /// Notes the chain on cell `i`, if there is one and it has no liberty.
    fn consider(&mut self, board: &Board, i: usize) {
        if !is_stone(board.cells[i]) {
            return;
        }
        let h = board.links.head(i);
        let (word, bit) = (h / 64, 1u64 << (h % 64));
        if board.libs[h] == 0 && self.seen[word] & bit == 0 {
            self.seen[word] |= bit;
            self.heads[self.len] = h as u16;
            self.len += 1;
        }
    }

    fn remove(&self, board: &mut Board) -> ByColor<u32> {
        let mut removed = ByColor::default();
        for &h in &self.heads[..self.len] {
            let h = h as usize;
            if let Some(color) = color_of(board.cells[h]) {
                removed[color] += board.remove_chain(h);
            }
        }
        removed
    }
}

/// The stones of one chain; see [`Board::chain`].
#[derive(Clone, Debug)]
pub struct ChainStones<'a> {
    board: &'a Board,
    start: u16,
    cur: u16,
    done: bool,
}

impl Iterator for ChainStones<'_> {
    type Item = Point;

    fn next(&mut self) -> Option<Point> {
        if self.done {
            return None;
        }
        let p = point_at(self.cur as usize);
        self.cur = self.board.links.next(self.cur as usize) as u16;
        self.done = self.cur == self.start;
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys are stored and compared between workers: they must stay the
    /// outputs of SplitMix64 from the fixed seed, written out here on its
    /// own as Vigna's splitmix64.c has it.
    #[test]
    fn zobrist_keys_are_splitmix64_of_the_seed() {
        let reference = |n: u64| {
            let mut z =
                0x7665_7264_6963_7421u64.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for (c, i) in [(0, 0), (0, 28), (1, 100), (1, CELLS - 1)] {
            assert_eq!(ZOBRIST[c][i], reference((c * CELLS + i + 1) as u64));
        }
    }

    fn pt(x: u8, y: u8) -> Point {
        Point::new(x, y).unwrap()
    }

    #[test]
    fn zobrist_keys_are_distinct() {
        let mut keys: Vec<u64> = ZOBRIST.iter().flatten().copied().collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 2 * CELLS);
    }

    #[test]
    fn smaller_boards_are_bordered() {
        let board = Board::new(BoardSize::new(3, 2).unwrap());
        assert_eq!(board.neighbors(pt(2, 1)).count(), 2);
        assert_eq!(board.neighbors(pt(1, 0)).count(), 3);
        assert_eq!(board.points().count(), 6);
        assert!(board.validate().is_ok());
    }

    #[test]
    fn lifting_a_stone_splits_its_chain() {
        let mut board = Board::from_diagram("XXX\n...\n...").unwrap();
        board.set(pt(1, 0), None).unwrap();
        board.validate().unwrap();
        assert_eq!(board.chain_len(pt(0, 0)), 1);
        assert_eq!(board.chain_len(pt(2, 0)), 1);
        assert_ne!(board.chain_id(pt(0, 0)), board.chain_id(pt(2, 0)));
    }
}
