//! Replaying a 大解放 record under the variant's own legality.
//!
//! The board follows the record, as [`crate::replay`] does: an illegal move
//! (a repetition, a suicide) is played anyway and judged beside, and only a
//! move that cannot be put on the board at all (an impossible move: `MF`
//! naming no stone of the mover, an occupied target, a bad coordinate) is
//! skipped. A move out of turn is played as written and flagged: the variant
//! has no pass to read into the record, and inventing a 虚着 would invent a
//! stone.
//!
//! Positions are compared as RULES.md section 6 defines them: the stones on
//! the board plus the number of stones each colour has put beside it. That
//! number only grows, and grows by one at every 虚着, so a position can only
//! equal one created since the last 虚着: the history is one table of board
//! hashes, and each 虚着 starts a new epoch by moving a threshold on
//! position numbers, never by clearing. One probe per position created.

use crate::board::Board;
use crate::game::{Game, SetupStone};
use crate::problem::{Problem, Problems};
use crate::replay::{Accounting as PlainAccounting, History, ReplayReport, Verdicts};
use crate::{Action, BoardSize, ByColor, Color, Point};

use super::{From, Record, VariantMove};

/// Which position of a move (or of the start) a position number names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The position after the root setup, before any move.
    Start,
    /// The position after setup found in the middle of the game.
    Setup,
    /// A moving move's position with its stone lifted and not yet put down.
    Intermediate,
    /// The position after a move, captures made.
    Final,
}

impl Stage {
    pub const fn as_str(self) -> &'static str {
        match self {
            Stage::Start => "start",
            Stage::Setup => "setup",
            Stage::Intermediate => "intermediate",
            Stage::Final => "final",
        }
    }
}

/// Where a position came from: the move that created it (`None` for the
/// start and setups before any move) and which of its positions it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    pub move_index: Option<u32>,
    pub stage: Stage,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.move_index {
            None => f.write_str(self.stage.as_str()),
            Some(i) => write!(f, "the {} position of move {}", self.stage.as_str(), i + 1),
        }
    }
}

/// Why a move cannot be put on the board at all (it is skipped).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Impossible {
    /// `MF` is not a point of the board.
    BadFrom,
    /// The move's own `B`/`W` value is not a point of the board.
    BadTarget,
    /// `MF` names a point without a stone of the mover.
    NotOwnStone,
    /// The target point holds a stone (after the lift, for a moving move).
    Occupied,
}

impl Impossible {
    pub const fn as_str(self) -> &'static str {
        match self {
            Impossible::BadFrom => "bad_from",
            Impossible::BadTarget => "bad_target",
            Impossible::NotOwnStone => "not_own_stone",
            Impossible::Occupied => "occupied",
        }
    }
}

/// Why a move is illegal under the variant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Illegal {
    /// Skipped: see [`Impossible`].
    Impossible(Impossible),
    /// The move left its own chain without liberties (forbidden; a lone
    /// stone's suicide also recreates the position before it, the seed's
    /// 停滞).
    Suicide,
    /// The position `stage` of this move equals `earlier` (禁止使棋局倒退).
    Repeats { stage: Stage, earlier: Origin },
}

impl std::fmt::Display for Illegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Illegal::Impossible(why) => write!(f, "impossible move ({})", why.as_str()),
            Illegal::Suicide => f.write_str("suicide"),
            Illegal::Repeats { stage, earlier } => {
                write!(f, "its {} position repeats {earlier}", stage.as_str())
            }
        }
    }
}

/// One illegal move: its index in [`Game::moves`] and why.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IllegalMove {
    pub move_index: u32,
    pub why: Illegal,
}

/// How a record fares under the variant's legality (the family
/// [`super::FAMILY`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VariantVerdict {
    pub first_illegal: Option<IllegalMove>,
    pub illegal_moves: u32,
}

impl VariantVerdict {
    pub const fn is_legal(&self) -> bool {
        self.illegal_moves == 0
    }
}

