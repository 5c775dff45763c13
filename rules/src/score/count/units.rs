//! Owners: Tromp-Taylor's raw area, living units (chains joined through
//! the regions they own) and the state of every point.

use super::*;

impl Counter {
    /// Tromp-Taylor's area: the board as it stands, dead stones included.
    /// Only the regions of the counted position that hold a removed stone
    /// differ on the raw board; those are flooded again over the raw cells,
    /// the rest keep their counted owner.
    pub(super) fn raw_area(&mut self, position: &Position, dead: &[Point]) -> ByColor<u32> {
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

    /// Records which chains touch each owned region, once per count.
    pub(super) fn link_owned_regions(&mut self) {
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
    pub(super) fn units(&mut self, size: crate::BoardSize, counts: &mut Counts) {
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

    pub(super) fn mark_states(&mut self, in_seki: &[bool], counts: &mut Counts) {
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
}
