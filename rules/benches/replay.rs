//! Quick replay speed check, no harness: self-play 19x19 games of up to 250 moves,
//! replayed with one warm `Replayer`. Run with
//! `cargo bench -p verdict-rules --bench replay`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use verdict_rules::board::Board;
use verdict_rules::game::{Game, Handicap};
use verdict_rules::info::GameInfo;
use verdict_rules::replay::Replayer;
use verdict_rules::rng::SplitMix64;
use verdict_rules::selfplay::{Policy, SelfPlay};
use verdict_rules::{BoardSize, Color, Move, Problems};

const GAMES: usize = 200;
const MOVES: usize = 250;

/// A 19x19 game of rules' self-play with invasions (the board fills up
/// like a playout, with captures everywhere), cut at [`MOVES`] moves, with
/// two passes at the end.
fn random_game(seed: u64) -> Game<'static> {
    let size = BoardSize::NINETEEN;
    let policy = Policy {
        invasions: true,
        leave_dame: false,
    };
    let mut play = SelfPlay::new(size, Vec::new(), SplitMix64(seed), policy);
    play.play_out(Color::Black);
    let mut moves: Vec<Move> = play.moves().to_vec();
    moves.truncate(MOVES);
    while moves.last().is_some_and(|m| m.is_pass()) {
        moves.pop();
    }
    let last = moves.last().map_or(Color::White, |m| m.color);
    moves.push(Move::pass(!last));
    moves.push(Move::pass(last));
    Game {
        size,
        info: GameInfo::default(),
        first_player: None,
        setup: vec![],
        moves,
        mid_setups: vec![],
        handicap: Handicap::NONE,
        territory_marks: None,
        variations: 0,
        problems: Problems::NONE,
        dajiefang: None,
    }
}

/// Times rounds for about two seconds and reports the fastest round, the
/// tenth percentile and the median: the machine may be shared, so the low
/// figures are the steadier ones.
fn measure(label: &str, per_round: usize, moves: usize, mut round: impl FnMut()) {
    round();
    let start = Instant::now();
    let mut times = Vec::new();
    while start.elapsed() < Duration::from_secs(2) {
        let t = Instant::now();
        round();
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let us = |q: usize| times[q] * 1e6 / per_round as f64;
    let n = times.len();
    println!(
        "{label}: {:.2} µs per game best, {:.2} p10, {:.2} median ({:.1} ns per move best)",
        us(0),
        us(n / 10),
        us(n / 2),
        us(0) * 1e3 / moves as f64
    );
}

fn main() {
    let games: Vec<Game> = (0..GAMES as u64)
        .map(|i| random_game(0x5EED_0F6A_3E00_F00D ^ i))
        .collect();
    let moves: usize = games.iter().map(|g| g.moves.len()).sum::<usize>() / GAMES;
    let captures: u32 = {
        let mut r = Replayer::new();
        games
            .iter()
            .map(|g| {
                let a = r.replay(g).accounting;
                a.captures.black + a.captures.white
            })
            .sum()
    };
    println!(
        "{GAMES} self-play 19x19 games of {moves} moves on average, {:.1} captured stones per game",
        f64::from(captures) / GAMES as f64
    );

    let mut replayer = Replayer::new();
    measure("replay (10 families, accounting)", GAMES, moves, || {
        for g in &games {
            black_box(replayer.replay(black_box(g)));
        }
    });

    let mut board = Board::new(BoardSize::NINETEEN);
    measure("board only (play every move)", GAMES, moves, || {
        for g in &games {
            board.reset(g.size);
            for m in &g.moves {
                if let Some(p) = m.point() {
                    let _ = black_box(board.play(m.color, p));
                }
            }
            black_box(board.hash());
        }
    });
}
