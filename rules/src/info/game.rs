//! Game info: the root's game-info properties, raw and parsed.

use std::borrow::Cow;
use std::cell::OnceCell;

use encoding_rs::Encoding;

use super::{parse_handicap, parse_year, GameResult, KataGoRules, Komi, Rules};
use crate::problem::{Problem, Problems};
use crate::sgf::{Ident, SgfGame};
use crate::text;
use crate::Color;

/// The game-info values as they stand in the record: escapes kept, not
/// decoded. `None` when the property is absent.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RawInfo<'a> {
    pub pb: Option<&'a [u8]>,
    pub pw: Option<&'a [u8]>,
    pub br: Option<&'a [u8]>,
    pub wr: Option<&'a [u8]>,
    pub dt: Option<&'a [u8]>,
    pub ev: Option<&'a [u8]>,
    pub pc: Option<&'a [u8]>,
    pub ap: Option<&'a [u8]>,
    pub gn: Option<&'a [u8]>,
    pub ro: Option<&'a [u8]>,
    pub re: Option<&'a [u8]>,
    pub km: Option<&'a [u8]>,
    pub ru: Option<&'a [u8]>,
    pub ha: Option<&'a [u8]>,
    pub ca: Option<&'a [u8]>,
}

impl<'a> RawInfo<'a> {
    /// The values that hold text to decode, for encoding detection.
    fn text_values(&self) -> [&'a [u8]; 13] {
        [
            self.pb, self.pw, self.br, self.wr, self.dt, self.ev, self.pc, self.ap, self.gn,
            self.ro, self.re, self.ru, self.km,
        ]
        .map(Option::unwrap_or_default)
    }
}

/// The metadata of one game, borrowed from the input bytes.
///
/// Like [`crate::game::Game`], unchecked input: the typed fields say what the
/// record claims, not what replay finds.
#[derive(Clone, Debug, Default)]
pub struct GameInfo<'a> {
    pub raw: RawInfo<'a>,
    /// The game's bytes in the input: evidence for encoding detection.
    pub span: &'a [u8],
    /// `RE`, normalised to points.
    pub result: GameResult,
    /// `KM`, normalised to points.
    pub komi: Komi,
    /// `HA` as written; `HA[0]` and `HA[1]` both mean no handicap.
    pub handicap_declared: Option<u8>,
    /// The rule family `RU` names (or its KataGo string maps to).
    pub rules: Rules,
    /// `RU` in KataGo's compact form, when it is one.
    pub katago_rules: Option<KataGoRules>,
    /// The first plausible year in `DT`.
    pub year: Option<u16>,
    encoding: OnceCell<&'static Encoding>,
}

