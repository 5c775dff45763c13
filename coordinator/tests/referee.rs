//! `verdict run --referee gnugo` as a real process: the referee is a real
//! GTP program, either a stand-in shell script whose answer the test knows
//! (so what the rows count can be checked exactly) or GNU Go itself when it
//! is installed (`apt-get install gnugo`; the test says when it skips, and
//! fails instead when `VERDICT_REQUIRE_GNUGO=1`, as in `.ci/run`).

mod support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use support::*;

/// A 9x9 record ended by two passes that the settler is unsure of
/// (confidence at or below the default threshold, 0.6): Black's wall on column c, White's on column d, and a
/// seven-stone Black ring with one eye in White's open side. GNU Go calls
/// nothing dead here; verdict's settler calls White's wall dead.
const RING: &str = "(;GM[1]FF[4]SZ[9]KM[0.5]RU[Chinese]\
AB[ca][cb][cc][cd][ce][cf][cg][ch][ci][fc][gc][hc][fd][hd][fe][ge]\
AW[da][db][dc][dd][de][df][dg][dh][di];B[];W[])";

/// A record whose players marked the dead stone: never put to a referee.
const MARKED: &str = "(;GM[1]FF[4]SZ[5]KM[0.5]RU[Chinese]\
AB[ba][bb][bc][bd][be][ea]AW[ca][cb][cc][cd][ce];B[];W[]TB[aa][ab][ac][ad][ae]\
TW[da][db][dc][dd][de][ea][eb][ec][ed][ee])";

fn corpus(dir: &Path) -> PathBuf {
    let c = dir.join("corpus");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(c.join("ring.sgf"), RING).unwrap();
    std::fs::write(c.join("marked.sgf"), MARKED).unwrap();
    c
}

