//! Properties of scoring over random finished games (RULES.md sections 3, 4).
//!
//! Games are random legal games (no suicide, no immediate ko retake) on
//! boards from 5x5 to 9x9, square or not, written as SGF and read back with
//! [`Reader`] and [`Game::from_sgf`], so that handicap detection, setup and
//! komi go through the same code as real records. Some end with two passes,
//! some have passes (and stops) in the middle, some resume play after a stop,
//! some start from setup stones (a Black-only handicap, or a random mix of
//! `AB`/`AW`/`AE` that may overwrite or capture setup stones).
//!
//! The identities checked, with `X_B - X_W` written `dX`:
//!
//! * conservation: `S_B + T_B + S_W + T_W + D` = points of the board, and the
//!   counter's `S`, `T`, `D` equal an independent flood fill;
//! * `jpd_b` before komi is `A = (S_B + T_B) - (S_W + T_W)`: shared points
//!   never enter the difference;
//! * `jpd_a - jpd_b = -dN - dF + H`, margins at equal komi. The code
//!   ([`RuleSet::margin_before_komi`]) charges `jpd_a` the extra stones
//!   `dN + dF`: placed stones up to the first stop, plus the own points each
//!   side must still fill (`counts.fills`, one more stone placed each). `H`
//!   is `jpd_b`'s handicap bonus (the Chinese value, the number of handicap
//!   stones when there are at least two); `jpd_a` takes none, so it returns
//!   with a plus sign when subtracting `jpd_b`'s margin;
//! * `jhz_b - jpd_b = -dE` (same bonus, same komi);
//! * Japanese = `jpd_a` when no seki (no seki liberty, no seki eye), no stone
//!   was put on the board after the first stop, nothing suicided and no
//!   setup stone was removed. Japanese before komi is
//!   `(T_B - Z_B - F_B + P_B) - (T_W - Z_W - F_W + P_W)` and `jpd_a` is
//!   `(S_B + T_B) - (S_W + T_W) - dN - dF`, so their difference is
//!   `-dZ + (N_B - P_W - S_B) - (N_W - P_B - S_W)`. Replay conserves stones:
//!   `placed_total_X = on_board_X + captures_opp + suicided_X +
//!   setup_removed_X`, and `S_X = on_board_X - dead_X`, `P_opp = captures_opp
//!   + dead_X`. With no stone after the first stop `N_X = placed_total_X`,
//!   so with no suicide and no setup removal `S_X = N_X - P_opp(X)`, and
//!   without seki `Z = 0`: the difference is 0;
//! * Tromp-Taylor = `jpd_b` before komi when the dead list is empty (the
//!   raw area is then the area), and its margin is `jpd_b`'s plus `H`
//!   (Tromp-Taylor gives no handicap bonus);
//! * basic eyes without seki: `E_X` = sum over units of `min(t(u), 2)`,
//!   units computed independently (chains and owned regions, joined where
//!   they touch);
//! * removing any set of stones as dead keeps the conservation law, counts
//!   exactly the distinct stones removed, leaves the raw (Tromp-Taylor) area
//!   alone, and removing stones of one colour never increases that colour's
//!   area nor decreases the other's.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::Config;
use verdict_rules::analyse::{Analyser, DeadSource, KomiPolicy};
use verdict_rules::board::Board;
use verdict_rules::game::Game;
use verdict_rules::replay::{ReplayReport, Replayer};
use verdict_rules::score::{
    verdicts, Counter, Counts, PointState, Position, RuleSet, Terms, Verdict,
};
use verdict_rules::sgf::Reader;
use verdict_rules::{BoardSize, ByColor, Color, Move, Point, Problem};

fn config(cases: u32) -> Config {
    Config {
        cases,
        // Only two files are ours to add: no regression files.
        failure_persistence: None,
        ..Config::default()
    }
}

fn point_in(size: BoardSize, n: u32) -> Point {
    let n = n as usize % size.points();
    Point::new(
        (n % size.width() as usize) as u8,
        (n / size.width() as usize) as u8,
    )
    .unwrap()
}

