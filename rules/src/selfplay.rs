//! Self-play: the one generator of random Go games, for synthetic corpora
//! (`verdict synth`), the replay benchmark and the property tests.
//!
//! The policy is cheap and random but plays like a weak human, so games
//! end with territory rather than a full board: captures and escapes from
//! atari near the last move first, then moves near the last moves, then
//! an opening move on the third to fifth lines (13x13 and up), then any
//! point. A side never fills its own territory (an empty region of at
//! most a sixth of the board touching only its stones, one-point eyes
//! included), never plays a self-atari that captures nothing, and obeys
//! simple ko and positional superko, so every game replays legally under
//! Japanese and Chinese rules. With [`Policy::invasions`] it also plays
//! in the other side's territory, and the board fills up like a
//! Monte-Carlo playout; with [`Policy::leave_dame`] it stops with small
//! neutral points still empty. Two passes in a row end the game.
//!
//! Every draw comes from one [`SplitMix64`]: the same generator state
//! gives the same game on every machine and in every version.

use crate::board::{Board, ChainId};
use crate::rng::SplitMix64;
use crate::{BoardSize, Color, Move, Point};

/// What the self-play does beyond the basic policy.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Plays in the other side's territory too.
    pub invasions: bool,
    /// In the second half of the game, leaves neutral points between safe
    /// groups empty.
    pub leave_dame: bool,
}

/// Up to four neighbours, collected so that the board is not borrowed while
/// they are examined.
#[derive(Default)]
struct NeighbourList {
    points: [Option<Point>; 4],
}

impl FromIterator<Point> for NeighbourList {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Self {
        let mut list = NeighbourList::default();
        for (slot, p) in list.points.iter_mut().zip(iter) {
            *slot = Some(p);
        }
        list
    }
}

impl IntoIterator for NeighbourList {
    type Item = Point;
    type IntoIter = std::iter::Flatten<std::array::IntoIter<Option<Point>, 4>>;
    fn into_iter(self) -> Self::IntoIter {
        self.points.into_iter().flatten()
    }
}

/// Self-play on one square board: one game, move by move, by the policy
/// of the module docs.
#[derive(Debug)]
pub struct SelfPlay {
    board: Board,
    width: u8,
    height: u8,
    setup: Vec<Point>,
    moves: Vec<Move>,
    history: Vec<u64>,
    /// The point the side to move may not retake at once.
    ko: Option<Point>,
    rng: SplitMix64,
    /// Largest empty region a side counts as its own territory.
    territory_limit: usize,
    leave_dame: bool,
    invasions: bool,
    stamp: Vec<u32>,
    generation: u32,
    stack: Vec<Point>,
    empties: Vec<Point>,
    banned: Vec<Point>,
    /// Per chain: (board version, liberties), so that scanning many
    /// candidates counts each chain's liberties once per move.
    lib_cache: Vec<(u32, u32)>,
    version: u32,
}

impl SelfPlay {
    /// A game on a board of `size` with Black's `setup` stones (handicap)
    /// already on it.
    ///
    /// # Panics
    /// When a setup point is off the board or given twice.
    pub fn new(size: BoardSize, setup: Vec<Point>, rng: SplitMix64, policy: Policy) -> SelfPlay {
        let mut board = Board::new(size);
        for &p in &setup {
            board
                .play(Color::Black, p)
                .expect("handicap points are empty");
        }
        let points = size.points();
        SelfPlay {
            history: vec![board.hash()],
            board,
            width: size.width(),
            height: size.height(),
            setup,
            moves: Vec::with_capacity(points * 2),
            ko: None,
            rng,
            territory_limit: points / 6,
            leave_dame: policy.leave_dame,
            invasions: policy.invasions,
            stamp: vec![0; points],
            generation: 0,
            stack: Vec::with_capacity(points),
            empties: Vec::with_capacity(points),
            banned: Vec::new(),
            lib_cache: vec![(0, 0); ChainId::LIMIT],
            version: 1,
        }
    }

    /// Liberties of the chain on `q` (0 for an empty point), cached until
    /// the board next changes.
    fn libs(&mut self, q: Point) -> u32 {
        let Some(id) = self.board.chain_id(q) else {
            return 0;
        };
        let slot = &mut self.lib_cache[id.index()];
        if slot.0 != self.version {
            *slot = (self.version, self.board.liberties(q));
        }
        slot.1
    }

    /// The board changed: forget cached liberties.
    fn changed(&mut self) {
        self.version = self.version.wrapping_add(1);
        if self.version == 0 {
            self.lib_cache.fill((0, 0));
            self.version = 1;
        }
    }

    fn idx(&self, p: Point) -> usize {
        usize::from(p.y()) * usize::from(self.width) + usize::from(p.x())
    }

    fn points(&self) -> usize {
        usize::from(self.width) * usize::from(self.height)
    }

