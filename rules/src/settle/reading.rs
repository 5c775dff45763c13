//! Tactical reading: can a chain short of liberties be captured even when
//! its owner moves first?
//!
//! Random playouts misjudge exactly the fights that are decided by a count:
//! a chain in atari the opponent simply has not taken yet, a capturing race
//! between two eyeless chains, a throw-in that leaves one eye. Here the
//! owner ("defender") and the opponent ("attacker") read those out move by
//! move, with candidate moves drawn from the liberties of the chain and of
//! the attacker's chains that touch it:
//!
//! * the defender may extend, capture an attacker chain, take a liberty of
//!   an attacker chain no richer in liberties than its own (the race), or
//!   pass (which is how seki is kept);
//! * the attacker may fill the defender's liberties, throw-ins included,
//!   or save one of its own chains the defender has put in atari;
//! * the defender is safe once it has [`SAFE_LIBERTIES`] liberties.
//!
//! Only a proof of death counts, so every doubt goes the defender's way:
//! the attacker may not take a ko; a capture that leaves the capturing
//! chain in atari (a snapback or a ko) proves nothing; so does a capture of
//! a few stones next to captors with no liberties to spare, since the eye
//! it gives back may be killed in turn (three stones in an eye, sharing
//! the captors' last liberties, are seki); and running out of depth or of
//! the node budget is an escape.

use super::playout::{PlayoutBoard, BORDER};
use crate::board::chains::neighbours as nbrs;

/// Liberties at which a chain is out of tactical danger.
const SAFE_LIBERTIES: usize = 4;

/// Moves read ahead, both sides together.
const MAX_DEPTH: usize = 12;

/// Positions read per question before giving up (as an escape).
const NODE_BUDGET: u32 = 1_000;

/// Candidate moves kept per position.
const MAX_CANDIDATES: usize = 12;

/// Reusable scratch: one board per ply, so that reading does not allocate
/// after the first position.
#[derive(Debug, Default)]
pub(crate) struct Tactics {
    /// The position read from.
    base: Option<Box<PlayoutBoard>>,
    boards: Vec<Box<PlayoutBoard>>,
    nodes: u32,
    /// Whether every attacker chain touching the target has liberties of
    /// its own to spare ([`SPARE_LIBERTIES`]) besides the target's.
    captors_safe: bool,
}

impl Tactics {
    /// The position to read from: set it up before asking.
    pub(crate) fn board(&mut self) -> &mut PlayoutBoard {
        self.base
            .get_or_insert_with(|| Box::new(PlayoutBoard::new()))
    }

    /// Whether the chain on `cell` of the reading board is captured by force
    /// even when its owner moves first (and wins every ko).
    pub(crate) fn dies_moving_first(&mut self, cell: usize) -> bool {
        let Some(start) = self.base.as_deref() else {
            return false;
        };
        let defender = start.stone(cell);
        if defender != 1 && defender != 2 {
            return false;
        }
        let mut libs = [0usize; SAFE_LIBERTIES];
        if start.liberties(start.head_of(cell), &mut libs) >= SAFE_LIBERTIES {
            return false;
        }
        while self.boards.len() <= MAX_DEPTH {
            self.boards.push(Box::new(PlayoutBoard::new()));
        }
        self.boards[0].copy_from(start);
        self.boards[0].pass();
        self.nodes = 0;
        self.captors_safe = captors_safe(start, cell);
        !self.defend(0, cell, defender)
    }

    /// What `boards[ply]` already answers for the chain on `cell` (of colour
    /// `defender`): `Err(true)` it lives (safe, or the reading ran out of
    /// depth or budget, which counts as life), `Err(false)` it was
    /// captured; otherwise `Ok` with its liberties written to `libs`.
    fn open_question(
        &mut self,
        ply: usize,
        cell: usize,
        defender: u8,
        libs: &mut [usize; SAFE_LIBERTIES],
    ) -> Result<usize, bool> {
        self.nodes += 1;
        if ply >= MAX_DEPTH || self.nodes > NODE_BUDGET {
            return Err(true);
        }
        let board = &self.boards[ply];
        if board.stone(cell) != defender {
            return Err(false);
        }
        let n = board.liberties(board.head_of(cell), libs);
        if n >= SAFE_LIBERTIES {
            return Err(true);
        }
        Ok(n)
    }

