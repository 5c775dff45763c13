//! Hard positions drawn by hand, each with the status a strong referee gives.
//!
//! Each board is a finished game in miniature: the walls between the two
//! sides are settled and the question is only about the shape under test.
//! Positions the settler is known to get wrong are kept, marked `#[ignore]`
//! with the reason, so that `cargo test -- --ignored` shows the work left.

use super::*;

fn settle_diagram(diagram: &str) -> Settlement {
    let position = Position::from_diagram(diagram).expect("a valid diagram");
    settle(&position)
}

/// Dead stones as SGF coordinates ("fc" = column f, row c from the top).
fn dead(diagram: &str) -> Vec<String> {
    settle_diagram(diagram)
        .dead
        .iter()
        .map(|p| format!("{}{}", (b'a' + p.x()) as char, (b'a' + p.y()) as char))
        .collect()
}

fn fate_at(diagram: &str, sgf: &str) -> ChainFate {
    let b = sgf.as_bytes();
    let p = Point::from_sgf([b[0], b[1]]).expect("a point");
    let position = Position::from_diagram(diagram).expect("a valid diagram");
    let s = settle(&position);
    // A chain's fate is filed under its first stone, row by row.
    let anchor = chain_points(&position, p)
        .into_iter()
        .min_by_key(|q| (q.y(), q.x()))
        .expect("a stone on that point");
    *s.chains
        .iter()
        .find(|c| c.anchor == anchor)
        .expect("a chain on that point")
}

/// Asserts that nothing on `diagram` is dead and that the chains on
/// `points` (SGF coordinates) are labelled seki.
fn assert_seki_nothing_dead(diagram: &str, points: &[&str]) {
    assert!(dead(diagram).is_empty(), "{:?}", dead(diagram));
    for p in points {
        assert_eq!(fate_at(diagram, p).status, Status::Seki, "{p}");
    }
}

/// A 9x9 frame: Black's pass-alive wall on the left (column b, eyes in
/// column a), White's pass-alive wall around the rest (columns c and h and
/// the top row, eyes in column i), and White's territory inside, columns d
/// to g, rows 2 to 9, where `inside` (8 rows of 4 points, from the top) is
/// drawn.
pub(super) fn framed(inside: [&str; 8]) -> String {
    let mut rows = vec![". X O O O O O O .".to_string()];
    for (k, r) in inside.iter().enumerate() {
        let (left, right) = if k == 3 {
            ("X X O", "O O")
        } else {
            (". X O", "O .")
        };
        rows.push(format!("{left} {r} {right}"));
    }
    rows.join("\n")
}

#[test]
fn empty_board_has_nothing_to_settle() {
    let s = settle_diagram(". . .\n. . .\n. . .");
    assert!(s.dead.is_empty());
    assert!(s.chains.is_empty());
    assert_eq!(s.confidence(), 1.0);
}

#[test]
fn pass_alive_walls_are_proven() {
    // Both walls have two one-point eyes: Benson proves them.
    let d = "
        . X . X O . O
        X X X X O O O
        . X . X O . O";
    let s = settle_diagram(d);
    assert!(s.dead.is_empty());
    assert!(s
        .chains
        .iter()
        .all(|c| c.layer == Layer::Benson && c.status == Status::Alive && c.confidence == 1.0));
}

#[test]
fn the_frame_is_pass_alive_and_settles_nothing() {
    let d = framed([". . . ."; 8]);
    let s = settle_diagram(&d);
    assert!(s.dead.is_empty());
    assert!(s.chains.iter().all(|c| c.layer == Layer::Benson), "{s:?}");
}

#[test]
fn lone_stone_in_territory_is_dead() {
    let d = framed([
        ". . . .", ". . . .", ". . . .", ". . X .", ". . . .", ". . . .", ". . . .", ". . . .",
    ]);
    assert_eq!(dead(&d), ["fe"]);
}

#[test]
fn big_dead_group_with_many_liberties() {
    // Eight black stones around one eye, with nine liberties.
    let d = framed([
        ". . . .", ". . . .", "X X X .", "X . X .", "X X X .", ". . . .", ". . . .", ". . . .",
    ]);
    assert_eq!(dead(&d), ["dd", "ed", "fd", "de", "fe", "df", "ef", "ff"]);
}

#[test]
fn invader_with_two_eyes_lives() {
    let d = framed([
        ". . . .", ". . . .", ". . . .", ". . . .", "X X X X", "X . X X", "X X X X", "X X . X",
    ]);
    assert!(dead(&d).is_empty(), "{:?}", dead(&d));
}

/// Black's group with one real eye (f6) and one false eye at f4 (fd):
/// White's e3 and g3 hold both upper diagonals, and f3 is a separate stone
/// White can capture from f2.
pub(super) const FALSE_EYE_GROUP: [&str; 8] = [
    ". . . .", ". O X O", ". X . X", ". X X X", ". X . X", ". X X X", ". . . .", ". . . .",
];

#[test]
fn one_real_eye_and_one_false_eye_is_dead() {
    let d = framed(FALSE_EYE_GROUP);
    let dead = dead(&d);
    for p in [
        "fc", "ed", "gd", "ee", "fe", "ge", "ef", "gf", "eg", "fg", "gg",
    ] {
        assert!(dead.iter().any(|d| d == p), "{p} should be dead: {dead:?}");
    }
    assert_eq!(dead.len(), 11, "only Black's group: {dead:?}");
}

#[test]
fn straight_three_enclosed_is_dead() {
    // White plays the middle point first: one eye.
    let d = framed([
        ". . . .", "X X X .", "X . X .", "X . X .", "X . X .", "X X X .", ". . . .", ". . . .",
    ]);
    assert_eq!(dead(&d).len(), 12, "{:?}", dead(&d));
}

/// Black's ring of seven stones around one eye (gd) in White's wide open
/// territory: 45 empty points behind a wall with no eyes of its own.
pub(super) const OPEN_TERRITORY_RING: &str = "
    . . X O . . . . .
    . . X O . . . . .
    . . X O . X X X .
    . . X O . X . X .
    . . X O . X X . .
    . . X O . . . . .
    . . X O . . . . .
    . . X O . . . . .
    . . X O . . . . .";

#[test]
#[ignore = "disputed: verdict calls White's wall dead (the group reader's out-of-budget judgement, 0.6) and the ring alive (playouts 0.82); the answer wanted rests on the group reader's survey, which judges the ring dead at its second position (owl::tests), while GNU Go 3.8's owl_attack cannot kill the ring and its final_status_list calls nothing dead. The wall is guessed dead by count_potential: the two areas hold the same empty points and White's wall has fewer liberties than the ring, so it is taken for the enclosed one"]
fn big_dead_group_in_open_territory() {
    // The same shape as `big_dead_group_with_many_liberties`, but White's
    // wall has no eyes of its own and 45 empty points behind it.
    let d = OPEN_TERRITORY_RING;
    assert_eq!(dead(d), ["fc", "gc", "hc", "fd", "hd", "fe", "ge"]);
}

/// Black's b1-b2 and White's a1... share two liberties and neither can
/// fill one (the counting tests use the same board).
pub(super) const SEKI_WITHOUT_EYES: &str = "
    . O X . O X .
    O O X . O X X
    O X X X O O X
    . O O O X X .
    . O O O X X .";

#[test]
fn seki_without_eyes_is_alive() {
    let s = settle_diagram(SEKI_WITHOUT_EYES);
    assert!(s.dead.is_empty(), "{:?}", s.dead);
}

#[test]
fn seki_with_an_eye_each_is_alive() {
    let d = "
        . O X . X . O . O
        . O X X X X O O O
        O O O O O O X X X
        . O O O X X X . X
        O O . O X . X X X";
    let s = settle_diagram(d);
    assert!(s.dead.is_empty(), "{:?}", s.dead);
}

#[test]
fn ko_left_open_kills_nothing() {
    // Black d4 (dd) can be taken in a ko at c4 (cd), but the game ended
    // with the ko unresolved: nothing is dead.
    let d = "
        . . X O . . . . .
        . . X O . . . . .
        . . X O . . . . .
        . X . X O . . . .
        . . X O . . . . .
        . . X O . . . . .
        . . X O . . . . .
        . . X O . . . . .
        . . X O . . . . .";
    assert!(dead(d).is_empty(), "{:?}", dead(d));
    // Walls that face each other with nothing shared are alive, not seki.
    for p in ["ca", "da"] {
        assert_eq!(fate_at(d, p).status, Status::Alive, "{p}");
    }
}

#[test]
fn same_position_same_answer() {
    let d = OPEN_TERRITORY_RING;
    let position = Position::from_diagram(d).unwrap();
    let mut settler = Settler::new();
    let mut a = Settlement::default();
    let mut b = Settlement::default();
    settler.settle(&position, &mut a);
    // Another position in between must not leak into the next answer.
    settler.settle(&Position::from_diagram(". X\nX .").unwrap(), &mut b);
    settler.settle(&position, &mut b);
    assert_eq!(a, b);
    assert_eq!(a, settle(&position));
}

