//! `verdict run` end to end: rows read back from Parquet, summary recomputed.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::{Array, BooleanArray, Int64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/data")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verdict-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .output()
        .expect("running verdict");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs verdict expecting it to refuse (exit 2); returns what it said.
fn refused(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .output()
        .expect("running verdict");
    assert_eq!(out.status.code(), Some(2), "{args:?} should be refused");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn read_rows(dir: &Path) -> Vec<RecordBatch> {
    let mut parts: Vec<_> = std::fs::read_dir(dir.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    parts.sort();
    let mut batches = Vec::new();
    for p in parts {
        assert_eq!(
            p.extension().unwrap(),
            "parquet",
            "no temporary file is left: {}",
            p.display()
        );
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&p).unwrap()).unwrap();
        let meta = builder
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .unwrap()
            .clone();
        assert!(meta
            .iter()
            .any(|kv| kv.key == "verdict.schema_version" && kv.value.as_deref() == Some("4")));
        for b in builder.build().unwrap() {
            batches.push(b.unwrap());
        }
    }
    batches
}

fn strings<'a>(b: &'a RecordBatch, col: &str) -> &'a StringArray {
    b.column_by_name(col)
        .unwrap()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap()
}

#[test]
fn every_game_gets_one_row_and_the_summary_adds_up() {
    let dir = out_dir("data");
    run(&[
        "run",
        data().to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    let batches = read_rows(&dir);
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    // The same 11 games `verdict replay` counts in these records.
    assert_eq!(rows, 11);
    let mut status: HashMap<String, u64> = HashMap::new();
    let (mut scorable, mut differ) = (0u64, 0u64);
    for b in &batches {
        let st = strings(b, "status");
        let reason = strings(b, "skip_reason");
        let wa = strings(b, "jpd_a_winner");
        let wb = strings(b, "jpd_b_winner");
        let est = b
            .column_by_name("estimate")
            .unwrap()
            .as_any()
            .downcast_ref::<BooleanArray>()
            .unwrap();
        let idx = b
            .column_by_name("game_index")
            .unwrap()
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        for i in 0..b.num_rows() {
            *status.entry(st.value(i).to_string()).or_default() += 1;
            assert_eq!(
                st.value(i) == "skipped",
                !reason.is_null(i),
                "skipped rows, and only they, say why"
            );
            assert!(!est.value(i));
            assert!(idx.value(i) >= 0);
            if !wa.is_null(i) && !wb.is_null(i) {
                scorable += 1;
                differ += u64::from(wa.value(i) != wb.value(i));
            }
        }
    }
    assert_eq!(status["skipped"], 2);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["games"], 11);
    let headline = summary["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["comparison"] == "jpd_a_vs_jpd_b" && c["dimension"] == "all")
        .expect("the headline comparison");
    assert_eq!(headline["scorable"], scorable);
    assert_eq!(headline["disagreements"], differ);
    assert!(scorable >= 2, "the finished example games are scored");
    // simple-9x9: Black placed the last stone, so jpd_a = jpd_b - 1, both W.
    assert!(dir.join("summary.parquet").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_is_the_same_on_one_and_two_threads_and_dedup_drops_copies() {
    let one = out_dir("one");
    let two = out_dir("two");
    let input = data();
    run(&[
        "run",
        input.to_str().unwrap(),
        "--out",
        one.to_str().unwrap(),
        "-j",
        "1",
    ]);
    run(&[
        "run",
        input.to_str().unwrap(),
        "--out",
        two.to_str().unwrap(),
        "-j",
        "2",
    ]);
    let a = read_rows(&one);
    let b = read_rows(&two);
    assert_eq!(a, b);
    assert_eq!(
        std::fs::read(one.join("summary.json")).unwrap(),
        std::fs::read(two.join("summary.json")).unwrap()
    );

    // The same directory given twice: every game appears twice, and --dedup
    // keeps one of each (skipped rows have no hash and are all kept).
    let dup = out_dir("dup");
    let s = input.to_str().unwrap();
    run(&["run", s, s, "--out", dup.to_str().unwrap(), "--dedup"]);
    let rows: usize = read_rows(&dup).iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 11 + 2);
    for d in [one, two, dup] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn unfinished_games_are_estimated_only_when_asked() {
    let dir = out_dir("est");
    run(&[
        "run",
        data().to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--include-unfinished",
    ]);
    let batches = read_rows(&dir);
    let mut estimated = 0;
    for b in &batches {
        let st = strings(b, "status");
        let w = strings(b, "jpd_b_winner");
        for i in 0..b.num_rows() {
            if st.value(i) == "estimated" {
                estimated += 1;
                assert!(!w.is_null(i), "estimates carry verdicts");
            }
        }
    }
    assert!(estimated >= 5, "{estimated}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn demo_generates_analyses_and_says_where_the_files_are() {
    let dir = out_dir("demo");
    let out = run(&["demo", "--games", "60", "--dir", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("jpd_a_vs_jpd_b"), "{text}");
    assert!(text.contains("60 games"), "{text}");
    let rows: usize = read_rows(&dir.join("results"))
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(rows, 60);
    assert!(dir.join("results/summary.parquet").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_komi_sweep_adds_one_summary_row_per_komi() {
    let dir = out_dir("sweep");
    let out = run(&[
        "run",
        data().to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--komi",
        "0.5:7.5:1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sweep: Vec<_> = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["comparison"] == "jpd_a_vs_jpd_b" && c["dimension"] == "komi_sweep")
        .collect();
    assert_eq!(sweep.len(), 8);
    // simple-9x9: area difference 1 and Black placed one stone more, so
    // jpd_b is B+0.5 and jpd_a W+0.5 at komi 0.5; from 1.5 on both say W.
    let at = |k: &str| {
        sweep.iter().find(|c| c["value"] == k).unwrap()["disagreements"]
            .as_u64()
            .unwrap()
    };
    assert!(at("0.5") >= 1);
    assert_eq!(at("6.5"), 0);
    assert!(refused(&[
        "run",
        data().to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--komi",
        "8:5:1",
    ])
    .contains("start <= end"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rules_limit_the_verdicts_and_comparisons() {
    let dir = out_dir("rules");
    let out = run(&[
        "run",
        data().to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--rules",
        "jpd_a,jpd_b",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: std::collections::BTreeSet<_> = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["comparison"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.into_iter().collect::<Vec<_>>(), ["jpd_a_vs_jpd_b"]);
    for b in read_rows(&dir) {
        let jhz = strings(&b, "jhz_b_winner");
        assert_eq!(
            jhz.null_count(),
            b.num_rows(),
            "unselected rule sets are blank"
        );
    }
    assert!(refused(&[
        "run",
        data().to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--rules",
        "jpd_c",
    ])
    .contains("choose from jpd_a"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Archives are read as streams, member by member, and give the same games
/// as the folder they were made from.
#[test]
fn archives_give_the_same_games_as_their_folder() {
    let dir = out_dir("archives");
    std::fs::create_dir_all(&dir).unwrap();
    let data = data();
    let parent = data.parent().unwrap();
    let tgz = dir.join("data.tgz");
    let status = Command::new("tar")
        .args([
            "czf",
            tgz.to_str().unwrap(),
            "-C",
            parent.to_str().unwrap(),
            "data",
        ])
        .status()
        .expect("tar");
    assert!(status.success());
    let zip = dir.join("data.zip");
    let status = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile, pathlib\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n\
             for p in sorted(pathlib.Path(sys.argv[2]).iterdir()): z.write(p, 'data/' + p.name)\n\
             z.writestr('data/notes.txt', 'not a game')\nz.close()",
            zip.to_str().unwrap(),
            data.to_str().unwrap(),
        ])
        .status()
        .expect("python3");
    assert!(status.success());

    let hashes = |input: &Path, name: &str| {
        let out = dir.join(name);
        let text = run(&[
            "run",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let mut all = Vec::new();
        for b in read_rows(&out) {
            let h = strings(&b, "game_hash");
            let src = strings(&b, "source");
            for i in 0..b.num_rows() {
                if !h.is_null(i) {
                    all.push(h.value(i).to_string());
                }
                if name != "folder" && !h.is_null(i) {
                    assert!(src.value(i).contains("!/data/"), "{}", src.value(i));
                }
            }
        }
        all.sort();
        (all, String::from_utf8_lossy(&text.stdout).into_owned())
    };
    let (folder, _) = hashes(&data, "folder");
    let (from_tgz, _) = hashes(&tgz, "tgz");
    let (from_zip, text) = hashes(&zip, "zip");
    assert_eq!(folder.len(), 9);
    assert_eq!(from_tgz, folder);
    assert_eq!(from_zip, folder);
    assert!(text.contains("notes.txt: not an .sgf file"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
