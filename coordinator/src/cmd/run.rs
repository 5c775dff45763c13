//! `verdict run`.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Arc;

use verdict_rules::analyse::CheckStatus;
use verdict_worker::eval::GnuGoReferee;
use verdict_worker::run::{
    run as run_corpus, Hooks, Journaled, Progress, RefereeChoice, RunOptions, RunReport,
};
use verdict_worker::run_remote::Mirror;
use verdict_worker::shard::ShardError;
use verdict_worker::static_shard::{run_static, StaticError, StaticShard};
use verdict_worker::{inputs, objects};

use crate::cli::RunArgs;

/// Set by the first Ctrl-C (or SIGTERM, as a scheduler sends): the run stops after its current chunk and
/// keeps what it did for `--resume`. A second Ctrl-C ends it at once.
pub(super) static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    if STOP.swap(true, Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}

pub(super) fn stop_on_ctrl_c() {
    #[cfg(unix)]
    // SAFETY: the handler only touches an atomic (and _exit), both
    // async-signal-safe.
    unsafe {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            libc::signal(
                signal,
                on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// How often a run without a terminal says how far it got:
/// `VERDICT_PROGRESS_SECONDS`, or ten seconds.
fn progress_every() -> Duration {
    std::env::var("VERDICT_PROGRESS_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(Duration::from_secs(10), Duration::from_secs_f64)
}

/// The referee `--referee` asks for, started once to see that it runs.
fn referee(args: &RunArgs) -> anyhow::Result<Option<(RefereeChoice, Arc<GnuGoReferee>)>> {
    let Some(choice) = args.referee.referee else {
        return Ok(None);
    };
    match choice {
        crate::cli::Referee::Gnugo => {
            let gnugo = Arc::new(
                GnuGoReferee::start(&args.gnugo_bin)
                    .context("starting GNU Go for --referee gnugo")?,
            );
            let choice = RefereeChoice {
                name: crate::cli::Referee::Gnugo.id().to_string(),
                threshold: args.referee.referee_threshold,
                referee: Some(gnugo.clone()),
            };
            Ok(Some((choice, gnugo)))
        }
    }
}

/// What the referee did, on stderr at the end of a run.
fn say_refereed(referee: Option<&(RefereeChoice, Arc<GnuGoReferee>)>) {
    if let Some((choice, gnugo)) = referee {
        let (asked, failed) = gnugo.asked();
        eprintln!(
            "referee: GNU Go was asked about {asked} games settled at confidence {} or below; it decided {}{}",
            choice.threshold,
            asked - failed,
            if failed > 0 {
                format!(", and gave no answer for {failed} (their rows say referee = failed and count the settler's answer)")
            } else {
                String::new()
            }
        );
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (komi, komi_sweep) = args.analysis.komi()?;
    let rules = args.analysis.rule_sets()?;
    let found = super::discover(&args.inputs, args.common.json);
    if found.files.is_empty() {
        super::report_unread(&found, &[], &[]);
        bail!("no SGF files found in the given inputs: give .sgf files, collection files or directories holding them");
    }
    // An output in object storage is written locally first, its staging
    // folder copied into the bucket as it goes (for --resume), then
    // published to the bucket whole (verdict_worker::objects::publish).
    let remote = if objects::is_url(&args.out) && args.shard.is_none() {
        let url = objects::ObjectUrl::parse(&args.out)?;
        // Fail before the analysis when the bucket cannot be reached.
        objects::store(&url)?.probe(&format!(
            "{}/",
            url.join(verdict_worker::publish::GAMES).key
        ))?;
        // Removed when the run ends, however it ends.
        let local = objects::Scratch::new("out").context(
            "a local folder to write the output in first (set TMPDIR to a folder with room)",
        )?;
        let mirror = Mirror::new(&url)?;
        Some((url, local, mirror))
    } else {
        None
    };
    let referee = referee(&args)?;
    let local_out = remote
        .as_ref()
        .map_or(args.out.clone(), |(_, l, _)| l.path().to_path_buf());
    let options = RunOptions {
        out: local_out.clone(),
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
        chunk_games: args.chunk_games as usize,
        chunk_bytes: (args.chunk_mib as usize) << 20,
        part_rows: args.part_rows,
        referee: referee.as_ref().map(|(choice, _)| choice.clone()),
    };
    if let Some(shard) = args.shard {
        // A shard into a bucket puts its own files there (static_shard).
        let options = RunOptions {
            out: args.out.clone(),
            ..options
        };
        let code = static_shard(&args, &found, &options, shard);
        say_refereed(referee.as_ref());
        return code;
    }
    // A run into a bucket: what --resume takes up is its copy there.
    let fingerprint = verdict_worker::run::fingerprint(&found.files, &options);
    if let (Some((url, local, mirror)), true) = (&remote, args.resume) {
        match mirror.fetch(&fingerprint, local.path())? {
            Some(name) => eprintln!(
                "verdict: taking up the stopped run {}",
                mirror.place(&name)
            ),
            None => bail!(
                "nothing to resume in {url}: no stopped run of these inputs and options under {} (a run started without --resume, or one that published, removes it)",
                url.join(verdict_worker::publish::STAGING)
            ),
        }
    }
    // The name of the run's staging folder, as the first journal write tells it.
    let staged: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let copy = |j: &Journaled<'_>| {
        let _ = staged.set(j.name.to_string());
        match &remote {
            Some((_, _, mirror)) => mirror.journaled(j),
            None => Ok(()),
        }
    };
    let total = found.total_bytes();
    let analysed = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let bar = (std::io::stderr().is_terminal() && !args.common.json).then(|| {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg} ETA {eta}",
            )
            .expect("a valid template"),
        );
        bar
    });
    stop_on_ctrl_c();
    // Bytes of the inputs whose games are all done (after each chunk).
    let bytes_done = AtomicU64::new(0);
    let mut on_progress = |p: Progress| {
        bytes_done.store(p.bytes_done, Ordering::Relaxed);
        if let Some(bar) = &bar {
            bar.set_position(p.bytes_done.min(total));
        }
    };
    let report = std::thread::scope(|scope| {
        if !args.common.json {
            let (analysed, bytes_done) = (&analysed, &bytes_done);
            let games = move || {
                let n = analysed.load(Ordering::Relaxed);
                let rate = n as f64 / started.elapsed().as_secs_f64().max(1e-9);
                format!("{n} games, {rate:.0} games/s")
            };
            let line = move || {
                let n = analysed.load(Ordering::Relaxed);
                let rate = n as f64 / started.elapsed().as_secs_f64().max(1e-9);
                format!(
                    "{n} games, {:.0}% of {total} bytes, {rate:.0} games/s",
                    100.0 * bytes_done.load(Ordering::Relaxed) as f64 / total.max(1) as f64,
                )
            };
            tick(scope, &done, bar.as_ref(), games, line);
        }
        let hooks = Hooks {
            progress: Some(&mut on_progress),
            analysed: Some(&analysed),
            stop: Some(&STOP),
            journaled: Some(&copy),
        };
        let report = run_corpus(&found.files, &options, args.resume, hooks);
        done.store(true, Ordering::Relaxed);
        report
    });
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            // As the local staging folder, its copy goes with a failed run.
            if let (Some((_, _, mirror)), Some(name)) = (&remote, staged.get()) {
                let _ = mirror.discard(name, "");
            }
            return Err(e.into());
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    say_refereed(referee.as_ref());
    let unreadable = super::report_unread(&found, &report.not_read, &report.left_aside);
    if report.stopped {
        let staging = match (&remote, staged.get()) {
            (Some((_, _, mirror)), Some(name)) => mirror.place(name).to_string(),
            _ => args
                .out
                .join(verdict_worker::publish::STAGING)
                .display()
                .to_string(),
        };
        eprintln!(
            "verdict: stopped after {} games; the parts so far wait in {staging}: run the same command with --resume to take it up",
            report.summary.games,
        );
        return Ok(ExitCode::from(130));
    }
    if !args.no_report {
        super::report::after_run(&args, &local_out, &report)?;
    }
    if let Some((url, local, mirror)) = &remote {
        let run = format!(
            "{:08x}{:08x}",
            std::process::id(),
            verdict_worker::ids::random_u64() as u32
        );
        // Not published: the copy stays, and --resume publishes it.
        let published = objects::publish(local.path(), url, &run).context(
            "the run is complete but not published: run the same command with --resume to publish it",
        )?;
        eprintln!(
            "verdict: published {} parts to {url} (removed {} of the previous output)",
            published.parts, published.removed
        );
        if let Some(name) = staged.get() {
            if let Err(e) = mirror.discard(name, &fingerprint) {
                eprintln!("verdict: the run's copy in {} could not be removed ({e}): the next run of the same command that publishes removes it", mirror.place(name));
            }
        }
    }
    if args.common.json {
        let json = report.summary.to_json(verdict_worker::row::SCHEMA_VERSION);
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print_report(&report, &args.out);
    }
    Ok(super::read_status(unreadable))
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
        "    time: analysing {:.2} s (thread time), writing Parquet and summaries {:.2} s",
        report.analyse_time.as_secs_f64(),
        report.write_time.as_secs_f64()
    );
    if report.resumed_games > 0 {
        println!(
            "    resumed: {} games were done before the stop",
            report.resumed_games
        );
    }
    for (status, n) in &s.by_status {
        println!("    {:<14} {n:>9}", status.as_str());
    }
    if report.duplicates > 0 {
        println!(
            "    {:<14} {:>9}  (left out by --dedup)",
            "duplicates", report.duplicates
        );
    }
    if !report.not_read.is_empty() {
        println!(
            "    could not be read: {} files, archives or members (listed above; each has an `unreadable` row)",
            report.not_read.len()
        );
    }
    for (reason, n) in &s.skip_reasons {
        println!("      skipped: {:<14} {n:>7}", reason.as_str());
    }
    if !s.self_check.is_empty() {
        let count = |c: CheckStatus| s.self_check.get(&c).copied().unwrap_or(0);
        println!(
            "  self-check against the records' own results: {} agree, {} disagree, {} unchecked",
            count(CheckStatus::Agrees),
            count(CheckStatus::Disagrees),
            count(CheckStatus::Unchecked)
        );
    }
    print_table(s);
    println!();
    println!(
        "  rows: {} ({} part files); summaries: {}, {}",
        out.join("games").display(),
        report.parts.len(),
        out.join("summary.json").display(),
        out.join("summary.parquet").display()
    );
}

