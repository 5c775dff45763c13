//! Hand-drawn positions and hand-written records, each counted on paper in
//! its comment and asserted exactly (RULES.md sections 3 to 5).
//!
//! Diagrams: rows from the top, `X` Black, `O` White, `.` empty; a point
//! `(x, y)` is column `x` from the left, row `y` from the top, both from 0.
//! SGF coordinates: first letter the column, second the row, `aa` top-left.

use verdict_rules::analyse::{Analyser, Analysis, DeadSource, KomiPolicy, SelfCheck, Unchecked};
use verdict_rules::game::{Game, HandicapSource};
use verdict_rules::replay::Legality;
use verdict_rules::score::{
    verdict, verdicts, Counter, Counts, PointState, Position, RuleSet, Terms, Verdict, Winner,
};
use verdict_rules::sgf::Reader;
use verdict_rules::{ByColor, Color, Point, Problem};

fn pt(s: &str) -> Point {
    let b = s.as_bytes();
    Point::from_sgf([b[0], b[1]]).unwrap()
}

fn get(v: &[Verdict; 11], r: RuleSet) -> Verdict {
    *v.iter().find(|x| x.rule_set == r).unwrap()
}

fn count(diagram: &str) -> (Counts, Vec<PointState>, usize) {
    let pos = Position::from_diagram(diagram).unwrap();
    let mut counter = Counter::new();
    let c = counter.count(&pos, &[]);
    let width = pos.size().width() as usize;
    (c, counter.states().to_vec(), width)
}

/// Parses `text`, checks the record is clean and legal under every seed and
/// modern family, and analyses it with the game's own komi.
fn analyse(text: &str) -> Analysis {
    let sgf = Reader::new(text.as_bytes()).next().expect("one game");
    let game = Game::from_sgf(&sgf, text.as_bytes()).expect("replayable");
    for p in [
        Problem::BadCoordinate,
        Problem::MultipleMoves,
        Problem::MidGameSetup,
        Problem::MissingSize,
    ] {
        assert!(!game.problems.contains(p), "{p:?} in {text}");
    }
    let a = Analyser::new().analyse(&game, KomiPolicy::Game);
    for l in [
        Legality::SEED,
        Legality::CHINESE,
        Legality::JAPANESE,
        Legality::AGA,
    ] {
        assert!(a.report.legality[l].is_legal(), "{l} in {text}");
    }
    for p in [
        Problem::Occupied,
        Problem::Suicide,
        Problem::Ko,
        Problem::Superko,
        Problem::OutOfTurn,
    ] {
        assert!(!a.report.problems.contains(p), "{p:?} in {text}");
    }
    assert!(a.report.accounting.is_conserved());
    a
}

fn game_of(text: &str) -> Game<'_> {
    let sgf = Reader::new(text.as_bytes()).next().expect("one game");
    Game::from_sgf(&sgf, text.as_bytes()).expect("replayable")
}

// ---------------------------------------------------------------------------
// (a) A seki next to open dame.
// ---------------------------------------------------------------------------

/// Top: the eyeless seki of `score/tests.rs` (inner black c0 c1 b2 c2 d2 and
/// inner white e0 e1 e2 f2 share the liberties d0 d1 and nothing else).
/// Bottom, two more rows: White's wall a5-c5/b6-c6 and Black's wall
/// e5-g5/e6-f6 leave the open dame d5 d6 between them.
///
/// ```text
///    a b c d e f g
/// 0  . O X . O X .
/// 1  O O X . O X X
/// 2  O X X X O O X
/// 3  . O O O X X .
/// 4  . O O O X X .
/// 5  O O O . X X X
/// 6  . O O . X X .
/// ```
///
/// Stones: Black 2+3+4+2+2+3+2 = 18, White 2+3+3+3+3+3+2 = 19; 12 empty.
/// Regions: Black g0, {g3,g4}, g6 = 4; White a0, {a3,a4}, a6 = 4;
/// shared {d0,d1} and {d5,d6} = 4 (18+19+4+4+4 = 49).
/// Seki liberties: Black on d0 (or d1) joins the inner chain and leaves it
/// the other one only; White likewise: d0 d1 are seki liberties (2). On d5
/// Black joins the outer wall, which keeps g3 g4 g6 d6: a dame (shared, not
/// seki). Seki stones: the inner chains, 5 and 4; they own nothing: no seki
/// eyes.
/// Units: Black's inner chain (t = 0, s = 2, b = 0) and the outer wall
/// {f0 f1 g1 g2} + {e3..g5..f6} joined by {g3,g4} (t = 4, s = 0, b = 2):
/// 2 units, E_B = 2. White the same: inner (b = 0) and the outer wall
/// {b0 a1 b1 a2} + {b3..c6} joined by {a3,a4} (t = 4, b = 2): E_W = 2.
/// Margins with every stone placed and nothing captured (N = 18, 19):
/// A = 22 - 23 = -1 = jpd_b; jpd_a = -1 - (18 - 19) = 0; jhz_b = -1 - 0;
/// Japanese = 4 - 4 = 0 (shared points, seki or dame, count for nobody
/// under either counting).
const SEKI_AND_DAME: &str = "
. O X . O X .
O O X . O X X
O X X X O O X
. O O O X X .
. O O O X X .
O O O . X X X
. O O . X X .";

