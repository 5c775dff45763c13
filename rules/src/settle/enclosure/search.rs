//! The proof-number search over the positions inside an enclosure.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{Bits, Enclosures, State, MAX_LINE, MAX_POINTS, MAX_SACRIFICE, NO_KO, PASS};
use crate::settle::proof::{combine, most_proving, Links, ProofNode, INF};

/// A small multiplicative hasher: the keys are already well mixed bits.
#[derive(Default)]
pub(super) struct BitsHasher(u64);

impl Hasher for BitsHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    // Arrays hash their length first: no byte loop for it.
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// Positions already tested for pass-alive defenders, by their stones.
pub(super) type AliveCache = HashMap<[Bits; 2], bool, BuildHasherDefault<BitsHasher>>;

/// A node of the proof-number search.
#[derive(Copy, Clone, Debug)]
pub(super) struct Node {
    st: State,
    links: Links,
    passes: u8,
    /// Moves from the root: a bound on the line, and on the path walked
    /// to test a repetition.
    depth: u8,
    parent: u32,
}

impl ProofNode for Node {
    fn links(&self) -> &Links {
        &self.links
    }
}

impl Enclosures {
    /// The empty points `side` may play, best first: captures, then
    /// escapes from atari, then the points with the most empty neighbours
    /// (the vital point of an eye space).
    pub(super) fn moves(&self, st: &State, side: usize, out: &mut [u8]) -> usize {
        let empty = self.all & !(st.stones[0] | st.stones[1]);
        let (takes, saves) = (self.atari_points(st, 1 - side), self.atari_points(st, side));
        let mut count = 0;
        for first in [takes, saves & !takes, empty & !takes & !saves] {
            for want in (0..=4).rev() {
                let mut e = first;
                while e != 0 {
                    let p = e.trailing_zeros() as usize;
                    e &= e - 1;
                    if (self.around[p] & empty).count_ones() == want {
                        out[count] = p as u8;
                        count += 1;
                    }
                }
            }
        }
        count
    }

    /// Whether every defender stone is captured by force from `root`, the
    /// attacker moving first (`None`: out of `budget`): a proof-number
    /// search, which reads the lines with the fewest answers first, so a
    /// long forcing kill is found within a budget that a full-width search
    /// spends in its first few moves.
    pub(super) fn prove(&mut self, root: State, budget: u32) -> Option<bool> {
        self.tree.clear();
        self.alive.clear();
        let mut root = Node {
            st: root,
            links: Links::leaf(true),
            passes: 0,
            depth: 0,
            parent: u32::MAX,
        };
        self.settle_leaf(&mut root, 0);
        self.tree.push(root);
        while self.tree[0].links.pn != 0 && self.tree[0].links.dn != 0 {
            if self.tree.len() as u32 > budget {
                return None;
            }
            let at = most_proving(&self.tree)?;
            self.expand(at);
            // Back up to the root.
            let mut up = at;
            loop {
                let node = self.tree[up];
                let l = node.links;
                let kids = &self.tree[l.first as usize..l.first as usize + l.count as usize];
                let (pn, dn) = if l.count == 0 {
                    (l.pn, l.dn)
                } else {
                    combine(l.attacker, kids)
                };
                self.tree[up].links.pn = pn;
                self.tree[up].links.dn = dn;
                if node.parent == u32::MAX {
                    break;
                }
                up = node.parent as usize;
            }
        }
        Some(self.tree[0].links.pn == 0)
    }

    /// Sets a new node's numbers when the position is already settled:
    /// the defender captured for good (proven), two passes, a big capture
    /// by the defender, a pass-alive defender, or a line too long
    /// (disproven). Testing pass-alive on every new node, not only on
    /// those expanded, costs more per node but tells the search early
    /// which lines are hopeless: it proves more within the same budget.
    pub(super) fn settle_leaf(&mut self, node: &mut Node, attacker_before: u32) {
        let st = &node.st;
        // Captured for good: no captor can be taken back (a snapback).
        let proven = st.stones[self.defender] == 0 && self.atari_points(st, self.attacker) == 0;
        let lost = attacker_before.saturating_sub(st.stones[self.attacker].count_ones());
        let disproven = !proven
            && (node.passes >= 2
                || usize::from(node.depth) >= MAX_LINE
                // The space a big capture opens is too big to read, and
                // the attacker seldom wins it back: counted as living.
                || lost > MAX_SACRIFICE
                || self.pass_alive_cached(st));
        (node.links.pn, node.links.dn) = if proven {
            (0, INF)
        } else if disproven {
            (INF, 0)
        } else {
            (1, 1)
        };
    }

    /// Adds the children of leaf `at`: every legal move and the pass,
    /// less repetitions of a position on the line and the attacker's big
    /// self-ataris ([`Self::big_self_atari`]).
    pub(super) fn expand(&mut self, at: usize) {
        let node = self.tree[at];
        let side = if node.links.attacker {
            self.attacker
        } else {
            self.defender
        };
        let mut moves = [0u8; MAX_POINTS + 1];
        let mut n = self.moves(&node.st, side, &mut moves);
        moves[n] = PASS;
        n += 1;
        let first = self.tree.len();
        for &m in &moves[..n] {
            let (st, passes) = if m == PASS {
                (
                    State {
                        ko: NO_KO,
                        ..node.st
                    },
                    node.passes + 1,
                )
            } else {
                let Some(next) = self.play(&node.st, usize::from(m), side) else {
                    continue;
                };
                if node.links.attacker && self.big_self_atari(&node.st, &next, usize::from(m)) {
                    continue;
                }
                if self.repeats(at, &next.stones) {
                    continue;
                }
                (next, 0)
            };
            let mut child = Node {
                st,
                links: Links::leaf(!node.links.attacker),
                passes,
                depth: node.depth + 1,
                parent: at as u32,
            };
            self.settle_leaf(&mut child, node.st.stones[self.attacker].count_ones());
            self.tree.push(child);
        }
        let count = (self.tree.len() - first) as u16;
        let node = &mut self.tree[at];
        node.links.expand(first as u32, count);
        if count == 0 {
            // The pass is always there; should nothing be, the line is
            // not a kill.
            (node.links.pn, node.links.dn) = (INF, 0);
        }
    }

    /// Whether `stones` were on the board at node `at` or above it.
    pub(super) fn repeats(&self, mut at: usize, stones: &[Bits; 2]) -> bool {
        loop {
            let node = &self.tree[at];
            if node.st.stones == *stones {
                return true;
            }
            if node.parent == u32::MAX {
                return false;
            }
            at = node.parent as usize;
        }
    }
}