#[test]
fn every_chain_gets_one_fate_and_dead_stones_match() {
    let d = framed(FALSE_EYE_GROUP);
    let position = Position::from_diagram(&d).unwrap();
    let s = settle(&position);
    let stones: u32 = s.chains.iter().map(|c| c.stones).sum();
    assert_eq!(
        stones,
        position.stones(Color::Black) + position.stones(Color::White)
    );
    let dead_stones: u32 = s
        .chains
        .iter()
        .filter(|c| c.status == Status::Dead)
        .map(|c| c.stones)
        .sum();
    assert_eq!(dead_stones as usize, s.dead.len());
    for c in &s.chains {
        assert!((0.0..=1.0).contains(&c.confidence), "{c:?}");
        assert_eq!(position.get(c.anchor), Some(c.color));
    }
    assert_eq!(fate_at(&d, "fc").status, Status::Dead);
    assert_eq!(fate_at(&d, "bb").layer, Layer::Benson);
}

#[test]
fn one_eyed_ring_in_atari_is_dead() {
    // The ring (d3-f5) has one liberty, its eye at e4: White takes it.
    let d = framed([
        "O O O .", "X X X O", "X . X O", "X X X O", "O O O .", ". . . .", ". . . .", ". . . .",
    ]);
    assert_eq!(dead(&d), ["dc", "ec", "fc", "dd", "fd", "de", "ee", "fe"]);
}

/// Asserts that exactly `expected` (SGF points, any order) are dead.
fn assert_dead_exactly(diagram: &str, expected: &[&str]) {
    let mut got = dead(diagram);
    got.sort();
    let mut want: Vec<String> = expected.iter().map(|p| p.to_string()).collect();
    want.sort();
    assert_eq!(got, want);
}

/// Bent four in the corner. Black's three stones on the left edge (aa, ab,
/// ac) sit inside White's corner group (ca-cb-bb, cc-cd-bd-ad), and the two
/// share their only liberties, ba and bc; Black's wall around White is
/// pass-alive (eyes at ea, ec, ee, af, cf and the lower left). It looks like
/// a seki, but Black can play ba whenever it likes: White takes four stones
/// at bc and is left with a bent four whose bend is the corner point, and
/// Black's placement at ab makes it a ko that Black takes first. White can
/// never start anything itself (ba or bc is self-atari for the whole group),
/// so Black removes every ko threat first and wins the ko: under Japanese
/// rules (and so on KGS) White's corner is dead and Black's three stones
/// are not. GNU Go 3.8 agrees: `final_status_list dead` lists the seven
/// White stones and no seki.
pub(super) const BENT_FOUR_IN_THE_CORNER: &str = "
    X . O X . X O . O
    X O O X X X O O O
    X . O X . X O . O
    O O O X X X O O O
    X X X X . X O . O
    . X . X X X O O O
    X X X X X X O . O
    . . . X . X O O O
    . . . X X X O . O";

#[test]
fn bent_four_in_the_corner_is_dead() {
    let d = BENT_FOUR_IN_THE_CORNER;
    assert_dead_exactly(d, &["ca", "bb", "cb", "cc", "ad", "bd", "cd"]);
}

/// The contrast to `bent_four_in_the_corner_is_dead`: the same shape moved
/// down the left edge, away from the corner. Black's three stones ad-ae-af
/// and White's group around them (ac-bc-cc-cd-ce-be, cf-cg-bg-ag) share
/// their only liberties, bd and bf, inside Black's pass-alive wall. If Black
/// fills one, White takes four stones and is left with a bent four on the
/// side, which is alive (two vital points, no ko); if White fills one, it
/// is atari on White's own group. Neither side can play: a real seki, and
/// nothing is dead. GNU Go 3.8 lists all thirteen stones as seki.
/// (A White eye instead of the edge would not make a seki: White, with an
/// eye against none, would simply capture Black's three stones.)
pub(super) const SIDE_SEKI: &str = "
    . X . X O . O . O
    X X X X O O O O O
    O O O X O . O . O
    X . O X O O O O O
    X O O X O . O . O
    X . O X O O O O O
    O O O X O . O . O
    X X X X O O O O O
    . X . X O . O . O";

#[test]
fn the_bent_four_shape_on_the_side_is_seki() {
    let d = SIDE_SEKI;
    assert!(dead(d).is_empty(), "{:?}", dead(d));
}

/// Seki in the corner behind a wall with one eye. White's chain e3-d4-g4-
/// e6 has two liberties outside the corner, d5 and d6, and they are one
/// eye it shares with White's c5-b6-c6. Black's g5 and f6 share their
/// liberties f5 and g6 with it. If White fills f5, Black plays d5: White
/// must take g5 and f6 at g6, and Black takes c5-b6-c6 at d6 and the
/// corner collapses; if White takes d5 instead, Black takes everything
/// back at d5. Black cannot start either. Nobody can move: seki, nothing
/// dead (the players of KGS 2017-02-13-1 left it so). Read as if White's
/// chain were a wall that cannot be taken, f5 and then g6 would kill.
pub(super) const SEKI_BEHIND_A_ONE_EYED_WALL: &str = "
    . X . X . X .
    X X X X X X X
    X X X X X X X
    X X X X O X X
    X X X O O O O
    X X O . O . X
    X O O . O X .";

#[test]
fn a_wall_with_one_eye_outside_does_not_wall_in_a_seki() {
    let d = SEKI_BEHIND_A_ONE_EYED_WALL;
    // The two Black stones and White's two chains are the seki.
    assert_seki_nothing_dead(d, &["ed", "cf", "gf", "fg"]);
    // Black's wall, with its eyes, is not.
    assert_eq!(fate_at(d, "ba").status, Status::Alive);
}

/// Double-ko seki. Black's group a1-a2-b2-a3-b3-c3, round c4-d4-e4 to
/// e3-f3-g3-h3-g2-h2-h1 (inside White's pass-alive wall) and White's group
/// d1-e1-c2-d2-e2-f2 (inside Black's) have no eyes. They share one liberty,
/// d3, and besides it each has only a ko: Black can take White's b1 by
/// playing c1, White can take Black's f1 by playing g1. Filling d3 is
/// self-atari for either side. Whenever one side takes its ko, putting the
/// other in atari, the other takes the other ko and is out of atari again,
/// and neither needs a ko threat: nobody can win, so it is a seki, b1 and
/// f1 included. GNU Go 3.8 lists every stone of the two groups, and b1 and
/// f1, as seki.
pub(super) const DOUBLE_KO_SEKI: &str = "
    X O . O O X . X O
    X X O O O O X X O
    X X X . X X X X O
    O O X X X O O O O
    . O O O O O . O .
    O O O O O O O O O
    X X X X X X X X X
    . X . X . X . X .
    X X X X X X X X X";

#[test]
fn double_ko_seki_is_alive() {
    let d = DOUBLE_KO_SEKI;
    assert!(dead(d).is_empty(), "{:?}", dead(d));
}

/// Hanezeki: both sides have a string in atari, and whoever captures
/// loses the race that follows, so it is a seki. Under pass-alive walls
/// (White's a4-d8, Black's e4-i8), Black's eyeless group a1-a3-d3-d1 and
/// White's eyeless group e3-i3-i2, f2-f1-e1-g1 share one liberty, e2;
/// each has one more, c2 and i1, which is also the last liberty of the
/// other's string inside its space: White's b2-b1-c1 and Black's
/// g2-h2-h1. Black taking White's three at c2 leaves a bent three
/// (b2-b1-c1); White places on b1 and, with two liberties against
/// Black's three shortened by the placement, takes Black's three at i1
/// and wins. White taking first loses the same way, by symmetry of
/// shape. Filling e2 is self-atari for either side. So nothing is dead
/// and the four chains at the bottom are seki. The shape was found by
/// an exhaustive search of the bottom three rows (walls fixed, every
/// line to the end, passes allowed): neither side moving first captures
/// the other's group, and after either capture the other side, moving
/// first, does. `the_hanezeki_board_is_a_hanezeki` runs that search.
/// The group reader reads each string alone and finds it captured; the
/// region step ([`region`]) plays the bottom rows out and finds nothing
/// dead. GNU Go 3.8 lists Black's group and string dead.
pub(super) const HANEZEKI: &str = "
    . O . O X . X . X
    O O O O X X X X X
    O O O O X X X X X
    O O O O X X X X X
    O O O O X X X X X
    O O O O X X X X X
    X X X X O O O O O
    X O . X . O X X O
    X O O X O O O X .";

/// Whether `attacker`, moving first, captures the chain on `target`
/// before its own chain on `own` is captured: both sides play any empty
/// point of `region` or pass, simple ko, two passes in a row end the line
/// (the attacker has failed), and no line is longer than `depth` moves.
/// Exhaustive, with a table of positions already answered: for the few
/// empty points of a drawn fight.
fn race_won(
    board: &crate::board::Board,
    attacker: Color,
    target: Point,
    own: Point,
    region: &[Point],
    depth: u32,
) -> bool {
    type Seen = std::collections::HashMap<(u64, bool, u8, Option<Point>, u32), bool>;
    struct Race<'a> {
        attacker: Color,
        target: Point,
        own: Point,
        region: &'a [Point],
        seen: Seen,
    }
    impl Race<'_> {
        fn won(
            &mut self,
            b: &crate::board::Board,
            to_move: Color,
            ko: Option<Point>,
            passes: u8,
            depth: u32,
        ) -> bool {
            if passes == 2 || depth == 0 {
                return false;
            }
            let attacking = to_move == self.attacker;
            let key = (b.recompute_hash(), attacking, passes, ko, depth);
            if let Some(&known) = self.seen.get(&key) {
                return known;
            }
            // The attacker needs one line that wins, the defender one
            // that does not lose.
            let mut answer = self.won(b, to_move.other(), None, passes + 1, depth - 1);
            for &p in self.region {
                if answer == attacking {
                    break;
                }
                if b.get(p).is_some() || Some(p) == ko {
                    continue;
                }
                let mut next = b.clone();
                let Ok(outcome) = next.play(to_move, p) else {
                    continue;
                };
                if outcome.suicided > 0 {
                    continue;
                }
                answer = if next.get(self.target) != Some(self.attacker.other()) {
                    true
                } else if next.get(self.own) != Some(self.attacker) {
                    false
                } else {
                    self.won(&next, to_move.other(), outcome.ko, 0, depth - 1)
                };
            }
            self.seen.insert(key, answer);
            answer
        }
    }
    let mut race = Race {
        attacker,
        target,
        own,
        region,
        seen: Seen::new(),
    };
    race.won(board, attacker, None, 0, depth)
}

