//! Reading the life and death of a whole group ("owl", after the GNU Go
//! reader of that kind, whose ideas this follows; the code is our own).
//!
//! The settler's other layers answer narrower questions: Benson proves
//! unconditional life, the tactical reader counts the liberties of one
//! chain, the enclosure reader reads a closed space of a few points to the
//! end. What they cannot answer is the question players ask of every
//! group at the end of a game: *can the opponent, moving first, kill it?*
//! A group is killed when its key chain is captured for good, or when it
//! is left with no way to make two eyes: no room to make them in, no
//! friend to connect to, no opponent stone short of liberties to take.
//!
//! That question is read here move by move, with the moves that matter
//! for a group and no others:
//!
//! * the survey ([`eval`]) looks at the group's surroundings on every
//!   position of the search: the regions of points it encloses and what
//!   each is worth as eyes (one point, false or true; the nakade shapes
//!   up to six points, which are one eye when the opponent takes the
//!   vital point and two when the owner does; bigger spaces are two), the
//!   room it has beyond them (liberties and points next to them the
//!   opponent does not touch), friends it can reach, and opponent chains
//!   it can capture;
//! * the move generator ([`moves`]) draws from that survey: the vital
//!   points of the eye spaces, the group's liberties and the room beyond,
//!   the points between it and its friends, the liberties of the chains
//!   around it that are short of liberties (the attacker's too, and for
//!   the attacker those of the owner's weak chains beside the group's
//!   liberties, which keep them the group's), and a pass; the attacker may
//!   also throw in a few stones on the group's liberties, the sacrifice
//!   that turns a seki-looking corner into a dead shape;
//! * the search ([`search`]) is a proof-number search, which follows the
//!   lines where the side proving has the fewest answers left, so a long
//!   forcing kill is found within a budget; positions proven once are
//!   remembered in a transposition table.
//!
//! Every doubt goes the owner's way, so that what the reader calls dead is
//! dead: the owner's moves are many (every liberty, every point of its eye
//! space and of its room), the attacker's few; a capture that leaves a
//! captor in atari is no kill (the stones may be taken back, as in a seki
//! with stones inside); two passes end the line with the group alive (a
//! seki); a line too long, or a search out of budget, proves nothing.
//! Ko is noted, not assumed: the attacker first reads without taking any
//! ko, and only when that fails, and a ko was what it refused, reads again
//! with kos allowed; a kill found only then is a kill by ko. So is a
//! mutual atari the game ended with (a chain of the group and an attacker
//! chain touching it, both in atari): the owner's capture is read as
//! played, and a group that lives then dies only by a tempo neither side
//! took.

use super::enclosure::Enclosures;
use super::playout::{PlayoutBoard, BORDER};
use crate::board::chains::{neighbours as nbrs, CELLS};
use crate::board::zobrist;

mod eval;
mod moves;
mod search;
#[cfg(test)]
mod tests;

use search::Node;

/// What a chain on the board is taken to be when a group is read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Cannot be captured (pass-alive, or found alive with confidence):
    /// for the owner a friend whose life the group shares once joined to
    /// it, for the attacker a stone the owner cannot hope to capture.
    Sure,
    /// Found alive, without proof: a friend worth reaching, a wall the
    /// owner does not hope to capture, but not a proof of life.
    Alive,
    /// Found dead: no friend to reach, no stone to respect.
    Dead,
    /// Anything else: a stone like any other.
    Open,
}

/// What the reading of a group found, the attacker moving first.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Attack {
    /// Killed without taking a ko.
    Kills,
    /// Killed only by taking a ko: whether it dies is the ko's.
    KoKills,
    /// Killed only by moving first in a mutual atari: a chain of the
    /// group and an attacker chain touching it were both in atari when
    /// the game ended, so whoever moved first would have captured, and
    /// the players, who both passed, left it to neither.
    Tempo,
    /// Every try of the attacker was answered: the group lives (or lives
    /// in seki).
    Fails,
    /// Out of budget: nothing proven either way.
    Unknown,
}

/// Positions read per group, at least: the budget of the search when the
/// position's reading has spent its [`POSITION_POOL`].
pub(crate) const NODE_BUDGET: u32 = 1_000;

/// Positions read per group, at most, while the pool lasts. A kill of a
/// big group in a wide area is a long line with many answers for the
/// owner, proven in a few thousand positions where it is proven at all;
/// on ../shared/corpora/kgs 4,000 (pool 5,000) reproduced three more
/// recorded results than 1,000 and changed no marked game.
pub(crate) const GROUP_BUDGET: u32 = 4_000;