/// What a 大解放 replay counts (RULES.md section 6). Stones are conserved:
/// for each colour, stones from the bowl (`setup_stones + placed +
/// placed_off`) = `on_board + beside + captures[other] + suicided +
/// setup_removed` ([`Accounting::is_conserved`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Accounting {
    /// Stones put by setup (`AB`/`AW`).
    pub setup_stones: ByColor<u32>,
    /// Stones taken off by setup (`AE`, overwritten, or without liberty).
    pub setup_removed: ByColor<u32>,
    /// 下子实着: stones from the bowl put on the board.
    pub placed: ByColor<u32>,
    /// 下子虚着: stones from the bowl put beside the board.
    pub placed_off: ByColor<u32>,
    /// 移子实着: stones moved from point to point.
    pub moved: ByColor<u32>,
    /// 移子虚着: stones moved from the board to beside it.
    pub moved_off: ByColor<u32>,
    /// Stones each colour captured.
    pub captures: ByColor<u32>,
    /// Own stones removed by (illegal) suicide.
    pub suicided: ByColor<u32>,
    /// Stones on the board at the end.
    pub on_board: ByColor<u32>,
    /// Stones beside the board at the end (`placed_off + moved_off`).
    pub beside: ByColor<u32>,
    /// Legal moving moves that retook a ko at once: put a stone where the
    /// opponent's last move captured a single stone with a lone stone, and
    /// captured exactly one stone. (A placing move cannot do this legally.)
    pub ko_retakes_by_moving: u32,
    /// Index of the move that made four consecutive 虚着 (四虚终局).
    pub four_xu_end: Option<u32>,
    /// Impossible moves, skipped.
    pub skipped_moves: u32,
    /// Moves in the record.
    pub moves: u32,
    /// Whole-board positions created, the start included.
    pub positions: u32,
}

impl Accounting {
    /// Stones of `color` taken from the bowl: setup, placed on the board or
    /// beside it.
    pub fn from_bowl(&self, color: Color) -> u32 {
        self.setup_stones[color] + self.placed[color] + self.placed_off[color]
    }

    /// `N_X` of RULES.md section 6: stones placed onto the board from the
    /// bowl (setup included; a moving move and a 虚着 place none).
    pub fn placed_on_board(&self) -> ByColor<u32> {
        ByColor::new_with(|c| self.setup_stones[c] + self.placed[c])
    }

    /// 虚着 of either kind by `color`.
    pub fn xu(&self, color: Color) -> u32 {
        self.placed_off[color] + self.moved_off[color]
    }

    /// Whether the game ended by four consecutive 虚着.
    pub const fn ended_by_four_xu(&self) -> bool {
        self.four_xu_end.is_some()
    }

    /// Whether every stone taken from the bowl is accounted for.
    pub fn is_conserved(&self) -> bool {
        Color::ALL.into_iter().all(|c| {
            self.from_bowl(c)
                == self.on_board[c]
                    + self.beside[c]
                    + self.captures[!c]
                    + self.suicided[c]
                    + self.setup_removed[c]
        })
    }
}

/// Everything one variant replay found.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Report {
    pub verdict: VariantVerdict,
    /// Replay's own problems (out of turn, occupied, not own stone,
    /// repetition, suicide, play after the end); the record's other
    /// problems stay in [`Game::problems`].
    pub problems: Problems,
    pub accounting: Accounting,
}

impl Report {
    /// The report as an ordinary [`ReplayReport`], for code that reads one
    /// for every game: no ordinary family judges the record (their verdicts
    /// are empty), placed stones are `N_X` (stones put on the board from the
    /// bowl; there are no stops), passes are 虚着.
    pub fn as_replay_report(&self, to_move: Color) -> ReplayReport {
        let a = &self.accounting;
        let mut acc = PlainAccounting::new(to_move);
        acc.placed_to_first_stop = a.placed_on_board();
        acc.placed_total = a.placed_on_board();
        acc.setup_stones = a.setup_stones;
        acc.setup_removed = a.setup_removed;
        acc.passes = ByColor::new_with(|c| a.xu(c));
        acc.captures = a.captures;
        acc.suicided = a.suicided;
        acc.on_board = a.on_board;
        acc.moves = a.moves;
        acc.skipped_moves = a.skipped_moves;
        ReplayReport {
            legality: Verdicts::default(),
            problems: self.problems,
            accounting: acc,
        }
    }
}

