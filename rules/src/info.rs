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
//!   [`Problem::BadResult`] is raised.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;
use std::str::FromStr;

use encoding_rs::Encoding;

use crate::problem::{Problem, Problems};
use crate::sgf::{Ident, SgfGame};
use crate::text;
use crate::Color;

// ---------------------------------------------------------------------------
// Game info
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Komi
// ---------------------------------------------------------------------------

/// How `KM` was written.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum KomiScale {
    #[default]
    Points,
    /// Stones, doubled to points: `KM[3.75]` is 7.5 points.
    Stones,
    /// Hundredths of a point: `KM[650]` is 6.5 points.
    Hundredths,
    /// Hundredths of a stone: `KM[375]` is 3.75 stones, 7.5 points.
    HundredthsOfStones,
}

/// Komi in points.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Komi {
    pub points: f64,
    pub scale: KomiScale,
    /// Whether a readable `KM` gave it; `false` means 0 by default.
    pub recorded: bool,
}

/// A `KM` value that is not a number.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unreadable komi")]
pub struct ParseKomiError;

impl Komi {
    /// Reads a raw `KM` value, decoding it with `enc` first if it is not ASCII
    /// (`6目半`).
    pub fn from_raw(raw: &[u8], enc: &'static Encoding) -> Result<Komi, ParseKomiError> {
        text::decode_text(raw, enc).parse()
    }

    /// Whether the record's value was rescaled to get points.
    pub fn is_scaled(&self) -> bool {
        self.scale != KomiScale::Points
    }
}

impl FromStr for Komi {
    type Err = ParseKomiError;

    fn from_str(s: &str) -> Result<Komi, ParseKomiError> {
        let s = normalise(s);
        let (toks, junk) = lex(&s);
        if junk {
            return Err(ParseKomiError);
        }
        let mut negative = false;
        let mut number = Number::default();
        let mut unit = None;
        for t in &toks {
            match *t {
                Tok::Minus if number.value.is_none() => negative = !negative,
                Tok::Num(n) => number.add(n),
                Tok::Join => {}
                Tok::Half => number.half = true,
                Tok::Unit(u) if unit.is_none_or(|x| x == u) => unit = Some(u),
                _ => return Err(ParseKomiError),
            }
        }
        let value = number.total().ok_or(ParseKomiError)?;
        let value = if negative { -value } else { value };
        let (points, scale) = match unit {
            Some(Unit::Stones) => (value * 2.0, KomiScale::Stones),
            Some(Unit::Points) => (value, KomiScale::Points),
            None if value.abs() >= 100.0 => {
                let v = value / 100.0;
                if is_quarter(v) {
                    (v * 2.0, KomiScale::HundredthsOfStones)
                } else {
                    (v, KomiScale::Hundredths)
                }
            }
            None if is_quarter(value) => (value * 2.0, KomiScale::Stones),
            None => (value, KomiScale::Points),
        };
        if points.abs() > MAX_POINTS {
            return Err(ParseKomiError);
        }
        Ok(Komi {
            points,
            scale,
            recorded: true,
        })
    }
}

// ---------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------

/// The rule family a record names. Closed: what verdict can score under or
/// compare with.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rules {
    Japanese,
    Chinese,
    Korean,
    Aga,
    NewZealand,
    /// Ing / GOE.
    Ing,
    TrompTaylor,
    #[default]
    Unknown,
}

impl Rules {
    pub const ALL: [Rules; 8] = [
        Rules::Japanese,
        Rules::Chinese,
        Rules::Korean,
        Rules::Aga,
        Rules::NewZealand,
        Rules::Ing,
        Rules::TrompTaylor,
        Rules::Unknown,
    ];

