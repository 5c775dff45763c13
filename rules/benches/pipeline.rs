//! Per-stage cost of the per-game pipeline on real records: reading the SGF,
//! building the `Game`, replaying, and counting + scoring the final position.
//! No harness; run with `cargo bench -p verdict-rules --bench pipeline`, or
//! `... -- score` to time (and profile) only counting + scoring, longer;
//! `... -- settle` likewise for settling dead stones without marks.
//!
//! Uses the marked KGS games of `../shared/corpora/kgs` (dead stones from
//! their TB/TW marks, the positions scoring sees in practice) and the whole
//! KGS folder for reading and replay. Prints a notice and exits when the
//! corpora are absent.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use verdict_rules::analyse::{Analyser, KomiPolicy};
use verdict_rules::game::Game;
use verdict_rules::replay::Replayer;
use verdict_rules::score::{verdicts, Counter, Position, Terms};
use verdict_rules::settle::{Settlement, Settler};
use verdict_rules::sgf::{Reader, SgfGame};

fn files(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "sgf") {
            if let Ok(b) = std::fs::read(&p) {
                out.push(b);
            }
        }
    }
}

/// Median of `rounds` timings of `f` over `n` items, in microseconds per item.
fn time(n: usize, rounds: usize, f: impl FnMut()) -> f64 {
    times(n, rounds, f).1
}

/// Fastest and median of `rounds` timings, in microseconds per item. The
/// fastest round is the steadier figure on a shared machine.
fn times(n: usize, rounds: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut t: Vec<Duration> = (0..rounds)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
    (per(t[0]), per(t[rounds / 2]))
}

fn main() {
    let kgs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/kgs");
    let mut all = Vec::new();
    files(&kgs, &mut all);
    if all.is_empty() {
        println!(
            "SKIPPED: {} not found; this benchmark measures real records",
            kgs.display()
        );
        return;
    }
    let games: usize = all.iter().map(|b| Reader::new(b).count()).sum();

    let read = time(games, 7, || {
        let mut sgf = SgfGame::default();
        for b in &all {
            let mut r = Reader::new(b);
            while r.next_into(&mut sgf) {
                black_box(sgf.nodes.len());
            }
        }
    });
    let build = time(games, 7, || {
        for b in &all {
            for sgf in Reader::new(b) {
                black_box(Game::from_sgf(&sgf, b).ok());
            }
        }
    }) - read;
    let parsed: Vec<(SgfGame<'_>, &[u8])> = all
        .iter()
        .flat_map(|b| Reader::new(b).map(move |g| (g, b.as_slice())))
        .collect();
    let built: Vec<Game<'_>> = parsed
        .iter()
        .filter_map(|(g, b)| Game::from_sgf(g, b).ok())
        .collect();
    let mut replayer = Replayer::new();
    let replay = time(built.len(), 7, || {
        for g in &built {
            black_box(replayer.replay(g));
        }
    });

    // Scoring: the final positions of the marked games with their dead stones.
    let mut analyser = Analyser::new();
    let marked: Vec<_> = built
        .iter()
        .filter(|g| g.territory_marks.is_some())
        .map(|g| {
            let a = analyser.analyse(g, KomiPolicy::Game);
            (
                a.position.clone(),
                a.dead.clone(),
                a.report.accounting,
                g.info.komi.points,
                g.handicap.stones,
            )
        })
        .collect();
    let only_score = std::env::args().any(|a| a == "score");
    let mut counter = Counter::new();
    let (score_best, score) = times(marked.len(), if only_score { 501 } else { 21 }, || {
        for (pos, dead, acc, komi, handicap) in &marked {
            let counts = counter.count(black_box(pos as &Position), dead);
            let terms = Terms {
                placed: acc.placed_to_first_stop,
                captures: acc.captures,
                handicap: *handicap,
                komi: *komi,
            };
            black_box(verdicts(&counts, &terms));
        }
    });
    if only_score {
        println!(
            "count + score {score:.2} us/position median, {score_best:.2} fastest round ({} marked final positions)",
            marked.len()
        );
        return;
    }
    // Settling: the same positions, marks ignored.
    let only_settle = std::env::args().any(|a| a == "settle");
    let mut settler = Settler::new();
    let mut settlement = Settlement::default();
    let (settle_best, settle) = times(marked.len(), if only_settle { 21 } else { 3 }, || {
        for (pos, ..) in &marked {
            settler.settle(black_box(pos as &Position), &mut settlement);
            black_box(settlement.dead.len());
        }
    });
    if only_settle {
        println!(
            "settle {settle:.1} us/position median, {settle_best:.1} fastest round ({} marked final positions, marks ignored)",
            marked.len()
        );
        return;
    }
    let analyse = time(built.len(), 5, || {
        for g in &built {
            black_box(analyser.analyse(g, KomiPolicy::Game));
        }
    });
    println!(
        "{games} KGS games ({} marked), one thread, median of rounds:",
        marked.len()
    );
    println!("  read SGF            {read:8.2} us/game");
    println!("  build Game          {build:8.2} us/game");
    println!("  replay              {replay:8.2} us/game");
    println!(
        "  count + score       {score:8.2} us/position (marked final positions, 11 rule sets)"
    );
    println!("  settle              {settle:8.2} us/position (the same positions, marks ignored)");
    println!("  analyse (all four)  {analyse:8.2} us/game (every game settled and scored)");
    println!(
        "  => {:.0} games/s per core for read + build + analyse",
        1e6 / (read + build + analyse)
    );
}
