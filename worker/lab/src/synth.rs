//! Synthetic Go game records for demos, tests and load tests.
//!
//! Every game is our own self-play with a cheap random policy (no record is
//! copied from anywhere) and is fully determined by `(seed, index)`: any game
//! of a corpus can be regenerated alone, in any order, on any thread.
//!
//! How a game is made:
//! - [`game_spec`] draws the game's metadata from `(seed, index)`: board size
//!   (about half 9x9, a quarter each 13x13 and 19x19), handicap (2-9 stones on
//!   19x19, 2-5 on 13x13, komi 0.5), rules (`Chinese`, `Japanese`, `AGA`,
//!   `Korean`, `NZ`; komi 6.5 for the territory rules, 7.5 for the area
//!   rules), players, date, and how the game ends.
//! - The moves come from a random policy: captures and escapes from atari
//!   near the last move first, then moves near the last moves, then any
//!   point. A side never fills its own territory (an empty region of at most
//!   a sixth of the board touching only its own stones, single-point eyes
//!   included). In most games it does not invade the other's either, and the
//!   games end with territory like human games; in the rest
//!   ([`SynthOptions::invasion_rate`]) it does, and the board fills up like a
//!   Monte-Carlo playout. It never plays a self-atari that captures nothing,
//!   and it obeys simple ko and positional superko, so every record replays
//!   legally under Japanese and Chinese rules. A side with no other move
//!   passes; two passes in a row end the game. The final position is then
//!   settled as far as the policy goes: neither side has a move left that
//!   attacks anything without self-atari, so every stone counts as alive (no
//!   `TB`/`TW` marks are written, and verdict counts all stones alive). Seki
//!   arise on their own where neither side can fill a shared liberty (about
//!   7% of finished games).
//! - Some finished games stop with open dame: both sides pass while small
//!   neutral points between safe groups are still empty.
//! - Finished games get `RE` from verdict-rules itself: the record is read
//!   back and analysed, and `RE` is the margin under the record's own `RU`,
//!   so `verdict check` agrees with it. **Except** a deliberate
//!   [`SynthOptions::wrong_result_rate`] of finished games (about 2%), whose
//!   `RE` claims one point more for the winner than the count gives:
//!   `verdict check` must report exactly those as disagreements.
//!   [`GameSpec::wrong_result`] tells which ones.
//! - Resigned (`B+R`/`W+R`, the side behind by a rough area estimate loses)
//!   and timed-out (`B+T`/`W+T`, the side to move loses) games are the same
//!   self-play cut somewhere between 30% and 85% of the way, before any pass.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;
use verdict_rules::analyse::{rule_set_of, Analyser, KomiPolicy};
use verdict_rules::board::Board;
use verdict_rules::game::Game;
use verdict_rules::rng::SplitMix64;
use verdict_rules::selfplay::{Policy, SelfPlay};
use verdict_rules::sgf::Reader;
use verdict_rules::{BoardSize, Color, Move, Point};

/// What to generate. Rates are fractions between 0 and 1.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthOptions {
    /// Number of games of a corpus ([`write_corpus`]).
    pub games: usize,
    /// Every game is a function of `(seed, index)`.
    pub seed: u64,
    /// Relative weights of 9x9, 13x13 and 19x19 boards.
    pub size_weights: [u32; 3],
    /// Fraction of 13x13 and 19x19 games played with handicap stones.
    pub handicap_rate: f64,
    /// Fraction of games ending in resignation.
    pub resign_rate: f64,
    /// Fraction of games ending on time.
    pub timeout_rate: f64,
    /// Fraction of finished games whose `RE` is deliberately wrong.
    pub wrong_result_rate: f64,
    /// Fraction of finished games that stop with open dame.
    pub dame_rate: f64,
    /// Fraction of games whose players also invade the other's enclosed
    /// territory, so that they fill the board like Monte-Carlo playouts; in
    /// the others an enclosed region is left to its owner, and the games end
    /// with territory, as human games do.
    pub invasion_rate: f64,
    /// Fraction of games that are 大解放 games (RULES.md section 6), drawn
    /// from a stream of their own so that the other games stay the same.
    pub dajiefang_rate: f64,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            games: 1000,
            seed: 1,
            size_weights: [2, 1, 1],
            handicap_rate: 0.2,
            resign_rate: 0.2,
            timeout_rate: 0.05,
            wrong_result_rate: 0.02,
            dame_rate: 0.15,
            invasion_rate: 0.4,
            dajiefang_rate: 0.0,
        }
    }
}