#[test]
fn the_hanezeki_board_is_a_hanezeki() {
    // Checks the claim of [`HANEZEKI`] by playing the bottom three rows
    // out, so that the expected statuses rest on a search, not on a
    // reading of the diagram.
    use crate::board::Board;
    let pt = |x: u8, y: u8| Point::new(x, y).expect("on the board");
    let region: Vec<Point> = (6..9).flat_map(|y| (0..9).map(move |x| pt(x, y))).collect();
    let (black, white) = (pt(0, 6), pt(4, 6));
    let board = Board::from_diagram(HANEZEKI).unwrap();
    let depth = 30;
    // Neither side, moving first, captures the other's group.
    assert!(!race_won(
        &board,
        Color::Black,
        white,
        black,
        &region,
        depth
    ));
    assert!(!race_won(
        &board,
        Color::White,
        black,
        white,
        &region,
        depth
    ));
    // Black taking White's three at c2 loses the race; so does White
    // taking Black's three at i1.
    let mut taken = board.clone();
    assert_eq!(taken.play(Color::Black, pt(2, 7)).unwrap().captured, 3);
    assert!(race_won(&taken, Color::White, black, white, &region, depth));
    let mut taken = board.clone();
    assert_eq!(taken.play(Color::White, pt(8, 8)).unwrap().captured, 3);
    assert!(race_won(&taken, Color::Black, white, black, &region, depth));
}

#[test]
fn hanezeki_is_seki() {
    // Black's group and White's string in its space, White's group and
    // Black's string in its space: all four are the seki.
    assert_seki_nothing_dead(HANEZEKI, &["ag", "bh", "eg", "gh"]);
}

/// Stones that need the right order to capture. Black's ring e4-g4, g5-g7,
/// f7-e7, e6-e5 in White's framed territory holds a White stone at f5 and
/// one empty point, f6. The obvious liberty to take, f6, is suicide for
/// White (f5-f6 would have no liberty) until all ten outside liberties are
/// filled; filled in that order, f6 captures everything. Black moving first
/// gets no further: taking f5 with f6 leaves a single one-point eye, and
/// White answers any try for a second eye in the open space. The ring is
/// dead and White's f5 is not. GNU Go 3.8 agrees: the ten Black stones are
/// dead, nothing is seki.
pub(super) const RING_AROUND_A_WHITE_STONE: [&str; 8] = [
    ". . . .", ". . . .", ". X X X", ". X O X", ". X . X", ". X X X", ". . . .", ". . . .",
];

#[test]
fn ring_captured_from_the_outside_first_is_dead() {
    let d = framed(RING_AROUND_A_WHITE_STONE);
    assert_dead_exactly(
        &d,
        &["ed", "fd", "gd", "ee", "ge", "ef", "gf", "eg", "fg", "gg"],
    );
}

#[test]
fn square_four_is_dead() {
    // Black's ring of ten stones holds a 2x2 space (e4-f5): White's
    // placements end in a bent three with a stone on its vital point.
    let d = framed([
        ". . . .", ". . . .", "X X X X", "X . . X", "X . . X", "X X X X", ". . . .", ". . . .",
    ]);
    assert_eq!(dead(&d).len(), 12, "{:?}", dead(&d));
}

#[test]
fn a_seed_changes_the_draw_not_the_rule() {
    // The ring in open territory is decided by the playouts (the static
    // layer has no enclosure to go by), so its confidence is a count of
    // playouts and moves with the draw.
    let position = Position::from_diagram(OPEN_TERRITORY_RING).unwrap();
    let run = |seed: u64| {
        let mut out = Settlement::default();
        Settler::with_seed(seed).settle(&position, &mut out);
        out
    };
    assert_eq!(run(0), settle(&position), "seed 0 is the default");
    assert_eq!(run(7), run(7), "same seed, same answer");
    let ring = |s: &Settlement| {
        *s.chains
            .iter()
            .find(|c| c.color == Color::Black && c.stones == 7)
            .expect("the ring")
    };
    let base = ring(&run(0));
    assert_eq!(base.layer, Layer::Playouts, "{base:?}");
    assert!(
        (1..8).any(|seed| ring(&run(seed)).confidence != base.confidence),
        "eight seeds, one count of playouts: the seed is not used"
    );
}

/// Black's corner stones (a6-b9) have an eye of two points (a8, a9) and
/// touch White's pass-alive group above; White's three stones c7-c9 sit
/// between them and Black's pass-alive wall with one liberty, d9. Black
/// takes them whenever it likes and joins the wall: White's three are
/// dead and Black's corner lives. (From a KGS game the playouts got wrong:
/// the corner in atari extends instead of capturing.)
pub(super) const CAPTURE_TO_LIVE: &str = "
    . O . O X . X . .
    O O O O X X X X X
    . O . O X . . . .
    O O O O X . . . .
    O O O X X . . . .
    X O X X . . . . .
    X X O X . . . . .
    . X O X X . . . .
    . X O . X . . . .";

#[test]
fn chain_in_atari_next_to_the_corner_is_captured() {
    assert_dead_exactly(CAPTURE_TO_LIVE, &["cg", "ch", "ci"]);
}

/// One of the passes of [`Settler::read_out`] that share a signature.
type Pass =
    fn(&mut Tactics, &Statics, &PlayoutBoard, usize, &mut [ChainFate], &mut Vec<(u16, u16)>);

/// Runs `pass` on `diagram` with every chain that is not pass-alive given
/// the fate `others`, except those on `given` (SGF coordinates) which get
/// their own, and returns the fates of the chains on `points`.
fn after_pass(
    diagram: &str,
    pass: Pass,
    others: (Status, Layer, f32),
    given: &[(&str, (Status, Layer, f32))],
    points: &[&str],
) -> Vec<(Status, Layer)> {
    let position = Position::from_diagram(diagram).expect("a valid diagram");
    let w = position.size().width() as usize;
    let mut statics = Statics::default();
    statics.analyse(&position, &PassAlive::of(&position));
    let chain = |p: &str| {
        let b = p.as_bytes();
        let p = Point::from_sgf([b[0], b[1]]).expect("a point");
        assert!((p.x() as usize) < w, "{p:?} is off the board");
        statics.chain_at(p.y() as usize * w + p.x() as usize)
    };
    let mut chains = settle(&position).chains;
    for c in chains.iter_mut().filter(|c| c.layer != Layer::Benson) {
        (c.status, c.layer, c.confidence) = others;
    }
    for &(p, fate) in given {
        let c = &mut chains[chain(p)];
        (c.status, c.layer, c.confidence) = fate;
    }
    let start = PlayoutBoard::from_diagram(diagram);
    pass(
        &mut Tactics::default(),
        &statics,
        &start,
        w,
        &mut chains,
        &mut Vec::new(),
    );
    points
        .iter()
        .map(|&p| (chains[chain(p)].status, chains[chain(p)].layer))
        .collect()
}

/// Runs [`tempo_fights`] on `diagram` with every chain that is not
/// pass-alive taken as open (the playouts even on it), and returns the
/// fates of the chains on `points` (SGF coordinates).
fn after_tempo_fights(diagram: &str, points: &[&str]) -> Vec<(Status, Layer)> {
    let open = (Status::Alive, Layer::Static, OPEN_CONFIDENCE);
    after_pass(diagram, tempo_fights, open, &[], points)
}

#[test]
fn a_chain_in_atari_left_even_is_captured_to_live_too() {
    // KGS 2017-02-23-20: the chain in atari was left even by the playouts
    // (the static layer guessing dead), and its captor called dead. The
    // capture still joins the captor to its living wall: it lives.
    let sure = (Status::Alive, Layer::Playouts, 1.0);
    let got = after_pass(
        CAPTURE_TO_LIVE,
        capture_to_live,
        sure,
        &[
            ("cg", (Status::Dead, Layer::Static, OPEN_CONFIDENCE)),
            ("af", (Status::Dead, Layer::Playouts, 0.25)),
        ],
        &["cg", "af"],
    );
    assert_eq!(got[0], (Status::Dead, Layer::Reading), "White's three");
    assert_eq!(got[1], (Status::Alive, Layer::Reading), "Black's corner");
}

/// Black's seven corner stones (ba-da, ab-cb, ac) have one eye, aa, and
/// no other liberty: White takes them at aa whenever it likes. White's
/// chain around them has only its own eye of two points (fa, ga), next to
/// Black's pass-alive wall. Black moving first cannot save the corner:
/// fa puts White in atari, and White takes the seven stones and lives in
/// their place.
pub(super) const BIG_CAPTURE_TO_LIVE: &str = "
    . X X X O . . O X
    X X X O O O O O X
    X O O O X X X X X
    O O X X X . X . X
    X X X X X X X X X";

