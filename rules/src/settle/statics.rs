//! The static layer: eyes, groups and enclosures, iterated to a fixed point.
//!
//! Words used here, for a colour X and its opponent O, on the board with the
//! stones decided dead so far taken off:
//!
//! * an **X-area** is a maximal connected set of points without a living X
//!   stone (Benson's X-enclosed region): empty points, dead stones, O stones;
//! * a **pure** X-area holds no living O stone: X's eye or territory;
//! * X chains bordering the same pure area, or sharing a liberty, form one
//!   **group**: they live or die together;
//! * a group's **eyes** add up what each area next to it is worth
//!   ([`super::shape`]): a one-point area whose surrounding chains could be
//!   cut (a false eye) is worth nothing;
//! * an impure X-area is X's **territory with invaders** when it is not most
//!   of the board and no O group inside it has two eyes of its own there;
//! * a group is **strong** when it is pass-alive or has two eyes, counting
//!   territories with invaders.
//!
//! Each round kills the O stones of every territory with invaders whose X
//! border is all strong and whose O groups are all weak, then looks again:
//! taking dead stones off turns territories pure and makes more groups
//! strong. Weak groups left at the end that share liberties with weak groups
//! of the other colour are in seki; others are left alive with a low
//! confidence for the later layers.

use super::shape::{eye_value, Space};
use super::stamps::Stamps;
use super::{Layer, Status};
use crate::board::flood;
use crate::life::PassAlive;
use crate::score::Position;
use crate::{BoardSize, Color, Point};

const NONE: u16 = u16::MAX;

#[derive(Copy, Clone, Debug)]
struct Chain {
    color: Color,
    start: u32,
    len: u32,
}

#[derive(Copy, Clone, Debug, Default)]
struct Area {
    start: u32,
    len: u32,
    /// Living stones of the other colour inside.
    invaders: u32,
    /// Empty points next to those stones: how long they can hold out.
    invader_liberties: u32,
}

/// Per-colour labelling of X-areas.
#[derive(Clone, Debug, Default)]
struct Areas {
    area_of: Vec<u16>,
    areas: Vec<Area>,
    points: Vec<u16>,
    /// (area, bordering X chain), sorted and distinct.
    borders: Vec<(u16, u16)>,
}

impl Areas {
    /// Where the borders of `area` are in `borders`.
    fn border_range(&self, area: usize) -> std::ops::Range<usize> {
        let from = self.borders.partition_point(|&(a, _)| (a as usize) < area);
        let to = self.borders.partition_point(|&(a, _)| (a as usize) <= area);
        from..to
    }
}

/// What the static layer concluded about one chain.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum StaticFate {
    /// Benson's proof.
    Proven(Status),
    /// The static layer's best guess.
    Likely(Status),
}

/// Reusable scratch space for the static layer.
#[derive(Clone, Debug, Default)]
pub(crate) struct Statics {
    size: Option<BoardSize>,
    nbr: Vec<[u16; 4]>,
    diag: Vec<[u16; 4]>,
    cells: Vec<Option<Color>>,
    chain_of: Vec<u16>,
    chains: Vec<Chain>,
    chain_points: Vec<u16>,
    dead: Vec<bool>,
    dead_layer: Vec<Layer>,
    pass_alive: Vec<bool>,
    areas: [Areas; 2],
    parent: Vec<u16>,
    pure_eyes: Vec<u8>,
    /// Per group root: eyes it could make inside the area of the other
    /// colour that holds it (areas of its own wholly inside that area).
    potential: Vec<u8>,
    eyes: Vec<u8>,
    strong: Vec<bool>,
    stamps: Stamps,
    stack: Vec<u16>,
}

impl Statics {
    /// Analyses `position`, starting from Benson's certainties.
    pub(crate) fn analyse(&mut self, position: &Position, benson: &PassAlive) {
        self.prepare(position);
        if self.chains.is_empty() {
            return;
        }
        self.start_from(benson);
        for _round in 0..16 {
            self.label_areas(Color::Black);
            self.label_areas(Color::White);
            self.find_groups();
            self.count_eyes();
            if self.join_around_territories() {
                self.count_eyes();
            }
            if !self.kill_invaders() {
                break;
            }
        }
    }

    /// Chains of the last position, in the order of their first stone.
    pub(crate) fn chain_count(&self) -> usize {
        self.chains.len()
    }

    /// The colour and the stones (point indices) of chain `c`.
    pub(crate) fn chain(&self, c: usize) -> (Color, &[u16]) {
        let chain = self.chains[c];
        (
            chain.color,
            &self.chain_points[chain.start as usize..(chain.start + chain.len) as usize],
        )
    }

