//! Playouts: the position played to the end many times by two careful random
//! players, to see who owns each stone's point at the end.
//!
//! The players never fill their own eyes, never commit suicide, and never
//! put a chain of two stones or more into atari unless the move captures (so
//! seki survives: filling a shared liberty is exactly that), but may throw a
//! single stone in (nakade, killing shapes). A stone whose point ends up the
//! opponent's in most playouts is dead.
//!
//! The board here is built for speed, not for replaying records: per chain
//! it keeps the count, sum and sum of squares of its pseudo-liberties, so
//! that "is this chain in atari, and where" is answered without walking it
//! (the chain is in atari when all its pseudo-liberties are one point:
//! `sum^2 == count * squares`).

use crate::board::chains::{neighbours as nbrs, Links, CELLS, STRIDE};
const EMPTY: u8 = 0;
/// The largest chain a player may put into atari without capturing. Chains
/// of two or more in atari are what seki is made of, so only a single
/// stone may be thrown in. Two or three (nakade: the capture leaves an eye
/// a stone in its middle kills) is the textbook rule, but on the marked
/// KGS games, over 16 playout seeds, it loses: 387.1 games exact (2) and
/// 385.4 (3) against 388.7 (1), with 5.9 and 6.4 winner flips against 4.4.
/// A narrower test (a nakade only when it puts every chain around it in
/// atari too and leaves a killable shape) broke even on exact games, cut
/// flips to 3.3 (from three stones up) but lost 7 games of the KGS
/// self-check a seed: it waits for a test that tells a nakade from a
/// seki-breaking blunder.
const NAKADE_STONES: usize = 1;
pub(crate) const BORDER: u8 = 3;

/// Black is 1, White is 2 (as `Color as u8 + 1`).
#[derive(Clone)]
pub(crate) struct PlayoutBoard {
    width: usize,
    height: usize,
    cells: [u8; CELLS],
    links: Links,
    libs: [u16; CELLS],
    lib_sum: [u32; CELLS],
    lib_squares: [u64; CELLS],
    /// Empty points, in no order; `slot[p]` is p's index in it.
    empty: Vec<u16>,
    slot: [u16; CELLS],
    ko: usize,
}

impl std::fmt::Debug for PlayoutBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PlayoutBoard {}x{}", self.width, self.height)
    }
}

#[inline]
fn diags(p: usize) -> [usize; 4] {
    [
        p - STRIDE - 1,
        p - STRIDE + 1,
        p + STRIDE - 1,
        p + STRIDE + 1,
    ]
}

impl PlayoutBoard {
    pub(crate) fn new() -> PlayoutBoard {
        PlayoutBoard {
            width: 0,
            height: 0,
            cells: [BORDER; CELLS],
            links: Links::new(),
            libs: [0; CELLS],
            lib_sum: [0; CELLS],
            lib_squares: [0; CELLS],
            empty: Vec::with_capacity(CELLS),
            slot: [0; CELLS],
            ko: 0,
        }
    }

    /// The board's width and height.
    pub(crate) fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// The cell of point (x, y).
    #[inline]
    pub(crate) fn cell(x: usize, y: usize) -> usize {
        (y + 1) * STRIDE + x + 1
    }

    /// The point (x, y) of a cell on the board.
    #[inline]
    pub(crate) fn xy(c: usize) -> (usize, usize) {
        (c % STRIDE - 1, c / STRIDE - 1)
    }

    /// Sets up `stones` (per point, row by row, 0 empty, 1 black, 2 white) on
    /// a `width` x `height` board. Chains without liberties are not expected.
    pub(crate) fn setup(&mut self, width: usize, height: usize, stones: &[u8]) {
        self.width = width;
        self.height = height;
        self.cells = [BORDER; CELLS];
        self.empty.clear();
        self.ko = 0;
        for y in 0..height {
            for x in 0..width {
                let c = Self::cell(x, y);
                self.cells[c] = EMPTY;
            }
        }
        for y in 0..height {
            for x in 0..width {
                let c = Self::cell(x, y);
                let s = stones[y * width + x];
                if s == EMPTY {
                    self.add_empty(c);
                } else {
                    self.put(c, s);
                }
            }
        }
    }