/// The comparisons of a summary, one line each, with their intervals.
pub fn print_table(s: &verdict_worker::summary::Summary) {
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
}

/// Says how far an analysis got while it runs, game by game however long
/// a chunk takes: on a terminal, `bar` shows `message` (every 200 ms);
/// without one (a log, a batch job), `line` is printed every
/// [`progress_every`].
fn tick<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    done: &'env AtomicBool,
    bar: Option<&'env ProgressBar>,
    message: impl Fn() -> String + Send + 'scope,
    line: impl Fn() -> String + Send + 'scope,
) {
    let every = progress_every();
    scope.spawn(move || {
        let mut last = Instant::now();
        while !done.load(Ordering::Relaxed) {
            match bar {
                Some(bar) => {
                    bar.set_message(message());
                    bar.tick();
                }
                None if last.elapsed() >= every => {
                    last = Instant::now();
                    eprintln!("verdict: {}", line());
                }
                None => {}
            }
            std::thread::sleep(every.min(Duration::from_millis(200)));
        }
    });
}

/// `verdict run --shard K/N`: one static shard into OUT/_shards.
fn static_shard(
    args: &RunArgs,
    found: &inputs::Inputs,
    options: &RunOptions,
    shard: StaticShard,
) -> anyhow::Result<ExitCode> {
    let analysed = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let started = Instant::now();
    stop_on_ctrl_c();
    let spinner =
        (!args.common.json && std::io::stderr().is_terminal()).then(ProgressBar::new_spinner);
    let report = std::thread::scope(|scope| {
        if !args.common.json {
            let analysed = &analysed;
            let line = move || {
                let n = analysed.load(Ordering::Relaxed);
                let rate = n as f64 / started.elapsed().as_secs_f64().max(1e-9);
                format!("shard {shard}: {n} games, {rate:.0} games/s")
            };
            tick(scope, &done, spinner.as_ref(), line, line);
        }
        let r = run_static(found, options, shard, &analysed, &STOP);
        done.store(true, Ordering::Relaxed);
        r
    });
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    let report = match report {
        Err(StaticError::Shard(ShardError::Cancelled)) => {
            eprintln!(
                "verdict: shard {shard} stopped; nothing of it is kept: run it again (it starts over)"
            );
            return Ok(ExitCode::from(130));
        }
        r => r?,
    };
    // Named here; recorded for `verdict merge`, whose exit status says it.
    super::report_unread(found, &report.not_read, &[]);
    if args.common.json {
        let json = report.summary.to_json(verdict_worker::row::SCHEMA_VERSION);
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        println!(
            "  shard {shard}: {} games in {:.1} s on {} threads ({} of the planner's {} shards)",
            report.rows,
            report.elapsed.as_secs_f64(),
            report.threads,
            report.covered,
            report.planned
        );
        println!("    written to {}", report.dir.display());
        println!(
            "    when all {} shards have run: verdict merge {}",
            shard.n,
            args.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
