//! The small lexer shared by results and komi.

use std::borrow::Cow;

use super::WinBy;
use crate::Color;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Unit {
    Points,
    Stones,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct Num {
    pub(super) value: f64,
    /// Digits after the decimal point as written.
    pub(super) decimals: u8,
    /// Written as a fraction (`3/4`, `¾`).
    pub(super) fraction: bool,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) enum Tok {
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
pub(super) fn normalise(s: &str) -> Cow<'_, str> {
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

pub(super) fn ascii_word(word: &str) -> Option<&'static [Tok]> {
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
pub(super) const CJK_WORDS: &[(&str, &[Tok])] = {
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
pub(super) fn lex(s: &str) -> (Vec<Tok>, bool) {
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
pub(super) fn lex_number(s: &str) -> (Option<Num>, usize) {
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
pub(super) struct Number {
    pub(super) value: Option<Num>,
    pub(super) half: bool,
    pub(super) bad: bool,
}

impl Number {
    pub(super) fn add(&mut self, n: Num) {
        match &mut self.value {
            None => self.value = Some(n),
            Some(base) if n.fraction && !base.fraction && base.decimals == 0 => {
                base.value += n.value;
                base.fraction = true;
            }
            Some(_) => self.bad = true,
        }
    }

    pub(super) fn total(&self) -> Option<f64> {
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
pub(super) const MAX_POINTS: f64 = 1000.0;

pub(super) fn is_whole(v: f64) -> bool {
    (v - v.round()).abs() < 1e-6
}

pub(super) fn is_multiple_of_quarter(v: f64) -> bool {
    is_whole(v * 4.0)
}

/// `.25` or `.75`: a half stone's worth of points, so a value in stones.
pub(super) fn is_quarter(v: f64) -> bool {
    is_multiple_of_quarter(v) && !is_whole(v * 2.0)
}
