//! The 大解放 ("great liberation") variant of seed 003, as RULES.md section 6
//! specifies it: a player may also *move* one of their own stones, to a point
//! or off the board; every position a move creates (two for a moving move)
//! must be new, stones put beside the board included; four consecutive 虚着
//! end the game.
//!
//! A record is a variant game when `RU` names it (`RU[Dajiefang]` in any
//! case, `RU[大解放]`), or when any move carries `MF` (then the game is
//! flagged [`Problem::VariantInferred`](crate::problem::Problem::VariantInferred)). [`crate::game::Game::from_sgf`]
//! reads the convention into a [`Record`]; [`Replayer`] replays it under the
//! variant's own legality, reported as the one family [`FAMILY`]; the
//! ordinary families of [`crate::replay`] are never applied to it, because
//! the variant's positions are not theirs (stones beside the board count, and
//! a moving move creates two).
//!
//! # The SGF convention (verdict's; no standard exists)
//!
//! | record | move |
//! |---|---|
//! | `B[pt]` | 下子实着: a stone from the bowl on `pt` |
//! | `B[]` (or `B[tt]` up to 19x19) | 下子虚着: a stone from the bowl beside the board |
//! | `B[pt]MF[from]` | 移子实着: Black's stone on `from` moved to `pt` |
//! | `B[]MF[from]` | 移子虚着: Black's stone on `from` moved beside the board |
//!
//! # Examples
//!
//! The worked example of RULES.md section 6: a ko retaken by a moving move.
//!
//! ```
//! use verdict_rules::game::Game;
//! use verdict_rules::sgf::Reader;
//! use verdict_rules::dajiefang::Replayer;
//!
//! let text = "(;SZ[9]RU[Dajiefang]AB[ee][fe][ff][eg]AW[de][cf][ef][cg][dg]PL[B]\
//!             ;B[df];W[ef]MF[cg];B[df]MF[fe])";
//! let sgf = Reader::new(text.as_bytes()).next().unwrap();
//! let game = Game::from_sgf(&sgf, text.as_bytes())?;
//! let record = game.dajiefang.as_ref().expect("RU names the variant");
//! let report = Replayer::new().replay(&game, record);
//! assert!(report.verdict.is_legal());
//! assert_eq!(report.accounting.ko_retakes_by_moving, 2);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod play;
mod replay;
pub mod selfplay;

pub use play::VariantMove;
pub use replay::{
    Accounting, Illegal, IllegalMove, Impossible, Origin, Replayer, Report, Stage, VariantVerdict,
};

use crate::info::GameInfo;
use crate::{BoardSize, Point};

/// The family name of the variant's legality, beside the ordinary families
/// of [`crate::replay::Legality::id`] (a public contract: report keys and
/// the `first_illegal_dajiefang` column).
pub const FAMILY: &str = "dajiefang";

/// The `MF` value of a moving move, as the record gives it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum From {
    /// A point of the board.
    Point(Point),
    /// Malformed, empty, or off the board: the move is impossible.
    Bad,
}

impl From {
    /// Reads an `MF` value on a board of `size`.
    pub fn read(raw: &[u8], size: BoardSize) -> From {
        match crate::sgf::parse_point(raw.trim_ascii()) {
            Some(p) if size.contains(p) => From::Point(p),
            _ => From::Bad,
        }
    }
}

/// What a 大解放 record adds to an ordinary [`crate::game::Game`]: the `MF`
/// of its moving moves and the moves whose own value was unreadable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// No `RU` names the variant: `MF` alone made the game one.
    pub inferred: bool,
    /// `(move index, MF)` of every moving move, in move order.
    pub lifts: Vec<(u32, From)>,
    /// Indices of moves whose `B`/`W` value was malformed or off the board:
    /// an ordinary record reads them as passes, the variant (which has no
    /// pass) as impossible moves.
    pub bad_targets: Vec<u32>,
}

impl Record {
    /// The variant record of a game, if it is one: `RU` names the variant,
    /// or some node carries `MF` (`stray_mf`: on a node without a move).
    pub fn detect(
        info: &GameInfo<'_>,
        lifts: Vec<(u32, From)>,
        bad_targets: Vec<u32>,
        stray_mf: bool,
    ) -> Option<Record> {
        let named = info.raw.ru.is_some_and(|raw| names_variant(raw, info));
        if !named && lifts.is_empty() && !stray_mf {
            return None;
        }
        Some(Record {
            inferred: !named,
            lifts,
            bad_targets,
        })
    }
}

/// Whether an `RU` value names 大解放: `Dajiefang` in any case (spaces,
/// hyphens and underscores ignored), or `大解放`, anywhere in the value.
fn names_variant(raw: &[u8], info: &GameInfo<'_>) -> bool {
    let text = if raw.is_ascii() {
        std::borrow::Cow::Borrowed(std::str::from_utf8(raw).unwrap_or(""))
    } else {
        crate::text::decode_text(raw, info.encoding())
    };
    let key: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    key.contains("dajiefang") || key.contains("大解放")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::problem::Problem;
    use crate::sgf::Reader;

    fn game(text: &str) -> Game<'_> {
        let sgf = Reader::new(text.as_bytes()).next().expect("one game");
        Game::from_sgf(&sgf, text.as_bytes()).expect("replayable")
    }

    #[test]
    fn ru_names_the_variant_in_any_case_and_in_chinese() {
        for ru in [
            "Dajiefang",
            "DAJIEFANG",
            "dajiefang",
            "Da Jie Fang",
            "大解放",
            "大解放围棋规则",
        ] {
            let text = format!("(;SZ[9]RU[{ru}];B[ee])");
            let g = game(&text);
            let record = g.dajiefang.as_ref().unwrap_or_else(|| panic!("{ru}"));
            assert!(!record.inferred, "{ru}");
            assert!(!g.problems.contains(Problem::VariantInferred));
        }
        assert!(game("(;SZ[9]RU[Japanese];B[ee])").dajiefang.is_none());
        assert!(game("(;SZ[9];B[ee])").dajiefang.is_none());
    }

    #[test]
    fn mf_alone_makes_a_variant_record_and_is_flagged() {
        let g = game("(;SZ[9]RU[Chinese];B[ee];W[cc];B[ef]MF[ee])");
        let record = g.dajiefang.expect("MF makes it a variant");
        assert!(record.inferred);
        assert!(g.problems.contains(Problem::VariantInferred));
        assert!(Problem::VariantInferred.is_informational());
        assert_eq!(
            record.lifts,
            vec![(2, From::Point(Point::new(4, 4).unwrap()))]
        );
    }

    #[test]
    fn bad_mf_and_bad_targets_are_recorded() {
        let g = game("(;SZ[9]RU[Dajiefang];B[ee];W[zz];B[ef]MF[z];W[]MF[];B[cc]MF[jj])");
        let record = g.dajiefang.expect("variant");
        assert_eq!(record.bad_targets, vec![1]);
        assert_eq!(
            record.lifts,
            vec![(2, From::Bad), (3, From::Bad), (4, From::Bad)]
        );
        assert!(g.problems.contains(Problem::BadMoveFrom));
        // MF on a node without a move: the game is still a variant, flagged.
        let g = game("(;SZ[9];B[ee];MF[ee])");
        assert!(g.dajiefang.is_some());
        assert!(g.problems.contains(Problem::BadMoveFrom));
    }
}