    /// Flood-fills the empty region of `p`, giving up beyond `limit` points.
    /// Returns (size, touches Black, touches White); size is `limit + 1`
    /// when the region is larger than `limit`.
    fn region(&mut self, p: Point, limit: usize) -> (usize, bool, bool) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
        let gen = self.generation;
        self.stack.clear();
        self.stack.push(p);
        let i = self.idx(p);
        self.stamp[i] = gen;
        let (mut len, mut black, mut white) = (0, false, false);
        while let Some(q) = self.stack.pop() {
            len += 1;
            if len > limit {
                return (len, black, white);
            }
            for r in self.board.neighbors(q) {
                match self.board.get(r) {
                    Some(Color::Black) => black = true,
                    Some(Color::White) => white = true,
                    None => {
                        let j = usize::from(r.y()) * usize::from(self.width) + usize::from(r.x());
                        if self.stamp[j] != gen {
                            self.stamp[j] = gen;
                            self.stack.push(r);
                        }
                    }
                }
            }
        }
        (len, black, white)
    }

    /// Whose territory `p` lies in, if anyone's: a small empty region
    /// touching only one colour's stones.
    fn territory_owner(&mut self, p: Point) -> Option<Color> {
        let (mut black, mut white) = (false, false);
        for q in self.board.neighbors(p) {
            match self.board.get(q) {
                Some(Color::Black) => black = true,
                Some(Color::White) => white = true,
                None => {}
            }
        }
        if black && white {
            return None;
        }
        let (len, black, white) = self.region(p, self.territory_limit);
        match (len <= self.territory_limit, black, white) {
            (true, true, false) => Some(Color::Black),
            (true, false, true) => Some(Color::White),
            _ => None,
        }
    }

    /// A neutral point between safe groups of both colours.
    fn is_dame(&mut self, p: Point) -> bool {
        let (len, black, white) = self.region(p, 3);
        if len > 3 || !black || !white {
            return false;
        }
        self.board
            .neighbors(p)
            .collect::<NeighbourList>()
            .into_iter()
            .all(|q| self.board.get(q).is_none() || self.libs(q) >= 3)
    }

    /// Whether `color` may play `p` under the policy.
    fn acceptable(&mut self, p: Point, color: Color) -> bool {
        if self.board.get(p).is_some() || self.ko == Some(p) || self.banned.contains(&p) {
            return false;
        }
        let mut captures = false;
        let mut libs: [Option<Point>; 2] = [None; 2];
        let add = |l: Point, libs: &mut [Option<Point>; 2]| {
            if libs[0].is_none() {
                libs[0] = Some(l);
            } else if libs[0] != Some(l) && libs[1].is_none() {
                libs[1] = Some(l);
            }
        };
        for q in self.board.neighbors(p).collect::<NeighbourList>() {
            match self.board.get(q) {
                None => add(q, &mut libs),
                Some(c) if c == color => {
                    if libs[1].is_none() && self.libs(q) >= 3 {
                        // Two liberties besides `p` at least.
                        libs = [Some(q), Some(q)];
                    } else if libs[1].is_none() {
                        self.board.for_each_liberty(q, |l| {
                            if l != p {
                                add(l, &mut libs);
                            }
                        });
                    }
                }
                Some(_) => {
                    if !captures && self.libs(q) == 1 {
                        captures = true;
                    }
                }
            }
        }
        if captures {
            return true;
        }
        if libs[1].is_none() {
            // Suicide or self-atari.
            return false;
        }
        match self.territory_owner(p) {
            Some(owner) if owner == color || !self.invasions => return false,
            _ => {}
        }
        if self.leave_dame && self.moves.len() > self.points() / 2 && self.is_dame(p) {
            return false;
        }
        true
    }

    fn last_point(&self, back: usize) -> Option<Point> {
        let len = self.moves.len();
        if back >= len {
            return None;
        }
        self.moves[len - 1 - back].point()
    }

    /// Captures, escapes and ataris around the opponent's last move.
    fn urgent(&mut self, color: Color) -> Option<Point> {
        let last = self.last_point(0)?;
        let mut cands: Vec<Point> = Vec::new();
        // The last stone itself in atari: capture it.
        if self.libs(last) == 1 {
            self.board.for_each_liberty(last, |l| cands.push(l));
        }
        let neighbours: Vec<Point> = self.board.neighbors(last).collect();
        for q in neighbours {
            if self.board.get(q) == Some(color) && self.libs(q) == 1 {
                // Our chain in atari: capture an attacker in atari, or extend.
                for s in self.board.chain(q).collect::<Vec<_>>() {
                    for r in self.board.neighbors(s).collect::<Vec<_>>() {
                        if self.board.get(r) == Some(!color) && self.libs(r) == 1 {
                            self.board.for_each_liberty(r, |l| cands.push(l));
                        }
                    }
                }
                self.board.for_each_liberty(q, |l| cands.push(l));
            }
        }
        if cands.is_empty() && self.libs(last) == 2 && self.rng.chance(0.35) {
            self.board.for_each_liberty(last, |l| cands.push(l));
        }
        if cands.len() > 1 && self.rng.chance(0.5) {
            cands.swap(0, 1);
        }
        cands.into_iter().find(|&p| self.acceptable(p, color))
    }

    /// A random point within two lines of one of the last two moves.
    fn local(&mut self, color: Color) -> Option<Point> {
        let back = self.rng.below(2);
        let centre = self
            .last_point(back)
            .or_else(|| self.last_point(1 - back))?;
        for _ in 0..6 {
            let dx = self.rng.below(5) as i32 - 2;
            let dy = self.rng.below(5) as i32 - 2;
            let x = i32::from(centre.x()) + dx;
            let y = i32::from(centre.y()) + dy;
            if x < 0 || y < 0 || x >= i32::from(self.width) || y >= i32::from(self.height) {
                continue;
            }
            let p = Point::new(x as u8, y as u8).expect("inside the board");
            if self.acceptable(p, color) {
                return Some(p);
            }
        }
        None
    }

    /// An opening move on the third to fifth lines of a board of 13x13 and
    /// up.
    fn opening(&mut self, color: Color) -> Option<Point> {
        let line = |rng: &mut SplitMix64, n: u8| {
            let d = 2 + rng.below(3) as u8;
            if rng.chance(0.5) {
                d
            } else {
                n - 1 - d
            }
        };
        for _ in 0..4 {
            let x = line(&mut self.rng, self.width);
            let y = line(&mut self.rng, self.height);
            let p = Point::new(x, y).expect("inside the board");
            if self.acceptable(p, color) {
                return Some(p);
            }
        }
        None
    }

    /// Any acceptable point, uniformly.
    fn global(&mut self, color: Color) -> Option<Point> {
        self.empties.clear();
        for y in 0..self.height {
            for x in 0..self.width {
                let p = Point::new(x, y).expect("inside the board");
                if self.board.get(p).is_none() {
                    self.empties.push(p);
                }
            }
        }
        while !self.empties.is_empty() {
            let i = self.rng.below(self.empties.len());
            let p = self.empties.swap_remove(i);
            if self.acceptable(p, color) {
                return Some(p);
            }
        }
        None
    }

    fn choose(&mut self, color: Color) -> Option<Point> {
        if self.rng.chance(0.9) {
            if let Some(p) = self.urgent(color) {
                return Some(p);
            }
        }
        if self.width.min(self.height) > 9 && self.moves.len() < self.points() / 30 {
            if let Some(p) = self.opening(color) {
                return Some(p);
            }
        }
        if !self.moves.is_empty() && self.rng.chance(0.6) {
            if let Some(p) = self.local(color) {
                return Some(p);
            }
        }
        self.global(color)
    }

    /// Puts the board back to the position after the moves kept.
    fn rebuild(&mut self) {
        self.changed();
        let size = self.board.size();
        self.board.reset(size);
        for &p in &self.setup {
            let _ = self.board.play(Color::Black, p);
        }
        for m in &self.moves {
            if let Some(p) = m.point() {
                let _ = self.board.play(m.color, p);
            }
        }
    }

    /// Plays one turn of `color`: a stone, or a pass. Returns whether it passed.
    fn turn(&mut self, color: Color) -> bool {
        self.banned.clear();
        loop {
            let Some(p) = self.choose(color) else {
                self.moves.push(Move::pass(color));
                self.ko = None;
                return true;
            };
            let out = self
                .board
                .play(color, p)
                .expect("acceptable points are empty");
            let hash = self.board.hash();
            if out.is_suicide() || self.history.contains(&hash) {
                // Positional superko (or, never expected, suicide): undo.
                self.rebuild();
                self.banned.push(p);
                continue;
            }
            self.changed();
            self.history.push(hash);
            self.moves.push(Move::play(color, p));
            self.ko = out.ko;
            return false;
        }
    }

    /// Plays until two passes in a row (or a generous move cap), `first`
    /// moving first.
    pub fn play_out(&mut self, first: Color) {
        let cap = self.points() * 3;
        let mut color = first;
        let mut passes = 0;
        while self.moves.len() < cap {
            if self.turn(color) {
                passes += 1;
                if passes == 2 {
                    return;
                }
            } else {
                passes = 0;
            }
            color = !color;
        }
        // Cap reached: both sides stop.
        for _ in 0..2 {
            self.moves.push(Move::pass(color));
            color = !color;
        }
    }

    /// The moves played, passes included.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keeps the first `len` moves only (a game cut before its end), the
    /// board back to the position after them.
    pub fn truncate(&mut self, len: usize) {
        self.moves.truncate(len);
        self.rebuild();
    }

    /// The position after the moves played (or kept).
    pub fn board(&self) -> &Board {
        &self.board
    }
}