#[test]
fn seki_next_to_open_dame() {
    let (c, states, w) = count(SEKI_AND_DAME);
    let at = |x: usize, y: usize| states[y * w + x];
    assert_eq!(c.stones, ByColor::new(18, 19));
    assert_eq!(c.territory, ByColor::new(4, 4));
    assert_eq!((c.shared, c.seki_liberties), (4, 2));
    assert_eq!(at(3, 0), PointState::SekiLiberty);
    assert_eq!(at(3, 1), PointState::SekiLiberty);
    assert_eq!(at(3, 5), PointState::Dame);
    assert_eq!(at(3, 6), PointState::Dame);
    assert_eq!(c.seki_stones, ByColor::new(5, 4));
    assert_eq!(c.seki_eyes, ByColor::new(0, 0));
    assert_eq!(c.units, ByColor::new(2, 2));
    assert_eq!(c.basic_eyes, ByColor::new(2, 2));
    assert_eq!(c.fills, ByColor::new(0, 0));
    assert_eq!(c.dead, ByColor::new(0, 0));
    assert_eq!(c.raw_area, ByColor::new(22, 23));

    let terms = Terms {
        placed: ByColor::new(18, 19),
        captures: ByColor::default(),
        handicap: 0,
        komi: 0.0,
    };
    let v = verdicts(&c, &terms);
    assert_eq!(get(&v, RuleSet::JpdB).margin_before_komi, -1);
    assert_eq!(get(&v, RuleSet::Chinese).margin_before_komi, -1);
    assert_eq!(get(&v, RuleSet::JpdA).margin_before_komi, 0);
    assert_eq!(get(&v, RuleSet::JhzB).margin_before_komi, -1);
    assert_eq!(get(&v, RuleSet::JhzA).margin_before_komi, 0);
    assert_eq!(get(&v, RuleSet::Japanese).margin_before_komi, 0);
    assert_eq!(get(&v, RuleSet::TrompTaylor).margin_before_komi, -1);
    assert_eq!(get(&v, RuleSet::Japanese).winner, Winner::Draw);
    assert_eq!(get(&v, RuleSet::JpdB).winner, Winner::White);
}

// ---------------------------------------------------------------------------
// (b) A ko left open at the end.
// ---------------------------------------------------------------------------

/// ```text
///    a b c d e
/// 0  . X O O .
/// 1  X . X O .
/// 2  . X O . .
/// 3  X X O . .
/// 4  . X O . .
/// ```
///
/// The ko at b1/c1: the black stone c1 has one liberty, b1, and White may
/// take it there; Black may connect there. The ko point b1 touches a1 b0 b2
/// (black) and c1 (black, in atari): by RULES.md section 3 it is a region
/// touching only black stones, so it is *Black's*, not shared. This holds
/// for every ko: the capturing stone is left with one liberty (the captured
/// stone's point), so all its other neighbours are stones of the colour it
/// captures, and the ko point touches that colour only. An open ko is never
/// a shared point under the region rule. What the open ko costs is a fill:
/// c1's last liberty lies in Black's own territory, so Black must connect at
/// b1 (`PointState::Fill`): one point under territory counting and under
/// `jpd_a`, nothing under area counting.
///
/// Stones: Black b0 a1 c1 b2 a3 b3 b4 = 7; White c0 d0 d1 c2 c3 c4 = 6.
/// Regions: Black a0, b1, a2, a4 (each alone) = 4; White e0 e1 e2 d2 d3 e3
/// d4 e4 (one region) = 8. Shared 0 (7+6+4+8 = 25).
/// Units: Black chains {b0}, {a1}, {c1}, {b2,a3,b3,b4} all joined through
/// a0, b1, a2, a4: one unit, t = 4, b = 2. White {c0,d0,d1}, {c2,c3,c4}
/// joined through the big region: one unit, t = 8, b = 2.
/// Fills: Black 1 (b1), White 0 (both white chains keep three liberties).
/// A = 11 - 14 = -3. With N = (7, 6), no captures, KM 0.5:
/// jpd_b = -3; jpd_a = -3 - (7 - 6) - (1 - 0) = -5;
/// Japanese = (4 - 1) - 8 = -5 (= jpd_a, as S_X = N_X); jhz_b = -3 - (2 - 2).
const OPEN_KO: &str = "
. X O O .
X . X O .
. X O . .
X X O . .
. X O . .";

