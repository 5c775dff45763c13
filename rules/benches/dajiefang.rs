//! 大解放 replay speed, no harness (like `replay.rs`): the games `verdict
//! synth --variant dajiefang` writes (the same self-play, the same board
//! sizes: half 9x9, a quarter each 13x13 and 19x19), written as SGF, read
//! back once, then replayed with one warm `dajiefang::Replayer` on one
//! thread. The target is 20,000 games per second per core. Run with
//! `cargo bench -p verdict-rules --bench dajiefang`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use verdict_rules::dajiefang::{selfplay, Replayer};
use verdict_rules::game::Game;
use verdict_rules::sgf::Reader;
use verdict_rules::BoardSize;

const GAMES: usize = 2000;
const TARGET_PER_SEC: f64 = 20_000.0;

fn main() {
    let texts: Vec<String> = (0..GAMES)
        .map(|i| {
            let side = match i % 4 {
                0 | 1 => 9,
                2 => 13,
                _ => 19,
            };
            let size = BoardSize::square(side).unwrap();
            let game = selfplay::play(size, i as u64, &selfplay::Options::default(), 10_000);
            format!("(;GM[1]SZ[{side}]RU[Dajiefang]{})", game.moves_sgf())
        })
        .collect();
    let games: Vec<Game> = texts
        .iter()
        .map(|t| {
            let sgf = Reader::new(t.as_bytes()).next().expect("a game");
            Game::from_sgf(&sgf, t.as_bytes()).expect("replayable")
        })
        .collect();
    let moves: usize = games.iter().map(|g| g.moves.len()).sum();
    let mut replayer = Replayer::new();
    let legal = games
        .iter()
        .filter(|g| {
            replayer
                .replay(g, g.dajiefang.as_ref().expect("variant"))
                .verdict
                .is_legal()
        })
        .count();
    println!(
        "{GAMES} self-play 大解放 games, {:.0} moves per game, {legal} legal",
        moves as f64 / GAMES as f64
    );

    // Rounds for about three seconds; the fastest is the steadier figure on
    // a shared machine, the median is shown beside it.
    let mut times = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) || times.len() < 5 {
        let t = Instant::now();
        for g in &games {
            black_box(replayer.replay(black_box(g), g.dajiefang.as_ref().unwrap()));
        }
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let rate = |secs: f64| GAMES as f64 / secs;
    let best = rate(times[0]);
    println!(
        "dajiefang replay, one thread: {best:.0} games/s best, {:.0} median ({:.1} ns per move best); target {TARGET_PER_SEC:.0}: {}",
        rate(times[times.len() / 2]),
        times[0] * 1e9 / moves as f64,
        if best >= TARGET_PER_SEC { "met" } else { "NOT met" }
    );
}