/// A random game, before it is written as SGF.
#[derive(Clone, Debug)]
struct Plan {
    size: BoardSize,
    /// Setup in the order the root applies it: AB, then AW, then AE.
    setup: Vec<(Point, Option<Color>)>,
    choices: Vec<u32>,
    /// Insert a stop (two passes) after this many moves, then play on.
    stop_at: Option<usize>,
    /// End with two passes.
    end_with_stop: bool,
    komi: &'static str,
}

fn plans() -> impl Strategy<Value = Plan> {
    (
        (5u32..=9, 5u32..=9),
        0u8..4,
        prop::collection::vec((any::<u32>(), any::<u8>()), 0..8),
        prop::collection::vec(any::<u32>(), 0..90),
        prop::option::of(0usize..90),
        any::<bool>(),
        prop::sample::select(vec!["0", "0.5", "5.5", "6.5", "7.5"]),
    )
        .prop_map(
            |((w, h), setup_kind, raw_setup, choices, stop_at, end_with_stop, komi)| {
                let size = BoardSize::new(w, h).unwrap();
                let setup = match setup_kind {
                    // A Black-only handicap of 2 to 4 distinct stones.
                    1 => {
                        let mut seen = HashSet::new();
                        let k = 2 + raw_setup.len() % 3;
                        (0..size.points() as u32 * 7)
                            .step_by(7)
                            .map(|n| point_in(size, n.wrapping_add(raw_setup.len() as u32 * 3)))
                            .filter(|p| seen.insert(*p))
                            .take(k)
                            .map(|p| (p, Some(Color::Black)))
                            .collect()
                    }
                    // Anything: overwrites, AE, chains without liberties.
                    2 => {
                        let mut stones: Vec<(Point, Option<Color>)> = raw_setup
                            .iter()
                            .map(|&(n, c)| {
                                let color = match c % 3 {
                                    0 => None,
                                    1 => Some(Color::Black),
                                    _ => Some(Color::White),
                                };
                                (point_in(size, n), color)
                            })
                            .collect();
                        let rank = |c: Option<Color>| match c {
                            Some(Color::Black) => 0,
                            Some(Color::White) => 1,
                            None => 2,
                        };
                        stones.sort_by_key(|s| rank(s.1));
                        stones
                    }
                    _ => vec![],
                };
                Plan {
                    size,
                    setup,
                    choices,
                    stop_at,
                    end_with_stop,
                    komi,
                }
            },
        )
}

/// Plays the plan: one choice per move, a pass when `choice % 16 == 0` (so
/// two passes in a row, a stop, happen now and then too), otherwise the
/// first legal point from `choice` on (no occupied point, no suicide, no
/// immediate ko retake). Returns the moves.
fn play(plan: &Plan) -> Vec<Move> {
    let size = plan.size;
    let mut board = Board::new(size);
    for &(p, c) in &plan.setup {
        board.set(p, c).unwrap();
    }
    board.remove_chains_without_liberties();
    let mut moves = Vec::new();
    let mut color = Color::Black;
    let mut ko: Option<Point> = None;
    let n = size.points() as u32;
    for (i, &choice) in plan.choices.iter().enumerate() {
        if plan.stop_at == Some(i) {
            moves.push(Move::pass(color));
            moves.push(Move::pass(!color));
            ko = None;
        }
        let mut chosen = None;
        if choice % 16 != 0 {
            for k in 0..n {
                let p = point_in(size, choice / 16 + k);
                if board.get(p).is_some() || Some(p) == ko {
                    continue;
                }
                let mut trial = board.clone();
                if matches!(trial.play(color, p), Ok(out) if !out.is_suicide()) {
                    chosen = Some(p);
                    break;
                }
            }
        }
        match chosen {
            Some(p) => {
                ko = board.play(color, p).unwrap().ko;
                moves.push(Move::play(color, p));
            }
            None => {
                ko = None;
                moves.push(Move::pass(color));
            }
        }
        color = !color;
    }
    if plan.end_with_stop {
        moves.push(Move::pass(color));
        moves.push(Move::pass(!color));
    }
    moves
}

fn sgf_point(p: Point) -> String {
    let [a, b] = p.to_sgf();
    format!("{}{}", a as char, b as char)
}

