//! `verdict replay`.

use std::process::ExitCode;

use anyhow::bail;
use serde_json::json;
use verdict_worker::engine::Run;
use verdict_worker::inputs;
use verdict_worker::replay::{games_per_sec, replay_files, ReplayStats};

use crate::cli::ReplayArgs;

pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let found = super::discover(&args.inputs, args.common.json);
    if found.files.is_empty() {
        for u in &found.unread {
            eprintln!("verdict: skipped {}: {}", u.path.display(), u.reason);
        }
        bail!(
            "no SGF files found in {}: give .sgf files, collection files or directories holding them",
            args.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    if !args.common.json {
        eprintln!(
            "verdict: replaying {} files ({:.1} MB)...",
            found.files.len(),
            found.total_bytes() as f64 / 1e6
        );
    }
    let run = replay_files(&found.files, args.common.threads);
    if args.common.json {
        println!("{}", serde_json::to_string_pretty(&to_json(&run, &found))?);
    } else {
        print_table(&run, &found);
    }
    // Named on stderr as run, check and eval name them.
    let unreadable = super::report_unread(&found, &run.not_read, &run.left_aside);
    Ok(super::read_status(
        unreadable || !run.tally.unreadable_files.is_empty(),
    ))
}

fn to_json(run: &Run<ReplayStats>, found: &inputs::Inputs) -> serde_json::Value {
    let s = &run.tally;
    json!({
        "files": s.files,
        "bytes": s.bytes,
        "games": s.games,
        "replayed": s.replayed,
        "clean": s.clean,
        "with_problems": s.with_problems(),
        "skipped": s.skipped,
        "moves": s.moves,
        "variations": s.variations,
        "problems": s.problems,
        "skip_reasons": s.skip_reasons,
        "illegal_by_family": s.illegal_by_family,
        "dajiefang_games": s.dajiefang_games,
        "unreadable_files": s.unreadable_files.iter().map(|(p, e)| json!({"path": p, "error": e})).collect::<Vec<_>>(),
        "not_read": found.unread.iter().map(|u| json!({"path": u.path.display().to_string(), "reason": u.reason})).collect::<Vec<_>>(),
        "threads": run.threads,
        "seconds": run.elapsed.as_secs_f64(),
        "games_per_sec": games_per_sec(run, s.games),
    })
}

fn print_table(run: &Run<ReplayStats>, found: &inputs::Inputs) {
    let s = &run.tally;
    let pct = |n: u64| 100.0 * n as f64 / s.games.max(1) as f64;
    println!();
    println!("  {:<28} {:>10}", "files", s.files);
    println!("  {:<28} {:>10}", "games", s.games);
    println!(
        "  {:<28} {:>10}  {:5.1}%",
        "replayed",
        s.replayed,
        pct(s.replayed)
    );
    println!("  {:<28} {:>10}  {:5.1}%", "  clean", s.clean, pct(s.clean));
    println!(
        "  {:<28} {:>10}  {:5.1}%",
        "  with problems",
        s.with_problems(),
        pct(s.with_problems())
    );
    println!(
        "  {:<28} {:>10}  {:5.1}%",
        "skipped",
        s.skipped,
        pct(s.skipped)
    );
    if s.dajiefang_games > 0 {
        println!(
            "  {:<28} {:>10}  {:5.1}%",
            "  大解放 games",
            s.dajiefang_games,
            pct(s.dajiefang_games)
        );
    }
    section("problems (games showing each)", &s.problems, pct);
    section("skip reasons", &s.skip_reasons, pct);
    section(
        "illegal under rule family (games)",
        &s.illegal_by_family,
        pct,
    );
    if !found.unread.is_empty() {
        println!(
            "\n  not read: {} paths (not .sgf, or missing); --json lists them",
            found.unread.len()
        );
    }
    for (path, err) in &s.unreadable_files {
        println!("  unreadable: {path}: {err}");
    }
    println!(
        "\n  {} moves in {:.2} s on {} threads: {:.0} games/s ({:.0} games/s per thread)",
        s.moves,
        run.elapsed.as_secs_f64(),
        run.threads,
        games_per_sec(run, s.games),
        games_per_sec(run, s.games) / run.threads.max(1) as f64
    );
}

fn section(
    title: &str,
    map: &std::collections::BTreeMap<&'static str, u64>,
    pct: impl Fn(u64) -> f64,
) {
    if map.is_empty() {
        return;
    }
    println!("\n  {title}");
    for (k, v) in map {
        println!("    {:<26} {:>10}  {:5.1}%", k, v, pct(*v));
    }
}
