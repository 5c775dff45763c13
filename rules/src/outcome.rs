//! What a record says about how its game ended, whether verdict scores it,
//! what result it claims, and the identity of its play.
//!
//! These are decisions about one game, not about a corpus: they live here so
//! that a corpus row, `verdict score` and any other caller decide them the
//! same way, from the record and its replay alone.

use crate::analyse::Replayed;
use crate::game::Game;
use crate::info::{GameResult, WinBy};
use crate::score::Winner;
use crate::Action;

/// How a game ended, as far as the record says. The snake_case names from
/// [`HowEnded::as_str`] are a public contract (the `how_ended` column).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HowEnded {
    /// The result is a margin in points, or a draw.
    Counted,
    Resign,
    Time,
    Forfeit,
    /// A referee's decision (`B+J`).
    Referee,
    /// `Void`: the game does not count.
    Void,
    /// No result that says how, and the record ends in a stop.
    TwoPasses,
    /// No result that says how, and a 大解放 game ended by four
    /// consecutive 虚着 (RULES.md section 6).
    FourXu,
    /// Anything else: no result, or a winner without a reason, and no end
    /// on the board.
    Unfinished,
}

impl HowEnded {
    pub const ALL: [HowEnded; 9] = [
        HowEnded::Counted,
        HowEnded::Resign,
        HowEnded::Time,
        HowEnded::Forfeit,
        HowEnded::Referee,
        HowEnded::Void,
        HowEnded::TwoPasses,
        HowEnded::FourXu,
        HowEnded::Unfinished,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            HowEnded::Counted => "counted",
            HowEnded::Resign => "resign",
            HowEnded::Time => "time",
            HowEnded::Forfeit => "forfeit",
            HowEnded::Referee => "referee",
            HowEnded::Void => "void",
            HowEnded::TwoPasses => "two_passes",
            HowEnded::FourXu => "four_xu",
            HowEnded::Unfinished => "unfinished",
        }
    }

    /// The value [`HowEnded::as_str`] names.
    pub fn from_id(id: &str) -> Option<HowEnded> {
        HowEnded::ALL.into_iter().find(|h| h.as_str() == id)
    }
}

impl std::fmt::Display for HowEnded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a game ended, and what on the board says it ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// What the record's result says, or else the board.
    pub how: HowEnded,
    /// The record's last move completes a stop (two consecutive passes).
    pub in_stop: bool,
    /// A 大解放 game ended by four consecutive 虚着.
    pub four_xu: bool,
}

impl Ending {
    /// The ending of a game whose record claims `result`: the result says
    /// how when it can (a resigned game that the players then passed out is
    /// still `resign`); otherwise the board does.
    pub fn new(result: &GameResult, in_stop: bool, four_xu: bool) -> Ending {
        let how = match result {
            GameResult::Win {
                by: WinBy::Points(_),
                ..
            }
            | GameResult::Draw => HowEnded::Counted,
            GameResult::Win {
                by: WinBy::Resign, ..
            } => HowEnded::Resign,
            GameResult::Win {
                by: WinBy::Time, ..
            } => HowEnded::Time,
            GameResult::Win {
                by: WinBy::Forfeit, ..
            } => HowEnded::Forfeit,
            GameResult::Win {
                by: WinBy::Referee, ..
            } => HowEnded::Referee,
            GameResult::Void => HowEnded::Void,
            _ if in_stop => HowEnded::TwoPasses,
            _ if four_xu => HowEnded::FourXu,
            _ => HowEnded::Unfinished,
        };
        Ending {
            how,
            in_stop,
            four_xu,
        }
    }

    /// The ending of `game`, from its record and its replay (`replayed`
    /// must be this game's, from [`crate::analyse::Analyser::replayed`]).
    pub fn of(game: &Game<'_>, replayed: &Replayed) -> Ending {
        let acc = &replayed.report().accounting;
        let in_stop = acc.last_stop.is_some_and(|s| s + 1 >= acc.moves);
        let four_xu = replayed
            .variant()
            .is_some_and(|v| v.accounting.ended_by_four_xu());
        Ending::new(&game.info.result, in_stop, four_xu)
    }