/// The plan as an SGF record.
fn write_sgf(plan: &Plan, moves: &[Move]) -> String {
    let size = plan.size;
    let sz = if size.is_square() {
        format!("{}", size.width())
    } else {
        format!("{}:{}", size.width(), size.height())
    };
    let mut text = format!("(;GM[1]FF[4]SZ[{sz}]KM[{}]", plan.komi);
    for (ident, color) in [
        ("AB", Some(Color::Black)),
        ("AW", Some(Color::White)),
        ("AE", None),
    ] {
        let points: Vec<String> = plan
            .setup
            .iter()
            .filter(|s| s.1 == color)
            .map(|s| format!("[{}]", sgf_point(s.0)))
            .collect();
        if !points.is_empty() {
            text.push_str(ident);
            text.push_str(&points.concat());
        }
    }
    for m in moves {
        let value = m.point().map(sgf_point).unwrap_or_default();
        text.push_str(&format!(";{}[{value}]", m.color.letter()));
    }
    text.push(')');
    text
}

fn position_of(board: &Board) -> Position {
    let mut pos = Position::empty(board.size());
    for p in board.size().iter() {
        pos.set(p, board.get(p));
    }
    pos
}

fn get(v: &[Verdict; 11], r: RuleSet) -> Verdict {
    *v.iter().find(|x| x.rule_set == r).unwrap()
}

fn neighbours(size: BoardSize, i: usize) -> Vec<usize> {
    let (w, h) = (size.width() as usize, size.height() as usize);
    let (x, y) = (i % w, i / w);
    let mut out = Vec::with_capacity(4);
    if x > 0 {
        out.push(i - 1);
    }
    if x + 1 < w {
        out.push(i + 1);
    }
    if y > 0 {
        out.push(i - w);
    }
    if y + 1 < h {
        out.push(i + w);
    }
    out
}

/// Components of equal cells (stones of one colour, or empty points).
fn components(size: BoardSize, cells: &[Option<Color>]) -> Vec<usize> {
    let n = size.points();
    let mut comp = vec![usize::MAX; n];
    let mut next = 0;
    for start in 0..n {
        if comp[start] != usize::MAX {
            continue;
        }
        comp[start] = next;
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            for j in neighbours(size, i) {
                if comp[j] == usize::MAX && cells[j] == cells[start] {
                    comp[j] = next;
                    stack.push(j);
                }
            }
        }
        next += 1;
    }
    comp
}

/// What an independent reading of RULES.md section 3 gives.
#[derive(Debug, PartialEq, Eq)]
struct Reference {
    stones: ByColor<u32>,
    territory: ByColor<u32>,
    shared: u32,
    /// Units and `sum min(t(u), max(0, 2 - s(u)))`, with `seki` as the seki
    /// liberties.
    units: ByColor<u32>,
    basic_eyes: ByColor<u32>,
}

