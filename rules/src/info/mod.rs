//! Game metadata: the root's game-info properties, as raw bytes and as types.
//!
//! Raw values are kept (escapes and original encoding included) so that
//! nothing is lost and nothing is decoded unless asked for; the few values
//! verdict computes with — result, komi, handicap, rules, year — are parsed
//! once, when the game is built. Text is decoded lazily in the game's
//! encoding (see [`crate::text`]).
//!
//! # Conventions learnt from the corpora
//!
//! * **Komi** `|KM| >= 100` is hundredths (fox: `KM[650]`, `KM[375]`). KGS
//!   legitimately writes komi down to `KM[-99.50]`, and fox's smallest
//!   non-zero value is `325`, so 100 separates the two with room on both
//!   sides. After that, a quarter fraction (`.25`/`.75`) means stones (fox
//!   `KM[375]` and `KM[325]` go with `RU[Chinese]` only), doubled to points.
//! * **Results** with a quarter fraction are in stones: fox Chinese-rule
//!   games write `RE[B+2.75]` beside a comment saying Black won by 5 points
//!   (黑5点胜). A one-decimal `.2`/`.7` is a quarter cut short (`RE[W+3.2]`
//!   beside 白胜3又1/4子), read as `.25`/`.75` stones.
//! * **Margins that cannot be margins**: fox writes `B+0.0`, `W+0.02`,
//!   `W+0.03` on games that stop in mid-game with no passes. The winner is
//!   kept, the margin is not ([`WinBy::Unspecified`]) and
//!   [`Problem::BadResult`](crate::problem::Problem::BadResult) is raised.
//!
//! One file per kind of value: [`GameInfo`] and its raw properties
//! (`game`), results (`result`), komi (`komi`), rules (`rules`), handicap
//! and year (`handicap`), and the small lexer results and komi share
//! (`lex`).

mod game;
mod handicap;
mod komi;
mod lex;
mod result;
mod rules;

pub use game::{GameInfo, RawInfo};
pub use handicap::{parse_handicap, parse_year};
pub use komi::{Komi, KomiScale, ParseKomiError};
pub use result::{GameResult, ParseResultError, WinBy};
pub use rules::{HandicapBonus, KataGoKoRule, KataGoRules, Rules, ScoringRule, TaxRule};