/// Positions the groups of one position share: every position a group
/// reads is taken from it, the groups read first (the biggest) may read
/// up to [`GROUP_BUDGET`] while it lasts, and once it is spent each group
/// still reads [`NODE_BUDGET`], so that a position full of unsure groups
/// costs a bounded time (the p99 of settling, not the median, is what
/// more reading raises).
pub(crate) const POSITION_POOL: u32 = 5_000;

/// Stones of the position the owner may capture before it counts as
/// living: the space a bigger capture opens is too big to kill in, and
/// the attacker seldom wins it back (as in the enclosure reading).
const MAX_SACRIFICE: usize = 6;

/// The longest line read, passes included.
const MAX_LINE: u8 = 28;

/// The most empty points a capture of the key chain may leave, walled in
/// by the captor alone, for the captor's own life to be read
/// ([`Owl::captor_dies`]): the nakade shapes are at most six points, and
/// a bigger space is two eyes for the captor.
const CAPTOR_SPACE: usize = 6;

/// The fewest empty points a capture must leave for the captor's life to
/// be in question: a space of one or two points is one eye whoever plays
/// first, and no vital point is left to take in it.
const NAKADE_SPACE: usize = 3;

/// Positions read for one captor: the captors in question are small
/// groups around a small space, read out in a few hundred positions
/// where they die at all.
const CAPTOR_BUDGET: u32 = 400;

/// The captor readings of one reading may read this many times its
/// budget, all told; past it a capture is a kill as it stands.
const CAPTOR_SHARE: u32 = 2;

/// Reusable scratch space for reading groups: build one per settler and
/// reuse it; after the first reading it does not allocate.
pub(crate) struct Owl {
    /// The position read, with the attacker to move.
    root: Box<PlayoutBoard>,
    /// The position of the node being expanded.
    work: Box<PlayoutBoard>,
    root_hash: u64,
    /// Per cell: the standing of the chain on it at the root (`Open` for
    /// points empty at the root).
    standing: Vec<Standing>,
    /// Per cell: whether it held a stone at the root.
    rooted: Vec<bool>,
    /// The group's stones at the root.
    goal: Vec<u16>,
    /// A stone of the chain whose capture for good is the kill.
    key: usize,
    /// The owner (defender) and the attacker, as board stones (1 or 2).
    me: u8,
    opp: u8,
    /// Whether the attacker may take a ko on this reading, and whether it
    /// was refused one.
    ko_allowed: bool,
    ko_refused: bool,
    tree: Vec<Node>,
    /// Proven positions: (hash with the side to move, whether the attacker
    /// wins there).
    table: std::collections::HashMap<
        u64,
        (bool, bool),
        std::hash::BuildHasherDefault<search::KeyHasher>,
    >,
    /// The line from the root to the node being expanded, and the hashes
    /// of its positions (for repetitions).
    line: Vec<u16>,
    hashes: Vec<u64>,
    /// The owner's stones played on the line: they join the group.
    played: Vec<u16>,
    /// Stones of the position the owner captured on the line.
    taken: usize,
    survey: eval::Survey,
    /// The reader of shut-in groups, for positions where the group has no
    /// liberty outside its eye space.
    enclosures: Enclosures,
    /// Whether the last reading's answer is a proof (captures, passes,
    /// two eyes, readings to the end) and not the survey's judgement that
    /// a group cannot make two eyes.
    pub(crate) exact: bool,
    /// Positions expanded over every reading (for measurements), the
    /// captor reader's included.
    pub(crate) expanded: u64,
    /// The reader of a captor ([`Owl::captor_dies`]): a second reader,
    /// made on first use, which reads no captor of its own.
    captor: Option<Box<Owl>>,
    /// Whether this reader is the captor reader of another.
    pub(super) nested: bool,
    /// Positions the captor reader may still read in this reading.
    captor_left: u32,
    /// Whether a capture of the key chain was found to cost the captor
    /// its life on some line of the last reading.
    pub(crate) captor_died: bool,
}

impl std::fmt::Debug for Owl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Owl {{ expanded: {} }}", self.expanded)
    }
}