    /// A stable snake_case id (a public contract, like [`Problem::as_str`]).
    pub const fn as_str(self) -> &'static str {
        match self {
            Rules::Japanese => "japanese",
            Rules::Chinese => "chinese",
            Rules::Korean => "korean",
            Rules::Aga => "aga",
            Rules::NewZealand => "new_zealand",
            Rules::Ing => "ing",
            Rules::TrompTaylor => "tromp_taylor",
            Rules::Unknown => "unknown",
        }
    }

    /// Reads a raw `RU` value, decoding it with `enc` first if it is not
    /// ASCII (`中国规则`).
    pub fn from_raw(raw: &[u8], enc: &'static Encoding) -> (Rules, Option<KataGoRules>) {
        Rules::parse(&text::decode_text(raw, enc))
    }

    /// The family `text` names, case-insensitively and in common spellings,
    /// and the KataGo rules if `text` is KataGo's compact form (then the
    /// family is the closest one, see [`KataGoRules::family`]).
    pub fn parse(text: &str) -> (Rules, Option<KataGoRules>) {
        let lower = normalise(text.trim()).to_lowercase();
        if let Some(k) = KataGoRules::parse(&lower) {
            return (k.family(), Some(k));
        }
        let key: String = lower
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_' | '.' | '\'' | '(' | ')' | '/' | ','))
            .collect();
        let exact = match key.as_str() {
            "jp" | "jpn" | "ja" => Some(Rules::Japanese),
            "cn" | "chn" | "zh" => Some(Rules::Chinese),
            "kr" | "kor" => Some(Rules::Korean),
            "aga" | "bga" => Some(Rules::Aga),
            "nz" | "nzga" => Some(Rules::NewZealand),
            "goe" | "ing" | "ings" | "sst" | "ingsst" | "ingrules" => Some(Rules::Ing),
            "tt" | "tromp" => Some(Rules::TrompTaylor),
            _ => None,
        };
        if let Some(r) = exact {
            return (r, None);
        }
        const CONTAINS: [(&str, Rules); 24] = [
            ("zealand", Rules::NewZealand),
            ("tromp", Rules::TrompTaylor),
            ("japan", Rules::Japanese),
            ("nihon", Rules::Japanese),
            ("日本", Rules::Japanese),
            ("일본", Rules::Japanese),
            ("chin", Rules::Chinese),
            ("中国", Rules::Chinese),
            ("中國", Rules::Chinese),
            ("중국", Rules::Chinese),
            ("korea", Rules::Korean),
            ("韩国", Rules::Korean),
            ("韓国", Rules::Korean),
            ("韓國", Rules::Korean),
            ("한국", Rules::Korean),
            ("american", Rules::Aga),
            ("british", Rules::Aga),
            ("应氏", Rules::Ing),
            ("應氏", Rules::Ing),
            ("ingrule", Rules::Ing),
            ("ingsst", Rules::Ing),
            ("ingsrule", Rules::Ing),
            ("ingcount", Rules::Ing),
            ("goerule", Rules::Ing),
        ];
        let family = CONTAINS
            .iter()
            .find(|(needle, _)| key.contains(needle))
            .map_or(Rules::Unknown, |&(_, r)| r);
        (family, None)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// KataGo's ko rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    Simple,
    Positional,
    Situational,
    Spight,
}

/// KataGo's scoring rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScoringRule {
    Area,
    Territory,
}

/// KataGo's tax rule: which points of living groups are not counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TaxRule {
    None,
    /// Seki eyes (Japanese).
    Seki,
    /// Two points per group (ancient stone counting, 计活子).
    All,
}

/// KataGo's white handicap bonus: what White gets per handicap stone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HandicapBonus {
    Zero,
    N,
    NMinusOne,
}

/// Rules in KataGo's compact form (`koPOSITIONALscoreAREAtaxNONEsui1`).
/// Absent keys take KataGo's defaults, which are Tromp-Taylor's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct KataGoRules {
    pub ko: KoRule,
    pub scoring: ScoringRule,
    pub tax: TaxRule,
    /// Multi-stone suicide allowed.
    pub suicide: bool,
    pub button: bool,
    pub white_handicap_bonus: HandicapBonus,
}

