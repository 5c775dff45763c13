//! One module per command.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use verdict_worker::{inputs, objects};

use crate::cli::{Cli, Command};

mod check;
mod demo;
mod eval;
mod merge;
mod replay;
pub mod report;
pub(crate) mod run;
mod score;
mod synth;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Score(args) => score::run(args),
        Command::Check(args) => check::run(args),
        Command::Run(args) => run::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Report(args) => report::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Eval(crate::cli::EvalCommand::Deadstones(args)) => eval::deadstones(args),
        Command::Eval(crate::cli::EvalCommand::Results(args)) => eval::results(args),
        Command::Serve(args) => crate::cluster::serve(args),
        Command::Worker(args) => crate::cluster::worker(args),
        Command::Submit(args) => crate::cluster::submit(args),
        Command::Jobs(args) => crate::cluster::jobs(args),
        Command::Status(args) => crate::cluster::status(args),
        Command::Watch(args) => crate::cluster::watch(args),
        Command::Cancel(args) => crate::cluster::cancel(args),
        Command::Delete(args) => crate::cluster::delete(args),
        Command::Loadtest(args) => crate::cluster::loadtest(args),
    }
}

/// The inputs, as [`inputs::discover`] finds them. Listing a bucket is a
/// round trip per 1,000 objects, seconds to minutes before anything else
/// shows, so unless `quiet` (`--json`) the buckets are named as they are
/// listed, and how many objects the listing found is said after.
pub fn discover(paths: &[PathBuf], quiet: bool) -> inputs::Inputs {
    let urls: Vec<String> = paths
        .iter()
        .filter(|p| objects::is_url(p))
        .map(|p| p.display().to_string())
        .collect();
    if quiet || urls.is_empty() {
        return inputs::discover(paths);
    }
    let names = urls.join(", ");
    eprintln!("verdict: listing {names}...");
    let started = Instant::now();
    let found = inputs::discover(paths);
    let listed = found
        .files
        .iter()
        .filter(|f| objects::is_url(&f.path))
        .count();
    // A listing refused says why among the inputs not read.
    if listed > 0 {
        eprintln!(
            "verdict: {listed} objects to read in {names} (listed in {:.1} s)",
            started.elapsed().as_secs_f64()
        );
    }
    found
}

/// Says what of the inputs was not read; true if anything could not be read
/// (the exit status says so), as opposed to left aside.
pub fn report_unread(
    found: &inputs::Inputs,
    not_read: &[(String, String)],
    left_aside: &[(String, String)],
) -> bool {
    let mut errors = 0;
    for u in found.unread.iter().filter(|u| u.error) {
        eprintln!("verdict: cannot read {}: {}", u.path.display(), u.reason);
        errors += 1;
    }
    for (what, why) in not_read {
        eprintln!("verdict: cannot read {what}: {why}");
        errors += 1;
    }
    let aside: Vec<(String, &str)> = found
        .unread
        .iter()
        .filter(|u| !u.error)
        .map(|u| (u.path.display().to_string(), u.reason.as_str()))
        .chain(left_aside.iter().map(|(w, r)| (w.clone(), r.as_str())))
        .collect();
    if !aside.is_empty() {
        eprintln!(
            "verdict: {} files or archive members left aside:",
            aside.len()
        );
        for (what, why) in aside.iter().take(5) {
            eprintln!("  {what}: {why}");
        }
        if aside.len() > 5 {
            eprintln!(
                "  and {} more (`verdict replay --json` lists every one)",
                aside.len() - 5
            );
        }
    }
    errors > 0
}

/// The exit status of a command that read inputs: 2 when one could not be
/// read (each was named by [`report_unread`]), else 0.
pub fn read_status(unreadable: bool) -> ExitCode {
    if unreadable {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