impl Default for Owl {
    fn default() -> Owl {
        Owl {
            root: Box::new(PlayoutBoard::new()),
            work: Box::new(PlayoutBoard::new()),
            root_hash: 0,
            standing: vec![Standing::Open; CELLS],
            rooted: vec![false; CELLS],
            goal: Vec::new(),
            key: 0,
            me: 1,
            opp: 2,
            ko_allowed: false,
            ko_refused: false,
            tree: Vec::new(),
            table: Default::default(),
            line: Vec::new(),
            hashes: Vec::new(),
            played: Vec::new(),
            taken: 0,
            survey: eval::Survey::default(),
            enclosures: Enclosures::default(),
            expanded: 0,
            exact: false,
            captor: None,
            nested: false,
            captor_left: 0,
            captor_died: false,
        }
    }
}

/// The hash of the stones on `board`.
fn hash_of(board: &PlayoutBoard) -> u64 {
    let mut h = 0;
    for c in 0..CELLS {
        let s = board.stone(c);
        if s == 1 || s == 2 {
            h ^= zobrist(s, c);
        }
    }
    h
}

/// The heads of the opponent chains `me` captures by playing `p` on
/// `board` (legal, not yet played), and how many there are.
fn captures(board: &PlayoutBoard, p: usize, me: u8) -> ([usize; 4], usize) {
    let opp = 3 - me;
    let mut heads = [0usize; 4];
    let mut n = 0;
    for q in nbrs(p) {
        if board.stone(q) != opp {
            continue;
        }
        let head = board.head_of(q);
        if heads[..n].contains(&head) || board.atari_point(head) != Some(p) {
            continue;
        }
        heads[n] = head;
        n += 1;
    }
    (heads, n)
}

/// The hash after `me` plays `p` on `board` (legal, not yet played): the
/// new stone and the opponent chains it captures.
fn hash_after(board: &PlayoutBoard, hash: u64, p: usize, me: u8) -> u64 {
    let opp = 3 - me;
    let (heads, n) = captures(board, p, me);
    let mut h = hash ^ zobrist(me, p);
    for &head in &heads[..n] {
        for s in board.stones(head) {
            h ^= zobrist(opp, s);
        }
    }
    h
}

/// How many stones that were on the board at the root `me` captures by
/// playing `p`.
fn captured_rooted(board: &PlayoutBoard, p: usize, me: u8, rooted: &[bool]) -> usize {
    let (heads, n) = captures(board, p, me);
    heads[..n]
        .iter()
        .map(|&head| board.stones(head).filter(|&s| rooted[s]).count())
        .sum()
}

/// Whether `me` playing `p` takes a ko: it captures one stone and is left
/// alone with the captured point as its only liberty.
fn takes_ko(board: &PlayoutBoard, p: usize, me: u8) -> bool {
    let opp = 3 - me;
    let mut captured = 0;
    for q in nbrs(p) {
        match board.stone(q) {
            s if s == me => return false,
            s if s == opp => {
                let head = board.head_of(q);
                if board.atari_point(head) == Some(p) {
                    captured += board.chain_len(head);
                } else {
                    return false;
                }
            }
            BORDER => {}
            _ => return false,
        }
    }
    captured == 1
}

impl Owl {
    /// [`Owl::attack`] as one of the groups of a position, which share
    /// `pool` ([`POSITION_POOL`]): it reads up to what is left of the
    /// pool (at most [`GROUP_BUDGET`], at least [`NODE_BUDGET`]) and
    /// takes what it read from it.
    pub(crate) fn attack_from_pool(
        &mut self,
        board: &PlayoutBoard,
        goal: &[usize],
        standing: impl Fn(usize) -> Standing,
        pool: &mut u32,
    ) -> Attack {
        let budget = (*pool).clamp(NODE_BUDGET, GROUP_BUDGET);
        let before = self.expanded;
        let answer = self.attack(board, goal, standing, budget);
        let used = u32::try_from(self.expanded - before).unwrap_or(u32::MAX);
        *pool = pool.saturating_sub(used);
        answer
    }

