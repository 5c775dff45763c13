//! Unconditional life: Benson's algorithm, for both colours.
//!
//! The first, certain layer of dead-stone settling (RULES.md section 3: "a
//! stone status that is certain (pass-alive, Benson)"). What it proves holds
//! whatever the players do: a pass-alive chain cannot be captured even if its
//! owner passes every turn, and stones of the opponent inside the regions such
//! chains enclose (when those regions are small, see below) are dead.
//!
//! Definitions, after D. B. Benson, "Life in the game of Go", Information
//! Sciences 10 (1976), in our own words. Fix a colour X.
//!
//! * An **X chain** is a maximal 4-connected set of X stones.
//! * An **X-enclosed region** is a maximal 4-connected set of points *not*
//!   occupied by X: empty points and opponent stones together. Its boundary is
//!   made of X chains only.
//! * A region R is **vital** to an X chain C when R borders C and *every empty
//!   point* of R is a liberty of C (opponent stones in R do not matter). A
//!   one-point eye is vital to every chain around it; a big eye with an
//!   interior point is vital to nobody. (A region with no empty point would be
//!   vital vacuously; in a legal position there is none, as its stones would
//!   have no liberty.)
//! * A region is **small** when every empty point in it is a liberty of some X
//!   chain of its boundary, i.e. it has no empty point out of X's reach. This
//!   is the refinement for territory: Benson's iteration decides chains, and
//!   only small regions are claimed as territory, since in a larger one the
//!   opponent may have room to live.
//!
//! The algorithm starts from all X chains and all X-enclosed regions that
//! border at least one X chain, then repeats two steps until neither changes
//! anything: remove every X chain that has fewer than two vital regions among
//! the regions left; remove every region that borders a removed chain. The
//! chains left are **pass-alive**. The regions left are bounded by pass-alive
//! chains only; those that are also small are **unconditional territory**:
//! every empty point of them stays next to an X stone that can never be
//! captured, so the opponent can never make an eye there, and any opponent
//! stone inside is dead. Large enclosed regions are left undecided (the
//! opponent might live inside), as Benson's result says nothing about them.
//!
//! Benson's algorithm is conservative: a group with one big eye, a group in
//! seki, or a group that needs one more move to be safe is not pass-alive, and
//! the later layers of the settler decide those. The position is assumed legal
//! (every chain has a liberty); on an illegal one the answer is still well
//! defined but means nothing.

use crate::board::flood;
use crate::score::Position;
use crate::{BoardSize, ByColor, Color, Point};

const NONE: u32 = u32::MAX;

/// What Benson's algorithm proves about a position: per point, whether the
/// stone on it belongs to a pass-alive chain, and whether it lies in a small
/// region enclosed by pass-alive chains of one colour (unconditional territory;
/// opponent stones there are unconditionally dead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassAlive {
    size: BoardSize,
    /// The stones of the position, indexed `y * width + x`.
    stones: Vec<Option<Color>>,
    /// The stone on this point belongs to a pass-alive chain.
    alive: Vec<bool>,
    /// The colour whose unconditional territory this point is in.
    territory: Vec<Option<Color>>,
    alive_stones: ByColor<u32>,
}

impl PassAlive {
    /// Runs Benson's algorithm for Black and for White.
    pub fn of(position: &Position) -> PassAlive {
        let size = position.size();
        let cells = position.cells();
        let n = cells.len();
        let nbr = neighbour_table(size);
        let mut out = PassAlive {
            size,
            stones: cells.to_vec(),
            alive: vec![false; n],
            territory: vec![None; n],
            alive_stones: ByColor::default(),
        };
        let mut benson = Benson::new(n);
        for color in Color::ALL {
            benson.run(cells, &nbr, color, &mut out);
        }
        out
    }

    pub const fn size(&self) -> BoardSize {
        self.size
    }

    fn slot(&self, p: Point) -> Option<usize> {
        self.size
            .contains(p)
            .then(|| p.y() as usize * self.size.width() as usize + p.x() as usize)
    }

