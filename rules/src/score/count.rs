//! Counting a settled position: chains, regions and their owners, seki,
//! living units and basic eyes, and the points an owner must still fill.
//!
//! Everything RULES.md sections 3 and 4 needs from the board, computed once;
//! the per-rule-set formulas in [`super`] only combine these numbers.

use super::position::{neighbours, Position, MAX_POINTS};
use crate::board::{Board, ChainId};
use crate::{ByColor, Color, Point};

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

    /// Living units that cannot make two eyes live only by their shared
    /// liberties: where such a unit of each colour touches the same shared
    /// point with at most one empty neighbour (as for seki liberties: two
    /// empty neighbours give whoever fills two liberties), both are in seki
    /// (RULES.md section 3; Japanese 1989 article 8: stones alive but
    /// possessing dame are in seki, and their eye points are not territory),
    /// even when that point could still be filled without
    /// self-atari. Units here are chains joined through the regions they own
    /// and through the dame they touch (filling it connects them). An owned
    /// region with a point still counted (not a fill) is one eye, two if it
    /// has three or more points (the owner can split it). Their remaining
    /// territory points become [`PointState::SekiEye`].
    fn weak_units_in_seki(
        &mut self,
        size: crate::BoardSize,
        in_seki: &[bool],
        counts: &mut Counts,
    ) {
        // Only a shared point with at most one empty neighbour between both
        // colours can put anything in seki here; most positions have none.
        let candidate = (0..size.points()).any(|i| {
            self.cells[i].is_none()
                && self.region_of[i] != NONE
                && self.regions[self.region_of[i] as usize].owner().is_none()
                && self.nb(i).filter(|&j| self.cells[j].is_none()).count() < 2
                && self.nb(i).any(|j| self.cells[j] == Some(Color::Black))
                && self.nb(i).any(|j| self.cells[j] == Some(Color::White))
        });
        if !candidate {
            return;
        }
        let nc = self.chains.len();
        let n = size.points();
        self.parent.clear();
        self.parent.extend(0..nc as u16);
        // An owned region joins every chain around it; `any_chain` keeps one
        // of them to find the region's unit by.
        let mut any_chain = vec![NONE; self.regions.len()];
        for &(r, c) in &self.region_chains {
            let first = &mut any_chain[r as usize];
            if *first == NONE {
                *first = c;
            } else {
                union(&mut self.parent, *first, c);
            }
        }
        // A dame point joins the chains of one colour around it: filling it
        // connects them.
        for i in 0..n {
            if self.cells[i].is_some()
                || self.seki_liberty[i]
                || self.regions[self.region_of[i] as usize].owner().is_some()
            {
                continue;
            }
            let mut first = [NONE; 2];
            for j in self.nb(i) {
                let c = self.chain_of[j];
                if c == NONE {
                    continue;
                }
                let k = self.chains[c as usize]
                    .color
                    .expect("chains have a colour")
                    .index();
                if first[k] == NONE {
                    first[k] = c;
                } else {
                    union(&mut self.parent, first[k], c);
                }
            }
        }
        // Eye value per unit root.
        let mut eyes = vec![0u32; nc];
        #[allow(clippy::needless_range_loop)] // `r` also indexes self.regions
        for r in 0..self.regions.len() {
            let region = self.regions[r];
            if region.owner().is_none() {
                continue;
            }
            let mut counted = false;
            for k in region.start..region.start + region.len {
                let p = self.members[k as usize] as usize;
                if matches!(
                    self.states[p],
                    PointState::Territory(_) | PointState::Dead(_)
                ) {
                    counted = true;
                }
            }
            if counted && any_chain[r] != NONE {
                let root = find(&mut self.parent, any_chain[r]) as usize;
                eyes[root] += if region.len >= 3 { 2 } else { 1 };
            }
        }
        // Shared points touched by a weak unit of each colour.
        let mut seki = vec![false; nc];
        let mut any = false;
        for i in 0..n {
            if self.cells[i].is_some()
                || self.regions[self.region_of[i] as usize].owner().is_some()
                || self.nb(i).filter(|&j| self.cells[j].is_none()).count() >= 2
            {
                continue;
            }
            let mut weak: [[u16; 4]; 2] = [[NONE; 4]; 2];
            let mut has = [false; 2];
            for (slot, j) in self.nb(i).enumerate() {
                let c = self.chain_of[j];
                if c == NONE {
                    continue;
                }
                let root = find(&mut self.parent, c);
                if eyes[root as usize] < 2 {
                    let k = self.chains[c as usize]
                        .color
                        .expect("chains have a colour")
                        .index();
                    weak[k][slot] = root;
                    has[k] = true;
                }
            }
            if has[0] && has[1] {
                for root in weak.iter().flatten().filter(|&&r| r != NONE) {
                    seki[*root as usize] = true;
                    any = true;
                }
            }
        }
        if !any {
            return;
        }
        for (c, &already) in in_seki.iter().enumerate().take(nc) {
            let root = find(&mut self.parent, c as u16) as usize;
            if seki[root] && !already {
                let chain = self.chains[c];
                counts.seki_stones[chain.color.expect("chains have a colour")] += chain.len;
            }
        }
        for r in 0..self.regions.len() {
            let region = self.regions[r];
            let Some(owner) = region.owner() else {
                continue;
            };
            if any_chain[r] == NONE || !seki[find(&mut self.parent, any_chain[r]) as usize] {
                continue;
            }
            for k in region.start..region.start + region.len {
                let p = self.members[k as usize] as usize;
                match self.states[p] {
                    PointState::Territory(_) => {
                        self.states[p] = PointState::SekiEye(owner);
                        counts.seki_eyes[owner] += 1;
                    }
                    PointState::Dead(_) => counts.seki_eyes[owner] += 1,
                    _ => {}
                }
            }
        }
    }

    /// Labels chains and regions of `self.cells`, with liberty counts and
    /// region colour masks.
    fn label(&mut self, size: crate::BoardSize) {
        let n = size.points();
        if self.nbr_size != Some(size) {
            self.nbr.clear();
            self.nbr.extend((0..n).map(|i| {
                let mut out = [NONE; 4];
                for (slot, j) in neighbours(size, i).enumerate() {
                    out[slot] = j as u16;
                }
                out
            }));
            self.nbr_size = Some(size);
        }
        // Split borrows so the hot loops see plain slices.
        let Counter {
            cells,
            nbr,
            chain_of,
            region_of,
            chains,
            regions,
            members,
            stack,
            stamp,
            generation,
            ..
        } = self;
        let cells = &cells[..n];
        let nbr = &nbr[..n];
        chain_of.clear();
        chain_of.resize(n, NONE);
        region_of.clear();
        region_of.resize(n, NONE);
        chains.clear();
        regions.clear();
        members.clear();
        for i in 0..n {
            let color = cells[i];
            let start = members.len() as u32;
            let mut extra = 0u32;
            stack.clear();
            stack.push(i as u16);
            if color.is_some() {
                if chain_of[i] != NONE {
                    continue;
                }
                let id = chains.len() as u16;
                chain_of[i] = id;
                *generation += 1;
                let gen = *generation;
                while let Some(p) = stack.pop() {
                    members.push(p);
                    for q in nbr[p as usize] {
                        if q == NONE {
                            continue;
                        }
                        let qi = q as usize;
                        let cq = cells[qi];
                        if cq == color {
                            if chain_of[qi] == NONE {
                                chain_of[qi] = id;
                                stack.push(q);
                            }
                        } else if cq.is_none() && stamp[qi] != gen {
                            stamp[qi] = gen;
                            extra += 1;
                        }
                    }
                }
                chains.push(Group {
                    color,
                    start,
                    len: members.len() as u32 - start,
                    extra,
                });
            } else {
                if region_of[i] != NONE {
                    continue;
                }
                let id = regions.len() as u16;
                region_of[i] = id;
                while let Some(p) = stack.pop() {
                    members.push(p);
                    for q in nbr[p as usize] {
                        if q == NONE {
                            continue;
                        }
                        let qi = q as usize;
                        match cells[qi] {
                            None => {
                                if region_of[qi] == NONE {
                                    region_of[qi] = id;
                                    stack.push(q);
                                }
                            }
                            Some(c) => extra |= 1 << c.index(),
                        }
                    }
                }
                regions.push(Group {
                    color,
                    start,
                    len: members.len() as u32 - start,
                    extra,
                });
            }
        }
    }

    /// Tromp-Taylor's area: the board as it stands, dead stones included.
    /// Only the regions of the counted position that hold a removed stone
    /// differ on the raw board; those are flooded again over the raw cells,
    /// the rest keep their counted owner.
    fn raw_area(&mut self, position: &Position, dead: &[Point]) -> ByColor<u32> {
        let raw = position.cells();
        let mut area = ByColor::default();
        for c in raw.iter().flatten() {
            area[*c] += 1;
        }
        // Regions holding a removed stone, marked by generation.
        self.generation += 1;
        let marked = self.generation;
        for &p in dead {
            if position.get(p).is_some() {
                let r = self.region_of[position.index(p)];
                if r != NONE {
                    self.stamp[self.members[self.regions[r as usize].start as usize] as usize] =
                        marked;
                }
            }
        }
        self.generation += 1;
        let gen = self.generation;
        for r in 0..self.regions.len() {
            let region = self.regions[r];
            let first = self.members[region.start as usize] as usize;
            if self.stamp[first] != marked {
                if let Some(owner) = region.owner() {
                    area[owner] += region.len;
                }
                continue;
            }
            // Raw empty sub-regions of this region: flood within raw empties.
            for k in region.start as usize..(region.start + region.len) as usize {
                let start = self.members[k] as usize;
                if raw[start].is_some() || self.stamp[start] == gen {
                    continue;
                }
                self.stamp[start] = gen;
                self.stack.clear();
                self.stack.push(start as u16);
                let (mut size, mut mask) = (0u32, 0u32);
                while let Some(p) = self.stack.pop() {
                    size += 1;
                    for q in self.nbr[p as usize] {
                        if q == NONE {
                            continue;
                        }
                        match raw[q as usize] {
                            None => {
                                if self.stamp[q as usize] != gen {
                                    self.stamp[q as usize] = gen;
                                    self.stack.push(q);
                                }
                            }
                            Some(c) => mask |= 1 << c.index(),
                        }
                    }
                }
                match mask {
                    1 => area.black += size,
                    2 => area.white += size,
                    _ => {}
                }
            }
        }
        area
    }

    /// Whether `color` can play on empty point `i` without leaving its own
    /// chain with fewer than two liberties (a capture always counts as able).
    fn can_fill(&mut self, i: usize, color: Color) -> bool {
        for j in self.nb(i) {
            if self.cells[j] == Some(color.other())
                && self.chains[self.chain_of[j] as usize].extra == 1
            {
                return true;
            }
        }
        self.generation += 1;
        let gen = self.generation;
        self.stamp[i] = gen;
        let mut libs = 0;
        for j in self.nb(i) {
            match self.cells[j] {
                None => {
                    if self.stamp[j] != gen {
                        self.stamp[j] = gen;
                        libs += 1;
                    }
                }
                Some(c) if c == color => {
                    let chain = self.chains[self.chain_of[j] as usize];
                    for k in chain.start..chain.start + chain.len {
                        let s = self.members[k as usize] as usize;
                        for q in self.nb(s) {
                            if self.cells[q].is_none() && self.stamp[q] != gen {
                                self.stamp[q] = gen;
                                libs += 1;
                            }
                        }
                    }
                }
                Some(_) => {}
            }
            if libs >= 2 {
                return true;
            }
        }
        false
    }

    /// Records which chains touch each owned region, once per count.
    fn link_owned_regions(&mut self) {
        self.region_chains.clear();
        for r in 0..self.regions.len() {
            let region = self.regions[r];
            if region.owner().is_none() {
                continue;
            }
            let from = self.region_chains.len();
            for k in region.start..region.start + region.len {
                let p = self.members[k as usize] as usize;
                for j in self.nb(p) {
                    let c = self.chain_of[j];
                    if c != NONE {
                        self.region_chains.push((r as u16, c));
                    }
                }
            }
            self.region_chains[from..].sort_unstable();
            let mut kept = from;
            for i in from..self.region_chains.len() {
                if i == from || self.region_chains[i] != self.region_chains[kept - 1] {
                    self.region_chains[kept] = self.region_chains[i];
                    kept += 1;
                }
            }
            self.region_chains.truncate(kept);
        }
    }

    /// Living units (chains joined through the regions they own) and their
    /// basic eyes `b(u) = min(t(u), max(0, 2 - s(u)))`.
    fn units(&mut self, size: crate::BoardSize, counts: &mut Counts) {
        let nc = self.chains.len();
        let nr = self.regions.len();
        self.parent.clear();
        self.parent.extend(0..(nc + nr) as u16);
        for &(r, c) in &self.region_chains {
            union(&mut self.parent, c, nc as u16 + r);
        }
        // Per unit root: owned points t, seki liberties s (distinct).
        let mut t = vec![0u32; nc + nr];
        let mut s = vec![0u32; nc + nr];
        for r in 0..nr {
            if self.regions[r].owner().is_some() {
                let root = find(&mut self.parent, (nc + r) as u16) as usize;
                t[root] += self.regions[r].len;
            }
        }
        // Distinct seki liberties per unit: each liberty adds one to every
        // distinct unit among the (at most four) chains around it, so a
        // liberty touching two chains of one unit counts once for it.
        for q in 0..size.points() {
            if !self.seki_liberty[q] {
                continue;
            }
            let mut roots = [u16::MAX; 4];
            for (slot, j) in self.nb(q).enumerate() {
                let c = self.chain_of[j];
                if c != NONE {
                    let root = find(&mut self.parent, c);
                    if !roots.contains(&root) {
                        roots[slot] = root;
                        s[root as usize] += 1;
                    }
                }
            }
        }
        let mut counted = vec![false; nc + nr];
        for c in 0..nc {
            let root = find(&mut self.parent, c as u16) as usize;
            if counted[root] {
                continue;
            }
            counted[root] = true;
            let color = self.chains[c].color.expect("chains have a colour");
            counts.units[color] += 1;
            counts.basic_eyes[color] += t[root].min(2u32.saturating_sub(s[root]));
        }
    }

    fn mark_states(&mut self, in_seki: &[bool], counts: &mut Counts) {
        for r in 0..self.regions.len() {
            let region = self.regions[r];
            let owner = region.owner();
            let mut seki_eye = false;
            if owner.is_some() {
                'outer: for k in region.start..region.start + region.len {
                    let p = self.members[k as usize] as usize;
                    for q in self.nb(p) {
                        let c = self.chain_of[q];
                        if c != NONE && in_seki[c as usize] {
                            seki_eye = true;
                            break 'outer;
                        }
                    }
                }
            }
            if let (Some(color), true) = (owner, seki_eye) {
                counts.seki_eyes[color] += region.len;
            }
            for k in region.start..region.start + region.len {
                let p = self.members[k as usize] as usize;
                if matches!(self.states[p], PointState::Dead(_)) {
                    continue;
                }
                self.states[p] = match owner {
                    Some(color) if seki_eye => PointState::SekiEye(color),
                    Some(color) => PointState::Territory(color),
                    None if self.seki_liberty[p] => PointState::SekiLiberty,
                    None => PointState::Dame,
                };
            }
        }
    }

    /// Points `color` must fill in its own territory for its stones to live
    /// once the dame are filled. Dame filling alternates and each side
    /// answers threats, so the owner first takes every dame it can fill
    /// safely next to its threatened chains (connecting through dame costs
    /// nothing), then the opponent fills what it safely can there; a chain of
    /// `color` left with one liberty inside its own territory must fill it.
    /// Repeated until nothing changes. Marks the points as [`PointState::Fill`].
    ///
    /// Played out on an incremental [`Board`] so that each stone costs a few
    /// liberty lookups, not a relabelling of the whole position.
    fn fills(&mut self, size: crate::BoardSize, color: Color) -> u32 {
        let n = size.points();
        let w = size.width() as usize;
        let at = |i: usize| Point::new((i % w) as u8, (i / w) as u8).expect("on the board");
        self.board.reset(size);
        for i in 0..n {
            if let Some(c) = self.cells[i] {
                let _ = self.board.set(at(i), Some(c));
            }
        }
        let opponent = color.other();
        let mut fills = 0;
        for _round in 0..n {
            let mut changed = false;
            for by in [color, opponent] {
                // Chains of `color` down to one liberty in their territory,
                // found once per pass: placements in between only add dame
                // stones, which never change a chain's territory liberties.
                if !self.find_threatened(size, color) {
                    break;
                }
                for i in 0..n {
                    let p = at(i);
                    if !matches!(self.states[i], PointState::Dame)
                        || self.seki_liberty[i]
                        || self.board.get(p).is_some()
                    {
                        continue;
                    }
                    let threatened = self.nb(i).any(|j| {
                        self.board.chain_id(at(j)).is_some_and(|id| {
                            self.board.get(at(j)) == Some(color)
                                && self.threatened[id.index()] == self.threat_gen
                        })
                    });
                    if threatened && self.board_can_fill(p, by) {
                        let _ = self.board.play(by, p);
                        changed = true;
                    }
                }
            }
            // Chains of `color` in atari whose last liberty is in its territory.
            self.seen_gen += 1;
            for i in 0..n {
                let p = at(i);
                if !self.first_visit(p, color) {
                    continue;
                }
                let mut libs = [None; 2];
                let mut count = 0;
                self.board.for_each_liberty(p, |q| {
                    if count < 2 {
                        libs[count] = Some(q);
                    }
                    count += 1;
                });
                if count != 1 {
                    continue;
                }
                let l = libs[0].expect("one liberty");
                let li = l.y() as usize * w + l.x() as usize;
                if self.is_own_territory(li, color) {
                    let _ = self.board.play(color, l);
                    self.states[li] = PointState::Fill(color);
                    fills += 1;
                    changed = true;
                    // Chain ids change with the stone just played.
                    self.seen_gen += 1;
                }
            }
            if !changed {
                break;
            }
        }
        fills
    }

    /// Whether `p` holds a stone of `color` whose chain this scan (since the
    /// last `seen_gen` bump) has not visited yet; marks it visited.
    fn first_visit(&mut self, p: Point, color: Color) -> bool {
        if self.board.get(p) != Some(color) {
            return false;
        }
        let id = self.board.chain_id(p).expect("a stone").index();
        if self.seen_chains[id] == self.seen_gen {
            return false;
        }
        self.seen_chains[id] = self.seen_gen;
        true
    }

    /// Fills `self.threatened` with the chains of `color` on the fill board
    /// that have exactly one liberty inside `color`'s territory.
    fn find_threatened(&mut self, size: crate::BoardSize, color: Color) -> bool {
        let w = size.width() as usize;
        self.threat_gen += 1;
        self.seen_gen += 1;
        let mut any = false;
        for i in 0..size.points() {
            let p = Point::new((i % w) as u8, (i / w) as u8).expect("on the board");
            if !self.first_visit(p, color) {
                continue;
            }
            if self.own_liberties(p, color) == 1 {
                let id = self.board.chain_id(p).expect("a stone").index();
                self.threatened[id] = self.threat_gen;
                any = true;
            }
        }
        any
    }

    /// Whether point `i` counts as `color`'s territory (seki eyes do not).
    fn is_own_territory(&self, i: usize, color: Color) -> bool {
        self.own[i] == Some(color) && !matches!(self.states[i], PointState::SekiEye(_))
    }

    /// Liberties of the chain on `p` that lie in `color`'s territory.
    fn own_liberties(&self, p: Point, color: Color) -> u32 {
        let w = self.board.size().width() as usize;
        let mut own = 0;
        self.board.for_each_liberty(p, |q| {
            if self.is_own_territory(q.y() as usize * w + q.x() as usize, color) {
                own += 1;
            }
        });
        own
    }

    /// Whether `by` can play the empty point `p` on the fill board leaving
    /// its chain at least two liberties, without capturing (a capturing dame
    /// is one the threatened side would have filled itself).
    fn board_can_fill(&self, p: Point, by: Color) -> bool {
        let board = &self.board;
        let mut seen: [Option<Point>; 2] = [None; 2];
        let mut distinct = 0;
        let mut add = |q: Point| {
            if q != p && distinct < 2 && !seen[..distinct].contains(&Some(q)) {
                seen[distinct] = Some(q);
                distinct += 1;
            }
        };
        for q in board.neighbors(p) {
            match board.get(q) {
                None => add(q),
                Some(c) if c == by => board.for_each_liberty(q, &mut add),
                Some(_) => {
                    if board.liberties(q) == 1 {
                        return false;
                    }
                }
            }
        }
        distinct >= 2
    }

    /// For each colour, whether any of its chains has exactly one liberty
    /// inside its own territory. If none has, no fill can ever be needed: filling dame never
    /// takes a territory liberty away, and joining chains only unites their
    /// territory liberties, so a chain with none or with two or more never
    /// comes down to one liberty that lies in its own territory. Such a chain
    /// also needs a dame beside it (or to be in atari already): its other
    /// liberties are then seki liberties, which nobody fills. This keeps the
    /// dame simulation off almost every game.
    fn fill_candidates(&mut self) -> ByColor<bool> {
        let mut any = ByColor::new(false, false);
        for c in 0..self.chains.len() {
            let chain = self.chains[c];
            let color = chain.color.expect("chains have a colour");
            if any[color] {
                continue;
            }
            self.generation += 1;
            let gen = self.generation;
            let (mut own, mut dame, mut all) = (0, 0, 0);
            for k in chain.start..chain.start + chain.len {
                let p = self.members[k as usize] as usize;
                for q in self.nb(p) {
                    if self.cells[q].is_none() && self.stamp[q] != gen {
                        self.stamp[q] = gen;
                        all += 1;
                        if self.is_own_territory(q, color) {
                            own += 1;
                        } else if matches!(self.states[q], PointState::Dame) {
                            dame += 1;
                        }
                    }
                }
            }
            // In atari already, or a dame the opponent may fill next to it.
            if own == 1 && (all == 1 || dame > 0) {
                any[color] = true;
            }
        }
        any
    }
}

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
