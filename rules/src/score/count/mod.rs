//! Counting a settled position: chains, regions and their owners, seki,
//! living units and basic eyes, and the points an owner must still fill.
//!
//! Everything RULES.md sections 3 and 4 needs from the board, computed once;
//! the per-rule-set formulas in [`super`] only combine these numbers.

use super::position::{Position, MAX_POINTS};
use crate::board::{Board, ChainId};
use crate::{ByColor, Color, Point};

mod fills;
mod label;
mod seki;
mod units;

const NONE: u16 = u16::MAX;

/// What a point is in the counted position, for display and for columns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PointState {
    /// A living stone.
    Stone(Color),
    /// A dead stone, removed before counting; its point belongs to whoever
    /// owns the region it now lies in.
    Dead(Color),
    /// An empty point owned by one colour, counted as territory.
    Territory(Color),
    /// An owned point that the owner must still fill for its stones to live
    /// (a false eye, or a protective move once the dame are filled). Area for
    /// the owner; not territory under territory counting.
    Fill(Color),
    /// An empty point owned by a group in seki: area, not Japanese territory.
    SekiEye(Color),
    /// A shared point (dame) either side can fill.
    Dame,
    /// A shared point neither side can fill without self-atari.
    SekiLiberty,
}

/// The numbers every formula of RULES.md section 4 is built from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `S_X`: stones on the board after dead stones are removed.
    pub stones: ByColor<u32>,
    /// `T_X`: points of regions owned by X (seki eyes and fills included).
    pub territory: ByColor<u32>,
    /// `D`: shared points (dame and seki liberties).
    pub shared: u32,
    /// Shared points that are seki liberties.
    pub seki_liberties: u32,
    /// `Z_X`: owned points of groups in seki.
    pub seki_eyes: ByColor<u32>,
    /// Stones of X in seki.
    pub seki_stones: ByColor<u32>,
    /// `E_X`: basic eyes summed over X's living units.
    pub basic_eyes: ByColor<u32>,
    /// Living units of X.
    pub units: ByColor<u32>,
    /// Dead stones of X removed before counting.
    pub dead: ByColor<u32>,
    /// Owned points X must still fill (not territory under territory counting).
    pub fills: ByColor<u32>,
    /// Area of the position as it stands, no stone removed (Tromp-Taylor).
    pub raw_area: ByColor<u32>,
}

impl Counts {
    /// `S_X + T_X`.
    pub fn area(&self, color: Color) -> u32 {
        self.stones[color] + self.territory[color]
    }

    /// `A = (S_B + T_B) - (S_W + T_W)`.
    pub fn area_difference(&self) -> i64 {
        i64::from(self.area(Color::Black)) - i64::from(self.area(Color::White))
    }
}

/// Reusable scratch space for counting. Build one per thread and reuse it:
/// after the first position it does not allocate.
#[derive(Clone, Debug)]
pub struct Counter {
    cells: Vec<Option<Color>>,
    chain_of: Vec<u16>,
    region_of: Vec<u16>,
    chains: Vec<Group>,
    regions: Vec<Group>,
    /// Points of each chain/region, grouped (`Group::start..start+len`).
    members: Vec<u16>,
    stamp: Vec<u32>,
    generation: u32,
    seki_liberty: Vec<bool>,
    parent: Vec<u16>,
    /// (owned region, chain) for every chain touching an owned region,
    /// sorted and distinct: how living units are joined, found once.
    region_chains: Vec<(u16, u16)>,
    states: Vec<PointState>,
    stack: Vec<u16>,
    /// Per point: the colour whose territory it is in the counted position.
    own: Vec<Option<Color>>,
    /// Where fills are played out.
    board: Board,
    /// Neighbour table of `nbr_size` (`NONE` off the board): flood fills
    /// are most of counting, and a table beats recomputing edges.
    nbr: Vec<[u16; 4]>,
    nbr_size: Option<crate::BoardSize>,
    /// Per chain index: threatened in this pass (`threat_gen`).
    threatened: Vec<u32>,
    threat_gen: u32,
    /// Per chain index: already looked at in this scan (`seen_gen`).
    seen_chains: Vec<u32>,
    seen_gen: u32,
}

#[derive(Copy, Clone, Debug, Default)]
struct Group {
    color: Option<Color>,
    start: u32,
    len: u32,
    /// Chains: liberties. Regions: bit 0 touches Black, bit 1 touches White.
    extra: u32,
}

