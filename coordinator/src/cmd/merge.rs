//! `verdict merge`: the static shards of `verdict run --shard K/N`
//! published as one output.

use std::process::ExitCode;

use anyhow::Context;
use verdict_worker::report::{write_report, ReportOptions};
use verdict_worker::static_shard::merge;

use crate::cli::MergeArgs;

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let merged = merge(&args.out)?;
    for (what, why) in &merged.not_read {
        eprintln!("verdict: cannot read {what}: {why}");
    }
    // The report is written from a local folder; an output in a bucket
    // gets none here (as a cluster job's), and `verdict report` makes one
    // from a local copy.
    let in_bucket = verdict_worker::objects::is_url(&args.out);
    if in_bucket && !args.no_report {
        eprintln!(
            "verdict: no report.html for an output in a bucket: copy {} locally and run `verdict report` on it",
            args.out.display()
        );
    }
    if !args.no_report && !in_bucket {
        let written = write_report(&args.out, &ReportOptions::default()).with_context(|| {
            format!(
                "the shards are published in {} but the report could not be written",
                args.out.display()
            )
        })?;
        eprintln!(
            "verdict: report {} ({:.0} KB) written in {:.2} s",
            written.path.display(),
            written.bytes as f64 / 1024.0,
            written.elapsed.as_secs_f64()
        );
    }
    if args.json {
        let json = merged.summary.to_json(verdict_worker::row::SCHEMA_VERSION);
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        println!();
        println!(
            "  merged {} shards: {} games in {} part files",
            merged.shards, merged.summary.games, merged.parts
        );
        for (status, n) in &merged.summary.by_status {
            println!("    {:<14} {n:>9}", status.as_str());
        }
        super::run::print_table(&merged.summary);
        println!();
        println!(
            "  rows: {}; summaries: {}",
            args.out.join("games").display(),
            args.out.join("summary.json").display()
        );
    }
    Ok(super::read_status(!merged.not_read.is_empty()))
}