/// Replays variant games one after another, reusing its buffers: a warm
/// replayer allocates nothing per game. Keep one per thread.
#[derive(Clone, Debug)]
pub struct Replayer {
    board: Board,
    history: History,
    /// Per position number: where it came from.
    origins: Vec<Origin>,
    /// Every illegal move of the last game, in order.
    illegal: Vec<IllegalMove>,
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
            origins: Vec::new(),
            illegal: Vec::new(),
        }
    }

    /// The final position of the last game replayed.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Every illegal move of the last game replayed, with why.
    pub fn illegal_moves(&self) -> &[IllegalMove] {
        &self.illegal
    }

    /// Replays every move of `game` (whose variant record is `record`),
    /// never stopping at a problem.
    pub fn replay(&mut self, game: &Game, record: &Record) -> Report {
        self.board.reset(game.size);
        // Two positions per moving move at most, one per setup and the start.
        let expected = 2 * game.moves.len() + game.mid_setups.len() + 1;
        self.history.reset(expected);
        self.origins.clear();
        self.illegal.clear();
        let to_move = game
            .moves
            .first()
            .map(|m| m.color)
            .or(game.first_player)
            .unwrap_or(Color::Black);
        let mut run = Run {
            board: &mut self.board,
            history: &mut self.history,
            origins: &mut self.origins,
            illegal: &mut self.illegal,
            verdict: VariantVerdict::default(),
            problems: Problems::NONE,
            acc: Accounting::default(),
            to_move,
            epoch: 0,
            xu_run: 0,
            ko: None,
        };
        run.setup(&game.setup);
        run.remember(None, Stage::Start);

        let mut lifts = record.lifts.iter().peekable();
        let mut bad = record.bad_targets.iter().peekable();
        let mut mid = game.mid_setups.iter().peekable();
        for (i, mv) in game.moves.iter().enumerate() {
            let i = i as u32;
            while let Some(setup) = mid.next_if(|s| s.before_move as u32 <= i) {
                run.setup(&setup.stones);
                run.new_epoch();
                run.remember(None, Stage::Setup);
            }
            let lift = lifts.next_if(|(at, _)| *at == i).map(|(_, from)| *from);
            let bad_target = bad.next_if(|at| **at == i).is_some();
            if run.acc.four_xu_end.is_some() {
                run.problems.insert(Problem::PlayAfterEnd);
            }
            if mv.color != run.to_move {
                run.problems.insert(Problem::OutOfTurn);
            }
            let c = mv.color;
            let kind = match (bad_target, mv.action, lift) {
                (true, _, _) => Err(Impossible::BadTarget),
                (false, _, Some(From::Bad)) => Err(Impossible::BadFrom),
                (false, Action::Play(p), None) => Ok(VariantMove::Place(p)),
                (false, Action::Pass, None) => Ok(VariantMove::PlaceOff),
                (false, Action::Play(to), Some(From::Point(from))) => {
                    Ok(VariantMove::Move { from, to })
                }
                (false, Action::Pass, Some(From::Point(from))) => Ok(VariantMove::MoveOff { from }),
            };
            match kind {
                Ok(m) => run.step(i, c, m),
                Err(why) => run.impossible(i, why),
            }
            run.to_move = !c;
        }
        for setup in mid {
            run.setup(&setup.stones);
            run.new_epoch();
            run.remember(None, Stage::Setup);
        }
        let mut acc = run.acc;
        acc.moves = game.moves.len() as u32;
        acc.on_board = run.board.stone_counts();
        acc.positions = run.origins.len() as u32;
        Report {
            verdict: run.verdict,
            problems: run.problems,
            accounting: acc,
        }
    }
}

/// State of one replay.
struct Run<'r> {
    board: &'r mut Board,
    history: &'r mut History,
    origins: &'r mut Vec<Origin>,
    illegal: &'r mut Vec<IllegalMove>,
    verdict: VariantVerdict,
    problems: Problems,
    acc: Accounting,
    to_move: Color,
    /// First position number of the current epoch (since the last 虚着).
    epoch: u32,
    /// Consecutive 虚着 so far.
    xu_run: u32,
    /// Where the side to move could retake a ko at once, and who that is.
    ko: Option<(Point, Color)>,
}