    /// A board set up on `diagram` (X black, O white, . empty), for tests.
    #[cfg(test)]
    pub(crate) fn from_diagram(diagram: &str) -> PlayoutBoard {
        use crate::Color;
        let position = crate::score::Position::from_diagram(diagram).expect("a valid diagram");
        let size = position.size();
        let stones: Vec<u8> = position
            .cells()
            .iter()
            .map(|c| match c {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            })
            .collect();
        let mut b = PlayoutBoard::new();
        b.setup(size.width() as usize, size.height() as usize, &stones);
        b
    }

    /// Copies another board's state (cheaper than building it again).
    pub(crate) fn copy_from(&mut self, other: &PlayoutBoard) {
        self.width = other.width;
        self.height = other.height;
        self.cells = other.cells;
        self.links.clone_from(&other.links);
        self.libs = other.libs;
        self.lib_sum = other.lib_sum;
        self.lib_squares = other.lib_squares;
        self.empty.clear();
        self.empty.extend_from_slice(&other.empty);
        self.slot = other.slot;
        self.ko = other.ko;
    }

    fn add_empty(&mut self, c: usize) {
        self.slot[c] = self.empty.len() as u16;
        self.empty.push(c as u16);
    }

    fn remove_empty(&mut self, c: usize) {
        let i = self.slot[c] as usize;
        let last = self.empty.pop().expect("the point was empty");
        if i < self.empty.len() {
            self.empty[i] = last;
            self.slot[last as usize] = i as u16;
        }
    }

    #[inline]
    fn add_lib(&mut self, h: usize, l: usize) {
        self.libs[h] += 1;
        self.lib_sum[h] += l as u32;
        self.lib_squares[h] += (l * l) as u64;
    }

    #[inline]
    fn remove_lib(&mut self, h: usize, l: usize) {
        self.libs[h] -= 1;
        self.lib_sum[h] -= l as u32;
        self.lib_squares[h] -= (l * l) as u64;
    }

    /// The only liberty of the chain with head `h`, if it has exactly one.
    #[inline]
    pub(crate) fn atari_point(&self, h: usize) -> Option<usize> {
        let n = u64::from(self.libs[h]);
        let s = u64::from(self.lib_sum[h]);
        (n > 0 && s * s == n * self.lib_squares[h]).then(|| (s / n) as usize)
    }

    /// Where the chain with head `h` captures at once: the only liberty of
    /// an opponent chain touching it that is in atari, if there is one.
    pub(crate) fn capture_beside(&self, h: usize) -> Option<usize> {
        let opp = 3 - self.stone(h);
        self.stones(h).find_map(|s| {
            nbrs(s)
                .into_iter()
                .filter(|&q| self.stone(q) == opp)
                .find_map(|q| self.atari_point(self.head_of(q)))
        })
    }

    /// Puts a stone of colour `me` on the empty point `c`, with no capture
    /// and no check: for boards set up to be read, never for play.
    pub(crate) fn fill_point(&mut self, c: usize, me: u8) {
        self.remove_empty(c);
        self.put(c, me);
    }

