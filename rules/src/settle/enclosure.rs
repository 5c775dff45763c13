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
//! the enclosure. One that has fewer (a pair of stones inside whose other
//! liberty is a pocket of the enclosure) is inside after all.
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
//! Only a proof of death is acted on. Reading that runs out of depth or of
//! its node budget is no proof, so it counts as life; and the table of
//! positions read ignores which earlier positions a line may not repeat,
//! a shortcut every practical solver takes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::playout::{nbrs, PlayoutBoard, BORDER, CELLS};

/// The most points an enclosure may have (a bit each in a `u64`).
const MAX_POINTS: usize = 64;

/// The most empty points: the search is exponential in them.
const MAX_EMPTY: usize = 14;

/// Positions read per enclosure before giving up. On the marked KGS games
/// 2,000 settles exactly what 20,000 does (the nakade found need a few
/// hundred), and 20,000 made the corpus run 57% slower.
const NODE_BUDGET: u32 = 2_000;

/// Moves read ahead, both sides and passes together.
const MAX_DEPTH: usize = 24;

/// Liberties outside the enclosure a wall chain needs (unless pass-alive).
const WALL_LIBERTIES: usize = 2;

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
}

/// The answer for one enclosure.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Every defending stone inside is captured, the attacker moving first.
    Dies,
    /// Not proven dead: the defender keeps stones inside whatever the
    /// attacker plays first, or the reading ran out of its budget.
    Stands,
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

    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }
}

type Table = HashMap<(State, bool, u8), bool, BuildHasherDefault<BitsHasher>>;

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
    table: Table,
    path: Vec<[u64; 2]>,
    nodes: u32,
}

impl Enclosures {
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
        self.table.clear();
        self.path.clear();
        self.nodes = 0;
        let answer = if self.dies(start, true, 0, 0) {
            Verdict::Dies
        } else {
            Verdict::Stands
        };
        self.reset_local();
        answer
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
                let outside = libs[..n]
                    .iter()
                    .filter(|&&l| self.local[l] == NOT_INSIDE)
                    .count();
                if outside < WALL_LIBERTIES {
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

    /// Whether the chain of colour `side` is part of the wall.
    fn walled(&self, side: usize, chain: u64) -> bool {
        side == self.attacker && chain & self.by_wall != 0
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
        Some(next)
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

    /// The empty points, best first: those with the most empty
    /// neighbours (the vital point of an eye space) first.
    fn moves(&self, st: &State, out: &mut [u8]) -> usize {
        let empty = self.all & !(st.stones[0] | st.stones[1]);
        let mut count = 0;
        for want in (0..=4).rev() {
            let mut e = empty;
            while e != 0 {
                let p = e.trailing_zeros() as usize;
                e &= e - 1;
                if (self.around[p] & empty).count_ones() == want {
                    out[count] = p as u8;
                    count += 1;
                }
            }
        }
        count
    }

    /// Whether every defending stone is captured by force from `st`
    /// (`attacker_moves`: whose turn; `passes`: passes in a row). Running
    /// out of depth or budget is not a proof: it answers false, and so do
    /// the positions above it, which is all a proof of death needs.
    fn dies(&mut self, st: State, attacker_moves: bool, passes: u8, depth: usize) -> bool {
        if st.stones[self.defender] == 0 {
            return true;
        }
        if passes >= 2 {
            return false;
        }
        // A position in the table was not pass-alive when it was stored:
        // only new ones need the test.
        let key = (st, attacker_moves, passes);
        let known = self.table.get(&key).copied();
        if known.is_none() && self.pass_alive(&st) {
            return false;
        }
        self.nodes += 1;
        if self.nodes > NODE_BUDGET || depth >= MAX_DEPTH {
            return false;
        }
        if let Some(dies) = known {
            return dies;
        }
        let side = if attacker_moves {
            self.attacker
        } else {
            self.defender
        };
        let mut moves = [0u8; MAX_POINTS + 1];
        let mut n = 0;
        // The defender passes first (seki is kept by passing), the
        // attacker last (passing only helps it when it is lost anyway).
        if !attacker_moves {
            moves[0] = PASS;
            n = 1;
        }
        n += self.moves(&st, &mut moves[n..]);
        if attacker_moves {
            moves[n] = PASS;
            n += 1;
        }
        // The attacker needs one move that kills, the defender one that
        // lives.
        let mut answer = !attacker_moves;
        for &m in &moves[..n] {
            let dies = if m == PASS {
                let passed = State { ko: NO_KO, ..st };
                self.dies(passed, !attacker_moves, passes + 1, depth + 1)
            } else {
                let Some(next) = self.play(&st, usize::from(m), side) else {
                    continue;
                };
                if self.path.contains(&next.stones) {
                    continue;
                }
                self.path.push(next.stones);
                let dies = self.dies(next, !attacker_moves, 0, depth + 1);
                self.path.pop();
                dies
            };
            if dies == attacker_moves {
                answer = dies;
                break;
            }
        }
        self.table.insert(key, answer);
        answer
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
        (x, y): (usize, usize),
        inside: &[(usize, usize)],
        plain: &[(usize, usize)],
    ) -> Verdict {
        let b = board(diagram);
        let cell = PlayoutBoard::cell(x, y);
        let defender = b.stone(cell);
        let heads = |points: &[(usize, usize)]| -> Vec<usize> {
            points
                .iter()
                .map(|&(x, y)| b.head_of(PlayoutBoard::cell(x, y)))
                .collect()
        };
        let (inner, plain) = (heads(inside), heads(plain));
        let mut e = Enclosures::default();
        e.read(&b, cell, |n| {
            if b.stone(n) == defender || inner.contains(&b.head_of(n)) {
                Role::Inside
            } else if plain.contains(&b.head_of(n)) {
                Role::Wall
            } else {
                Role::SureWall
            }
        })
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
}
