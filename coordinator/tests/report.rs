//! `verdict report` as a user runs it: the page of a hand-made corpus
//! pinned by a golden file, and the numbers of a generated corpus's page
//! compared with its summary.json.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn verdict(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("running verdict");
    assert!(
        out.status.success(),
        "verdict {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verdict-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The JSON block every report ends with.
fn data_of(html: &str) -> Value {
    let start = html
        .find("<script type=\"application/json\" id=\"verdict-data\">")
        .expect("the data block")
        + "<script type=\"application/json\" id=\"verdict-data\">".len();
    let end = start + html[start..].find("</script>").expect("its end");
    serde_json::from_str(&html[start..end]).expect("the data block is JSON")
}

/// `(comparison, dimension, value)` -> the summary.json row.
fn summary_cells(summary: &Value) -> std::collections::BTreeMap<(String, String, String), Value> {
    summary["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            ((s("comparison"), s("dimension"), s("value")), c.clone())
        })
        .collect()
}

/// The attributes of every `<g class="mark…"` that names a comparison.
fn chart_marks(html: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<g class=\"mark") {
        rest = &rest[i..];
        let end = rest.find('>').unwrap();
        let tag = &rest[..end];
        let mut attrs = std::collections::BTreeMap::new();
        let mut t = tag;
        while let Some(j) = t.find(" data-") {
            t = &t[j + 6..];
            let eq = t.find("=\"").unwrap();
            let name = t[..eq].to_string();
            let v = &t[eq + 2..];
            let close = v.find('"').unwrap();
            attrs.insert(name, v[..close].replace("&amp;", "&").replace("&#39;", "'"));
            t = &v[close..];
        }
        if attrs.contains_key("comparison") {
            out.push(attrs);
        }
        rest = &rest[end..];
    }
    out
}

