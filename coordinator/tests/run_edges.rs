//! `verdict run` at its edges, as real processes: stopped by a signal and
//! resumed, killed and resumed, inputs that cannot be read, compressed
//! files, and the same input reached twice.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// `verdict run` with small chunks and parts, so a stop lands mid-run.
fn run_cmd(corpus: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = verdict();
    c.arg("run")
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .args(["-j", "1", "--chunk-games", "10", "--part-rows", "10"])
        .args(extra);
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Part files the run in `out` has finished so far, in its staging folder.
fn staged_parts(out: &Path) -> usize {
    let Ok(dirs) = std::fs::read_dir(out.join("_staging")) else {
        return 0;
    };
    dirs.filter_map(|d| d.ok())
        .filter_map(|d| std::fs::read_dir(d.path().join("games")).ok())
        .flat_map(|g| g.filter_map(|e| e.ok()))
        .filter(|e| e.file_name().to_string_lossy().ends_with(".parquet"))
        .count()
}

/// Starts a run and waits until it has finished `parts` parts.
fn start_and_wait_for_parts(corpus: &Path, out: &Path, parts: usize) -> std::process::Child {
    let mut child = run_cmd(corpus, out, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while staged_parts(out) < parts {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was stopped: make the corpus bigger"
        );
        assert!(start.elapsed() < Duration::from_secs(120), "no parts");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn corpus_and_whole_run(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = temp(name);
    let corpus = corpus(&dir, 500);
    let whole = dir.join("whole");
    let o = run_cmd(&corpus, &whole, &[]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    (dir, corpus, whole)
}

#[test]
fn ctrl_c_then_resume_equals_an_uninterrupted_run() {
    let (dir, corpus, whole) = corpus_and_whole_run("sigint");
    let out = dir.join("cut");
    let child = start_and_wait_for_parts(&corpus, &out, 3);
    // SAFETY: a plain kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
    let said = stderr(&stopped);
    assert!(said.contains("stopped after"), "{said}");
    assert!(said.contains("--resume"), "{said}");
    // Nothing half-done is published.
    assert!(!out.join("_SUCCESS").exists());
    assert!(!out.join("summary.json").exists());
    assert!(!out.join("games").exists());

    let resumed = run_cmd(&corpus, &out, &["--resume"]).output().unwrap();
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let text = String::from_utf8_lossy(&resumed.stdout);
    assert!(text.contains("resumed"), "the report says so: {text}");
    assert_same_rows(&out, &whole);
    assert_eq!(counts(&out), counts(&whole));
    assert_clean(&out);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_run_resumes_from_its_last_part_and_a_fresh_run_starts_over() {
    let (dir, corpus, whole) = corpus_and_whole_run("kill9");
    let out = dir.join("cut");
    let mut child = start_and_wait_for_parts(&corpus, &out, 2);
    child.kill().unwrap();
    child.wait().unwrap();
    let resumed = run_cmd(&corpus, &out, &["--resume"]).output().unwrap();
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_same_rows(&out, &whole);
    assert_eq!(counts(&out), counts(&whole));
    assert_clean(&out);

    // A resume with other options refuses and says why, and leaves the
    // stopped run's parts alone; a run without --resume starts over.
    let other = dir.join("other");
    let mut child = start_and_wait_for_parts(&corpus, &other, 1);
    child.kill().unwrap();
    child.wait().unwrap();
    let refused = run_cmd(&corpus, &other, &["--resume", "--komi", "0.5"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("resume"), "{}", stderr(&refused));
    let fresh = run_cmd(&corpus, &other, &[]).output().unwrap();
    assert!(fresh.status.success(), "{}", stderr(&fresh));
    assert!(!String::from_utf8_lossy(&fresh.stdout).contains("resumed"));
    assert_same_rows(&other, &whole);
    assert_clean(&other);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 9x9 game with a result, as text.
fn game(seed: usize) -> String {
    let col = |k: usize| (b'a' + (k % 9) as u8) as char;
    let mut moves = String::new();
    for (k, c) in ["B", "W", "B", "W"].iter().enumerate() {
        moves.push_str(&format!(";{c}[{}{}]", col(seed + k), col(k * 2)));
    }
    format!("(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]PB[p{seed}]{moves}RE[W+R])\n")
}

#[test]
fn inputs_that_cannot_be_read_are_named_and_the_run_exits_2() {
    let dir = temp("unreadable");
    let good = dir.join("good");
    std::fs::create_dir_all(&good).unwrap();
    std::fs::write(good.join("a.sgf"), game(1)).unwrap();
    std::fs::write(good.join("b.sgf"), game(2)).unwrap();
    // xz: recognised by its magic bytes, never read as SGF text.
    let mut xz = b"\xFD7zXZ\x00".to_vec();
    xz.extend_from_slice(&[0u8; 64]);
    std::fs::write(good.join("c.sgf.xz"), &xz).unwrap();
    // A zip archive cut short.
    let zip = dir.join("cut.zip");
    let made = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n\
             z.writestr('g.sgf', sys.argv[2] * 50)\nz.close()\n\
             d = open(sys.argv[1], 'rb').read()\nopen(sys.argv[1], 'wb').write(d[:len(d) // 2])",
            zip.to_str().unwrap(),
            &game(3),
        ])
        .status()
        .unwrap();
    assert!(made.success());
    let missing = dir.join("no-such-folder");
    let out = dir.join("out");
    let o = verdict()
        .arg("run")
        .args([&good, &zip, &missing])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let said = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    for name in ["c.sgf.xz", "cut.zip", "no-such-folder"] {
        assert!(
            said.lines()
                .any(|l| l.starts_with("verdict: cannot read") && l.contains(name)),
            "{name} is named: {said}"
        );
    }
    assert!(said.contains("xz"), "the reason names the format: {said}");
    // What could be read was analysed and published.
    let got = rows(&out);
    assert_eq!(got.iter().filter(|r| r.contains("good/a.sgf")).count(), 1);
    assert_eq!(got.iter().filter(|r| r.contains("good/b.sgf")).count(), 1);
    // The xz file is one skipped row saying why, not junk rows of its bytes.
    let xz: Vec<&String> = got.iter().filter(|r| r.contains("c.sgf.xz")).collect();
    assert_eq!(xz.len(), 1, "{xz:?}");
    assert!(xz[0].contains("|status=skipped|"), "{}", xz[0]);
    assert!(xz[0].contains("|skip_reason=unreadable|"), "{}", xz[0]);
    assert!(out.join("_SUCCESS").exists());
    // Every command that reads inputs names the same ones, archive members
    // found unreadable during the walk too, and exits 2.
    for cmd in [
        &["replay"][..],
        &["check"][..],
        &["eval", "deadstones"][..],
        &["eval", "results"][..],
    ] {
        let o = verdict()
            .args(cmd)
            .args([&good, &zip, &missing])
            .output()
            .unwrap();
        let said = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}: {said}");
        for name in ["c.sgf.xz", "cut.zip", "no-such-folder"] {
            assert!(
                said.lines()
                    .any(|l| l.starts_with("verdict: cannot read") && l.contains(name)),
                "{cmd:?} names {name}: {said}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compressed_files_give_the_games_of_the_plain_ones() {
    let dir = temp("compressed");
    let plain = dir.join("plain");
    let packed = dir.join("packed");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::create_dir_all(&packed).unwrap();
    let collection: String = (0..5).map(game).collect();
    std::fs::write(plain.join("one.sgf"), &collection).unwrap();
    std::fs::write(plain.join("two.sgf"), game(7)).unwrap();
    let made = Command::new("python3")
        .args([
            "-c",
            "import sys, gzip, bz2\n\
             open(sys.argv[2] + '/one.sgf.gz', 'wb').write(gzip.compress(open(sys.argv[1] + '/one.sgf', 'rb').read()))\n\
             open(sys.argv[2] + '/two.sgf.bz2', 'wb').write(bz2.compress(open(sys.argv[1] + '/two.sgf', 'rb').read()))",
            plain.to_str().unwrap(),
            packed.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(made.success());
    let hashes = |input: &Path, name: &str| {
        let out = dir.join(name);
        let o = verdict()
            .arg("run")
            .arg(input)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let mut h: Vec<String> = rows(&out)
            .iter()
            .map(|r| {
                r.split('|')
                    .filter(|c| c.starts_with("game_hash=") || c.starts_with("jpd_a_margin="))
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        h.sort();
        h
    };
    let (a, b) = (hashes(&plain, "a"), hashes(&packed, "b"));
    assert_eq!(a.len(), 6);
    assert_eq!(a, b);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_input_reached_twice_is_read_once() {
    let dir = temp("twice");
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    for k in 0..3 {
        std::fs::write(data.join(format!("g{k}.sgf")), game(k)).unwrap();
    }
    std::os::unix::fs::symlink(data.join("g0.sgf"), dir.join("link.sgf")).unwrap();
    let once = dir.join("once");
    let o = verdict()
        .arg("run")
        .arg(&data)
        .arg("--out")
        .arg(&once)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let twice = dir.join("twice");
    let o = verdict()
        .arg("run")
        .arg(&data)
        .arg(format!("{}/", data.display()))
        .arg(data.join("g1.sgf"))
        .arg(dir.join("link.sgf"))
        .arg("--out")
        .arg(&twice)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&twice).len(), 3);
    assert_eq!(counts(&twice)["games"], 3);
    assert!(stderr(&o).contains("left aside"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without a terminal, a run says how far it got while a chunk is still
/// being analysed (counted game by game), not only between chunks.
#[test]
fn a_run_without_a_terminal_reports_progress_within_a_chunk() {
    let dir = temp("progress");
    let corpus = synth(&dir, "corpus", 400, 5);
    let o = verdict()
        .arg("run")
        .arg(&corpus)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["-j", "1", "--chunk-games", "100000", "--no-report"])
        .env("VERDICT_PROGRESS_SECONDS", "0.2")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let counts: Vec<u64> = stderr(&o)
        .lines()
        .filter_map(|l| l.strip_prefix("verdict: "))
        .filter_map(|l| l.split_once(" games, "))
        .filter_map(|(n, _)| n.parse().ok())
        .collect();
    // One chunk holds all 400 games: a line with fewer was written during it.
    assert!(
        counts.iter().any(|&n| n > 0 && n < 400),
        "progress within the chunk: {counts:?}\n{}",
        stderr(&o)
    );
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
