//! Quick replay speed check, no harness: random legal 250-move 19x19 games,
//! replayed with one warm `Replayer`. Run with
//! `cargo bench -p verdict-rules --bench replay`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use verdict_rules::board::Board;
use verdict_rules::game::{Game, Handicap};
use verdict_rules::info::GameInfo;
use verdict_rules::replay::Replayer;
use verdict_rules::{BoardSize, Color, Move, Point, Problems};

const GAMES: usize = 200;
const MOVES: usize = 250;

/// xorshift64*: deterministic games without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A game of random moves that are legal without suicide and with simple ko
/// (superko is left to chance, as in real records), with two passes at the end.
fn random_game(rng: &mut Rng) -> Game<'static> {
    let size = BoardSize::NINETEEN;
    let mut board = Board::new(size);
    let mut moves = Vec::with_capacity(MOVES + 2);
    let mut color = Color::Black;
    let mut ko = None;
    while moves.len() < MOVES {
        let mut played = false;
        for _ in 0..50 {
            let n = rng.next() % 361;
            let p = Point::new((n % 19) as u8, (n / 19) as u8).unwrap();
            if Some(p) == ko || board.get(p).is_some() {
                continue;
            }
            let mut trial = board.clone();
            if let Ok(out) = trial.play(color, p) {
                if !out.is_suicide() {
                    board = trial;
                    ko = out.ko;
                    moves.push(Move::play(color, p));
                    played = true;
                    break;
                }
            }
        }
        if !played {
            ko = None;
            moves.push(Move::pass(color));
        }
        color = !color;
    }
    moves.push(Move::pass(color));
    moves.push(Move::pass(!color));
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
fn measure(label: &str, per_round: usize, mut round: impl FnMut()) {
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
        us(0) * 1e3 / (MOVES + 2) as f64
    );
}

fn main() {
    let mut rng = Rng(0x5EED_0F6A_3E00_F00D);
    let games: Vec<Game> = (0..GAMES).map(|_| random_game(&mut rng)).collect();
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
        "{GAMES} random 19x19 games of {MOVES} moves, {:.1} captured stones per game",
        f64::from(captures) / GAMES as f64
    );

    let mut replayer = Replayer::new();
    measure("replay (10 families, accounting)", GAMES, || {
        for g in &games {
            black_box(replayer.replay(black_box(g)));
        }
    });

    let mut board = Board::new(BoardSize::NINETEEN);
    measure("board only (play every move)", GAMES, || {
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
