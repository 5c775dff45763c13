//! The rules of play inside one enclosure, on bit sets: a bit per point,
//! so that a position is two sets and a move a few masks.

use super::{Bits, Enclosures, State, MAX_POINTS, MAX_SACRIFICE, NOT_INSIDE, NO_KO};
use crate::board::chains::neighbours as nbrs;
use crate::settle::playout::{PlayoutBoard, BORDER};

impl Enclosures {
    /// Indexes the neighbours of the enclosure found.
    pub(super) fn index(&mut self, board: &PlayoutBoard) {
        let n = self.cells.len();
        self.around.clear();
        self.by_wall = 0;
        for i in 0..n {
            let c = usize::from(self.cells[i]);
            let mut bits = 0 as Bits;
            for q in nbrs(c) {
                let j = self.local[q];
                if j != NOT_INSIDE {
                    bits |= 1 << j;
                } else if board.stone(q) != BORDER {
                    self.by_wall |= 1 << i;
                }
            }
            self.around.push(bits);
        }
        self.all = if n == MAX_POINTS {
            Bits::MAX
        } else {
            (1 << n) - 1
        };
    }

    /// The points next to any point of `set`.
    pub(super) fn spread(&self, set: Bits) -> Bits {
        let mut out = 0;
        let mut s = set;
        while s != 0 {
            out |= self.around[s.trailing_zeros() as usize];
            s &= s - 1;
        }
        out
    }

    /// The chain of `own` stones through point `p`.
    pub(super) fn chain(&self, own: Bits, p: usize) -> Bits {
        let mut set = (1 as Bits) << p;
        loop {
            let grown = (set | self.spread(set)) & own;
            if grown == set {
                return set;
            }
            set = grown;
        }
    }

    pub(super) fn liberties(&self, st: &State, chain: Bits) -> Bits {
        self.spread(chain) & self.all & !(st.stones[0] | st.stones[1])
    }

    /// Whether the chain of colour `side` is part of the wall (and cannot
    /// be taken).
    pub(super) fn walled(&self, side: usize, chain: Bits) -> bool {
        side == self.wall && chain & self.by_wall != 0
    }

    /// `side` plays at `p`; `None` when illegal (occupied, ko, suicide).
    pub(super) fn play(&self, st: &State, p: usize, side: usize) -> Option<State> {
        let bit = (1 as Bits) << p;
        if (st.stones[0] | st.stones[1]) & bit != 0 || st.ko as usize == p {
            return None;
        }
        let opp = 1 - side;
        let mut next = *st;
        next.stones[side] |= bit;
        let mut captured = 0 as Bits;
        let mut near = self.around[p] & next.stones[opp];
        while near != 0 {
            let q = near.trailing_zeros() as usize;
            let chain = self.chain(next.stones[opp], q);
            near &= !chain;
            if !self.walled(opp, chain) && self.liberties(&next, chain) == 0 {
                captured |= chain;
            }
        }
        next.stones[opp] &= !captured;
        let own = self.chain(next.stones[side], p);
        let libs = self.liberties(&next, own);
        if libs == 0 && !self.walled(side, own) {
            return None;
        }
        next.ko = if captured.count_ones() == 1 && own == bit && libs.count_ones() == 1 {
            captured.trailing_zeros() as u8
        } else {
            NO_KO
        };
        if next.ko != NO_KO && side == self.attacker && !self.attacker_kos {
            return None;
        }
        Some(next)
    }

    /// Whether the attacker's move at `p`, from `st` to `next`, put a chain
    /// of more than [`MAX_SACRIFICE`] stones in atari without taking
    /// anything. Not reading such moves is sound: fewer attacker moves
    /// can only prove fewer deaths.
    pub(super) fn big_self_atari(&self, st: &State, next: &State, p: usize) -> bool {
        if next.stones[self.defender] != st.stones[self.defender] {
            return false;
        }
        let own = self.chain(next.stones[self.attacker], p);
        own.count_ones() > MAX_SACRIFICE
            && !self.walled(self.attacker, own)
            && self.liberties(next, own).count_ones() == 1
    }

    /// The liberties of the chains of `side` in atari (not the wall's).
    pub(super) fn atari_points(&self, st: &State, side: usize) -> Bits {
        let mut points = 0;
        let mut rest = st.stones[side];
        while rest != 0 {
            let chain = self.chain(st.stones[side], rest.trailing_zeros() as usize);
            rest &= !chain;
            let libs = self.liberties(st, chain);
            if libs.count_ones() == 1 && !self.walled(side, chain) {
                points |= libs;
            }
        }
        points
    }
}