#[test]
fn ko_left_open_is_a_fill_not_shared() {
    let (c, states, w) = count(OPEN_KO);
    let at = |x: usize, y: usize| states[y * w + x];
    assert_eq!(c.stones, ByColor::new(7, 6));
    assert_eq!(c.territory, ByColor::new(4, 8));
    assert_eq!((c.shared, c.seki_liberties), (0, 0));
    assert_eq!(at(1, 1), PointState::Fill(Color::Black));
    assert_eq!(at(0, 0), PointState::Territory(Color::Black));
    assert_eq!(c.fills, ByColor::new(1, 0));
    assert_eq!(c.units, ByColor::new(1, 1));
    assert_eq!(c.basic_eyes, ByColor::new(2, 2));

    let terms = Terms {
        placed: ByColor::new(7, 6),
        captures: ByColor::default(),
        handicap: 0,
        komi: 0.5,
    };
    let v = verdicts(&c, &terms);
    assert_eq!(get(&v, RuleSet::JpdB).margin_before_komi, -3);
    assert_eq!(get(&v, RuleSet::JpdA).margin_before_komi, -5);
    assert_eq!(get(&v, RuleSet::JhzB).margin_before_komi, -3);
    assert_eq!(get(&v, RuleSet::JhzA).margin_before_komi, -5);
    assert_eq!(get(&v, RuleSet::Japanese).margin_before_komi, -5);
    assert_eq!(get(&v, RuleSet::TrompTaylor).margin_before_komi, -3);
    assert_eq!(get(&v, RuleSet::Aga).margin, -3.5);
}

/// A ko point cannot be shared, but the dame beside a ko can:
///
/// ```text
///    a b c d e f
/// 0  . X O . O .
/// 1  X . X . O .
/// 2  . X O . O .
/// ```
///
/// Regions: a0, b1, a2 Black (3); f0 f1 f2 White (3); {d0, d1, d2} touches
/// c0, e0 (White) and c1 (Black): shared, 3 points, all dame. Stones Black
/// b0 a1 c1 b2 = 4, White c0 c2 e0 e1 e2 = 5 (4+5+3+3+3 = 18).
/// c1 has two liberties now (b1, d1). Filling the dame: Black takes d1 next
/// to its own c1, White d0 and d2; c1+d1 is then left with b1 alone, so
/// Black must still fill b1 (1 fill).
#[test]
fn ko_next_to_dame() {
    let (c, states, w) = count(
        "
        . X O . O .
        X . X . O .
        . X O . O .",
    );
    let at = |x: usize, y: usize| states[y * w + x];
    assert_eq!(c.stones, ByColor::new(4, 5));
    assert_eq!(c.territory, ByColor::new(3, 3));
    assert_eq!((c.shared, c.seki_liberties), (3, 0));
    for y in 0..3 {
        assert_eq!(at(3, y), PointState::Dame, "d{y}");
    }
    assert_eq!(c.fills, ByColor::new(1, 0));
    assert_eq!(at(1, 1), PointState::Fill(Color::Black));
}

// ---------------------------------------------------------------------------
// (c) Two chains living as one unit.
// ---------------------------------------------------------------------------

/// ```text
///    a b c d e
/// 0  X . X O .
/// 1  X . X O O
/// 2  X . X O .
/// 3  X . X O O
/// 4  X . X O .
/// ```
///
/// Black: two chains, the a and c columns (5 stones each), which touch only
/// through the region b0-b4 (5 points, touching black only). One unit:
/// t = 5, s = 0, b = min(5, 2) = 2, not 2 + 2 = 4.
/// White: one chain (d0-d4, e1, e3 = 7 stones) owning e0, e2, e4: one unit,
/// t = 3, b = 2. Area: Black 10 + 5 = 15, White 7 + 3 = 10; nothing shared.
/// jhz_b = A - (E_B - E_W) = 5 - 0 = 5; living stones 15 - 2 = 13 and
/// 10 - 2 = 8.
const TWO_CHAINS_ONE_UNIT: &str = "
X . X O .
X . X O O
X . X O .
X . X O O
X . X O .";

