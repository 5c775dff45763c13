//! The proof-number search: can the attacker, moving first, kill?
//!
//! Nodes hold moves, not positions: expanding one replays its line from the
//! root on the work board, surveys it, and either settles it (a kill, a
//! life, two passes, a line too long) or adds a child per candidate move
//! with proof and disproof numbers of one. The attacker's nodes need one
//! child proven, the owner's every child. Settled positions go into a
//! table keyed by their hash, the side to move and whether the key chain
//! is lost, so a position reached again by another order of the same
//! moves (the usual thing when both sides fill liberties) is not read
//! twice.

use std::hash::Hasher;

use super::{Owl, Standing, MAX_LINE, MAX_SACRIFICE};
use crate::board::chains::neighbours as nbrs;
use crate::settle::enclosure::{Answer, Role};
use crate::settle::proof::{combine, most_proving, Links, ProofNode, INF};

/// The pass, as a move: cell 0 is off the board, never a point.
pub(crate) const PASS: u16 = 0;

/// A node of the search tree.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Node {
    /// The move that led here.
    pub(crate) mv: u16,
    pub(crate) parent: u32,
    /// The hash of the position, with the side to move, one pass and a
    /// lost key chain mixed in: the key of the table.
    key: u64,
    /// Whether the key chain was captured on the line to here.
    lost: bool,
    links: Links,
    passes: u8,
    depth: u8,
    /// Settled by proofs only, no judgement of the survey's below it.
    exact: bool,
}

impl ProofNode for Node {
    fn links(&self) -> &Links {
        &self.links
    }
}

/// The keys are Zobrist hashes, already well mixed.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Mixed into a position's hash when the attacker is to move, and when
/// the key chain has been lost on the line.
const ATTACKER_TO_MOVE: u64 = 0x5bd1_e995_1234_5678;
const KEY_LOST: u64 = 0x2545_f491_4f6c_dd1d;
const ONE_PASS: u64 = 0x9e37_79b9_7f4a_7c15;

impl Owl {
    /// Whether the attacker, moving first, kills the group (`None`: out
    /// of `budget` expansions).
    pub(super) fn prove(&mut self, budget: u32) -> Option<bool> {
        self.tree.clear();
        self.tree.push(Node {
            mv: PASS,
            parent: u32::MAX,
            key: self.root_hash ^ ATTACKER_TO_MOVE,
            lost: false,
            links: Links::leaf(true),
            passes: 0,
            depth: 0,
            exact: false,
        });
        let mut spent = 0;
        while self.tree[0].links.pn != 0 && self.tree[0].links.dn != 0 {
            if spent >= budget {
                return None;
            }
            spent += 1;
            let at = most_proving(&self.tree)?;
            self.expand(at);
            self.back_up(at);
        }
        self.exact = self.tree[0].exact;
        Some(self.tree[0].links.pn == 0)
    }

    /// Settles or expands leaf `at`.
    fn expand(&mut self, at: usize) {
        self.expanded += 1;
        self.replay(at);
        let node = self.tree[at];
        let verdict = match self.table.get(&node.key) {
            Some(&settled) => Some(settled),
            None => self.judge(&node),
        };
        if let Some((kill, exact)) = verdict {
            let n = &mut self.tree[at];
            n.links.expanded = true;
            n.exact = exact;
            (n.links.pn, n.links.dn) = if kill { (0, INF) } else { (INF, 0) };
            return;
        }
        let mut moves = [(PASS, 0u64); 40];
        let n = self.candidates(node.links.attacker, &mut moves);
        let first = self.tree.len() as u32;
        let board = &*self.work;
        let key_head = (board.stone(self.key) == self.me).then(|| board.head_of(self.key));
        for &(mv, hash) in &moves[..n] {
            let passes = if mv == PASS { node.passes + 1 } else { 0 };
            let lost = node.lost
                || (node.links.attacker
                    && mv != PASS
                    && key_head.is_some_and(|h| board.atari_point(h) == Some(usize::from(mv))));
            let key =
                hash ^ if node.links.attacker {
                    0
                } else {
                    ATTACKER_TO_MOVE
                } ^ if lost { KEY_LOST } else { 0 }
                    ^ if passes == 1 { ONE_PASS } else { 0 };
            self.tree.push(Node {
                mv,
                parent: at as u32,
                key,
                lost,
                links: Links::leaf(!node.links.attacker),
                passes,
                depth: node.depth + 1,
                exact: false,
            });
        }
        let count = (self.tree.len() as u32 - first) as u16;
        self.tree[at].links.expand(first, count);
    }