/// How a game ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    /// Two passes and a numeric result.
    Finished,
    /// `B+R` or `W+R`, no pass.
    Resigned,
    /// `B+T` or `W+T`, no pass.
    TimedOut,
}

impl Ending {
    pub const fn as_str(self) -> &'static str {
        match self {
            Ending::Finished => "finished",
            Ending::Resigned => "resigned",
            Ending::TimedOut => "timed_out",
        }
    }
}

/// Everything about a game that is decided before it is played.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSpec {
    pub index: usize,
    /// Board side: 9, 13 or 19.
    pub size: u8,
    /// Handicap stones (0 in an even game).
    pub handicap: u8,
    pub komi: f64,
    /// The `RU` value.
    pub rules: &'static str,
    pub ending: Ending,
    /// Finished games only: both sides stop before filling the dame.
    pub leave_dame: bool,
    /// Finished games only: `RE` is deliberately one point off.
    pub wrong_result: bool,
    /// The players invade enclosed territory ([`SynthOptions::invasion_rate`]).
    pub invasions: bool,
    pub black: String,
    pub white: String,
    /// `DT`, `YYYY-MM-DD` between 2015 and 2024.
    pub date: String,
    /// A 大解放 game: played by [`verdict_rules::dajiefang::selfplay`]
    /// (stones moved too, kos retaken by moving moves, 虚着 on and off the
    /// board) to four consecutive 虚着; no handicap, `RU[Dajiefang]`, no
    /// `RE` (which version it counts is not the record's to say).
    pub dajiefang: bool,
}

/// What [`write_corpus`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SynthSummary {
    pub files: u64,
    /// Files holding one game.
    pub single_game_files: u64,
    /// Files holding several games.
    pub collection_files: u64,
    pub games: u64,
    pub bytes: u64,
    /// Games per board size.
    pub by_size: BTreeMap<u8, u64>,
    /// Games per ending (`finished`, `resigned`, `timed_out`).
    pub by_ending: BTreeMap<&'static str, u64>,
    /// Games per `RU`.
    pub by_rules: BTreeMap<&'static str, u64>,
    pub handicap_games: u64,
    /// Finished games asked to stop with open dame.
    pub dame_games: u64,
    /// Finished games with a deliberately wrong `RE`.
    pub wrong_results: u64,
    /// 大解放 games.
    pub dajiefang_games: u64,
}

/// The game's generator: rules' SplitMix64, one stream per (seed, game,
/// purpose), so each game is a function of its index alone.
#[derive(Clone, Debug)]
struct Rng(SplitMix64);

impl Rng {
    fn new(seed: u64, index: usize, stream: u64) -> Rng {
        let mut r = SplitMix64(seed ^ 0x5851_f42d_4c95_7f2d);
        let a = r.next_u64();
        let mut r = SplitMix64(a ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let b = r.next_u64();
        Rng(SplitMix64(b ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03)))
    }

    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }

    fn unit(&mut self) -> f64 {
        self.0.unit()
    }

    fn chance(&mut self, p: f64) -> bool {
        self.0.chance(p)
    }

    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        if total == 0 {
            return 0;
        }
        let mut r = self.below(total as usize) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }
}

const RULES: [(&str, u32, f64); 5] = [
    ("Japanese", 35, 6.5),
    ("Chinese", 30, 7.5),
    ("Korean", 15, 6.5),
    ("AGA", 10, 7.5),
    ("NZ", 10, 7.5),
];

