//! Reading SGF records out of archives: every kind is built here with the
//! same crates, read back, and checked for names, bytes, order and the
//! reasons given for what is not read; damaged archives report what came
//! before the damage, then fail.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use verdict_worker::archive::{read_archive, ArchiveError, ArchiveKind, Member};

const ALL: [ArchiveKind; 5] = [
    ArchiveKind::Zip,
    ArchiveKind::Tar,
    ArchiveKind::TarGz,
    ArchiveKind::TarBz2,
    ArchiveKind::TarZst,
];

/// A fresh, empty folder for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verdict-archive-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ending(kind: ArchiveKind) -> &'static str {
    match kind {
        ArchiveKind::Zip => "zip",
        ArchiveKind::Tar => "tar",
        ArchiveKind::TarGz => "tar.gz",
        ArchiveKind::TarBz2 => "tar.bz2",
        ArchiveKind::TarZst => "tar.zst",
    }
}

/// What goes into a test archive, in order.
enum Entry<'a> {
    File(&'a str, Vec<u8>),
    Dir(&'a str),
    Symlink(&'a str, &'a str),
}

/// Writes `entries` as an archive of `kind` at `path`; zip members are
/// stored (not compressed) when `stored`, so that tests can find their bytes.
fn build(path: &Path, kind: ArchiveKind, entries: &[Entry], stored: bool) {
    let file = std::fs::File::create(path).unwrap();
    match kind {
        ArchiveKind::Zip => build_zip(file, entries, stored),
        ArchiveKind::Tar => {
            build_tar(file, entries).flush().unwrap();
        }
        ArchiveKind::TarGz => {
            let gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            build_tar(gz, entries).finish().unwrap();
        }
        ArchiveKind::TarBz2 => {
            // Small blocks, so that a cut-off stream still holds whole blocks.
            let bz = bzip2::write::BzEncoder::new(file, bzip2::Compression::fast());
            build_tar(bz, entries).finish().unwrap();
        }
        ArchiveKind::TarZst => {
            let zst = zstd::stream::write::Encoder::new(file, 3).unwrap();
            build_tar(zst, entries).finish().unwrap();
        }
    }
}

fn build_tar<W: Write>(out: W, entries: &[Entry]) -> W {
    let mut tar = tar::Builder::new(out);
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mtime(1_700_000_000);
        match entry {
            Entry::File(name, bytes) => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(0o644);
                header.set_size(bytes.len() as u64);
                tar.append_data(&mut header, name, bytes.as_slice())
                    .unwrap();
            }
            Entry::Dir(name) => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_mode(0o755);
                header.set_size(0);
                tar.append_data(&mut header, name, std::io::empty())
                    .unwrap();
            }
            Entry::Symlink(name, target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_mode(0o777);
                header.set_size(0);
                tar.append_link(&mut header, name, target).unwrap();
            }
        }
    }
    tar.into_inner().unwrap()
}

fn build_zip(file: std::fs::File, entries: &[Entry], stored: bool) {
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new(file);
    let method = if stored {
        zip::CompressionMethod::Stored
    } else {
        zip::CompressionMethod::Deflated
    };
    let options = SimpleFileOptions::default().compression_method(method);
    for entry in entries {
        match entry {
            Entry::File(name, bytes) => {
                zip.start_file(*name, options).unwrap();
                zip.write_all(bytes).unwrap();
            }
            Entry::Dir(name) => zip.add_directory(*name, options).unwrap(),
            Entry::Symlink(name, target) => zip.add_symlink(*name, *target, options).unwrap(),
        }
    }
    zip.finish().unwrap();
}

/// What a read reported, in the order it was reported.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Member(String, Vec<u8>),
    Skipped(String, String),
}

