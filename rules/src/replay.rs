//! Replaying a [`Game`]: legality under every rule family, the physical
//! problems of the record, and the accounting scoring needs, in one pass.
//!
//! The physical board follows the record (RULES.md section 2): a suicide
//! removes the suicided chain, an illegal ko retake is played anyway, and only
//! moves that cannot be put on the board at all (occupied or off-board points)
//! are skipped. Legality is judged alongside, for the ten meaningful
//! combinations of suicide and ko rules at once, so that a game legal under
//! Japanese rules and illegal under positional superko is itself a finding.
//!
//! # Examples
//!
//! ```
//! use verdict_rules::game::{Game, Handicap, SetupStone};
//! use verdict_rules::info::GameInfo;
//! use verdict_rules::replay::{Legality, Replayer};
//! use verdict_rules::{BoardSize, Color, Move, Point, Problems};
//!
//! let p = |s: &[u8; 2]| Point::from_sgf(*s).unwrap();
//! let game = Game {
//!     size: BoardSize::square(9)?,
//!     info: GameInfo::default(),
//!     first_player: None,
//!     setup: vec![],
//!     moves: vec![
//!         Move::play(Color::Black, p(b"ee")),
//!         Move::play(Color::White, p(b"cc")),
//!         Move::pass(Color::Black),
//!         Move::pass(Color::White),
//!     ],
//!     mid_setups: vec![],
//!     handicap: Handicap::NONE,
//!     territory_marks: None,
//!     variations: 0,
//!     problems: Problems::NONE,
//!     dajiefang: None,
//! };
//! let mut replayer = Replayer::new();
//! let report = replayer.replay(&game);
//! assert!(report.legality[Legality::CHINESE].is_legal());
//! assert_eq!(report.accounting.first_stop, Some(3));
//! assert_eq!(replayer.board().stones(Color::White), 1);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::ops::Index;

use crate::board::{Board, PlayError};
use crate::game::{Game, HandicapSource, SetupStone};
use crate::problem::{Problem, Problems};
use crate::{Action, BoardSize, ByColor, Color, Move, Point};

/// Whether a move may leave its own chain without liberties.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Suicide {
    /// Suicide is an illegal move (the seed rules, Chinese, Japanese, AGA).
    Forbidden,
    /// Suicide, even of one stone, is a move (Tromp-Taylor, New Zealand,
    /// Ing); the chain is removed.
    Allowed,
}

/// Which repetitions are illegal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// Only the immediate retake of a ko is illegal.
    Simple,
    /// A stone move may not recreate any earlier board (禁全同).
    Positional,
    /// A stone move may not recreate an earlier board with the same side to
    /// move.
    Situational,
}

/// A rule family as far as move legality is concerned.
///
/// `clear_at_stop` is the seed rules' 信息清零: the superko history is cleared
/// at every stop (two consecutive passes), and play resumed after a stop starts
/// from a history holding only the current position. Simple ko has no history,
/// so the flag means nothing with [`KoRule::Simple`] and is ignored there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Legality {
    pub suicide: Suicide,
    pub ko: KoRule,
    pub clear_at_stop: bool,
}

impl Legality {
    /// Number of distinct families.
    pub const COUNT: usize = 10;

    /// Every distinct family, in [`Legality::index`] order.
    pub const ALL: [Legality; Legality::COUNT] = [
        Legality::new(Suicide::Forbidden, KoRule::Simple, false),
        Legality::new(Suicide::Forbidden, KoRule::Positional, false),
        Legality::new(Suicide::Forbidden, KoRule::Positional, true),
        Legality::new(Suicide::Forbidden, KoRule::Situational, false),
        Legality::new(Suicide::Forbidden, KoRule::Situational, true),
        Legality::new(Suicide::Allowed, KoRule::Simple, false),
        Legality::new(Suicide::Allowed, KoRule::Positional, false),
        Legality::new(Suicide::Allowed, KoRule::Positional, true),
        Legality::new(Suicide::Allowed, KoRule::Situational, false),
        Legality::new(Suicide::Allowed, KoRule::Situational, true),
    ];