/// The metadata of game `index`, drawn from `(seed, index)` alone.
pub fn game_spec(options: &SynthOptions, index: usize) -> GameSpec {
    let mut rng = Rng::new(options.seed, index, 0);
    let size = [9u8, 13, 19][rng.weighted(&options.size_weights)];
    let handicap_roll = rng.unit();
    let handicap = match size {
        19 if handicap_roll < options.handicap_rate => 2 + rng.below(8) as u8,
        13 if handicap_roll < options.handicap_rate => 2 + rng.below(4) as u8,
        _ => 0,
    };
    let weights: Vec<u32> = RULES.iter().map(|r| r.1).collect();
    let (rules, _, even_komi) = RULES[rng.weighted(&weights)];
    let komi = if handicap > 0 { 0.5 } else { even_komi };
    let roll = rng.unit();
    let ending = if roll < options.resign_rate {
        Ending::Resigned
    } else if roll < options.resign_rate + options.timeout_rate {
        Ending::TimedOut
    } else {
        Ending::Finished
    };
    let finished = ending == Ending::Finished;
    let leave_dame = finished && rng.chance(options.dame_rate);
    let wrong_result = finished && rng.chance(options.wrong_result_rate);
    let black = format!("synth-black-{}", rng.below(100));
    let white = format!("synth-white-{}", rng.below(100));
    let date = format!(
        "{}-{:02}-{:02}",
        2015 + rng.below(10),
        1 + rng.below(12),
        1 + rng.below(28)
    );
    let invasions = rng.chance(options.invasion_rate);
    let spec = GameSpec {
        index,
        invasions,
        size,
        handicap,
        komi,
        rules,
        ending,
        leave_dame,
        wrong_result,
        black,
        white,
        date,
        dajiefang: false,
    };
    if Rng::new(options.seed, index, 3).chance(options.dajiefang_rate) {
        // 计活子 komi of 3.75 stones, in points.
        return GameSpec {
            handicap: 0,
            komi: 7.5,
            rules: "Dajiefang",
            ending: Ending::Finished,
            leave_dame: false,
            wrong_result: false,
            dajiefang: true,
            ..spec
        };
    }
    spec
}

/// Handicap stones at the usual star points.
fn handicap_points(size: u8, stones: u8) -> Vec<Point> {
    let lo = 3;
    let hi = size - 4;
    let mid = size / 2;
    let p = |x: u8, y: u8| Point::new(x, y).expect("star points are on the board");
    let (ur, ll, lr, ul) = (p(hi, lo), p(lo, hi), p(hi, hi), p(lo, lo));
    let (ml, mr, mt, mb, c) = (p(lo, mid), p(hi, mid), p(mid, lo), p(mid, hi), p(mid, mid));
    match stones {
        2 => vec![ur, ll],
        3 => vec![ur, ll, lr],
        4 => vec![ur, ll, lr, ul],
        5 => vec![ur, ll, lr, ul, c],
        6 => vec![ur, ll, lr, ul, ml, mr],
        7 => vec![ur, ll, lr, ul, ml, mr, c],
        8 => vec![ur, ll, lr, ul, ml, mr, mt, mb],
        _ => vec![ur, ll, lr, ul, ml, mr, mt, mb, c],
    }
}

/// Black minus White: stones plus empty regions touching one colour only.
fn area_estimate(board: &Board) -> i64 {
    let size = board.size();
    let mut seen = vec![false; size.points()];
    let w = usize::from(size.width());
    let mut score = 0i64;
    let mut stack = Vec::new();
    for p in size.iter() {
        match board.get(p) {
            Some(c) => score += c.fold(1, -1),
            None => {
                let i = usize::from(p.y()) * w + usize::from(p.x());
                if seen[i] {
                    continue;
                }
                seen[i] = true;
                stack.push(p);
                let (mut len, mut black, mut white) = (0i64, false, false);
                while let Some(q) = stack.pop() {
                    len += 1;
                    for r in board.neighbors(q) {
                        match board.get(r) {
                            Some(Color::Black) => black = true,
                            Some(Color::White) => white = true,
                            None => {
                                let j = usize::from(r.y()) * w + usize::from(r.x());
                                if !seen[j] {
                                    seen[j] = true;
                                    stack.push(r);
                                }
                            }
                        }
                    }
                }
                if black && !white {
                    score += len;
                } else if white && !black {
                    score -= len;
                }
            }
        }
    }
    score
}