#[test]
fn taking_more_than_six_stones_in_atari_is_room_to_live() {
    // The playouts, blind to the capture, call the corner alive and White's
    // chain dead, both barely: the capture settles it.
    let barely = |status| (status, Layer::Playouts, 0.25);
    let got = after_pass(
        BIG_CAPTURE_TO_LIVE,
        capture_to_live,
        barely(Status::Alive),
        &[("ea", barely(Status::Dead))],
        &["ba", "ea", "ia"],
    );
    assert_eq!(got[0], (Status::Dead, Layer::Reading), "the corner");
    assert_eq!(got[1], (Status::Alive, Layer::Reading), "White's chain");
    assert_eq!(got[2], (Status::Alive, Layer::Benson), "Black's wall");
    // And the whole settler agrees.
    assert_dead_exactly(
        BIG_CAPTURE_TO_LIVE,
        &["ba", "ca", "da", "ab", "bb", "cb", "ac"],
    );
}

#[test]
fn a_tempo_fight_goes_to_the_side_that_captures_in_one_move() {
    // White's b2 is in atari (at c2) inside Black's ring; the ring has
    // more liberties, so White needs two moves to take it, Black one.
    // White's b4 is open too and touches the ring: it goes with b2.
    // White's b6 touches no winner: it is no part of the fight. White's
    // wall on the right is pass-alive and is not touched.
    let d = "
        X X X X O . O
        X O . X O O O
        X X X X O . O
        . O . X O O O
        . . . X O . .
        . O . X O . .
        . . . X O . .";
    let got = after_tempo_fights(d, &["bb", "aa", "bd", "bf", "ea"]);
    assert_eq!(got[0], (Status::Dead, Layer::Reading));
    assert_eq!(got[1], (Status::Alive, Layer::Reading));
    assert_eq!(got[2], (Status::Dead, Layer::Reading));
    assert_eq!(
        got[3],
        (Status::Alive, Layer::Static),
        "b6 is no part of it"
    );
    assert_eq!(got[4], (Status::Alive, Layer::Benson));
}

#[test]
fn a_ko_is_no_tempo_fight() {
    // White's b2 is in atari at c2, but c2 is surrounded by White: taking
    // b2 is a ko, which needs a threat. Nothing is settled.
    let d = "
        X X O . . . .
        X O . O . . .
        X X O . . . .
        . . . . . . .
        . . . . . . .";
    let got = after_tempo_fights(d, &["bb", "aa", "ca"]);
    assert!(got.iter().all(|f| f.1 == Layer::Static), "{got:?}");
}

#[test]
fn two_chains_in_atari_are_no_tempo_fight() {
    // Black's b1 and White's c1 are both in atari: whoever moves first
    // takes, and the game ended with neither taking. White's b2 next to
    // b1 has two liberties, but b1 is not lost: it can take c1. Nothing
    // is settled.
    let d = "
        . X O X . . .
        X O . X . . .
        . . X . . . .
        . . . . . . .
        . . . . . . .";
    let got = after_tempo_fights(d, &["ba", "ca", "bb", "ab", "da"]);
    assert!(got.iter().all(|f| f.1 == Layer::Static), "{got:?}");
}

/// Sending two, returning one: a seki in the corner (KGS 2017-03-06-10,
/// where the players marked White's three stones dead; GNU Go 3.8 lists
/// them as seki). White's b9-b8-c8 (liberties a9, c9), Black's a8
/// (liberties a9, a7) and Black's group around them (liberties c9, a7)
/// each share one liberty with each of the others, inside White's
/// pass-alive wall. Whoever fills a9 or c9 is taken; Black filling a7
/// leaves two chains sharing two liberties. The only capture without loss
/// is White's a7 after Black's a9: it takes two stones, and Black takes
/// the capturing stone back at a8, which is the starting position again.
/// Nobody can kill anything: nothing is dead.
pub(super) const SENDING_TWO_RETURNING_ONE: &str = "
    . O . X O . O . .
    X O O X O O O O O
    . X X X O . O . O
    X X X X O O O O O
    O O O O O . O . O
    . O . O O O O O O
    O O O O . O . O .
    . O . O O O O O O
    O O O O . O . O .";

#[test]
fn sending_two_returning_one_kills_nothing() {
    // Nothing is dead, and the chains are labelled seki, as the count
    // sees them, though the playouts (which never fill a shared
    // liberty) find them alive.
    assert_seki_nothing_dead(SENDING_TWO_RETURNING_ONE, &["ba", "da", "ab"]);
}

// The classes of issue 20: positions of the kinds the settler got wrong on
// games it had not seen, drawn anew (none is a board of those games).

/// Class 1, a big invader without eyes in an open area: six Black stones
/// in a block, no eye among them, in White's 45 open points behind a wall
/// (column d) that has no eye of its own either. Black's own area on the
/// left is as open. White answers every try for two eyes: dead.
pub(super) const EYELESS_INVADER_IN_OPEN_TERRITORY: &str = "
    . . X O . . . . .
    . . X O . . . . .
    . . X O . . . . .
    . . X O . . . . .
    . . X O . X X . .
    . . X O . X X . .
    . . X O . X X . .
    . . X O . . . . .
    . . X O . . . . .";

#[test]
#[ignore = "disputed: verdict calls White's wall dead (shut in Black's area, read dead at 0.9) and the block alive (playouts 0.51), and so does GNU Go 3.8's final_status_list, whose owl_attack cannot kill the block; the answer wanted rests on the group reader's survey, which judges the block dead at its first position (owl::tests). The wall is guessed dead by count_potential: the two areas hold the same empty points and White's wall has fewer liberties than the block, so it is taken for the enclosed one"]
fn eyeless_invader_in_open_territory_is_dead() {
    assert_dead_exactly(
        EYELESS_INVADER_IN_OPEN_TERRITORY,
        &["fe", "ge", "ff", "gf", "fg", "gg"],
    );
}

/// Class 3, the corner bent three killed by a placement: Black's five
/// stones (c9, c8, b8, b7, a7) hold a bent three whose bend is the corner
/// point (a9, b9, a8) inside White's pass-alive group. White's stone on
/// a9 leaves one eye; Black on a9 would make two, but the question at the
/// end is whether White, moving first, captures: it does.
pub(super) const CORNER_BENT_THREE: &str = "
    . . X O . O . O .
    . X X O O O O O O
    X X O O . . . . .
    O O O . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .";

#[test]
fn corner_bent_three_dies_to_a_placement() {
    assert_dead_exactly(CORNER_BENT_THREE, &["ca", "bb", "cb", "ac", "bc"]);
}

/// Class 4, a capture that leaves a dead shape: Black's ring of twelve
/// stones in White's framed territory holds two White stones (f4, f5) and
/// one empty point below them (f6). Black takes the two whenever it likes,
/// but the two points it gets back are one eye: the ring is dead, White's
/// two stones are not.
pub(super) const CAPTURE_LEAVING_ONE_EYE: [&str; 8] = [
    ". . . .", ". X X X", ". X O X", ". X O X", ". X . X", ". X X X", ". . . .", ". . . .",
];

#[test]
fn a_capture_that_leaves_one_eye_is_dead() {
    let d = framed(CAPTURE_LEAVING_ONE_EYE);
    assert_dead_exactly(
        &d,
        &[
            "ec", "fc", "gc", "ed", "gd", "ee", "ge", "ef", "gf", "eg", "fg", "gg",
        ],
    );
}

/// Class 5, seki with stones inside, on a whole board: White's two chains
/// at the bottom (e4-d3-g3-e1 and c2-c1-b1) share d2 and d1 and have no
/// eye; Black's g2 and f1 sit in White's space f2-g1. Whoever fills a
/// shared point first loses: seki, nothing dead. (The enclosure reading's
/// `seki_with_stones_inside_stands` is the same corner.)
pub(super) const SEKI_WITH_STONES_INSIDE: &str = "
    . X X . X X .
    . . X X O X X
    . X X O O O O
    X X O . O . X
    X O O . O X .";

#[test]
fn seki_with_stones_inside_kills_nothing() {
    let d = SEKI_WITH_STONES_INSIDE;
    assert!(dead(d).is_empty(), "{:?}", dead(d));
}

#[test]
fn seki_with_stones_inside_is_labelled_seki() {
    let d = SEKI_WITH_STONES_INSIDE;
    for p in ["eb", "cd", "gd", "fe"] {
        assert_eq!(fate_at(d, p).status, Status::Seki, "{p}");
    }
}

/// Class 5, a seki with stones inside that is a matter of shape, in a game
/// stopped before White closed its boundary: Black's ring in White's
/// framed territory (no eye of its own, its outside liberties d5-g5
/// White's to fill at leisure) holds White's straight three on the edge
/// (e7-e9) and two empty points beside it (f7, f9). Black can take the
/// three, but that leaves a straight three, which White's placement on e8
/// makes one eye: the ring would die. White filling f7 or f9 leaves Black
/// an L-shaped four to take, two eyes. So neither side moves: nothing is
/// dead, though a reading of White's three alone finds them captured.
pub(super) const NAKADE_SEKI: [&str; 8] = [
    ". . . .", ". . . .", ". . . .", ". . . .", "X X X X", "X O . X", "X O X X", "X O . X",
];

