//! Marks on points or chains that are all cleared at once: each round of
//! marking takes the next generation number, so a new round costs nothing
//! and the array is wiped only when the counter wraps. The static layer
//! and the settler's kill checks both walk areas this way, many times a
//! position, where clearing a board-sized array each time would cost more
//! than the walk.

/// A reusable set of marks, one slot a point (or chain).
#[derive(Clone, Debug, Default)]
pub(crate) struct Stamps {
    marks: Vec<u32>,
    generation: u32,
}

impl Stamps {
    /// Makes room for at least `len` slots; new slots are unmarked.
    pub(crate) fn fit(&mut self, len: usize) {
        if self.marks.len() < len {
            self.marks.resize(len, 0);
        }
    }

    /// Starts a new round: every slot unmarked.
    pub(crate) fn next_round(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill(0);
            self.generation = 1;
        }
    }

    /// Marks slot `i` in this round; whether it was unmarked before.
    #[inline]
    pub(crate) fn mark(&mut self, i: usize) -> bool {
        let fresh = self.marks[i] != self.generation;
        self.marks[i] = self.generation;
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::Stamps;

    #[test]
    fn a_new_round_unmarks_everything() {
        let mut s = Stamps::default();
        s.fit(3);
        s.next_round();
        assert!(s.mark(1));
        assert!(!s.mark(1), "marked twice in one round");
        s.next_round();
        assert!(s.mark(1), "a new round starts unmarked");
    }

    #[test]
    fn the_counter_wrapping_around_wipes_the_marks() {
        let mut s = Stamps::default();
        s.fit(2);
        s.next_round(); // generation 1
        assert!(s.mark(0));
        // Four billion rounds later the counter comes back to 1: the
        // mark of the first round must not read as one of this round's.
        s.generation = u32::MAX;
        s.next_round();
        assert_eq!(s.generation, 1);
        assert!(s.mark(0), "a mark from before the wrap is gone");
        assert!(s.mark(1));
    }
}
