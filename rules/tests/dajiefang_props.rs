//! Properties of 大解放 replay over random games (RULES.md section 6),
//! against a naive reference written from the section alone: whole
//! positions (every point, plus the stones beside the board per colour) in
//! a hash map, captures by flood fill, no hashing tricks, no epochs.
//!
//! * Self-play games (legal by construction, [`selfplay`]): the replayer
//!   finds every move legal, every position the game creates is distinct
//!   from every earlier one, the final boards agree, stones are conserved
//!   (stones from the bowl = on the board + beside it + captured), and the
//!   game ends by four 虚着.
//! * Random records on tiny boards, legal or not (moves from empty points,
//!   onto occupied ones, repetitions, suicides): the replayer names exactly
//!   the illegal moves the reference names, for the same reasons, and
//!   points at the same earlier position.

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::Config;
use verdict_rules::dajiefang::{selfplay, Illegal, Impossible, Origin, Replayer, Stage};
use verdict_rules::game::Game;
use verdict_rules::sgf::Reader;
use verdict_rules::{BoardSize, ByColor, Color, Point};

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// A whole-board position as RULES.md section 6 defines it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Whole {
    cells: Vec<Option<Color>>,
    beside: [u32; 2],
}

struct Reference {
    w: usize,
    h: usize,
    pos: Whole,
    seen: HashMap<Whole, Origin>,
    captured: ByColor<u32>,
    /// Every position created, in order, with its origin.
    created: Vec<(Whole, Origin)>,
}

impl Reference {
    fn new(w: usize, h: usize) -> Reference {
        let pos = Whole {
            cells: vec![None; w * h],
            beside: [0, 0],
        };
        let start = Origin {
            move_index: None,
            stage: Stage::Start,
        };
        let mut seen = HashMap::new();
        seen.insert(pos.clone(), start);
        Reference {
            w,
            h,
            created: vec![(pos.clone(), start)],
            pos,
            seen,
            captured: ByColor::default(),
        }
    }

    fn neighbours(&self, i: usize) -> Vec<usize> {
        let (x, y) = (i % self.w, i / self.w);
        let mut out = Vec::new();
        if x > 0 {
            out.push(i - 1);
        }
        if x + 1 < self.w {
            out.push(i + 1);
        }
        if y > 0 {
            out.push(i - self.w);
        }
        if y + 1 < self.h {
            out.push(i + self.w);
        }
        out
    }

    /// The chain on `i` and whether it has a liberty.
    fn chain(&self, i: usize) -> (Vec<usize>, bool) {
        let c = self.pos.cells[i];
        let mut stack = vec![i];
        let mut chain = vec![i];
        let mut free = false;
        while let Some(p) = stack.pop() {
            for q in self.neighbours(p) {
                match self.pos.cells[q] {
                    None => free = true,
                    s if s == c && !chain.contains(&q) => {
                        chain.push(q);
                        stack.push(q);
                    }
                    _ => {}
                }
            }
        }
        (chain, free)
    }

    /// Puts a stone, captures, and removes the mover's chain if it has no
    /// liberty; returns whether that happened (suicide).
    fn put(&mut self, color: Color, i: usize) -> bool {
        self.pos.cells[i] = Some(color);
        for q in self.neighbours(i) {
            if self.pos.cells[q] == Some(!color) {
                let (chain, free) = self.chain(q);
                if !free {
                    for s in chain {
                        if self.pos.cells[s].is_some() {
                            self.pos.cells[s] = None;
                            self.captured[color] += 1;
                        }
                    }
                }
            }
        }
        let (chain, free) = self.chain(i);
        if !free {
            for s in chain {
                self.pos.cells[s] = None;
            }
        }
        !free
    }

    /// Notes the current position; returns the origin it repeats.
    fn create(&mut self, origin: Origin) -> Option<Origin> {
        self.created.push((self.pos.clone(), origin));
        self.seen.insert(self.pos.clone(), origin)
    }

    /// Plays one record move; returns why it is illegal, if it is.
    fn step(&mut self, i: u32, color: Color, kind: u8, from: usize, to: usize) -> Option<Illegal> {
        let at = |stage| Origin {
            move_index: Some(i),
            stage,
        };
        let moving = kind >= 2;
        let off = kind % 2 == 1;
        if moving && self.pos.cells[from] != Some(color) {
            return Some(Illegal::Impossible(Impossible::NotOwnStone));
        }
        if !off && self.pos.cells[to].is_some() && !(moving && from == to) {
            return Some(Illegal::Impossible(Impossible::Occupied));
        }
        let mut why = None;
        if moving {
            self.pos.cells[from] = None;
            if let Some(earlier) = self.create(at(Stage::Intermediate)) {
                why = Some(Illegal::Repeats {
                    stage: Stage::Intermediate,
                    earlier,
                });
            }
        }
        if off {
            self.pos.beside[color as usize] += 1;
            assert!(self.create(at(Stage::Final)).is_none());
            return why;
        }
        let suicide = self.put(color, to);
        let repeats = self.create(at(Stage::Final));
        if suicide {
            return Some(Illegal::Suicide);
        }
        why.or(repeats.map(|earlier| Illegal::Repeats {
            stage: Stage::Final,
            earlier,
        }))
    }
}

fn point(w: usize, i: usize) -> Point {
    Point::new((i % w) as u8, (i / w) as u8).unwrap()
}

