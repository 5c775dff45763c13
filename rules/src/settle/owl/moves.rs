//! Candidate moves for each side, from the survey of the position.
//!
//! The owner's list is long and the attacker's short, on purpose: a kill
//! is proven only when every move of the owner was answered, so leaving
//! one of the owner's moves out could prove a kill that is not there,
//! while leaving out an attacker's move can only prove fewer kills.

use super::super::playout::PlayoutBoard;
use super::eval::Survey;
use super::search::PASS;
use super::{hash_after, takes_ko, Owl};
use crate::board::chains::neighbours as nbrs;

/// The most stones of the attacker's chain a sacrifice on a liberty of the
/// group may put in atari: taken, they leave a space of at most this many
/// points plus the one the owner captures with, a shape the attacker may
/// still reduce to one eye from inside (a straight or bent three, a
/// bulky five).
const SACRIFICE_STONES: usize = 4;

/// Moves tried per position, passes aside.
const OWNER_MOVES: usize = 20;
const ATTACKER_MOVES: usize = 12;

impl Owl {
    /// The moves of the side to move on the work board (just surveyed),
    /// best first, with their hashes: legal, not repeating a position of
    /// the line, and a pass last. Returns how many were written.
    pub(super) fn candidates(&mut self, attacker: bool, out: &mut [(u16, u64); 40]) -> usize {
        let side = if attacker { self.opp } else { self.me };
        let hash = *self.hashes.last().unwrap_or(&self.root_hash);
        let sv = &self.survey;
        let lists: [&[u16]; 10] = if attacker {
            [
                &sv.saves,
                &sv.takes,
                &sv.vital,
                &sv.links,
                &sv.cuts,
                &sv.eye_points,
                &sv.own_libs,
                &sv.other_libs,
                &sv.reinforce,
                &sv.beyond,
            ]
        } else {
            [
                &sv.saves,
                &sv.takes,
                &sv.vital,
                &sv.ataris,
                &sv.races,
                &sv.links,
                &sv.eye_points,
                &sv.own_libs,
                &sv.other_libs,
                &sv.beyond,
            ]
        };
        let cap = if attacker {
            ATTACKER_MOVES
        } else {
            OWNER_MOVES
        };
        let board = &*self.work;
        let mut n = 0;
        let mut refused_ko = false;
        'lists: for list in lists {
            for &m in list {
                if n == cap {
                    break 'lists;
                }
                let p = usize::from(m);
                if out[..n].iter().any(|&(q, _)| q == m) {
                    continue;
                }
                // Inside the group's eye space the attacker may throw in
                // as many stones as it likes (the sacrifice that leaves a
                // dead shape), and on a liberty of the group a few
                // ([`sacrifice`]); elsewhere it plays no self-atari of two
                // stones or more.
                let playable = if attacker {
                    board.sensible(p, side)
                        || ((sv.eye_points.contains(&m) || sacrifice(board, sv, p, side))
                            && board.legal(p, side))
                } else {
                    board.legal(p, side) && !sv.true_eyes.contains(&m)
                };
                if !playable {
                    continue;
                }
                if attacker && !self.ko_allowed && takes_ko(board, p, side) {
                    refused_ko = true;
                    continue;
                }
                let h = hash_after(board, hash, p, side);
                if self.hashes.contains(&h) {
                    continue;
                }
                out[n] = (m, h);
                n += 1;
            }
        }
        self.ko_refused |= refused_ko;
        out[n] = (PASS, hash);
        n + 1
    }
}

/// Whether the attacker may play on the empty point `p`, a liberty of the
/// group surveyed last, although the playouts' rule refuses it (a
/// self-atari, mostly): the chain the stone makes has at most
/// [`SACRIFICE_STONES`]. Such a throw-in beside the group, once captured,
/// leaves the owner a small space the attacker plays inside next. Shared
/// liberties of a group and a small attacker chain look like a seki; the
/// sacrifice is what turns the owner's capture into a dead shape.
fn sacrifice(board: &PlayoutBoard, sv: &Survey, p: usize, side: u8) -> bool {
    if !nbrs(p).into_iter().any(|q| sv.in_goal(board, q)) {
        return false;
    }
    let mut heads = [usize::MAX; 4];
    let mut stones = 1;
    for (k, q) in nbrs(p).into_iter().enumerate() {
        if board.stone(q) == side {
            let h = board.head_of(q);
            if !heads.contains(&h) {
                heads[k] = h;
                stones += board.chain_len(h);
            }
        }
    }
    stones <= SACRIFICE_STONES
}