    /// Puts a stone (setup or play) and merges; no captures.
    fn put(&mut self, p: usize, me: u8) {
        self.cells[p] = me;
        self.links.single(p);
        self.libs[p] = 0;
        self.lib_sum[p] = 0;
        self.lib_squares[p] = 0;
        for n in nbrs(p) {
            let cell = self.cells[n];
            if cell == EMPTY {
                self.add_lib(p, n);
            } else if cell != BORDER {
                let h = self.links.head(n);
                self.remove_lib(h, p);
            }
        }
        for n in nbrs(p) {
            if self.cells[n] == me {
                let (a, b) = (self.links.head(p), self.links.head(n));
                if a != b {
                    self.merge(a, b);
                }
            }
        }
    }

    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = self.links.join(a, b);
        self.libs[big] += self.libs[small];
        self.lib_sum[big] += self.lib_sum[small];
        self.lib_squares[big] += self.lib_squares[small];
    }

    fn remove_chain(&mut self, h: usize) -> u32 {
        let mut s = h;
        let mut n = 0;
        // Empty every stone first, then give liberties to the neighbours
        // left standing.
        loop {
            self.cells[s] = EMPTY;
            n += 1;
            s = self.links.next(s);
            if s == h {
                break;
            }
        }
        loop {
            self.add_empty(s);
            for m in nbrs(s) {
                let cell = self.cells[m];
                if cell != EMPTY && cell != BORDER {
                    let hm = self.links.head(m);
                    self.add_lib(hm, s);
                }
            }
            s = self.links.next(s);
            if s == h {
                break;
            }
        }
        n
    }

    /// What is on cell `c`: 0 empty, 1 black, 2 white, 3 off the board.
    #[inline]
    pub(crate) fn stone(&self, c: usize) -> u8 {
        self.cells[c]
    }

    /// The head of the chain on cell `c` (a stone), the same for every
    /// stone of the chain.
    #[inline]
    pub(crate) fn head_of(&self, c: usize) -> usize {
        self.links.head(c)
    }

    /// The number of stones of the chain with head `h`.
    #[inline]
    pub(crate) fn chain_len(&self, h: usize) -> usize {
        usize::from(self.links.len(h))
    }

    /// The point a single-stone capture just made illegal to retake (0: none).
    #[inline]
    pub(crate) fn ko_point(&self) -> usize {
        self.ko
    }

    /// Takes the chain on cell `c` off the board, as prisoners.
    pub(crate) fn take_off(&mut self, c: usize) {
        if matches!(self.cells[c], 1 | 2) {
            self.remove_chain(self.links.head(c));
        }
    }

    /// A pass: the ko ban lapses.
    pub(crate) fn pass(&mut self) {
        self.ko = 0;
    }

    /// The distinct liberties of the chain with head `h`, up to `out.len()`
    /// of them; returns how many were written.
    pub(crate) fn liberties(&self, h: usize, out: &mut [usize]) -> usize {
        if let Some(l) = self.atari_point(h) {
            if let Some(slot) = out.first_mut() {
                *slot = l;
                return 1;
            }
            return 0;
        }
        let mut count = 0;
        let mut s = h;
        loop {
            for m in nbrs(s) {
                if self.cells[m] == EMPTY && !out[..count].contains(&m) {
                    if count == out.len() {
                        return count;
                    }
                    out[count] = m;
                    count += 1;
                }
            }
            s = self.links.next(s);
            if s == h {
                return count;
            }
        }
    }

    /// The stones of the chain with head `h`, in no order.
    pub(crate) fn stones(&self, h: usize) -> impl Iterator<Item = usize> + '_ {
        let mut s = h;
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let here = s;
            s = self.links.next(s);
            done = s == h;
            Some(here)
        })
    }

    /// Whether `me` may play at `p` by the rules: empty, not the ko point,
    /// and not suicide.
    pub(crate) fn legal(&self, p: usize, me: u8) -> bool {
        if self.cells[p] != EMPTY || p == self.ko {
            return false;
        }
        nbrs(p).into_iter().any(|n| match self.cells[n] {
            EMPTY => true,
            BORDER => false,
            c => {
                let at = self.atari_point(self.links.head(n));
                if c == me {
                    at != Some(p)
                } else {
                    at == Some(p)
                }
            }
        })
    }

    /// Whether `me` may play at empty `p` in a playout: not its own eye, not
    /// suicide, not simple ko, and not a self-atari of two stones or more
    /// unless it captures.
    pub(crate) fn sensible(&self, p: usize, me: u8) -> bool {
        if p == self.ko {
            return false;
        }
        // Late in a playout most points tried are eyes: told apart first,
        // by one bit per neighbour (`me` or the edge, 3, share bit `me`;
        // empty, 0, and the opponent do not).
        if nbrs(p).into_iter().all(|n| self.cells[n] & me != 0) && self.is_eye(p, me) {
            return false;
        }
        let mut empties = [0usize; 4];
        let mut n_empty = 0;
        let mut captures = false;
        for n in nbrs(p) {
            match self.cells[n] {
                BORDER => {}
                EMPTY => {
                    empties[n_empty] = n;
                    n_empty += 1;
                }
                c if c == me => {}
                _ => {
                    if self.atari_point(self.links.head(n)) == Some(p) {
                        captures = true;
                    }
                }
            }
        }
        if captures {
            return true;
        }
        // Liberties of the chain the stone would join, up to two.
        let mut libs = [usize::MAX; 2];
        let mut count = 0;
        let note = |l: usize, libs: &mut [usize; 2], count: &mut usize| {
            if l != p && !libs[..*count].contains(&l) && *count < 2 {
                libs[*count] = l;
                *count += 1;
            }
        };
        for &e in &empties[..n_empty] {
            note(e, &mut libs, &mut count);
        }
        let mut size = 1;
        if count < 2 {
            let mut seen_heads = [usize::MAX; 4];
            for (k, n) in nbrs(p).into_iter().enumerate() {
                if self.cells[n] != me {
                    continue;
                }
                let h = self.links.head(n);
                if seen_heads.contains(&h) {
                    continue;
                }
                seen_heads[k] = h;
                size += self.links.len(h) as usize;
                // The chain's pseudo-liberties other than p (p counts once
                // per stone of the chain next to it): none, one point, or
                // two points or more, told apart without walking the chain.
                let k = nbrs(p)
                    .into_iter()
                    .filter(|&m| self.cells[m] == me && self.links.head(m) == h)
                    .count();
                let c = u64::from(self.libs[h]) - k as u64;
                if c > 0 {
                    let sum = u64::from(self.lib_sum[h]) - (k * p) as u64;
                    let squares = self.lib_squares[h] - (k * p * p) as u64;
                    if sum * sum == c * squares {
                        note((sum / c) as usize, &mut libs, &mut count);
                    } else {
                        count = 2;
                    }
                }
                if count >= 2 {
                    break;
                }
            }
        }
        match count {
            0 => false,
            1 => size <= NAKADE_STONES,
            _ => true,
        }
    }

    /// Whether empty `p`, whose neighbours are all `me` or the edge, is an
    /// eye of `me`: not made false by the opponent holding enough diagonals
    /// (one on the edge, two in the middle) while the chains around it are
    /// not one chain already.
    fn is_eye(&self, p: usize, me: u8) -> bool {
        let opp = 3 - me;
        let mut edge = false;
        let mut held = 0;
        for d in diags(p) {
            match self.cells[d] {
                BORDER => edge = true,
                c if c == opp => held += 1,
                _ => {}
            }
        }
        if held < if edge { 1 } else { 2 } {
            return true;
        }
        let mut first = usize::MAX;
        for n in nbrs(p) {
            if self.cells[n] == me {
                let h = self.links.head(n);
                if first == usize::MAX {
                    first = h;
                } else if h != first {
                    return false;
                }
            }
        }
        true
    }

    /// Plays `me` at `p` (assumed sensible).
    pub(crate) fn play(&mut self, p: usize, me: u8) {
        let opp = 3 - me;
        self.remove_empty(p);
        self.put(p, me);
        let mut captured = 0;
        let mut last = 0;
        for n in nbrs(p) {
            if self.cells[n] == opp {
                let h = self.links.head(n);
                if self.libs[h] == 0 {
                    captured += self.remove_chain(h);
                    last = n;
                }
            }
        }
        let h = self.links.head(p);
        self.ko = if captured == 1 && self.links.len(h) == 1 && self.atari_point(h).is_some() {
            last
        } else {
            0
        };
    }

    /// A reply to the last move `last`: capture a chain of the opponent's it
    /// left in atari, or save one of ours it put in atari. What a player
    /// who is paying attention does first.
    fn reply(&self, last: usize, me: u8) -> Option<usize> {
        if last == 0 {
            return None;
        }
        let opp = 3 - me;
        let mut around = [last, 0, 0, 0, 0];
        around[1..].copy_from_slice(&nbrs(last));
        for n in around {
            let cell = self.cells[n];
            if cell != opp && cell != me {
                continue;
            }
            if let Some(l) = self.atari_point(self.links.head(n)) {
                if self.cells[l] == EMPTY && self.sensible(l, me) {
                    // Saving by extending only helps if it gains liberties;
                    // `sensible` already refuses self-atari of big chains.
                    return Some(l);
                }
            }
        }
        None
    }

    /// Plays the position out from `first` to move; `rng` picks the moves.
    pub(crate) fn playout(&mut self, first: u8, rng: &mut Rng) {
        self.playout_from(first, 0, rng);
    }

    /// [`PlayoutBoard::playout`] after a move at `last` (0: none).
    pub(crate) fn playout_from(&mut self, first: u8, mut last: usize, rng: &mut Rng) {
        let limit = 3 * self.width * self.height;
        let mut me = first;
        let mut passes = 0;
        for _ in 0..limit {
            let n = self.empty.len();
            let mut moved = false;
            if let Some(p) = self.reply(last, me) {
                self.play(p, me);
                last = p;
                passes = 0;
                me = 3 - me;
                continue;
            }
            if n > 0 {
                let start = rng.below(n);
                for k in 0..n {
                    let p = self.empty[(start + k) % n] as usize;
                    if self.sensible(p, me) {
                        self.play(p, me);
                        last = p;
                        moved = true;
                        break;
                    }
                }
            }
            if moved {
                passes = 0;
            } else {
                passes += 1;
                last = 0;
                self.ko = 0;
                if passes == 2 {
                    break;
                }
            }
            me = 3 - me;
        }
    }

    /// Who owns cell `c` at the end: its stone, or the colour around an
    /// empty point (0 when mixed).
    pub(crate) fn owner(&self, c: usize) -> u8 {
        match self.cells[c] {
            EMPTY => {
                let mut seen = 0u8;
                for n in nbrs(c) {
                    let cell = self.cells[n];
                    if cell == 1 || cell == 2 {
                        seen |= cell;
                    }
                }
                if seen == 3 {
                    0
                } else {
                    seen
                }
            }
            cell => cell,
        }
    }
}