    /// Reads the group whose stones at the root are `goal` (cells of
    /// `board`, one colour; the first is on its key chain), the opponent
    /// moving first. `standing` says, per cell, what the chain on it is
    /// taken to be. Reads within `budget` positions.
    pub(crate) fn attack(
        &mut self,
        board: &PlayoutBoard,
        goal: &[usize],
        standing: impl Fn(usize) -> Standing,
        budget: u32,
    ) -> Attack {
        let Some(&first) = goal.first() else {
            return Attack::Fails;
        };
        let me = board.stone(first);
        if me != 1 && me != 2 {
            return Attack::Fails;
        }
        self.root.copy_from(board);
        self.root.pass();
        self.root_hash = hash_of(board);
        self.me = me;
        self.opp = 3 - me;
        self.goal.clear();
        self.goal.extend(goal.iter().map(|&c| c as u16));
        // The key chain: the group's biggest.
        self.key = goal
            .iter()
            .copied()
            .max_by_key(|&c| board.chain_len(board.head_of(c)))
            .unwrap_or(first);
        for c in 0..CELLS {
            let s = board.stone(c);
            self.rooted[c] = s == 1 || s == 2;
            self.standing[c] = if s == 1 || s == 2 {
                standing(c)
            } else {
                Standing::Open
            };
        }
        // The group's own chains are what is read: whatever an earlier
        // reading found of them is no standing here.
        for &c in goal {
            for s in board.stones(board.head_of(c)) {
                self.standing[s] = Standing::Open;
            }
        }
        // A mutual atari at the root: whoever moves first captures, and
        // the players, who both passed, left it to neither. The group
        // dies of it only if it dies when its owner captures first, so
        // that is the position read.
        let tempo = mutual_atari(board, goal);
        if let Some(p) = tempo {
            for q in nbrs(p) {
                if self.root.stone(q) != self.opp {
                    continue;
                }
                let h = self.root.head_of(q);
                if self.root.atari_point(h) == Some(p) {
                    for c in self.root.stones(h) {
                        self.rooted[c] = false;
                        self.standing[c] = Standing::Open;
                    }
                }
            }
            self.root.play(p, me);
            self.root.pass();
            self.rooted[p] = true;
            self.standing[p] = Standing::Open;
            self.root_hash = hash_of(&self.root);
        }
        self.table.clear();
        self.ko_allowed = false;
        self.ko_refused = false;
        self.captor_left = budget.saturating_mul(CAPTOR_SHARE);
        self.captor_died = false;
        match self.prove(budget) {
            Some(true) => Attack::Kills,
            Some(false) if tempo.is_some() => Attack::Tempo,
            Some(false) if self.ko_refused => {
                self.ko_allowed = true;
                self.table.clear();
                match self.prove(budget) {
                    Some(true) => Attack::KoKills,
                    Some(false) => Attack::Fails,
                    None => Attack::Fails,
                }
            }
            Some(false) => Attack::Fails,
            None => Attack::Unknown,
        }
    }

    /// Whether the group of the last [`Owl::attack`] has, as the position
    /// stands, a friend found alive two or three steps away: a way to
    /// live by joining it that a reading out of budget may not have
    /// finished. Surveys the root again; asked only of unfinished
    /// readings, which are few.
    pub(crate) fn reaches_friend(&mut self) -> bool {
        self.survey.run(
            &self.root,
            self.me,
            &self.goal,
            &[],
            &self.standing,
            &self.rooted,
        );
        self.survey.reaches_friend
    }