impl KataGoRules {
    /// Parses the compact form (lowercase). Needs at least the `ko` and
    /// `score` keys; unknown trailing keys (`fpok`, `komi`, `startPos`...) are
    /// ignored.
    fn parse(lower: &str) -> Option<KataGoRules> {
        if !lower.starts_with("ko") {
            return None;
        }
        let mut r = KataGoRules {
            ko: KoRule::Positional,
            scoring: ScoringRule::Area,
            tax: TaxRule::None,
            suicide: true,
            button: false,
            white_handicap_bonus: HandicapBonus::Zero,
        };
        let (mut seen_ko, mut seen_score) = (false, false);
        let mut rest = lower;
        fn take<T: Copy>(rest: &mut &str, options: &[(&str, T)]) -> Option<T> {
            let &(word, value) = options.iter().find(|(w, _)| rest.starts_with(w))?;
            *rest = &rest[word.len()..];
            Some(value)
        }
        const BOOL: [(&str, bool); 4] =
            [("1", true), ("0", false), ("true", true), ("false", false)];
        while !rest.is_empty() {
            if let Some(r2) = rest.strip_prefix("ko") {
                rest = r2;
                r.ko = take(
                    &mut rest,
                    &[
                        ("simple", KoRule::Simple),
                        ("positional", KoRule::Positional),
                        ("situational", KoRule::Situational),
                        ("spight", KoRule::Spight),
                    ],
                )?;
                seen_ko = true;
            } else if let Some(r2) = rest.strip_prefix("score") {
                rest = r2;
                r.scoring = take(
                    &mut rest,
                    &[
                        ("area", ScoringRule::Area),
                        ("territory", ScoringRule::Territory),
                    ],
                )?;
                seen_score = true;
            } else if let Some(r2) = rest.strip_prefix("tax") {
                rest = r2;
                r.tax = take(
                    &mut rest,
                    &[
                        ("none", TaxRule::None),
                        ("seki", TaxRule::Seki),
                        ("all", TaxRule::All),
                    ],
                )?;
            } else if let Some(r2) = rest.strip_prefix("sui") {
                rest = r2;
                r.suicide = take(&mut rest, &BOOL)?;
            } else if let Some(r2) = rest.strip_prefix("button") {
                rest = r2;
                r.button = take(&mut rest, &BOOL)?;
            } else if let Some(r2) = rest.strip_prefix("whb") {
                rest = r2;
                r.white_handicap_bonus = take(
                    &mut rest,
                    &[
                        ("n-1", HandicapBonus::NMinusOne),
                        ("n", HandicapBonus::N),
                        ("0", HandicapBonus::Zero),
                    ],
                )?;
            } else {
                break;
            }
        }
        (seen_ko && seen_score).then_some(r)
    }

    /// The closest family:
    ///
    /// | KataGo | family |
    /// |---|---|
    /// | territory scoring | Japanese (Korean is the same rule set) |
    /// | area, multi-stone suicide, situational ko | New Zealand |
    /// | area, multi-stone suicide, other ko | Tromp-Taylor |
    /// | area, no suicide, situational ko, button or `whbN-1` | AGA |
    /// | area, no suicide, otherwise | Chinese |
    ///
    /// `taxALL` (stone counting) has no family of its own; it follows the
    /// table (area) and the tax stays visible in the struct.
    pub fn family(&self) -> Rules {
        match (self.scoring, self.suicide) {
            (ScoringRule::Territory, _) => Rules::Japanese,
            (ScoringRule::Area, true) if self.ko == KoRule::Situational => Rules::NewZealand,
            (ScoringRule::Area, true) => Rules::TrompTaylor,
            (ScoringRule::Area, false)
                if self.ko == KoRule::Situational
                    || self.button
                    || self.white_handicap_bonus == HandicapBonus::NMinusOne =>
            {
                Rules::Aga
            }
            (ScoringRule::Area, false) => Rules::Chinese,
        }
    }
}

// ---------------------------------------------------------------------------
// Handicap and year
// ---------------------------------------------------------------------------

/// `HA` as a count: digits, optionally followed by `.0`. Anything else
/// (`HA[7.5]`, a komi typed in the wrong place) gives nothing.
pub fn parse_handicap(raw: &[u8]) -> Option<u8> {
    let s = raw.trim_ascii();
    let int_end = s
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(s.len());
    let (int, rest) = s.split_at(int_end);
    if int.is_empty() {
        return None;
    }
    match rest {
        [] => {}
        [b'.', zeros @ ..] if zeros.iter().all(|&b| b == b'0') => {}
        _ => return None,
    }
    std::str::from_utf8(int).ok()?.parse().ok()
}

