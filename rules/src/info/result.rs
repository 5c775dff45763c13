//! Results: the record's claimed result (`RE`).

use std::fmt;
use std::str::FromStr;

use encoding_rs::Encoding;

use super::lex::{
    is_multiple_of_quarter, is_quarter, lex, normalise, Number, Tok, Unit, MAX_POINTS,
};
use crate::text;
use crate::Color;

/// A game's claimed result (`RE`), in points.
///
/// Kept apart from any score verdict computes: this is what the record
/// says, right or wrong.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum GameResult {
    Win {
        winner: Color,
        by: WinBy,
        /// The record gave the margin in stones (Chinese counting); the
        /// margin in [`WinBy::Points`] is doubled. Always `false` otherwise.
        scaled: bool,
    },
    /// `0`, `Draw`, `Jigo`, 和棋, 持碁, 무승부.
    Draw,
    /// No result: the game does not count (`Void`, 無勝負).
    Void,
    /// `?`: the result is unknown; also what unreadable results become.
    Unknown,
    /// No `RE` at all, or an empty one.
    #[default]
    Missing,
}

/// How a game was won.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum WinBy {
    /// A counted margin in points, normalised (see `scaled` on
    /// [`GameResult::Win`]).
    Points(f64),
    Resign,
    Time,
    /// Forfeit, including `Offline` (Tygem) and `V` (a violation, NNGS).
    Forfeit,
    /// A referee's decision: `B+J`, `W+AW` (adjudicated win).
    Referee,
    /// A winner with no reason: `B`, `B+`, 黑胜, or a margin that cannot be one.
    Unspecified,
}

/// A result that could not be read. `partial` is what could be: the winner
/// when the side was clear (`B+0.02` gives Black, unspecified), else
/// [`GameResult::Unknown`].
#[derive(Copy, Clone, Debug, PartialEq, thiserror::Error)]
#[error("unreadable game result")]
pub struct ParseResultError {
    pub partial: GameResult,
}

impl GameResult {
    /// Reads a raw `RE` value, decoding it with `enc` first if it is not
    /// ASCII.
    pub fn from_raw(raw: &[u8], enc: &'static Encoding) -> Result<GameResult, ParseResultError> {
        text::decode_text(raw, enc).parse()
    }

    /// The winner, if there is one.
    pub fn winner(&self) -> Option<Color> {
        match self {
            GameResult::Win { winner, .. } => Some(*winner),
            _ => None,
        }
    }

    /// The margin for Black in points (negative when White won), for counted
    /// results and draws.
    pub fn black_margin(&self) -> Option<f64> {
        match self {
            GameResult::Win {
                winner,
                by: WinBy::Points(points),
                ..
            } => Some(winner.fold(*points, -*points)),
            GameResult::Draw => Some(0.0),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameResult::Win { winner, by, .. } => {
                write!(f, "{}+", winner.letter())?;
                match by {
                    WinBy::Points(points) => write!(f, "{points}"),
                    WinBy::Resign => f.write_str("R"),
                    WinBy::Time => f.write_str("T"),
                    WinBy::Forfeit => f.write_str("F"),
                    WinBy::Referee => f.write_str("J"),
                    WinBy::Unspecified => Ok(()),
                }
            }
            GameResult::Draw => f.write_str("0"),
            GameResult::Void => f.write_str("Void"),
            GameResult::Unknown => f.write_str("?"),
            // Nothing was written, so nothing is shown.
            GameResult::Missing => Ok(()),
        }
    }
}

impl FromStr for GameResult {
    type Err = ParseResultError;

    fn from_str(s: &str) -> Result<GameResult, ParseResultError> {
        let s = normalise(s);
        if s.trim().is_empty() {
            return Ok(GameResult::Missing);
        }
        let (toks, junk) = lex(&s);
        interpret_result(&toks, junk)
    }
}