    /// Whether the position of `node` (on the work board) is settled: a
    /// kill (`true`) or a life (`false`), and whether by a proof (a
    /// capture for good, two passes, two eyes, a reading to the end) or by
    /// the survey's judgement; or neither.
    fn judge(&mut self, node: &Node) -> Option<(bool, bool)> {
        if node.passes >= 2 {
            return Some((false, true));
        }
        if node.lost {
            // Captured for good: no attacker chain next to the group's
            // stones or to a move of the line is in atari, or the owner
            // takes something back (a seki with stones inside, where the
            // capture costs the attacker a chain elsewhere).
            let board = &*self.work;
            let (opp, standing) = (self.opp, &self.standing);
            let near = self.goal.iter().chain(&self.line).any(|&c| {
                let c = usize::from(c);
                c != usize::from(PASS)
                    && std::iter::once(c).chain(nbrs(c)).any(|q| {
                        board.stone(q) == opp
                            && standing[q] != super::Standing::Dead
                            && board.atari_point(board.head_of(q)).is_some()
                    })
            });
            if near {
                return Some((false, false));
            }
            // Taken for good, unless the captor dies of the space the
            // capture leaves (a nakade): then the stones were in seki, or
            // the captor was dead.
            if let Some(exact) = self.captor_dies() {
                return Some((false, exact));
            }
            return Some((true, true));
        }
        if node.depth >= MAX_LINE || self.taken > MAX_SACRIFICE {
            return Some((false, false));
        }
        self.survey.run(
            &self.work,
            self.me,
            &self.goal,
            &self.played,
            &self.standing,
            &self.rooted,
        );
        // A group shut in by the attacker, every liberty in its own eye
        // space, is read to the end by the enclosure reader: eye shapes,
        // nakade, seki and ko inside a space of a few points.
        if self.survey.shut_in {
            if let Some(kill) = self.read_enclosed(node.links.attacker) {
                return Some((kill, true));
            }
        }
        if self.survey.alive(node.links.attacker) {
            return Some((false, true));
        }
        self.survey.room(&self.work, self.me, &self.standing);
        if self.survey.hopeless(self.nested) {
            // No way to two eyes as far as the survey sees: a judgement,
            // not a capture.
            Some((true, false))
        } else {
            None
        }
    }

    /// The enclosure reader's answer for the group on the work board, the
    /// attacker to move (`attacker_first`) or the owner: `None` when it
    /// has none.
    fn read_enclosed(&mut self, attacker_first: bool) -> Option<bool> {
        let board = &*self.work;
        if board.stone(self.key) != self.me {
            return None;
        }
        let (me, standing) = (self.me, &self.standing);
        let survey = &self.survey;
        let role = |c: usize| {
            let strong = matches!(standing[c], Standing::Sure | Standing::Alive);
            if board.stone(c) == me {
                if survey.in_goal(board, c) {
                    Role::Inside
                } else if strong {
                    Role::Unkillable
                } else {
                    Role::Inside
                }
            } else if standing[c] == Standing::Sure {
                Role::SureWall
            } else {
                Role::Wall
            }
        };
        if !attacker_first {
            // The owner to move: it may also pass, and the attacker then
            // moves first; only a kill that the owner cannot prevent by a
            // move is read here, which the attacker-first reading is not.
            return None;
        }
        match self.enclosures.read(board, self.key, role) {
            Answer::Dies => Some(true),
            Answer::Stands => Some(false),
            Answer::Unsure | Answer::Open => None,
        }
    }

    /// Updates the numbers from `at` up to the root, and remembers the
    /// positions that become settled.
    fn back_up(&mut self, at: usize) {
        let mut up = at;
        loop {
            let node = self.tree[up];
            if node.links.count > 0 {
                let l = node.links;
                let kids = &self.tree[l.first as usize..l.first as usize + l.count as usize];
                let (pn, dn) = combine(l.attacker, kids);
                // A node proven by one child (the attacker's kill, the
                // owner's life) is as exact as the best such child; one
                // proven by all of them, as the least.
                let exact = if pn == 0 {
                    if node.links.attacker {
                        kids.iter().any(|k| k.links.pn == 0 && k.exact)
                    } else {
                        kids.iter().all(|k| k.exact)
                    }
                } else if dn == 0 {
                    if node.links.attacker {
                        kids.iter().all(|k| k.exact)
                    } else {
                        kids.iter().any(|k| k.links.dn == 0 && k.exact)
                    }
                } else {
                    false
                };
                self.tree[up].links.pn = pn;
                self.tree[up].links.dn = dn;
                self.tree[up].exact = exact;
            }
            let settled = self.tree[up];
            if settled.links.pn == 0 || settled.links.dn == 0 {
                self.table
                    .insert(settled.key, (settled.links.pn == 0, settled.exact));
            }
            if node.parent == u32::MAX {
                break;
            }
            up = node.parent as usize;
        }
    }
}
