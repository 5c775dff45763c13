//! Candidate moves for each side, from the survey of the position.
//!
//! The owner's list is long and the attacker's short, on purpose: a kill
//! is proven only when every move of the owner was answered, so leaving
//! one of the owner's moves out could prove a kill that is not there,
//! while leaving out an attacker's move can only prove fewer kills.

use super::search::PASS;
use super::{hash_after, takes_ko, Owl};

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
                &sv.eye_points,
                &sv.own_libs,
                &sv.other_libs,
                &sv.reinforce,
                &sv.beyond,
                &[],
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
                // dead shape); elsewhere it plays no self-atari of two
                // stones or more.
                let playable = if attacker {
                    board.sensible(p, side) || (sv.eye_points.contains(&m) && board.legal(p, side))
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
