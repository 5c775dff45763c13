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
            .any(|kv| kv.key == "verdict.schema_version" && kv.value.as_deref() == Some("5")));
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
    // The same summary bar when it was made (provenance), which says so.
    let counts = |dir: &Path| {
        let mut s: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
        let p = s.as_object_mut().unwrap().remove("provenance").unwrap();
        assert_eq!(p["kind"], "run");
        assert_eq!(p["input_files"], 9);
        s
    };
    assert_eq!(counts(&one), counts(&two));

    // The same directory given twice is read once.
    let twice = out_dir("twice");
    let s = input.to_str().unwrap();
    run(&["run", s, s, "--out", twice.to_str().unwrap()]);
    let rows: usize = read_rows(&twice).iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 11);
    // A copy of it is other files with the same games: every game appears
    // twice, and --dedup keeps one of each (skipped rows have no hash and
    // are all kept).
    let copy = out_dir("copy");
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(&input).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
        }
    }
    let dup = out_dir("dup");
    run(&[
        "run",
        s,
        copy.to_str().unwrap(),
        "--out",
        dup.to_str().unwrap(),
        "--dedup",
    ]);
    let rows: usize = read_rows(&dup).iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 11 + 2);
    for d in [one, two, twice, copy, dup] {
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
        (all, String::from_utf8_lossy(&text.stderr).into_owned())
    };
    let (folder, _) = hashes(&data, "folder");
    let (from_tgz, _) = hashes(&tgz, "tgz");
    let (from_zip, text) = hashes(&zip, "zip");
    assert_eq!(folder.len(), 9);
    assert_eq!(from_tgz, folder);
    assert_eq!(from_zip, folder);
    // Left aside, named, and not an error (the run exited 0).
    assert!(
        text.contains("1 files or archive members left aside"),
        "{text}"
    );
    assert!(
        text.contains("data.zip!/data/notes.txt: not an .sgf file"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn ints<'a>(b: &'a RecordBatch, col: &str) -> &'a Int64Array {
    b.column_by_name(col)
        .unwrap()
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
}

fn bools<'a>(b: &'a RecordBatch, col: &str) -> &'a BooleanArray {
    b.column_by_name(col)
        .unwrap()
        .as_any()
        .downcast_ref::<BooleanArray>()
        .unwrap()
}

/// A corpus of 大解放 and ordinary records: each gets its own kind of row,
/// the variant's accounting in its columns, only the four seed rule sets
/// scored for it, and the summary breaks down by variant.
#[test]
fn variant_and_ordinary_records_in_one_corpus() {
    let dir = out_dir("variant");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    // Black walls column c, White column d, a White stone at b4; ended by
    // four 虚着 (moves 12 to 15), so nothing is removed: worked out in
    // rules/tests/dajiefang.rs, jpd_b = -7 - 0.5.
    std::fs::write(
        corpus.join("a-walls.sgf"),
        "(;SZ[5]RU[Dajiefang]KM[0.5];B[ca];W[da];B[cb];W[db];B[cc];W[dc];B[cd];W[dd];B[ce];W[de];B[];W[bb];B[];W[];B[]MF[ca];W[])",
    )
    .unwrap();
    // RULES.md section 6 without RU: MF makes it a variant; Black's placing
    // retake (move 2) repeats White's intermediate position.
    std::fs::write(
        corpus.join("b-ko.sgf"),
        "(;SZ[9]AB[ee][fe][ff][eg]AW[de][cf][ef][cg][dg]PL[B];B[df];W[ef]MF[cg];B[df])",
    )
    .unwrap();
    std::fs::copy(data().join("simple-9x9.sgf"), corpus.join("c-simple.sgf")).unwrap();
    run(&[
        "run",
        corpus.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let batches = read_rows(&dir);
    let mut seen = 0;
    for b in &batches {
        let source = strings(b, "source");
        for i in 0..b.num_rows() {
            let name = Path::new(source.value(i))
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            let variant = strings(b, "variant").value(i);
            match name.as_str() {
                "a-walls.sgf" => {
                    assert_eq!(variant, "dajiefang");
                    assert!(!bools(b, "variant_inferred").value(i));
                    assert_eq!(strings(b, "status").value(i), "scored");
                    assert_eq!(strings(b, "how_ended").value(i), "four_xu");
                    assert_eq!(strings(b, "dead_source").value(i), "four_xu");
                    assert!(bools(b, "dajiefang_four_xu").value(i));
                    assert_eq!(ints(b, "dajiefang_placed_b").value(i), 5);
                    assert_eq!(ints(b, "dajiefang_placed_w").value(i), 6);
                    assert_eq!(ints(b, "dajiefang_placed_off_b").value(i), 2);
                    assert_eq!(ints(b, "dajiefang_placed_off_w").value(i), 2);
                    assert_eq!(ints(b, "dajiefang_moved_off_b").value(i), 1);
                    assert_eq!(ints(b, "dajiefang_moved_w").value(i), 0);
                    assert!(ints(b, "first_illegal_dajiefang").is_null(i));
                    assert_eq!(ints(b, "jpd_b_margin_before_komi").value(i), -7);
                    assert_eq!(ints(b, "jpd_a_margin_before_komi").value(i), -6);
                    for other in ["japanese", "chinese", "tromp_taylor", "aga"] {
                        assert!(strings(b, &format!("{other}_winner")).is_null(i), "{other}");
                    }
                    assert!(ints(b, "first_illegal_nosuicide_psk").is_null(i));
                    assert!(ints(b, "passes_b").is_null(i));
                }
                "b-ko.sgf" => {
                    assert_eq!(variant, "dajiefang");
                    assert!(bools(b, "variant_inferred").value(i));
                    assert_eq!(ints(b, "first_illegal_dajiefang").value(i), 2);
                    assert_eq!(ints(b, "dajiefang_ko_retakes_by_moving").value(i), 1);
                    assert_eq!(ints(b, "dajiefang_moved_w").value(i), 1);
                    assert!(strings(b, "problems").value(i).contains("repetition"));
                    assert!(strings(b, "problems").value(i).contains("variant_inferred"));
                    assert_eq!(strings(b, "status").value(i), "unfinished");
                }
                "c-simple.sgf" => {
                    assert_eq!(variant, "standard");
                    assert!(bools(b, "variant_inferred").is_null(i));
                    assert!(ints(b, "first_illegal_dajiefang").is_null(i));
                    assert!(ints(b, "dajiefang_placed_b").is_null(i));
                    assert!(!strings(b, "japanese_winner").is_null(i));
                }
                other => panic!("unexpected file {other}"),
            }
            seen += 1;
        }
    }
    assert_eq!(seen, 3);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let by_variant = |value: &str| {
        summary["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| {
                c["comparison"] == "jpd_a_vs_jpd_b"
                    && c["dimension"] == "variant"
                    && c["value"] == value
            })
            .map(|c| c["scorable"].as_u64().unwrap())
    };
    assert_eq!(by_variant("dajiefang"), Some(1));
    assert_eq!(by_variant("standard"), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}
