//! Komi (`KM`), in points, and how the record wrote it.

use std::str::FromStr;

use encoding_rs::Encoding;

use super::lex::{is_quarter, lex, normalise, Number, Tok, Unit, MAX_POINTS};
use crate::text;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
