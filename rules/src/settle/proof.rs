//! The bookkeeping of proof-number search, shared by the two readers
//! that search with it (the enclosure reader and the group reader): the
//! walk down to the most proving leaf and a node's numbers from its
//! children's. Each reader keeps its own nodes, moves and leaf rules.

/// A proof or disproof number for "settled".
pub(crate) const INF: u32 = u32::MAX / 4;

/// What every node of a proof-number tree carries, whatever the reader:
/// whose turn, where its children are, and its numbers. A reader's node
/// holds one beside its own position and line.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Links {
    /// Whether the attacker is to move (an OR node: one kill is enough),
    /// not the defender (an AND node: every answer must be killed).
    pub(crate) attacker: bool,
    pub(crate) expanded: bool,
    /// Children, at `first..first + count` in the tree, once expanded.
    pub(crate) count: u16,
    pub(crate) first: u32,
    /// Proof and disproof numbers: how many leaves must still be proven
    /// (killed) or disproven (found living) to settle the node.
    pub(crate) pn: u32,
    pub(crate) dn: u32,
}

impl Links {
    /// An unexpanded node, nothing known of it yet.
    pub(crate) fn leaf(attacker: bool) -> Links {
        Links {
            attacker,
            expanded: false,
            count: 0,
            first: 0,
            pn: 1,
            dn: 1,
        }
    }

    /// The node's children in the tree once it is expanded, `None` before.
    pub(crate) fn children(&self) -> Option<std::ops::Range<usize>> {
        self.expanded
            .then(|| self.first as usize..self.first as usize + self.count as usize)
    }

    /// Marks the node expanded, its children at `first..first + count`.
    pub(crate) fn expand(&mut self, first: u32, count: u16) {
        self.first = first;
        self.count = count;
        self.expanded = true;
    }
}

/// A reader's node, as the shared steps see it.
pub(crate) trait ProofNode {
    fn links(&self) -> &Links;
}

/// The leaf to expand next: from the root, the child with the smallest
/// proof number where the attacker moves and the smallest disproof
/// number where the defender does. `None` when the walk meets an expanded
/// node without children (settled, so never chosen: there is no answer).
pub(crate) fn most_proving<N: ProofNode>(tree: &[N]) -> Option<usize> {
    let mut at = 0usize;
    while let Some(kids) = tree[at].links().children() {
        at = if tree[at].links().attacker {
            kids.min_by_key(|&k| tree[k].links().pn)
        } else {
            kids.min_by_key(|&k| tree[k].links().dn)
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
    let pn = |k: &N| k.links().pn;
    let dn = |k: &N| k.links().dn;
    if attacker_moves {
        (min(pn), sum(dn))
    } else {
        (sum(pn), min(dn))
    }
}
