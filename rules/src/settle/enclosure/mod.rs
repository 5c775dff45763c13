//! Life and death inside an enclosure, read to the end.
//!
//! The playouts misjudge groups whose fate is a matter of eye shape: a
//! group shut in by the other colour that dies to a stone on its vital
//! point (nakade), or that lives only while nobody breaks its eye by a
//! ko. The tactical reader ([`super::reading`]) counts liberties and
//! cannot see eyes. But such a group is small and shut in: every move that
//! matters is inside the enclosure, so it can be read to the end.
//!
//! The enclosure is the connected set of points around the group that are
//! not stones of a *wall*: opponent chains the layers above found alive
//! with confidence. Stones of either colour inside are part of it. The
//! wall is taken as uncapturable, which is sound only when it cannot be
//! captured from inside, since the defender has no move outside: a wall
//! chain must be pass-alive or have [`WALL_LIBERTIES`] liberties outside
//! the enclosure, and not just the two points of one eye. One that has
//! fewer (a pair of stones inside whose other liberty is a pocket of the
//! enclosure) is inside after all.
//!
//! The question is the one the rules ask of a group at the end (Japanese
//! 1989 rules, article 7): can the opponent, moving first, capture it? So
//! the attacker moves first, both sides may play any point inside or pass,
//! the first to take a ko wins it (no immediate retake, no position
//! repeated on a line of play), and the game ends at two passes: the
//! defender lives if any of its stones are still there (alive, or in
//! seki), and is dead once all of them are captured (the space is too
//! small to start again under a living wall).
//!
//! The search is proof-number search: it grows the tree of lines where
//! the defender has the fewest answers left, so a long forcing kill (a
//! race won by a throw-in, a nakade after a capture) is found within a
//! budget that a full-width search spends on its first few moves. A line
//! repeating a position higher up is not played.
//!
//! Only a proof of death is acted on. Reading that runs out of its node
//! budget is no proof, so it counts as life, and so does every shortcut
//! the search takes (the attacker's moves it leaves out, a big capture by
//! the defender counted as living): each can only prove fewer deaths.

use super::playout::{PlayoutBoard, BORDER};
use crate::board::chains::{neighbours as nbrs, CELLS};

mod eyes;
mod search;
mod space;

use search::{AliveCache, Node};

/// A set of points of an enclosure, a bit each. 64 bits, not 128: with
/// `u128` every set operation costs two words and enclosures of 64 to 128
/// points (which no budget here reads to the end) get searched; measured by
/// callgrind over 400 KGS games, that was 11% more instructions for the
/// whole run and not one answer changed on ../shared/corpora.
type Bits = u64;

/// The most points an enclosure may have (a bit each in a [`Bits`]).
const MAX_POINTS: usize = Bits::BITS as usize;

/// The most empty points: the search is exponential in them.
const MAX_EMPTY: usize = 14;

/// Positions in the search tree before giving up, per enclosure.
///
/// Measured on the marked KGS games over 16 playout seeds (mean games
/// exact / winner flips) and on `verdict run ../shared/corpora -j 1`:
/// 2,000 everywhere: 393.6 / 2.94; 10,000 everywhere: 394.4 / 2.63 but
/// the corpus run 25% slower, nearly all of it spent in enclosures of
/// ten or more empty points that no budget here finishes; 10,000 up to
/// [`SMALL_SPACE`] empty points and 2,000 above: 394.4 / 2.63 at about
/// the cost of 2,000 everywhere. 20,000 and 50,000 prove nothing more.
const NODE_BUDGET: u32 = 2_000;

/// The most empty points of an enclosure read with the larger budget.
const SMALL_SPACE: u32 = 8;

/// The budget for enclosures of up to [`SMALL_SPACE`] empty points: the
/// race of KGS 2017-01-22-34 (five empty points) needs about 9,500.
const SMALL_SPACE_BUDGET: u32 = 10_000;

/// The longest line read, passes included.
const MAX_LINE: usize = 60;