/// [`NAKADE_SEKI`] with White's boundary closed (d5-g5), as it stands when
/// the game is played out: f7 and f9 are then the only liberties of both
/// sides, and neither can fill one without self-atari.
const NAKADE_SEKI_CLOSED: [&str; 8] = [
    ". . . .", ". . . .", ". . . .", "O O O O", "X X X X", "X O . X", "X O X X", "X O . X",
];

#[test]
fn stones_whose_capture_leaves_a_nakade_are_not_dead() {
    for inside in [NAKADE_SEKI, NAKADE_SEKI_CLOSED] {
        let d = framed(inside);
        assert!(dead(&d).is_empty(), "{:?}", dead(&d));
    }
}

#[test]
fn a_nakade_seki_played_out_is_labelled_seki() {
    let d = framed(NAKADE_SEKI_CLOSED);
    for p in ["ef", "eg", "df"] {
        assert_eq!(fate_at(&d, p).status, Status::Seki, "{p}");
    }
}

/// Class 4, a capture that leaves a dead shape, read before the tactical
/// reader's kill: Black's 2x2 square in the corner of White's six-stone
/// ring (f9-f7-j7), beside Black's pass-alive wall, which holds the
/// ring's outside liberties (e9-e7) as well. The square has two
/// liberties and is taken by force, but taking it leaves White a square
/// four, one eye: the ring dies. Black, moving first, kills the ring
/// outright by filling f9's neighbour g9 or g8: White's capture of the
/// five leaves a bulky five. So the ring is dead and the square is not.
const RING_AROUND_A_SQUARE: &str = "
    . . X X . O . X X
    . . X X . O . X X
    . . X X . O O O O
    . . X X X X X X X
    . . . X . X . X .
    . . . X X X X X X
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .";

#[test]
fn stones_whose_capture_kills_the_captor_are_not_dead() {
    assert_dead_exactly(RING_AROUND_A_SQUARE, &["fa", "fb", "fc", "gc", "hc", "ic"]);
}

#[test]
fn the_captor_of_stones_in_its_eye_space_is_read_however_sure_the_playouts_were() {
    // The ring taken as alive by the playouts with confidence, as random
    // players (who never throw five stones into atari) find such rings,
    // and the square found alive because its capture kills the ring: the
    // ring is read, and dies.
    let (mut settler, _, mut chains) = settled(RING_AROUND_A_SQUARE);
    let (ring, square) = (anchored(&chains, "fa"), anchored(&chains, "ha"));
    chains[ring] = ChainFate {
        status: Status::Alive,
        layer: Layer::Playouts,
        confidence: 0.9,
        ..chains[ring]
    };
    chains[square] = ChainFate {
        status: Status::Alive,
        layer: Layer::Reading,
        confidence: OWL_JUDGED,
        ..chains[square]
    };
    let w = 9;
    settler.inner.clear();
    settler.read_captors(w, &mut chains);
    assert_eq!(
        chains[ring].status,
        Status::Alive,
        "read only for the stones inside"
    );
    settler.inner.push(square as u32);
    settler.read_captors(w, &mut chains);
    assert_eq!(chains[ring].status, Status::Dead);
    assert_eq!(chains[ring].layer, Layer::Reading);
}

/// Class 1 with the boundary still open: Black's eyeless block of six in
/// White's framed territory, whose wall has a gap at c4 onto Black's own
/// wall. The area is no closed territory any more, but the block has no
/// room for two eyes and cannot get out: White answers every try. Dead on
/// every playout seed, not only on the default one.
pub(super) const INVADER_BEHIND_A_GAP: [&str; 8] = [
    ". . . .", ". . . .", ". X X .", ". X X .", ". X X .", ". . . .", ". . . .", ". . . .",
];

#[test]
fn an_eyeless_invader_behind_a_gap_in_the_wall_is_dead_on_every_seed() {
    let mut rows: Vec<String> = framed(INVADER_BEHIND_A_GAP)
        .lines()
        .map(str::to_string)
        .collect();
    // Open White's wall on column c, row 6 from the top.
    rows[5].replace_range(4..5, ".");
    let d = rows.join("\n");
    let position = Position::from_diagram(&d).expect("a valid diagram");
    let mut out = Settlement::default();
    for seed in 0..16 {
        Settler::with_seed(seed).settle(&position, &mut out);
        let dead: Vec<String> = out
            .dead
            .iter()
            .map(|p| format!("{}{}", (b'a' + p.x()) as char, (b'a' + p.y()) as char))
            .collect();
        assert_eq!(dead, ["ed", "fd", "ee", "fe", "ef", "ff"], "seed {seed}");
    }
}

/// White's two stones inside Black's group in the corner of White's framed
/// territory: Black can take them (e9, then f9), but Black's stones around
/// them have no eyes and stand in White's area, so the corner is White's
/// whatever the local fight.
const STONES_INSIDE_A_DEAD_GROUP: [&str; 8] = [
    ". . . .", ". . . .", ". . . .", ". . . .", ". . . .", "X X X X", "X O O X", "X . . X",
];

/// A settler that has settled `diagram` (its scratch still holding that
/// position, for the steps a test calls on their own), the position, and
/// the chains it found.
fn settled(diagram: &str) -> (Settler, Position, Vec<ChainFate>) {
    let position = Position::from_diagram(diagram).expect("a valid diagram");
    let mut settler = Settler::new();
    let mut out = Settlement::default();
    settler.settle(&position, &mut out);
    (settler, position, out.chains)
}

/// The index of the chain anchored at SGF point `sgf` (its first stone,
/// row by row).
fn anchored(chains: &[ChainFate], sgf: &str) -> usize {
    let b = sgf.as_bytes();
    let p = Point::from_sgf([b[0], b[1]]).expect("a point");
    chains
        .iter()
        .position(|c| c.anchor == p)
        .expect("a chain anchored there")
}

/// Which of the group reader's kills stand (`kills`: the reader's
/// confidence in each kill, none when it found none), in White's framed
/// territory holding `inside`, when the layers found the chains anchored
/// at `found` (SGF points) as given, all unsure.
fn kills_standing_in<const N: usize>(
    inside: [&str; 8],
    found: [(&str, Status); N],
    kills: [Option<f32>; N],
) -> [bool; N] {
    let (mut settler, _, mut chains) = settled(&framed(inside));
    let at = found.map(|(sgf, _)| anchored(&chains, sgf));
    for (&c, (_, status)) in at.iter().zip(found) {
        chains[c] = ChainFate {
            status,
            layer: Layer::Playouts,
            confidence: 0.4,
            ..chains[c]
        };
    }
    settler.list_groups(&chains);
    settler.owl_fates.clear();
    settler.owl_fates.resize(chains.len(), None);
    for (&c, kill) in at.iter().zip(kills) {
        settler.owl_fates[c] = kill.map(|sure| (Status::Dead, sure));
    }
    settler.check_kills(&chains);
    at.map(|c| settler.owl_fates[c].is_some())
}

/// [`kills_standing_in`] of Black's corner group (found `walls`) and
/// White's stones inside it (found alive).
fn kills_standing(walls: Status, kills: [Option<f32>; 2]) -> [bool; 2] {
    kills_standing_in(
        STONES_INSIDE_A_DEAD_GROUP,
        [("dg", walls), ("eh", Status::Alive)],
        kills,
    )
}

/// Like [`STONES_INSIDE_A_DEAD_GROUP`] with a White stone (f8) that
/// touches no stone: the dead Black stones around it wall it in at a
/// distance, with White's frame on the far side of the same small area.
const A_STONE_APART_INSIDE_A_DEAD_GROUP: [&str; 8] = [
    ". . . .", ". . . .", ". . . .", ". . . .", "X X X X", "X . . X", ". . O .", "X . . X",
];

#[test]
fn a_kill_of_a_stone_apart_inside_a_dead_group_is_moot() {
    let inside = A_STONE_APART_INSIDE_A_DEAD_GROUP;
    let black = [
        ("df", Status::Dead),
        ("di", Status::Dead),
        ("gi", Status::Dead),
    ];
    let found = [black[0], black[1], black[2], ("fh", Status::Alive)];
    let kill = [None, None, None, Some(OWL_JUDGED)];
    assert_eq!(kills_standing_in(inside, found, kill), [false; 4]);
    // With Black's stones alive around it, the same kill stands.
    let found = [
        ("df", Status::Alive),
        ("di", Status::Alive),
        ("gi", Status::Alive),
        ("fh", Status::Alive),
    ];
    assert_eq!(
        kills_standing_in(inside, found, kill),
        [false, false, false, true]
    );
}

#[test]
fn a_kill_inside_a_dead_group_is_moot() {
    let kill = [None, Some(OWL_CONFIDENCE)];
    assert_eq!(kills_standing(Status::Dead, kill), [false, false]);
}

#[test]
fn a_kill_inside_a_living_group_stands() {
    let kill = [None, Some(OWL_CONFIDENCE)];
    assert_eq!(kills_standing(Status::Alive, kill), [false, true]);
}

#[test]
fn two_groups_in_contact_judged_dead_both_keep_the_layers_answer() {
    let kills = [Some(OWL_JUDGED), Some(OWL_JUDGED)];
    assert_eq!(kills_standing(Status::Alive, kills), [false, false]);
}

/// A proven kill of stones inside a group judged dead does not undo the
/// judgement; the stones inside then stand, as their owner's in his area.
#[test]
fn a_proven_kill_inside_a_group_judged_dead_is_no_contradiction() {
    let kills = [Some(OWL_JUDGED), Some(OWL_CONFIDENCE)];
    assert_eq!(kills_standing(Status::Alive, kills), [true, false]);
}

