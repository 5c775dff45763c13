//! Go rules for verdict: read SGF, replay games under every rule family,
//! settle the final position (dead stones, seki, fills) and score it under
//! every rule set of RULES.md. Pure: no I/O, no async, no threads, so that
//! anyone scoring one game can use it on its own.
//!
//! Scoring one game takes a reader, a [`game::Game`] and an
//! [`analyse::Analyser`]:
//!
//! ```
//! use verdict_rules::analyse::{Analyser, KomiPolicy, SelfCheck};
//! use verdict_rules::game::Game;
//! use verdict_rules::score::{RuleSet, Winner};
//! use verdict_rules::sgf::Reader;
//!
//! // 5x5: Black walls off the two left columns, White the two right ones,
//! // the middle column is dame; both pass.
//! let record = b"(;GM[1]FF[4]SZ[5]KM[0.5]RU[Chinese]RE[W+0.5]\
//!     ;B[ba];W[da];B[bb];W[db];B[bc];W[dc];B[bd];W[dd];B[be];W[de];B[];W[])";
//! let sgf = Reader::new(record).next().expect("one game tree");
//! let game = Game::from_sgf(&sgf, record).expect("a game of Go");
//! let analysis = Analyser::new().analyse(&game, KomiPolicy::Game);
//!
//! let chinese = analysis
//!     .verdicts
//!     .iter()
//!     .find(|v| v.rule_set == RuleSet::Chinese)
//!     .unwrap();
//! assert_eq!(chinese.margin_before_komi, 0); // 10 points of area each
//! assert_eq!(chinese.winner, Winner::White); // by the half point of komi
//! // The record's own result, recomputed under its own rules, agrees.
//! assert!(matches!(analysis.self_check, SelfCheck::Agrees { .. }));
//! ```
#![warn(missing_debug_implementations)]

mod color;
mod moves;
mod point;
pub mod problem;

pub mod analyse;
pub mod board;
pub mod dajiefang;
pub mod diagram;
pub mod game;
pub mod info;
pub mod life;
pub mod outcome;
pub mod replay;
pub mod rng;
pub mod score;
pub mod selfplay;
pub mod settle;
pub mod sgf;
pub mod text;

pub use color::{ByColor, Color};
pub use moves::{Action, Move};
pub use point::{BoardSize, Point, SizeError, MAX_SIZE};
pub use problem::{Problem, Problems};