#[test]
fn two_chains_one_unit() {
    let (c, _, _) = count(TWO_CHAINS_ONE_UNIT);
    assert_eq!(c.stones, ByColor::new(10, 7));
    assert_eq!(c.territory, ByColor::new(5, 3));
    assert_eq!(c.shared, 0);
    assert_eq!(c.units, ByColor::new(1, 1));
    assert_eq!(c.basic_eyes, ByColor::new(2, 2));
    let terms = Terms {
        placed: ByColor::new(10, 7),
        captures: ByColor::default(),
        handicap: 0,
        komi: 0.0,
    };
    assert_eq!(verdict(RuleSet::JhzB, &c, &terms).margin_before_komi, 5);
    assert_eq!(verdict(RuleSet::JpdB, &c, &terms).margin_before_komi, 5);
}

/// A second black group on the same board is a unit of its own: the left
/// pair of chains (a and c columns, region b) and a separate group on the
/// right (g and i columns, region h), White in between with two eyes.
///
/// ```text
///    a b c d e f g h i
/// 0  X . X O . O X . X
/// 1  X . X O O O X . X
/// 2  X . X O . O X . X
/// ```
///
/// Black: 4 chains of 3, regions {b0..b2} and {h0..h2}: 2 units, each
/// t = 3, b = 2; E_B = 4. White: d0-d2, e1, f0-f2 one chain (7), eyes e0,
/// e2: 1 unit, E_W = 2.
#[test]
fn units_are_counted_per_connected_component() {
    let (c, _, _) = count(
        "
        X . X O . O X . X
        X . X O O O X . X
        X . X O . O X . X",
    );
    assert_eq!(c.stones, ByColor::new(12, 7));
    assert_eq!(c.territory, ByColor::new(6, 2));
    assert_eq!(c.units, ByColor::new(2, 1));
    assert_eq!(c.basic_eyes, ByColor::new(4, 2));
}

// ---------------------------------------------------------------------------
// A seki with eyes where one unit's two chains both touch the seki liberty.
// ---------------------------------------------------------------------------

/// ```text
///    a b c d e f
/// 0  . X O . O X
/// 1  X . O O O X
/// 2  O O O X X X
/// 3  X X X X . .
/// 4  . . . X . .
/// ```
///
/// Black a1... precisely: Black b0 (chain a) and a1 (chain b) are two
/// single-stone chains; both touch the black eye a0 and the shared point
/// b1. White's chain c0 c1 d1 e1 e0 a2 b2 c2 (8 stones) has two liberties,
/// b1 and its eye d0. Black on b1 joins b0 and a1 with the one liberty a0;
/// White on b1 keeps d0 only: b1 is a seki liberty (the only one).
/// Black's outer chain f0 f1 f2 e2 d2 d3 c3 b3 a3 d4 (10 stones) owns
/// {a4,b4,c4} and {e3,f3,e4,f4}: t = 7, s = 0, b = 2.
/// Black's corner unit {b0, a1, a0}: t = 1 (a0) and s = 1 distinct seki
/// liberty (b1, adjacent to both of its chains but one point), so
/// b = min(1, 2 - 1) = 1. White's unit {chain, d0}: t = 1, s = 1, b = 1.
/// E_B = 2 + 1 = 3, E_W = 1. Seki eyes: a0 (Black) and d0 (White).
/// Stones: Black 2 + 10 = 12, White 8; territory Black 1 + 3 + 4 = 8, White
/// 1; shared 1 (12 + 8 + 8 + 1 + 1 = 30).
const SEKI_TWO_CHAINS_ONE_LIBERTY: &str = "
. X O . O X
X . O O O X
O O O X X X
X X X X . .
. . . X . .";

#[test]
fn seki_liberty_shared_by_two_chains_of_one_unit_counts_once() {
    let (c, states, w) = count(SEKI_TWO_CHAINS_ONE_LIBERTY);
    let at = |x: usize, y: usize| states[y * w + x];
    assert_eq!(c.stones, ByColor::new(12, 8));
    assert_eq!(c.territory, ByColor::new(8, 1));
    assert_eq!((c.shared, c.seki_liberties), (1, 1));
    assert_eq!(at(1, 1), PointState::SekiLiberty);
    assert_eq!(at(0, 0), PointState::SekiEye(Color::Black));
    assert_eq!(at(3, 0), PointState::SekiEye(Color::White));
    assert_eq!(c.seki_eyes, ByColor::new(1, 1));
    assert_eq!(c.seki_stones, ByColor::new(2, 8));
    assert_eq!(c.units, ByColor::new(2, 1));
    assert_eq!(c.basic_eyes.white, 1);
}