    /// The stone on `p` belongs to a pass-alive chain. False for empty points
    /// and points off the board.
    pub fn is_alive(&self, p: Point) -> bool {
        self.slot(p).is_some_and(|i| self.alive[i])
    }

    /// The colour in whose unconditional territory `p` lies: a small region
    /// enclosed by that colour's pass-alive chains. Covers the empty points of
    /// the region and the opponent stones inside it (which are dead), never a
    /// stone of the owner.
    pub fn territory(&self, p: Point) -> Option<Color> {
        self.slot(p).and_then(|i| self.territory[i])
    }

    /// The stones inside the other colour's unconditional territory: dead
    /// whatever happens. Row by row from the top.
    pub fn dead(&self) -> impl Iterator<Item = Point> + '_ {
        let w = self.size.width() as usize;
        self.stones
            .iter()
            .zip(&self.territory)
            .enumerate()
            .filter(|(_, (stone, owner))| matches!((stone, owner), (Some(s), Some(o)) if s != o))
            .map(move |(i, _)| point_of(i, w))
    }

    /// Stones of `color` on pass-alive chains.
    pub fn alive_stones(&self, color: Color) -> u32 {
        self.alive_stones[color]
    }
}

fn point_of(i: usize, width: usize) -> Point {
    Point::new((i % width) as u8, (i / width) as u8).expect("index is on the board")
}

/// The on-board neighbours of each point (`NONE` where off the board), from
/// the same neighbour rule counting uses.
fn neighbour_table(size: BoardSize) -> Vec<[u16; 4]> {
    let mut table = Vec::with_capacity(size.points());
    flood::neighbour_table(size, &mut table);
    table
}

/// One (region, chain) adjacency: how many empty points of the region are
/// liberties of the chain. The region is vital to the chain when that is all
/// of the region's empty points.
#[derive(Copy, Clone, Debug)]
struct Border {
    chain: u32,
    liberties: u32,
}

/// Benson's iteration on its own, over chains and regions labelled by
/// whoever calls it. [`PassAlive`] labels a whole board by flood fill; the
/// settler's enclosure reader labels the points inside a wall with bitboards
/// (the wall counting as the opponent's). Both give the same incidence: per
/// region, its empty points and, per chain it borders, how many of those are
/// the chain's liberties. The iteration is written once, here.
#[derive(Debug, Default)]
pub(crate) struct Incidence {
    /// Borders of each region, grouped: `borders[start[r]..start[r + 1]]`.
    borders: Vec<Border>,
    start: Vec<u32>,
    /// Per region: its empty points.
    empties: Vec<u32>,
    chain_alive: Vec<bool>,
    region_alive: Vec<bool>,
    /// Per chain: vital regions left in this round.
    vital: Vec<u32>,
}

impl Incidence {
    fn with_capacity(n: usize) -> Incidence {
        Incidence {
            borders: Vec::with_capacity(2 * n),
            start: Vec::with_capacity(n + 1),
            empties: Vec::with_capacity(n),
            chain_alive: Vec::with_capacity(n),
            region_alive: Vec::with_capacity(n),
            vital: Vec::with_capacity(n),
        }
    }

    /// Forgets every region, to describe a new position.
    pub(crate) fn clear(&mut self) {
        self.borders.clear();
        self.start.clear();
        self.empties.clear();
    }

    /// Opens the next region, with `empties` empty points; the borders added
    /// until the next call are its borders.
    pub(crate) fn region(&mut self, empties: u32) {
        self.start.push(self.borders.len() as u32);
        self.empties.push(empties);
    }

    /// The open region borders `chain`, and `liberties` of its empty points
    /// are the chain's. Returns the border's index, for [`Self::add_liberty`].
    pub(crate) fn border(&mut self, chain: u32, liberties: u32) -> u32 {
        self.borders.push(Border { chain, liberties });
        self.borders.len() as u32 - 1
    }

    fn add_liberty(&mut self, border: u32) {
        self.borders[border as usize].liberties += 1;
    }