/// The first year in `DT`: a run of exactly 4 digits (or 8, `YYYYMMDD`)
/// between 1000 and 2100. Works on raw bytes: in every supported encoding an
/// ASCII digit byte is a digit.
pub fn parse_year(raw: &[u8]) -> Option<u16> {
    let mut i = 0;
    while i < raw.len() {
        if !raw[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < raw.len() && raw[i].is_ascii_digit() {
            i += 1;
        }
        if i - start == 4 || i - start == 8 {
            let year = raw[start..start + 4]
                .iter()
                .fold(0u16, |y, d| y * 10 + u16::from(d - b'0'));
            if (1000..=2100).contains(&year) {
                return Some(year);
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------
// The small lexer shared by results and komi
// ---------------------------------------------------------------------------

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Unit {
    Points,
    Stones,
}

#[derive(Copy, Clone, Debug, PartialEq)]
struct Num {
    value: f64,
    /// Digits after the decimal point as written.
    decimals: u8,
    /// Written as a fraction (`3/4`, `¾`).
    fraction: bool,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Tok {
    Color(Color),
    /// 胜, wins: says nothing beyond the colour.
    Win,
    /// 负, loses: the named colour lost.
    Loss,
    Num(Num),
    /// 又: joins a whole number to a fraction (`1又3/4`).
    Join,
    /// 半, 반: a half.
    Half,
    Unit(Unit),
    By(WinBy),
    Draw,
    Void,
    Unknown,
    Minus,
}

/// Maps full-width forms (Japanese and Chinese input methods) to ASCII;
/// borrows when there are none.
fn normalise(s: &str) -> Cow<'_, str> {
    let wide = |c: char| matches!(c, '\u{FF01}'..='\u{FF5E}' | '\u{3000}' | '\u{2212}');
    if !s.chars().any(wide) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| match c {
                '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
                '\u{3000}' => ' ',
                '\u{2212}' => '-',
                c => c,
            })
            .collect(),
    )
}

fn ascii_word(word: &str) -> Option<&'static [Tok]> {
    use Tok::*;
    let mut buf = [0u8; 16];
    if word.len() > buf.len() {
        return None;
    }
    for (b, c) in buf.iter_mut().zip(word.bytes()) {
        *b = c.to_ascii_lowercase();
    }
    Some(match &buf[..word.len()] {
        b"b" | b"black" | b"blk" => &[Color(crate::Color::Black)],
        b"w" | b"white" | b"wht" => &[Color(crate::Color::White)],
        b"r" | b"res" | b"resign" | b"resigns" | b"resigned" | b"resignation" => {
            &[By(WinBy::Resign)]
        }
        b"t" | b"time" | b"timeout" | b"timed" | b"times" | b"overtime" => &[By(WinBy::Time)],
        b"f" | b"forfeit" | b"forfeits" | b"forfeited" | b"v" | b"violation" | b"offline"
        | b"disconnect" | b"disconnected" | b"disconnection" | b"foul" | b"illegal" => {
            &[By(WinBy::Forfeit)]
        }
        b"j" | b"aw" | b"judge" | b"judged" | b"referee" | b"adjudicated" | b"adjudication"
        | b"decision" => &[By(WinBy::Referee)],
        b"d" | b"draw" | b"drawn" | b"jigo" | b"tie" | b"tied" => &[Draw],
        b"void" | b"nr" | b"noresult" => &[Void],
        b"unknown" | b"unfinished" | b"adjourned" => &[Unknown],
        b"p" | b"pt" | b"pts" | b"point" | b"points" | b"moku" => &[Unit(self::Unit::Points)],
        b"stone" | b"stones" | b"zi" => &[Unit(self::Unit::Stones)],
        b"half" => &[Half],
        b"win" | b"wins" | b"won" | b"winner" | b"victory" => &[Win],
        b"lose" | b"loses" | b"lost" | b"loss" => &[Loss],
        b"by" | b"of" | b"the" | b"with" | b"and" | b"a" | b"out" | b"on" | b"komi" => &[],
        _ => return None,
    })
}

/// Words in CJK scripts, longest first where one is a prefix of another.
const CJK_WORDS: &[(&str, &[Tok])] = {
    use Tok::*;
    const B: Tok = Color(crate::Color::Black);
    const W: Tok = Color(crate::Color::White);
    const PTS: Tok = Unit(self::Unit::Points);
    &[
        ("無勝負", &[Void]),
        ("无胜负", &[Void]),
        ("時間切れ", &[By(WinBy::Time)]),
        ("打ち掛け", &[Unknown]),
        ("무승부", &[Draw]),
        ("中押し", &[By(WinBy::Resign)]),
        ("中押", &[By(WinBy::Resign)]),
        ("中盘", &[By(WinBy::Resign)]),
        ("中盤", &[By(WinBy::Resign)]),
        ("불계", &[By(WinBy::Resign)]),
        ("认输", &[Loss, By(WinBy::Resign)]),
        ("認輸", &[Loss, By(WinBy::Resign)]),
        ("投了", &[Loss, By(WinBy::Resign)]),
        ("超时", &[By(WinBy::Time)]),
        ("超時", &[By(WinBy::Time)]),
        ("时间", &[By(WinBy::Time)]),
        ("時間", &[By(WinBy::Time)]),
        ("시간", &[By(WinBy::Time)]),
        ("反则", &[By(WinBy::Forfeit)]),
        ("反則", &[By(WinBy::Forfeit)]),
        ("犯规", &[By(WinBy::Forfeit)]),
        ("犯規", &[By(WinBy::Forfeit)]),
        ("不战", &[By(WinBy::Forfeit)]),
        ("不戦", &[By(WinBy::Forfeit)]),
        ("不戰", &[By(WinBy::Forfeit)]),
        ("弃权", &[By(WinBy::Forfeit)]),
        ("棄権", &[By(WinBy::Forfeit)]),
        ("棄權", &[By(WinBy::Forfeit)]),
        ("기권", &[By(WinBy::Forfeit)]),
        ("반칙", &[By(WinBy::Forfeit)]),
        ("判定", &[By(WinBy::Referee)]),
        ("裁定", &[By(WinBy::Referee)]),
        ("和棋", &[Draw]),
        ("和局", &[Draw]),
        ("平局", &[Draw]),
        ("持碁", &[Draw]),
        ("打挂", &[Unknown]),
        ("封盘", &[Unknown]),
        ("黑", &[B]),
        ("黒", &[B]),
        ("흑", &[B]),
        ("白", &[W]),
        ("백", &[W]),
        ("胜", &[Win]),
        ("勝", &[Win]),
        ("승", &[Win]),
        ("负", &[Loss]),
        ("負", &[Loss]),
        ("败", &[Loss]),
        ("敗", &[Loss]),
        ("패", &[Loss]),
        ("和", &[Draw]),
        ("빅", &[Draw]),
        ("目", &[PTS]),
        ("点", &[PTS]),
        ("點", &[PTS]),
        ("집", &[PTS]),
        ("子", &[Unit(self::Unit::Stones)]),
        ("半", &[Half]),
        ("반", &[Half]),
        ("又", &[Join]),
        // Inflections and particles that add nothing.
        ("ち", &[]),
        ("け", &[]),
        ("し", &[]),
        ("で", &[]),
        ("の", &[]),
        ("了", &[]),
        ("利", &[]),
        ("贴", &[]),
        ("貼", &[]),
        ("덤", &[]),
    ]
};

/// Splits `s` into tokens; the flag says something was not understood.
fn lex(s: &str) -> (Vec<Tok>, bool) {
    let mut toks = Vec::new();
    let mut junk = false;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_alphabetic() {
            let end = rest
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(rest.len());
            match ascii_word(&rest[..end]) {
                Some(ts) => toks.extend_from_slice(ts),
                None => junk = true,
            }
            rest = &rest[end..];
            continue;
        }
        if c.is_ascii_digit() {
            let (num, len) = lex_number(rest);
            match num {
                Some(n) => toks.push(Tok::Num(n)),
                None => junk = true,
            }
            rest = &rest[len..];
            continue;
        }
        if let Some((word, ts)) = CJK_WORDS.iter().find(|(w, _)| rest.starts_with(w)) {
            toks.extend_from_slice(ts);
            rest = &rest[word.len()..];
            continue;
        }
        let quarter = |value| {
            Tok::Num(Num {
                value,
                decimals: 0,
                fraction: true,
            })
        };
        match c {
            '½' => toks.push(quarter(0.5)),
            '¼' => toks.push(quarter(0.25)),
            '¾' => toks.push(quarter(0.75)),
            '-' => toks.push(Tok::Minus),
            '?' => toks.push(Tok::Unknown),
            '+' | ':' | '(' | ')' | '[' | ']' | '.' | ',' | '!' | '=' | '、' | '。' | '，'
            | '！' => {}
            c if c.is_whitespace() => {}
            _ => junk = true,
        }
        rest = &rest[c.len_utf8()..];
    }
    (toks, junk)
}

/// A number at the start of `s`: `3`, `3.5`, `3,5`, `3/4`. Returns the
/// number (None if unusable, e.g. too long to be finite) and its length.
fn lex_number(s: &str) -> (Option<Num>, usize) {
    let b = s.as_bytes();
    let digits = |from: usize| {
        b[from..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(b.len(), |p| from + p)
    };
    let int_end = digits(0);
    let mut end = int_end;
    let mut decimals = 0;
    if matches!(b.get(end), Some(b'.' | b',')) && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits(end + 1);
        decimals = end - int_end - 1;
    }
    let parse = |text: &str| {
        if text.contains(',') {
            text.replace(',', ".").parse::<f64>().ok()
        } else {
            text.parse::<f64>().ok()
        }
    };
    let mut value = parse(&s[..end]);
    let mut fraction = false;
    if decimals == 0 && b.get(end) == Some(&b'/') && b.get(end + 1).is_some_and(u8::is_ascii_digit)
    {
        let den_end = digits(end + 1);
        let den = parse(&s[end + 1..den_end]);
        value = match (value, den) {
            (Some(n), Some(d)) if d != 0.0 => Some(n / d),
            _ => None,
        };
        end = den_end;
        fraction = true;
    }
    let num = value.filter(|v| v.is_finite()).map(|value| Num {
        value,
        decimals: decimals.min(u8::MAX as usize) as u8,
        fraction,
    });
    (num, end)
}

/// A whole number, an optional fraction after it and an optional half.
#[derive(Default)]
struct Number {
    value: Option<Num>,
    half: bool,
    bad: bool,
}

impl Number {
    fn add(&mut self, n: Num) {
        match &mut self.value {
            None => self.value = Some(n),
            Some(base) if n.fraction && !base.fraction && base.decimals == 0 => {
                base.value += n.value;
                base.fraction = true;
            }
            Some(_) => self.bad = true,
        }
    }

    fn total(&self) -> Option<f64> {
        if self.bad {
            return None;
        }
        let half = if self.half { 0.5 } else { 0.0 };
        match self.value {
            Some(n) => Some(n.value + half),
            None if self.half => Some(half),
            None => None,
        }
    }
}

/// No margin or komi on a board of at most 25x25 comes near this; larger
/// values are typing errors, not numbers to compute with.
const MAX_POINTS: f64 = 1000.0;

fn is_whole(v: f64) -> bool {
    (v - v.round()).abs() < 1e-6
}

fn is_multiple_of_quarter(v: f64) -> bool {
    is_whole(v * 4.0)
}

/// `.25` or `.75`: a half stone's worth of points, so a value in stones.
fn is_quarter(v: f64) -> bool {
    is_multiple_of_quarter(v) && !is_whole(v * 2.0)
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
    use crate::sgf::{Node, Property};
    use encoding_rs::{EUC_KR, GB18030, SHIFT_JIS, UTF_8};

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

    fn komi(s: &str) -> Result<(f64, KomiScale), ParseKomiError> {
        s.parse::<Komi>().map(|k| (k.points, k.scale))
    }

    #[test]
    fn komi_scales() {
        use KomiScale::*;
        assert_eq!(komi("650"), Ok((6.5, Hundredths)));
        assert_eq!(komi("750"), Ok((7.5, Hundredths)));
        assert_eq!(komi("375"), Ok((7.5, HundredthsOfStones)));
        assert_eq!(komi("325"), Ok((6.5, HundredthsOfStones)));
        assert_eq!(komi("3.75"), Ok((7.5, Stones)));
        assert_eq!(komi("2.75"), Ok((5.5, Stones)));
        assert_eq!(komi("7.5"), Ok((7.5, Points)));
        assert_eq!(komi("7.500000"), Ok((7.5, Points)));
        assert_eq!(komi("0.5"), Ok((0.5, Points)));
        assert_eq!(komi("0"), Ok((0.0, Points)));
        assert_eq!(komi("-3"), Ok((-3.0, Points)));
        assert_eq!(komi("-99.50"), Ok((-99.5, Points)));
        assert_eq!(komi(" 6.5 "), Ok((6.5, Points)));
        assert_eq!(komi("5 1/2"), Ok((5.5, Points)));
        assert_eq!(komi("6目半"), Ok((6.5, Points)));
        assert_eq!(komi("3又3/4子"), Ok((7.5, Stones)));
        assert_eq!(komi("garbage"), Err(ParseKomiError));
        assert_eq!(komi("1e9"), Err(ParseKomiError));
        assert_eq!(komi("99999999"), Err(ParseKomiError));
        assert_eq!(komi(""), Err(ParseKomiError));
        assert_eq!(komi("6.5.5"), Err(ParseKomiError));
        assert_eq!(komi("B+3"), Err(ParseKomiError));
    }

    #[test]
    fn rules_spellings() {
        let cases: &[(&str, Rules)] = &[
            ("Japanese", Rules::Japanese),
            ("jp", Rules::Japanese),
            ("JAPANESE", Rules::Japanese),
            ("日本规则", Rules::Japanese),
            ("日本ルール", Rules::Japanese),
            ("Chinese", Rules::Chinese),
            ("cn", Rules::Chinese),
            ("中国规则", Rules::Chinese),
            ("Korean", Rules::Korean),
            ("AGA", Rules::Aga),
            ("NZ", Rules::NewZealand),
            ("New Zealand", Rules::NewZealand),
            ("GOE", Rules::Ing),
            ("Ing", Rules::Ing),
            ("Tromp-Taylor", Rules::TrompTaylor),
            ("tromp_taylor", Rules::TrompTaylor),
            ("", Rules::Unknown),
            ("whatever", Rules::Unknown),
        ];
        for (text, want) in cases {
            assert_eq!(Rules::parse(text), (*want, None), "{text}");
        }
        let names: std::collections::HashSet<_> = Rules::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names.len(), Rules::ALL.len());
    }

    #[test]
    fn katago_rules() {
        let (family, k) = Rules::parse("koPOSITIONALscoreAREAtaxNONEsui1");
        assert_eq!(family, Rules::TrompTaylor);
        let k = k.unwrap();
        assert_eq!(
            (k.ko, k.scoring, k.tax, k.suicide),
            (KoRule::Positional, ScoringRule::Area, TaxRule::None, true)
        );
        let (family, k) = Rules::parse("koSIMPLEscoreTERRITORYtaxSEKIsui0");
        assert_eq!(family, Rules::Japanese);
        assert_eq!(k.unwrap().tax, TaxRule::Seki);
        assert_eq!(
            Rules::parse("koSITUATIONALscoreAREAtaxNONEsui1").0,
            Rules::NewZealand
        );
        assert_eq!(
            Rules::parse("koSITUATIONALscoreAREAtaxNONEsui0whbN-1").0,
            Rules::Aga
        );
        let (family, k) = Rules::parse("koSIMPLEscoreAREAtaxNONEsui0whbNfpok1komi7.5");
        assert_eq!(family, Rules::Chinese);
        assert_eq!(k.unwrap().white_handicap_bonus, HandicapBonus::N);
        assert_eq!(Rules::parse("koBOGUSscoreAREA"), (Rules::Unknown, None));
    }

    #[test]
    fn years_and_handicaps() {
        assert_eq!(parse_year(b"2017-01-01,02"), Some(2017));
        assert_eq!(parse_year(b"1846-09-11..15"), Some(1846));
        assert_eq!(parse_year("2019年".as_bytes()), Some(2019));
        assert_eq!(parse_year(b"20170315"), Some(2017));
        assert_eq!(parse_year(b"12th and 13th march 94"), None);
        assert_eq!(parse_year(b"a sunny afternoon"), None);
        assert_eq!(parse_year(b"0999-01-01 3000"), None);
        assert_eq!(parse_handicap(b"0"), Some(0));
        assert_eq!(parse_handicap(b" 4 "), Some(4));
        assert_eq!(parse_handicap(b"2.0"), Some(2));
        assert_eq!(parse_handicap(b"7.5"), None);
        assert_eq!(parse_handicap(b"999"), None);
        assert_eq!(parse_handicap(b""), None);
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
