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

    /// Whether some defender chains are pass-alive inside the enclosure:
    /// Benson's iteration ([`crate::life::Incidence`], the same the whole-board proof
    /// runs) over the defender's chains and the regions between them, the
    /// wall being the attacker's, so a region next to it is no eye.
    pub(super) fn pass_alive(&mut self, st: &State) -> bool {
        let mine = st.stones[self.defender];
        let empty = self.all & !(st.stones[0] | st.stones[1]);
        // The defender's chains, as bits; more than 16 are not read as alive.
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
        let mut incidence = std::mem::take(&mut self.incidence);
        incidence.clear();
        let mut rest = self.all & !mine;
        while rest != 0 {
            let r = self.chain(self.all & !mine, rest.trailing_zeros() as usize);
            rest &= !r;
            if r & self.by_wall != 0 {
                continue;
            }
            let r_empty = r & empty;
            incidence.region(r_empty.count_ones());
            let border = self.spread(r) & mine;
            for (i, &chain) in chains[..nc].iter().enumerate() {
                if chain & border != 0 {
                    let libs = self.spread(chain) & r_empty;
                    incidence.border(i as u32, libs.count_ones());
                }
            }
        }
        incidence.solve(nc);
        let alive = (0..nc).any(|i| incidence.chain_alive(i));
        self.incidence = incidence;
        alive
    }
}