    /// Japanese and Korean rules: no suicide, simple ko. (Their real ko rule
    /// adds "no result" for long cycles, which a record cannot violate.)
    pub const JAPANESE: Legality = Legality::new(Suicide::Forbidden, KoRule::Simple, false);
    /// Chinese rules (1988/2002): no suicide, positional superko, history
    /// never cleared.
    pub const CHINESE: Legality = Legality::new(Suicide::Forbidden, KoRule::Positional, false);
    /// The seed rules (计枰点 and 计活子): no suicide (禁着点), positional
    /// superko (禁全同) with the history cleared at every stop (信息清零).
    pub const SEED: Legality = Legality::new(Suicide::Forbidden, KoRule::Positional, true);
    /// AGA rules: no suicide, situational superko.
    pub const AGA: Legality = Legality::new(Suicide::Forbidden, KoRule::Situational, false);
    /// New Zealand rules: suicide allowed, situational superko.
    pub const NEW_ZEALAND: Legality = Legality::new(Suicide::Allowed, KoRule::Situational, false);
    /// Tromp-Taylor rules: suicide allowed, positional superko.
    pub const TROMP_TAYLOR: Legality = Legality::new(Suicide::Allowed, KoRule::Positional, false);
    /// Ing (GOE) rules, approximated: Ing allows multi-stone suicide and has a
    /// ko rule of its own (disturbing vs. non-disturbing cycles) that no
    /// history check expresses; situational superko is the nearest family.
    pub const ING: Legality = Legality::new(Suicide::Allowed, KoRule::Situational, false);

    pub const fn new(suicide: Suicide, ko: KoRule, clear_at_stop: bool) -> Legality {
        Legality {
            suicide,
            ko,
            clear_at_stop,
        }
    }

    /// Position in [`Legality::ALL`] (and in [`Verdicts`]).
    pub const fn index(self) -> usize {
        let base = match self.suicide {
            Suicide::Forbidden => 0,
            Suicide::Allowed => 5,
        };
        let clear = self.clear_at_stop as usize;
        base + match self.ko {
            KoRule::Simple => 0,
            KoRule::Positional => 1 + clear,
            KoRule::Situational => 3 + clear,
        }
    }

    /// Stable snake_case name, a public contract (report columns).
    pub const fn id(self) -> &'static str {
        const IDS: [&str; Legality::COUNT] = [
            "nosuicide_simple",
            "nosuicide_psk",
            "nosuicide_psk_clear",
            "nosuicide_ssk",
            "nosuicide_ssk_clear",
            "suicide_simple",
            "suicide_psk",
            "suicide_psk_clear",
            "suicide_ssk",
            "suicide_ssk_clear",
        ];
        IDS[self.index()]
    }

    /// The family named by [`Legality::id`].
    pub fn from_id(id: &str) -> Option<Legality> {
        Legality::ALL.into_iter().find(|l| l.id() == id)
    }
}

impl fmt::Display for Legality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Why a move of the record is illegal under a family. Apart from
/// [`crate::sgf`] errors: this is about what a well-formed move means on the
/// board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The point is outside the board (the move was skipped).
    OffBoard,
    /// The point already holds a stone (the move was skipped).
    Occupied,
    /// The move left its own chain without liberties.
    Suicide,
    /// The move retook a ko at once.
    Ko,
    /// The move repeated an earlier position (or situation).
    Superko,
}

impl IllegalReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            IllegalReason::OffBoard => "off_board",
            IllegalReason::Occupied => "occupied",
            IllegalReason::Suicide => "suicide",
            IllegalReason::Ko => "ko",
            IllegalReason::Superko => "superko",
        }
    }
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One illegal move: its index in [`Game::moves`] and why.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IllegalMove {
    pub move_index: u32,
    pub reason: IllegalReason,
}

/// How a record fares under one family.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FamilyVerdict {
    pub first_illegal: Option<IllegalMove>,
    pub illegal_moves: u32,
}

impl FamilyVerdict {
    pub const fn is_legal(&self) -> bool {
        self.illegal_moves == 0
    }

