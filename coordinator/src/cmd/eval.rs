//! `verdict eval deadstones`: the settler against players' marks, and GNU Go.

use std::process::ExitCode;

use anyhow::{bail, Context};
use verdict_worker::eval::{self, GnuGoReferee, Score};

use crate::cli::{DeadstonesArgs, Referee, ResultsArgs};

/// The results table's line for the referee.
fn print_referee_results(r: &eval::ResultScore, decided: usize, threshold: f32) {
    println!(
        "\n  with --referee gnugo on the {decided} games at confidence {threshold} or below: results reproduced {} ({:.2}%), winners {}, ms per game median {:.3}, p99 {:.3}",
        r.agree,
        100.0 * r.rate(),
        r.winner_agree,
        r.ms_median,
        r.ms_p99
    );
}

/// The settlements with the referee's answers where verdict was unsure, and
/// how many games it decided; None without `--referee`.
fn referee(
    args: &crate::cli::RefereeArgs,
    gnugo: Option<&GnuGoReferee>,
    threads: usize,
    cases: &[eval::Case],
    ours: &[eval::Outcome],
) -> Option<(Vec<eval::Outcome>, usize)> {
    match (args.referee, gnugo) {
        (Some(Referee::Gnugo), Some(g)) => {
            let (out, decided) = eval::refereed(
                cases,
                ours,
                args.referee_threshold,
                g,
                gnugo_processes(threads),
            );
            Some((out, decided.len()))
        }
        _ => None,
    }
}

/// GNU Go, started once when `--gnugo` or `--referee gnugo` asks for it,
/// and shared by both: one pool of processes, asked as `verdict run` asks.
fn start_gnugo(
    gnugo: &crate::cli::GnuGoArgs,
    referee: &crate::cli::RefereeArgs,
) -> anyhow::Result<Option<GnuGoReferee>> {
    if !gnugo.enabled && referee.referee.is_none() {
        return Ok(None);
    }
    GnuGoReferee::start(&gnugo.program)
        .map(Some)
        .with_context(|| format!("starting GNU Go ({})", gnugo.program))
}

