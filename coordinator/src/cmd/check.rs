//! `verdict check`: does our count reproduce each record's own result?

use std::process::ExitCode;

use anyhow::bail;
use serde_json::json;
use verdict_rules::analyse::KomiPolicy;
use verdict_worker::check::{check_files, Agreement, CheckOptions, CheckStats};
use verdict_worker::engine::Run;
use verdict_worker::replay::games_per_sec;

use crate::cli::CheckArgs;

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let found = super::discover(&args.inputs, args.common.json);
    if found.files.is_empty() {
        super::report_unread(&found, &[], &[]);
        bail!("no SGF files found in the given inputs: give .sgf files, collection files or directories holding them");
    }
    let options = CheckOptions {
        marked_only: args.marked_only,
        komi: KomiPolicy::Game,
        assume_rules: args.assume.rule_set()?,
    };
    let run = check_files(&found.files, args.common.threads, options);
    let unreadable = super::report_unread(&found, &run.not_read, &run.left_aside);
    if args.common.json {
        println!("{}", serde_json::to_string_pretty(&to_json(&run))?);
    } else {
        print_table(&run, args.max_misses);
    }
    Ok(super::read_status(unreadable))
}

fn agreement_json(a: &Agreement) -> serde_json::Value {
    json!({"agrees": a.agrees, "disagrees": a.disagrees, "checked": a.checked(), "rate": a.rate()})
}

fn to_json(run: &Run<CheckStats>) -> serde_json::Value {
    let s = &run.tally;
    json!({
        "files": s.files,
        "games": s.games,
        "skipped": s.skipped,
        "skip_reasons": s.skip_reasons,
        "filtered_out": s.filtered_out,
        "scored": s.scored,
        "checked": s.all.checked(),
        "agrees": s.all.agrees,
        "disagrees": s.all.disagrees,
        "agreement_rate": s.all.rate(),
        "unchecked": s.unchecked,
        "by_dead_source": s.by_dead_source.iter().map(|(k, v)| (k.to_string(), agreement_json(v))).collect::<serde_json::Map<_, _>>(),
        "by_rule_set": s.by_rule_set.iter().map(|(k, v)| (k.to_string(), agreement_json(v))).collect::<serde_json::Map<_, _>>(),
        "misses": s.misses.iter().map(|m| json!({
            "file": m.file, "game": m.index + 1, "rule_set": m.rule_set, "dead_source": m.dead_source,
            "recorded_margin": m.recorded, "computed_margin": m.computed,
        })).collect::<Vec<_>>(),
        "threads": run.threads,
        "seconds": run.elapsed.as_secs_f64(),
        "games_per_sec": games_per_sec(run, s.games),
    })
}

fn print_table(run: &Run<CheckStats>, max_misses: usize) {
    let s = &run.tally;
    println!();
    println!("  {:<30} {:>9}", "games", s.games);
    println!("  {:<30} {:>9}", "skipped", s.skipped);
    if s.filtered_out > 0 {
        println!(
            "  {:<30} {:>9}",
            "left out (no TB/TW marks)", s.filtered_out
        );
    }
    println!("  {:<30} {:>9}", "scored", s.scored);
    for (k, v) in &s.unchecked {
        println!("  {:<30} {:>9}", format!("  unchecked: {k}"), v);
    }
    let row = |name: &str, a: &Agreement| {
        println!(
            "  {:<30} {:>9} of {:>7} agree  {:6.2}%",
            name,
            a.agrees,
            a.checked(),
            100.0 * a.rate()
        )
    };
    row("  checked", &s.all);
    for (k, v) in &s.by_dead_source {
        row(&format!("    dead stones from {k}"), v);
    }
    for (k, v) in &s.by_rule_set {
        row(&format!("    rules {k}"), v);
    }
    if !s.misses.is_empty() {
        println!("\n  disagreements (first {max_misses}; --json lists all):");
        for m in s.misses.iter().take(max_misses) {
            println!(
                "    {} game {}: {} recorded {:+} computed {:+} (dead from {})",
                m.file,
                m.index + 1,
                m.rule_set,
                m.recorded,
                m.computed,
                m.dead_source
            );
        }
    }
    println!(
        "\n  {:.2} s on {} threads: {:.0} games/s",
        run.elapsed.as_secs_f64(),
        run.threads,
        games_per_sec(run, s.games)
    );
}
