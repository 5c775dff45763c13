//! Text decoding, done only where text is needed.
//!
//! Most of a record is ASCII coordinates and never decoded. Names, events and
//! the odd non-ASCII result are decoded on request, in the game's own
//! encoding, which real corpora often fail to declare or declare wrongly:
//!
//! * `CA` is honoured when `encoding_rs` knows the label *and* the bytes are
//!   valid in it (fox files say `CA[UTF-8]` over GB18030 bytes);
//! * otherwise UTF-8 if the bytes are UTF-8, including UTF-8 whose bytes were
//!   partly overwritten with `?` or cut off at the end of a value (most fox
//!   files: `\xE5?\x88` for one character);
//! * otherwise `chardetng` guesses, fed as much of the game as the caller has.
//!
//! Nothing here fails: bytes that are invalid in the chosen encoding become
//! U+FFFD.

use std::borrow::Cow;

use encoding_rs::{Encoding, BIG5, GB18030, GBK, SHIFT_JIS, UTF_16BE, UTF_16LE, UTF_8};

/// The encoding of `bytes`, a game's text or its whole span.
///
/// `ca` is the raw `CA` value, if any. Never fails: unknown labels and
/// invalid bytes fall back to detection, and detection always answers.
pub fn detect_encoding(bytes: &[u8], ca: Option<&[u8]>) -> &'static Encoding {
    detect_encoding_of(&[bytes], bytes, ca)
}

/// The encoding of `values`, the raw values that will be decoded, using
/// `context` (typically the game's whole span) as extra evidence when the
/// encoding must be guessed.
///
/// Judging validity on the values alone matters: fox files mix UTF-8 player
/// names with GB18030 comments, and it is the names we decode. The guess,
/// when needed, is better with more text, hence `context`.
pub fn detect_encoding_of(
    values: &[&[u8]],
    context: &[u8],
    ca: Option<&[u8]>,
) -> &'static Encoding {
    if let Some(enc) = ca.and_then(label_encoding) {
        if values.iter().all(|v| fits(v, enc)) {
            return enc;
        }
    }
    if values.iter().all(|v| v.is_ascii()) {
        return UTF_8;
    }
    if values.iter().all(|v| looks_utf8(v)) {
        return UTF_8;
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    if context.is_empty() {
        for v in values {
            detector.feed(v, false);
        }
    } else {
        detector.feed(context, false);
    }
    detector.feed(b"", true);
    let guess = detector.guess(None, chardetng::Utf8Detection::Allow);
    // chardetng names the GB family GBK; GB18030 decodes a superset of it.
    if guess == GBK {
        GB18030
    } else {
        guess
    }
}

/// The encoding a `CA` label names, if it is one a byte-oriented SGF file
/// can be in: UTF-16 cannot (the reader splits on ASCII bytes), and the
/// "replacement" encoding would turn every value into U+FFFD.
fn label_encoding(label: &[u8]) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(label.trim_ascii())?;
    if enc == UTF_16LE || enc == UTF_16BE || enc == encoding_rs::REPLACEMENT {
        return None;
    }
    Some(enc)
}

/// Whether `bytes` decode without error in `enc` (tolerating `?`-damaged
/// UTF-8, which is still best read as UTF-8).
fn fits(bytes: &[u8], enc: &'static Encoding) -> bool {
    if enc == UTF_8 {
        return looks_utf8(bytes);
    }
    if bytes.is_ascii() && enc.is_ascii_compatible() {
        return true;
    }
    enc.decode_without_bom_handling_and_without_replacement(bytes)
        .is_some()
}

/// Counts from walking bytes as UTF-8.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Utf8Walk {
    /// Well-formed multi-byte sequences.
    good: u32,
    /// Sequences with a byte replaced by `?`, or cut off by the end of the
    /// value: damage, but evidence of UTF-8.
    damaged: u32,
    /// Bytes that fit no UTF-8 reading: evidence of another encoding.
    bad: u32,
}