/// The same check for Black, whose unit is scanned around White's chain.
#[test]

fn seki_liberty_shared_by_two_chains_of_one_unit_counts_once_for_black() {
    let (c, _, _) = count(SEKI_TWO_CHAINS_ONE_LIBERTY);
    // Corner unit b = min(1, 2 - 1) = 1, outer wall b = 2.
    assert_eq!(c.basic_eyes.black, 3);
}

/// The smallest case the random-position property found (4x2):
///
/// ```text
///    a b c d
/// 0  O . X .
/// 1  . O X O
/// ```
///
/// White a0 and b1 are two chains joined by White's region a1 (t = 1); b0
/// touches a0, c0 (Black) and b1: Black on b0 keeps d0 only, White on b0
/// keeps a1 only, neither captures: b0 is a seki liberty, the only one (d0
/// is not: Black captures d1 there). White's unit {a0, b1, a1} has t = 1 and
/// one distinct seki liberty: b = min(1, 2 - 1) = 1. Scan order puts Black's
/// chain c0-c1 between a0 and b1, and the counter gives 0.
#[test]

fn seki_liberty_counts_once_per_unit_small() {
    let (c, states, _) = count(
        "
        O . X .
        . O X O",
    );
    assert_eq!(states[1], PointState::SekiLiberty);
    assert_eq!(states[3], PointState::Dame);
    assert_eq!(c.seki_liberties, 1);
    assert_eq!(c.units, ByColor::new(1, 2));
    assert_eq!(c.basic_eyes, ByColor::new(0, 1));
}

// ---------------------------------------------------------------------------
// Records. Every game below is played on a 9x9 board between a black wall
// and a white wall, so that each count is a sum of columns:
//
//    a b c d e f g h i
// 0  . . . X . O . . .
// .. (the same on every row)
// 8  . . . X . O . . .
//
// Black's wall d0-d8 ("da".."di"), White's wall f0-f8 ("fa".."fi"), the
// column e (9 points) shared, columns a-c (27) Black's, g-i (27) White's.
// ---------------------------------------------------------------------------

/// `B[da];W[fa];B[db];W[fb];...`: the two walls, Black first, `n` rows.
fn walls(rows: &str, first: char, black_col: char, white_col: char) -> String {
    let second = if first == 'B' { 'W' } else { 'B' };
    let col = |c: char| if c == 'B' { black_col } else { white_col };
    rows.chars()
        .map(|r| format!(";{first}[{}{r}];{second}[{}{r}]", col(first), col(second)))
        .collect()
}

#[test]
fn wall_helper_writes_what_the_comments_say() {
    assert_eq!(walls("ab", 'B', 'd', 'f'), ";B[da];W[fa];B[db];W[fb]");
    assert_eq!(walls("a", 'W', 'd', 'f'), ";W[fa];B[da]");
}

// (d) A four-stone handicap game.

/// `HA[4] AB[bc][bg][cc][cg]` (b2, b6, c2, c6, inside Black's area), then
/// White first: W f0, B d0, ..., W f8, B d8, then W[] B[] (the stop).
/// Final: Black 4 + 9 = 13 stones, territory 27 - 4 = 23, area 36; White
/// 9 + 27 = 36; shared 9. A = 0. N_B = 4 + 9 = 13, N_W = 9; H = 4, KM 0.5.
/// Black has one unit (the wall and the four handicap stones all touch the
/// one region a-c), White one: E_B = E_W = 2.
///
/// | rule set | before komi | bonus | margin |
/// |---|---|---|---|
/// | jpd_b, Chinese, Ing, NZ | 0 | 4 | -4.5 |
/// | jhz_b | 0 | 4 | -4.5 |
/// | AGA | 0 | 3 | -3.5 |
/// | jpd_a, jhz_a | 0 - (13 - 9) = -4 | 0 | -4.5 |
/// | Japanese, Korean | 23 - 27 = -4 | 0 | -4.5 |
/// | Tromp-Taylor | 0 | 0 | -0.5 |
#[test]
fn handicap_game_under_each_bonus_rule() {
    let text = format!(
        "(;GM[1]FF[4]SZ[9]HA[4]KM[0.5]AB[bc][bg][cc][cg]{};W[];B[])",
        walls("abcdefghi", 'W', 'd', 'f')
    );
    let game = game_of(&text);
    assert_eq!(game.handicap.stones, 4);
    assert_eq!(game.handicap.source, HandicapSource::Declared);
    let a = analyse(&text);
    let acc = &a.report.accounting;
    assert_eq!(acc.placed_to_first_stop, ByColor::new(13, 9));
    assert_eq!(acc.setup_stones, ByColor::new(4, 0));
    assert_eq!(a.dead_source, DeadSource::Settled);
    assert!(a.dead.is_empty());
    assert_eq!(a.counts.stones, ByColor::new(13, 9));
    assert_eq!(a.counts.territory, ByColor::new(23, 27));
    assert_eq!(a.counts.shared, 9);
    assert_eq!(a.counts.basic_eyes, ByColor::new(2, 2));
    assert_eq!(a.komi, 0.5);
    for (rule, before, bonus) in [
        (RuleSet::JpdB, 0, 4),
        (RuleSet::Chinese, 0, 4),
        (RuleSet::Ing, 0, 4),
        (RuleSet::NewZealand, 0, 4),
        (RuleSet::JhzB, 0, 4),
        (RuleSet::Aga, 0, 3),
        (RuleSet::JpdA, -4, 0),
        (RuleSet::JhzA, -4, 0),
        (RuleSet::Japanese, -4, 0),
        (RuleSet::Korean, -4, 0),
        (RuleSet::TrompTaylor, 0, 0),
    ] {
        let v = a.verdict(rule);
        assert_eq!(v.margin_before_komi, before, "{rule}");
        assert_eq!(v.handicap_bonus, bonus, "{rule}");
        assert_eq!(v.margin, before as f64 - 0.5 - bonus as f64, "{rule}");
        assert_eq!(v.winner, Winner::White, "{rule}");
    }
}

