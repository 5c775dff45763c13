//! Random legal 大解放 games, for the corpus generator, the benchmark and
//! the tests: deterministic in their seed, no I/O.
//!
//! The players place stones at random (never into a one-point eye of their
//! own), now and then move one of their stones to another point, retake a ko
//! by a moving move when the opponent has just taken one (the move the
//! variant exists for), and play a 虚着 of either kind now and then. After
//! about [`Options::length`] moves per board point they play 虚着 until
//! four in a row end the game (四虚终局); four in a row earlier end it too.
//!
//! Legality is checked here independently of [`super::Replayer`] (on a
//! copy of the board, against the set of board hashes seen since the last
//! 虚着), so that the replayer's verdict on these games is a test of it.

use std::collections::HashSet;

use crate::board::Board;
use crate::{BoardSize, Color, Point};

use super::VariantMove;

/// How the random players play. Rates are per move, between 0 and 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Moves per board point before both sides settle for 虚着.
    pub length: f64,
    /// A moving move (point to point) instead of a placement.
    pub move_rate: f64,
    /// A 虚着 in the middle of the game.
    pub xu_rate: f64,
    /// Of 虚着, the share that moves a stone off the board (移子虚着).
    pub move_off_share: f64,
    /// Retaking at once, by a moving move, a ko the opponent just took.
    pub ko_retake_rate: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            length: 1.0,
            move_rate: 0.12,
            xu_rate: 0.02,
            move_off_share: 0.3,
            ko_retake_rate: 0.8,
        }
    }
}

/// One game: who moved what, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayGame {
    pub size: BoardSize,
    pub moves: Vec<(Color, VariantMove)>,
    /// Whether the last four moves are 虚着 (always, unless `max_moves`
    /// cut the game short).
    pub ended_by_four_xu: bool,
}

impl SelfPlayGame {
    /// The moves as verdict's SGF convention writes them, each in its own
    /// node: `;B[dd];W[]MF[cc]...`.
    pub fn moves_sgf(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::with_capacity(self.moves.len() * 8);
        for (c, m) in &self.moves {
            let _ = write!(out, ";{}", m.sgf(*c));
        }
        out
    }
}

use crate::rng::SplitMix64 as Rng;

struct Engine {
    board: Board,
    /// Board hashes of the positions since the last 虚着.
    seen: HashSet<u64>,
    rng: Rng,
    /// The point where the side to move could retake a ko at once.
    ko: Option<Point>,
}

impl Engine {
    fn random_point(&mut self) -> Point {
        let size = self.board.size();
        let n = self.rng.below(size.points());
        Point::new(
            (n % size.width() as usize) as u8,
            (n / size.width() as usize) as u8,
        )
        .expect("on the board")
    }

    fn random_stone(&mut self, color: Color) -> Option<Point> {
        for _ in 0..20 {
            let p = self.random_point();
            if self.board.get(p) == Some(color) {
                return Some(p);
            }
        }
        None
    }

    /// A point whose every neighbour is a stone of `color`.
    fn own_eye(&self, p: Point, color: Color) -> bool {
        self.board
            .neighbors(p)
            .all(|q| self.board.get(q) == Some(color))
    }

    /// Plays `m` for `color` if it is legal; returns whether it was.
    fn try_play(&mut self, color: Color, m: VariantMove) -> bool {
        let mut b = self.board.clone();
        let lifted = match m {
            VariantMove::Move { from, .. } | VariantMove::MoveOff { from } => {
                if b.get(from) != Some(color) {
                    return false;
                }
                let _ = b.set(from, None);
                if self.seen.contains(&b.hash()) {
                    return false;
                }
                Some(b.hash())
            }
            _ => None,
        };
        match m {
            VariantMove::PlaceOff | VariantMove::MoveOff { .. } => {
                self.board = b;
                self.seen.clear();
                self.seen.insert(self.board.hash());
                self.ko = None;
                true
            }
            VariantMove::Place(to) | VariantMove::Move { to, .. } => {
                let Ok(out) = b.play(color, to) else {
                    return false;
                };
                let h = b.hash();
                if out.is_suicide() || self.seen.contains(&h) || lifted == Some(h) {
                    return false;
                }
                self.seen.extend(lifted);
                self.seen.insert(h);
                self.board = b;
                self.ko = out.ko;
                true
            }
        }
    }