fn read_all(path: &Path, kind: ArchiveKind, max: u64) -> (Vec<Event>, Result<(), ArchiveError>) {
    let events = std::cell::RefCell::new(Vec::new());
    let result = read_archive(
        path,
        kind,
        max,
        &mut |m: Member| {
            events.borrow_mut().push(Event::Member(m.name, m.bytes));
            ControlFlow::Continue(())
        },
        &mut |name, reason| {
            events
                .borrow_mut()
                .push(Event::Skipped(name.to_string(), reason.to_string()))
        },
    );
    (events.into_inner(), result)
}

fn members(events: &[Event]) -> Vec<(&str, &[u8])> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Member(name, bytes) => Some((name.as_str(), bytes.as_slice())),
            Event::Skipped(..) => None,
        })
        .collect()
}

const GAME_A: &str = "(;GM[1]FF[4]SZ[9]KM[7]RU[Japanese];B[ee];W[cc];B[gc];W[cg])";
const GAME_B: &str = "(;GM[1]FF[4]SZ[9]RE[B+R];B[ee];W[cc];B[gg]C[resigns])";
const GAME_C: &str =
    "(;GM[1]SZ[19]PB[Black]PW[White];B[pd];W[dp];B[pp];W[dd])\n(;GM[1]SZ[9];B[ee])";

/// A long, hard-to-compress game record: `moves` moves from a simple LCG.
fn long_game(seed: u64, moves: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut text = String::from("(;GM[1]FF[4]SZ[19]");
    for i in 0..moves {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = (b'a' + ((state >> 33) % 19) as u8) as char;
        let y = (b'a' + ((state >> 45) % 19) as u8) as char;
        let colour = if i % 2 == 0 { 'B' } else { 'W' };
        text.push_str(&format!(";{colour}[{x}{y}]"));
        if (state >> 20).is_multiple_of(7) {
            text.push_str(&format!("C[{}]", state % 100_000));
        }
    }
    text.push_str(")\n");
    text.into_bytes()
}

fn mixed_entries(big: &[u8]) -> Vec<Entry<'_>> {
    vec![
        Entry::File("a.sgf", GAME_A.as_bytes().to_vec()),
        Entry::File("notes.txt", b"not a game record\n".to_vec()),
        Entry::Dir("dir/"),
        Entry::File("dir/b.SGF", GAME_B.as_bytes().to_vec()),
        Entry::Dir("dir/deeper/"),
        Entry::File("dir/deeper/c.sgf", GAME_C.as_bytes().to_vec()),
        Entry::File("empty.sgf", Vec::new()),
        Entry::File("inner.tar.gz", b"\x1f\x8b pretend".to_vec()),
        Entry::Symlink("link.sgf", "a.sgf"),
        Entry::File("big.sgf", big.to_vec()),
        Entry::File("z-last.sgf", b"(;GM[1]SZ[9])".to_vec()),
    ]
}