// (e) Black placed the last stone.

/// Black first: B d0, W f0, ..., B d8, W f8, then B e4 (a dame) and the
/// stop W[] B[]. Black placed 10 stones, White 9 (黑收后). Final: Black
/// 10 + 27 = 37, White 9 + 27 = 36, shared 8: A = 1. KM 6.5.
/// jpd_b = 1 - 6.5 = -5.5; jpd_a = 1 - (10 - 9) - 6.5 = -6.5 = jpd_b - 1;
/// Japanese = 27 - 27 - 6.5 = -6.5 (the dame e4 is worth nothing).
#[test]
fn black_placed_the_last_stone() {
    let text = format!(
        "(;GM[1]FF[4]SZ[9]KM[6.5]{};B[ee];W[];B[])",
        walls("abcdefghi", 'B', 'd', 'f')
    );
    let a = analyse(&text);
    let acc = &a.report.accounting;
    assert_eq!(acc.placed_to_first_stop, ByColor::new(10, 9));
    assert_eq!(acc.last_mover, Some(Color::Black));
    assert_eq!(acc.stops, 1);
    assert_eq!(a.counts.shared, 8);
    let jpd_a = a.verdict(RuleSet::JpdA).margin;
    let jpd_b = a.verdict(RuleSet::JpdB).margin;
    assert_eq!(jpd_b, -5.5);
    assert_eq!(jpd_a, jpd_b - 1.0);
    assert_eq!(a.verdict(RuleSet::Japanese).margin, jpd_a);
    assert_eq!(
        a.verdict(RuleSet::JhzA).margin,
        a.verdict(RuleSet::JhzB).margin - 1.0
    );

    // White placing the last stone instead (no e4): the editions agree.
    let text = format!(
        "(;GM[1]FF[4]SZ[9]KM[6.5]{};B[];W[])",
        walls("abcdefghi", 'B', 'd', 'f')
    );
    let a = analyse(&text);
    assert_eq!(a.report.accounting.last_mover, Some(Color::White));
    assert_eq!(a.verdict(RuleSet::JpdA).margin, -6.5);
    assert_eq!(a.verdict(RuleSet::JpdB).margin, -6.5);
}

// (f) A Black pass earlier in the game.

