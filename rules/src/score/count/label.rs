//! Labelling: chains and regions of the counted position, their liberties
//! and the colours each region touches, by flood fill ([`crate::board::flood`]).

use super::*;
use crate::board::flood;

impl Counter {
    /// Labels chains and regions of `self.cells`, with liberty counts and
    /// region colour masks.
    pub(super) fn label(&mut self, size: crate::BoardSize) {
        let n = size.points();
        if self.nbr_size != Some(size) {
            flood::neighbour_table(size, &mut self.nbr);
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
            if color.is_some() {
                if chain_of[i] != NONE {
                    continue;
                }
                let id = chains.len() as u16;
                *generation += 1;
                let gen = *generation;
                // Liberties: empty neighbours, each counted once.
                flood::fill(
                    nbr,
                    chain_of,
                    NONE,
                    id,
                    i,
                    stack,
                    |q| cells[q] == color,
                    |p| members.push(p as u16),
                    |q| {
                        if cells[q].is_none() && stamp[q] != gen {
                            stamp[q] = gen;
                            extra += 1;
                        }
                    },
                );
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
                // The colours the region touches, as a mask.
                flood::fill(
                    nbr,
                    region_of,
                    NONE,
                    id,
                    i,
                    stack,
                    |q| cells[q].is_none(),
                    |p| members.push(p as u16),
                    |q| {
                        if let Some(c) = cells[q] {
                            extra |= 1 << c.index();
                        }
                    },
                );
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