/// The chains anchored at `found` (SGF points) of `diagram` made open
/// (the static guess deciding, the playouts even) with the given guess,
/// then read by the group reader: their fates after it.
fn read_open<const N: usize>(diagram: &str, found: [(&str, Status); N]) -> [ChainFate; N] {
    read_found(diagram, found, Layer::Static, OPEN_CONFIDENCE)
}

/// [`read_open`], the chains decided by `layer` with `confidence`.
fn read_found<const N: usize>(
    diagram: &str,
    found: [(&str, Status); N],
    layer: Layer,
    confidence: f32,
) -> [ChainFate; N] {
    let (mut settler, position, mut chains) = settled(diagram);
    let at = found.map(|(sgf, _)| anchored(&chains, sgf));
    for (&c, (_, status)) in at.iter().zip(found) {
        chains[c] = ChainFate {
            status,
            layer,
            confidence,
            ..chains[c]
        };
    }
    let w = position.size().width() as usize;
    settler.read_groups(w, &mut chains);
    at.map(|c| chains[c])
}

#[test]
fn two_open_groups_in_seki_that_each_survive_the_other_live() {
    // The eyeless seki: Black's c1 group and White's e1 group share d1
    // and d2, and neither can take the other. Left open, with the guess
    // that Black is dead, the reading of each survives the other moving
    // first, so both live.
    let [black, white] = read_open(
        SEKI_WITHOUT_EYES,
        [("ca", Status::Dead), ("ea", Status::Dead)],
    );
    for f in [black, white] {
        assert_eq!(
            (f.status, f.layer),
            (Status::Alive, Layer::Reading),
            "{f:?}"
        );
        assert_eq!(f.confidence, OWL_JUDGED);
    }
}

#[test]
fn groups_the_playouts_lean_dead_that_each_survive_the_other_live() {
    // The same seki, the playouts five to three against both: the
    // reading, which each survives, decides them as it does open ones.
    let [black, white] = read_found(
        SEKI_WITHOUT_EYES,
        [("ca", Status::Dead), ("ea", Status::Dead)],
        Layer::Playouts,
        0.25,
    );
    for f in [black, white] {
        assert_eq!(
            (f.status, f.layer),
            (Status::Alive, Layer::Reading),
            "{f:?}"
        );
    }
}

/// Which chains keep the reader's "the attack fails" after
/// [`Settler::keep_mutual_lives`], in White's framed territory holding
/// `inside`, when the reader found it of the chains anchored at `lives`.
fn lives_kept<const N: usize>(inside: [&str; 8], lives: [&str; N]) -> [bool; N] {
    let (mut settler, position, chains) = settled(&framed(inside));
    let at = lives.map(|sgf| anchored(&chains, sgf));
    settler.owl_lives.clear();
    settler.owl_lives.resize(chains.len(), false);
    for &c in &at {
        settler.owl_lives[c] = true;
    }
    settler.keep_mutual_lives(position.size().width() as usize);
    at.map(|c| settler.owl_lives[c])
}

/// Black's block of four (df) and White's two stones touching it (fg),
/// and a lone White stone (fc) away from both (SGF points).
const TWO_IN_CONTACT_AND_ONE_APART: [&str; 8] = [
    ". . . .", ". . O .", ". . . .", ". . . .", "X X . .", "X X O .", ". . O .", ". . . .",
];

/// Black's chain (e3, f3, e4) beside White's stone f4, which is in atari
/// (its last liberty f5), and Black's lone stone g4.
const BESIDE_A_STONE_IN_ATARI: [&str; 8] = [
    ". . . .", ". X X .", ". X O X", ". . . .", ". . . .", ". . . .", ". . . .", ". . . .",
];

#[test]
fn a_failed_attack_stands_beside_a_stone_to_take_at_once() {
    // The group survives by taking f4 whoever moves first: that is no
    // attacker move the reader left out.
    assert_eq!(lives_kept(BESIDE_A_STONE_IN_ATARI, ["ec"]), [true]);
    // Without a stone in atari beside it, alone, it is not.
    assert_eq!(lives_kept(TWO_IN_CONTACT_AND_ONE_APART, ["df"]), [false]);
}

#[test]
fn a_failed_attack_stands_only_beside_a_partner_that_survives_too() {
    let inside = TWO_IN_CONTACT_AND_ONE_APART;
    // Touching: both keep it.
    assert_eq!(lives_kept(inside, ["df", "fg"]), [true, true]);
    // Alone, each loses it, and so does the stone apart.
    assert_eq!(lives_kept(inside, ["df"]), [false]);
    assert_eq!(lives_kept(inside, ["fg"]), [false]);
    assert_eq!(lives_kept(inside, ["fc"]), [false]);
    // A partner must be of the other colour and next to it.
    assert_eq!(lives_kept(inside, ["df", "fc"]), [false, false]);
}

/// Black stones in White's framed territory (SGF points): two touching
/// diagonally (ec, fd), one a jump from them (ff, over the empty fe), one
/// apart (ei), and a block of two (dg) to stand for a chain found sure.
const STONES_TO_SPLIT: [&str; 8] = [
    ". . . .", ". X . .", ". . X .", ". . . .", ". . X .", "X . . .", "X . . .", ". X . .",
];

/// The parts [`split_group`] makes of those chains read as one group,
/// when the block is found `block` (sure when `sure`), the others dead
/// and unsure: for each chain (by SGF anchor) its part, or none when it
/// is not read.
fn parts(block: Status, sure: bool) -> Vec<(String, Option<u32>)> {
    let (settler, _, mut chains) = settled(&framed(STONES_TO_SPLIT));
    let anchors = ["ec", "fd", "ff", "dg", "ei"];
    let at: Vec<usize> = anchors.iter().map(|a| anchored(&chains, a)).collect();
    for &c in &at {
        chains[c].status = Status::Dead;
        chains[c].layer = Layer::Playouts;
        chains[c].confidence = 0.4;
    }
    let block_at = at[3];
    chains[block_at].status = block;
    chains[block_at].confidence = if sure { 0.9 } else { 0.4 };
    let members: Vec<(u32, u32, u32)> = at
        .iter()
        .map(|&c| (0, chains[c].stones, c as u32))
        .collect();
    let mut out = Vec::new();
    split_group(&settler.statics, &members, &chains, &mut out);
    anchors
        .iter()
        .zip(&at)
        .map(|(a, &c)| {
            let part = out.iter().find(|&&(_, m)| m as usize == c).map(|&(p, _)| p);
            (a.to_string(), part)
        })
        .collect()
}

#[test]
fn a_group_without_a_sure_chain_is_read_whole() {
    let p = parts(Status::Dead, false);
    assert!(p.iter().all(|(_, part)| *part == Some(0)), "{p:?}");
}

#[test]
fn a_group_with_a_sure_chain_is_read_in_parts_without_it() {
    let p = parts(Status::Alive, true);
    let part = |a: &str| p.iter().find(|(x, _)| x == a).expect("listed").1;
    assert_eq!(part("dg"), None, "the sure block is not read: {p:?}");
    assert!(part("ec").is_some(), "{p:?}");
    assert_eq!(part("ec"), part("fd"), "diagonal: one part, {p:?}");
    assert_eq!(part("fd"), part("ff"), "a jump over an empty point: {p:?}");
    assert_ne!(part("ff"), part("ei"), "apart: {p:?}");
    assert!(part("ei").is_some(), "{p:?}");
}

#[test]
fn only_the_chains_found_dead_are_read_apart_from_a_sure_chain() {
    // The reader's kill of a part is trusted, its "fails" only beside a
    // partner: an unsure chain found alive stays with the sure one, whose
    // life the reading of its part would miss.
    let (settler, _, mut chains) = settled(&framed(STONES_TO_SPLIT));
    let [sure, alive, dead] = ["dg", "ei", "ec"].map(|a| anchored(&chains, a));
    for (c, status, confidence) in [
        (sure, Status::Alive, 0.9),
        (alive, Status::Alive, 0.4),
        (dead, Status::Dead, 0.4),
    ] {
        chains[c].status = status;
        chains[c].layer = Layer::Playouts;
        chains[c].confidence = confidence;
    }
    let members: Vec<(u32, u32, u32)> = [sure, alive, dead]
        .iter()
        .map(|&c| (0, chains[c].stones, c as u32))
        .collect();
    let mut parts = Vec::new();
    split_group(&settler.statics, &members, &chains, &mut parts);
    assert_eq!(parts, [(0, dead as u32)]);
}

#[test]
fn a_diagonal_across_two_opponent_stones_is_no_nearness() {
    let near = |inside: [&str; 8]| {
        let (settler, _, chains) = settled(&framed(inside));
        let [a, b] = ["ec", "fd"].map(|p| anchored(&chains, p));
        near_chains(&settler.statics, a, b)
    };
    let empty = ". . . .";
    let cut = [
        empty, ". X O .", ". O X .", empty, empty, empty, empty, empty,
    ];
    let open = [
        empty, ". X O .", ". . X .", empty, empty, empty, empty, empty,
    ];
    assert!(!near(cut), "both shoulders White's: cut");
    assert!(near(open), "one shoulder empty: near");
}

