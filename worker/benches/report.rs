//! The report of a 100,000-game run: written in under 5 s and under 5 MB.
//!
//! A corpus of `REPORT_BENCH_GAMES` self-play games (default 1,000) is
//! analysed once; its part files are then copied, and its summary added
//! up as many times, until the run holds `REPORT_BENCH_ROWS` rows
//! (default 100,000), as a real run of that size would. Only writing the
//! report is timed; the report is single-threaded (one core), reads every
//! part, and replays the records of its example games.
//!
//! `cargo bench -p verdict-worker --bench report` (CI runs it); exits 1
//! when the report is too slow or too big.

use std::path::Path;
use std::time::Instant;

use verdict_lab::synth::{write_corpus, SynthOptions};
use verdict_worker::inputs::discover;
use verdict_worker::report::{write_report, ReportOptions};
use verdict_worker::run::{run, RunOptions};

const BUDGET_SECONDS: f64 = 5.0;
const BUDGET_BYTES: u64 = 5 * 1024 * 1024;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let games = env("REPORT_BENCH_GAMES", 1000);
    let rows = env("REPORT_BENCH_ROWS", 100_000);
    let dir = std::env::temp_dir().join(format!("verdict-report-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let corpus = dir.join("corpus");
    let out = dir.join("out");
    write_corpus(
        &SynthOptions {
            games,
            ..SynthOptions::default()
        },
        &corpus,
        20,
    )
    .expect("writing the corpus");
    let files = discover(&[&corpus]).files;
    let t = Instant::now();
    let base = run(
        &files,
        &RunOptions {
            out: out.clone(),
            komi_sweep: verdict_worker::summary::parse_sweep("5.5:8.5:0.5").unwrap(),
            ..RunOptions::default()
        },
        false,
        verdict_worker::run::Hooks::default(),
    )
    .expect("the run");
    eprintln!(
        "analysed {} games in {:.1} s",
        base.summary.games,
        t.elapsed().as_secs_f64()
    );
    let copies = rows.div_ceil(base.summary.games.max(1) as usize).max(1);
    let mut summary = base.summary.clone();
    for k in 1..copies {
        for (i, part) in base.parts.iter().enumerate() {
            std::fs::copy(
                part,
                out.join("games")
                    .join(format!("part-copy{k:04}-{i:05}.parquet")),
            )
            .expect("copying a part");
        }
        summary.merge(&base.summary);
    }
    let out_dir =
        verdict_worker::confined::Dir::open(&verdict_worker::confined::resolve(&out).unwrap())
            .expect("the output folder");
    verdict_worker::publish::write_summary(&out_dir, &summary, verdict_worker::row::SCHEMA_VERSION)
        .expect("writing the summary");
    let t = Instant::now();
    let written = write_report(&out, &ReportOptions::default()).expect("the report");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "report of {} rows ({} copies of {} games): {:.2} s, {:.2} MB, {} boards, {} warnings",
        written.rows,
        copies,
        base.summary.games,
        secs,
        written.bytes as f64 / (1024.0 * 1024.0),
        written.boards,
        written.warnings.len()
    );
    let ok = secs < BUDGET_SECONDS && written.bytes < BUDGET_BYTES && written.rows >= rows;
    if std::env::var_os("REPORT_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!("kept {}", Path::new(&out).display());
    }
    if !ok {
        eprintln!(
            "over budget: {BUDGET_SECONDS} s and {BUDGET_BYTES} bytes for at least {rows} rows"
        );
        std::process::exit(1);
    }
}