/// B d0 W f0 B d1 W f1 B d2 W f2, then Black passes and White plays h4
/// inside its own area, then the walls go on (B d3 W f3 ... B d8 W f8) and
/// end with B[] W[]. Black placed 9, White 10.
/// Final: Black 9 + 27 = 36, White 10 + 26 = 36: A = 0. KM 0.5.
/// jpd_b = -0.5 (White wins); jpd_a = 0 - (9 - 10) - 0.5 = +0.5 (Black
/// wins): the editions name different winners. Japanese: 27 - 26 = 1, the
/// same as jpd_a before komi.
#[test]
fn early_black_pass_is_charged_under_the_a_edition() {
    let text = format!(
        "(;GM[1]FF[4]SZ[9]KM[0.5]{};B[];W[he]{};B[];W[])",
        walls("abc", 'B', 'd', 'f'),
        walls("defghi", 'B', 'd', 'f')
    );
    let a = analyse(&text);
    let acc = &a.report.accounting;
    assert_eq!(acc.passes, ByColor::new(2, 1));
    assert_eq!(acc.placed_to_first_stop, ByColor::new(9, 10));
    assert_eq!(acc.first_stop, Some(21));
    assert_eq!(a.counts.stones, ByColor::new(9, 10));
    assert_eq!(a.counts.territory, ByColor::new(27, 26));
    assert_eq!(a.verdict(RuleSet::JpdB).margin, -0.5);
    assert_eq!(a.verdict(RuleSet::JpdB).winner, Winner::White);
    assert_eq!(a.verdict(RuleSet::JpdA).margin_before_komi, 1);
    assert_eq!(a.verdict(RuleSet::JpdA).margin, 0.5);
    assert_eq!(a.verdict(RuleSet::JpdA).winner, Winner::Black);
    assert_eq!(a.verdict(RuleSet::Japanese).margin_before_komi, 1);
    assert_eq!(a.verdict(RuleSet::JhzA).margin, 0.5);
    assert_eq!(a.verdict(RuleSet::JhzB).margin, -0.5);
}

// (g) Play resumed after a stop.

/// The walls (Black first, White last), the stop B[] W[], then play
/// resumes: B e4, W[], B e5, and the game ends with W[] B[] (a second stop).
/// N counts up to the first stop: (9, 9); placed in all: (11, 9).
/// Final: Black 11 + 27 = 38, White 9 + 27 = 36, shared 7: A = 2. KM 0.
/// jpd_b = 2; jpd_a = 2 - (9 - 9) = 2: the two stones after the stop are
/// not charged (were they, jpd_a would be 0). Japanese = 27 - 27 = 0, which
/// is why the property "Japanese = jpd_a" needs no stone after the first
/// stop: then S_B = 11 is not N_B - P_W = 9.
#[test]
fn stones_after_the_first_stop_are_not_charged() {
    let text = format!(
        "(;GM[1]FF[4]SZ[9]KM[0]{};B[];W[];B[ee];W[];B[ef];W[];B[])",
        walls("abcdefghi", 'B', 'd', 'f')
    );
    let a = analyse(&text);
    let acc = &a.report.accounting;
    assert_eq!(acc.stops, 2);
    assert_eq!(acc.first_stop, Some(19));
    assert!(acc.resumed_after_stop);
    assert_eq!(acc.placed_to_first_stop, ByColor::new(9, 9));
    assert_eq!(acc.placed_total, ByColor::new(11, 9));
    assert_eq!(a.counts.stones, ByColor::new(11, 9));
    assert_eq!(a.counts.shared, 7);
    assert_eq!(a.verdict(RuleSet::JpdB).margin, 2.0);
    assert_eq!(a.verdict(RuleSet::JpdA).margin, 2.0);
    assert_eq!(a.verdict(RuleSet::JhzA).margin, 2.0);
    assert_eq!(a.verdict(RuleSet::Japanese).margin, 0.0);
    assert_eq!(a.verdict(RuleSet::Japanese).winner, Winner::Draw);
}

// (h) Dead stones from the final node's marks.

/// B d0, W b4 (an invasion), B c4 (answering it), W f0, then the walls
/// from row 1 (B d1 W f1 ... B d8 W f8) and B[] W[]. Marks on the final
/// node: TB[aa:ci] (columns a-c, which includes Black's own c4, ignored, and
/// White's b4, dead) and TW[ga:ii].
/// Dead: b4 (White). Final after removal: Black d0-d8 + c4 = 10 stones,
/// territory 27 - 1 (c4) = 26; White 9 stones, 27; shared 9. A = 0.
/// N = (10, 10), P_B = 1 (b4), P_W = 0. KM 6.5.
/// jpd_b = jpd_a = 0 - 6.5; Japanese = (26 + 1) - 27 = 0 - 6.5.
/// Tromp-Taylor keeps b4: columns a-c minus c4 and b4 then touch White too
/// (shared), so Black's raw area is its 10 stones, White's 10 + 27 = 37:
/// -27 - 6.5 = -33.5.
#[test]
fn dead_stones_from_territory_marks() {
    let text = format!(
        "(;GM[1]FF[4]SZ[9]KM[6.5];B[da];W[be];B[ce];W[fa]{};B[];W[]TB[aa:ci]TW[ga:ii])",
        walls("bcdefghi", 'B', 'd', 'f')
    );
    let a = analyse(&text);
    assert_eq!(a.dead_source, DeadSource::Marks);
    assert_eq!(a.dead, vec![pt("be")]);
    assert_eq!(a.counts.dead, ByColor::new(0, 1));
    assert_eq!(a.counts.stones, ByColor::new(10, 9));
    assert_eq!(a.counts.territory, ByColor::new(26, 27));
    assert_eq!(a.counts.shared, 9);
    assert_eq!(a.counts.raw_area, ByColor::new(10, 37));
    assert_eq!(
        a.report.accounting.placed_to_first_stop,
        ByColor::new(10, 10)
    );
    assert_eq!(a.report.accounting.captures, ByColor::new(0, 0));
    for rule in [
        RuleSet::JpdB,
        RuleSet::JpdA,
        RuleSet::JhzB,
        RuleSet::Japanese,
    ] {
        assert_eq!(a.verdict(rule).margin, -6.5, "{rule}");
    }
    assert_eq!(a.verdict(RuleSet::TrompTaylor).margin, -33.5);
    // The analysed position keeps the dead stone: it is removed for counting only.
    assert_eq!(a.position.get(pt("be")), Some(Color::White));
}