impl Group {
    fn owner(&self) -> Option<Color> {
        match self.extra {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }
}

impl Default for Counter {
    fn default() -> Self {
        Counter::new()
    }
}

impl Counter {
    pub fn new() -> Counter {
        Counter {
            cells: Vec::with_capacity(MAX_POINTS),
            chain_of: Vec::with_capacity(MAX_POINTS),
            region_of: Vec::with_capacity(MAX_POINTS),
            chains: Vec::new(),
            regions: Vec::new(),
            members: Vec::with_capacity(2 * MAX_POINTS),
            stamp: vec![0; MAX_POINTS],
            generation: 0,
            seki_liberty: Vec::with_capacity(MAX_POINTS),
            parent: Vec::new(),
            region_chains: Vec::new(),
            states: Vec::with_capacity(MAX_POINTS),
            stack: Vec::with_capacity(MAX_POINTS),
            own: Vec::with_capacity(MAX_POINTS),
            board: Board::new(crate::BoardSize::NINETEEN),
            nbr: Vec::with_capacity(MAX_POINTS),
            nbr_size: None,
            threatened: vec![0; ChainId::LIMIT],
            threat_gen: 0,
            seen_chains: vec![0; ChainId::LIMIT],
            seen_gen: 0,
        }
    }

    /// The state of each point after the last [`Counter::count`], indexed
    /// row by row from the top.
    pub fn states(&self) -> &[PointState] {
        &self.states
    }

    /// Counts `position` with the stones on `dead` removed. Points of `dead`
    /// that hold no stone are ignored.
    pub fn count(&mut self, position: &Position, dead: &[Point]) -> Counts {
        let size = position.size();
        let n = size.points();
        let mut counts = Counts::default();

        self.cells.clear();
        self.cells.extend_from_slice(position.cells());

        self.states.clear();
        self.states.extend(position.cells().iter().map(|c| match c {
            Some(color) => PointState::Stone(*color),
            None => PointState::Dame,
        }));
        for &p in dead {
            if let Some(color) = position.get(p) {
                let i = position.index(p);
                if self.cells[i].is_some() {
                    self.cells[i] = None;
                    counts.dead[color] += 1;
                    self.states[i] = PointState::Dead(color);
                }
            }
        }
        self.label(size);
        counts.raw_area = self.raw_area(position, dead);

        for color in self.cells.iter().flatten() {
            counts.stones[*color] += 1;
        }
        // Regions and their owners; seki liberties in shared regions.
        self.seki_liberty.clear();
        self.seki_liberty.resize(n, false);
        for r in 0..self.regions.len() {
            let region = self.regions[r];
            let owner = region.owner();
            match owner {
                Some(color) => counts.territory[color] += region.len,
                None => counts.shared += region.len,
            }
            if owner.is_none() {
                for k in region.start..region.start + region.len {
                    let i = self.members[k as usize] as usize;
                    // Two empty neighbours are two liberties for whoever
                    // fills: only points with at most one can be seki.
                    let open = self.nb(i).filter(|&j| self.cells[j].is_none()).count();
                    if open < 2
                        && !self.can_fill(i, Color::Black)
                        && !self.can_fill(i, Color::White)
                    {
                        self.seki_liberty[i] = true;
                        counts.seki_liberties += 1;
                    }
                }
            }
        }
        // Chains in seki: adjacent to a seki liberty.
        let mut in_seki = [false; MAX_POINTS];
        for i in 0..n {
            if self.seki_liberty[i] {
                for j in self.nb(i) {
                    let c = self.chain_of[j];
                    if c != NONE {
                        in_seki[c as usize] = true;
                    }
                }
            }
        }
        for (c, chain) in self.chains.iter().enumerate() {
            if in_seki[c] {
                counts.seki_stones[chain.color.expect("chains have a colour")] += chain.len;
            }
        }
        self.link_owned_regions();
        self.units(size, &mut counts);
        self.mark_states(&in_seki, &mut counts);
        self.own.clear();
        self.own.extend((0..n).map(|i| {
            let r = self.region_of[i];
            if r == NONE {
                None
            } else {
                self.regions[r as usize].owner()
            }
        }));
        let candidates = self.fill_candidates();
        for color in Color::ALL {
            if candidates[color] {
                counts.fills[color] = self.fills(size, color);
            }
        }
        self.weak_units_in_seki(size, &in_seki, &mut counts);
        counts
    }

    /// The on-board neighbours of flat index `i`, from the table `label`
    /// keeps for the current size. The array is copied, so the iterator does
    /// not hold a borrow of `self`.
    fn nb(&self, i: usize) -> impl Iterator<Item = usize> {
        self.nbr[i]
            .into_iter()
            .filter(|&q| q != NONE)
            .map(usize::from)
    }
}

/// Union-find over chain and region indices (seki and living units).
fn find(parent: &mut [u16], mut x: u16) -> u16 {
    while parent[x as usize] != x {
        let p = parent[x as usize];
        parent[x as usize] = parent[p as usize];
        x = p;
    }
    x
}

fn union(parent: &mut [u16], a: u16, b: u16) {
    let ra = find(parent, a);
    let rb = find(parent, b);
    if ra != rb {
        parent[ra as usize] = rb;
    }
}