/// Walks `bytes` as UTF-8, counting what it sees and, if `out` is given,
/// decoding with one U+FFFD per damaged or bad sequence (so that `\xE5?\x88`
/// becomes one replacement character, not three characters).
fn walk_utf8(bytes: &[u8], mut out: Option<&mut String>) -> Utf8Walk {
    let mut walk = Utf8Walk::default();
    let mut i = 0;
    while i < bytes.len() {
        let ascii_end = bytes[i..]
            .iter()
            .position(|b| !b.is_ascii())
            .map_or(bytes.len(), |p| i + p);
        if let Some(o) = out.as_deref_mut() {
            // ASCII is valid UTF-8.
            o.push_str(std::str::from_utf8(&bytes[i..ascii_end]).unwrap_or_default());
        }
        i = ascii_end;
        if i >= bytes.len() {
            break;
        }
        let width = match bytes[i] {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 0,
        };
        if width > 0 && i + width <= bytes.len() {
            if let Ok(s) = std::str::from_utf8(&bytes[i..i + width]) {
                walk.good += 1;
                if let Some(o) = out.as_deref_mut() {
                    o.push_str(s);
                }
                i += width;
                continue;
            }
        }
        // A lead byte followed by continuation bytes, some of them replaced
        // by `?`, or cut off by the end: damaged. Anything else: bad.
        let mut j = i + 1;
        let mut question = false;
        while width > 0 && j < bytes.len() && j < i + width {
            match bytes[j] {
                0x80..=0xBF => j += 1,
                b'?' => {
                    question = true;
                    j += 1;
                }
                _ => break,
            }
        }
        let complete = j == i + width && question;
        // Cut off by the end of the bytes, or of an SGF value within a span.
        let truncated = width > 0 && (j == bytes.len() || bytes[j] == b']');
        if complete || truncated {
            walk.damaged += 1;
            i = j;
        } else {
            walk.bad += 1;
            i += 1;
        }
        if let Some(o) = out.as_deref_mut() {
            o.push(char::REPLACEMENT_CHARACTER);
        }
    }
    walk
}

/// Whether `bytes` are best read as UTF-8: well-formed, or damaged in the
/// ways real files are, with little that fits no UTF-8 reading at all.
///
/// Legacy CJK text almost never forms valid multi-byte UTF-8 sequences, so a
/// few stray bad bytes among many good sequences still mean UTF-8.
fn looks_utf8(bytes: &[u8]) -> bool {
    if bytes.is_ascii() {
        return true;
    }
    let walk = walk_utf8(bytes, None);
    walk.bad == 0 || walk.good >= 4 * walk.bad
}

/// Unescapes the SGF text `raw` and decodes it with `enc`.
///
/// Borrows when it can: ASCII without backslashes, and valid UTF-8 without
/// backslashes, are returned as they are.
pub fn decode_text<'a>(raw: &'a [u8], enc: &'static Encoding) -> Cow<'a, str> {
    if !raw.contains(&b'\\') {
        return decode_plain(raw, enc);
    }
    let mut buf = Vec::with_capacity(raw.len());
    unescape_text(raw, enc, &mut buf);
    Cow::Owned(decode_plain(&buf, enc).into_owned())
}

fn decode_plain<'a>(bytes: &'a [u8], enc: &'static Encoding) -> Cow<'a, str> {
    if enc == UTF_8 || (enc.is_ascii_compatible() && bytes.is_ascii()) {
        return match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => {
                let mut s = String::with_capacity(bytes.len() + 8);
                walk_utf8(bytes, Some(&mut s));
                Cow::Owned(s)
            }
        };
    }
    enc.decode_without_bom_handling(bytes).0
}

/// The double-byte structure of `enc`, where a trail byte can be `\` or `]`
/// (Shift-JIS, Big5, GBK/GB18030): such pairs are copied whole, or a name
/// like `ソ` (`0x83 0x5C` in Shift-JIS) would lose its second byte as an
/// escape.
#[derive(Copy, Clone, PartialEq, Eq)]
enum DoubleByte {
    None,
    ShiftJis,
    Big5,
    Gb,
}

impl DoubleByte {
    fn of(enc: &'static Encoding) -> DoubleByte {
        if enc == SHIFT_JIS {
            DoubleByte::ShiftJis
        } else if enc == BIG5 {
            DoubleByte::Big5
        } else if enc == GBK || enc == GB18030 {
            DoubleByte::Gb
        } else {
            DoubleByte::None
        }
    }

