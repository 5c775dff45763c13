//! The bookkeeping of proof-number search, shared by the two readers
//! that search with it (the enclosure reader and the group reader): the
//! walk down to the most proving leaf and a node's numbers from its
//! children's. Each reader keeps its own nodes, moves and leaf rules.

/// A proof or disproof number for "settled".
pub(crate) const INF: u32 = u32::MAX / 4;

/// What the shared steps need of a reader's node.
pub(crate) trait ProofNode {
    /// Proof and disproof numbers: how many leaves must still be proven
    /// (killed) or disproven (found living) to settle the node.
    fn numbers(&self) -> (u32, u32);
    /// Whether the attacker is to move (an OR node: one kill is enough),
    /// not the defender (an AND node: every answer must be killed).
    fn attacker_moves(&self) -> bool;
    /// The node's children in the tree once it is expanded, `None` before.
    fn children(&self) -> Option<std::ops::Range<usize>>;
}

/// The leaf to expand next: from the root, the child with the smallest
/// proof number where the attacker moves and the smallest disproof
/// number where the defender does. `None` when the walk meets an expanded
/// node without children (settled, so never chosen: there is no answer).
pub(crate) fn most_proving<N: ProofNode>(tree: &[N]) -> Option<usize> {
    let mut at = 0usize;
    while let Some(kids) = tree[at].children() {
        at = if tree[at].attacker_moves() {
            kids.min_by_key(|&k| tree[k].numbers().0)
        } else {
            kids.min_by_key(|&k| tree[k].numbers().1)
        }?;
    }
    Some(at)
}

/// The proof and disproof numbers of a node whose children are `kids`:
/// where the attacker moves, its best child's proof number and the sum of
/// the disproof numbers; where the defender does, the other way round.
/// Sums stop at [`INF`].
pub(crate) fn combine<N: ProofNode>(attacker_moves: bool, kids: &[N]) -> (u32, u32) {
    let min = |f: fn(&N) -> u32| kids.iter().map(f).min().unwrap_or(INF);
    let sum = |f: fn(&N) -> u32| kids.iter().map(f).fold(0, |a, b| (a + b).min(INF));
    let pn = |k: &N| k.numbers().0;
    let dn = |k: &N| k.numbers().1;
    if attacker_moves {
        (min(pn), sum(dn))
    } else {
        (sum(pn), min(dn))
    }
}
