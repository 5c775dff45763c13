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

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::playout::{nbrs, PlayoutBoard, BORDER, CELLS};

/// The most points an enclosure may have (a bit each in a `u64`).
const MAX_POINTS: usize = 64;

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
pub(crate) enum Verdict {
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
    stones: [u64; 2],
    /// The point the side to move may not take back (a ko), or [`NO_KO`].
    ko: u8,
}

/// A small multiplicative hasher: the keys are already well mixed bits.
#[derive(Default)]
struct BitsHasher(u64);

impl Hasher for BitsHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    // Arrays hash their length first: no byte loop for it.
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// Positions already tested for pass-alive defenders, by their stones.
type AliveCache = HashMap<[u64; 2], bool, BuildHasherDefault<BitsHasher>>;

/// A node of the proof-number search.
#[derive(Copy, Clone, Debug)]
struct Node {
    st: State,
    /// Whose turn: the attacker's (an OR node: one kill is enough) or the
    /// defender's (an AND node: every answer must be killed).
    attacker_moves: bool,
    passes: u8,
    /// Moves from the root: a bound on the line, and on the path walked
    /// to test a repetition.
    depth: u8,
    parent: u32,
    /// Children, at `first..first + count` in the tree, once expanded.
    first: u32,
    count: u16,
    expanded: bool,
    /// Proof and disproof numbers: how many leaves must still be proven
    /// (killed) or disproven (found living) to settle this node.
    pn: u32,
    dn: u32,
}

/// A proof or disproof number for "settled".
const INF: u32 = u32::MAX / 4;

