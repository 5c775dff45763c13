//! Labelling: chains and regions of the counted position, their liberties
//! and the colours each region touches, by union-find.

use super::*;

impl Counter {
    /// Labels chains and regions of `self.cells`, with liberty counts and
    /// region colour masks.
    pub(super) fn label(&mut self, size: crate::BoardSize) {
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
}