fn interpret_result(toks: &[Tok], junk: bool) -> Result<GameResult, ParseResultError> {
    let mut color = None;
    let mut two_colors = false;
    let mut loss = false;
    let mut by: Option<WinBy> = None;
    let mut two_kinds = false;
    let (mut draw, mut void, mut unknown) = (false, false, false);
    let mut unit = None;
    let mut two_units = false;
    let mut number = Number::default();
    for t in toks {
        match *t {
            Tok::Color(c) => {
                two_colors |= color.is_some_and(|x| x != c);
                color = Some(c);
            }
            Tok::Win | Tok::Join | Tok::Minus => {}
            Tok::Loss => loss = true,
            Tok::Num(n) => number.add(n),
            Tok::Half => number.half = true,
            Tok::Unit(u) => {
                two_units |= unit.is_some_and(|x| x != u);
                unit = Some(u);
            }
            Tok::By(k) => {
                two_kinds |= by.is_some_and(|x| x != k);
                by = Some(k);
            }
            Tok::Draw => draw = true,
            Tok::Void => void = true,
            Tok::Unknown => unknown = true,
        }
    }
    let winner = color.map(|c| if loss { !c } else { c });
    let partial = match winner {
        Some(winner) if !two_colors => GameResult::Win {
            winner,
            by: WinBy::Unspecified,
            scaled: false,
        },
        _ => GameResult::Unknown,
    };
    let err = Err(ParseResultError { partial });
    if junk || two_colors || two_kinds || two_units || number.bad {
        return err;
    }
    let total = number.total();
    let Some(winner) = winner else {
        if by.is_some() && !draw || unit.is_some() || loss {
            return err;
        }
        return match (draw, void, unknown, total) {
            // `D+J`: a draw by the referee's decision is still a draw.
            (true, false, false, None) => Ok(GameResult::Draw),
            (true, false, false, Some(v)) | (false, false, false, Some(v)) if v == 0.0 => {
                Ok(GameResult::Draw)
            }
            (false, true, false, None) => Ok(GameResult::Void),
            (false, false, true, None) => Ok(GameResult::Unknown),
            _ => err,
        };
    };
    if draw || void || unknown {
        return err;
    }
    match (by, total) {
        (Some(_), Some(_)) => err,
        (Some(k), None) => Ok(GameResult::Win {
            winner,
            by: k,
            scaled: false,
        }),
        (None, None) if unit.is_none() => Ok(GameResult::Win {
            winner,
            by: WinBy::Unspecified,
            scaled: false,
        }),
        (None, None) => err,
        (None, Some(mut v)) => {
            let mut stones = unit == Some(Unit::Stones);
            if unit.is_none() {
                let n = number.value;
                let tenths = (v * 10.0).round() as i64 % 10;
                if n.is_some_and(|n| n.decimals == 1 && !number.half)
                    && (tenths == 2 || tenths == 7)
                {
                    // `3.2` for 3.25: a quarter cut short.
                    v += 0.05;
                    stones = true;
                } else if is_quarter(v) {
                    stones = true;
                }
            }
            if v <= 0.0
                || v > MAX_POINTS
                || (unit != Some(Unit::Points) && !is_multiple_of_quarter(v))
            {
                return err;
            }
            let points = if stones { v * 2.0 } else { v };
            Ok(GameResult::Win {
                winner,
                by: WinBy::Points(points),
                scaled: stones,
            })
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{EUC_KR, GB18030, SHIFT_JIS};

    fn res(s: &str) -> Result<GameResult, ParseResultError> {
        s.parse()
    }

    fn pts(winner: Color, points: f64, scaled: bool) -> GameResult {
        GameResult::Win {
            winner,
            by: WinBy::Points(points),
            scaled,
        }
    }

    fn win(winner: Color, by: WinBy) -> GameResult {
        GameResult::Win {
            winner,
            by,
            scaled: false,
        }
    }

    use Color::{Black as B, White as W};

    #[test]
    fn english_results() {
        let cases: &[(&str, GameResult)] = &[
            ("B+3.5", pts(B, 3.5, false)),
            ("W+0.5", pts(W, 0.5, false)),
            ("W+0.50", pts(W, 0.5, false)),
            ("B+12", pts(B, 12.0, false)),
            ("b+3.5", pts(B, 3.5, false)),
            (" B + 3.5 ", pts(B, 3.5, false)),
            ("B+3.5 points", pts(B, 3.5, false)),
            ("B+3,5", pts(B, 3.5, false)),
            ("W+3 1/2", pts(W, 3.5, false)),
            ("W+3½", pts(W, 3.5, false)),
            ("Black wins by 3.5 points", pts(B, 3.5, false)),
            ("B+R", win(B, WinBy::Resign)),
            ("B+Resign", win(B, WinBy::Resign)),
            ("w+resign", win(W, WinBy::Resign)),
            ("White wins by resignation", win(W, WinBy::Resign)),
            ("W+T", win(W, WinBy::Time)),
            ("W+Time", win(W, WinBy::Time)),
            ("B+F", win(B, WinBy::Forfeit)),
            ("B+Forfeit", win(B, WinBy::Forfeit)),
            ("W+Offline", win(W, WinBy::Forfeit)),
            ("B+V", win(B, WinBy::Forfeit)),
            ("B+J", win(B, WinBy::Referee)),
            ("W+AW", win(W, WinBy::Referee)),
            ("B", win(B, WinBy::Unspecified)),
            ("W+", win(W, WinBy::Unspecified)),
            ("0", GameResult::Draw),
            ("Draw", GameResult::Draw),
            ("draw", GameResult::Draw),
            ("Jigo", GameResult::Draw),
            ("D+J", GameResult::Draw),
            ("Void", GameResult::Void),
            ("?", GameResult::Unknown),
            ("", GameResult::Missing),
        ];
        for (text, want) in cases {
            assert_eq!(res(text), Ok(*want), "{text}");
        }
    }

    #[test]
    fn stone_results_are_doubled() {
        assert_eq!(res("W+0.25"), Ok(pts(W, 0.5, true)));
        assert_eq!(res("B+2.75"), Ok(pts(B, 5.5, true)));
        assert_eq!(res("W+3.2"), Ok(pts(W, 6.5, true)));
        assert_eq!(res("B+0.2"), Ok(pts(B, 0.5, true)));
        assert_eq!(res("B+1.5 stones"), Ok(pts(B, 3.0, true)));
    }

    #[test]
    fn cjk_results() {
        let cases: &[(&str, GameResult)] = &[
            ("黑中盘胜", win(B, WinBy::Resign)),
            ("白中盤勝", win(W, WinBy::Resign)),
            ("白胜1又3/4子", pts(W, 3.5, true)),
            ("白胜3又1/4子", pts(W, 6.5, true)),
            ("黑胜3/4子", pts(B, 1.5, true)),
            ("黑胜2目半", pts(B, 2.5, false)),
            ("黑5点胜", pts(B, 5.0, false)),
            ("和棋", GameResult::Draw),
            ("和", GameResult::Draw),
            ("白超时胜", win(W, WinBy::Time)),
            ("黑胜", win(B, WinBy::Unspecified)),
            ("黑中盘负", win(W, WinBy::Resign)),
            ("黒中押し勝ち", win(B, WinBy::Resign)),
            ("白半目勝ち", pts(W, 0.5, false)),
            ("黒３目半勝", pts(B, 3.5, false)),
            ("黒時間切れ勝ち", win(B, WinBy::Time)),
            ("持碁", GameResult::Draw),
            ("無勝負", GameResult::Void),
            ("흑 불계승", win(B, WinBy::Resign)),
            ("백 3집반승", pts(W, 3.5, false)),
            ("백 반집승", pts(W, 0.5, false)),
            ("흑 시간승", win(B, WinBy::Time)),
            ("무승부", GameResult::Draw),
        ];
        for (text, want) in cases {
            assert_eq!(res(text), Ok(*want), "{text}");
        }
    }

    #[test]
    fn unreadable_results_keep_what_is_clear() {
        let bad = |s: &str| res(s).unwrap_err().partial;
        assert_eq!(bad("john wins"), GameResult::Unknown);
        assert_eq!(bad("B+0.02"), win(B, WinBy::Unspecified));
        assert_eq!(bad("W+0.0"), win(W, WinBy::Unspecified));
        assert_eq!(bad("B+R 3.5"), win(B, WinBy::Unspecified));
        assert_eq!(bad("B+W"), GameResult::Unknown);
        assert_eq!(bad("3.5"), GameResult::Unknown);
        assert_eq!(bad("R"), GameResult::Unknown);
        assert_eq!(bad("B+99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"), win(B, WinBy::Unspecified));
    }

    #[test]
    fn display_is_canonical_and_round_trips() {
        let cases = [
            (pts(B, 3.5, false), "B+3.5"),
            (pts(W, 7.0, true), "W+7"),
            (win(W, WinBy::Resign), "W+R"),
            (win(B, WinBy::Time), "B+T"),
            (win(B, WinBy::Forfeit), "B+F"),
            (win(W, WinBy::Referee), "W+J"),
            (win(W, WinBy::Unspecified), "W+"),
            (GameResult::Draw, "0"),
            (GameResult::Void, "Void"),
            (GameResult::Unknown, "?"),
            (GameResult::Missing, ""),
        ];
        for (r, text) in cases {
            assert_eq!(r.to_string(), text);
            let back = res(text).unwrap();
            assert_eq!(back.to_string(), text);
        }
        assert_eq!(pts(W, 3.5, true).black_margin(), Some(-3.5));
    }

    #[test]
    fn non_ascii_results_are_decoded_first() {
        for (enc, text, want) in [
            (GB18030, "黑中盘胜", win(B, WinBy::Resign)),
            (SHIFT_JIS, "中押し勝", GameResult::Unknown),
            (SHIFT_JIS, "白中押し勝", win(W, WinBy::Resign)),
            (EUC_KR, "흑 불계승", win(B, WinBy::Resign)),
        ] {
            let raw = enc.encode(text).0;
            let got = GameResult::from_raw(&raw, enc).unwrap_or_else(|e| e.partial);
            assert_eq!(got, want, "{text}");
        }
    }
}
