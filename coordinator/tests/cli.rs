//! The `verdict` binary run as a user runs it, on hand-made records.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/data")
}

fn verdict(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .output()
        .expect("running verdict")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "verdict failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

/// An empty folder of its own for one test, under the system's temp dir.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verdict-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The 9x9 board the eval tests share, as setup stones: Black's wall on
/// column c and a stone on a5, White's wall on column d and a stone on i5
/// (each colour with two eyes on its own side); records add a lone White
/// stone at a3 inside Black's side.
const WALLS: &str =
    "AB[ca][cb][cc][cd][ce][cf][cg][ch][ci][ae]AW[da][db][dc][dd][de][df][dg][dh][di][ie]";

#[test]
fn replay_counts_every_game_of_the_example_records() {
    let dir = data();
    let v = json(&verdict(&[
        "replay",
        dir.to_str().unwrap(),
        "--json",
        "--threads",
        "2",
    ]));
    // 8 files of one game, a collection of three; one file holds no game.
    assert_eq!(v["files"], 9);
    assert_eq!(v["games"], 11);
    assert_eq!(v["skipped"], 2);
    assert_eq!(v["replayed"], 9);
    assert_eq!(v["skip_reasons"]["no_game"], 1);
    assert_eq!(v["skip_reasons"]["unsupported_size"], 1);
    for kind in ["truncated", "missing_open_paren", "occupied"] {
        assert_eq!(v["problems"][kind], 1, "{kind}: {v}");
    }
    assert_eq!(
        v["games"].as_u64().unwrap(),
        v["replayed"].as_u64().unwrap() + v["skipped"].as_u64().unwrap()
    );
    assert!(v["games_per_sec"].as_f64().unwrap() > 0.0);
}

#[test]
fn replay_is_the_same_on_one_thread() {
    let dir = data();
    let mut one = json(&verdict(&[
        "replay",
        dir.to_str().unwrap(),
        "--json",
        "-j",
        "1",
    ]));
    let mut two = json(&verdict(&[
        "replay",
        dir.to_str().unwrap(),
        "--json",
        "-j",
        "2",
    ]));
    for v in [&mut one, &mut two] {
        let o = v.as_object_mut().unwrap();
        for timing in ["seconds", "games_per_sec", "threads"] {
            o.remove(timing);
        }
    }
    assert_eq!(one, two);
}

#[test]
fn replay_of_a_missing_path_says_so_and_fails() {
    let out = verdict(&["replay", "/no/such/place.sgf"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no SGF files found"), "{err}");
}

#[test]
fn score_shows_every_rule_set_and_checks_the_result() {
    let file = data().join("simple-9x9.sgf");
    let v = json(&verdict(&["score", file.to_str().unwrap(), "--json"]));
    // Black 14 stones + 27 points, White 13 + 27; Black placed the last
    // stone of the dame column, komi 6.5.
    assert_eq!(v["verdicts"]["jpd_b"]["margin_before_komi"], 1);
    assert_eq!(v["verdicts"]["jpd_b"]["margin"], -5.5);
    assert_eq!(v["verdicts"]["jpd_b"]["winner"], "W");
    assert_eq!(v["verdicts"]["jpd_a"]["margin"], -6.5);
    assert_eq!(v["verdicts"]["japanese"]["margin"], -6.5);
    assert_eq!(v["dead_source"], "settled");
    assert_eq!(v["self_check"]["status"], "agrees");
    assert_eq!(v["self_check"]["recorded_margin"], -5.5);
    assert_eq!(v["self_check"]["computed_margin"], -5.5);

    let human = verdict(&["score", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("jhz_b") && text.contains("tromp_taylor"),
        "{text}"
    );
    assert!(text.contains("self-check: agrees"), "{text}");
}

#[test]
fn score_with_a_fixed_komi() {
    let file = data().join("simple-9x9.sgf");
    let v = json(&verdict(&[
        "score",
        file.to_str().unwrap(),
        "--json",
        "--komi",
        "0.5",
    ]));
    assert_eq!(v["verdicts"]["jpd_b"]["margin"], 0.5);
    assert_eq!(v["verdicts"]["jpd_b"]["winner"], "B");
    // The record's W+5.5 was reached at its own komi of 6.5: scoring at
    // another komi does not make it wrong.
    assert_eq!(v["self_check"]["status"], "agrees", "{v}");
    assert_eq!(v["self_check"]["computed_margin"], -5.5, "{v}");
}

/// A record without RU is unchecked, unless `--assume-rules` names the
/// rules to check it under; `run --komi K` checks at the record's komi.
#[test]
fn the_self_check_uses_the_records_komi_and_assumed_rules() {
    let dir = fresh_dir("assume");
    let text = std::fs::read_to_string(data().join("simple-9x9.sgf")).unwrap();
    std::fs::write(dir.join("no-ru.sgf"), text.replace("RU[Chinese]", "")).unwrap();
    let input = dir.join("no-ru.sgf");
    let input = input.to_str().unwrap();
    let plain = json(&verdict(&["check", input, "--json"]));
    assert_eq!(plain["agrees"], 0, "{plain}");
    assert_eq!(plain["unchecked"]["unknown_rules"], 1, "{plain}");
    let assumed = json(&verdict(&[
        "check",
        input,
        "--json",
        "--assume-rules",
        "chinese",
    ]));
    assert_eq!(assumed["agrees"], 1, "{assumed}");
    // Assumed wrongly (Japanese counts territory: another margin), it is a miss.
    let wrong = json(&verdict(&[
        "check",
        input,
        "--json",
        "--assume-rules",
        "japanese",
    ]));
    assert_eq!(wrong["disagrees"], 1, "{wrong}");
    // One game, as shown to a person: the same check.
    let score = |assume: &[&str]| {
        let mut args = vec!["score", input, "--json"];
        args.extend_from_slice(assume);
        json(&verdict(&args))["self_check"]["status"].clone()
    };
    assert_eq!(score(&[]), "unchecked");
    assert_eq!(score(&["--assume-rules", "chinese"]), "agrees");
    assert_eq!(score(&["--assume-rules", "japanese"]), "disagrees");
    let shown = verdict(&["score", input, "--assume-rules", "chinese"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("self-check: agrees (recorded -5.5, computed -5.5 under chinese, assumed)"),
        "{shown}"
    );
    let bad = verdict(&["check", input, "--assume-rules", "klingon"]);
    assert_eq!(bad.status.code(), Some(2));
    for komi in ["game", "7.5", "0.5"] {
        let out = dir.join(format!("out-{komi}"));
        let run = json(&verdict(&[
            "run",
            input,
            "--json",
            "--assume-rules",
            "chinese",
            "--komi",
            komi,
            "--out",
            out.to_str().unwrap(),
        ]));
        assert_eq!(run["self_check"]["agrees"], 1, "--komi {komi}: {run}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn score_explains_a_game_number_out_of_range() {
    let file = data().join("collection.sgf");
    let out = verdict(&["score", file.to_str().unwrap(), "--game", "5"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds 3 game(s)"), "{err}");
    let third = json(&verdict(&[
        "score",
        file.to_str().unwrap(),
        "--game",
        "3",
        "--json",
    ]));
    assert_eq!(third["size"], "13x13");
}

#[test]
fn check_reports_agreement() {
    let v = json(&verdict(&["check", data().to_str().unwrap(), "--json"]));
    // simple-9x9 ends in two passes and is reproduced; the fox-style record
    // stops after five moves with a numeric result, which counting the
    // board as it stands cannot reproduce: it is listed as a miss.
    assert_eq!(v["agrees"], 1, "{v}");
    assert_eq!(v["disagrees"], 1, "{v}");
    assert!(v["misses"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with("fox-style-gb18030.sgf"));
    assert_eq!(v["misses"][0]["recorded_margin"], -0.5);
    assert!(
        v["unchecked"]["no_numeric_result"].as_u64().unwrap() >= 3,
        "{v}"
    );
}

/// Every file of the real corpora beside the repository reads and replays
/// without a panic, and every game is accounted for.
#[test]
fn the_real_corpora_replay_without_a_panic() {
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora");
    if !corpora.is_dir() {
        eprintln!(
            "SKIPPED: {} not found; the real-corpus replay needs it",
            corpora.display()
        );
        return;
    }
    let v = json(&verdict(&["replay", corpora.to_str().unwrap(), "--json"]));
    let games = v["games"].as_u64().unwrap();
    assert!(games > 30_000, "{v}");
    assert_eq!(
        games,
        v["replayed"].as_u64().unwrap() + v["skipped"].as_u64().unwrap()
    );
}

#[test]
fn replay_and_check_read_archives_like_folders() {
    let dir = fresh_dir("archive");
    let data = data();
    let tgz = dir.join("data.tar.gz");
    let ok = Command::new("tar")
        .args([
            "czf",
            tgz.to_str().unwrap(),
            "-C",
            data.parent().unwrap().to_str().unwrap(),
            "data",
        ])
        .status()
        .expect("tar");
    assert!(ok.success());
    let folder = json(&verdict(&["replay", data.to_str().unwrap(), "--json"]));
    let archive = json(&verdict(&["replay", tgz.to_str().unwrap(), "--json"]));
    for key in [
        "games",
        "replayed",
        "skipped",
        "problems",
        "skip_reasons",
        "moves",
    ] {
        assert_eq!(folder[key], archive[key], "{key}");
    }
    let check = json(&verdict(&["check", tgz.to_str().unwrap(), "--json"]));
    assert_eq!(check["agrees"], 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `verdict ... | head`: a reader that goes away early ends verdict quietly
/// (SIGPIPE), never with a panic message.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("verdict-cli-pipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Enough output that it cannot fit in a pipe buffer.
    let synth = verdict(&["synth", "--games", "300", "--out", dir.to_str().unwrap()]);
    assert!(synth.status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(["replay", dir.to_str().unwrap(), "--json", "-j", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).ok();
    // stdout is dropped here: the pipe is closed with output still to come.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        // SIGPIPE is signal 13 on every unix verdict builds for.
        out.status.success() || out.status.signal() == Some(13),
        "{:?}",
        out.status
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// GNU Go, where `--gnugo` finds it (the PATH, or Debian's /usr/games).
fn gnugo_installed() -> bool {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("gnugo").is_file()));
    on_path || Path::new("/usr/games/gnugo").is_file()
}

/// `--gnugo` runs the real GNU Go beside the settler. On the wrong marks
/// both referees keep Black's side alive: the game is reported as
/// disputed, stone by stone, and left out of the undisputed rate.
#[test]
fn eval_with_gnugo_names_the_marks_both_settlers_dispute() {
    if !gnugo_installed() {
        eprintln!("GNU Go is not installed (apt-get install gnugo): --gnugo not tested");
        return;
    }
    let dir = marked_pair("gnugo");
    let v = json(&verdict(&[
        "eval",
        "deadstones",
        dir.to_str().unwrap(),
        "--gnugo",
        "--json",
        "-j",
        "2",
    ]));
    assert_eq!(v["gnugo"]["games"], 2, "{v}");
    assert_eq!(v["gnugo"]["failures"], 0, "{v}");
    assert_eq!(v["gnugo"]["exact"], 1, "{v}");
    let disputed = v["disputed"].as_array().expect("a disputed list");
    assert_eq!(disputed.len(), 1, "{v}");
    assert!(disputed[0]["game"].as_str().unwrap().contains("wrong.sgf"));
    assert_eq!(disputed[0]["dead_by_both"], serde_json::json!([]));
    // Black's wall: column C and the stone on A5, all marked dead.
    let alive: Vec<&str> = disputed[0]["alive_by_both"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(alive.len(), 10, "{v}");
    assert!(alive.contains(&"A5") && alive.contains(&"C1") && alive.contains(&"C9"));
    assert_eq!(v["undisputed_games"], 1);
    assert_eq!(v["exact_undisputed"], 1);
    assert_eq!(v["gnugo"]["exact_undisputed"], 1);

    let text = verdict(&["eval", "deadstones", dir.to_str().unwrap(), "--gnugo"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("1 games have stones verdict and GNU Go both judge otherwise"),
        "{text}"
    );
    assert!(text.contains("marked dead, alive by both: A5"), "{text}");
    assert!(
        text.contains("exact on the other 1 games: verdict 1 (100.00%), GNU Go 1 (100.00%)"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `verdict eval results`: unmarked records judged by their results. On
/// the 9x9 board of `marked_pair`, without marks, Black has columns a and
/// b less its stone on a5 (17 points) and takes the dead White stone on a3
/// (1 prisoner); White has columns e to i less its stone on i5 (44):
/// White wins by 26 + 6.5 komi. A record saying so is reproduced; one
/// saying Black won is not, and is listed.
#[test]
fn eval_results_checks_unmarked_games_against_their_results() {
    let dir = fresh_dir("results");
    for (name, result) in [("right", "W+32.5"), ("wrong", "B+5.5")] {
        let sgf = format!("(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]RE[{result}]{WALLS}AW[ag];B[];W[])");
        std::fs::write(dir.join(format!("{name}.sgf")), sgf).unwrap();
    }
    // Marked games and games without a numeric result are not cases.
    std::fs::write(
        dir.join("marked.sgf"),
        format!("(;GM[1]SZ[9]KM[6.5]RU[Japanese]RE[W+32.5]{WALLS};B[];W[]TB[aa])"),
    )
    .unwrap();
    std::fs::write(
        dir.join("resigned.sgf"),
        format!("(;GM[1]SZ[9]KM[6.5]RU[Japanese]RE[W+R]{WALLS};B[];W[])"),
    )
    .unwrap();
    let v = json(&verdict(&[
        "eval",
        "results",
        dir.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["games"], 2, "{v}");
    assert_eq!(v["agree"], 1, "{v}");
    assert_eq!(v["winner_agree"], 1, "{v}");
    let misses = v["misses"].as_array().unwrap();
    assert_eq!(misses.len(), 1, "{v}");
    assert!(misses[0]["game"].as_str().unwrap().contains("wrong.sgf"));
    assert_eq!(misses[0]["recorded"], 5.5);
    assert_eq!(misses[0]["verdict"], -32.5);

    let text = verdict(&[
        "eval",
        "results",
        dir.to_str().unwrap(),
        "--show-misses",
        "3",
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("wrong.sgf (game 1)  recorded +5.5, verdict -32.5"),
        "{text}"
    );
    assert!(!text.contains("right.sgf"), "{text}");

    // A path that cannot be read is named, the rest measured, exit 2.
    let missing = dir.join("no-such.sgf");
    let partly = verdict(&[
        "eval",
        "results",
        dir.to_str().unwrap(),
        missing.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(partly.status.code(), Some(2));
    let err = String::from_utf8_lossy(&partly.stderr);
    assert!(
        err.contains("cannot read") && err.contains("no-such.sgf"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&partly.stdout).unwrap();
    assert_eq!(v["games"], 2, "{v}");

    if gnugo_installed() {
        let g = json(&verdict(&[
            "eval",
            "results",
            dir.to_str().unwrap(),
            "--gnugo",
            "--json",
        ]));
        assert_eq!(g["gnugo"]["agree"], 1, "{g}");
        assert_eq!(g["verdict_only"], 0, "{g}");
        assert_eq!(g["gnugo_only"], 0, "{g}");
    } else {
        eprintln!("GNU Go is not installed (apt-get install gnugo): --gnugo not tested");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record without RU has no rules to recompute its result under, so
/// `eval results` leaves it out, unless `--assume-rules` names them (every
/// Tygem record is such a one). The board is the one above: White wins by
/// 32.5 counting territory; counting area is another margin.
#[test]
fn eval_results_takes_records_without_rules_only_when_told_which() {
    let dir = fresh_dir("results-ru");
    std::fs::write(
        dir.join("no-ru.sgf"),
        format!("(;GM[1]FF[4]SZ[9]KM[6.5]RE[W+32.5]{WALLS}AW[ag];B[];W[])"),
    )
    .unwrap();
    let input = dir.to_str().unwrap();
    let none = verdict(&["eval", "results", input, "--json"]);
    assert!(!none.status.success());
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("--assume-rules"), "{err}");
    let assumed = |id: &str| {
        json(&verdict(&[
            "eval",
            "results",
            input,
            "--json",
            "--assume-rules",
            id,
        ]))
    };
    let japanese = assumed("japanese");
    assert_eq!(japanese["games"], 1, "{japanese}");
    assert_eq!(japanese["agree"], 1, "{japanese}");
    let chinese = assumed("chinese");
    assert_eq!(chinese["games"], 1, "{chinese}");
    assert_eq!(chinese["agree"], 0, "{chinese}");
    let bad = verdict(&["eval", "results", input, "--assume-rules", "klingon"]);
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh folder holding two marked 9x9 records: `right.sgf`, whose marks
/// kill a lone stone that is dead, and `wrong.sgf`, whose marks give a
/// living side away (a player's mistake).
fn marked_pair(name: &str) -> PathBuf {
    let dir = fresh_dir(name);
    // Black's wall on column c, White's on d (both with two eyes in the
    // frame of the settle tests' kind); a lone White stone at a3 inside
    // Black's side, marked dead with Black's territory.
    let right =
        format!("(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]{WALLS}AW[ag];B[];W[]TB[aa:bi]TW[ea:ii])");
    // The same board, but the marks give Black's whole side to White; with
    // a komi of -40 that changes the winner (Black by 13 without them).
    let wrong = format!("(;GM[1]FF[4]SZ[9]KM[-40]RU[Japanese]{WALLS};B[];W[]TW[aa:ci][ea:ii])");
    std::fs::write(dir.join("right.sgf"), right).unwrap();
    std::fs::write(dir.join("wrong.sgf"), wrong).unwrap();
    dir
}

/// `verdict eval deadstones`: a marked record settled right and one whose
/// marks call a living group dead (a player's mistake) give 1 exact of 2,
/// with every field the issue names.
#[test]
fn eval_deadstones_compares_the_settler_with_the_marks() {
    let dir = marked_pair("eval");
    let out = verdict(&[
        "eval",
        "deadstones",
        dir.to_str().unwrap(),
        "--json",
        "-j",
        "1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    for field in [
        "games",
        "exact",
        "exact_rate",
        "stone_precision",
        "stone_recall",
        "winner_flips",
        "ms_median",
        "ms_p99",
    ] {
        assert!(v.get(field).is_some(), "{field} missing: {v}");
    }
    assert_eq!(v["games"], 2);
    assert_eq!(v["exact"], 1);
    assert_eq!(v["exact_rate"], 0.5);
    // The wrong marks kill ten black stones verdict keeps: recall 1 of 11.
    assert!(v["stone_recall"].as_f64().unwrap() < 0.2, "{v}");
    assert_eq!(v["stone_precision"], 1.0);
    assert_eq!(v["winner_flips"], 1);
    assert_eq!(v["with_record_result"]["games"], 2);

    // The boards of the misses, and whether the difference changes the winner.
    let shown = verdict(&[
        "eval",
        "deadstones",
        dir.to_str().unwrap(),
        "--show-misses",
        "5",
    ]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("wrong.sgf") && !text.contains("right.sgf"),
        "{text}"
    );
    assert!(text.contains("the winner changes"), "{text}");

    // `score --ignore-marks` settles a marked game and lists every chain
    // not proven by Benson: here the lone White stone on a3, dead.
    let right = dir.join("right.sgf");
    let marked = json(&verdict(&["score", right.to_str().unwrap(), "--json"]));
    assert_eq!(marked["dead_source"], "marks");
    assert!(marked["settle"].is_null(), "{marked}");
    let settled = json(&verdict(&[
        "score",
        right.to_str().unwrap(),
        "--json",
        "--ignore-marks",
    ]));
    assert_eq!(settled["dead_source"], "settled");
    assert_eq!(settled["dead"], serde_json::json!(["ag"]));
    let chains = settled["settle"]["chains"].as_array().unwrap();
    let lone = chains
        .iter()
        .find(|c| c["anchor"] == "A3")
        .expect("a3's chain");
    assert_eq!(lone["status"], "dead");
    assert_eq!(lone["color"], "white");
    let human = verdict(&["score", right.to_str().unwrap(), "--ignore-marks"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("chains not proven by Benson"), "{text}");
    assert!(text.contains("A3   white   1 stone(s): dead"), "{text}");

    // More playout seeds: one entry each, seed 0 being the table's. On
    // these two games every seed agrees (the lone stone dies in every
    // draw; the wrong marks are wrong in every draw).
    let seeded = json(&verdict(&[
        "eval",
        "deadstones",
        dir.to_str().unwrap(),
        "--json",
        "--seeds",
        "3",
    ]));
    let seeds = seeded["seeds"].as_array().expect("a seeds array");
    assert_eq!(seeds.len(), 3, "{seeded}");
    for (k, s) in seeds.iter().enumerate() {
        assert_eq!(s["seed"], k);
        assert_eq!(s["exact"], 1, "{seeded}");
        assert_eq!(s["winner_flips"], 1, "{seeded}");
    }
    // Every seed agrees on both games: no game is exact only sometimes.
    assert_eq!(seeded["unstable"], serde_json::json!([]), "{seeded}");
    assert!(v.get("seeds").is_none(), "one seed, no list: {v}");
    let zero = verdict(&["eval", "deadstones", dir.to_str().unwrap(), "--seeds", "0"]);
    assert_eq!(zero.status.code(), Some(2));

    // No marked game at all: a clear error, not an empty report.
    let empty = dir.join("none");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("a.sgf"), "(;GM[1]SZ[9];B[aa];W[bb])").unwrap();
    let none = verdict(&["eval", "deadstones", empty.to_str().unwrap()]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("TB/TW"));
    let _ = std::fs::remove_dir_all(&dir);
}