/// The open chains [`follow_parts`] lets follow, of STONES_TO_SPLIT read
/// as one group with the block (dg) sure and alive, the chains at `dead`
/// found dead by the playouts and those at `open` left open.
fn followers<const N: usize>(dead: &[&str], open: [&str; N]) -> [bool; N] {
    let (settler, _, mut chains) = settled(&framed(STONES_TO_SPLIT));
    let set = |chains: &mut [ChainFate], p: &str, status, layer, confidence| {
        let c = anchored(chains, p);
        chains[c] = ChainFate {
            status,
            layer,
            confidence,
            ..chains[c]
        };
        c as u32
    };
    let mut members = vec![set(&mut chains, "dg", Status::Alive, Layer::Playouts, 0.9)];
    for p in dead {
        members.push(set(&mut chains, p, Status::Dead, Layer::Playouts, 0.4));
    }
    let open = open.map(|p| {
        set(
            &mut chains,
            p,
            Status::Alive,
            Layer::Static,
            OPEN_CONFIDENCE,
        )
    });
    members.extend(open);
    let members: Vec<(u32, u32, u32)> = members.iter().map(|&c| (0, 1, c)).collect();
    let mut parts = Vec::new();
    assert!(split_group(&settler.statics, &members, &chains, &mut parts));
    let mut out = Vec::new();
    follow_parts(&settler.statics, &members, &chains, &parts, &mut out);
    open.map(|c| out.contains(&c))
}

#[test]
fn an_open_chain_near_dead_ones_follows_them_unless_near_a_living_one() {
    // ff is a jump from fd; ei touches the living block diagonally.
    assert_eq!(followers(&["ec", "fd"], ["ff", "ei"]), [true, false]);
    // Through an open chain that follows: ff is near fd only.
    assert_eq!(followers(&["ec"], ["fd", "ff"]), [true, true]);
    // Near no dead chain: the guess stands.
    assert_eq!(followers(&[], ["ff"]), [false]);
}

/// Black stones on an open board that are one group, each sharing a
/// liberty with the next (SGF points): db, ec and fd diagonally, ff a
/// jump from fd; White's line below.
const ONE_GROUP_OF_STONES: &str = "
    . . . . . . . . .
    . . . X . . . . .
    . . . . X . . . .
    . . . . . X . . .
    . . . . . . . . .
    . . . . . X . . .
    . . . . . . . . .
    O O O O O O O O O
    . . . . . . . . .";

#[test]
fn an_open_chain_that_follows_is_guessed_dead_and_stays_open() {
    // db found sure and alive, ec and fd dead, ff left open with the
    // guess alive (the group's, with db in it): ff follows fd.
    let (mut settler, position, mut chains) = settled(ONE_GROUP_OF_STONES);
    let group = |chains: &[ChainFate], p: &str| settler.statics.group(anchored(chains, p));
    assert!(
        ["ec", "fd", "ff"]
            .iter()
            .all(|p| group(&chains, p) == group(&chains, "db")),
        "the drawing is one group"
    );
    for (p, status, layer, confidence) in [
        ("db", Status::Alive, Layer::Playouts, 0.9),
        ("ec", Status::Dead, Layer::Playouts, 0.4),
        ("fd", Status::Dead, Layer::Playouts, 0.4),
        ("ff", Status::Alive, Layer::Static, OPEN_CONFIDENCE),
    ] {
        let c = anchored(&chains, p);
        chains[c] = ChainFate {
            status,
            layer,
            confidence,
            ..chains[c]
        };
    }
    let ff = anchored(&chains, "ff");
    settler.read_groups(position.size().width() as usize, &mut chains);
    let f = chains[ff];
    assert_eq!(f.status, Status::Dead, "{f:?}");
    assert!(f.is_open(), "still a guess: {f:?}");
}

/// Black's six stones on the top edge (e9, e8 to j8) and White's two
/// (g9, h9) share two liberties, f9 and j9, and Black has two more
/// outside (d9, d8). Once White fills those it looks like a seki, but
/// White throws in at f9, and the three stones Black must take (or White
/// takes six at j9) leave a straight three White kills from its middle.
pub(super) const FALSE_SEKI_ON_THE_EDGE: &str = "
    O . O . X . O O .
    . O . . X X X X X
    O O O . O O O O O
    O O O O O O O O O
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .";

#[test]
fn a_false_seki_on_the_edge_is_dead() {
    assert_dead_exactly(
        FALSE_SEKI_ON_THE_EDGE,
        &["ea", "eb", "fb", "gb", "hb", "ib"],
    );
}

#[test]
fn what_a_group_reading_makes_of_the_group() {
    use GroupReading::*;
    let of = |answer, exact, captor_died, holds_alive| {
        GroupReading::of(
            answer,
            Reading {
                exact,
                captor_died,
                holds_alive,
                reaches_friend: false,
            },
        )
    };
    let with_friend = |answer, exact| {
        GroupReading::of(
            answer,
            Reading {
                exact,
                reaches_friend: true,
                ..Reading::default()
            },
        )
    };
    assert_eq!(of(Attack::Kills, true, false, false), Dead(OWL_CONFIDENCE));
    assert_eq!(of(Attack::Kills, false, false, false), Dead(OWL_JUDGED));
    // A kill read to the end stands whatever the group holds.
    assert_eq!(of(Attack::Kills, false, false, true), Dead(OWL_JUDGED));
    // Out of budget: dead by judgement, the least sure death of the reader,
    // unless the group holds a chain the layers were sure was alive.
    assert_eq!(of(Attack::Unknown, false, false, false), Dead(OWL_UNREAD));
    assert_eq!(of(Attack::Unknown, false, false, true), Nothing);
    // Nor when a friend found alive is within reach: joining it is a way
    // to live the reading did not finish. A kill read to the end stands.
    assert_eq!(with_friend(Attack::Unknown, false), Nothing);
    assert_eq!(with_friend(Attack::Kills, true), Dead(OWL_CONFIDENCE));
    assert_eq!(with_friend(Attack::Kills, false), Dead(OWL_JUDGED));
    assert_eq!(of(Attack::Fails, false, true, false), CaptorDies);
    assert_eq!(of(Attack::Fails, true, true, false), CaptorDies);
    assert_eq!(of(Attack::Fails, true, false, false), Survives);
    // A failure by judgement counts only in a race (find_races_won).
    assert_eq!(of(Attack::Fails, false, false, false), Holds);
    assert_eq!(of(Attack::KoKills, true, false, false), Nothing);
    // Nor is a kill by the first move of a mutual atari, exact or not.
    assert_eq!(of(Attack::Tempo, true, false, false), Nothing);
    assert_eq!(of(Attack::Tempo, false, false, false), Nothing);
}

/// Black's block (e4-f4-e5) and White's two stones in contact (f5-f6)
/// inside White's framed territory, and White's lone stone apart (f8).
const RACE: [&str; 8] = [
    ". . . .", ". . . .", ". X X .", ". X O .", ". . O .", ". . . .", ". . O .", ". . . .",
];

/// [`RACE`] settled with the group reader's findings cleared, and the
/// block, the pair and the stone apart.
fn race_settled() -> (Settler, Vec<ChainFate>, (usize, usize, usize)) {
    let (mut settler, _, chains) = settled(&framed(RACE));
    let found = (
        anchored(&chains, "ed"),
        anchored(&chains, "fe"),
        anchored(&chains, "fh"),
    );
    settler.forget_readings(chains.len());
    (settler, chains, found)
}

#[test]
fn a_chain_proven_to_survive_beside_a_group_proven_dead_has_won_the_race() {
    let won = |kill: Option<f32>| {
        let (mut settler, chains, (block, pair, apart)) = race_settled();
        settler.owl_fates[block] = kill.map(|sure| (Status::Dead, sure));
        settler.owl_lives[pair] = true;
        settler.owl_lives[apart] = true;
        settler.find_races_won(&chains);
        (settler.owl_won[pair], settler.owl_won[apart])
    };
    assert_eq!(won(Some(OWL_CONFIDENCE)), (true, false));
    assert_eq!(
        won(Some(OWL_JUDGED)),
        (false, false),
        "a judged kill proves no race"
    );
    assert_eq!(won(None), (false, false));
}

#[test]
fn a_group_judged_to_survive_beside_a_group_proven_dead_wins_the_race_whole() {
    // White's pair survives every attack read, by judgement; Black's
    // block beside it is proven dead.
    let won = |holds: bool, apart_read_with_pair: bool| {
        let (mut settler, chains, (block, pair, apart)) = race_settled();
        settler.owl_fates[block] = Some((Status::Dead, OWL_CONFIDENCE));
        settler.owl_holds[pair] = holds;
        settler.owl_holds[apart] = holds;
        settler.owl_group[block] = 0;
        settler.owl_group[pair] = 1;
        settler.owl_group[apart] = if apart_read_with_pair { 1 } else { 2 };
        settler.find_races_won(&chains);
        (settler.owl_won[pair], settler.owl_won[apart])
    };
    assert_eq!(won(true, false), (true, false), "the race is the pair's");
    assert_eq!(
        won(true, true),
        (true, true),
        "read as one group, it wins whole"
    );
    assert_eq!(
        won(false, true),
        (false, false),
        "no failure read, no race won"
    );
}