fn reference(pos: &Position, dead: &[Point], seki: &HashSet<usize>) -> Reference {
    let size = pos.size();
    let n = size.points();
    let points: Vec<Point> = size.iter().collect();
    let dead: HashSet<Point> = dead.iter().copied().collect();
    let cells: Vec<Option<Color>> = points
        .iter()
        .map(|&p| if dead.contains(&p) { None } else { pos.get(p) })
        .collect();
    let comp = components(size, &cells);
    let ncomp = comp.iter().max().map_or(0, |m| m + 1);
    // Owner of each empty component: Some(Some(c)) owned, Some(None) shared.
    let mut touches = vec![[false; 2]; ncomp];
    for i in 0..n {
        if cells[i].is_none() {
            for j in neighbours(size, i) {
                if let Some(c) = cells[j] {
                    touches[comp[i]][c.index()] = true;
                }
            }
        }
    }
    let owner = |k: usize| match touches[k] {
        [true, false] => Some(Color::Black),
        [false, true] => Some(Color::White),
        _ => None,
    };
    let mut r = Reference {
        stones: ByColor::default(),
        territory: ByColor::default(),
        shared: 0,
        units: ByColor::default(),
        basic_eyes: ByColor::default(),
    };
    for i in 0..n {
        match cells[i] {
            Some(c) => r.stones[c] += 1,
            None => match owner(comp[i]) {
                Some(c) => r.territory[c] += 1,
                None => r.shared += 1,
            },
        }
    }
    // Units: union of stone components and owned empty components.
    let mut parent: Vec<usize> = (0..ncomp).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            x = parent[x];
        }
        x
    }
    for i in 0..n {
        if cells[i].is_none() && owner(comp[i]).is_some() {
            for j in neighbours(size, i) {
                if cells[j].is_some() {
                    let (a, b) = (find(&mut parent, comp[i]), find(&mut parent, comp[j]));
                    parent[a] = b;
                }
            }
        }
    }
    let mut t = vec![0u32; ncomp];
    let mut libs: Vec<HashSet<usize>> = vec![HashSet::new(); ncomp];
    let mut color_of = vec![None; ncomp];
    for i in 0..n {
        let root = find(&mut parent, comp[i]);
        match cells[i] {
            None if owner(comp[i]).is_some() => t[root] += 1,
            None => {}
            Some(c) => {
                color_of[root] = Some(c);
                for j in neighbours(size, i) {
                    if seki.contains(&j) {
                        libs[root].insert(j);
                    }
                }
            }
        }
    }
    for k in 0..ncomp {
        if let (true, Some(c)) = (find(&mut parent, k) == k, color_of[k]) {
            r.units[c] += 1;
            r.basic_eyes[c] += t[k].min(2u32.saturating_sub(libs[k].len() as u32));
        }
    }
    r
}

/// Everything a game gives: the record, its replay, the counted position.
struct Scored {
    text: String,
    report: ReplayReport,
    handicap: u8,
    komi: f64,
    pos: Position,
    counts: Counts,
    states: Vec<PointState>,
    verdicts: [Verdict; 11],
}

fn score(plan: &Plan) -> Result<Scored, TestCaseError> {
    let moves = play(plan);
    let text = write_sgf(plan, &moves);
    let sgf = Reader::new(text.as_bytes()).next().expect("one game");
    let game = Game::from_sgf(&sgf, text.as_bytes()).expect("replayable");
    prop_assert_eq!(&game.moves, &moves, "{}", text);
    prop_assert!(game.problems.is_empty(), "{:?} in {}", game.problems, text);
    let mut replayer = Replayer::new();
    let report = replayer.replay(&game);
    // A superko repetition is possible (the generator knows simple ko only)
    // and changes nothing in the scoring.
    for p in [
        Problem::Occupied,
        Problem::Suicide,
        Problem::Ko,
        Problem::OutOfTurn,
    ] {
        prop_assert!(
            !report.problems.contains(p),
            "{:?} in {}",
            report.problems,
            text
        );
    }
    prop_assert!(report.accounting.is_conserved());
    let pos = position_of(replayer.board());
    let mut counter = Counter::new();
    let counts = counter.count(&pos, &[]);
    let terms = Terms {
        placed: report.accounting.placed_to_first_stop,
        captures: report.accounting.captures,
        handicap: game.handicap.stones,
        komi: game.info.komi.points,
    };
    let verdicts = verdicts(&counts, &terms);

    // The one-call pipeline gives the same count with the settler's dead
    // stones (these records carry no result for layer 5 to use).
    let analysis = Analyser::new().analyse(&game, KomiPolicy::Game);
    prop_assert_eq!(analysis.dead_source, DeadSource::Settled);
    prop_assert_eq!(&analysis.position, &pos);
    let settled = verdict_rules::settle::settle(&pos);
    prop_assert_eq!(&analysis.dead, &settled.dead);
    let settled_counts = Counter::new().count(&pos, &settled.dead);
    prop_assert_eq!(&analysis.counts, &settled_counts);
    prop_assert_eq!(
        analysis.verdicts,
        verdict_rules::score::verdicts(&settled_counts, &terms)
    );

    let handicap = game.handicap.stones;
    drop(game);
    drop(sgf);
    Ok(Scored {
        text,
        report,
        handicap,
        komi: terms.komi,
        states: counter.states().to_vec(),
        pos,
        counts,
        verdicts,
    })
}

