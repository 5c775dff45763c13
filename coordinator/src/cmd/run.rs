//! `verdict run`.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};
use verdict_worker::inputs;
use verdict_worker::run::{run as run_corpus, Progress, RunOptions, RunReport};

use crate::cli::RunArgs;

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (komi, komi_sweep) = args.analysis.komi()?;
    let rules = args.analysis.rule_sets()?;
    let found = inputs::discover(&args.inputs);
    for u in &found.unread {
        if args.inputs.contains(&u.path) {
            eprintln!("verdict: cannot read {}: {}", u.path.display(), u.reason);
        }
    }
    if found.files.is_empty() {
        bail!("no SGF files found in the given inputs: give .sgf files, collection files or directories holding them");
    }
    let options = RunOptions {
        out: args.out.clone(),
        threads: args.common.threads,
        komi,
        include_unfinished: args.analysis.include_unfinished,
        settle_with_result: args.settle_with_result,
        assume_rules: args.analysis.assume.rule_set()?,
        limit: args.limit,
        dedup: args.dedup,
        all_pairs: args.analysis.all_pairs,
        komi_sweep,
        rules,
        ..RunOptions::default()
    };
    let total = found.total_bytes();
    let bar = if std::io::stderr().is_terminal() && !args.common.json {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg} ETA {eta}",
            )
            .expect("a valid template"),
        );
        Some(bar)
    } else {
        None
    };
    let mut last_line = Instant::now();
    let mut on_progress = |p: Progress| {
        let rate = p.games as f64 / p.elapsed.as_secs_f64().max(1e-9);
        if let Some(bar) = &bar {
            bar.set_position(p.bytes_done);
            bar.set_message(format!("{} games, {rate:.0} games/s", p.games));
        } else if !args.common.json
            && (last_line.elapsed() > Duration::from_secs(5) || p.files_done == p.files_total)
        {
            last_line = Instant::now();
            eprintln!(
                "verdict: {}/{} files, {} games, {rate:.0} games/s",
                p.files_done, p.files_total, p.games
            );
        }
    };
    let report = run_corpus(&found.files, &options, &mut on_progress)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    super::report::after_run(&args, &report)?;
    if args.common.json {
        let json = report.summary.to_json(verdict_worker::row::SCHEMA_VERSION);
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(ExitCode::SUCCESS);
    }
    print_report(&report, &args.out);
    Ok(ExitCode::SUCCESS)
}

/// The table a person reads at the end of a run.
pub fn print_report(report: &RunReport, out: &std::path::Path) {
    let s = &report.summary;
    println!();
    println!(
        "  {} games in {:.1} s on {} threads ({:.0} games/s)",
        s.games,
        report.elapsed.as_secs_f64(),
        report.threads,
        s.games as f64 / report.elapsed.as_secs_f64().max(1e-9)
    );
    println!(
        "    time: reading files {:.2} s, analysing {:.2} s (thread time), writing Parquet and summaries {:.2} s",
        report.read_time.as_secs_f64(),
        report.analyse_time.as_secs_f64(),
        report.write_time.as_secs_f64()
    );
    for (status, n) in &s.by_status {
        println!("    {status:<14} {n:>9}");
    }
    if report.duplicates > 0 {
        println!(
            "    {:<14} {:>9}  (left out by --dedup)",
            "duplicates", report.duplicates
        );
    }
    if !report.not_read.is_empty() {
        println!(
            "    not read: {} files or archive members:",
            report.not_read.len()
        );
        for (name, reason) in report.not_read.iter().take(10) {
            println!("      {name}: {reason}");
        }
    }
    for (reason, n) in &s.skip_reasons {
        println!("      skipped: {reason:<14} {n:>7}");
    }
    if !s.self_check.is_empty() {
        let agrees = s.self_check.get("agrees").copied().unwrap_or(0);
        let disagrees = s.self_check.get("disagrees").copied().unwrap_or(0);
        println!(
            "  self-check against the records' own results: {agrees} agree, {disagrees} disagree, {} unchecked",
            s.self_check.get("unchecked").copied().unwrap_or(0)
        );
    }
    println!();
    println!(
        "  {:<24} {:>9} {:>9} {:>8}   {:<17} {:>6}",
        "comparison", "scorable", "differ", "rate", "95% interval", "draws"
    );
    for (name, t) in s.overall() {
        let (lo, hi) = t.wilson();
        println!(
            "  {:<24} {:>9} {:>9} {:>7.2}%   [{:>5.2}%, {:>5.2}%] {:>6}",
            name,
            t.scorable,
            t.disagreements,
            100.0 * t.rate(),
            100.0 * lo,
            100.0 * hi,
            t.draws
        );
    }
    println!();
    println!(
        "  rows: {} ({} part files); summaries: {}, {}",
        out.join("games").display(),
        report.parts.len(),
        out.join("summary.json").display(),
        out.join("summary.parquet").display()
    );
}