fn push_point(out: &mut String, p: Point) {
    let [x, y] = p.to_sgf();
    out.push(char::from(x));
    out.push(char::from(y));
}

/// The root properties up to (not including) `RE`.
fn root_text(spec: &GameSpec) -> String {
    let mut s = String::with_capacity(256);
    let _ = write!(
        s,
        "(;GM[1]FF[4]CA[UTF-8]AP[verdict synth]SZ[{}]KM[{}]RU[{}]\nPB[{}]PW[{}]DT[{}]EV[verdict synth]GN[synth {}]",
        spec.size, spec.komi, spec.rules, spec.black, spec.white, spec.date, spec.index
    );
    if spec.handicap > 0 {
        let _ = write!(s, "HA[{}]", spec.handicap);
    }
    s
}

fn moves_text(setup: &[Point], moves: &[Move]) -> String {
    let mut s = String::with_capacity(moves.len() * 6 + 64);
    if !setup.is_empty() {
        s.push_str("AB");
        for &p in setup {
            s.push('[');
            push_point(&mut s, p);
            s.push(']');
        }
        s.push_str("PL[W]");
    }
    s.push('\n');
    for (i, m) in moves.iter().enumerate() {
        s.push(';');
        s.push(m.color.letter());
        s.push('[');
        if let Some(p) = m.point() {
            push_point(&mut s, p);
        }
        s.push(']');
        if i % 12 == 11 {
            s.push('\n');
        }
    }
    s.push_str(")\n");
    s
}

fn margin_text(margin: f64) -> String {
    if margin > 0.0 {
        format!("B+{margin}")
    } else if margin < 0.0 {
        format!("W+{}", -margin)
    } else {
        "0".to_string()
    }
}

thread_local! {
    static ANALYSER: std::cell::RefCell<Analyser> = std::cell::RefCell::new(Analyser::new());
}

/// Our count of a record under its own `RU`, by verdict-rules itself.
fn computed_margin(text: &str) -> f64 {
    let bytes = text.as_bytes();
    let sgf = Reader::new(bytes)
        .next()
        .expect("a synthetic record holds a game");
    let game = Game::from_sgf(&sgf, bytes).expect("a synthetic record is a game");
    let rule_set = rule_set_of(&game.info.rules).expect("synthetic rules are known");
    ANALYSER.with(|a| {
        a.borrow_mut()
            .analyse(&game, KomiPolicy::Game)
            .verdict(rule_set)
            .margin
    })
}