/// The most stones the attacker gives up in one chain: enough for the
/// sacrifices that kill (nakade shapes up to the flower six, the four
/// stones of a bent four in the corner). Reading bigger ones opens a
/// space too big to read: the attacker does not play them, and the
/// defender taking more than this many is counted as living.
pub(super) const MAX_SACRIFICE: u32 = 6;

/// Liberties outside the enclosure a wall chain needs (unless pass-alive).
/// Two that are the points of one two-point eye do not count: see
/// [`one_small_eye`].
const WALL_LIBERTIES: usize = 2;

/// Whether the two points `libs` are one eye of `color`: next to each
/// other, and every other neighbour of theirs a `color` stone or the
/// edge. A wall chain whose liberties outside are only such an eye has
/// one eye, and needs the inside for a second: the defender, moving
/// outside, can fill one point and put it in atari once its liberties
/// inside are gone (KGS 2017-02-13-1, a seki that a wall of this kind
/// read as a kill).
fn one_small_eye(board: &PlayoutBoard, libs: [usize; 2], color: u8) -> bool {
    let [a, b] = libs;
    nbrs(a).contains(&b)
        && [a, b].into_iter().all(|p| {
            nbrs(p)
                .into_iter()
                .all(|n| n == a || n == b || board.stone(n) == color || board.stone(n) == BORDER)
        })
}

/// Whether every liberty of chain `prisoner` is also one of chain
/// `wall`'s. Such a dead chain is no room for the wall: taking it fills a
/// liberty of the wall's own, and while it stands the two are in a race
/// (KGS 2015-09-07-1: a stone in atari on the only liberty outside of a
/// chain that is itself short of liberties).
fn cornered(board: &PlayoutBoard, prisoner: usize, wall: usize) -> bool {
    let mut libs = [0usize; 4];
    let n = board.liberties(prisoner, &mut libs);
    n < libs.len()
        && libs[..n].iter().all(|&l| {
            nbrs(l)
                .iter()
                .any(|&q| board.stone(q) == board.stone(wall) && board.head_of(q) == wall)
        })
}

/// Times the enclosure is found again after taking chains off the wall.
const MAX_ATTEMPTS: usize = 4;

const NOT_INSIDE: u8 = u8::MAX;
const NO_KO: u8 = u8::MAX;
const PASS: u8 = u8::MAX;

/// What a stone on the board is to the enclosure around a defender.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// An attacker chain that stands: the enclosure stops at it.
    Wall,
    /// A pass-alive attacker chain: a wall that needs no liberty outside.
    SureWall,
    /// Inside the enclosure, to be read.
    Inside,
    /// A defender chain that cannot die: nothing to read.
    Unkillable,
    /// A defender chain the layers above found dead with confidence:
    /// inside when the enclosure reaches it, and otherwise room for the
    /// wall chains next to it (see [`Enclosures::prisoners_next_to`]).
    Prisoner,
}

/// The answer for one enclosure.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Every defending stone inside is captured, the attacker moving first.
    Dies,
    /// The defender keeps stones inside whatever the attacker plays first
    /// (read to the end).
    Stands,
    /// Not read to the end within the budget: no answer.
    Unsure,
    /// No enclosure to read: too big, or a defender that cannot die.
    Open,
}

/// One position inside the enclosure: a bit per point and colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    stones: [Bits; 2],
    /// The point the side to move may not take back (a ko), or [`NO_KO`].
    ko: u8,
}

/// Reusable scratch for reading enclosures.
#[derive(Debug, Default)]
pub(crate) struct Enclosures {
    /// Per board cell, its index in the enclosure or [`NOT_INSIDE`].
    local: Vec<u8>,
    /// Per index, the board cell.
    cells: Vec<u16>,
    /// Per index, its neighbours inside, as bits.
    around: Vec<Bits>,
    /// Points next to a wall stone: an attacker chain there is part of the
    /// wall.
    by_wall: Bits,
    all: Bits,
    /// Heads of the wall chains found.
    walls: Vec<usize>,
    /// Heads of chains the role called wall that are inside after all.
    demoted: Vec<usize>,
    /// Index into `State::stones` of each side (board colour code - 1).
    attacker: usize,
    defender: usize,
    /// The wall's colour, as an index: stones of it next to the wall are
    /// the wall.
    wall: usize,
    /// Whether the attacker may take a ko.
    attacker_kos: bool,
    tree: Vec<Node>,
    /// The same position is reached by many orders of moves: its
    /// pass-alive test is kept.
    alive: AliveCache,
    /// Scratch for the pass-alive test.
    incidence: crate::life::Incidence,
    /// Positions read per enclosure when not the default budget
    /// ([`Enclosures::set_budget`]).
    budget: Option<u32>,
}