    /// The chain on point index `i` (which must hold a stone).
    pub(crate) fn chain_at(&self, i: usize) -> usize {
        self.chain_of[i] as usize
    }

    /// How many points the last position has.
    pub(crate) fn cells_len(&self) -> usize {
        self.cells.len()
    }

    /// The stone on point index `i`, if any.
    pub(crate) fn color_at(&self, i: usize) -> Option<Color> {
        self.cells[i]
    }

    /// The points next to point index `i`.
    pub(crate) fn neighbours(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.nbr[i]
            .iter()
            .filter(|&&q| q != NONE)
            .map(|&q| q as usize)
    }

    /// The group chain `c` lives or dies with: the same number for every
    /// chain of the group.
    pub(crate) fn group(&self, c: usize) -> usize {
        self.parent.get(c).map_or(c, |&r| r as usize)
    }

    /// What this layer (with Benson's below it) says of chain `c`.
    pub(crate) fn fate(&self, c: usize) -> StaticFate {
        let root = self.group(c);
        if self.dead[c] && self.dead_layer[c] == Layer::Benson {
            StaticFate::Proven(Status::Dead)
        } else if self.pass_alive[c] {
            StaticFate::Proven(Status::Alive)
        } else if self.dead[c] {
            StaticFate::Likely(Status::Dead)
        } else if self.strong.get(root).copied().unwrap_or(false) {
            StaticFate::Likely(Status::Alive)
        } else if self.touches_weak_opponent(c) {
            StaticFate::Likely(Status::Seki)
        } else {
            StaticFate::Likely(Status::Alive)
        }
    }

    /// The points of the opponent's area holding chain `c` when that area
    /// is territory the opponent has closed: not most of the board, every
    /// chain on its border strong, and `c` guessed dead in it (by the
    /// test [`Statics::kill_invaders`] kills by). `None` otherwise.
    pub(crate) fn shut_in(&self, c: usize) -> Option<&[u16]> {
        let chain = self.chains[c];
        let o = chain.color.other();
        let a = &self.areas[o as usize];
        let p0 = self.chain_points[chain.start as usize] as usize;
        let id = a.area_of.get(p0).copied()?;
        if id == NONE {
            return None;
        }
        let area = a.areas[id as usize];
        if area.len as usize * 3 > self.cells.len() * 2 {
            return None;
        }
        let border_strong = a.borders[a.border_range(id as usize)]
            .iter()
            .all(|&(_, b)| self.strong[self.parent[b as usize] as usize]);
        if !border_strong || !self.dead[c] {
            return None;
        }
        Some(&a.points[area.start as usize..(area.start + area.len) as usize])
    }

