//! What the position inside an enclosure says without reading further:
//! a defender that can never be taken (pass-alive), and one that can never
//! make two eyes.

use super::{Bits, Enclosures, State};

impl Enclosures {
    /// [`Self::pass_alive`], each position tested once per search.
    pub(super) fn pass_alive_cached(&mut self, st: &State) -> bool {
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
    pub(super) fn pass_alive(&self, st: &State) -> bool {
        let mine = st.stones[self.defender];
        let empty = self.all & !(st.stones[0] | st.stones[1]);
        // The defender's chains and the regions between them, as bits.
        let mut chains = [0 as Bits; 16];
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
        let mut regions = [0 as Bits; 31];
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

}