    /// Whether the final position is one the players agreed to count: the
    /// record ends in a stop or in four 虚着, or its result is a count.
    /// Other games (resigned, timed out, cut short) are not scored unless
    /// a caller asks for estimates.
    pub const fn scorable(&self) -> bool {
        self.in_stop || self.four_xu || matches!(self.how, HowEnded::Counted)
    }
}

/// Who the record's result says won: a colour, [`Winner::Draw`], or None
/// when it names nobody (void, unknown, missing).
pub fn recorded_winner(result: &GameResult) -> Option<Winner> {
    match result {
        GameResult::Win { winner, .. } => Some(winner.fold(Winner::Black, Winner::White)),
        GameResult::Draw => Some(Winner::Draw),
        _ => None,
    }
}

/// The record's numeric result as Black's margin in points (negative: White
/// won), if it has one: a counted win or a draw.
pub fn recorded_margin(result: &GameResult) -> Option<f64> {
    result.black_margin()
}

/// A stable 64-bit identity of a game's play: FNV-1a over the board size,
/// the initial setup (sorted) and the moves, not the metadata, so the same
/// game copied into two corpora under other names hashes the same. Written
/// as 16 hex digits (`{:016x}`) in the `game_hash` column.
pub fn game_hash(game: &Game<'_>) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(PRIME);
    };
    eat(game.size.width());
    eat(game.size.height());
    let mut setup: Vec<(u8, u8, u8)> = game
        .setup
        .iter()
        .map(|s| {
            (
                s.point.y(),
                s.point.x(),
                s.color.map_or(0, |c| c.index() as u8 + 1),
            )
        })
        .collect();
    setup.sort_unstable();
    for (y, x, c) in setup {
        eat(b'S');
        eat(c);
        eat(x);
        eat(y);
    }
    for m in &game.moves {
        eat(m.color.letter() as u8);
        match m.action {
            Action::Play(p) => {
                eat(p.x());
                eat(p.y());
            }
            Action::Pass => {
                eat(255);
                eat(255);
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::Analyser;
    use crate::sgf::Reader;

    fn with_game<T>(record: &str, f: impl FnOnce(&Game<'_>) -> T) -> T {
        let sgf = Reader::new(record.as_bytes()).next().expect("one tree");
        let game = Game::from_sgf(&sgf, record.as_bytes()).expect("a game");
        f(&game)
    }

    fn ending(record: &str) -> Ending {
        with_game(record, |game| {
            let replayed = Analyser::new().replayed(game);
            Ending::of(game, &replayed)
        })
    }

    #[test]
    fn the_result_says_how_a_game_ended_before_the_board_does() {
        for (re, how) in [
            ("B+3.5", HowEnded::Counted),
            ("0", HowEnded::Counted),
            ("W+R", HowEnded::Resign),
            ("B+T", HowEnded::Time),
            ("W+F", HowEnded::Forfeit),
            ("B+J", HowEnded::Referee),
            ("Void", HowEnded::Void),
        ] {
            // Passed out or not, the result decides.
            for moves in [";B[aa];W[bb]", ";B[aa];W[bb];B[];W[]"] {
                let e = ending(&format!("(;SZ[5]RE[{re}]{moves})"));
                assert_eq!(e.how, how, "RE[{re}]{moves}");
            }
        }
    }

    #[test]
    fn without_a_reason_the_board_says_how_a_game_ended() {
        for re in ["", "RE[?]", "RE[B+]"] {
            let e = ending(&format!("(;SZ[5]{re};B[aa];W[bb];B[];W[])"));
            assert_eq!((e.how, e.in_stop), (HowEnded::TwoPasses, true), "{re}");
            let e = ending(&format!("(;SZ[5]{re};B[aa];W[bb])"));
            assert_eq!((e.how, e.in_stop), (HowEnded::Unfinished, false), "{re}");
            // A stone after the stop: the record does not end in one.
            let e = ending(&format!("(;SZ[5]{re};B[aa];W[];B[];W[bb])"));
            assert_eq!((e.how, e.in_stop), (HowEnded::Unfinished, false), "{re}");
        }
    }

    #[test]
    fn four_xu_end_a_dajiefang_game() {
        let e = ending("(;SZ[5]RU[Dajiefang];B[cc];W[dd];B[];W[];B[]MF[cc];W[])");
        assert_eq!(
            e,
            Ending {
                how: HowEnded::FourXu,
                in_stop: false,
                four_xu: true
            }
        );
        assert!(e.scorable());
        // Three are not an end.
        let e = ending("(;SZ[5]RU[Dajiefang];B[cc];W[];B[];W[])");
        assert_eq!(e.how, HowEnded::Unfinished);
        assert!(!e.scorable());
        // A resignation after four 虚着 is still the record's word.
        let e = ending("(;SZ[5]RU[Dajiefang]RE[W+R];B[cc];W[dd];B[];W[];B[]MF[cc];W[])");
        assert_eq!(e.how, HowEnded::Resign);
        assert!(e.scorable(), "the board ended in four 虚着");
    }

    #[test]
    fn games_are_scorable_when_counted_or_passed_out() {
        let scorable = |r: &str| ending(r).scorable();
        assert!(
            scorable("(;SZ[5]RE[W+0.5];B[aa];W[bb])"),
            "a counted result"
        );
        assert!(scorable("(;SZ[5]RE[0];B[aa];W[bb])"), "a draw");
        assert!(scorable("(;SZ[5];B[aa];W[bb];B[];W[])"), "two passes");
        assert!(
            scorable("(;SZ[5]RE[B+R];B[aa];W[bb];B[];W[])"),
            "resigned, but passed out"
        );
        assert!(!scorable("(;SZ[5]RE[B+R];B[aa];W[bb])"), "resigned");
        assert!(!scorable("(;SZ[5]RE[W+T];B[aa];W[bb];B[])"), "one pass");
        assert!(!scorable("(;SZ[5];B[aa];W[bb])"), "cut short");
    }

    #[test]
    fn how_ended_names_round_trip() {
        let mut names: Vec<&str> = HowEnded::ALL.iter().map(|h| h.as_str()).collect();
        for h in HowEnded::ALL {
            assert_eq!(HowEnded::from_id(h.as_str()), Some(h));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), HowEnded::ALL.len());
        assert_eq!(HowEnded::from_id("unknown"), None);
    }

    #[test]
    fn the_recorded_result_is_read_from_black_s_view() {
        let read = |re: &str| {
            with_game(&format!("(;SZ[5]RE[{re}])"), |g| {
                (
                    recorded_winner(&g.info.result),
                    recorded_margin(&g.info.result),
                )
            })
        };
        assert_eq!(read("B+3.5"), (Some(Winner::Black), Some(3.5)));
        assert_eq!(read("W+0.5"), (Some(Winner::White), Some(-0.5)));
        assert_eq!(read("0"), (Some(Winner::Draw), Some(0.0)));
        assert_eq!(read("W+R"), (Some(Winner::White), None));
        assert_eq!(read("Void"), (None, None));
        assert_eq!(read("?"), (None, None));
    }

    #[test]
    fn the_game_hash_is_the_play_not_the_metadata() {
        let hash = |r: &str| with_game(r, game_hash);
        let plain = hash("(;SZ[9];B[cc];W[gg];B[])");
        assert_eq!(
            plain,
            hash("(;GM[1]SZ[9]PB[Someone]PW[Else]KM[6.5]RE[B+R];B[cc];W[gg];B[])"),
            "metadata is not play"
        );
        assert_ne!(plain, hash("(;SZ[9];B[cc];W[gh];B[])"), "another move");
        assert_ne!(plain, hash("(;SZ[9];B[cc];W[gg])"), "one move fewer");
        assert_ne!(plain, hash("(;SZ[13];B[cc];W[gg];B[])"), "another board");
        // Setup is a set: the order it is written in does not matter.
        assert_eq!(
            hash("(;SZ[9]AB[cc][gg]AW[ee];W[dd])"),
            hash("(;SZ[9]AW[ee]AB[gg][cc];W[dd])")
        );
        assert_ne!(
            hash("(;SZ[9]AB[cc][gg]AW[ee];W[dd])"),
            hash("(;SZ[9]AB[cc][ee]AW[gg];W[dd])")
        );
        // FNV-1a of the bytes 9, 9, then each move's colour letter and
        // coordinates (a pass as 255, 255): pinned, since `game_hash`
        // columns of earlier runs must keep matching.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in [9u8, 9, b'B', 2, 2, b'W', 6, 6, b'B', 255, 255] {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert_eq!(plain, h);
    }
}