fn read(text: &str) -> Game<'_> {
    let sgf = Reader::new(text.as_bytes()).next().expect("one game");
    Game::from_sgf(&sgf, text.as_bytes()).expect("replayable")
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn self_play_games_are_legal_and_every_position_is_new(
        side in 5u32..=9, seed in any::<u64>(), move_rate in 0.0f64..0.4
    ) {
        let size = BoardSize::square(side).unwrap();
        let options = selfplay::Options { move_rate, ..selfplay::Options::default() };
        let sp = selfplay::play(size, seed, &options, 10_000);
        prop_assert!(sp.ended_by_four_xu);
        let text = format!("(;GM[1]SZ[{side}]RU[Dajiefang]{})", sp.moves_sgf());
        let game = read(&text);
        let record = game.dajiefang.as_ref().expect("variant");
        let mut replayer = Replayer::new();
        let report = replayer.replay(&game, record);
        prop_assert!(report.verdict.is_legal(), "{:?} in {}", replayer.illegal_moves(), text);
        prop_assert!(report.problems.is_empty(), "{:?}", report.problems);
        let a = report.accounting;
        prop_assert!(a.is_conserved());
        prop_assert_eq!(a.suicided, ByColor::new(0, 0));
        prop_assert_eq!(a.setup_stones, ByColor::new(0, 0));
        for c in Color::ALL {
            // Stones from the bowl = on the board + beside + captured.
            prop_assert_eq!(a.placed[c] + a.placed_off[c], a.on_board[c] + a.beside[c] + a.captures[!c]);
        }
        prop_assert_eq!(a.four_xu_end, Some(sp.moves.len() as u32 - 1));

        // The reference: every position created is distinct.
        let w = side as usize;
        let mut r = Reference::new(w, w);
        for (i, (c, m)) in sp.moves.iter().enumerate() {
            let idx = |p: Point| p.y() as usize * w + p.x() as usize;
            let (kind, from, to) = match *m {
                verdict_rules::dajiefang::VariantMove::Place(p) => (0, 0, idx(p)),
                verdict_rules::dajiefang::VariantMove::PlaceOff => (1, 0, 0),
                verdict_rules::dajiefang::VariantMove::Move { from, to } => (2, idx(from), idx(to)),
                verdict_rules::dajiefang::VariantMove::MoveOff { from } => (3, idx(from), 0),
            };
            prop_assert_eq!(r.step(i as u32, *c, kind, from, to), None, "move {}", i);
        }
        let mut distinct: Vec<&Whole> = r.created.iter().map(|(p, _)| p).collect();
        let n = distinct.len();
        prop_assert_eq!(n as u32, a.positions);
        distinct.sort_by(|x, y| (&x.cells, x.beside).cmp(&(&y.cells, y.beside)));
        distinct.dedup();
        prop_assert_eq!(distinct.len(), n, "a position repeats");
        for i in 0..w * w {
            prop_assert_eq!(replayer.board().get(point(w, i)), r.pos.cells[i]);
        }
        prop_assert_eq!(r.pos.beside, [a.beside.black, a.beside.white]);
        prop_assert_eq!(r.captured, a.captures);
    }

    #[test]
    fn random_records_are_judged_as_the_reference_judges_them(
        w in 2usize..=4, h in 2usize..=4,
        moves in prop::collection::vec((0u8..8, 0usize..16, 0usize..16), 1..60)
    ) {
        let n = w * h;
        let mut text = format!("(;GM[1]SZ[{w}:{h}]RU[Dajiefang]");
        let mut kinds = Vec::new();
        for (k, (kind, from, to)) in moves.iter().enumerate() {
            // Mostly placements, which fill the tiny board and make
            // repetitions likely; the rest of each kind.
            let kind = match kind { 0..=3 => 0, 4 => 1, 5 | 6 => 2, _ => 3 };
            let (from, to) = (from % n, to % n);
            let c = if k % 2 == 0 { 'B' } else { 'W' };
            let p = |i| point(w, i);
            match kind {
                0 => text.push_str(&format!(";{c}[{}]", p(to))),
                1 => text.push_str(&format!(";{c}[]")),
                2 => text.push_str(&format!(";{c}[{}]MF[{}]", p(to), p(from))),
                _ => text.push_str(&format!(";{c}[]MF[{}]", p(from))),
            }
            kinds.push((kind, from, to));
        }
        text.push(')');
        let game = read(&text);
        let record = game.dajiefang.as_ref().expect("variant");
        let mut replayer = Replayer::new();
        let report = replayer.replay(&game, record);
        prop_assert!(report.accounting.is_conserved());

        let mut r = Reference::new(w, h);
        let mut expected = Vec::new();
        for (k, &(kind, from, to)) in kinds.iter().enumerate() {
            let c = if k % 2 == 0 { Color::Black } else { Color::White };
            if let Some(why) = r.step(k as u32, c, kind, from, to) {
                expected.push((k as u32, why));
            }
        }
        let got: Vec<(u32, Illegal)> = replayer.illegal_moves().iter().map(|m| (m.move_index, m.why)).collect();
        prop_assert_eq!(got, expected, "{}", text);
        for i in 0..n {
            prop_assert_eq!(replayer.board().get(point(w, i)), r.pos.cells[i], "{}", text);
        }
    }
}