    /// Defender to move on `boards[ply]`: can the chain on `cell` survive?
    fn defend(&mut self, ply: usize, cell: usize, me: u8) -> bool {
        let mut libs = [0usize; SAFE_LIBERTIES];
        let n = match self.open_question(ply, cell, me, &mut libs) {
            Ok(n) => n,
            Err(lives) => return lives,
        };
        let board = &self.boards[ply];
        let mut moves = Candidates::default();
        // Captures first, then the race, then extensions.
        let mut touching = [0usize; 16];
        let t = touching_chains(board, cell, &mut touching);
        for &h in &touching[..t] {
            if let Some(l) = board.atari_point(h) {
                moves.push(l);
            }
        }
        for &h in &touching[..t] {
            let mut their = [0usize; SAFE_LIBERTIES];
            let k = board.liberties(h, &mut their);
            if k > 1 && k <= n + 1 {
                for &l in &their[..k] {
                    moves.push(l);
                }
            }
        }
        for &l in &libs[..n] {
            moves.push(l);
        }
        // Passing: the chain lives if the attacker cannot take it as it is.
        {
            let (head, rest) = self.boards.split_at_mut(ply + 1);
            rest[0].copy_from(&head[ply]);
            rest[0].pass();
        }
        if !self.attack(ply + 1, cell, me) {
            return true;
        }
        for &m in moves.as_slice() {
            if !self.boards[ply].legal(m, me) {
                continue;
            }
            let (head, rest) = self.boards.split_at_mut(ply + 1);
            rest[0].copy_from(&head[ply]);
            rest[0].play(m, me);
            if !self.attack(ply + 1, cell, me) {
                return true;
            }
        }
        false
    }

    /// Attacker to move on `boards[ply]`: can the chain on `cell` (of colour
    /// `defender`) be captured?
    fn attack(&mut self, ply: usize, cell: usize, defender: u8) -> bool {
        let mut libs = [0usize; SAFE_LIBERTIES];
        let n = match self.open_question(ply, cell, defender, &mut libs) {
            Ok(n) => n,
            Err(lives) => return !lives,
        };
        let me = 3 - defender;
        let board = &self.boards[ply];
        let captured = board.chain_len(board.head_of(cell));
        let mut moves = Candidates::default();
        for &m in &libs[..n] {
            moves.push(m);
        }
        // Saving an attacker chain the defender threatens to capture.
        let mut touching = [0usize; 16];
        let t = touching_chains(board, cell, &mut touching);
        for &h in &touching[..t] {
            if let Some(l) = board.atari_point(h) {
                moves.push(l);
            }
        }
        for &m in moves.as_slice() {
            if !self.boards[ply].legal(m, me) {
                continue;
            }
            let (head, rest) = self.boards.split_at_mut(ply + 1);
            let next = &mut rest[0];
            next.copy_from(&head[ply]);
            next.play(m, me);
            if next.ko_point() != 0 {
                // Taking a ko proves nothing: the defender may have threats.
                continue;
            }
            if next.stone(cell) != defender {
                // Captured. It counts unless the capturer is left in atari
                // (snapback, ko), and unless the capture may leave only a
                // killable eye to captors that have nothing else: three
                // stones in the attackers' eye, sharing their last
                // liberties, are in seki, not dead. A capturing chain with
                // liberties to spare besides the points it took has
                // something else, whatever the other captors have.
                let head = next.head_of(m);
                let mut mine = [0usize; 2];
                if next.liberties(head, &mut mine) < 2 {
                    continue;
                }
                if captured >= BIG_CAPTURE || self.captors_safe {
                    return true;
                }
                // Only now count further (most captures stop above).
                let mut many = [0usize; SPARE_LIBERTIES + MAX_FREED];
                if captured <= MAX_FREED
                    && next.liberties(head, &mut many) >= captured + SPARE_LIBERTIES
                {
                    return true;
                }
                continue;
            }
            if !self.defend(ply + 1, cell, defender) {
                return true;
            }
        }
        false
    }
}

/// Whether the chain on `cell` is in a capturing race without eyes that
/// the opponent cannot win even moving first, counted the textbook way
/// rather than read: all its liberties are `shared` with one opponent
/// chain, which has `outside` liberties of its own, and neither side has an
/// eye. Once the chain has filled those, whoever fills a shared liberty
/// puts itself in atari first, so the opponent wins only with
/// `outside >= shared - 1` (it can fill down to one shared liberty while
/// keeping one more than the chain); short of that both live in seki.
/// Filling a liberty must not join the filler to another chain (which
/// would bring liberties the count does not see).
pub(crate) fn holds_race_without_eyes(board: &PlayoutBoard, cell: usize) -> bool {
    let me = board.stone(cell);
    if me != 1 && me != 2 {
        return false;
    }
    let opp = 3 - me;
    let head = board.head_of(cell);
    let mut mine = [0usize; 8];
    let n = board.liberties(head, &mut mine);
    if n == 0 || n == mine.len() {
        return false;
    }
    let Some(rival) = nbrs(mine[0])
        .into_iter()
        .find(|&q| board.stone(q) == opp)
        .map(|q| board.head_of(q))
    else {
        return false;
    };
    let mut theirs = [0usize; 12];
    let k = board.liberties(rival, &mut theirs);
    if k == theirs.len() {
        return false;
    }
    let fair = |l: usize| only_chain_next_to(board, l, opp, rival) && !is_eye(board, l, opp);
    if !mine[..n]
        .iter()
        .all(|&l| only_chain_next_to(board, l, me, head) && theirs[..k].contains(&l))
        || !theirs[..k].iter().all(|&l| fair(l))
    {
        return false;
    }
    // Every liberty of the chain is shared (so it has no eye either).
    let shared = n;
    let outside = k - shared;
    shared >= 2 && outside + 1 < shared
}

