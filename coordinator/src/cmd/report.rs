//! `verdict report`, and the report `verdict run` writes at its end.

use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;
use verdict_worker::report::{write_report, ReportOptions, RunInfo, Written};
use verdict_worker::run::RunReport;

use crate::cli::{ReportArgs, RunArgs};

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let options = ReportOptions {
        examples: args.examples,
        max_boards: args.boards,
        ..ReportOptions::default()
    };
    let written = write_report(&args.out, &options).with_context(|| {
        format!(
            "cannot write the report of {}: give the output folder of a finished `verdict run` (it holds games/ and summary.json)",
            args.out.display()
        )
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&to_json(&written))?);
    } else {
        print_written(&written);
    }
    Ok(ExitCode::SUCCESS)
}

fn to_json(w: &Written) -> serde_json::Value {
    json!({
        "path": w.path.display().to_string(),
        "bytes": w.bytes,
        "rows": w.rows,
        "boards": w.boards,
        "seconds": w.elapsed.as_secs_f64(),
        "warnings": w.warnings,
    })
}

fn print_written(w: &Written) {
    println!(
        "  report: {} ({:.0} KB, {} rows, {} boards, {:.2} s)",
        w.path.display(),
        w.bytes as f64 / 1024.0,
        w.rows,
        w.boards,
        w.elapsed.as_secs_f64()
    );
    for warning in &w.warnings {
        println!("  warning: {warning}");
    }
}

/// Writes the report of a run that has just finished, with the run's own
/// options on it (a report made later from the folder has only what the
/// rows say). Its line goes to stderr, so `--json` output stays one object.
pub fn after_run(args: &RunArgs, out: &std::path::Path, report: &RunReport) -> anyhow::Result<()> {
    let a = &args.analysis;
    let mut options = vec![
        ("--komi".to_string(), a.komi.clone()),
        (
            "--rules".to_string(),
            if a.rules.is_empty() {
                "all".to_string()
            } else {
                a.rules.join(",")
            },
        ),
        ("--all-pairs".to_string(), a.all_pairs.to_string()),
        (
            "--include-unfinished".to_string(),
            a.include_unfinished.to_string(),
        ),
        (
            "--settle-with-result".to_string(),
            args.settle_with_result.to_string(),
        ),
        ("--dedup".to_string(), args.dedup.to_string()),
    ];
    if let Some(l) = args.limit {
        options.push(("--limit".to_string(), l.to_string()));
    }
    options.push(("threads".to_string(), report.threads.to_string()));
    let command = std::env::args()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:=,".contains(c))
            {
                a
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let written = write_report(
        out,
        &ReportOptions {
            run: Some(RunInfo {
                command,
                options,
                elapsed: report.elapsed,
            }),
            ..ReportOptions::default()
        },
    )
    .with_context(|| {
        format!(
            "the run finished (its rows and summaries are in {}) but its report could not be written",
            out.display()
        )
    })?;
    eprintln!(
        "verdict: report {} ({:.0} KB) written in {:.2} s",
        written.path.display(),
        written.bytes as f64 / 1024.0,
        written.elapsed.as_secs_f64()
    );
    for w in &written.warnings {
        eprintln!("verdict: report warning: {w}");
    }
    Ok(())
}