/// Reusable scratch for reading enclosures.
#[derive(Debug, Default)]
pub(crate) struct Enclosures {
    /// Per board cell, its index in the enclosure or [`NOT_INSIDE`].
    local: Vec<u8>,
    /// Per index, the board cell.
    cells: Vec<u16>,
    /// Per index, its neighbours inside, as bits.
    around: Vec<u64>,
    /// Points next to a wall stone: an attacker chain there is part of the
    /// wall.
    by_wall: u64,
    all: u64,
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
    ) -> Verdict {
        let defender = board.stone(cell);
        if defender != 1 && defender != 2 {
            return Verdict::Open;
        }
        if !self.enclose(board, cell, &role) {
            self.reset_local();
            return Verdict::Open;
        }
        self.index(board);
        self.defender = usize::from(defender - 1);
        self.attacker = 1 - self.defender;
        self.wall = self.attacker;
        self.attacker_kos = true;
        let answer = match self.search(board) {
            Some(true) => Verdict::Dies,
            Some(false) => Verdict::Stands,
            None => Verdict::Unsure,
        };
        self.reset_local();
        answer
    }

    /// After a [`read`](Self::read) that answered [`Verdict::Stands`]: does
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

    /// Indexes the neighbours of the enclosure found.
    fn index(&mut self, board: &PlayoutBoard) {
        let n = self.cells.len();
        self.around.clear();
        self.by_wall = 0;
        for i in 0..n {
            let c = usize::from(self.cells[i]);
            let mut bits = 0u64;
            for q in nbrs(c) {
                let j = self.local[q];
                if j != NOT_INSIDE {
                    bits |= 1 << j;
                } else if board.stone(q) != BORDER {
                    self.by_wall |= 1 << i;
                }
            }
            self.around.push(bits);
        }
        self.all = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    }

    /// The points next to any point of `set`.
    fn spread(&self, set: u64) -> u64 {
        let mut out = 0;
        let mut s = set;
        while s != 0 {
            out |= self.around[s.trailing_zeros() as usize];
            s &= s - 1;
        }
        out
    }

    /// The chain of `own` stones through point `p`.
    fn chain(&self, own: u64, p: usize) -> u64 {
        let mut set = 1u64 << p;
        loop {
            let grown = (set | self.spread(set)) & own;
            if grown == set {
                return set;
            }
            set = grown;
        }
    }

    fn liberties(&self, st: &State, chain: u64) -> u64 {
        self.spread(chain) & self.all & !(st.stones[0] | st.stones[1])
    }

    /// Whether the chain of colour `side` is part of the wall (and cannot
    /// be taken).
    fn walled(&self, side: usize, chain: u64) -> bool {
        side == self.wall && chain & self.by_wall != 0
    }

    /// `side` plays at `p`; `None` when illegal (occupied, ko, suicide).
    fn play(&self, st: &State, p: usize, side: usize) -> Option<State> {
        let bit = 1u64 << p;
        if (st.stones[0] | st.stones[1]) & bit != 0 || st.ko as usize == p {
            return None;
        }
        let opp = 1 - side;
        let mut next = *st;
        next.stones[side] |= bit;
        let mut captured = 0u64;
        let mut near = self.around[p] & next.stones[opp];
        while near != 0 {
            let q = near.trailing_zeros() as usize;
            let chain = self.chain(next.stones[opp], q);
            near &= !chain;
            if !self.walled(opp, chain) && self.liberties(&next, chain) == 0 {
                captured |= chain;
            }
        }
        next.stones[opp] &= !captured;
        let own = self.chain(next.stones[side], p);
        let libs = self.liberties(&next, own);
        if libs == 0 && !self.walled(side, own) {
            return None;
        }
        next.ko = if captured.count_ones() == 1 && own == bit && libs.count_ones() == 1 {
            captured.trailing_zeros() as u8
        } else {
            NO_KO
        };
        if next.ko != NO_KO && side == self.attacker && !self.attacker_kos {
            return None;
        }
        Some(next)
    }

    /// Whether the attacker's move at `p`, from `st` to `next`, put a chain
    /// of more than [`MAX_SACRIFICE`] stones in atari without taking
    /// anything. Not reading such moves is sound: fewer attacker moves
    /// can only prove fewer deaths.
    fn big_self_atari(&self, st: &State, next: &State, p: usize) -> bool {
        if next.stones[self.defender] != st.stones[self.defender] {
            return false;
        }
        let own = self.chain(next.stones[self.attacker], p);
        own.count_ones() > MAX_SACRIFICE
            && !self.walled(self.attacker, own)
            && self.liberties(next, own).count_ones() == 1
    }

    /// [`Self::pass_alive`], each position tested once per search.
    fn pass_alive_cached(&mut self, st: &State) -> bool {
        if let Some(&alive) = self.alive.get(&st.stones) {
            return alive;
        }
        let alive = self.pass_alive(st);
        self.alive.insert(st.stones, alive);
        alive
    }

    /// Whether some defender chains are pass-alive inside the enclosure
    /// (Benson's algorithm on the points inside, the wall being the
    /// attacker's): each has two regions of its own whose empty points are
    /// all its liberties, so nothing the attacker plays can take them.
    fn pass_alive(&self, st: &State) -> bool {
        let mine = st.stones[self.defender];
        let empty = self.all & !(st.stones[0] | st.stones[1]);
        // The defender's chains and the regions between them, as bits.
        let mut chains = [0u64; 16];
        let mut nc = 0;
        let mut rest = mine;
        while rest != 0 && nc < chains.len() {
            let c = self.chain(mine, rest.trailing_zeros() as usize);
            rest &= !c;
            chains[nc] = c;
            nc += 1;
        }
        if rest != 0 {
            return false;
        }
        // At most 31 regions, so that the bit masks below cannot overflow;
        // more, like more than 16 chains, is not read as alive.
        let mut regions = [0u64; 31];
        let mut nr = 0;
        let mut rest = self.all & !mine;
        while rest != 0 {
            let r = self.chain(self.all & !mine, rest.trailing_zeros() as usize);
            rest &= !r;
            // A region next to the wall is the attacker's.
            if r & self.by_wall == 0 {
                if nr == regions.len() {
                    return false;
                }
                regions[nr] = r;
                nr += 1;
            }
        }
        let mut alive = (1u32 << nc) - 1;
        let mut useful = (1u32 << nr) - 1;
        loop {
            // Regions bordered only by chains still alive.
            for (j, &r) in regions[..nr].iter().enumerate() {
                if useful & (1 << j) == 0 {
                    continue;
                }
                let border = self.spread(r) & mine;
                let dead_border = chains[..nc]
                    .iter()
                    .enumerate()
                    .any(|(i, &c)| alive & (1 << i) == 0 && c & border != 0);
                if dead_border {
                    useful &= !(1 << j);
                }
            }
            let mut changed = false;
            for (i, &chain) in chains[..nc].iter().enumerate() {
                if alive & (1 << i) == 0 {
                    continue;
                }
                let libs = self.spread(chain) & empty;
                let vital = regions[..nr]
                    .iter()
                    .enumerate()
                    .filter(|&(j, &r)| {
                        useful & (1 << j) != 0
                            && self.spread(r) & chain != 0
                            && r & empty & !libs == 0
                    })
                    .count();
                if vital < 2 {
                    alive &= !(1 << i);
                    changed = true;
                }
            }
            if !changed {
                return alive != 0;
            }
        }
    }

    /// The empty points `side` may play, best first: captures, then
    /// escapes from atari, then the points with the most empty neighbours
    /// (the vital point of an eye space).
    fn moves(&self, st: &State, side: usize, out: &mut [u8]) -> usize {
        let empty = self.all & !(st.stones[0] | st.stones[1]);
        let (takes, saves) = (self.atari_points(st, 1 - side), self.atari_points(st, side));
        let mut count = 0;
        for first in [takes, saves & !takes, empty & !takes & !saves] {
            for want in (0..=4).rev() {
                let mut e = first;
                while e != 0 {
                    let p = e.trailing_zeros() as usize;
                    e &= e - 1;
                    if (self.around[p] & empty).count_ones() == want {
                        out[count] = p as u8;
                        count += 1;
                    }
                }
            }
        }
        count
    }

    /// The liberties of the chains of `side` in atari (not the wall's).
    fn atari_points(&self, st: &State, side: usize) -> u64 {
        let mut points = 0;
        let mut rest = st.stones[side];
        while rest != 0 {
            let chain = self.chain(st.stones[side], rest.trailing_zeros() as usize);
            rest &= !chain;
            let libs = self.liberties(st, chain);
            if libs.count_ones() == 1 && !self.walled(side, chain) {
                points |= libs;
            }
        }
        points
    }

    /// Whether every defender stone is captured by force from `root`, the
    /// attacker moving first (`None`: out of `budget`): a proof-number
    /// search, which reads the lines with the fewest answers first, so a
    /// long forcing kill is found within a budget that a full-width search
    /// spends in its first few moves.
    fn prove(&mut self, root: State, budget: u32) -> Option<bool> {
        self.tree.clear();
        self.alive.clear();
        let mut root = Node {
            st: root,
            attacker_moves: true,
            passes: 0,
            depth: 0,
            parent: u32::MAX,
            first: 0,
            count: 0,
            expanded: false,
            pn: 1,
            dn: 1,
        };
        self.settle_leaf(&mut root, 0);
        self.tree.push(root);
        while self.tree[0].pn != 0 && self.tree[0].dn != 0 {
            if self.tree.len() as u32 > budget {
                return None;
            }
            // Down to the most proving leaf.
            let mut at = 0usize;
            while self.tree[at].expanded {
                let node = self.tree[at];
                let kids = node.first as usize..node.first as usize + node.count as usize;
                let next = if node.attacker_moves {
                    kids.min_by_key(|&k| self.tree[k].pn)
                } else {
                    kids.min_by_key(|&k| self.tree[k].dn)
                };
                // An expanded node without children is settled and never
                // chosen; should one be, there is no answer.
                at = next?;
            }
            self.expand(at);
            // Back up to the root.
            let mut up = at;
            loop {
                let node = self.tree[up];
                let kids =
                    &self.tree[node.first as usize..(node.first as usize + node.count as usize)];
                let (pn, dn) = if node.count == 0 {
                    (node.pn, node.dn)
                } else if node.attacker_moves {
                    (
                        kids.iter().map(|k| k.pn).min().unwrap_or(INF),
                        kids.iter().map(|k| k.dn).fold(0, |a, b| (a + b).min(INF)),
                    )
                } else {
                    (
                        kids.iter().map(|k| k.pn).fold(0, |a, b| (a + b).min(INF)),
                        kids.iter().map(|k| k.dn).min().unwrap_or(INF),
                    )
                };
                self.tree[up].pn = pn;
                self.tree[up].dn = dn;
                if node.parent == u32::MAX {
                    break;
                }
                up = node.parent as usize;
            }
        }
        Some(self.tree[0].pn == 0)
    }

    /// Sets a new node's numbers when the position is already settled:
    /// the defender captured for good (proven), two passes, a big capture
    /// by the defender, a pass-alive defender, or a line too long
    /// (disproven). Testing pass-alive on every new node, not only on
    /// those expanded, costs more per node but tells the search early
    /// which lines are hopeless: it proves more within the same budget.
    fn settle_leaf(&mut self, node: &mut Node, attacker_before: u32) {
        let st = &node.st;
        // Captured for good: no captor can be taken back (a snapback).
        let proven = st.stones[self.defender] == 0 && self.atari_points(st, self.attacker) == 0;
        let lost = attacker_before.saturating_sub(st.stones[self.attacker].count_ones());
        let disproven = !proven
            && (node.passes >= 2
                || usize::from(node.depth) >= MAX_LINE
                // The space a big capture opens is too big to read, and
                // the attacker seldom wins it back: counted as living.
                || lost > MAX_SACRIFICE
                || self.pass_alive_cached(st));
        (node.pn, node.dn) = if proven {
            (0, INF)
        } else if disproven {
            (INF, 0)
        } else {
            (1, 1)
        };
    }

    /// Adds the children of leaf `at`: every legal move and the pass,
    /// less repetitions of a position on the line and the attacker's big
    /// self-ataris ([`Self::big_self_atari`]).
    fn expand(&mut self, at: usize) {
        let node = self.tree[at];
        let side = if node.attacker_moves {
            self.attacker
        } else {
            self.defender
        };
        let mut moves = [0u8; MAX_POINTS + 1];
        let mut n = self.moves(&node.st, side, &mut moves);
        moves[n] = PASS;
        n += 1;
        let first = self.tree.len();
        for &m in &moves[..n] {
            let (st, passes) = if m == PASS {
                (
                    State {
                        ko: NO_KO,
                        ..node.st
                    },
                    node.passes + 1,
                )
            } else {
                let Some(next) = self.play(&node.st, usize::from(m), side) else {
                    continue;
                };
                if node.attacker_moves && self.big_self_atari(&node.st, &next, usize::from(m)) {
                    continue;
                }
                if self.repeats(at, &next.stones) {
                    continue;
                }
                (next, 0)
            };
            let mut child = Node {
                st,
                attacker_moves: !node.attacker_moves,
                passes,
                depth: node.depth + 1,
                parent: at as u32,
                first: 0,
                count: 0,
                expanded: false,
                pn: 1,
                dn: 1,
            };
            self.settle_leaf(&mut child, node.st.stones[self.attacker].count_ones());
            self.tree.push(child);
        }
        let count = (self.tree.len() - first) as u16;
        let node = &mut self.tree[at];
        node.first = first as u32;
        node.count = count;
        node.expanded = true;
        if node.count == 0 {
            // The pass is always there; should nothing be, the line is
            // not a kill.
            (node.pn, node.dn) = (INF, 0);
        }
    }

    /// Whether `stones` were on the board at node `at` or above it.
    fn repeats(&self, mut at: usize, stones: &[u64; 2]) -> bool {
        loop {
            let node = &self.tree[at];
            if node.st.stones == *stones {
                return true;
            }
            if node.parent == u32::MAX {
                return false;
            }
            at = node.parent as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    //! Enclosures drawn by hand. The wall is every attacker stone not
    //! listed as inside, taken as pass-alive.

    use super::*;

    fn board(diagram: &str) -> PlayoutBoard {
        PlayoutBoard::from_diagram(diagram)
    }

    /// Reads the defender chain on (x, y). Attacker stones on `inside`
    /// points are inside the enclosure, those on `plain` points are a wall
    /// that is not pass-alive, and the others are a pass-alive wall.
    fn read_with(
        diagram: &str,
        at: (usize, usize),
        inside: &[(usize, usize)],
        plain: &[(usize, usize)],
    ) -> Verdict {
        read_in(
            &mut Enclosures::default(),
            &board(diagram),
            at,
            inside,
            plain,
            &[],
        )
    }

    /// [`read_with`] on a board, with the enclosure kept in `e`.
    fn read_in(
        e: &mut Enclosures,
        b: &PlayoutBoard,
        (x, y): (usize, usize),
        inside: &[(usize, usize)],
        plain: &[(usize, usize)],
        prisoners: &[(usize, usize)],
    ) -> Verdict {
        let cell = PlayoutBoard::cell(x, y);
        let defender = b.stone(cell);
        let heads = |points: &[(usize, usize)]| -> Vec<usize> {
            points
                .iter()
                .map(|&(x, y)| b.head_of(PlayoutBoard::cell(x, y)))
                .collect()
        };
        let (inner, plain, prisoners) = (heads(inside), heads(plain), heads(prisoners));
        e.read(b, cell, |n| {
            if prisoners.contains(&b.head_of(n)) {
                Role::Prisoner
            } else if b.stone(n) == defender || inner.contains(&b.head_of(n)) {
                Role::Inside
            } else if plain.contains(&b.head_of(n)) {
                Role::Wall
            } else {
                Role::SureWall
            }
        })
    }

    /// Reads the defender on `at`, then whether it takes every attacker
    /// stone inside.
    fn read_and_take(
        diagram: &str,
        at: (usize, usize),
        inside: &[(usize, usize)],
    ) -> (Verdict, bool) {
        let b = board(diagram);
        let mut e = Enclosures::default();
        let verdict = read_in(&mut e, &b, at, inside, &[], &[]);
        (verdict, e.takes_inside(&b))
    }

    fn read(diagram: &str, at: (usize, usize), inside: &[(usize, usize)]) -> Verdict {
        read_with(diagram, at, inside, &[])
    }

    /// The bottom right of KGS 2017-02-13-1: White's two chains share two
    /// liberties on the left, and two Black stones sit in the space on the
    /// right. Whoever fills a shared point first loses: seki.
    const SEKI_WITH_TWO_INSIDE: &str = "
        . X X . X X .
        . . X X O X X
        . X X O O O O
        X X O . O . X
        X O O . O X .";

    #[test]
    fn seki_with_stones_inside_stands() {
        assert_eq!(
            read(SEKI_WITH_TWO_INSIDE, (4, 2), &[(6, 3), (5, 4)]),
            Verdict::Stands
        );
    }

    #[test]
    fn stones_whose_other_liberty_is_a_pocket_are_no_wall() {
        // The two Black stones on the right, taken for a wall, would cut the
        // empty corner point off the enclosure: White could not play there,
        // and would lose the seki. They are inside instead.
        assert_eq!(
            read_with(SEKI_WITH_TWO_INSIDE, (4, 2), &[], &[(6, 3), (5, 4)]),
            Verdict::Stands
        );
    }

    /// White's corner has one eye, two points, and a liberty at e9 between
    /// Black's wall and Black's f9. That stone's only empty point outside
    /// is f8; its other neighbour outside is g9, a White stone in atari.
    const WALL_NEXT_TO_A_PRISONER: &str = "
        O O O O . X O . X
        O . . O X . X X X
        O O O O X . . . .
        X X X X X . . . .
        . . . . . . . . .";

    #[test]
    fn a_dead_stone_next_to_a_wall_is_room_for_it() {
        let walls = [(4, 1), (5, 0), (6, 1)];
        // g9 known dead: f9 has room enough (f8 and g9) to stand as a
        // wall, and the corner dies as a two-point eye does.
        let b = board(WALL_NEXT_TO_A_PRISONER);
        let mut e = Enclosures::default();
        let verdict = read_in(&mut e, &b, (0, 0), &[], &walls, &[(6, 0)]);
        assert_eq!(verdict, Verdict::Dies);
        // Not known dead, g9 is the defender's: f9 has one liberty
        // outside, joins the inside, and the space opens onto the whole
        // board, too big to read.
        assert_eq!(
            read_with(WALL_NEXT_TO_A_PRISONER, (0, 0), &[], &walls),
            Verdict::Open
        );
    }

    #[test]
    fn a_dead_stone_whose_liberties_are_the_walls_own_is_no_room() {
        let head = |b: &PlayoutBoard, x, y| b.head_of(PlayoutBoard::cell(x, y));
        // White's b9 has one liberty, c9, which Black's chain also has.
        let b = board(
            "
            X O .
            X X X
            . . .",
        );
        assert!(cornered(&b, head(&b, 1, 0), head(&b, 0, 0)));
        // Without c8, c9 is b9's alone: taking b9 there is room gained.
        let b = board(
            "
            X O .
            X X .
            . . .",
        );
        assert!(!cornered(&b, head(&b, 1, 0), head(&b, 0, 0)));
    }

    /// A White ring around `eye` (one row of the middle), walled in by
    /// Black.
    fn ring(eye: &str) -> String {
        let n = eye.split_whitespace().count() + 4;
        let full = vec!["X"; n].join(" ");
        let ring = format!("X {} X", vec!["O"; n - 2].join(" "));
        format!("{full}\n{ring}\nX O {eye} O X\n{ring}\n{full}")
    }

    #[test]
    fn straight_three_dies_to_its_vital_point() {
        assert_eq!(read(&ring(". . ."), (1, 1), &[]), Verdict::Dies);
    }

    #[test]
    fn a_stone_inside_a_three_point_eye_kills() {
        assert_eq!(read(&ring("X . ."), (1, 1), &[(2, 2)]), Verdict::Dies);
    }

    #[test]
    fn two_eyes_stand() {
        assert_eq!(read(&ring(". O ."), (1, 1), &[]), Verdict::Stands);
    }

    #[test]
    fn straight_four_stands() {
        assert_eq!(read(&ring(". . . ."), (1, 1), &[]), Verdict::Stands);
    }

    #[test]
    fn an_open_group_is_not_read() {
        // The ring's wall has a gap: the space runs out to the open board.
        let d = "
            X X X . X X X . . .
            X O O O O O X . . .
            X O . . . O X . . .
            X O O O O O . . . .
            X X X X X X . . . .
            . . . . . . . . . .
            . . . . . . . . . .
            . . . . . . . . . .";
        assert_eq!(read(d, (1, 1), &[]), Verdict::Open);
    }

    /// The top right of KGS 2017-01-21-19: Black's chain has no liberty
    /// outside White's wall, only its eye (i2) and the points it shares
    /// with White's six stones inside, which have no eye. Black cannot be
    /// killed, and moving first it takes them all: they are dead.
    const RACE_WITHOUT_OUTSIDE_LIBERTIES: &str = "
        O O O O X X X X X
        O . O X X . O X .
        O O O X . O O X X
        X X X X O . O X O
        X X X X . O X O O
        O X O X X X X O O
        O O O O X O O O O";

    #[test]
    fn a_chain_with_no_liberty_outside_takes_the_stones_inside() {
        let inside = [(6, 1), (4, 3), (5, 4)];
        assert_eq!(
            read_and_take(RACE_WITHOUT_OUTSIDE_LIBERTIES, (4, 0), &inside),
            (Verdict::Stands, true)
        );
    }

    /// Black's group (two eyes) holds a White stone at f5 in atari; its
    /// only liberty, f6, is a pocket in White's wall.
    const TAKEN_IN_A_KO: &str = "
        O O O O O O O O
        O X X X X X X O
        O X . X . X X O
        O X X X X X X O
        O X X X X O X O
        O O O O O . O O
        O O O O O O O O
        . . . . . . . .";

    #[test]
    fn a_stone_taken_only_in_a_ko_is_left_standing() {
        // Taking f5 at f6 leaves Black's stone there with one liberty: a
        // ko, which the game left open. With an empty point below f6 the
        // same capture is for good.
        assert_eq!(
            read_and_take(TAKEN_IN_A_KO, (1, 1), &[(5, 4)]),
            (Verdict::Stands, false)
        );
        let no_ko = "
            O O O O O O O O
            O X X X X X X O
            O X . X . X X O
            O X X X X X X O
            O X X X X O X O
            O O O O O . O O
            O O O O O . O O
            O O O O O O O O";
        assert_eq!(
            read_and_take(no_ko, (1, 1), &[(5, 4)]),
            (Verdict::Stands, true)
        );
    }

    /// The top right of KGS 2017-01-22-34: White's two chains (f1-e2-f2-e3
    /// and h2-g3-h3-h4-i4) and the stone d1 have no eye; Black's stones
    /// inside (g1-h1, i2) share their liberties. Black kills, but only by
    /// a long forcing line (c1 puts d1 in atari, taking it at e1 puts the
    /// big chain in atari, then the race), which a full-width search of
    /// the same budget never reached.
    const LONG_RACE: &str = "
        X X . O . O X X .
        X X X X O O . O X
        X X X X O X O O .
        X X X X X X X O O
        X X X X X X X X X
        . . . . . . . . .";

    #[test]
    fn a_kill_by_a_long_forcing_line_is_found() {
        assert_eq!(read(LONG_RACE, (5, 0), &[(6, 0), (8, 1)]), Verdict::Dies);
    }
}