    /// A 虚着 of either kind: always possible by placing off the board.
    fn xu(&mut self, color: Color, options: &Options) -> VariantMove {
        if self.rng.chance(options.move_off_share) {
            if let Some(from) = self.random_stone(color) {
                let m = VariantMove::MoveOff { from };
                if self.try_play(color, m) {
                    return m;
                }
            }
        }
        let m = VariantMove::PlaceOff;
        let placed = self.try_play(color, m);
        debug_assert!(placed, "a 虚着 is always legal");
        m
    }

    /// One move of the playing phase; `None` when nothing was found.
    fn choose(&mut self, color: Color, options: &Options) -> Option<VariantMove> {
        if let Some(q) = self.ko {
            if self.rng.chance(options.ko_retake_rate) {
                for _ in 0..10 {
                    let Some(from) = self.random_stone(color) else {
                        break;
                    };
                    let m = VariantMove::Move { from, to: q };
                    if self.try_play(color, m) {
                        return Some(m);
                    }
                }
            }
        }
        if self.rng.chance(options.xu_rate) {
            return Some(self.xu(color, options));
        }
        if self.rng.chance(options.move_rate) {
            for _ in 0..10 {
                let Some(from) = self.random_stone(color) else {
                    break;
                };
                let to = self.random_point();
                if self.board.get(to).is_some() || self.own_eye(to, color) {
                    continue;
                }
                let m = VariantMove::Move { from, to };
                if self.try_play(color, m) {
                    return Some(m);
                }
            }
        }
        for _ in 0..40 {
            let p = self.random_point();
            if self.board.get(p).is_some() || self.own_eye(p, color) {
                continue;
            }
            let m = VariantMove::Place(p);
            if self.try_play(color, m) {
                return Some(m);
            }
        }
        None
    }
}

/// A random legal game on `size`, Black first, fully determined by `seed`.
/// `max_moves` bounds its length (a game cut there does not end by four
/// 虚着).
pub fn play(size: BoardSize, seed: u64, options: &Options, max_moves: usize) -> SelfPlayGame {
    let mut engine = Engine {
        board: Board::new(size),
        seen: HashSet::new(),
        rng: Rng(seed ^ 0x6461_6a69_6566_616e), // "dajiefan"
        ko: None,
    };
    engine.seen.insert(engine.board.hash());
    let target = (size.points() as f64 * options.length) as usize;
    let mut moves = Vec::with_capacity(target + 8);
    let mut color = Color::Black;
    let mut xu_run = 0;
    while xu_run < 4 && moves.len() < max_moves {
        let chosen = if moves.len() < target {
            engine.choose(color, options)
        } else {
            None
        };
        let m = chosen.unwrap_or_else(|| engine.xu(color, options));
        xu_run = if m.is_xu() { xu_run + 1 } else { 0 };
        moves.push((color, m));
        color = !color;
    }
    SelfPlayGame {
        size,
        moves,
        ended_by_four_xu: xu_run == 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_deterministic_and_end_by_four_xu() {
        let size = BoardSize::square(9).unwrap();
        let a = play(size, 7, &Options::default(), 10_000);
        let b = play(size, 7, &Options::default(), 10_000);
        assert_eq!(a, b);
        assert!(a.ended_by_four_xu);
        assert!(a.moves[a.moves.len() - 4..].iter().all(|(_, m)| m.is_xu()));
        assert!(!a.moves[..a.moves.len() - 4]
            .windows(4)
            .any(|w| w.iter().all(|(_, m)| m.is_xu())));
        assert_ne!(a, play(size, 8, &Options::default(), 10_000));
    }
}