    /// Length of the character starting at `b[0]`: 1, 2, or 4 (GB18030).
    fn char_len(self, b: &[u8]) -> usize {
        let (lead, trail) = match self {
            DoubleByte::None => return 1,
            DoubleByte::ShiftJis => (
                matches!(b[0], 0x81..=0x9F | 0xE0..=0xFC),
                b.get(1)
                    .is_some_and(|t| matches!(t, 0x40..=0x7E | 0x80..=0xFC)),
            ),
            DoubleByte::Big5 => (
                matches!(b[0], 0x81..=0xFE),
                b.get(1)
                    .is_some_and(|t| matches!(t, 0x40..=0x7E | 0xA1..=0xFE)),
            ),
            DoubleByte::Gb => {
                if b.len() >= 4
                    && matches!(b[0], 0x81..=0xFE)
                    && b[1].is_ascii_digit()
                    && matches!(b[2], 0x81..=0xFE)
                    && b[3].is_ascii_digit()
                {
                    return 4;
                }
                (
                    matches!(b[0], 0x81..=0xFE),
                    b.get(1)
                        .is_some_and(|t| matches!(t, 0x40..=0x7E | 0x80..=0xFE)),
                )
            }
        };
        if lead && trail {
            2
        } else {
            1
        }
    }
}