    fn set_empties(&mut self, empties: u32) {
        *self.empties.last_mut().expect("a region is open") = empties;
    }

    /// Runs the iteration over `chains` chains (numbered from 0) and the
    /// regions opened: starting from every chain and every region that
    /// borders one, removes each chain with fewer than two vital regions
    /// left, then each region bordering a removed chain, until nothing
    /// changes. The chains left are pass-alive.
    pub(crate) fn solve(&mut self, chains: usize) {
        let regions = self.empties.len();
        self.start.push(self.borders.len() as u32);
        let start = &self.start;
        self.chain_alive.clear();
        self.chain_alive.resize(chains, true);
        self.region_alive.clear();
        self.region_alive
            .extend((0..regions).map(|r| start[r] < start[r + 1]));
        loop {
            self.vital.clear();
            self.vital.resize(chains, 0);
            for r in 0..regions {
                if !self.region_alive[r] {
                    continue;
                }
                let range = start[r] as usize..start[r + 1] as usize;
                for b in &self.borders[range] {
                    if b.liberties == self.empties[r] {
                        self.vital[b.chain as usize] += 1;
                    }
                }
            }
            let mut removed = false;
            for c in 0..chains {
                if self.chain_alive[c] && self.vital[c] < 2 {
                    self.chain_alive[c] = false;
                    removed = true;
                }
            }
            if !removed {
                break;
            }
            for r in 0..regions {
                if self.region_alive[r] {
                    let range = start[r] as usize..start[r + 1] as usize;
                    if self.borders[range]
                        .iter()
                        .any(|b| !self.chain_alive[b.chain as usize])
                    {
                        self.region_alive[r] = false;
                    }
                }
            }
        }
        self.start.pop();
    }

    /// After [`Self::solve`]: whether chain `c` is pass-alive.
    pub(crate) fn chain_alive(&self, c: usize) -> bool {
        self.chain_alive[c]
    }

    /// After [`Self::solve`]: whether region `r` is bordered by pass-alive
    /// chains only.
    pub(crate) fn region_alive(&self, r: usize) -> bool {
        self.region_alive[r]
    }
}

/// Scratch space for one colour's run, reused for the other colour.
#[derive(Debug)]
struct Benson {
    chain_of: Vec<u32>,
    region_of: Vec<u32>,
    /// Points of each region, grouped: `members[region_start[r]..region_start[r + 1]]`.
    members: Vec<u32>,
    region_start: Vec<u32>,
    /// Per region: whether every empty point is next to X.
    small: Vec<bool>,
    incidence: Incidence,
    /// Per chain: the region last bordered (`NONE` before) and its border index.
    seen_in: Vec<u32>,
    border_of: Vec<u32>,
    stack: Vec<u16>,
}

impl Benson {
    fn new(n: usize) -> Benson {
        Benson {
            chain_of: Vec::with_capacity(n),
            region_of: Vec::with_capacity(n),
            members: Vec::with_capacity(n),
            region_start: Vec::with_capacity(n + 1),
            small: Vec::with_capacity(n),
            incidence: Incidence::with_capacity(n),
            seen_in: Vec::with_capacity(n),
            border_of: Vec::with_capacity(n),
            stack: Vec::with_capacity(n),
        }
    }

    fn run(&mut self, cells: &[Option<Color>], nbr: &[[u16; 4]], x: Color, out: &mut PassAlive) {
        let chains = self.label(cells, nbr, x);
        let regions = self.region_start.len() - 1;
        self.find_borders(cells, nbr, chains, regions);

        self.incidence.solve(chains);

        for (i, &c) in self.chain_of.iter().enumerate() {
            if c != NONE && self.incidence.chain_alive(c as usize) {
                out.alive[i] = true;
                out.alive_stones[x] += 1;
            }
        }
        for r in 0..regions {
            if self.incidence.region_alive(r) && self.small[r] {
                let range = self.region_start[r] as usize..self.region_start[r + 1] as usize;
                for &i in &self.members[range] {
                    debug_assert!(out.territory[i as usize].is_none(), "both own {i}");
                    out.territory[i as usize] = Some(x);
                }
            }
        }
    }