impl<'a> GameInfo<'a> {
    /// Reads the game info of `game`'s root node. Values missing from the
    /// root are taken from the second node, where some files (and SGF test
    /// suites) put them.
    pub fn from_root(game: &SgfGame<'a>, span_bytes: &'a [u8]) -> (GameInfo<'a>, Problems) {
        let get = |id: Ident| -> Option<&'a [u8]> {
            (0..game.nodes.len().min(2))
                .find_map(|n| game.get(n, id).and_then(|v| v.first().copied()))
        };
        let raw = RawInfo {
            pb: get(Ident::PB),
            pw: get(Ident::PW),
            br: get(Ident::BR),
            wr: get(Ident::WR),
            dt: get(Ident::DT),
            ev: get(Ident::EV),
            pc: get(Ident::PC),
            ap: get(Ident::AP),
            gn: get(Ident::GN),
            ro: get(Ident::RO),
            re: get(Ident::RE),
            km: get(Ident::KM),
            ru: get(Ident::RU),
            ha: get(Ident::HA),
            ca: get(Ident::CA),
        };
        GameInfo::from_raw(raw, span_bytes)
    }

    /// Parses the typed fields from raw values.
    pub fn from_raw(raw: RawInfo<'a>, span: &'a [u8]) -> (GameInfo<'a>, Problems) {
        let mut info = GameInfo {
            raw,
            span,
            ..GameInfo::default()
        };
        let mut problems = Problems::NONE;
        if let Some(re) = raw.re {
            info.result = match GameResult::from_raw(re, info.encoding_if_needed(re)) {
                Ok(r) => r,
                Err(e) => {
                    problems.insert(Problem::BadResult);
                    e.partial
                }
            };
        }
        if let Some(km) = raw.km {
            match Komi::from_raw(km, info.encoding_if_needed(km)) {
                Ok(k) => info.komi = k,
                Err(_) => problems.insert(Problem::BadKomi),
            }
        }
        if let Some(ru) = raw.ru {
            (info.rules, info.katago_rules) = Rules::from_raw(ru, info.encoding_if_needed(ru));
        }
        info.handicap_declared = raw.ha.and_then(parse_handicap);
        info.year = raw.dt.and_then(parse_year);
        (info, problems)
    }

    /// ASCII needs no detection: any ASCII-compatible encoding reads it alike.
    fn encoding_if_needed(&self, raw: &[u8]) -> &'static Encoding {
        if raw.is_ascii() {
            encoding_rs::UTF_8
        } else {
            self.encoding()
        }
    }

    /// The encoding of this game's text, detected on first use (see
    /// [`text::detect_encoding_of`]).
    pub fn encoding(&self) -> &'static Encoding {
        self.encoding.get_or_init(|| {
            text::detect_encoding_of(&self.raw.text_values(), self.span, self.raw.ca)
        })
    }

    fn text(&self, raw: Option<&'a [u8]>) -> Option<Cow<'a, str>> {
        raw.map(|r| text::decode_text(r, self.encoding()))
    }

    /// `PB` or `PW`.
    pub fn player(&self, color: Color) -> Option<Cow<'a, str>> {
        self.text(color.fold(self.raw.pb, self.raw.pw))
    }

    /// `BR` or `WR`.
    pub fn rank(&self, color: Color) -> Option<Cow<'a, str>> {
        self.text(color.fold(self.raw.br, self.raw.wr))
    }

    /// `EV`.
    pub fn event(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.ev)
    }

    /// `RO`.
    pub fn round(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.ro)
    }

    /// `GN`.
    pub fn game_name(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.gn)
    }

    /// `PC`.
    pub fn place(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.pc)
    }

    /// `DT`.
    pub fn date(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.dt)
    }

    /// `AP`.
    pub fn application(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.ap)
    }

    /// `RE` as written.
    pub fn result_text(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.re)
    }

    /// `RU` as written.
    pub fn rules_text(&self) -> Option<Cow<'a, str>> {
        self.text(self.raw.ru)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::{KomiScale, WinBy};
    use crate::sgf::{Node, Property};
    use encoding_rs::{GB18030, SHIFT_JIS, UTF_8};
    use Color::{Black as B, White as W};

    fn pts(winner: Color, points: f64, scaled: bool) -> GameResult {
        GameResult::Win {
            winner,
            by: WinBy::Points(points),
            scaled,
        }
    }

    /// One node for [`game`]: `(ident, values)` pairs.
    type NodeSpec<'s, 'a> = &'s [(&'s str, &'s [&'a [u8]])];

    /// Builds an [`SgfGame`] by hand (the reader is written elsewhere).
    pub(crate) fn game<'a>(nodes: &[NodeSpec<'_, 'a>]) -> SgfGame<'a> {
        let mut g = SgfGame::default();
        for node in nodes {
            let start = g.props.len() as u32;
            for (ident, values) in node.iter() {
                let v0 = g.values.len() as u32;
                g.values.extend_from_slice(values);
                g.props.push(Property {
                    ident: Ident::new(ident.as_bytes()),
                    values: v0..g.values.len() as u32,
                });
            }
            g.nodes.push(Node {
                props: start..g.props.len() as u32,
            });
        }
        g
    }

    #[test]
    fn from_root_reads_everything() {
        let g = game(&[&[
            ("PB", &[b"Lee Sedol"]),
            ("PW", &["柯洁".as_bytes()]),
            ("BR", &[b"9p"]),
            ("KM", &[b"375"]),
            ("RE", &[b"W+0.25"]),
            ("RU", &[b"Chinese"]),
            ("HA", &[b"0"]),
            ("DT", &[b"2017-05-23"]),
            ("EV", &[br"Future of Go \] Summit"]),
            ("CA", &[b"UTF-8"]),
        ]]);
        let (info, problems) = GameInfo::from_root(&g, b"");
        assert!(problems.is_empty());
        assert_eq!(info.result, pts(W, 0.5, true));
        assert_eq!(info.komi.points, 7.5);
        assert_eq!(info.komi.scale, KomiScale::HundredthsOfStones);
        assert!(info.komi.recorded);
        assert_eq!(info.rules, Rules::Chinese);
        assert_eq!(info.handicap_declared, Some(0));
        assert_eq!(info.year, Some(2017));
        assert_eq!(info.encoding(), UTF_8);
        assert_eq!(info.player(B).as_deref(), Some("Lee Sedol"));
        assert_eq!(info.player(W).as_deref(), Some("柯洁"));
        assert_eq!(info.rank(B).as_deref(), Some("9p"));
        assert_eq!(info.rank(W), None);
        assert_eq!(info.event().as_deref(), Some("Future of Go ] Summit"));
        assert_eq!(info.result_text().as_deref(), Some("W+0.25"));
        let copy = info.clone();
        assert_eq!(copy.encoding(), UTF_8);
    }

    #[test]
    fn from_root_falls_back_to_node_one_and_flags_damage() {
        let g = game(&[
            &[("SZ", &[b"9"])],
            &[
                ("RE", &[b"john wins"]),
                ("KM", &[b"lots"]),
                ("PB", &[b"second"]),
            ],
        ]);
        let (info, problems) = GameInfo::from_root(&g, b"");
        assert!(problems.contains(Problem::BadResult));
        assert!(problems.contains(Problem::BadKomi));
        assert_eq!(info.result, GameResult::Unknown);
        assert_eq!(info.komi, Komi::default());
        assert_eq!(info.player(B).as_deref(), Some("second"));
        let (info, problems) = GameInfo::from_root(&SgfGame::default(), b"");
        assert!(problems.is_empty());
        assert_eq!(info.result, GameResult::Missing);
        assert!(!info.komi.recorded);
    }

    #[test]
    fn from_root_decodes_gb18030_results_under_a_false_ca() {
        let re = GB18030.encode("白胜1又3/4子").0.into_owned();
        let pb = GB18030.encode("柯洁").0.into_owned();
        let mut span = b"(;CA[UTF-8]PB[".to_vec();
        span.extend_from_slice(&pb);
        span.extend_from_slice(b"]RE[");
        span.extend_from_slice(&re);
        span.extend_from_slice(
            &GB18030
                .encode("]C[黑中盘胜，白棋认输。这是一盘好棋];B[pd])")
                .0,
        );
        let g = game(&[&[("CA", &[b"UTF-8"]), ("PB", &[&pb]), ("RE", &[&re])]]);
        let (info, problems) = GameInfo::from_root(&g, &span);
        assert!(problems.is_empty());
        assert_eq!(info.encoding(), GB18030);
        assert_eq!(info.result, pts(W, 3.5, true));
        assert_eq!(info.player(B).as_deref(), Some("柯洁"));
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
                let _ = GameResult::from_raw(&bytes, UTF_8);
                let _ = GameResult::from_raw(&bytes, GB18030);
                let _ = Komi::from_raw(&bytes, SHIFT_JIS);
                let _ = Rules::from_raw(&bytes, UTF_8);
                let _ = parse_year(&bytes);
                let _ = parse_handicap(&bytes);
                let _ = text::detect_encoding(&bytes, Some(&bytes));
            }

            #[test]
            fn result_like_strings_never_panic(s in "[BWbw0-9+.,/ RTF?黑白胜负中盘子目半又½]{0,16}") {
                if let Ok(r) = s.parse::<GameResult>() {
                    // What parses prints in a form that parses to the same.
                    let again: GameResult = r.to_string().parse().unwrap();
                    prop_assert_eq!(again.to_string(), r.to_string());
                }
                let _ = s.parse::<Komi>();
            }
        }
    }
}