/// A small fast generator (xorshift64*), seeded from the position so that
/// the same position always gets the same answer.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    #[inline]
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    #[inline]
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// Runs playouts over a position and counts, for each chain (given by one
/// of its stones), how often its point ended up the opponent's.
#[derive(Debug, Default)]
pub(crate) struct Playouts {
    start: Option<Box<PlayoutBoard>>,
    board: Option<Box<PlayoutBoard>>,
    setup: Vec<u8>,
    /// Per chain: playouts lost.
    pub(crate) lost: Vec<u32>,
    /// Playouts run for the current position.
    pub(crate) runs: u32,
    cells: Vec<(usize, u8)>,
    rng: Option<Rng>,
}

impl Playouts {
    /// Sets up `position`; `anchors` are one stone per chain (point index,
    /// colour). The generator is seeded from the position and `seed`: same
    /// position and seed, same answer.
    pub(crate) fn start(
        &mut self,
        position: &crate::score::Position,
        seed: u64,
        anchors: impl Iterator<Item = (usize, crate::Color)>,
    ) {
        let size = position.size();
        let (w, h) = (size.width() as usize, size.height() as usize);
        self.setup.clear();
        self.setup.extend(position.cells().iter().map(|c| match c {
            None => 0,
            Some(crate::Color::Black) => 1,
            Some(crate::Color::White) => 2,
        }));
        let start = self
            .start
            .get_or_insert_with(|| Box::new(PlayoutBoard::new()));
        start.setup(w, h, &self.setup);
        self.board
            .get_or_insert_with(|| Box::new(PlayoutBoard::new()));
        let mut mixed = 0x9e37_79b9_7f4a_7c15u64 ^ ((w as u64) << 8) ^ h as u64;
        for (i, &s) in self.setup.iter().enumerate() {
            if s != 0 {
                mixed = (mixed.rotate_left(5) ^ (i as u64 * 2 + u64::from(s)))
                    .wrapping_mul(0x0100_0000_01b3);
            }
        }
        // Seed 0 leaves the position's own seed as it always was.
        mixed ^= seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.rng = Some(Rng::new(mixed));
        self.cells.clear();
        self.cells
            .extend(anchors.map(|(i, c)| (PlayoutBoard::cell(i % w, i / w), c as u8 + 1)));
        self.lost.clear();
        self.lost.resize(self.cells.len(), 0);
        self.runs = 0;
    }

    /// Runs `n` more playouts, alternating who moves first.
    pub(crate) fn run(&mut self, n: u32) {
        let (Some(start), Some(board), Some(rng)) =
            (self.start.as_ref(), self.board.as_mut(), self.rng.as_mut())
        else {
            return;
        };
        for _ in 0..n {
            board.copy_from(start);
            board.playout(if self.runs.is_multiple_of(2) { 1 } else { 2 }, rng);
            self.runs += 1;
            for (k, &(cell, me)) in self.cells.iter().enumerate() {
                let owner = board.owner(cell);
                if owner != me && owner != 0 {
                    self.lost[k] += 1;
                }
            }
        }
    }

    /// The position as set up, before any playout.
    pub(crate) fn start_board(&self) -> Option<&PlayoutBoard> {
        self.start.as_deref()
    }

    /// The share of playouts chain `k` lost.
    pub(crate) fn lost_share(&self, k: usize) -> f32 {
        self.lost[k] as f32 / self.runs.max(1) as f32
    }
}