/// Whether no chain of `color` but `head` touches the point `l`.
fn only_chain_next_to(board: &PlayoutBoard, l: usize, color: u8, head: usize) -> bool {
    nbrs(l)
        .into_iter()
        .all(|q| board.stone(q) != color || board.head_of(q) == head)
}

/// Whether every neighbour of `l` is a stone of `color` or the edge.
fn is_eye(board: &PlayoutBoard, l: usize, color: u8) -> bool {
    nbrs(l).into_iter().all(|q| {
        let s = board.stone(q);
        s == color || s == BORDER
    })
}

/// Liberties an attacker chain needs besides the target's for a capture of
/// a few stones to prove them dead.
const SPARE_LIBERTIES: usize = 3;

/// The most captured stones for which the capturing chain's own spare
/// liberties are counted: bigger captures count anyway.
const MAX_FREED: usize = BIG_CAPTURE - 1;

/// Stones whose capture leaves room for two eyes ([`super::shape`]: seven
/// points or more are never a single killable eye).
const BIG_CAPTURE: usize = 7;

/// Whether every attacker chain touching the chain on `cell` has
/// [`SPARE_LIBERTIES`] liberties that are not the chain's, counting with
/// its own those of the chains it shares an eye point with: a captor whose
/// liberty is an eye of a bigger group (the defender may not play there)
/// is that group, however few liberties it has by itself. A lone stone
/// beside a living wall's eye, taking a corner invader, is no captor short
/// of liberties: the freed points are not an eye it could lose.
fn captors_safe(board: &PlayoutBoard, cell: usize) -> bool {
    let mut target = [0usize; SAFE_LIBERTIES];
    let n = board.liberties(board.head_of(cell), &mut target);
    let target = &target[..n];
    let mut touching = [0usize; 16];
    let t = touching_chains(board, cell, &mut touching);
    let captor = 3 - board.stone(cell);
    touching[..t].iter().all(|&h| {
        let mut spare = [0usize; SPARE_LIBERTIES];
        let mut count = 0;
        let mut add = |chain: usize, spare: &mut [usize; SPARE_LIBERTIES]| {
            let mut theirs = [0usize; SAFE_LIBERTIES + SPARE_LIBERTIES];
            let k = board.liberties(chain, &mut theirs);
            for &l in &theirs[..k] {
                if count < SPARE_LIBERTIES && !target.contains(&l) && !spare[..count].contains(&l) {
                    spare[count] = l;
                    count += 1;
                }
            }
            count
        };
        if add(h, &mut spare) >= SPARE_LIBERTIES {
            return true;
        }
        let mut own = [0usize; SAFE_LIBERTIES + SPARE_LIBERTIES];
        let k = board.liberties(h, &mut own);
        for &l in &own[..k] {
            if !is_eye(board, l, captor) {
                continue;
            }
            for q in nbrs(l) {
                if board.stone(q) == captor
                    && board.head_of(q) != h
                    && add(board.head_of(q), &mut spare) >= SPARE_LIBERTIES
                {
                    return true;
                }
            }
        }
        false
    })
}

/// The heads of the other colour's chains next to the chain on `cell`, up
/// to `out.len()`; returns how many.
fn touching_chains(board: &PlayoutBoard, cell: usize, out: &mut [usize]) -> usize {
    let me = board.stone(cell);
    let opp = 3 - me;
    let mut count = 0;
    for s in board.stones(board.head_of(cell)) {
        for n in nbrs(s) {
            if board.stone(n) == opp {
                let h = board.head_of(n);
                if !out[..count].contains(&h) {
                    if count == out.len() {
                        return count;
                    }
                    out[count] = h;
                    count += 1;
                }
            }
        }
    }
    count
}