impl Enclosures {
    /// Reads with `budget` positions per enclosure from now on (`None`:
    /// the default, which depends on the enclosure's size).
    pub(crate) fn set_budget(&mut self, budget: Option<u32>) {
        self.budget = budget;
    }

    /// The board cells of the last enclosure read.
    pub(crate) fn cells(&self) -> impl Iterator<Item = usize> + '_ {
        self.cells.iter().map(|&c| usize::from(c))
    }

    /// Reads the enclosure around the defender chain on `cell` of `board`,
    /// every stone classed by `role`: does the defender die, the attacker
    /// moving first?
    pub(crate) fn read(
        &mut self,
        board: &PlayoutBoard,
        cell: usize,
        role: impl Fn(usize) -> Role,
    ) -> Answer {
        let defender = board.stone(cell);
        if defender != 1 && defender != 2 {
            return Answer::Open;
        }
        if !self.enclose(board, cell, &role) {
            self.reset_local();
            return Answer::Open;
        }
        self.index(board);
        self.defender = usize::from(defender - 1);
        self.attacker = 1 - self.defender;
        self.wall = self.attacker;
        self.attacker_kos = true;
        let answer = match self.search(board) {
            Some(true) => Answer::Dies,
            Some(false) => Answer::Stands,
            None => Answer::Unsure,
        };
        self.reset_local();
        answer
    }

    /// After a [`read`](Self::read) that answered [`Answer::Stands`]: does
    /// the defender, moving first, capture every attacker stone inside
    /// that enclosure (its wall still standing)? A race the defender's
    /// chain wins inside, with no liberty outside, is settled here: the
    /// wall test keeps such a chain from walling in the stones it kills.
    pub(crate) fn takes_inside(&mut self, board: &PlayoutBoard) -> bool {
        let attacker = self.attacker as u8 + 1;
        // A stone next to the wall is part of it.
        let walled =
            self.cells.iter().enumerate().any(|(i, &c)| {
                board.stone(usize::from(c)) == attacker && self.by_wall & (1 << i) != 0
            });
        if walled {
            return false;
        }
        // A ko the defender could take first is left open, as the game
        // left it: taking it would need a threat.
        std::mem::swap(&mut self.attacker, &mut self.defender);
        self.attacker_kos = false;
        let takes = self.search(board) == Some(true);
        std::mem::swap(&mut self.attacker, &mut self.defender);
        takes
    }

    /// Whether every defender stone in the enclosure indexed is captured
    /// by force, the attacker moving first; `None` when the search ran
    /// out of its budget.
    fn search(&mut self, board: &PlayoutBoard) -> Option<bool> {
        let mut start = State {
            stones: [0; 2],
            ko: NO_KO,
        };
        for (i, &c) in self.cells.iter().enumerate() {
            match board.stone(usize::from(c)) {
                1 => start.stones[0] |= 1 << i,
                2 => start.stones[1] |= 1 << i,
                _ => {}
            }
        }
        if start.stones[self.defender] == 0 {
            return Some(false);
        }
        let empty = (self.all & !(start.stones[0] | start.stones[1])).count_ones();
        let budget = self.budget.unwrap_or(if empty <= SMALL_SPACE {
            SMALL_SPACE_BUDGET
        } else {
            NODE_BUDGET
        });
        self.prove(start, budget)
    }

    /// Clears the per-cell index, touching only the cells set.
    fn reset_local(&mut self) {
        for &c in &self.cells {
            self.local[usize::from(c)] = NOT_INSIDE;
        }
    }

    /// Finds the enclosure; false when there is none worth reading.
    ///
    /// A wall chain with fewer than [`WALL_LIBERTIES`] liberties outside is
    /// not a wall (the defender could capture it, or its outside liberty is
    /// a pocket the defender may play in): it joins the inside and the
    /// enclosure is found again.
    fn enclose(
        &mut self,
        board: &PlayoutBoard,
        cell: usize,
        role: &impl Fn(usize) -> Role,
    ) -> bool {
        if self.local.len() != CELLS {
            self.local = vec![NOT_INSIDE; CELLS];
        }
        self.demoted.clear();
        for _attempt in 0..MAX_ATTEMPTS {
            if !self.fill(board, cell, role) {
                return false;
            }
            let before = self.demoted.len();
            let mut libs = [0usize; 8];
            for &h in &self.walls {
                if role(h) == Role::SureWall {
                    continue;
                }
                let n = board.liberties(h, &mut libs);
                let mut outside = [0usize; 2];
                let mut count = 0;
                for &l in &libs[..n] {
                    if self.local[l] == NOT_INSIDE {
                        if count < 2 {
                            outside[count] = l;
                        }
                        count += 1;
                    }
                }
                // Two liberties that are one small eye count as one.
                let count = if count == 2 && one_small_eye(board, outside, board.stone(h)) {
                    1
                } else {
                    count
                };
                if count < WALL_LIBERTIES
                    && count + self.prisoners_next_to(board, h, role) < WALL_LIBERTIES
                {
                    self.demoted.push(h);
                }
            }
            if self.demoted.len() == before {
                return true;
            }
            self.reset_local();
        }
        false
    }

    /// Dead chains of the defender's colour next to wall chain `h`, outside
    /// the enclosure: each is room the wall takes whenever it needs it, a
    /// liberty in all but name (KGS 2015-01-03-32: a one-stone wall whose
    /// other points outside are two dead stones in the corner). Not one
    /// whose liberties are all the wall's own ([`cornered`]).
    fn prisoners_next_to(
        &self,
        board: &PlayoutBoard,
        h: usize,
        role: &impl Fn(usize) -> Role,
    ) -> usize {
        let mut heads = [0usize; WALL_LIBERTIES];
        let mut n = 0;
        for stone in board.stones(h) {
            for q in nbrs(stone) {
                let s = board.stone(q);
                if s == BORDER
                    || s == 0
                    || s == board.stone(h)
                    || self.local[q] != NOT_INSIDE
                    || role(q) != Role::Prisoner
                {
                    continue;
                }
                let head = board.head_of(q);
                if !heads[..n].contains(&head) && !cornered(board, head, h) {
                    heads[n] = head;
                    n += 1;
                    if n == WALL_LIBERTIES {
                        return n;
                    }
                }
            }
        }
        n
    }

    /// Fills the enclosure from `cell` up to the walls; false when it grows
    /// too big or holds a defender that cannot die.
    fn fill(&mut self, board: &PlayoutBoard, cell: usize, role: &impl Fn(usize) -> Role) -> bool {
        let defender = board.stone(cell);
        self.cells.clear();
        self.walls.clear();
        self.local[cell] = 0;
        self.cells.push(cell as u16);
        let mut empty = 0;
        let mut k = 0;
        while k < self.cells.len() {
            let c = usize::from(self.cells[k]);
            k += 1;
            for n in nbrs(c) {
                let s = board.stone(n);
                if s == BORDER || self.local[n] != NOT_INSIDE {
                    continue;
                }
                if s != 0 {
                    match role(n) {
                        Role::Unkillable => return false,
                        Role::Wall | Role::SureWall if s != defender => {
                            let h = board.head_of(n);
                            if !self.demoted.contains(&h) {
                                if !self.walls.contains(&h) {
                                    self.walls.push(h);
                                }
                                continue;
                            }
                        }
                        _ => {}
                    }
                } else {
                    empty += 1;
                }
                if self.cells.len() == MAX_POINTS || empty > MAX_EMPTY {
                    return false;
                }
                self.local[n] = self.cells.len() as u8;
                self.cells.push(n as u16);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