#[test]
fn every_kind_reads_members_in_order_and_says_what_it_skips() {
    let dir = temp_dir("mixed");
    let big = long_game(1, 2_000);
    assert!(big.len() > 4096);
    let entries = mixed_entries(&big);
    for kind in ALL {
        for stored in [false, true] {
            if stored && kind != ArchiveKind::Zip {
                continue;
            }
            let path = dir.join(format!("mixed-{stored}.{}", ending(kind)));
            build(&path, kind, &entries, stored);
            assert_eq!(ArchiveKind::of_path(&path), Some(kind));
            let (events, result) = read_all(&path, kind, 4096);
            result.unwrap_or_else(|e| panic!("{kind}: {e}"));
            let m = |name: &str, bytes: &[u8]| Event::Member(name.to_string(), bytes.to_vec());
            let s = |name: &str, reason: &str| Event::Skipped(name.to_string(), reason.to_string());
            let expected_before_big = [
                m("a.sgf", GAME_A.as_bytes()),
                s("notes.txt", "not an .sgf file"),
                m("dir/b.SGF", GAME_B.as_bytes()),
                m("dir/deeper/c.sgf", GAME_C.as_bytes()),
                m("empty.sgf", b""),
                s("inner.tar.gz", "nested archive"),
                s("link.sgf", "symbolic link, not a regular file"),
            ];
            assert_eq!(
                events[..7],
                expected_before_big[..],
                "{kind} stored={stored}"
            );
            match &events[7] {
                Event::Skipped(name, reason) => {
                    assert_eq!(name, "big.sgf");
                    assert!(
                        reason.contains("too large") && reason.contains("4096"),
                        "{kind}: {reason}"
                    );
                    assert!(reason.contains(&big.len().to_string()), "{kind}: {reason}");
                }
                other => panic!("{kind}: big.sgf was not skipped: {other:?}"),
            }
            assert_eq!(events[8], m("z-last.sgf", b"(;GM[1]SZ[9])"), "{kind}");
            assert_eq!(events.len(), 9, "{kind}: {events:?}");

            // With a limit above it, the big member is read like any other.
            let (events, result) = read_all(&path, kind, 1 << 20);
            result.unwrap();
            let names: Vec<_> = members(&events).iter().map(|(n, _)| *n).collect();
            assert_eq!(
                names,
                [
                    "a.sgf",
                    "dir/b.SGF",
                    "dir/deeper/c.sgf",
                    "empty.sgf",
                    "big.sgf",
                    "z-last.sgf"
                ],
                "{kind}"
            );
            assert_eq!(members(&events)[4].1, big.as_slice());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn break_stops_the_read_early() {
    let dir = temp_dir("break");
    let big = long_game(2, 100);
    let entries = mixed_entries(&big);
    for kind in ALL {
        let path = dir.join(format!("break.{}", ending(kind)));
        build(&path, kind, &entries, false);
        let mut seen = Vec::new();
        let mut skipped = Vec::new();
        read_archive(
            &path,
            kind,
            1 << 20,
            &mut |m| {
                seen.push(m.name);
                if seen.len() == 2 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            &mut |name, _| skipped.push(name.to_string()),
        )
        .unwrap();
        assert_eq!(seen, ["a.sgf", "dir/b.SGF"], "{kind}");
        assert_eq!(skipped, ["notes.txt"], "{kind}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn empty_archives_read_as_empty() {
    let dir = temp_dir("empty");
    for kind in ALL {
        let path = dir.join(format!("empty.{}", ending(kind)));
        build(&path, kind, &[], false);
        let (events, result) = read_all(&path, kind, 1 << 20);
        result.unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(events.is_empty(), "{kind}: {events:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Many sizeable members, so that a cut-off copy still holds whole ones.
fn long_entries() -> (Vec<String>, Vec<Vec<u8>>) {
    let names: Vec<String> = (0..12).map(|i| format!("games/g{i:02}.sgf")).collect();
    let games: Vec<Vec<u8>> = (0..12).map(|i| long_game(100 + i, 3_000)).collect();
    (names, games)
}

/// A damaged archive: what was reported is a leading run of the members,
/// whole and in order; then an error naming the archive.
fn assert_prefix_then_error(
    kind: ArchiveKind,
    path: &Path,
    names: &[String],
    games: &[Vec<u8>],
    at_least: usize,
) -> String {
    let (events, result) = read_all(path, kind, 1 << 20);
    let got = members(&events);
    assert!(
        got.len() >= at_least && got.len() < names.len(),
        "{kind}: {} members read before the damage",
        got.len()
    );
    for (i, (name, bytes)) in got.iter().enumerate() {
        assert_eq!(*name, names[i], "{kind}");
        assert_eq!(*bytes, games[i].as_slice(), "{kind}: {name}");
    }
    assert_eq!(events.len(), got.len(), "{kind}: {events:?}");
    let err = result.expect_err("a damaged archive reads as an error");
    assert!(
        matches!(err, ArchiveError::Damaged { .. }),
        "{kind}: {err:?}"
    );
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    message
}

#[test]
fn cut_off_tar_streams_report_what_came_before_then_fail() {
    let dir = temp_dir("truncated");
    let (names, games) = long_entries();
    let entries: Vec<Entry> = names
        .iter()
        .zip(&games)
        .map(|(n, g)| Entry::File(n, g.clone()))
        .collect();
    for kind in [
        ArchiveKind::Tar,
        ArchiveKind::TarGz,
        ArchiveKind::TarBz2,
        ArchiveKind::TarZst,
    ] {
        let path = dir.join(format!("whole.{}", ending(kind)));
        build(&path, kind, &entries, false);
        let (events, result) = read_all(&path, kind, 1 << 20);
        result.unwrap();
        assert_eq!(members(&events).len(), 12);

        let bytes = std::fs::read(&path).unwrap();
        let cut = dir.join(format!("cut.{}", ending(kind)));
        std::fs::write(&cut, &bytes[..bytes.len() * 3 / 5]).unwrap();
        let message = assert_prefix_then_error(kind, &cut, &names, &games, 1);
        assert!(message.contains("damaged"), "{message}");

        // Cut at the very end: only the compressed stream's tail is missing
        // (a plain tar that loses part of its end-of-archive blocks has lost
        // nothing).
        if kind == ArchiveKind::Tar {
            continue;
        }
        std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
        let (events, result) = read_all(&cut, kind, 1 << 20);
        assert!(result.is_err(), "{kind}: a cut-off tail went unnoticed");
        assert!(members(&events).len() >= 11, "{kind}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tar_cut_between_members_is_still_noticed() {
    let dir = temp_dir("tar-boundary");
    let entries = [
        Entry::File("a.sgf", GAME_A.as_bytes().to_vec()),
        Entry::File("b.sgf", GAME_B.as_bytes().to_vec()),
    ];
    let path = dir.join("whole.tar");
    build(&path, ArchiveKind::Tar, &entries, false);
    let bytes = std::fs::read(&path).unwrap();
    // One header block and one data block per member: keep the first member.
    let cut = dir.join("cut.tar");
    std::fs::write(&cut, &bytes[..1024]).unwrap();
    let (events, result) = read_all(&cut, ArchiveKind::Tar, 1 << 20);
    assert_eq!(
        events,
        [Event::Member("a.sgf".into(), GAME_A.as_bytes().to_vec())]
    );
    let message = result.unwrap_err().to_string();
    assert!(message.contains("end-of-archive"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupt_zip_member_fails_after_the_members_before_it() {
    let dir = temp_dir("zip-corrupt");
    let (names, games) = long_entries();
    let entries: Vec<Entry> = names
        .iter()
        .zip(&games)
        .map(|(n, g)| Entry::File(n, g.clone()))
        .collect();
    let path = dir.join("games.zip");
    build(&path, ArchiveKind::Zip, &entries, true);
    let mut bytes = std::fs::read(&path).unwrap();
    // Change one byte in the middle of the fifth member's stored data.
    let fifth = &games[4];
    let start = bytes
        .windows(fifth.len())
        .position(|w| w == fifth.as_slice())
        .expect("stored member found in the zip");
    bytes[start + fifth.len() / 2] ^= 0x20;
    let bad = dir.join("bad-member.zip");
    std::fs::write(&bad, &bytes).unwrap();
    let message = assert_prefix_then_error(ArchiveKind::Zip, &bad, &names, &games, 4);
    assert!(message.contains("games/g04.sgf"), "{message}");

    // Deflated data changed in the middle: an inflate or checksum error.
    let path = dir.join("deflated.zip");
    build(&path, ArchiveKind::Zip, &entries, false);
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 64] {
        *b = !*b;
    }
    std::fs::write(&bad, &bytes).unwrap();
    assert_prefix_then_error(ArchiveKind::Zip, &bad, &names, &games, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_zip_without_its_central_directory_is_an_error() {
    let dir = temp_dir("zip-cd");
    let path = dir.join("games.zip");
    build(
        &path,
        ArchiveKind::Zip,
        &[
            Entry::File("a.sgf", GAME_A.as_bytes().to_vec()),
            Entry::File("b.sgf", GAME_B.as_bytes().to_vec()),
        ],
        false,
    );
    let bytes = std::fs::read(&path).unwrap();
    let bad = dir.join("bad.zip");
    for len in [bytes.len() - 10, bytes.len() / 2, 3, 0] {
        std::fs::write(&bad, &bytes[..len]).unwrap();
        let (events, result) = read_all(&bad, ArchiveKind::Zip, 1 << 20);
        assert!(events.is_empty());
        let err = result.expect_err("a zip without its central directory");
        assert!(err.to_string().contains("bad.zip"), "{err}");
    }
    // Not an archive at all, under every name.
    let junk = b"(;GM[1]SZ[9];B[ee]) is a game record, not an archive".repeat(40);
    for kind in ALL {
        let path = dir.join(format!("junk.{}", ending(kind)));
        std::fs::write(&path, &junk).unwrap();
        let (events, result) = read_all(&path, kind, 1 << 20);
        assert!(events.is_empty(), "{kind}");
        assert!(result.is_err(), "{kind}: junk read as an archive");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_archive_is_an_open_error() {
    let path = Path::new("/nonexistent/verdict/games.zip");
    let (events, result) = read_all(path, ArchiveKind::Zip, 1024);
    assert!(events.is_empty());
    let err = result.unwrap_err();
    assert!(matches!(err, ArchiveError::Open { .. }), "{err:?}");
    assert!(err.to_string().contains("games.zip"));
}

#[test]
fn concatenated_gzip_members_read_as_one_stream() {
    // `cat a.tar.gz-part1 part2` as parallel gzip tools write them.
    let dir = temp_dir("multigz");
    let path = dir.join("games.tar");
    build(
        &path,
        ArchiveKind::Tar,
        &[
            Entry::File("a.sgf", GAME_A.as_bytes().to_vec()),
            Entry::File("b.sgf", GAME_B.as_bytes().to_vec()),
        ],
        false,
    );
    let tar = std::fs::read(&path).unwrap();
    let mut out = Vec::new();
    for part in tar.chunks(700) {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(part).unwrap();
        out.extend(gz.finish().unwrap());
    }
    let gz = dir.join("games.tgz");
    std::fs::write(&gz, out).unwrap();
    let (events, result) = read_all(&gz, ArchiveKind::TarGz, 1 << 20);
    result.unwrap();
    assert_eq!(
        members(&events),
        [("a.sgf", GAME_A.as_bytes()), ("b.sgf", GAME_B.as_bytes())]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kinds_are_told_by_name_ignoring_case() {
    let kind = |name: &str| ArchiveKind::of_path(Path::new(name));
    assert_eq!(kind("games.zip"), Some(ArchiveKind::Zip));
    assert_eq!(kind("GAMES.ZIP"), Some(ArchiveKind::Zip));
    assert_eq!(kind("games.tar"), Some(ArchiveKind::Tar));
    assert_eq!(kind("games.tar.gz"), Some(ArchiveKind::TarGz));
    assert_eq!(kind("games.TGZ"), Some(ArchiveKind::TarGz));
    assert_eq!(kind("x/games.Tar.Gz"), Some(ArchiveKind::TarGz));
    assert_eq!(kind("games.tar.bz2"), Some(ArchiveKind::TarBz2));
    assert_eq!(kind("games.tbz2"), Some(ArchiveKind::TarBz2));
    assert_eq!(kind("/data/2024/games.tar.zst"), Some(ArchiveKind::TarZst));
    assert_eq!(kind("games.TZST"), Some(ArchiveKind::TarZst));
    for other in [
        "games.sgf",
        "games.gz",
        "games.sgf.gz",
        "games.zst",
        "games.tar.xz",
        "games.7z",
        "tar",
        ".zip",
        "zip",
        "games",
    ] {
        assert_eq!(kind(other), None, "{other}");
    }
}