impl Run<'_> {
    /// Notes the board as a new position; returns the earlier position it
    /// repeats in the current epoch, if any.
    #[inline]
    fn remember(&mut self, move_index: Option<u32>, stage: Stage) -> Option<Origin> {
        let number = self.origins.len() as u32;
        // One side-to-move slot: the variant's positions are positional.
        let seen = self.history.record(self.board.hash(), Color::Black, number)[0];
        self.origins.push(Origin { move_index, stage });
        (seen > self.epoch).then(|| self.origins[seen as usize - 1])
    }

    /// Every earlier position is out of reach from here on (a 虚着 put one
    /// more stone beside the board, or setup edited the position).
    fn new_epoch(&mut self) {
        self.epoch = self.origins.len() as u32;
    }

    fn illegal(&mut self, move_index: u32, why: Illegal) {
        let m = IllegalMove { move_index, why };
        self.verdict.illegal_moves += 1;
        self.verdict.first_illegal.get_or_insert(m);
        self.illegal.push(m);
        self.problems.insert(match why {
            Illegal::Impossible(Impossible::NotOwnStone) => Problem::NotOwnStone,
            Illegal::Impossible(Impossible::Occupied) => Problem::Occupied,
            // The game builder flagged these when it read the values.
            Illegal::Impossible(Impossible::BadFrom) => Problem::BadMoveFrom,
            Illegal::Impossible(Impossible::BadTarget) => Problem::BadCoordinate,
            Illegal::Suicide => Problem::Suicide,
            Illegal::Repeats { .. } => Problem::Repetition,
        });
    }

    /// A move that cannot be put on the board: skipped, no position
    /// created. It is no 虚着 and breaks a run of them.
    fn impossible(&mut self, i: u32, why: Impossible) {
        self.acc.skipped_moves += 1;
        self.xu_run = 0;
        self.ko = None;
        self.illegal(i, Illegal::Impossible(why));
    }

    fn setup(&mut self, stones: &[SetupStone]) {
        for s in stones {
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
            }
        }
        let put = stones.iter().filter(|s| s.color.is_some()).map(|s| s.point);
        let removed = self.board.remove_chains_without_liberties_near(put);
        if removed.black + removed.white > 0 {
            self.problems.insert(Problem::SetupNoLiberty);
            for c in Color::ALL {
                self.acc.setup_removed[c] += removed[c];
            }
        }
        self.ko = None;
    }

    #[inline]
    fn step(&mut self, i: u32, c: Color, m: VariantMove) {
        let ko = self.ko.take();
        // Checked before anything changes: an impossible move leaves no trace.
        match m {
            VariantMove::Place(p) if self.board.get(p).is_some() => {
                return self.impossible(i, Impossible::Occupied);
            }
            VariantMove::Move { from, .. } | VariantMove::MoveOff { from }
                if self.board.get(from) != Some(c) =>
            {
                return self.impossible(i, Impossible::NotOwnStone);
            }
            VariantMove::Move { from, to } if from != to && self.board.get(to).is_some() => {
                return self.impossible(i, Impossible::Occupied);
            }
            _ => {}
        }
        let mut why: Option<Illegal> = None;
        if let VariantMove::Move { from, .. } | VariantMove::MoveOff { from } = m {
            let _ = self.board.set(from, None);
            if let Some(earlier) = self.remember(Some(i), Stage::Intermediate) {
                why = Some(Illegal::Repeats {
                    stage: Stage::Intermediate,
                    earlier,
                });
            }
        }
        match m {
            VariantMove::PlaceOff | VariantMove::MoveOff { .. } => {
                if matches!(m, VariantMove::PlaceOff) {
                    self.acc.placed_off[c] += 1;
                } else {
                    self.acc.moved_off[c] += 1;
                }
                self.acc.beside[c] += 1;
                self.new_epoch();
                // One more stone beside the board: new by construction.
                self.remember(Some(i), Stage::Final);
                self.xu_run += 1;
                if self.xu_run == 4 && self.acc.four_xu_end.is_none() {
                    self.acc.four_xu_end = Some(i);
                }
            }
            VariantMove::Place(p) | VariantMove::Move { to: p, .. } => {
                self.xu_run = 0;
                let out = match self.board.play(c, p) {
                    Ok(out) => out,
                    Err(_) => unreachable!("the target was checked empty and on the board"),
                };
                if matches!(m, VariantMove::Place(_)) {
                    self.acc.placed[c] += 1;
                } else {
                    self.acc.moved[c] += 1;
                }
                self.acc.captures[c] += out.captured;
                self.acc.suicided[c] += out.suicided;
                self.ko = out.ko.map(|q| (q, !c));
                let repeats = self.remember(Some(i), Stage::Final);
                if out.is_suicide() {
                    why = Some(Illegal::Suicide);
                } else if why.is_none() {
                    why = repeats.map(|earlier| Illegal::Repeats {
                        stage: Stage::Final,
                        earlier,
                    });
                }
                let retake = ko == Some((p, c)) && out.captured == 1;
                if retake && m.is_moving() && why.is_none() {
                    self.acc.ko_retakes_by_moving += 1;
                }
            }
        }
        if let Some(why) = why {
            self.illegal(i, why);
        }
    }
}