/// Without marks the settler decides: b4 is a lone White stone inside
/// Black's walls, so it is dead and the count is the marked game's.
#[test]
fn without_marks_the_settler_finds_the_dead_stone() {
    let text = format!(
        "(;GM[1]FF[4]SZ[9]KM[6.5];B[da];W[be];B[ce];W[fa]{};B[];W[])",
        walls("bcdefghi", 'B', 'd', 'f')
    );
    let a = analyse(&text);
    assert_eq!(a.dead_source, DeadSource::Settled);
    assert_eq!(a.dead, vec![pt("be")]);
    assert_eq!(a.counts.dead, ByColor::new(0, 1));
    assert_eq!(a.verdict(RuleSet::JpdB).margin, -6.5);
    let facts = a.settled.as_ref().expect("the settler ran");
    assert!(facts.confidence > 0.0 && facts.confidence <= 1.0);
    assert_eq!(facts.stones_by_layer.iter().sum::<u32>(), 10 + 10);
    assert_eq!(a.verdict(RuleSet::TrompTaylor).margin, -33.5);
}

// (i) The record's own result.

/// Black's wall on column e, White's on column g: Black 9 + 36 (a-d) = 45,
/// White 9 + 18 (h-i) = 27, shared 9 (column f). A = 18; Chinese with
/// KM 7.5: 10.5, so RE[B+10.5] agrees.
fn self_check_record(re: &str, ru: &str) -> String {
    format!(
        "(;GM[1]FF[4]SZ[9]KM[7.5]{re}{ru}{};B[];W[])",
        walls("abcdefghi", 'B', 'e', 'g')
    )
}

#[test]
fn self_check_against_the_recorded_result() {
    let a = analyse(&self_check_record("RE[B+10.5]", "RU[Chinese]"));
    assert_eq!(a.counts.area_difference(), 18);
    assert_eq!(a.verdict(RuleSet::Chinese).margin, 10.5);
    assert_eq!(
        a.self_check,
        SelfCheck::Agrees {
            rule_set: RuleSet::Chinese,
            recorded: 10.5,
            computed: 10.5
        }
    );
    assert_eq!(a.self_check.status().as_str(), "agrees");

    let a = analyse(&self_check_record("RE[B+9.5]", "RU[Chinese]"));
    assert_eq!(
        a.self_check,
        SelfCheck::Disagrees {
            rule_set: RuleSet::Chinese,
            recorded: 9.5,
            computed: 10.5
        }
    );
    // The wrong winner disagrees too, with the recorded margin in Black's view.
    let a = analyse(&self_check_record("RE[W+10.5]", "RU[Chinese]"));
    assert_eq!(a.self_check.recorded_margin(), Some(-10.5));
    assert_eq!(a.self_check.status().as_str(), "disagrees");

    let a = analyse(&self_check_record("RE[B+R]", "RU[Chinese]"));
    assert_eq!(
        a.self_check,
        SelfCheck::Unchecked(Unchecked::NoNumericResult)
    );
    let a = analyse(&self_check_record("RE[B+10.5]", ""));
    assert_eq!(a.self_check, SelfCheck::Unchecked(Unchecked::UnknownRules));

    // Japanese rules count territory: 36 - 18 = 18, the same margin here.
    let a = analyse(&self_check_record("RE[B+10.5]", "RU[Japanese]"));
    assert_eq!(a.self_check.status().as_str(), "agrees");
}