fn seki_liberties(states: &[PointState]) -> HashSet<usize> {
    (0..states.len())
        .filter(|&i| states[i] == PointState::SekiLiberty)
        .collect()
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn finished_games_score_consistently(plan in plans()) {
        let s = score(&plan)?;
        let c = &s.counts;
        let text = &s.text;
        let acc = &s.report.accounting;
        let points = plan.size.points() as u32;
        let d = |x: ByColor<u32>| i64::from(x.black) - i64::from(x.white);

        // Conservation, and the counts against an independent flood fill.
        prop_assert_eq!(c.area(Color::Black) + c.area(Color::White) + c.shared, points);
        prop_assert_eq!(c.stones, ByColor::new(s.pos.stones(Color::Black), s.pos.stones(Color::White)));
        prop_assert_eq!(c.stones, acc.on_board);
        prop_assert_eq!(c.dead, ByColor::new(0, 0));
        let r = reference(&s.pos, &[], &seki_liberties(&s.states));
        prop_assert_eq!((r.stones, r.territory, r.shared), (c.stones, c.territory, c.shared), "{}", text);
        prop_assert!(c.seki_liberties <= c.shared);
        for x in Color::ALL {
            prop_assert!(c.fills[x] + c.seki_eyes[x] <= c.territory[x], "{}", text);
            prop_assert!(c.basic_eyes[x] <= 2 * c.units[x]);
        }

        // Per-point states add up to the counts (no dead stones here).
        let n_state = |f: &dyn Fn(PointState) -> bool| s.states.iter().filter(|&&p| f(p)).count() as u32;
        for x in Color::ALL {
            prop_assert_eq!(n_state(&|p| p == PointState::Stone(x)), c.stones[x]);
            prop_assert_eq!(
                n_state(&|p| matches!(p, PointState::Territory(y) | PointState::Fill(y) | PointState::SekiEye(y) if y == x)),
                c.territory[x]
            );
            prop_assert_eq!(n_state(&|p| p == PointState::Fill(x)), c.fills[x], "{}", text);
            prop_assert_eq!(n_state(&|p| p == PointState::SekiEye(x)), c.seki_eyes[x]);
        }
        prop_assert_eq!(n_state(&|p| p == PointState::SekiLiberty), c.seki_liberties);
        prop_assert_eq!(n_state(&|p| matches!(p, PointState::Dame | PointState::SekiLiberty)), c.shared);

        // Without seki, units and basic eyes as RULES.md defines them.
        if c.seki_liberties == 0 {
            prop_assert_eq!((r.units, r.basic_eyes), (c.units, c.basic_eyes), "{}", text);
        }

        let v = &s.verdicts;
        let jpd_a = get(v, RuleSet::JpdA);
        let jpd_b = get(v, RuleSet::JpdB);
        let jhz_a = get(v, RuleSet::JhzA);
        let jhz_b = get(v, RuleSet::JhzB);
        let japanese = get(v, RuleSet::Japanese);
        let tt = get(v, RuleSet::TrompTaylor);
        let h = RuleSet::JpdB.handicap_bonus(s.handicap);
        prop_assert_eq!(h, RuleSet::Chinese.handicap_bonus(s.handicap));
        prop_assert_eq!(jpd_b.handicap_bonus, h);
        prop_assert_eq!(jpd_a.handicap_bonus, 0);
        for verdict in v {
            prop_assert_eq!(verdict.komi, s.komi);
        }

        // Shared points never change the area difference.
        let a = i64::from(c.stones.black + c.territory.black)
            - i64::from(c.stones.white + c.territory.white);
        prop_assert_eq!(jpd_b.margin_before_komi, a);
        prop_assert_eq!(c.area_difference(), a);
        // The editions: jpd_a - jpd_b = -dN - dF + H.
        let d_n = d(acc.placed_to_first_stop);
        let d_f = d(c.fills);
        prop_assert_eq!(jpd_a.margin - jpd_b.margin, (-d_n - d_f + h) as f64, "{}", text);
        prop_assert_eq!(jhz_a.margin - jhz_b.margin, (-d_n - d_f + h) as f64);
        // The counts: jhz_b - jpd_b = -dE.
        prop_assert_eq!(jhz_b.margin - jpd_b.margin, -d(c.basic_eyes) as f64);
        prop_assert_eq!(jhz_a.margin - jpd_a.margin, -d(c.basic_eyes) as f64);

        // Japanese = jpd_a: no seki, nothing after the first stop, no
        // suicide, no setup removed. Then S_X = N_X - P_opponent(X).
        let no_seki = c.seki_liberties == 0 && c.seki_eyes == ByColor::new(0, 0);
        let untouched = acc.placed_to_first_stop == acc.placed_total
            && acc.suicided == ByColor::new(0, 0)
            && acc.setup_removed == ByColor::new(0, 0);
        if untouched {
            for x in Color::ALL {
                prop_assert_eq!(
                    c.stones[x],
                    acc.placed_to_first_stop[x] - acc.captures[!x] - c.dead[x],
                    "{}", text
                );
            }
        }
        if no_seki && untouched {
            prop_assert_eq!(japanese.margin_before_komi, jpd_a.margin_before_komi, "{}", text);
            prop_assert_eq!(japanese.margin, jpd_a.margin);
        }
        // In general the difference is exactly -dZ + the stones S_X misses.
        let missing = |x: Color| {
            i64::from(acc.placed_to_first_stop[x])
                - i64::from(acc.captures[!x] + c.dead[x])
                - i64::from(c.stones[x])
        };
        prop_assert_eq!(
            japanese.margin_before_komi - jpd_a.margin_before_komi,
            -d(c.seki_eyes) + missing(Color::Black) - missing(Color::White)
        );

        // Tromp-Taylor: nothing removed, so the raw area is the area.
        prop_assert_eq!(c.raw_area, ByColor::new(c.area(Color::Black), c.area(Color::White)));
        prop_assert_eq!(tt.margin_before_komi, jpd_b.margin_before_komi);
        prop_assert_eq!(tt.margin, jpd_b.margin + h as f64);
        // Area-counting rule sets agree before komi; bonuses differ.
        for r in [RuleSet::Chinese, RuleSet::Ing, RuleSet::Aga, RuleSet::NewZealand] {
            prop_assert_eq!(get(v, r).margin_before_komi, a);
        }
        prop_assert_eq!(get(v, RuleSet::Korean), Verdict { rule_set: RuleSet::Korean, ..japanese });
        if s.handicap < 2 {
            prop_assert_eq!(get(v, RuleSet::Aga).margin, jpd_b.margin);
        } else {
            prop_assert_eq!(get(v, RuleSet::Aga).margin, jpd_b.margin + 1.0);
        }
    }

    #[test]
    fn removing_dead_stones_keeps_the_board_accounted_for(
        plan in plans(),
        mask in prop::collection::vec(any::<bool>(), 1..40),
        mode in 0u8..3,
    ) {
        let s = score(&plan)?;
        let size = plan.size;
        let points = size.points() as u32;
        let only = match mode {
            0 => Some(Color::Black),
            1 => Some(Color::White),
            _ => None,
        };
        let stones: Vec<Point> = size
            .iter()
            .filter(|&p| matches!(s.pos.get(p), Some(c) if only.is_none_or(|o| o == c)))
            .collect();
        let chosen: Vec<Point> = stones
            .iter()
            .enumerate()
            .filter(|(i, _)| mask[i % mask.len()])
            .map(|(_, &p)| p)
            .collect();
        // Duplicates and empty points in the list change nothing.
        let mut dead = chosen.clone();
        dead.extend(chosen.iter().take(3));
        dead.extend(size.iter().filter(|&p| s.pos.get(p).is_none()).take(2));

        let mut counter = Counter::new();
        let before = s.counts.clone();
        let c = counter.count(&s.pos, &dead);
        prop_assert_eq!(c.area(Color::Black) + c.area(Color::White) + c.shared, points);
        let removed = |x: Color| chosen.iter().filter(|&&p| s.pos.get(p) == Some(x)).count() as u32;
        for x in Color::ALL {
            prop_assert_eq!(c.dead[x], removed(x));
            prop_assert_eq!(c.stones[x], before.stones[x] - removed(x));
        }
        prop_assert_eq!(c.raw_area, before.raw_area);
        let r = reference(&s.pos, &chosen, &HashSet::new());
        prop_assert_eq!((r.stones, r.territory, r.shared), (c.stones, c.territory, c.shared), "{}", s.text);
        // A dead stone keeps its state, and is no territory point.
        for &p in &chosen {
            let i = p.y() as usize * size.width() as usize + p.x() as usize;
            prop_assert!(matches!(counter.states()[i], PointState::Dead(_) | PointState::Fill(_)));
        }
        if let Some(x) = only {
            prop_assert!(c.area(x) <= before.area(x), "{} dead {:?}", s.text, chosen);
            prop_assert!(c.area(!x) >= before.area(!x), "{} dead {:?}", s.text, chosen);
        }

        // Scores: Tromp-Taylor ignores the dead list; prisoners include it.
        let terms = Terms {
            placed: s.report.accounting.placed_to_first_stop,
            captures: s.report.accounting.captures,
            handicap: s.handicap,
            komi: s.komi,
        };
        let v = verdicts(&c, &terms);
        prop_assert_eq!(get(&v, RuleSet::TrompTaylor), get(&s.verdicts, RuleSet::TrompTaylor));
        prop_assert_eq!(get(&v, RuleSet::JpdB).margin_before_komi, c.area_difference());
        let side = |x: Color| {
            i64::from(c.territory[x]) - i64::from(c.seki_eyes[x]) - i64::from(c.fills[x])
                + i64::from(terms.captures[x] + c.dead[!x])
        };
        prop_assert_eq!(
            get(&v, RuleSet::Japanese).margin_before_komi,
            side(Color::Black) - side(Color::White)
        );
    }
}