    fn record(&mut self, move_index: u32, reason: IllegalReason) {
        self.illegal_moves += 1;
        if self.first_illegal.is_none() {
            self.first_illegal = Some(IllegalMove { move_index, reason });
        }
    }
}

/// One [`FamilyVerdict`] per family, indexed by [`Legality`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Verdicts(pub [FamilyVerdict; Legality::COUNT]);

impl Verdicts {
    /// The verdicts in [`Legality::ALL`] order, as the array would give them.
    pub fn iter(&self) -> std::slice::Iter<'_, FamilyVerdict> {
        self.0.iter()
    }

    /// Each family with its verdict.
    pub fn by_family(&self) -> impl Iterator<Item = (Legality, &FamilyVerdict)> {
        Legality::ALL.into_iter().zip(self.0.iter())
    }

    /// Whether every family accepts every move.
    pub fn all_legal(&self) -> bool {
        self.0.iter().all(FamilyVerdict::is_legal)
    }
}

impl Index<Legality> for Verdicts {
    type Output = FamilyVerdict;
    fn index(&self, legality: Legality) -> &FamilyVerdict {
        &self.0[legality.index()]
    }
}

/// The counts scoring needs (RULES.md section 4), and a few more that explain
/// a record.
///
/// Stones are conserved: for each colour `c`,
/// `placed_total[c] == on_board[c] + captures[!c] + suicided[c] + setup_removed[c]`
/// (see [`Accounting::is_conserved`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Accounting {
    /// `N_X`: setup stones plus stones played, up to and including the first
    /// stop, or to the end when there is no stop.
    pub placed_to_first_stop: ByColor<u32>,
    /// Setup stones plus stones played, in the whole record.
    pub placed_total: ByColor<u32>,
    /// Stones put by setup (`AB`/`AW`, root and mid-game); a setup stone on a
    /// point already holding that colour is not counted.
    pub setup_stones: ByColor<u32>,
    /// Stones taken off by setup: `AE`, a setup stone of the other colour put
    /// on top, or a setup chain left without liberties.
    pub setup_removed: ByColor<u32>,
    /// Passes written in the record.
    pub passes: ByColor<u32>,
    /// Passes read into the record where a colour moved twice in a row: the
    /// side whose turn it was passed.
    pub implicit_passes: ByColor<u32>,
    /// Stones captured by each colour during play. A suicide is not a capture
    /// by the opponent; see `suicided`.
    pub captures: ByColor<u32>,
    /// Own stones each colour removed by suicide.
    pub suicided: ByColor<u32>,
    /// Stones on the board at the end.
    pub on_board: ByColor<u32>,
    /// Number of stops (two consecutive passes, an implicit pass counting).
    /// Stops do not overlap: three passes in a row are one stop and a pass.
    pub stops: u32,
    /// Index in [`Game::moves`] of the second pass of the first stop.
    pub first_stop: Option<u32>,
    /// Index of the second pass of the last stop.
    pub last_stop: Option<u32>,
    /// Moves in the record (passes included, implicit passes not).
    pub moves: u32,
    /// Stone moves skipped because their point was occupied or off the board.
    pub skipped_moves: u32,
    /// Colour of the last stone actually put on the board by a move (收后).
    pub last_mover: Option<Color>,
    /// Colour of the record's last move, passes included.
    pub last_to_move: Option<Color>,
    /// Side to move after the record.
    pub to_move: Color,
    /// Whether a stone move follows the first stop: the game was resumed (to
    /// settle a dispute) rather than ended. Trailing passes do not count.
    pub resumed_after_stop: bool,
}

impl Accounting {
    pub(crate) fn new(to_move: Color) -> Accounting {
        Accounting {
            placed_to_first_stop: ByColor::default(),
            placed_total: ByColor::default(),
            setup_stones: ByColor::default(),
            setup_removed: ByColor::default(),
            passes: ByColor::default(),
            implicit_passes: ByColor::default(),
            captures: ByColor::default(),
            suicided: ByColor::default(),
            on_board: ByColor::default(),
            stops: 0,
            first_stop: None,
            last_stop: None,
            moves: 0,
            skipped_moves: 0,
            last_mover: None,
            last_to_move: None,
            to_move,
            resumed_after_stop: false,
        }
    }