/// Worker processes for GNU Go: `threads`, or every core when 0.
fn gnugo_processes(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

pub fn results(args: ResultsArgs) -> anyhow::Result<ExitCode> {
    let found = super::discover(&args.inputs, args.common.json);
    // The same error policy as run, replay and check: name what cannot
    // be read, measure the rest, exit 2.
    if found.files.is_empty() {
        super::report_unread(&found, &[], &[]);
        bail!("no SGF files found in the given inputs: give .sgf files, collection files or directories holding them");
    }
    let collected = eval::collect_labelled(
        &found.files,
        args.common.threads,
        eval::Labels::Results,
        args.assume.rule_set()?,
    );
    // Archive members that cannot be read are named too, after the walk.
    let unreadable = super::report_unread(&found, &collected.not_read, &collected.left_aside);
    let cases = collected.cases;
    if cases.is_empty() {
        bail!("none of the {} files holds an unmarked game with a numeric result (RE[B+3.5]) and rules verdict knows (RU, or --assume-rules for records without): nothing to check", found.files.len());
    }
    let (ours, _) = eval::settle_all(&cases, 0, false);
    let our_margins = eval::margins(&cases, &ours);
    let verdict_score = eval::score_results(&cases, &ours, &our_margins);
    let gnugo = start_gnugo(&args.gnugo, &args.referee)?;
    let theirs = gnugo
        .as_ref()
        .filter(|_| args.gnugo.enabled)
        .map(|g| eval::referee_all(&cases, g, gnugo_processes(args.common.threads)));
    let refereed = referee(
        &args.referee,
        gnugo.as_ref(),
        args.common.threads,
        &cases,
        &ours,
    )
    .map(|(out, decided)| {
        let m = eval::margins(&cases, &out);
        (eval::score_results(&cases, &out, &m), decided)
    });
    let their_margins = theirs.as_ref().map(|t| eval::margins(&cases, t));
    let gnugo_score = theirs
        .as_ref()
        .zip(their_margins.as_ref())
        .map(|(t, m)| eval::score_results(&cases, t, m));
    // Per game: the recorded margin, verdict's, and GNU Go's.
    let margins: Vec<(f64, f64, Option<f64>)> = cases
        .iter()
        .enumerate()
        .map(|(k, case)| {
            (
                case.recorded.unwrap_or(f64::NAN),
                our_margins[k].unwrap_or(f64::NAN),
                their_margins.as_ref().and_then(|m| m[k]),
            )
        })
        .collect();
    let only = |ours_right: bool| {
        margins
            .iter()
            .filter(|(r, v, g)| {
                g.is_some_and(|g| (*v == *r) == ours_right && (g == *r) != ours_right)
            })
            .count()
    };
    let (verdict_only, gnugo_only) = (only(true), only(false));
    if args.common.json {
        let mut out = verdict_score.to_json();
        if let Some(g) = &gnugo_score {
            out["gnugo"] = g.to_json();
            out["verdict_only"] = verdict_only.into();
            out["gnugo_only"] = gnugo_only.into();
        }
        out["misses"] = cases
            .iter()
            .zip(&margins)
            .filter(|(_, (r, v, _))| v != r)
            .map(|(case, (r, v, g))| {
                serde_json::json!({
                    "game": eval::case_name(case),
                    "recorded": r,
                    "verdict": v,
                    "gnugo": g,
                })
            })
            .collect();
        if let Some((r, decided)) = &refereed {
            out["referee"] = r.to_json();
            out["referee"]["decided"] = (*decided).into();
            out["referee"]["threshold"] = args.referee.referee_threshold.into();
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(super::read_status(unreadable));
    }
    println!();
    print!("  {:<26} {:>10}", "", "verdict");
    if gnugo_score.is_some() {
        print!(" {:>10}", "GNU Go");
    }
    println!();
    type Cell = fn(&eval::ResultScore) -> String;
    let rows: [(&str, Cell); 6] = [
        ("games", |s| s.games.to_string()),
        ("results reproduced", |s| s.agree.to_string()),
        ("rate", |s| format!("{:.2}%", 100.0 * s.rate())),
        ("winners reproduced", |s| s.winner_agree.to_string()),
        ("ms per game, median", |s| format!("{:.3}", s.ms_median)),
        ("ms per game, p99", |s| format!("{:.3}", s.ms_p99)),
    ];
    for (name, f) in rows {
        print!("  {:<26} {:>10}", name, f(&verdict_score));
        if let Some(g) = &gnugo_score {
            print!(" {:>10}", f(g));
        }
        println!();
    }
    if let Some(g) = &gnugo_score {
        println!("  reproduced by verdict only: {verdict_only}, by GNU Go only: {gnugo_only}");
        if g.failures > 0 {
            println!(
                "  GNU Go refused {} positions (not counted as reproduced)",
                g.failures
            );
        }
    }
    if let Some((r, decided)) = &refereed {
        print_referee_results(r, *decided, args.referee.referee_threshold);
    }
    let misses: Vec<_> = cases
        .iter()
        .zip(&margins)
        .filter(|(_, (r, v, _))| v != r)
        .take(args.show_misses)
        .collect();
    if !misses.is_empty() {
        println!("\n  results verdict does not reproduce (Black's margin):");
        for (case, (r, v, g)) in misses {
            let gnugo = g.map_or(String::new(), |g| {
                format!(
                    ", GNU Go {g:+}{}",
                    if g == *r { " (reproduced)" } else { "" }
                )
            });
            println!(
                "    {}  recorded {r:+}, verdict {v:+}{gnugo}",
                eval::case_name(case)
            );
        }
    }
    Ok(super::read_status(unreadable))
}

pub fn deadstones(args: DeadstonesArgs) -> anyhow::Result<ExitCode> {
    let found = super::discover(&args.inputs, args.common.json);
    // The same error policy as run, replay and check: name what cannot
    // be read, measure the rest, exit 2.
    if found.files.is_empty() {
        super::report_unread(&found, &[], &[]);
        bail!("no SGF files found in the given inputs: give .sgf files, collection files or directories holding them");
    }
    let collected = eval::collect(&found.files, args.common.threads);
    // Archive members that cannot be read are named too, after the walk.
    let unreadable = super::report_unread(&found, &collected.not_read, &collected.left_aside);
    let cases = collected.cases;
    if cases.is_empty() {
        bail!("none of the {} files holds a game with TB/TW territory marks on its final node: nothing to compare with", found.files.len());
    }
    let (ours, with_result) = eval::settle_all(&cases, 0, true);
    let verdict_score = eval::score(&cases, &ours);
    // Seeds after the first: their totals, and how many seeds got each
    // game exactly right.
    let mut exact_seeds: Vec<u64> = cases
        .iter()
        .zip(&ours)
        .map(|(c, o)| u64::from(eval::is_exact(c, o)))
        .collect();
    let seed_scores: Vec<Score> = (1..args.seeds)
        .map(|seed| {
            let outcomes = eval::settle_all(&cases, seed, false).0;
            for ((n, c), o) in exact_seeds.iter_mut().zip(&cases).zip(&outcomes) {
                *n += u64::from(eval::is_exact(c, o));
            }
            eval::score(&cases, &outcomes)
        })
        .collect();
    // Games some seeds get right and others not: where the playouts decide.
    let unstable: Vec<(String, u64)> = cases
        .iter()
        .zip(&exact_seeds)
        .filter(|(_, &n)| n > 0 && n < args.seeds)
        .map(|(c, &n)| (eval::case_name(c), n))
        .collect();
    let result_score = eval::score(&cases, &with_result);
    let started = start_gnugo(&args.gnugo, &args.referee)?;
    let refereed = referee(
        &args.referee,
        started.as_ref(),
        args.common.threads,
        &cases,
        &ours,
    )
    .map(|(out, decided)| (eval::score(&cases, &out), decided));
    let gnugo = started.as_ref().filter(|_| args.gnugo.enabled).map(|g| {
        let outcomes = eval::referee_all(&cases, g, gnugo_processes(args.common.threads));
        (eval::score(&cases, &outcomes), outcomes)
    });
    // Where both referees agree against the marks, the marks are the
    // likely mistake: those games are counted apart.
    let disputes = gnugo
        .as_ref()
        .map(|(_, theirs)| eval::disputes(&cases, &ours, theirs));
    let gnugo_score = gnugo.as_ref().map(|(score, _)| score);
    if args.common.json {
        let mut out = verdict_score.to_json();
        out["with_record_result"] = result_score.to_json();
        if let (Some((g, theirs)), Some(disputes)) = (&gnugo, &disputes) {
            out["gnugo"] = g.to_json();
            let undisputed = cases.len() - disputes.len();
            out["undisputed_games"] = undisputed.into();
            out["exact_undisputed"] = eval::exact_undisputed(&cases, &ours, disputes).into();
            out["gnugo"]["exact_undisputed"] =
                eval::exact_undisputed(&cases, theirs, disputes).into();
            out["disputed"] = disputes
                .iter()
                .map(|d| {
                    let case = &cases[d.case];
                    let size = case.position.size();
                    serde_json::json!({
                        "game": eval::case_name(case),
                        "dead_by_both": gtp_names(&d.dead, size),
                        "alive_by_both": gtp_names(&d.alive, size),
                    })
                })
                .collect();
        }
        if let Some((r, decided)) = &refereed {
            out["referee"] = r.to_json();
            out["referee"]["decided"] = (*decided).into();
            out["referee"]["threshold"] = args.referee.referee_threshold.into();
        }
        if args.seeds > 1 {
            out["seeds"] = std::iter::once(&verdict_score)
                .chain(&seed_scores)
                .enumerate()
                .map(|(seed, s)| {
                    serde_json::json!({
                        "seed": seed,
                        "exact": s.exact,
                        "winner_flips": s.winner_flips,
                    })
                })
                .collect();
            out["unstable"] = unstable
                .iter()
                .map(|(game, n)| serde_json::json!({ "game": game, "exact_seeds": n }))
                .collect();
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_table(&verdict_score, &result_score, gnugo_score);
        if let Some((r, decided)) = &refereed {
            println!(
                "\n  with --referee gnugo on the {decided} games at confidence {} or below: exact {} ({:.2}%), winner flips {}, ms per game median {:.3}, p99 {:.3}",
                args.referee.referee_threshold,
                r.exact,
                100.0 * r.exact_rate(),
                r.winner_flips,
                r.ms_median,
                r.ms_p99
            );
        }
        if let (Some((_, theirs)), Some(disputes)) = (&gnugo, &disputes) {
            print_disputes(&cases, &ours, theirs, disputes);
        }
        if args.seeds > 1 {
            print_seeds(&verdict_score, &seed_scores);
            println!(
                "\n  {} games are exact on some seeds and not others:",
                unstable.len()
            );
            for (game, n) in &unstable {
                println!("  {n:>4} of {} seeds exact  {game}", args.seeds);
            }
        }
        let mut shown = 0;
        let mut counter = verdict_rules::score::Counter::new();
        for (case, out) in cases.iter().zip(&ours) {
            if shown >= args.show_misses {
                break;
            }
            if !eval::is_exact(case, out) {
                shown += 1;
                let flips = eval::changes_winner(case, &mut counter, &out.dead);
                println!(
                    "\n{}  (marks: {} dead, verdict: {} dead{})",
                    eval::case_name(case),
                    case.marked.len(),
                    out.dead.len(),
                    if flips { "; the winner changes" } else { "" }
                );
                print!("{}", eval::diagram(case, &out.dead));
            }
        }
    }
    Ok(super::read_status(unreadable))
}

/// Points as GTP vertices (`D4`).
fn gtp_names(points: &[verdict_rules::Point], size: verdict_rules::BoardSize) -> Vec<String> {
    points.iter().map(|p| p.to_gtp(size)).collect()
}

/// The games whose marks both settlers dispute, stone by stone, and how
/// each settler does on the rest.
fn print_disputes(
    cases: &[eval::Case],
    ours: &[eval::Outcome],
    theirs: &[eval::Outcome],
    disputes: &[eval::Dispute],
) {
    let undisputed = cases.len() - disputes.len();
    let rate = |n: u64| 100.0 * n as f64 / undisputed.max(1) as f64;
    let (a, b) = (
        eval::exact_undisputed(cases, ours, disputes),
        eval::exact_undisputed(cases, theirs, disputes),
    );
    println!(
        "\n  {} games have stones verdict and GNU Go both judge otherwise than the marks",
        disputes.len()
    );
    println!(
        "  (likely the players' mistakes: look at the board; neither settler can be exact there):"
    );
    for d in disputes {
        let case = &cases[d.case];
        let size = case.position.size();
        let names = |v: &[verdict_rules::Point]| gtp_names(v, size).join(" ");
        let mut parts = Vec::new();
        if !d.dead.is_empty() {
            parts.push(format!(
                "dead by both, left standing by the marks: {}",
                names(&d.dead)
            ));
        }
        if !d.alive.is_empty() {
            parts.push(format!("marked dead, alive by both: {}", names(&d.alive)));
        }
        println!("    {}  {}", eval::case_name(case), parts.join("; "));
    }
    println!(
        "  exact on the other {undisputed} games: verdict {a} ({:.2}%), GNU Go {b} ({:.2}%)",
        rate(a),
        rate(b)
    );
}

/// Every seed's exact games and winner flips, with their mean and range.
fn print_seeds(first: &Score, rest: &[Score]) {
    let all: Vec<&Score> = std::iter::once(first).chain(rest).collect();
    let line = |name: &str, f: fn(&Score) -> u64| {
        let values: Vec<u64> = all.iter().map(|s| f(s)).collect();
        let mean = values.iter().sum::<u64>() as f64 / values.len() as f64;
        let list: Vec<String> = values.iter().map(u64::to_string).collect();
        println!(
            "  {name:<14} {:>7.2} mean, {} to {}  (seeds 0..{}: {})",
            mean,
            values.iter().min().unwrap_or(&0),
            values.iter().max().unwrap_or(&0),
            values.len() - 1,
            list.join(" ")
        );
    };
    println!("\n  verdict over {} playout seeds:", all.len());
    line("exact", |s| s.exact);
    line("winner flips", |s| s.winner_flips);
}

fn print_table(ours: &Score, with_result: &Score, gnugo: Option<&Score>) {
    println!();
    print!("  {:<22} {:>10} {:>12}", "", "verdict", "+RE (L5)");
    if gnugo.is_some() {
        print!(" {:>10}", "GNU Go");
    }
    println!();
    type Cell = fn(&Score) -> String;
    let rows: [(&str, Cell); 8] = [
        ("games", |s| s.games.to_string()),
        ("exact", |s| s.exact.to_string()),
        ("exact rate", |s| format!("{:.2}%", 100.0 * s.exact_rate())),
        ("stone precision", |s| format!("{:.4}", s.precision())),
        ("stone recall", |s| format!("{:.4}", s.recall())),
        ("winner flips", |s| s.winner_flips.to_string()),
        ("ms per game, median", |s| format!("{:.3}", s.ms_median)),
        ("ms per game, p99", |s| format!("{:.3}", s.ms_p99)),
    ];
    for (name, f) in rows {
        print!("  {:<22} {:>10} {:>12}", name, f(ours), f(with_result));
        if let Some(g) = gnugo {
            print!(" {:>10}", f(g));
        }
        println!();
    }
    println!("  (+RE (L5): the record's result decides chains the playouts left even; not used by `verdict run` unless --settle-with-result)");
    if let Some(g) = gnugo {
        if g.failures > 0 {
            println!(
                "  GNU Go refused {} positions (counted as no dead stones)",
                g.failures
            );
        }
    }
}
