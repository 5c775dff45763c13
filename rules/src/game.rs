//! From a main line of SGF nodes to a typed [`Game`]: size, metadata, setup,
//! moves, handicap, final territory marks.
//!
//! A `Game` is the unchecked input of replay (like shakmaty's `Setup`): every
//! move the record holds is here, legal or not. Only [`crate::replay`] decides
//! what the moves mean on a board.

use crate::info::GameInfo;
use crate::problem::Problems;
use crate::{BoardSize, ByColor, Color, Move, Point};

/// A setup instruction: put a stone of `color` on `point`, or clear it (`None`, SGF `AE`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SetupStone {
    pub point: Point,
    pub color: Option<Color>,
}

/// Setup found after the first move (`AB`/`AW`/`AE` in the middle of a game).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MidSetup {
    /// Index into [`Game::moves`] of the first move played after this setup.
    pub before_move: usize,
    pub stones: Vec<SetupStone>,
}

/// Where the handicap count came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HandicapSource {
    /// No handicap: fewer than two handicap stones in any form.
    None,
    /// `HA` on the root, confirmed or not by stones.
    Declared,
    /// Black setup stones before the first move, no White ones.
    Setup,
    /// A run of Black moves opening the game (White passing or not between them).
    OpeningMoves,
}

/// The handicap as verdict understands it: the number of handicap stones
/// (`0` when there is none; one stone is no handicap).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Handicap {
    pub stones: u8,
    pub source: HandicapSource,
    /// For [`HandicapSource::OpeningMoves`]: how many leading moves (Black
    /// stones and the White passes between them) make up the placement.
    pub opening_moves: u16,
}

impl Handicap {
    pub const NONE: Handicap = Handicap {
        stones: 0,
        source: HandicapSource::None,
        opening_moves: 0,
    };
}

/// One game of a record, borrowed from the input bytes.
#[derive(Clone, Debug)]
pub struct Game<'a> {
    pub size: BoardSize,
    pub info: GameInfo<'a>,
    /// `PL` at the root, if given.
    pub first_player: Option<Color>,
    /// Setup before the first move (root, and nodes before any move).
    pub setup: Vec<SetupStone>,
    /// Main-line moves, `tt` passes already read as passes.
    pub moves: Vec<Move>,
    pub mid_setups: Vec<MidSetup>,
    pub handicap: Handicap,
    /// Territory marks (`TB`/`TW`) of the final node, or of the last nodes
    /// after the final move, if the record has any.
    pub territory_marks: Option<ByColor<Vec<Point>>>,
    /// Subtrees the reader skipped.
    pub variations: u32,
    /// Everything the reader and the game builder found wrong.
    pub problems: Problems,
}