    /// Labels X chains and X-enclosed regions; returns the number of chains.
    fn label(&mut self, cells: &[Option<Color>], nbr: &[[u16; 4]], x: Color) -> usize {
        let n = cells.len();
        let Benson {
            chain_of,
            region_of,
            members,
            region_start,
            stack,
            ..
        } = self;
        chain_of.clear();
        chain_of.resize(n, NONE);
        region_of.clear();
        region_of.resize(n, NONE);
        members.clear();
        region_start.clear();
        let mut chains = 0u32;
        for i in 0..n {
            if cells[i] == Some(x) {
                if chain_of[i] == NONE {
                    let joins = |q: usize| cells[q] == Some(x);
                    flood::fill(nbr, chain_of, NONE, chains, i, stack, joins, |_| {}, |_| {});
                    chains += 1;
                }
            } else if region_of[i] == NONE {
                let id = region_start.len() as u32;
                region_start.push(members.len() as u32);
                let joins = |q: usize| cells[q] != Some(x);
                let member = |p: usize| members.push(p as u32);
                flood::fill(nbr, region_of, NONE, id, i, stack, joins, member, |_| {});
            }
        }
        region_start.push(members.len() as u32);
        chains as usize
    }

    /// For each region: its bordering chains with the liberties it gives each,
    /// its number of empty points, and whether it is small.
    fn find_borders(
        &mut self,
        cells: &[Option<Color>],
        nbr: &[[u16; 4]],
        chains: usize,
        regions: usize,
    ) {
        self.incidence.clear();
        self.small.clear();
        self.seen_in.clear();
        self.seen_in.resize(chains, NONE);
        self.border_of.clear();
        self.border_of.resize(chains, 0);
        for r in 0..regions {
            self.incidence.region(0);
            let mut empties = 0;
            let mut small = true;
            for k in self.region_start[r]..self.region_start[r + 1] {
                let p = self.members[k as usize] as usize;
                // The distinct chains next to p: at most four, on the stack.
                let mut next = [NONE; 4];
                let mut count = 0;
                for q in nbr[p] {
                    if q == flood::OFF {
                        continue;
                    }
                    let c = self.chain_of[q as usize];
                    if c != NONE && !next[..count].contains(&c) {
                        next[count] = c;
                        count += 1;
                    }
                }
                for &c in &next[..count] {
                    let c = c as usize;
                    if self.seen_in[c] != r as u32 {
                        self.seen_in[c] = r as u32;
                        self.border_of[c] = self.incidence.border(c as u32, 0);
                    }
                }
                if cells[p].is_none() {
                    empties += 1;
                    small &= count > 0;
                    for &c in &next[..count] {
                        self.incidence.add_liberty(self.border_of[c as usize]);
                    }
                }
            }
            self.incidence.set_empties(empties);
            self.small.push(small);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse(diagram: &str) -> (Position, PassAlive) {
        let pos = Position::from_diagram(diagram).unwrap();
        let pa = PassAlive::of(&pos);
        (pos, pa)
    }

    fn p(x: u8, y: u8) -> Point {
        Point::new(x, y).unwrap()
    }

    /// Every point where the diagram has `c`, row by row.
    fn points_of(pos: &Position, c: Option<Color>) -> Vec<Point> {
        pos.size().iter().filter(|&q| pos.get(q) == c).collect()
    }

    fn territory_of(pos: &Position, pa: &PassAlive, c: Color) -> Vec<Point> {
        pos.size()
            .iter()
            .filter(|&q| pa.territory(q) == Some(c))
            .collect()
    }

    #[test]
    fn two_one_point_eyes_live_and_are_territory() {
        let (pos, pa) = analyse(
            "
            . X . X . .
            X X X X . .
            . . . . . .
            . . . . . .",
        );
        for q in points_of(&pos, Some(Color::Black)) {
            assert!(pa.is_alive(q), "{q}");
        }
        assert_eq!(pa.alive_stones(Color::Black), 6);
        assert_eq!(pa.alive_stones(Color::White), 0);
        assert_eq!(territory_of(&pos, &pa, Color::Black), [p(0, 0), p(2, 0)]);
        // The open side is enclosed by the same chain but not small.
        assert_eq!(pa.territory(p(5, 3)), None);
        assert!(!pa.is_alive(p(0, 0)));
        assert_eq!(pa.dead().count(), 0);
    }

    #[test]
    fn one_big_eye_is_not_pass_alive() {
        // Four-point eye: its corner is no liberty, so it is vital to nobody.
        let (_, pa1) = analyse(
            "
            . . X . . .
            . . X . . .
            X X X . . .
            . . . . . .",
        );
        // Two-point eye: vital, but only one.
        let (_, pa2) = analyse(
            "
            . . X . .
            X X X . .
            . . . . .",
        );
        for pa in [pa1, pa2] {
            assert_eq!(pa.alive_stones(Color::Black), 0);
            assert_eq!(pa.territory(p(0, 0)), None);
            assert_eq!(pa.territory(p(1, 0)), None);
        }
    }

    #[test]
    fn two_chains_sharing_two_eyes_live_together() {
        // The corner stone is its own chain; both eyes are liberties of it and
        // of the other chain, so each eye is vital to both.
        let (pos, pa) = analyse(
            "
            X . X . . .
            . X X . . .
            X X . . . .
            . . . . . .
            . . . . . .",
        );
        assert!(pa.is_alive(p(0, 0)));
        for q in points_of(&pos, Some(Color::Black)) {
            assert!(pa.is_alive(q), "{q}");
        }
        assert_eq!(pa.alive_stones(Color::Black), 6);
        assert_eq!(territory_of(&pos, &pa, Color::Black), [p(1, 0), p(0, 1)]);
    }

    #[test]
    fn a_false_eye_is_not_an_eye() {
        // The eye at (3, 0) is false: the stone on (4, 0) has it as its only
        // liberty, so White captures there. Without it the big chain has one
        // eye, and the lone stone none of its own.
        let (pos, pa) = analyse(
            "
            . X X . X O .
            X X X X O O .
            . . . . . . .
            . . . . . . .",
        );
        assert_eq!(pa.alive_stones(Color::Black), 0);
        assert_eq!(pa.alive_stones(Color::White), 0);
        assert!(territory_of(&pos, &pa, Color::Black).is_empty());
        // With the cut mended (e7 connected via e6) the same eyes live.
        let (_, mended) = analyse(
            "
            . X X . X O .
            X X X X X O .
            . . . . O O .
            . . . . . . .",
        );
        assert_eq!(mended.alive_stones(Color::Black), 8);
        assert_eq!(mended.territory(p(3, 0)), Some(Color::Black));
    }

    #[test]
    fn a_stone_inside_a_pass_alive_eye_is_dead() {
        let (pos, pa) = analyse(
            "
            O . X . X . .
            X X X X X . .
            . . . . . . .
            . . . . . O .",
        );
        assert_eq!(pa.alive_stones(Color::Black), 7);
        assert_eq!(pa.dead().collect::<Vec<_>>(), [p(0, 0)]);
        assert_eq!(pa.territory(p(0, 0)), Some(Color::Black));
        assert_eq!(
            territory_of(&pos, &pa, Color::Black),
            [p(0, 0), p(1, 0), p(3, 0)]
        );
        assert!(!pa.is_alive(p(0, 0)));
        // The white stone outside is neither alive nor dead.
        assert!(!pa.is_alive(p(5, 3)));
        assert_eq!(pa.territory(p(5, 3)), None);
    }

    #[test]
    fn seki_is_not_pass_alive() {
        // One eye each and a shared liberty on d2: neither can fill it.
        let (_, pa) = analyse(
            "
            . X X . O O .
            X X X O O O O",
        );
        assert_eq!(pa.alive_stones(Color::Black), 0);
        assert_eq!(pa.alive_stones(Color::White), 0);
        for x in 0..7 {
            for y in 0..2 {
                assert_eq!(pa.territory(p(x, y)), None);
            }
        }
    }

    #[test]
    fn an_empty_board_has_nothing_alive() {
        for (w, h) in [(2, 2), (9, 9), (19, 19), (25, 25), (25, 2)] {
            let pos = Position::empty(BoardSize::new(w, h).unwrap());
            let pa = PassAlive::of(&pos);
            assert_eq!(pa.alive_stones(Color::Black), 0);
            assert_eq!(pa.alive_stones(Color::White), 0);
            assert_eq!(pa.dead().count(), 0);
            assert!(pos.size().iter().all(|q| pa.territory(q).is_none()));
        }
    }

    #[test]
    fn full_board_with_two_eyes_each() {
        let (pos, pa) = analyse(
            "
            . X O . O
            X X O O O
            . X O . O
            X X O O O
            . X O . O",
        );
        assert_eq!(pa.alive_stones(Color::Black), 7);
        assert_eq!(pa.alive_stones(Color::White), 12);
        for q in pos.size().iter() {
            match pos.get(q) {
                Some(_) => {
                    assert!(pa.is_alive(q), "{q}");
                    assert_eq!(pa.territory(q), None);
                }
                None => {
                    let owner = if q.x() == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    assert_eq!(pa.territory(q), Some(owner), "{q}");
                }
            }
        }
        assert_eq!(pa.dead().count(), 0);
    }

    #[test]
    fn non_square_boards() {
        let text = "
            . O . . . . .
            O O . . . . .
            . . . . X X X
            . . . . X . X
            . . . . X X .";
        let (pos, pa) = analyse(text);
        assert_eq!(pos.size(), BoardSize::new(7, 5).unwrap());
        assert_eq!(pa.alive_stones(Color::Black), 7);
        assert_eq!(pa.alive_stones(Color::White), 0);
        assert_eq!(territory_of(&pos, &pa, Color::Black), [p(5, 3), p(6, 4)]);
        assert!(pa.is_alive(p(6, 3)));
        assert!(!pa.is_alive(p(0, 1)));
        // Off the board: the transposed point.
        assert!(!pa.is_alive(p(3, 6)));
        assert_eq!(pa.territory(p(4, 6)), None);

        // The same board transposed (5 wide, 7 high) gives the same answer.
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect())
            .filter(|r: &Vec<char>| !r.is_empty())
            .collect();
        let transposed: String = (0..rows[0].len())
            .map(|x| rows.iter().map(|r| r[x]).collect::<String>() + "\n")
            .collect();
        let (tpos, tpa) = analyse(&transposed);
        assert_eq!(tpos.size(), BoardSize::new(5, 7).unwrap());
        assert_eq!(tpa.alive_stones(Color::Black), 7);
        assert_eq!(territory_of(&tpos, &tpa, Color::Black), [p(3, 5), p(4, 6)]);
    }

    /// rules' one seeded generator, drawing `0..n` for test positions.
    struct Rng(crate::rng::SplitMix64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0.below(n as usize) as u64
        }
    }