#[test]
fn a_group_the_reader_found_to_survive_is_a_friend_to_the_groups_read_after_it() {
    let (settler, mut chains, (_, pair, apart)) = race_settled();
    let w = 9;
    for c in [pair, apart] {
        chains[c].status = Status::Dead;
        chains[c].layer = Layer::Playouts;
        chains[c].confidence = 0.3;
    }
    let mut lives = vec![false; chains.len()];
    lives[pair] = true;
    let standing = reading_standing(&settler.statics, &chains, &lives, w);
    let cell = |x: usize, y: usize| PlayoutBoard::cell(x, y);
    assert_eq!(standing(cell(5, 4)), Standing::Alive, "survived a reading");
    assert_eq!(standing(cell(5, 7)), Standing::Open, "not read alive");
    // The frame, pass-alive, stays sure.
    assert_eq!(standing(cell(2, 0)), Standing::Sure);
}

#[test]
fn outside_liberties_are_spent_but_not_the_points_joining_the_group() {
    // White's three stones in Black's closed area: the reading of a
    // group shut in keeps two of their liberties by the wall (b2, d2)
    // and fills the rest, but not c3 and e3, which join two of them.
    let d = "
        X X X X X X X X
        X . . . . . . X
        X O . O . O . X
        X X X X X X X X";
    let board = PlayoutBoard::from_diagram(d);
    let cells = (0..4).flat_map(|y| (0..8).map(move |x| PlayoutBoard::cell(x, y)));
    let mut fill = [0u16; CELLS];
    let n = spend_outside_liberties(&board, cells, 2, &mut fill, 0);
    let spent: Vec<(usize, usize)> = fill[..n]
        .iter()
        .map(|&c| PlayoutBoard::xy(usize::from(c)))
        .collect();
    assert_eq!(spent, [(5, 1), (6, 2)]);
}

/// Class 1's other side: Black's ring of seven around one eye (g4) in
/// the top right of a 13x13 board, an area of 72 points walled by White's
/// pass-alive group on the left and below, open at m9 onto Black's own
/// living group in the bottom right. The area is wide enough for a second
/// eye whoever moves first: GNU Go 3.8 agrees (`owl_attack` fails,
/// `final_status_list dead` is empty). The group reader's survey, asked
/// of this ring, judges it dead at its first position (it has no second
/// eye space of its own yet): reading more groups by that judgement would
/// kill this one, which is why the playouts' "alive" (0.8) is kept here.
pub(super) const ONE_EYED_RING_IN_A_WIDE_OPEN_AREA: &str = "
    . O . O . . . . . . . . .
    O O O O . . . . . . . . .
    . . . O . X X X . . . . .
    O O O O . X . X . . . . .
    . . . O . X X . . . . . .
    O O O O . . . . . . . . .
    . O . O . . . . . . . . .
    O O O O . . . . . . . . .
    . . . O O O O O O O O O .
    . . . . . . . . O X X X X
    . . . . . . . . O X . X .
    . . . . . . . . O X X X X
    . . . . . . . . O X . X .";

#[test]
fn a_one_eyed_ring_in_a_wide_open_area_lives_on_every_seed() {
    let position =
        Position::from_diagram(ONE_EYED_RING_IN_A_WIDE_OPEN_AREA).expect("a valid diagram");
    let mut out = Settlement::default();
    for seed in 0..16 {
        Settler::with_seed(seed).settle(&position, &mut out);
        assert!(out.dead.is_empty(), "seed {seed}: {:?}", out.dead);
    }
}

/// White's framed territory holding a lone Black stone in the open (fe)
/// and one on the edge in atari with no way out (fi: its last liberty
/// g9 is no liberty for it once played).
const A_LONE_STONE_AND_ONE_IN_ATARI: [&str; 8] = [
    ". . . .", ". . . .", ". . . .", ". . X .", ". . . .", ". . . .", ". O O O", ". O X .",
];

#[test]
fn a_proven_kill_overrules_playouts_up_to_four_to_one_and_a_judged_one_only_to_three() {
    let d = framed(A_LONE_STONE_AND_ONE_IN_ATARI);
    let read = |sgf: &str, confidence: f32| {
        let [f] = read_found(&d, [(sgf, Status::Alive)], Layer::Playouts, confidence);
        (f.status, f.layer, f.confidence)
    };
    // The stone in atari is captured whoever moves: a proof, taken even
    // where the playouts leaned alive between three and four to one.
    for confidence in [0.45, 0.55] {
        assert_eq!(
            read("fi", confidence),
            (Status::Dead, Layer::Reading, OWL_CONFIDENCE)
        );
    }
    // The lone stone cannot make two eyes: a judgement, which decides it
    // only where the playouts were closer than three to one.
    assert_eq!(read("fe", 0.45), (Status::Dead, Layer::Reading, OWL_JUDGED));
    assert_eq!(read("fe", 0.55), (Status::Alive, Layer::Playouts, 0.55));
    // Beyond four to one the reader is not asked.
    assert_eq!(read("fi", 0.65), (Status::Alive, Layer::Playouts, 0.65));
}

#[test]
fn a_proven_kill_of_a_group_holding_a_living_chain_leaves_chains_leaning_alive() {
    let leaning = |confidence: f32| ChainFate {
        anchor: Point::from_sgf(*b"aa").expect("a point"),
        color: Color::Black,
        stones: 3,
        status: Status::Alive,
        layer: Layer::Playouts,
        confidence,
    };
    // Closer than three to one, every kill of the reader's counts.
    assert!(taken_kill(&leaning(0.5), OWL_JUDGED, true));
    // Between three and four to one, only a proof against a group with
    // no chain found alive with confidence.
    assert!(taken_kill(&leaning(0.55), OWL_CONFIDENCE, false));
    assert!(!taken_kill(&leaning(0.55), OWL_CONFIDENCE, true));
    assert!(!taken_kill(&leaning(0.55), OWL_JUDGED, false));
    assert!(!taken_kill(&leaning(0.55), OWL_UNREAD, false));
}

/// Black's eight stones from c9 hold the straight three d9-f9 against
/// White's lone stone on g9 and White's two stones from h8, which cut
/// them off from Black's j8 and the living group below. Each of White's
/// cutting stones has two liberties and Black's eight have three: Black
/// lives by taking them, whoever moves first.
const SURVIVOR_AND_ITS_CUTTERS: &str = "
    O O X . . . O . .
    O X X X X X X O X
    O O O O O O X O .
    . . . . . O O X X
    . X . . . O X X .
    . . . . . O X . .
    O O O O O O X . .
    X X X X X X X . .
    . . . . . . . . .";

#[test]
fn the_cutters_beside_a_group_that_survives_are_read_and_its_race_won() {
    let (mut settler, position, mut chains) = settled(SURVIVOR_AND_ITS_CUTTERS);
    let w = position.size().width() as usize;
    let m = chains.len();
    let [black, g9, h8] = ["ca", "ga", "hb"].map(|sgf| anchored(&chains, sgf));
    // As the layers left them in a game where the cutters were read with
    // White's living group and never on their own: Black's group guessed
    // dead, the cutters guessed alive, all open.
    for (c, status) in [
        (black, Status::Dead),
        (g9, Status::Alive),
        (h8, Status::Alive),
    ] {
        chains[c] = ChainFate {
            status,
            layer: Layer::Static,
            confidence: OPEN_CONFIDENCE,
            ..chains[c]
        };
    }
    let cutters_killed = |settler: &mut Settler, survives: bool| {
        settler.forget_readings(m);
        settler.owl_lives[black] = survives;
        let mut read = 0;
        settler.read_opponents_of_survivors(w, &chains, owl::POSITION_POOL, &mut read);
        settler.find_races_won(&chains);
        (
            [g9, h8].map(|c| settler.owl_fates[c]),
            settler.owl_won[black],
        )
    };
    // Nothing beside a group found to survive: the cutters are not read.
    assert_eq!(cutters_killed(&mut settler, false), ([None, None], false));
    // Black's group found to survive every attack: with it standing, each
    // cutter is proven taken, and Black's group has won its race.
    let dead = Some((Status::Dead, OWL_CONFIDENCE));
    assert_eq!(cutters_killed(&mut settler, true), ([dead, dead], true));
}

#[test]
fn a_survivor_beside_a_chain_the_tactical_reader_takes_wins_its_race() {
    let (mut settler, _, mut chains) = settled(SURVIVOR_AND_ITS_CUTTERS);
    let m = chains.len();
    let [black, g9, h8] = ["ca", "ga", "hb"].map(|sgf| anchored(&chains, sgf));
    // The other cutter left open, as the layers may leave it.
    chains[h8] = ChainFate {
        status: Status::Alive,
        layer: Layer::Static,
        confidence: OPEN_CONFIDENCE,
        ..chains[h8]
    };
    let race_won = |settler: &mut Settler, chains: &[ChainFate], survives: bool| {
        settler.forget_readings(m);
        settler.owl_lives[black] = survives;
        settler.find_races_won(chains);
        settler.owl_won[black]
    };
    let cutter = chains[g9];
    let cutter_found = |layer: Layer, confidence: f32| ChainFate {
        status: Status::Dead,
        layer,
        confidence,
        ..cutter
    };
    // The cutter captured by force before the group reader: a race the
    // group that survives has won, and only such a group's.
    chains[g9] = cutter_found(Layer::Reading, READING_CONFIDENCE);
    assert!(race_won(&mut settler, &chains, true));
    assert!(!race_won(&mut settler, &chains, false));
    // The playouts' death, however lopsided, is no proof; nor is a
    // tempo fight settled by convention.
    chains[g9] = cutter_found(Layer::Playouts, 0.95);
    assert!(!race_won(&mut settler, &chains, true));
    chains[g9] = cutter_found(Layer::Reading, TEMPO_CONFIDENCE);
    assert!(!race_won(&mut settler, &chains, true));
}