/// The SGF text of game `index`, fully determined by `(options.seed, index)`
/// (the other rates of `options` shape it too).
pub fn game_sgf(options: &SynthOptions, index: usize) -> String {
    let spec = game_spec(options, index);
    if spec.dajiefang {
        let size = BoardSize::square(u32::from(spec.size)).expect("9, 13 or 19");
        let seed = Rng::new(options.seed, index, 4).next();
        let game = verdict_rules::dajiefang::selfplay::play(
            size,
            seed,
            &verdict_rules::dajiefang::selfplay::Options::default(),
            10_000,
        );
        return format!(
            "{}
{})
",
            root_text(&spec),
            game.moves_sgf()
        );
    }
    let setup = if spec.handicap > 0 {
        handicap_points(spec.size, spec.handicap)
    } else {
        Vec::new()
    };
    let first = if spec.handicap > 0 {
        Color::White
    } else {
        Color::Black
    };
    let mut rng = Rng::new(options.seed, index, 1);
    let cut_roll = rng.unit();
    let policy = Policy {
        invasions: spec.invasions,
        leave_dame: spec.leave_dame,
    };
    let size = BoardSize::square(u32::from(spec.size)).expect("synth sizes are valid");
    let mut engine = SelfPlay::new(size, setup.clone(), rng.0, policy);
    engine.play_out(first);

    let root = root_text(&spec);
    match spec.ending {
        Ending::Finished => {
            let moves = moves_text(&setup, engine.moves());
            let mut provisional = String::with_capacity(root.len() + moves.len());
            provisional.push_str(&root);
            provisional.push_str(&moves);
            let mut margin = computed_margin(&provisional);
            if spec.wrong_result {
                // One point more for the winner than the count gives.
                margin += if margin >= 0.0 { 1.0 } else { -1.0 };
            }
            format!("{root}RE[{}]{moves}", margin_text(margin))
        }
        Ending::Resigned | Ending::TimedOut => {
            let before_pass = engine
                .moves()
                .iter()
                .position(|m| m.is_pass())
                .unwrap_or(engine.moves().len());
            let cut = ((before_pass as f64 * (0.3 + 0.55 * cut_roll)) as usize)
                .clamp(1.min(before_pass), before_pass);
            engine.truncate(cut);
            let to_move = match engine.moves().last() {
                Some(m) => !m.color,
                None => first,
            };
            let winner = if spec.ending == Ending::TimedOut {
                !to_move
            } else {
                let bonus = if spec.rules == "Japanese" || spec.rules == "Korean" {
                    0.0
                } else {
                    f64::from(spec.handicap)
                };
                let estimate = area_estimate(engine.board()) as f64 - spec.komi - bonus;
                if estimate > 0.0 {
                    Color::Black
                } else {
                    Color::White
                }
            };
            let how = if spec.ending == Ending::TimedOut {
                'T'
            } else {
                'R'
            };
            let moves = moves_text(&setup, engine.moves());
            format!("{root}RE[{}+{how}]{moves}", winner.letter())
        }
    }
}

/// Writes `options.games` games into `dir` (created if needed): runs of
/// single-game files (`synth-NNNNNNN.sgf`) and collection files of
/// `games_per_file` games (`synth-NNNNNNN-cK.sgf`, named after their first
/// game), the split decided by the seed. Files are generated in parallel.
///
/// # Errors
/// Any error creating `dir` or writing a file.
pub fn write_corpus(
    options: &SynthOptions,
    dir: &Path,
    games_per_file: usize,
) -> std::io::Result<SynthSummary> {
    std::fs::create_dir_all(dir)?;
    let per_file = games_per_file.max(1);
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    while start < options.games {
        let mut rng = Rng::new(options.seed, start, 2);
        let len = if per_file > 1 && rng.chance(0.5) {
            per_file.min(options.games - start)
        } else {
            1
        };
        chunks.push((start, len));
        start += len;
    }
    let bytes = chunks
        .par_iter()
        .map(|&(start, len)| -> std::io::Result<u64> {
            let mut text = String::new();
            for index in start..start + len {
                text.push_str(&game_sgf(options, index));
            }
            let name = if len == 1 {
                format!("synth-{start:07}.sgf")
            } else {
                format!("synth-{start:07}-c{len}.sgf")
            };
            std::fs::write(dir.join(name), &text)?;
            Ok(text.len() as u64)
        })
        .collect::<std::io::Result<Vec<u64>>>()?;

    let mut summary = SynthSummary {
        files: chunks.len() as u64,
        bytes: bytes.iter().sum(),
        ..SynthSummary::default()
    };
    for &(_, len) in &chunks {
        if len == 1 {
            summary.single_game_files += 1;
        } else {
            summary.collection_files += 1;
        }
    }
    for index in 0..options.games {
        let spec = game_spec(options, index);
        summary.games += 1;
        *summary.by_size.entry(spec.size).or_default() += 1;
        *summary.by_ending.entry(spec.ending.as_str()).or_default() += 1;
        *summary.by_rules.entry(spec.rules).or_default() += 1;
        summary.handicap_games += u64::from(spec.handicap > 0);
        summary.dame_games += u64::from(spec.leave_dame);
        summary.wrong_results += u64::from(spec.wrong_result);
        summary.dajiefang_games += u64::from(spec.dajiefang);
    }
    Ok(summary)
}
