//! Component labelling over a neighbour table: the one flood fill behind the
//! scorer's chains and regions, Benson's chains and enclosed regions, and the
//! settler's areas.
//!
//! Those readers work on a flat position (index `y * width + x`), not on the
//! padded grid of [`super::Board`], and each wants something else of a
//! component: its members, its liberties, the colours around it, the chains
//! that wall it. So the fill is one generic function and each reader says,
//! by closures, which neighbours join the component and what to note of the
//! points in it and of the neighbours that do not join.

use crate::BoardSize;

/// An entry of a neighbour table where the edge of the board is.
pub(crate) const OFF: u16 = u16::MAX;

/// Fills `table` with the on-board neighbours of every point of `size`, row
/// by row: left, right, up, down, those on the board first and [`OFF`] after.
pub(crate) fn neighbour_table(size: BoardSize, table: &mut Vec<[u16; 4]>) {
    table.clear();
    table.extend((0..size.points()).map(|i| {
        let mut out = [OFF; 4];
        for (slot, j) in crate::score::neighbours(size, i).enumerate() {
            out[slot] = j as u16;
        }
        out
    }));
}

/// Labels the component of `start` (which must not be labelled yet) `id`:
/// `start` and every point reached through neighbours for which `joins`
/// holds. Calls `member` on each point of the component once, in the order
/// reached, and `edge` on each neighbour of a member that does not join
/// (once per contact, so a point touching two members is seen twice).
/// `labels` holds `none` on points not labelled yet; `stack` is scratch.
#[allow(clippy::too_many_arguments)] // the closures are what varies; a struct would only rename them
#[inline]
pub(crate) fn fill<L: Copy + PartialEq>(
    nbr: &[[u16; 4]],
    labels: &mut [L],
    none: L,
    id: L,
    start: usize,
    stack: &mut Vec<u16>,
    joins: impl Fn(usize) -> bool,
    mut member: impl FnMut(usize),
    mut edge: impl FnMut(usize),
) {
    debug_assert!(labels[start] == none, "{start} is labelled already");
    labels[start] = id;
    stack.clear();
    stack.push(start as u16);
    while let Some(p) = stack.pop() {
        let p = p as usize;
        member(p);
        for q in nbr[p] {
            if q == OFF {
                continue;
            }
            let qi = q as usize;
            if joins(qi) {
                if labels[qi] == none {
                    labels[qi] = id;
                    stack.push(q);
                }
            } else {
                edge(qi);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3x2: X X .
    ///      . X O
    #[test]
    fn fill_labels_one_component_and_sees_its_edges() {
        let size = BoardSize::new(3, 2).unwrap();
        let cells = [1u8, 1, 0, 0, 1, 2];
        let mut nbr = Vec::new();
        neighbour_table(size, &mut nbr);
        assert_eq!(nbr[0], [1, 3, OFF, OFF]);
        let mut labels = vec![u32::MAX; 6];
        let mut members = Vec::new();
        let mut edges = Vec::new();
        fill(
            &nbr,
            &mut labels,
            u32::MAX,
            7,
            0,
            &mut Vec::new(),
            |q| cells[q] == 1,
            |p| members.push(p),
            |q| edges.push(q),
        );
        members.sort();
        edges.sort();
        assert_eq!(members, [0, 1, 4]);
        assert_eq!(labels, [7, 7, u32::MAX, u32::MAX, 7, u32::MAX]);
        // 2 next to 1; 3 next to 0 and 4; 5 next to 4.
        assert_eq!(edges, [2, 3, 3, 5]);
    }
}