    /// Whether the key chain's capture on the work board (the owner to
    /// move) costs the captor its life: `Some(exact)` when the owner,
    /// moving first, kills the captor, `None` when it does not or when
    /// the question does not arise. It arises when the capture leaves a
    /// small space ([`CAPTOR_SPACE`]) walled in by the captor's chains
    /// alone, none of them proven alive: stones inside a group's only eye
    /// space, whose capture leaves a nakade shape (the captor dies, so
    /// the stones are not dead but in seki, or the captor was dead all
    /// along). Taking such stones is then no kill, whatever the reading
    /// of the stones alone says.
    pub(super) fn captor_dies(&mut self) -> Option<bool> {
        if self.nested || self.captor_left == 0 {
            return None;
        }
        let board = &*self.work;
        if board.stone(self.key) != 0 {
            return None;
        }
        let mut space = [0u16; CAPTOR_SPACE];
        space[0] = self.key as u16;
        let mut n = 1;
        let mut captor = [0usize; 4];
        let mut m = 0;
        let mut k = 0;
        while k < n {
            let c = usize::from(space[k]);
            k += 1;
            for q in nbrs(c) {
                match board.stone(q) {
                    0 => {
                        if !space[..n].contains(&(q as u16)) {
                            if n == space.len() {
                                return None;
                            }
                            space[n] = q as u16;
                            n += 1;
                        }
                    }
                    BORDER => {}
                    t if t == self.me => return None,
                    _ => {
                        if self.standing[q] == Standing::Sure {
                            return None;
                        }
                        let h = board.head_of(q);
                        if !captor[..m].contains(&h) {
                            if m == captor.len() {
                                return None;
                            }
                            captor[m] = h;
                            m += 1;
                        }
                    }
                }
            }
        }
        if n < NAKADE_SPACE {
            return None;
        }
        // The captor's life is read against the owner's stones around it
        // as they stand: only chains holding a stone the layers did not
        // find dead with confidence make that reading worth anything. A
        // wall the layers were unsure of (`Open`: playouts below four to
        // one either way) counts, since a race inside it is fought
        // against it as it stands. Required to be found alive with
        // confidence, it left the captor unread beside such walls: in
        // KGS 2015-01-10-29, White's three stones inside Black's
        // eleven-stone corner group, beside White's wall at 0.77, were
        // read captured for good, though Black's group dies once it has
        // taken them (as GNU Go's final_status_list and the recorded
        // result have it). On ../shared/corpora that one result changed,
        // to the recorded one (1,699 to 1,700), and nothing else did
        // (Tygem, fox, ai, the 16 seeds of the marked games). A captor
        // beside the rest of the group being read (stones inside a group
        // that may itself be dead) is no captor to judge. A stone the
        // owner played on the line is judged by the chain it joined:
        // filling the captor's outside liberties from a living wall is
        // how the owner wins such a race (KGS 2015-04-10-2: three stones
        // in the eye of a group with two liberties outside, read dead
        // because the filling stones, new on the board, counted as weak
        // ones).
        let root = &*self.root;
        let goal = &self.goal;
        let stands = |t: usize| match self.standing[t] {
            Standing::Sure | Standing::Alive => true,
            Standing::Dead => false,
            Standing::Open => {
                self.rooted[t]
                    && root.stone(t) == self.me
                    && !goal
                        .iter()
                        .any(|&g| root.head_of(usize::from(g)) == root.head_of(t))
            }
        };
        for &h in &captor[..m] {
            for s in board.stones(h) {
                for q in nbrs(s) {
                    if board.stone(q) == self.me && !board.stones(board.head_of(q)).any(stands) {
                        return None;
                    }
                }
            }
        }
        let mut reader = self.captor.take().unwrap_or_else(|| {
            Box::new(Owl {
                nested: true,
                ..Owl::default()
            })
        });
        let before = reader.expanded;
        let standing = &self.standing;
        let budget = CAPTOR_BUDGET.min(self.captor_left);
        let answer = reader.attack(&self.work, &captor[..m], |c| standing[c], budget);
        let used = reader.expanded - before;
        self.expanded += used;
        self.captor_left = self
            .captor_left
            .saturating_sub(u32::try_from(used).unwrap_or(u32::MAX));
        let exact = reader.exact;
        self.captor = Some(reader);
        let dies = answer == Attack::Kills;
        self.captor_died |= dies;
        dies.then_some(exact)
    }

    /// Rebuilds the position of node `at` on the work board (the line,
    /// its hashes and the owner's stones played).
    fn replay(&mut self, at: usize) {
        self.line.clear();
        let mut n = at;
        while let Some(node) = self.tree.get(n) {
            if node.parent == u32::MAX {
                break;
            }
            self.line.push(node.mv);
            n = node.parent as usize;
        }
        self.line.reverse();
        self.work.copy_from(&self.root);
        self.hashes.clear();
        self.played.clear();
        self.taken = 0;
        let mut hash = self.root_hash;
        self.hashes.push(hash);
        let mut side = self.opp;
        for k in 0..self.line.len() {
            let mv = usize::from(self.line[k]);
            if mv == usize::from(search::PASS) {
                self.work.pass();
            } else {
                hash = hash_after(&self.work, hash, mv, side);
                if side == self.me {
                    self.played.push(mv as u16);
                    self.taken += captured_rooted(&self.work, mv, side, &self.rooted);
                }
                self.work.play(mv, side);
            }
            self.hashes.push(hash);
            side = 3 - side;
        }
    }
}

/// The point where the owner captures when a chain of the group on
/// `goal` is in atari on `board` and touches an opponent chain in atari
/// too: a fight the game ended with, which neither side took.
fn mutual_atari(board: &PlayoutBoard, goal: &[usize]) -> Option<usize> {
    goal.iter().find_map(|&c| {
        let h = board.head_of(c);
        board.atari_point(h)?;
        board.capture_beside(h)
    })
}
