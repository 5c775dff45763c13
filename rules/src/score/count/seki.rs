//! Seki: units that live only by shared liberties, and which points can
//! be filled without self-atari.

use super::*;

impl Counter {
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
    pub(super) fn weak_units_in_seki(
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

    /// Whether `color` can play on empty point `i` without leaving its own
    /// chain with fewer than two liberties (a capture always counts as able).
    pub(super) fn can_fill(&mut self, i: usize, color: Color) -> bool {
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
}