    /// Whether every placed stone is accounted for.
    pub fn is_conserved(&self) -> bool {
        Color::ALL.into_iter().all(|c| {
            self.placed_total[c]
                == self.on_board[c] + self.captures[!c] + self.suicided[c] + self.setup_removed[c]
        })
    }
}

/// Everything one replay found.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplayReport {
    pub legality: Verdicts,
    /// Replay's own problems (out of turn, occupied, suicide, ko, superko,
    /// setup without liberty); the record's other problems stay in
    /// [`Game::problems`].
    pub problems: Problems,
    pub accounting: Accounting,
}

/// Replays games one after another, reusing its board and history buffers, so
/// that a warm replayer allocates nothing per game. Keep one per thread.
#[derive(Clone, Debug)]
pub struct Replayer {
    board: Board,
    history: History,
}

impl Default for Replayer {
    fn default() -> Self {
        Replayer::new()
    }
}

impl Replayer {
    pub fn new() -> Replayer {
        Replayer {
            board: Board::new(BoardSize::NINETEEN),
            history: History::default(),
        }
    }

    /// The final position of the last game replayed.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Replays every move of `game`, never stopping at a problem.
    pub fn replay(&mut self, game: &Game) -> ReplayReport {
        self.board.reset(game.size);
        // One position per move and setup; implicit passes, rare, reserve
        // their own.
        self.history
            .reset(game.moves.len() + game.mid_setups.len() + 1);
        let to_move = first_to_move(game);
        let mut run = Run {
            board: &mut self.board,
            history: &mut self.history,
            verdicts: Verdicts::default(),
            problems: Problems::NONE,
            acc: Accounting::new(to_move),
            to_move,
            position: 0,
            clear_from: 0,
            pending_pass: false,
            ko: None,
        };
        run.setup(&game.setup);
        run.remember(to_move);

        let placement = match game.handicap.source {
            HandicapSource::OpeningMoves => usize::from(game.handicap.opening_moves),
            _ => 0,
        };
        let mut mid = game.mid_setups.iter().peekable();
        let mut next_mid = mid.peek().map_or(usize::MAX, |s| s.before_move);
        for (i, &mv) in game.moves.iter().enumerate() {
            if i >= next_mid {
                while let Some(setup) = mid.next_if(|s| s.before_move <= i) {
                    run.mid_setup(&setup.stones);
                }
                next_mid = mid.peek().map_or(usize::MAX, |s| s.before_move);
            }
            run.step(i as u32, mv, i < placement);
        }
        for setup in mid {
            run.mid_setup(&setup.stones);
        }

        let mut acc = run.acc;
        acc.moves = game.moves.len() as u32;
        acc.on_board = run.board.stone_counts();
        acc.to_move = run.to_move;
        ReplayReport {
            legality: run.verdicts,
            problems: run.problems,
            accounting: acc,
        }
    }
}

/// Replays one game with a fresh [`Replayer`]: for one-off use; batch work
/// should reuse a `Replayer`.
pub fn replay(game: &Game) -> (Board, ReplayReport) {
    let mut replayer = Replayer::new();
    let report = replayer.replay(game);
    (replayer.board, report)
}

/// The record's first move decides who starts (a first move is never out of
/// turn); `PL` and then Black only matter for a record without moves.
fn first_to_move(game: &Game) -> Color {
    game.moves
        .first()
        .map(|m| m.color)
        .or(game.first_player)
        .unwrap_or(Color::Black)
}

/// State of one replay.
struct Run<'r> {
    board: &'r mut Board,
    history: &'r mut History,
    verdicts: Verdicts,
    problems: Problems,
    acc: Accounting,
    to_move: Color,
    /// Number of the current position: 0 after the root setup, then one more
    /// per move, implicit pass and mid-game setup.
    position: u32,
    /// First position number of the history the clearing families still see:
    /// the position at the last stop.
    clear_from: u32,
    /// The last move was a pass that did not complete a stop.
    pending_pass: bool,
    /// Where the side to move may not retake at once, and who that side is.
    ko: Option<(Point, Color)>,
}