    fn prepare(&mut self, position: &Position) {
        let size = position.size();
        let n = size.points();
        if self.size != Some(size) {
            self.size = Some(size);
            let w = size.width() as usize;
            let h = size.height() as usize;
            self.nbr.clear();
            self.diag.clear();
            for i in 0..n {
                let (x, y) = ((i % w) as i64, (i / w) as i64);
                let at = |dx: i64, dy: i64| {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                        NONE
                    } else {
                        (ny as usize * w + nx as usize) as u16
                    }
                };
                self.nbr.push([at(-1, 0), at(1, 0), at(0, -1), at(0, 1)]);
                self.diag.push([at(-1, -1), at(1, -1), at(-1, 1), at(1, 1)]);
            }
        }
        self.cells.clear();
        self.cells.extend_from_slice(position.cells());
        self.stamps.fit(n.max(1) * 2);
        // Chains.
        self.chain_of.clear();
        self.chain_of.resize(n, NONE);
        self.chains.clear();
        self.chain_points.clear();
        for i in 0..n {
            let Some(color) = self.cells[i] else { continue };
            if self.chain_of[i] != NONE {
                continue;
            }
            let id = self.chains.len() as u16;
            let start = self.chain_points.len() as u32;
            let (cells, chain_points) = (&self.cells, &mut self.chain_points);
            flood::fill(
                &self.nbr,
                &mut self.chain_of,
                NONE,
                id,
                i,
                &mut self.stack,
                |q| cells[q] == Some(color),
                |p| chain_points.push(p as u16),
                |_| {},
            );
            let len = self.chain_points.len() as u32 - start;
            self.chains.push(Chain { color, start, len });
        }
    }

    fn start_from(&mut self, benson: &PassAlive) {
        let m = self.chains.len();
        self.dead.clear();
        self.dead.resize(m, false);
        self.dead_layer.clear();
        self.dead_layer.resize(m, Layer::Static);
        self.pass_alive.clear();
        self.pass_alive.resize(m, false);
        let w = self.width();
        for (c, chain) in self.chains.iter().enumerate() {
            let p = point_of(self.chain_points[chain.start as usize] as usize, w);
            if benson.is_alive(p) {
                self.pass_alive[c] = true;
            } else if benson.territory(p) == Some(chain.color.other()) {
                self.dead[c] = true;
                self.dead_layer[c] = Layer::Benson;
            }
        }
    }

    pub(crate) fn width(&self) -> usize {
        self.size.map_or(1, |s| s.width() as usize)
    }

    /// The colour of the living stone on point `i`, if any.
    fn live(&self, i: usize) -> Option<Color> {
        let color = self.cells[i]?;
        (!self.dead[self.chain_of[i] as usize]).then_some(color)
    }

    fn label_areas(&mut self, x: Color) {
        let n = self.cells.len();
        let mut a = std::mem::take(&mut self.areas[x as usize]);
        a.area_of.clear();
        a.area_of.resize(n, NONE);
        a.areas.clear();
        a.points.clear();
        a.borders.clear();
        for i in 0..n {
            if a.area_of[i] != NONE || self.live(i) == Some(x) {
                continue;
            }
            let id = a.areas.len() as u16;
            let start = a.points.len() as u32;
            let mut invaders = 0;
            let mut stack = std::mem::take(&mut self.stack);
            let live = |i: usize| self.live(i);
            let (points, borders) = (&mut a.points, &mut a.borders);
            flood::fill(
                &self.nbr,
                &mut a.area_of,
                NONE,
                id,
                i,
                &mut stack,
                |q| live(q) != Some(x),
                |p| {
                    points.push(p as u16);
                    invaders += u32::from(live(p).is_some());
                },
                |q| borders.push((id, self.chain_of[q])),
            );
            self.stack = stack;
            let len = a.points.len() as u32 - start;
            self.stamps.next_round();
            let mut invader_liberties = 0;
            for k in start as usize..a.points.len() {
                let p = a.points[k] as usize;
                if self.live(p).is_none() {
                    continue;
                }
                for &q in &self.nbr[p] {
                    if q != NONE && self.live(q as usize).is_none() && self.stamps.mark(q as usize)
                    {
                        invader_liberties += 1;
                    }
                }
            }
            a.areas.push(Area {
                start,
                len,
                invaders,
                invader_liberties,
            });
        }
        a.borders.sort_unstable();
        a.borders.dedup();
        self.areas[x as usize] = a;
    }

    fn find(&mut self, c: u16) -> u16 {
        let mut r = c;
        while self.parent[r as usize] != r {
            r = self.parent[r as usize];
        }
        let mut c = c;
        while self.parent[c as usize] != r {
            let next = self.parent[c as usize];
            self.parent[c as usize] = r;
            c = next;
        }
        r
    }

    fn union(&mut self, a: u16, b: u16) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }

    /// Groups: chains bordering the same pure area, or sharing a liberty.
    fn find_groups(&mut self) {
        let m = self.chains.len();
        self.parent.clear();
        self.parent.extend(0..m as u16);
        for x in Color::ALL {
            let borders = std::mem::take(&mut self.areas[x as usize].borders);
            for pair in borders.windows(2) {
                let (a0, c0) = pair[0];
                let (a1, c1) = pair[1];
                if a0 == a1 && self.areas[x as usize].areas[a0 as usize].invaders == 0 {
                    self.union(c0, c1);
                }
            }
            self.areas[x as usize].borders = borders;
        }
        // Shared liberties (in impure areas too).
        for i in 0..self.cells.len() {
            if self.live(i).is_some() {
                continue;
            }
            let mut first = [NONE; 2];
            for k in 0..4 {
                let q = self.nbr[i][k];
                if q == NONE {
                    continue;
                }
                if let Some(color) = self.live(q as usize) {
                    let c = self.chain_of[q as usize];
                    let slot = &mut first[color as usize];
                    if *slot == NONE {
                        *slot = c;
                    } else if *slot != c {
                        let s = *slot;
                        self.union(s, c);
                    }
                }
            }
        }
        for c in 0..m as u16 {
            self.find(c);
        }
    }

    /// Chains bordering the same territory with invaders live or die
    /// together, like chains around one eye: the invaders cannot cut them.
    /// Returns whether any groups were joined.
    fn join_around_territories(&mut self) -> bool {
        let mut joined = false;
        for x in Color::ALL {
            for area_id in 0..self.areas[x as usize].areas.len() {
                if !self.is_territory(x, area_id) {
                    continue;
                }
                let mut first = NONE;
                for k in self.areas[x as usize].border_range(area_id) {
                    let c = self.areas[x as usize].borders[k].1;
                    if first == NONE {
                        first = c;
                    } else if self.find(first) != self.find(c) {
                        self.union(first, c);
                        joined = true;
                    }
                }
            }
        }
        if joined {
            for c in 0..self.chains.len() as u16 {
                self.find(c);
            }
        }
        joined
    }

    /// What a pure area is worth as an eye to the chains around it.
    fn pure_value(&self, x: Color, area: &Area) -> u8 {
        let a = &self.areas[x as usize];
        let points = &a.points[area.start as usize..(area.start + area.len) as usize];
        if points.len() == 1 && self.false_eye(x, points[0] as usize) {
            return 0;
        }
        eye_value(&Space {
            points,
            width: self.width(),
        })
    }

    /// A one-point eye whose surrounding chains are not one chain and whose
    /// diagonals the opponent holds: one on the edge, two in the middle.
    fn false_eye(&self, x: Color, i: usize) -> bool {
        let mut chain = NONE;
        let mut one_chain = true;
        for &q in &self.nbr[i] {
            if q != NONE {
                let c = self.chain_of[q as usize];
                if chain == NONE {
                    chain = c;
                } else if chain != c {
                    one_chain = false;
                }
            }
        }
        if one_chain {
            return false;
        }
        let mut on_board = 0;
        let mut held = 0;
        for &d in &self.diag[i] {
            if d != NONE {
                on_board += 1;
                if self.live(d as usize) == Some(x.other()) {
                    held += 1;
                }
            }
        }
        held >= if on_board < 4 { 1 } else { 2 }
    }

    /// Eyes per group root: pure areas first, then territories with invaders.
    fn count_eyes(&mut self) {
        let m = self.chains.len();
        self.pure_eyes.clear();
        self.pure_eyes.resize(m, 0);
        self.eyes.clear();
        self.eyes.resize(m, 0);
        self.strong.clear();
        self.strong.resize(m, false);
        for c in 0..m {
            if self.pass_alive[c] {
                let r = self.parent[c] as usize;
                self.strong[r] = true;
            }
        }
        // Pure areas.
        for x in Color::ALL {
            for area_id in 0..self.areas[x as usize].areas.len() {
                let area = self.areas[x as usize].areas[area_id];
                if area.invaders != 0 {
                    continue;
                }
                let value = self.pure_value(x, &area);
                self.credit(x, area_id as u16, value, true);
            }
        }
        self.count_potential();
        // Territories with invaders, now that pure eyes are known.
        for x in Color::ALL {
            for area_id in 0..self.areas[x as usize].areas.len() {
                if self.is_territory(x, area_id) {
                    let area = self.areas[x as usize].areas[area_id];
                    let value = self.territory_value(x, &area);
                    self.credit(x, area_id as u16, value, false);
                }
            }
        }
        for c in 0..m {
            if self.parent[c] as usize == c && self.eyes[c] >= 2 {
                self.strong[c] = true;
            }
        }
    }

    /// For each group, what its own areas lying wholly inside the enclosing
    /// area of the other colour are worth: the room it has to live where it
    /// stands. Pure areas count as eyes; impure ones (holding stones of the
    /// other colour) by their empty points.
    fn count_potential(&mut self) {
        let m = self.chains.len();
        self.potential.clear();
        self.potential.resize(m, 0);
        for o in Color::ALL {
            let x = o.other();
            for area_id in 0..self.areas[o as usize].areas.len() {
                let area = self.areas[o as usize].areas[area_id];
                let points = &self.areas[o as usize].points
                    [area.start as usize..(area.start + area.len) as usize];
                // Is every empty point of it inside one X-area?
                let mut inside = NONE;
                let mut whole = true;
                for &p in points {
                    let p = p as usize;
                    if self.live(p).is_some() {
                        continue;
                    }
                    let r = self.areas[x as usize].area_of[p];
                    if inside == NONE {
                        inside = r;
                    } else if inside != r {
                        whole = false;
                        break;
                    }
                }
                if !whole || inside == NONE {
                    continue;
                }
                // Two areas can hold each other's stones: a group and the
                // territory it encloses, seen from both colours. The inner
                // one is room to live in, the outer one is not; of the two,
                // the stones with fewer liberties are the ones enclosed.
                if area.invaders != 0 {
                    let enclosing = self.areas[x as usize].areas[inside as usize];
                    if area.invader_liberties >= enclosing.invader_liberties {
                        continue;
                    }
                }
                let value = if area.invaders == 0 {
                    self.pure_value(o, &area)
                } else {
                    self.territory_value(o, &area)
                };
                if value == 0 {
                    continue;
                }
                self.stamps.next_round();
                for k in self.areas[o as usize].border_range(area_id) {
                    let c = self.areas[o as usize].borders[k].1;
                    let r = self.parent[c as usize] as usize;
                    if self.stamps.mark(r) {
                        self.potential[r] = self.potential[r].saturating_add(value);
                    }
                }
            }
        }
    }

    /// Adds `value` eyes to every group bordering the area, once per group.
    fn credit(&mut self, x: Color, area_id: u16, value: u8, pure: bool) {
        if value == 0 {
            return;
        }
        self.stamps.next_round();
        for k in self.areas[x as usize].border_range(area_id as usize) {
            let c = self.areas[x as usize].borders[k].1;
            let r = self.parent[c as usize] as usize;
            if self.stamps.mark(r) {
                if pure {
                    self.pure_eyes[r] = self.pure_eyes[r].saturating_add(value);
                }
                self.eyes[r] = self.eyes[r].saturating_add(value);
            }
        }
    }

    /// An impure X-area that is not most of the board, whose invaders have
    /// no group with two pure eyes.
    fn is_territory(&self, x: Color, area_id: usize) -> bool {
        let a = &self.areas[x as usize];
        let area = a.areas[area_id];
        if area.invaders == 0 || area.len as usize * 3 > self.cells.len() * 2 {
            return false;
        }
        let points = &a.points[area.start as usize..(area.start + area.len) as usize];
        points.iter().all(|&p| {
            let p = p as usize;
            match self.live(p) {
                Some(_) => {
                    let r = self.parent[self.chain_of[p] as usize] as usize;
                    self.potential[r] < 2 && !self.strong[r]
                }
                None => true,
            }
        })
    }

    fn territory_value(&self, x: Color, area: &Area) -> u8 {
        if area.len > 6 {
            return 2;
        }
        let a = &self.areas[x as usize];
        let points = &a.points[area.start as usize..(area.start + area.len) as usize];
        eye_value(&Space {
            points,
            width: self.width(),
        })
    }

    /// Kills the invaders of every territory whose border is strong and whose
    /// invaders are weak. Returns whether anything died.
    fn kill_invaders(&mut self) -> bool {
        let mut killed = false;
        for x in Color::ALL {
            for area_id in 0..self.areas[x as usize].areas.len() {
                if !self.is_territory(x, area_id) {
                    continue;
                }
                let a = &self.areas[x as usize];
                let border_strong = a.borders[a.border_range(area_id)]
                    .iter()
                    .all(|&(_, c)| self.strong[self.parent[c as usize] as usize]);
                if !border_strong {
                    continue;
                }
                let area = a.areas[area_id];
                let invaders = area.start as usize..(area.start + area.len) as usize;
                let any_strong_invader = a.points[invaders.clone()].iter().any(|&p| {
                    self.live(p as usize).is_some()
                        && self.strong[self.parent[self.chain_of[p as usize] as usize] as usize]
                });
                if any_strong_invader {
                    continue;
                }
                for k in invaders {
                    let p = self.areas[x as usize].points[k] as usize;
                    if self.live(p).is_some() {
                        let c = self.chain_of[p] as usize;
                        self.dead[c] = true;
                        killed = true;
                    }
                }
            }
        }
        killed
    }

    /// The chain shares a liberty with a living, weak chain of the other colour.
    fn touches_weak_opponent(&self, c: usize) -> bool {
        let chain = self.chains[c];
        let points = &self.chain_points[chain.start as usize..(chain.start + chain.len) as usize];
        for &p in points {
            for &q in &self.nbr[p as usize] {
                if q == NONE || self.live(q as usize).is_some() {
                    continue;
                }
                for &r in &self.nbr[q as usize] {
                    if r == NONE {
                        continue;
                    }
                    if self.live(r as usize) == Some(chain.color.other()) {
                        let o = self.chain_of[r as usize] as usize;
                        if !self.strong[self.parent[o] as usize] {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }
}

fn point_of(i: usize, width: usize) -> Point {
    Point::new((i % width) as u8, (i / width) as u8).expect("index is on the board")
}