    /// Labels 4-connected components of points satisfying `same`, by a plain
    /// recursive-free flood independent of the code under test.
    fn components(
        size: BoardSize,
        same: impl Fn(Point, Point) -> bool,
        member: impl Fn(Point) -> bool,
    ) -> Vec<Vec<Point>> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for start in size.iter() {
            if !member(start) || !seen.insert(start) {
                continue;
            }
            let mut comp = vec![start];
            let mut k = 0;
            while k < comp.len() {
                let q = comp[k];
                k += 1;
                for r in adjacent(size, q) {
                    if member(r) && same(q, r) && seen.insert(r) {
                        comp.push(r);
                    }
                }
            }
            out.push(comp);
        }
        out
    }

    fn adjacent(size: BoardSize, q: Point) -> Vec<Point> {
        let (x, y) = (i32::from(q.x()), i32::from(q.y()));
        [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
            .into_iter()
            .filter(|&(a, b)| a >= 0 && b >= 0)
            .filter_map(|(a, b)| Point::new(a as u8, b as u8))
            .filter(|&r| size.contains(r))
            .collect()
    }

    /// A random legal position: random stones, then chains without a liberty
    /// removed one at a time until none is left.
    fn random_position(rng: &mut Rng, sides: std::ops::Range<u64>) -> Position {
        let span = sides.end - sides.start;
        let w = (sides.start + rng.below(span)) as u32;
        let h = (sides.start + rng.below(span)) as u32;
        let size = BoardSize::new(w, h).unwrap();
        let mut pos = Position::empty(size);
        let empty_share = 10 + rng.below(25);
        for q in size.iter() {
            let roll = rng.below(100);
            let stone = if roll < empty_share {
                None
            } else if roll.is_multiple_of(2) {
                Some(Color::Black)
            } else {
                Some(Color::White)
            };
            pos.set(q, stone);
        }
        loop {
            let chains = components(
                size,
                |a, b| pos.get(a) == pos.get(b),
                |q| pos.get(q).is_some(),
            );
            let Some(dead) = chains.into_iter().find(|chain| {
                chain
                    .iter()
                    .all(|&q| adjacent(size, q).iter().all(|&r| pos.get(r).is_some()))
            }) else {
                break;
            };
            for q in dead {
                pos.set(q, None);
            }
        }
        pos
    }

    #[test]
    fn random_positions_keep_bensons_invariants() {
        let mut rng = Rng(crate::rng::SplitMix64(0x9e37_79b9_7f4a_7c15));
        let mut alive_seen = 0;
        let mut territory_seen = 0;
        let mut dead_seen = 0;
        for _ in 0..200 {
            let pos = random_position(&mut rng, 5..10);
            let size = pos.size();
            let pa = PassAlive::of(&pos);
            for x in Color::ALL {
                let chains = components(
                    size,
                    |a, b| pos.get(a) == pos.get(b),
                    |q| pos.get(q) == Some(x),
                );
                let regions = components(size, |_, _| true, |q| pos.get(q) != Some(x));
                // A region is left when it borders an X chain and every X
                // chain it borders is pass-alive.
                let borders = |region: &Vec<Point>| -> Vec<Point> {
                    region
                        .iter()
                        .flat_map(|&q| adjacent(size, q))
                        .filter(|&r| pos.get(r) == Some(x))
                        .collect()
                };
                let left: Vec<&Vec<Point>> = regions
                    .iter()
                    .filter(|r| {
                        let b = borders(r);
                        !b.is_empty() && b.iter().all(|&s| pa.is_alive(s))
                    })
                    .collect();
                let mut alive = 0;
                for chain in &chains {
                    let status = pa.is_alive(chain[0]);
                    assert!(chain.iter().all(|&q| pa.is_alive(q) == status), "{pos}");
                    if !status {
                        continue;
                    }
                    alive += chain.len() as u32;
                    let liberty = |q: Point| {
                        pos.get(q).is_none() && adjacent(size, q).iter().any(|r| chain.contains(r))
                    };
                    let vital = left
                        .iter()
                        .filter(|region| {
                            borders(region).iter().any(|s| chain.contains(s))
                                && region.iter().all(|&q| pos.get(q).is_some() || liberty(q))
                        })
                        .count();
                    assert!(vital >= 2, "{x} chain at {} has {vital}:\n{pos}", chain[0]);
                }
                assert_eq!(pa.alive_stones(x), alive);
                alive_seen += alive;
                // Territory is exactly the small regions left.
                for region in &regions {
                    let small = region.iter().all(|&q| {
                        pos.get(q).is_some()
                            || adjacent(size, q).iter().any(|&r| pos.get(r) == Some(x))
                    });
                    let expected = (small && left.contains(&region)).then_some(x);
                    for &q in region {
                        if expected.is_some() {
                            assert_eq!(pa.territory(q), expected, "{q}\n{pos}");
                        } else {
                            assert_ne!(pa.territory(q), Some(x), "{q}\n{pos}");
                        }
                    }
                }
            }
            for q in size.iter() {
                if let Some(owner) = pa.territory(q) {
                    territory_seen += 1;
                    // Never both colours' (one value per point), never on an
                    // owner's stone, never on a pass-alive stone.
                    assert_ne!(pos.get(q), Some(owner), "{q}\n{pos}");
                    assert!(!pa.is_alive(q), "{q}\n{pos}");
                }
            }
            for q in pa.dead() {
                dead_seen += 1;
                let stone = pos.get(q).expect("dead points hold stones");
                assert_eq!(pa.territory(q), Some(stone.other()));
            }
        }
        assert!(
            alive_seen > 0 && territory_seen > 0 && dead_seen > 0,
            "{alive_seen} {territory_seen} {dead_seen}"
        );
    }

    /// Plays `by` on `at` (index into `cells`, row by row) if legal: captures
    /// the other colour's chains left without liberties, refuses suicide.
    fn play(size: BoardSize, cells: &mut [Option<Color>], at: Point, by: Color) -> bool {
        let w = size.width() as usize;
        let idx = |q: Point| q.y() as usize * w + q.x() as usize;
        cells[idx(at)] = Some(by);
        let get = |cells: &[Option<Color>], q: Point| cells[idx(q)];
        let chain_of = |cells: &[Option<Color>], start: Point| {
            let color = get(cells, start);
            let mut chain = vec![start];
            let mut k = 0;
            while k < chain.len() {
                let q = chain[k];
                k += 1;
                for r in adjacent(size, q) {
                    if get(cells, r) == color && !chain.contains(&r) {
                        chain.push(r);
                    }
                }
            }
            chain
        };
        let free = |cells: &[Option<Color>], chain: &[Point]| {
            chain
                .iter()
                .any(|&q| adjacent(size, q).iter().any(|&r| get(cells, r).is_none()))
        };
        for r in adjacent(size, at) {
            if get(cells, r) == Some(by.other()) {
                let chain = chain_of(cells, r);
                if !free(cells, &chain) {
                    for q in chain {
                        cells[idx(q)] = None;
                    }
                }
            }
        }
        free(cells, &chain_of(cells, at))
    }

    /// Benson's theorem, checked by brute force on small boards: whatever
    /// sequence of moves the opponent plays while the owner passes, no stone
    /// of a pass-alive chain is ever captured.
    #[test]
    fn pass_alive_chains_survive_any_run_of_opponent_moves() {
        let mut rng = Rng(crate::rng::SplitMix64(0x2545_f491_4f6c_dd1d));
        let mut checked = 0;
        for _ in 0..400 {
            let pos = random_position(&mut rng, 3..6);
            let size = pos.size();
            let pa = PassAlive::of(&pos);
            if pos.cells().iter().filter(|c| c.is_none()).count() > 9 {
                continue;
            }
            for x in Color::ALL {
                if pa.alive_stones(x) == 0 {
                    continue;
                }
                let alive: Vec<Point> = size.iter().filter(|&q| pa.is_alive(q)).collect();
                let alive: Vec<Point> = alive
                    .into_iter()
                    .filter(|&q| pos.get(q) == Some(x))
                    .collect();
                let mut seen = std::collections::HashSet::new();
                let mut todo = vec![pos.cells().to_vec()];
                while let Some(cells) = todo.pop() {
                    if !seen.insert(cells.clone()) {
                        continue;
                    }
                    for q in size.iter() {
                        if cells[pos.index(q)].is_some() {
                            continue;
                        }
                        let mut next = cells.clone();
                        if !play(size, &mut next, q, x.other()) {
                            continue;
                        }
                        for &s in &alive {
                            assert_eq!(next[pos.index(s)], Some(x), "{s} captured:\n{pos}");
                        }
                        todo.push(next);
                    }
                    assert!(seen.len() < 200_000, "search too big:\n{pos}");
                }
                checked += 1;
            }
        }
        assert!(checked >= 20, "only {checked} positions checked");
    }
}