/// Random positions (not games): dense, with every chain given a liberty,
/// so that seki liberties are common. Units and basic eyes against the
/// independent reading, seki included.
fn random_position(size: BoardSize, raw: &[u8]) -> Position {
    let mut board = Board::new(size);
    for (p, &r) in size.iter().zip(raw.iter().cycle()) {
        let c = match r % 5 {
            0 | 1 => Some(Color::Black),
            2 | 3 => Some(Color::White),
            _ => None,
        };
        board.set(p, c).unwrap();
    }
    board.remove_chains_without_liberties();
    position_of(&board)
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn random_positions_count_like_the_reference(
        (w, h) in (2u32..=7, 2u32..=7),
        raw in prop::collection::vec(any::<u8>(), 1..49),
    ) {
        let size = BoardSize::new(w, h).unwrap();
        let pos = random_position(size, &raw);
        let mut counter = Counter::new();
        let c = counter.count(&pos, &[]);
        let seki = seki_liberties(counter.states());
        prop_assert_eq!(seki.len() as u32, c.seki_liberties);
        let r = reference(&pos, &[], &seki);
        prop_assert_eq!(c.area(Color::Black) + c.area(Color::White) + c.shared, size.points() as u32);
        prop_assert_eq!((r.stones, r.territory, r.shared), (c.stones, c.territory, c.shared), "{}", pos);
        prop_assert_eq!(r.units, c.units, "{}", pos);
        if c.seki_liberties == 0 {
            prop_assert_eq!(r.basic_eyes, c.basic_eyes, "{}", pos);
        }
    }
}

proptest! {
    // Enough cases to meet the bug below nearly every run (about one
    // position in 200 shows it).
    #![proptest_config(config(2048))]

    #[test]
    fn random_positions_basic_eyes_with_seki(
        (w, h) in (2u32..=7, 2u32..=7),
        raw in prop::collection::vec(any::<u8>(), 1..49),
    ) {
        let size = BoardSize::new(w, h).unwrap();
        let pos = random_position(size, &raw);
        let mut counter = Counter::new();
        let c = counter.count(&pos, &[]);
        let r = reference(&pos, &[], &seki_liberties(counter.states()));
        prop_assert_eq!(r.basic_eyes, c.basic_eyes, "{}", pos);
    }
}
