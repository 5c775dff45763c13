//! Runs the `RE`/`KM`/`RU` parsers over every record in `../shared/corpora`
//! and prints what they made of it. Ignored by default (the corpora are not in
//! the repository): `cargo test -p verdict-rules --test info_corpus --
//! --ignored --nocapture`.
//!
//! Values are found with a naive scan (first `RE[`, `KM[`, `RU[`, `CA[` after
//! each `(;`), not the SGF reader, so that this runs whatever state the reader
//! is in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use verdict_rules::info::{GameResult, Komi, KomiScale, Rules, WinBy};
use verdict_rules::text;

fn corpora() -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/corpora"))
        .find(|p| p.is_dir())
        .or_else(|| {
            let p = here.join("../../shared/corpora");
            p.is_dir().then_some(p)
        })
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if !p
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("md") || x.eq_ignore_ascii_case("txt"))
        {
            out.push(p);
        }
    }
}

/// The first value of `ident` in `game`, escapes kept.
fn value<'a>(game: &'a [u8], ident: &[u8]) -> Option<&'a [u8]> {
    let mut from = 0;
    while let Some(pos) = find(&game[from..], ident).map(|p| p + from) {
        let after = pos + ident.len();
        let before_ok = pos == 0 || !game[pos - 1].is_ascii_uppercase();
        if before_ok && game.get(after) == Some(&b'[') {
            let start = after + 1;
            let mut i = start;
            while i < game.len() && game[i] != b']' {
                i += if game[i] == b'\\' { 2 } else { 1 };
            }
            return Some(&game[start..i.min(game.len())]);
        }
        from = after;
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
#[ignore = "needs ../shared/corpora"]
fn parse_every_corpus_value() {
    let Some(root) = corpora() else {
        eprintln!("corpora not found: skipped");
        return;
    };
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let mut kinds: BTreeMap<&str, u32> = BTreeMap::new();
    let mut bad_re: BTreeMap<String, u32> = BTreeMap::new();
    let mut scaled_re = 0u32;
    let mut scaled_texts: BTreeMap<String, u32> = BTreeMap::new();
    let mut komi_scales: BTreeMap<String, u32> = BTreeMap::new();
    let mut bad_km: BTreeMap<String, u32> = BTreeMap::new();
    let mut rules: BTreeMap<String, u32> = BTreeMap::new();
    let mut encodings: BTreeMap<&str, u32> = BTreeMap::new();
    let mut games = 0u32;
    let mut whole_file: BTreeMap<&str, (u32, Vec<String>)> = BTreeMap::new();
    let mut samples: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let whole = text::detect_encoding(&bytes, value(&bytes, b"CA"));
        let e = whole_file.entry(whole.name()).or_insert((0, Vec::new()));
        e.0 += 1;
        if e.1.len() < 5 {
            e.1.push(path.display().to_string());
        }
        let mut starts: Vec<usize> = bytes
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w == b"(;")
            .map(|(i, _)| i)
            .collect();
        // Some fox files lack the opening `(`: their game starts at `;`.
        if starts.first().is_none_or(|&s| bytes[..s].contains(&b';')) {
            starts.insert(0, 0);
        }
        for (n, &s) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(bytes.len());
            let game = &bytes[s..end];
            let (re, km, ru) = (value(game, b"RE"), value(game, b"KM"), value(game, b"RU"));
            if re.is_none() && km.is_none() && ru.is_none() {
                continue;
            }
            games += 1;
            let ca = value(game, b"CA");
            let values: Vec<&[u8]> = [re, km, ru, value(game, b"PB"), value(game, b"PW")]
                .into_iter()
                .flatten()
                .collect();
            let enc = text::detect_encoding_of(&values, game, ca);
            *encodings.entry(enc.name()).or_default() += 1;
            if enc != encoding_rs::UTF_8 {
                let names: Vec<String> = [value(game, b"PB"), value(game, b"PW")]
                    .into_iter()
                    .flatten()
                    .map(|v| text::decode_text(v, enc).into_owned())
                    .collect();
                let sample = samples.entry(enc.name()).or_default();
                if sample.len() < 8 {
                    sample.push(format!("{}: {names:?}", path.display()));
                }
            }
            if let Some(re) = re {
                let (result, ok) = match GameResult::from_raw(re, enc) {
                    Ok(r) => (r, true),
                    Err(e) => (e.partial, false),
                };
                if !ok {
                    let text = text::decode_text(re, enc).into_owned();
                    *bad_re.entry(format!("{text:?} -> {result}")).or_default() += 1;
                }
                let kind = match result {
                    GameResult::Win { by, scaled, .. } => match by {
                        WinBy::Points(_) => {
                            if scaled {
                                let text = text::decode_text(re, enc).into_owned();
                                *scaled_texts
                                    .entry(format!("{text} -> {result}"))
                                    .or_default() += 1;
                            }
                            scaled_re += u32::from(scaled);
                            "win_points"
                        }
                        WinBy::Resign => "win_resign",
                        WinBy::Time => "win_time",
                        WinBy::Forfeit => "win_forfeit",
                        WinBy::Referee => "win_referee",
                        WinBy::Unspecified => "win_unspecified",
                    },
                    GameResult::Draw => "draw",
                    GameResult::Void => "void",
                    GameResult::Unknown => "unknown",
                    GameResult::Missing => "missing",
                };
                *kinds.entry(kind).or_default() += 1;
            } else {
                *kinds.entry("missing").or_default() += 1;
            }
            if let Some(km) = km {
                match Komi::from_raw(km, enc) {
                    Ok(k) => {
                        let scale = match k.scale {
                            KomiScale::Points => "points",
                            KomiScale::Stones => "stones",
                            KomiScale::Hundredths => "hundredths",
                            KomiScale::HundredthsOfStones => "hundredths_of_stones",
                        };
                        *komi_scales
                            .entry(format!("{scale} {}", k.points))
                            .or_default() += 1;
                    }
                    Err(_) => {
                        *bad_km
                            .entry(String::from_utf8_lossy(km).into_owned())
                            .or_default() += 1
                    }
                }
            }
            if let Some(ru) = ru {
                let (family, k) = Rules::from_raw(ru, enc);
                let key = format!(
                    "{:?} -> {}{}",
                    String::from_utf8_lossy(ru),
                    family,
                    if k.is_some() { " (katago)" } else { "" }
                );
                *rules.entry(key).or_default() += 1;
            }
        }
    }
    println!("files {} games-with-info {games}", paths.len());
    println!("result kinds: {kinds:#?}");
    println!("results in stones (doubled): {scaled_re}");
    println!("stone results: {scaled_texts:#?}");
    println!("unparsed RE (BadResult): {bad_re:#?}");
    println!("komi: {komi_scales:#?}");
    println!("unparsed KM (BadKomi): {bad_km:#?}");
    println!("rules: {rules:#?}");
    println!("encodings: {encodings:#?}");
    println!("whole-file encodings: {whole_file:#?}");
    println!("non-UTF-8 samples: {samples:#?}");
}