impl Run<'_> {
    /// Records the current board with `to_move` to move as a new position.
    /// Returns when the board was last seen with each side to move (position
    /// number + 1, 0 for never).
    #[inline]
    fn remember(&mut self, to_move: Color) -> [u32; 2] {
        let seen = self
            .history
            .record(self.board.hash(), to_move, self.position);
        self.position += 1;
        seen
    }

    fn setup(&mut self, stones: &[SetupStone]) {
        let counting = self.acc.first_stop.is_none();
        for s in stones {
            // Off-board setup points are the game builder's to flag.
            let Ok(old) = self.board.set(s.point, s.color) else {
                continue;
            };
            if old == s.color {
                continue;
            }
            if let Some(old) = old {
                self.acc.setup_removed[old] += 1;
            }
            if let Some(c) = s.color {
                self.acc.setup_stones[c] += 1;
                self.acc.placed_total[c] += 1;
                if counting {
                    self.acc.placed_to_first_stop[c] += 1;
                }
            }
        }
        // Only stones put can take a chain's last liberty; most games have
        // no setup, or a handful of handicap stones.
        let put = stones.iter().filter(|s| s.color.is_some()).map(|s| s.point);
        let removed = self.board.remove_chains_without_liberties_near(put);
        if removed.black + removed.white > 0 {
            self.problems.insert(Problem::SetupNoLiberty);
            for c in Color::ALL {
                self.acc.setup_removed[c] += removed[c];
            }
        }
    }

    fn mid_setup(&mut self, stones: &[SetupStone]) {
        self.setup(stones);
        self.ko = None;
        self.remember(self.to_move);
    }

    fn step(&mut self, i: u32, mv: Move, placing_handicap: bool) {
        let c = mv.color;
        if c != self.to_move && !(placing_handicap && c == Color::Black) {
            self.problems.insert(Problem::OutOfTurn);
            self.acc.implicit_passes[self.to_move] += 1;
            self.history.reserve_one();
            self.pass(i, self.to_move);
        }
        match mv.action {
            Action::Pass => {
                self.acc.passes[c] += 1;
                self.pass(i, c);
            }
            Action::Play(p) => self.stone(i, c, p),
        }
        self.to_move = !c;
        self.acc.last_to_move = Some(c);
    }

    fn pass(&mut self, i: u32, c: Color) {
        self.ko = None;
        self.remember(!c);
        if self.pending_pass {
            self.pending_pass = false;
            self.acc.stops += 1;
            self.acc.first_stop.get_or_insert(i);
            self.acc.last_stop = Some(i);
            // The position just remembered is the first the cleared history
            // holds.
            self.clear_from = self.position - 1;
        } else {
            self.pending_pass = true;
        }
    }

    #[inline]
    fn stone(&mut self, i: u32, c: Color, p: Point) {
        self.pending_pass = false;
        if self.acc.first_stop.is_some() {
            self.acc.resumed_after_stop = true;
        }
        let ko = self.ko.take();
        let out = match self.board.play(c, p) {
            Ok(out) => out,
            Err(e) => {
                let reason = match e {
                    PlayError::OffBoard(_) => IllegalReason::OffBoard,
                    PlayError::Occupied(_) => IllegalReason::Occupied,
                };
                self.problems.insert(Problem::Occupied);
                self.acc.skipped_moves += 1;
                for v in &mut self.verdicts.0 {
                    v.record(i, reason);
                }
                // The turn passes on with the board unchanged.
                self.remember(!c);
                return;
            }
        };
        self.acc.placed_total[c] += 1;
        if self.acc.first_stop.is_none() {
            self.acc.placed_to_first_stop[c] += 1;
        }
        self.acc.captures[c] += out.captured;
        self.acc.suicided[c] += out.suicided;
        self.acc.last_mover = Some(c);
        self.ko = out.ko.map(|q| (q, !c));

        let suicide = out.is_suicide();
        let ko_retake = ko == Some((p, c)) && out.captured == 1;
        let seen = self.remember(!c);
        // `seen` holds position numbers + 1: a position is in the cleared
        // history when its number is at least `clear_from`.
        let any = seen[0].max(seen[1]);
        let same_side = seen[(!c).index()];
        if !(suicide || ko_retake || any > 0) {
            return;
        }
        if suicide {
            self.problems.insert(Problem::Suicide);
        }
        if ko_retake {
            self.problems.insert(Problem::Ko);
        }
        let since = |last: u32, clear: bool| last > if clear { self.clear_from } else { 0 };
        for l in Legality::ALL {
            let reason = if suicide && l.suicide == Suicide::Forbidden {
                Some(IllegalReason::Suicide)
            } else {
                match l.ko {
                    KoRule::Simple => ko_retake.then_some(IllegalReason::Ko),
                    KoRule::Positional => {
                        since(any, l.clear_at_stop).then_some(IllegalReason::Superko)
                    }
                    KoRule::Situational => {
                        since(same_side, l.clear_at_stop).then_some(IllegalReason::Superko)
                    }
                }
            };
            if let Some(reason) = reason {
                if reason == IllegalReason::Superko {
                    self.problems.insert(Problem::Superko);
                }
                self.verdicts.0[l.index()].record(i, reason);
            }
        }
    }
}

