//! Handicap (`HA`) and year (`DT`).

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