/// A short list of distinct candidate moves.
#[derive(Default)]
struct Candidates {
    moves: [usize; MAX_CANDIDATES],
    len: usize,
}

impl Candidates {
    fn push(&mut self, m: usize) {
        if self.len < MAX_CANDIDATES && !self.moves[..self.len].contains(&m) {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[usize] {
        &self.moves[..self.len]
    }
}

#[cfg(test)]
mod tests {
    //! Small fights read out by hand: who moves first, who has more
    //! liberties, and what a capture is worth.

    use super::*;

    /// A reader set up on `diagram` (X black, O white, . empty).
    fn reader(diagram: &str) -> Tactics {
        let mut r = Tactics::default();
        r.board().copy_from(&PlayoutBoard::from_diagram(diagram));
        r
    }

    fn dies(diagram: &str, x: usize, y: usize) -> bool {
        reader(diagram).dies_moving_first(PlayoutBoard::cell(x, y))
    }

    /// A ring of eight black stones around its one eye: one liberty.
    const RING_IN_ATARI: &str = "
        . . . . . . .
        . O O O . . .
        O X X X O . .
        O X . X O . .
        O X X X O . .
        . O O O . . .
        . . . . . . .";

    #[test]
    fn a_one_eyed_ring_in_atari_dies() {
        assert!(dies(RING_IN_ATARI, 1, 2));
    }

    #[test]
    fn a_ring_in_atari_lives_by_capturing_its_captor() {
        // Black at the top left leaves the white chain on the left edge one
        // liberty: Black takes it and the ring breathes.
        let d = "
            . . . . . . .
            X O O O . . .
            O X X X O . .
            O X . X O . .
            O X X X O . .
            . O O O . . .
            . . . . . . .";
        assert!(!dies(d, 1, 2));
    }

    /// Black's three stones on column d (liberties c1, c2) race White's
    /// three on column e; `white_libs` opens f3 to give White a third.
    fn race(white_libs: usize) -> String {
        let f3 = if white_libs == 3 { "." } else { "X" };
        format!(
            "
            . . . X O . . . .
            O O . X O . X X X
            . O O X O {f3} X . .
            . . O O X X . . .
            . . . . . . . . .
            . . . . . . . . ."
        )
    }

    #[test]
    fn a_race_of_equals_is_won_by_the_side_moving_first() {
        assert!(!dies(&race(2), 3, 0));
        // And the same holds for White's chain.
        assert!(!dies(&race(2), 4, 0));
    }

    #[test]
    fn a_race_one_liberty_short_is_lost_even_moving_first() {
        assert!(dies(&race(3), 3, 0));
        assert!(!dies(&race(3), 4, 0));
    }

    #[test]
    fn a_capture_that_needs_a_ko_proves_nothing() {
        // White can take the black stone on b9 only by a ko capture at a9.
        let d = "
            . X O . .
            X O . . .
            . . . . .
            . . . . .
            . . . . .";
        assert!(!dies(d, 1, 0));
    }

    #[test]
    fn one_eye_and_a_stone_in_the_other_is_killed_by_a_throw_in() {
        // Black's ring has two liberties, a7 and c7, both next to White's
        // stone on b7. It looks like seki, but White throws in at a7 (two
        // stones in atari), Black takes them, White plays b7 again, and
        // Black is left with one eye.
        let d = "
            O O O O O . .
            X X X X O . .
            . O . X O . .
            X X X X O . .
            O O O O O . .
            . . . . . . .
            . . . . . . .";
        assert!(dies(d, 0, 1));
        // With a real eye at e7 besides, Black answers every throw-in and
        // ends with two eyes.
        let two_eyes = "
            O O O O O O O
            X X X X X X O
            . O . X . X O
            X X X X X X O
            O O O O O O O
            . . . . . . .
            . . . . . . .";
        assert!(!dies(two_eyes, 0, 1));
    }

    #[test]
    fn three_stones_in_the_eye_of_a_group_short_of_liberties_are_seki() {
        // Black's b7-d7 sit in White's eye along the edge, sharing its
        // liberties a7 and e7; White has two more, f5 and g7. Black fills
        // them while White takes the three stones, but the straight three
        // White gets back dies to a stone in its middle: White must not
        // take them, Black cannot approach either, and it is seki. Taking
        // three stones next to captors this short of liberties proves
        // nothing.
        let d = "
            . X X X . O .
            O O O O O O X
            X X X X X . X
            . . . . X X X
            . . . . . . .
            . . . . . . .
            . . . . . . .";
        assert!(!dies(d, 1, 0), "Black's three stones");
        assert!(!dies(d, 0, 1), "White's group");
    }

    /// White's a9-a7 have three liberties, b9-b7, all shared with Black's
    /// chain around them, which has one more of its own at c5
    /// (`black_outside` opens b5 for a second). White's wall on the right
    /// has three eyes.
    fn shared_race(black_outside: usize) -> String {
        let b5 = if black_outside == 2 { "." } else { "O" };
        format!(
            "
            O . X O .
            O . X O O
            O . X O .
            X X X O O
            O {b5} . O .
            O O O O O"
        )
    }

    #[test]
    fn a_race_of_shared_liberties_the_outside_cannot_win_is_seki() {
        // Black filling b9 leaves White b8, b7 and itself b8, b7, c5: White
        // fills c5 and whoever fills the next shared liberty is captured.
        let mut r = reader(&shared_race(1));
        assert!(holds_race_without_eyes(r.board(), PlayoutBoard::cell(0, 0)));
    }

    #[test]
    fn two_outside_liberties_win_a_race_of_three_shared() {
        let mut r = reader(&shared_race(2));
        // Black b9, White b5 (or c5), Black b8: White has b7 left and
        // Black b7 and c5; White must fill c5, and Black takes White.
        assert!(!holds_race_without_eyes(
            r.board(),
            PlayoutBoard::cell(0, 0)
        ));
        // White moving first fills one of them and is back in the seki.
        assert!(!dies(&shared_race(2), 0, 0));
    }

    #[test]
    fn a_race_with_an_eye_is_not_counted_as_seki() {
        // Black's one liberty outside the race is e9, an eye (d9 and e8
        // are Black's): one outside liberty against three shared would be
        // seki by the count, but Black fills the shared ones safely, since
        // White can never take the eye, and captures White.
        let d = "
            O . X X .
            O . X X X
            O . X O O
            X X X O .
            O O O O O
            O O O O .";
        let mut r = reader(d);
        assert!(!holds_race_without_eyes(
            r.board(),
            PlayoutBoard::cell(0, 0)
        ));
    }

    #[test]
    fn a_captor_linked_to_its_wall_by_an_eye_is_not_short_of_liberties() {
        // White's b9, b8, c8 have two liberties, a9 and c9. Black's a8
        // beside them has two, a9 and a7, and looks too short to capture
        // for good (the freed points could be an eye White kills again);
        // but a7 is an eye of Black's wall, which has liberties to spare,
        // so a8 is the wall: Black c9 then a9 takes the three for good.
        let d = "
            . O . X X O .
            X O O X X O .
            . X X X X O .
            X X X O O O .
            . . . O . . .";
        assert!(dies(d, 1, 0));
        // Without the eye (a White stone on a7 side: the wall's point a7
        // is open to White), a8 is alone and the capture proves nothing.
        let no_eye = "
            . O . X X O .
            X O O X X O .
            . X X X X O .
            O X X O O O .
            . O . O . . .";
        assert!(!dies(no_eye, 1, 0));
    }

    #[test]
    fn a_capture_into_a_snapback_proves_nothing() {
        // Black's b9-c9 are in atari at a9, and Black cannot connect
        // there: with a8 it would have one liberty, a7. But White taking
        // the two stones at a9 is left in atari itself (its only liberty
        // is b9, and a8 is Black's), and Black takes it back at b9: two
        // given, one returned, not a capture for good.
        let d = "
            . X X O .
            X O O O .
            . O . . .
            . . . . .
            . . . . .";
        assert!(!dies(d, 1, 0));
        // With a White stone on a7 instead, a8 is captured with the rest:
        // the capture at a9 leaves White three liberties, and Black dies.
        let no_snapback = "
            . X X O .
            X O O O .
            O O . . .
            . . . . .
            . . . . .";
        assert!(dies(no_snapback, 1, 0));
    }

    #[test]
    fn chains_with_four_liberties_are_not_read() {
        let d = "
            . . . . .
            . . . . .
            . . X . .
            . . . . .
            . . . . .";
        assert!(!dies(d, 2, 2));
    }

    #[test]
    fn a_stone_in_atari_dies_only_if_it_cannot_run() {
        // b8 in atari can extend to b7 and run: not proven dead.
        let open = "
            . O . . .
            O X O . .
            . . . . .
            . . . . .
            . . . . .";
        assert!(!dies(open, 1, 1));
        // Inside a solid wall, with no way out, it dies.
        let blocked = "
            . . . . . . .
            O O O . . . .
            O X O . . . .
            O . O . . . .
            O O O . . . .
            . . . . . . .
            . . . . . . .";
        assert!(dies(blocked, 1, 2));
    }
}