/// Appends the SGF `Text` reading of a raw value to `out` (not cleared, so
/// callers can join values or reuse a buffer): `\` makes the next character
/// literal, `\` before a line break (`\n`, `\r`, `\r\n` or `\n\r`) removes
/// both (a soft break), other breaks are kept, and tab, vertical tab and form
/// feed become spaces as the SGF spec asks.
///
/// Needs the encoding because Shift-JIS, Big5 and GBK trail bytes can be `\`
/// or `]`: double-byte characters are kept whole (see `DoubleByte`).
pub fn unescape_text(raw: &[u8], enc: &'static Encoding, out: &mut Vec<u8>) {
    let db = DoubleByte::of(enc);
    let mut i = 0;
    let mut escaped = false;
    while i < raw.len() {
        let c = raw[i];
        if c == b'\\' && !escaped {
            escaped = true;
            i += 1;
            continue;
        }
        if escaped && (c == b'\n' || c == b'\r') {
            let pair = if c == b'\n' { b'\r' } else { b'\n' };
            i += 1;
            if raw.get(i) == Some(&pair) {
                i += 1;
            }
            escaped = false;
            continue;
        }
        escaped = false;
        let len = db.char_len(&raw[i..]).min(raw.len() - i);
        match c {
            b'\t' | 0x0b | 0x0c if len == 1 => out.push(b' '),
            _ => out.extend_from_slice(&raw[i..i + len]),
        }
        i += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{EUC_KR, WINDOWS_1252};

    fn enc(e: &'static Encoding, s: &str) -> Vec<u8> {
        let (bytes, _, bad) = e.encode(s);
        assert!(!bad, "{s} not encodable in {}", e.name());
        bytes.into_owned()
    }

    /// A realistic game span around one value, so detection sees a record.
    fn span(value: &[u8]) -> Vec<u8> {
        let mut v = b"(;GM[1]FF[4]SZ[19]PB[".to_vec();
        v.extend_from_slice(value);
        v.extend_from_slice(b"]PW[x];B[pd];W[dp])");
        v
    }

    #[test]
    fn detects_cjk_and_latin_legacy_encodings() {
        let cases: [(&'static Encoding, &str); 6] = [
            (GB18030, "黑中盘胜，白棋认输。黑方中盘胜利"),
            (SHIFT_JIS, "黒の中押し勝ち。白が投了しました"),
            (EUC_KR, "흑 불계승. 백이 돌을 던졌습니다"),
            (BIG5, "黑中盤勝，白棋認輸。黑方中盤勝利"),
            (WINDOWS_1252, "Müller gegen Jürgen, Köln"),
            (UTF_8, "黑中盘胜"),
        ];
        for (e, s) in cases {
            let bytes = enc(e, s);
            let got = detect_encoding(&span(&bytes), None);
            assert_eq!(got, e, "{s}");
            assert_eq!(decode_text(&bytes, got), s);
        }
    }

    #[test]
    fn short_values_use_the_span_as_context() {
        let name = enc(GB18030, "柯洁");
        let mut context = span(&name);
        context.extend_from_slice(&enc(GB18030, "C[黑中盘胜，白棋认输。这是一盘好棋]"));
        let got = detect_encoding_of(&[&name], &context, None);
        assert_eq!(got, GB18030);
        assert_eq!(decode_text(&name, got), "柯洁");
    }

    #[test]
    fn ca_is_honoured_only_when_the_bytes_fit() {
        let latin = enc(WINDOWS_1252, "Müller");
        assert_eq!(detect_encoding(&latin, Some(b"ISO-8859-1")), WINDOWS_1252);
        assert_eq!(
            detect_encoding(b"plain", Some(b"ISO-8859-3")),
            Encoding::for_label(b"ISO-8859-3").unwrap()
        );
        // CA[UTF-8] over GB18030 bytes, as in fox files.
        let gb = span(&enc(GB18030, "黑中盘胜，白棋认输。黑方中盘胜利"));
        assert_eq!(detect_encoding(&gb, Some(b"UTF-8")), GB18030);
        // Unknown labels and UTF-16 are ignored.
        assert_eq!(detect_encoding(b"abc", Some(b"foo")), UTF_8);
        assert_eq!(detect_encoding(b"abc", Some(b"UTF-16")), UTF_8);
        assert_eq!(detect_encoding("黑".as_bytes(), Some(b" utf-8 ")), UTF_8);
    }

    #[test]
    fn question_mark_damaged_utf8_is_utf8() {
        // Real fox bytes: 柯洁 with the last byte of 洁 replaced, and a middle
        // byte replaced in another character.
        let raw = b"\xe6\x9f\xaf\xe6\xb4?";
        assert_eq!(detect_encoding(raw, None), UTF_8);
        assert_eq!(decode_text(raw, UTF_8), "柯\u{FFFD}");
        let raw = b"\xe6\xa2\xa6\xe7\x99\xbe\xe5?\x88\xe6?\xaf64";
        assert_eq!(detect_encoding(raw, None), UTF_8);
        assert_eq!(decode_text(raw, UTF_8), "梦百\u{FFFD}\u{FFFD}64");
        // Two bytes of one character replaced.
        let raw = b"\xe5??\xe9\x91\xab\xe9\x9b\x86\xe6\x88?";
        assert_eq!(detect_encoding(raw, None), UTF_8);
        assert_eq!(decode_text(raw, UTF_8), "\u{FFFD}鑫集\u{FFFD}");
        // Cut off at the end of a value.
        assert_eq!(
            detect_encoding(b"\xe4\xbd\xa0\xe5\x9b", Some(b"UTF-8")),
            UTF_8
        );
        assert_eq!(detect_encoding(b"PB[\xe4\xbd\xa0\xe5\x9b]", None), UTF_8);
    }

    #[test]
    fn unescapes_before_decoding() {
        assert_eq!(decode_text(br"a\]b\\c\:d", UTF_8), r"a]b\c:d");
        assert_eq!(decode_text(b"soft\\\nbreak", UTF_8), "softbreak");
        assert_eq!(decode_text(b"soft\\\r\nbreak", UTF_8), "softbreak");
        assert_eq!(decode_text(b"hard\nbreak", UTF_8), "hard\nbreak");
        assert_eq!(decode_text(b"end\\", UTF_8), "end");
        // Shift-JIS ソ is 0x83 0x5C: its trail byte is not an escape.
        let so = enc(SHIFT_JIS, "ソ\\]");
        assert_eq!(so, b"\x83\x5c\x5c\x5d");
        assert_eq!(decode_text(&so, SHIFT_JIS), "ソ]");
    }

    #[test]
    fn ascii_and_clean_utf8_borrow() {
        assert!(matches!(decode_text(b"Lee Sedol", UTF_8), Cow::Borrowed(_)));
        assert!(matches!(
            decode_text(b"Lee Sedol", GB18030),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            decode_text("李世乭".as_bytes(), UTF_8),
            Cow::Borrowed(_)
        ));
        assert!(matches!(decode_text(br"a\]", UTF_8), Cow::Owned(_)));
    }

    #[test]
    fn walk_counts_damage_apart_from_foreign_bytes() {
        let w = walk_utf8(b"\xe5?\x88x", None);
        assert_eq!(
            w,
            Utf8Walk {
                good: 0,
                damaged: 1,
                bad: 0
            }
        );
        // GB18030 forms the odd valid UTF-8 pair by accident, no more.
        let gb = enc(GB18030, "黑中盘胜");
        let w = walk_utf8(&gb, None);
        assert!(w.good <= 1 && w.bad >= 4, "{w:?}");
        assert!(!looks_utf8(&gb));
    }
}