/// An executable shell script speaking just enough GTP: `answer` is what
/// it says to `final_status_list dead`; after `answers` replies (any
/// command) it exits, like a program that crashed.
fn fake_gtp(dir: &Path, answer: &str, answers: usize) -> PathBuf {
    let p = dir.join(format!("fake-gnugo-{answers}"));
    let script = format!(
        "#!/bin/sh\nn=0\nwhile read -r cmd; do\n  n=$((n + 1))\n  [ $n -gt {answers} ] && exit 1\n  case \"$cmd\" in\n    final_status_list*) printf '= {answer}\\n\\n' ;;\n    quit*) printf '=\\n\\n'; exit 0 ;;\n    *) printf '= fake\\n\\n' ;;\n  esac\ndone\n"
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn run(corpus: &Path, out: &Path, extra: &[&str]) -> Output {
    verdict()
        .arg("run")
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .args(["--no-report", "-j", "2"])
        .args(extra)
        .output()
        .unwrap()
}

/// Each row as column -> value, keyed by its file name.
fn rows_by_file(out: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    rows(out)
        .into_iter()
        .map(|r| {
            let cells: BTreeMap<String, String> = r
                .split('|')
                .filter_map(|c| c.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let file = Path::new(&cells["source"])
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (file, cells)
        })
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_referees_stones_are_counted_where_the_settler_is_unsure() {
    let dir = temp("referee-fake");
    let corpus = corpus(&dir);
    // C9 and C8 are Black's top two stones of column c (ca, cb).
    let fake = fake_gtp(&dir, "C9 C8", 1000);
    let fake = fake.to_str().unwrap();
    let out = dir.join("out");
    let o = run(&corpus, &out, &["--referee", "gnugo", "--gnugo-bin", fake]);
    assert_ok(&o);
    let rows = rows_by_file(&out);
    let ring = &rows["ring.sgf"];
    assert_eq!(ring["referee"], "decided");
    assert_eq!(ring["dead_source"], "referee");
    assert_eq!((&*ring["dead_b"], &*ring["dead_w"]), ("2", "0"));
    // The settler's doubt is still on the row: the referee decides the
    // stones, not how sure verdict was of them.
    let doubt: f32 = ring["confidence"].parse().unwrap();
    assert!(doubt > 0.0 && doubt <= 0.6, "{}", ring["confidence"]);
    let marked = &rows["marked.sgf"];
    assert_eq!(marked["referee"], "null");
    assert_eq!(marked["dead_source"], "marks");
    assert!(
        stderr(&o).contains("asked about 1 games") && stderr(&o).contains("it decided 1"),
        "{}",
        stderr(&o)
    );
    // The options are the run's provenance.
    let s = summary(&out);
    assert_eq!(
        s["provenance"]["options"]["referee"]["program"], "gnugo",
        "{s}"
    );

    // Below the game's confidence nothing is asked.
    let out = dir.join("out-surer");
    let o = run(
        &corpus,
        &out,
        &[
            "--referee",
            "gnugo",
            "--gnugo-bin",
            fake,
            "--referee-threshold",
            "0.4",
        ],
    );
    assert_ok(&o);
    let ring = &rows_by_file(&out)["ring.sgf"];
    assert_eq!(ring["referee"], "null");
    assert_eq!(ring["dead_source"], "settled");
    assert_eq!((&*ring["dead_b"], &*ring["dead_w"]), ("0", "9"));
}

#[test]
fn a_referee_that_dies_costs_its_answer_not_the_run() {
    let dir = temp("referee-dies");
    let corpus = corpus(&dir);
    // Answers `name` (the check at start), then exits on the next command.
    let fake = fake_gtp(&dir, "C9", 1);
    let out = dir.join("out");
    let o = run(
        &corpus,
        &out,
        &["--referee", "gnugo", "--gnugo-bin", fake.to_str().unwrap()],
    );
    assert_ok(&o);
    let ring = &rows_by_file(&out)["ring.sgf"];
    assert_eq!(ring["referee"], "failed");
    assert_eq!(ring["dead_source"], "settled");
    assert_eq!(ring["dead_w"], "9");
    assert!(
        stderr(&o).contains("gave no answer for 1"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_missing_referee_is_named_before_any_work() {
    let dir = temp("referee-missing");
    let corpus = corpus(&dir);
    let out = dir.join("out");
    let o = run(
        &corpus,
        &out,
        &["--referee", "gnugo", "--gnugo-bin", "/nonexistent/gnugo"],
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("--referee gnugo") && e.contains("apt-get install gnugo"),
        "{e}"
    );
    assert!(!out.join("games").exists());
}

/// GNU Go on the path or where Debian puts it.
fn gnugo() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("gnugo"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| Some(PathBuf::from("/usr/games/gnugo")).filter(|p| p.is_file()))
}

#[test]
fn gnu_go_referees_the_unsure_game() {
    let Some(gnugo) = gnugo() else {
        assert!(
            std::env::var_os("VERDICT_REQUIRE_GNUGO").is_none(),
            "VERDICT_REQUIRE_GNUGO is set but GNU Go is not installed"
        );
        eprintln!("skipped: GNU Go is not installed (apt-get install gnugo)");
        return;
    };
    let dir = temp("referee-gnugo");
    let corpus = corpus(&dir);
    let out = dir.join("out");
    let o = run(
        &corpus,
        &out,
        &["--referee", "gnugo", "--gnugo-bin", gnugo.to_str().unwrap()],
    );
    assert_ok(&o);
    let rows = rows_by_file(&out);
    let ring = &rows["ring.sgf"];
    assert_eq!(ring["referee"], "decided");
    // GNU Go leaves White's wall standing, unlike the settler.
    assert_eq!((&*ring["dead_b"], &*ring["dead_w"]), ("0", "0"));
    assert_eq!(rows["marked.sgf"]["referee"], "null");
}

/// `verdict submit --referee gnugo`: the job's options carry the referee
/// to every worker, each asks its own (`verdict worker --gnugo-bin`), and
/// the job's rows are the local run's with the same referee. A worker that
/// cannot start it fails the shard saying so, and the job ends with that
/// reason instead of going round.
#[test]
fn a_cluster_job_asks_each_workers_referee() {
    let dir = temp("referee-job");
    let corpus = corpus(&dir);
    let fake = fake_gtp(&dir, "C9 C8", 1000);
    let fake = fake.to_str().unwrap();
    let local = dir.join("local");
    assert_ok(&run(
        &corpus,
        &local,
        &["--referee", "gnugo", "--gnugo-bin", fake],
    ));

    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--max-attempts", "2"]);
    let w = worker(&dir, &addr, "w", &["-j", "1", "--gnugo-bin", fake]);
    let submit = |out: &Path| {
        json_of(&client(
            &addr,
            &[
                "submit",
                "--json",
                corpus.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--referee",
                "gnugo",
                "--referee-threshold",
                "0.6",
            ],
        ))["id"]
            .as_u64()
            .unwrap()
    };
    let out = dir.join("job");
    let job = submit(&out);
    let end = wait_for_end(&addr, job, &[&w, &server]);
    assert_eq!(end["state"], "done", "{end}");
    let rows = rows_by_file(&out);
    assert_eq!(rows["ring.sgf"]["referee"], "decided");
    assert_eq!(rows["ring.sgf"]["dead_source"], "referee");
    assert_eq!(rows["marked.sgf"]["referee"], "null");
    assert_same_rows(&out, &local);
    assert_eq!(
        summary(&out)["provenance"]["options"]["referee"]["program"],
        "gnugo"
    );
    drop(w);

    // A worker without GNU Go.
    let w = worker(
        &dir,
        &addr,
        "bare",
        &["-j", "1", "--gnugo-bin", "/nonexistent/gnugo"],
    );
    let job = submit(&dir.join("job-bare"));
    let end = wait_for_end(&addr, job, &[&w, &server]);
    assert_eq!(end["state"], "done with failures", "{end}");
    let reason = end["failures"][0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("--referee gnugo") && reason.contains("--gnugo-bin"),
        "{end}"
    );
    assert!(!dir.join("job-bare/summary.json").exists());
}
