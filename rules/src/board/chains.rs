//! The chain kernel both boards stand on: the padded grid and chains kept as
//! circular lists of stones with a head per stone.
//!
//! The replay board ([`super::Board`]) and the settler's playout board keep
//! different per-chain sums (pseudo-liberties only, or their count, sum and
//! sum of squares too), but they link stones into chains, join two chains and
//! walk one the same way. That part lives here once; each board adds its own
//! sums in the join it calls.

use crate::MAX_SIZE;

/// Row stride of the padded grid: the largest board plus a border on each side.
pub(crate) const STRIDE: usize = MAX_SIZE as usize + 2;
/// Cells of the padded grid. Indices fit in `u16`.
pub(crate) const CELLS: usize = STRIDE * STRIDE;

/// The four neighbours of a cell, in the order up, left, right, down. Every
/// point of a board has four cells around it: the ring outside is border.
#[inline]
pub(crate) const fn neighbours(i: usize) -> [usize; 4] {
    [i - STRIDE, i - 1, i + 1, i + STRIDE]
}

/// Per stone, the head of its chain and the next stone round the chain; per
/// head, the chain's length. Cells that hold no stone keep stale values that
/// are in range and never read for a chain.
#[derive(Clone)]
pub(crate) struct Links {
    head: [u16; CELLS],
    next: [u16; CELLS],
    len: [u16; CELLS],
}

impl Links {
    pub(crate) const fn new() -> Links {
        Links {
            head: [0; CELLS],
            next: [0; CELLS],
            len: [0; CELLS],
        }
    }

    /// The head of the chain on cell `p` (a stone): the same for every stone
    /// of the chain.
    #[inline(always)]
    pub(crate) fn head(&self, p: usize) -> usize {
        self.head[p] as usize
    }

    /// The stone after `p` round its chain.
    #[inline(always)]
    pub(crate) fn next(&self, p: usize) -> usize {
        self.next[p] as usize
    }

    /// The number of stones of the chain whose head is `h`.
    #[inline(always)]
    pub(crate) fn len(&self, h: usize) -> u16 {
        self.len[h]
    }

    /// Makes the stone on `p` a chain of its own.
    #[inline(always)]
    pub(crate) fn single(&mut self, p: usize) {
        self.head[p] = p as u16;
        self.next[p] = p as u16;
        self.len[p] = 1;
    }

    /// Adds the stone on `p` to the chain whose head is `h`, without
    /// relabelling anything.
    #[inline(always)]
    pub(crate) fn attach(&mut self, p: usize, h: usize) {
        self.head[p] = h as u16;
        self.next[p] = self.next[h];
        self.next[h] = p as u16;
        self.len[h] += 1;
    }

    /// Joins the chains whose heads are `a` and `b` (distinct), relabelling
    /// the smaller; returns `(kept, absorbed)` heads so that the caller adds
    /// the absorbed chain's sums to the kept one's.
    #[inline]
    pub(crate) fn join(&mut self, a: usize, b: usize) -> (usize, usize) {
        let (big, small) = if self.len[a] >= self.len[b] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = self.next[s] as usize;
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.len[big] += self.len[small];
        (big, small)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stones(links: &Links, h: usize) -> Vec<usize> {
        let mut out = vec![h];
        let mut s = links.next(h);
        while s != h {
            out.push(s);
            s = links.next(s);
        }
        out.sort();
        out
    }

    #[test]
    fn join_keeps_the_longer_head_and_one_circle() {
        let mut links = Links::new();
        let (a, b, c) = (STRIDE + 1, STRIDE + 2, STRIDE + 3);
        links.single(a);
        links.attach(b, a);
        links.single(c);
        assert_eq!(
            links.join(c, a),
            (a, c),
            "the two-stone chain keeps its head"
        );
        assert_eq!(links.len(a), 3);
        assert_eq!(stones(&links, a), vec![a, b, c]);
        for s in [a, b, c] {
            assert_eq!(links.head(s), a);
        }
    }

    #[test]
    fn neighbours_are_one_row_or_column_away() {
        let i = 5 * STRIDE + 7;
        let n = neighbours(i);
        assert_eq!(n, [i - STRIDE, i - 1, i + 1, i + STRIDE]);
    }
}