/// Every position of a game so far, as an open-addressing table from board
/// hash to the last position number (+ 1) at which it was seen with each side
/// to move. One probe per move answers positional and situational superko,
/// with or without clearing: a clear is a threshold on position numbers, so
/// nothing is ever deleted. The table is reused across games. Boards are
/// told apart by their 64-bit hash alone: a collision, about one in 10^14 for
/// a 300-move game, would report a false repetition.
#[derive(Clone, Default)]
pub(crate) struct History {
    slots: Vec<Slot>,
    shift: u32,
    len: usize,
    /// Positions the table has room for at load 1/4.
    expected: usize,
}

#[derive(Copy, Clone, Debug, Default)]
struct Slot {
    key: u64,
    /// Per side to move; 0 = never (and both 0 = free slot).
    seen: [u32; 2],
}

impl fmt::Debug for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("History")
            .field("positions", &self.len)
            .field("slots", &self.slots.len())
            .finish()
    }
}

impl History {
    /// Empties the table, sized for `expected` positions at load at most
    /// 1/4: linear probing slows down markedly above that, and clearing 16 KB
    /// per 250-move game costs less than the collisions it saves.
    pub(crate) fn reset(&mut self, expected: usize) {
        let cap = (4 * expected).next_power_of_two().max(64);
        self.slots.clear();
        self.slots.resize(cap, Slot::default());
        self.shift = 64 - cap.trailing_zeros();
        self.len = 0;
        self.expected = expected;
    }

    /// Makes room for one more position than [`History::reset`] expected.
    pub(crate) fn reserve_one(&mut self) {
        self.expected += 1;
        if 4 * self.expected > self.slots.len() {
            self.grow();
        }
    }

    /// Notes the board `key` with `to_move` to move as position `position`;
    /// returns what was noted for that board before. At most the expected
    /// number of positions may be noted, which keeps the load at most 1/4
    /// without a check per move.
    #[inline]
    pub(crate) fn record(&mut self, key: u64, to_move: Color, position: u32) -> [u32; 2] {
        debug_assert!(4 * (self.len + 1) <= self.slots.len());
        let mask = self.slots.len() - 1;
        // Zobrist keys are uniform: their top bits are a good index.
        let mut i = (key >> self.shift) as usize;
        loop {
            let slot = &mut self.slots[i];
            if slot.seen == [0, 0] {
                slot.key = key;
                slot.seen[to_move.index()] = position + 1;
                self.len += 1;
                return [0, 0];
            }
            if slot.key == key {
                let before = slot.seen;
                slot.seen[to_move.index()] = position + 1;
                return before;
            }
            i = (i + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let cap = 2 * old.len();
        self.slots = vec![Slot::default(); cap];
        self.shift = 64 - cap.trailing_zeros();
        let mask = cap - 1;
        for slot in old.into_iter().filter(|s| s.seen != [0, 0]) {
            let mut i = (slot.key >> self.shift) as usize;
            while self.slots[i].seen != [0, 0] {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }
}
