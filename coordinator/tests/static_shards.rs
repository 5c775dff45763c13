//! Static shards with real processes: `verdict run --shard K/N` for every
//! K, then `verdict merge`, equals `verdict run`; merge refuses missing,
//! unfinished, duplicated and foreign shards, naming them; a shard killed
//! or run twice changes nothing.

mod support;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use support::*;

fn ok(o: &Output) {
    assert_ok(o);
}

/// The shards' rows and summary are the local run's (bar provenance).
fn assert_same_as_run(merged: &Path, local: &Path) {
    let (m, l) = (rows(merged), rows(local));
    assert!(l.len() > 100, "{} rows", l.len());
    assert_eq!(m.len(), l.len(), "as many rows as the local run");
    assert!(m == l, "the same rows as the local run");
    assert_eq!(counts(merged), counts(local));
    assert_eq!(summary(merged)["provenance"]["kind"], "merge");
    assert_clean(merged);
    assert!(!merged.join("_shards").exists(), "merge removes _shards");
}

#[test]
fn every_shard_then_merge_equals_run() {
    let dir = temp("static-equal");
    // Small files and one large collection that the planner cuts into
    // byte ranges, so some shards read only part of a file.
    let corpus = corpus(&dir, 240);
    local_run(&corpus, &dir.join("local"));
    for n in [1u32, 3, 11] {
        let out = dir.join(format!("sharded-{n}"));
        for k in 0..n {
            ok(&shard(&corpus, &out, &format!("{k}/{n}")));
        }
        let m = merge(&out);
        ok(&m);
        assert_same_as_run(&out, &dir.join("local"));
        let marker: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
        assert_eq!(marker["kind"], "merge");
        assert_eq!(marker["shards"], n);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_names_missing_duplicated_and_foreign_shards_and_publishes_nothing() {
    let dir = temp("static-refuse");
    let corpus = corpus(&dir, 120);
    let out = dir.join("out");
    // An earlier complete output stays whole through every refusal.
    local_run(&corpus, &out);
    let before = rows(&out);
    for k in [0, 1, 3] {
        ok(&shard(&corpus, &out, &format!("{k}/4")));
    }
    let m = merge(&out);
    assert_eq!(m.status.code(), Some(2));
    let err = String::from_utf8_lossy(&m.stderr);
    assert!(err.contains("missing shards: 2/4"), "{err}");
    assert_eq!(rows(&out), before, "a refused merge publishes nothing");
    assert!(out.join("_SUCCESS").exists());

    // A shard of another cut of the same folder is named, not mixed in.
    ok(&shard(&corpus, &out, "0/5"));
    ok(&shard(&corpus, &out, "2/4"));
    let m = merge(&out);
    assert_eq!(m.status.code(), Some(2));
    let err = String::from_utf8_lossy(&m.stderr);
    assert!(err.contains("from another run"), "{err}");
    assert!(err.contains("0-of-5"), "{err}");
    std::fs::remove_dir_all(out.join("_shards/0-of-5")).unwrap();

    // A copy of a finished shard: the same K twice.
    let from = out.join("_shards/1-of-4");
    let to = out.join("_shards/1-of-4-copy");
    std::fs::create_dir(&to).unwrap();
    for e in std::fs::read_dir(&from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    let m = merge(&out);
    assert_eq!(m.status.code(), Some(2));
    let err = String::from_utf8_lossy(&m.stderr);
    assert!(
        err.contains("duplicated shards: 1/4 in 1-of-4 and 1-of-4-copy"),
        "{err}"
    );
    assert_eq!(rows(&out), before);
    std::fs::remove_dir_all(&to).unwrap();

    ok(&merge(&out));
    assert_same_as_run(&out, &{
        let local = dir.join("local");
        local_run(&corpus, &local);
        local
    });
    // Nothing left to merge: said so, exit 2.
    let m = merge(&out);
    assert_eq!(m.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&m.stderr).contains("no shards to merge"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_shard_is_unfinished_and_a_shard_run_twice_counts_once() {
    let dir = temp("static-kill");
    let corpus = synth(&dir, "corpus", 600, 7);
    let out = dir.join("out");
    ok(&shard(&corpus, &out, "0/2"));
    // Shard 1 killed mid-run: no record, so merge waits for it.
    let mut p = Proc::spawn(
        verdict()
            .arg("run")
            .arg(&corpus)
            .arg("--out")
            .arg(&out)
            .args(["--shard", "1/2", "--no-report", "--threads", "1"]),
        &dir.join("shard1.log"),
    );
    wait_until(Duration::from_secs(60), "shard 1 writing", &[&p], || {
        std::fs::read_dir(out.join("_shards/1-of-2"))
            .map(|d| d.count() > 0)
            .unwrap_or(false)
    });
    p.kill9();
    let m = merge(&out);
    assert_eq!(m.status.code(), Some(2));
    let err = String::from_utf8_lossy(&m.stderr);
    assert!(err.contains("missing shards: 1/2"), "{err}");
    assert!(err.contains("unfinished"), "{err}");
    // Run again (as a scheduler retries), and shard 0 once more too.
    ok(&shard(&corpus, &out, "1/2"));
    ok(&shard(&corpus, &out, "0/2"));
    ok(&merge(&out));
    let local = dir.join("local");
    local_run(&corpus, &local);
    assert_same_as_run(&out, &local);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shard_options_that_count_the_whole_corpus_are_refused() {
    let dir = temp("static-args");
    let corpus = synth(&dir, "corpus", 20, 1);
    for extra in [["--limit", "5"], ["--dedup", "--resume"]] {
        let o = verdict()
            .arg("run")
            .arg(&corpus)
            .arg("--out")
            .arg(dir.join("out"))
            .args(["--shard", "0/2"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
    }
    for bad in ["2/2", "1", "0/0"] {
        let o = shard(&corpus, &dir.join("out"), bad);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("--shard"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
