//! Go rules for verdict: read SGF, replay games under every rule family, and
//! (later) settle and score them. Pure: no I/O, no async, no threads, so that
//! anyone scoring one game can use it on its own.
#![warn(missing_debug_implementations)]

mod color;
mod moves;
mod point;
pub mod problem;

pub mod analyse;
pub mod board;
pub mod dajiefang;
pub mod game;
pub mod info;
pub mod life;
pub mod replay;
pub mod score;
pub mod settle;
pub mod sgf;
pub mod text;

pub use color::{ByColor, Color};
pub use moves::{Action, Move};
pub use point::{BoardSize, Point, SizeError, MAX_SIZE};
pub use problem::{Problem, Problems};