#[test]
fn the_numbers_on_the_page_are_the_summary_s() {
    let dir = temp("numbers");
    let corpus = dir.join("corpus");
    let out = dir.join("out");
    verdict(&[
        "synth",
        "--games",
        "160",
        "--out",
        corpus.to_str().unwrap(),
        "--seed",
        "7",
    ]);
    verdict(&[
        "run",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--all-pairs",
        "--komi",
        "5.5:7.5:0.5",
        "-j",
        "2",
    ]);
    let html =
        std::fs::read_to_string(out.join("report.html")).expect("verdict run writes the report");
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let cells = summary_cells(&summary);
    let data = data_of(&html);
    assert_eq!(data["games"], summary["games"]);
    assert_eq!(
        data["warnings"].as_array().unwrap().len(),
        0,
        "{}",
        data["warnings"]
    );

    // Every cell the page embeds is summary.json's, field for field.
    let embedded = data["summary_cells"].as_array().unwrap();
    for c in embedded {
        let key = (
            c["comparison"].as_str().unwrap().to_string(),
            c["dimension"].as_str().unwrap().to_string(),
            c["value"].as_str().unwrap().to_string(),
        );
        let theirs = cells
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} is not in summary.json"));
        for f in [
            "scorable",
            "disagreements",
            "rate",
            "ci_low",
            "ci_high",
            "draws",
        ] {
            assert_eq!(c[f], theirs[f], "{key:?} {f}");
        }
    }
    // And every headline and sweep cell of summary.json is on the page (55
    // pairs with --all-pairs), as are the breakdowns of the headline pairs.
    for (key, _) in cells
        .iter()
        .filter(|(k, _)| k.1 == "all" || k.1 == "komi_sweep" && k.0.starts_with("jpd_a_vs_jpd_b"))
    {
        assert!(
            embedded.iter().any(|c| c["comparison"] == key.0.as_str()
                && c["dimension"] == key.1.as_str()
                && c["value"] == key.2.as_str()),
            "{key:?} missing from the page"
        );
    }
    assert_eq!(
        cells.keys().filter(|k| k.1 == "all").count(),
        55,
        "--all-pairs compares every pair of the 11 rule sets"
    );
    for dim in [
        "board_size",
        "komi",
        "handicap",
        "rules",
        "how_ended",
        "dead_source",
        "year",
        "input",
    ] {
        let key = cells
            .keys()
            .find(|k| k.0 == "jpd_a_vs_jpd_b" && k.1 == dim)
            .expect(dim);
        assert!(
            embedded
                .iter()
                .any(|c| c["dimension"] == dim && c["value"] == key.2.as_str()),
            "{dim}"
        );
    }

    // The drawn marks carry the same numbers.
    let marks = chart_marks(&html);
    assert!(marks.len() > 55 + 8 * 3, "{} marks", marks.len());
    let mut checked = 0;
    for m in &marks {
        let key = (
            m["comparison"].clone(),
            m["dimension"].clone(),
            m["value"].clone(),
        );
        if key.1 == "certainty" {
            continue;
        }
        let theirs = cells
            .get(&key)
            .unwrap_or_else(|| panic!("mark {key:?} is not in summary.json"));
        assert_eq!(m["n"], theirs["scorable"].to_string(), "{key:?}");
        assert_eq!(m["k"], theirs["disagreements"].to_string(), "{key:?}");
        for (mine, f) in [("rate", "rate"), ("lo", "ci_low"), ("hi", "ci_high")] {
            let v: f64 = m[mine].parse().unwrap();
            assert_eq!(v, theirs[f].as_f64().unwrap(), "{key:?} {f}");
        }
        checked += 1;
    }
    assert!(checked > 55, "{checked}");

    // The confidence breakdown is counted from the rows: its cells add up to
    // the overall rate of each headline pair.
    // (--all-pairs names pairs in rule-set order.)
    for pair in ["jpd_a_vs_jpd_b", "jpd_a_vs_jhz_a", "jpd_b_vs_jhz_b"] {
        let counted: Vec<&Value> = data["counted_cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["comparison"] == pair)
            .collect();
        let n: u64 = counted
            .iter()
            .map(|c| c["scorable"].as_u64().unwrap())
            .sum();
        let k: u64 = counted
            .iter()
            .map(|c| c["disagreements"].as_u64().unwrap())
            .sum();
        let all = &cells[&(pair.to_string(), "all".to_string(), "all".to_string())];
        assert_eq!(n, all["scorable"].as_u64().unwrap(), "{pair}");
        assert_eq!(k, all["disagreements"].as_u64().unwrap(), "{pair}");
    }
    // The self-check tables are the summary's counts.
    for key in ["agrees", "disagrees", "unchecked"] {
        assert_eq!(
            data["self_check"][key].as_u64().unwrap(),
            summary["self_check"][key].as_u64().unwrap_or(0),
            "{key}"
        );
    }
    // Bounds hold the rate: low <= disagreements <= high.
    for u in data["uncertainty"].as_array().unwrap() {
        let k = u["all"]["disagreements"].as_u64().unwrap();
        let b = &u["bounds"];
        assert!(b["disagreements_low"].as_u64().unwrap() <= k, "{u}");
        assert!(b["disagreements_high"].as_u64().unwrap() >= k, "{u}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Replaces what depends on the machine and the moment: the output folder,
/// absolute paths of the records, the verdict version, the times.
fn normalise(html: &str, out: &Path) -> String {
    let crate_dir = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut s = html
        .replace(&out.display().to_string(), "OUT")
        .replace(out.file_name().unwrap().to_str().unwrap(), "OUT")
        .replace(&crate_dir.display().to_string(), "CRATE")
        .replace(env!("CARGO_PKG_VERSION"), "VERSION");
    for label in ["run finished", "report written"] {
        for (open, close) in [
            (format!("<dt>{label}</dt><dd>"), "</dd>"),
            (format!("\"{label}\":\""), "\""),
        ] {
            let mut from = 0;
            while let Some(i) = s[from..].find(&open) {
                let start = from + i + open.len();
                let end = start + s[start..].find(close).unwrap();
                s.replace_range(start..end, "TIME");
                from = start;
            }
        }
    }
    s
}

#[test]
fn golden_report_of_hand_made_records() {
    let out = temp("golden");
    verdict(&[
        "run",
        "tests/data/report",
        "--out",
        out.to_str().unwrap(),
        "--komi",
        "0:1:0.5",
    ]);
    // The report of the folder alone (the run's own also lists its command
    // line, with temporary paths).
    let written = verdict(&["report", out.to_str().unwrap(), "--json"]);
    let info: Value = serde_json::from_slice(&written.stdout).unwrap();
    assert_eq!(info["rows"], 5);
    assert_eq!(info["boards"], 3, "{info}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let got = normalise(&html, &out);
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/report.html");
    if std::env::var_os("VERDICT_BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden)
        .expect("tests/golden/report.html (VERDICT_BLESS=1 cargo test --test report writes it)");
    if got != want {
        let at = got
            .bytes()
            .zip(want.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        let from = at.saturating_sub(200);
        panic!(
            "the report differs from tests/golden/report.html at byte {at} (VERDICT_BLESS=1 rewrites it after a deliberate change):\n got: {}\nwant: {}",
            &got[from..(at + 200).min(got.len())],
            &want[from..(at + 200).min(want.len())]
        );
    }
    // What the golden page must say, so a careless bless cannot hide it.
    let data = data_of(&html);
    let headline = |c: &str| {
        data["summary_cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["comparison"] == c && x["dimension"] == "all")
            .cloned()
            .unwrap()
    };
    // The extra stone splits the editions in both wall games (marked and
    // settled); RULES.md's 7x7 example splits 计活子 from 计枰点.
    assert_eq!(headline("jpd_a_vs_jpd_b")["disagreements"], 2);
    assert_eq!(headline("jhz_b_vs_jpd_b")["disagreements"], 1);
    assert_eq!(headline("jhz_a_vs_jpd_a")["disagreements"], 1);
    assert_eq!(headline("jpd_a_vs_jpd_b")["scorable"], 4);
    assert_eq!(data["self_check"]["disagrees"], 1);
    let seed = data["examples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["source"].as_str().unwrap().ends_with("seed-7x7-eyes.sgf"))
        .expect("the 7x7 example is shown");
    let jhz_b = seed["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["rule_set"] == "jhz_b")
        .unwrap();
    // A = 24 - 25, E_B - E_W = 2 - 4, K = 0: Black by 1.
    assert_eq!(
        jhz_b["terms"],
        serde_json::json!([["A", -1.0], ["E_B − E_W", -2.0], ["K", 0.0]])
    );
    assert_eq!(jhz_b["margin"], 1.0);
    for section in [
        "headline",
        "breakdowns",
        "komi-sweep",
        "why",
        "self-check",
        "examples",
        "uncertainty",
        "provenance",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{section}\"")),
            "{section}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn parts_being_written_are_not_read() {
    let out = temp("staging");
    verdict(&["run", "tests/data/report", "--out", out.to_str().unwrap()]);
    // Someone else's work in progress, and garbage: never read.
    std::fs::write(out.join("games/_part-99999.parquet"), b"not parquet").unwrap();
    std::fs::write(out.join("games/.part-99998.parquet"), b"not parquet").unwrap();
    std::fs::create_dir_all(out.join("_staging")).unwrap();
    let written = verdict(&["report", out.to_str().unwrap(), "--json"]);
    let info: Value = serde_json::from_slice(&written.stdout).unwrap();
    assert_eq!(info["rows"], 5);
    assert_eq!(info["warnings"].as_array().unwrap().len(), 0, "{info}");
    // A folder that is no run is an error that says what to give.
    let bad = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(["report", out.join("games").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("summary.json"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn score_draws_the_board_as_svg() {
    let dir = temp("svg");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("board.svg");
    verdict(&[
        "score",
        "tests/data/report/seed-7x7-eyes.sgf",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(
        text.contains("<style>"),
        "a standalone file carries its styles"
    );
    // 19 black and 20 white stones alive, the dead black stone at c2.
    assert_eq!(
        text.matches("<circle class=\"bd-b\" cx").count(),
        19 + 1 + 1
    );
    assert_eq!(text.matches("<circle class=\"bd-w\" cx").count(), 20);
    assert_eq!(text.matches("class=\"bd-dead\"").count(), 1);
    assert!(
        text.contains("19 black and 20 white stones alive, 1 black and 0 white dead"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
