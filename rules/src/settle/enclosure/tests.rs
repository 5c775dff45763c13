//! Enclosures drawn by hand. The wall is every attacker stone not
//! listed as inside, taken as pass-alive.

use super::*;

fn board(diagram: &str) -> PlayoutBoard {
    PlayoutBoard::from_diagram(diagram)
}

/// Reads the defender chain on (x, y). Attacker stones on `inside`
/// points are inside the enclosure, those on `plain` points are a wall
/// that is not pass-alive, and the others are a pass-alive wall.
fn read_with(
    diagram: &str,
    at: (usize, usize),
    inside: &[(usize, usize)],
    plain: &[(usize, usize)],
) -> Answer {
    read_in(
        &mut Enclosures::default(),
        &board(diagram),
        at,
        inside,
        plain,
        &[],
    )
}

/// [`read_with`] on a board, with the enclosure kept in `e`.
fn read_in(
    e: &mut Enclosures,
    b: &PlayoutBoard,
    (x, y): (usize, usize),
    inside: &[(usize, usize)],
    plain: &[(usize, usize)],
    prisoners: &[(usize, usize)],
) -> Answer {
    let cell = PlayoutBoard::cell(x, y);
    let defender = b.stone(cell);
    let heads = |points: &[(usize, usize)]| -> Vec<usize> {
        points
            .iter()
            .map(|&(x, y)| b.head_of(PlayoutBoard::cell(x, y)))
            .collect()
    };
    let (inner, plain, prisoners) = (heads(inside), heads(plain), heads(prisoners));
    e.read(b, cell, |n| {
        if prisoners.contains(&b.head_of(n)) {
            Role::Prisoner
        } else if b.stone(n) == defender || inner.contains(&b.head_of(n)) {
            Role::Inside
        } else if plain.contains(&b.head_of(n)) {
            Role::Wall
        } else {
            Role::SureWall
        }
    })
}

/// Reads the defender on `at`, then whether it takes every attacker
/// stone inside.
fn read_and_take(diagram: &str, at: (usize, usize), inside: &[(usize, usize)]) -> (Answer, bool) {
    let b = board(diagram);
    let mut e = Enclosures::default();
    let verdict = read_in(&mut e, &b, at, inside, &[], &[]);
    (verdict, e.takes_inside(&b))
}

fn read(diagram: &str, at: (usize, usize), inside: &[(usize, usize)]) -> Answer {
    read_with(diagram, at, inside, &[])
}

/// The bottom right of KGS 2017-02-13-1 (the settler's own test of it
/// is on the same diagram): White's two chains share two liberties on the
/// left, and two Black stones sit in the space on the right. Whoever fills
/// a shared point first loses: seki.
use crate::settle::tests::SEKI_WITH_STONES_INSIDE as SEKI_WITH_TWO_INSIDE;

#[test]
fn seki_with_stones_inside_stands() {
    assert_eq!(
        read(SEKI_WITH_TWO_INSIDE, (4, 2), &[(6, 3), (5, 4)]),
        Answer::Stands
    );
}

#[test]
fn stones_whose_other_liberty_is_a_pocket_are_no_wall() {
    // The two Black stones on the right, taken for a wall, would cut the
    // empty corner point off the enclosure: White could not play there,
    // and would lose the seki. They are inside instead.
    assert_eq!(
        read_with(SEKI_WITH_TWO_INSIDE, (4, 2), &[], &[(6, 3), (5, 4)]),
        Answer::Stands
    );
}

/// White's corner has one eye, two points, and a liberty at e9 between
/// Black's wall and Black's f9. That stone's only empty point outside
/// is f8; its other neighbour outside is g9, a White stone in atari.
const WALL_NEXT_TO_A_PRISONER: &str = "
    O O O O . X O . X
    O . . O X . X X X
    O O O O X . . . .
    X X X X X . . . .
    . . . . . . . . .";

#[test]
fn a_dead_stone_next_to_a_wall_is_room_for_it() {
    let walls = [(4, 1), (5, 0), (6, 1)];
    // g9 known dead: f9 has room enough (f8 and g9) to stand as a
    // wall, and the corner dies as a two-point eye does.
    let b = board(WALL_NEXT_TO_A_PRISONER);
    let mut e = Enclosures::default();
    let verdict = read_in(&mut e, &b, (0, 0), &[], &walls, &[(6, 0)]);
    assert_eq!(verdict, Answer::Dies);
    // Not known dead, g9 is the defender's: f9 has one liberty
    // outside, joins the inside, and the space opens onto the whole
    // board, too big to read.
    assert_eq!(
        read_with(WALL_NEXT_TO_A_PRISONER, (0, 0), &[], &walls),
        Answer::Open
    );
}

#[test]
fn a_dead_stone_whose_liberties_are_the_walls_own_is_no_room() {
    let head = |b: &PlayoutBoard, x, y| b.head_of(PlayoutBoard::cell(x, y));
    // White's b9 has one liberty, c9, which Black's chain also has.
    let b = board(
        "
        X O .
        X X X
        . . .",
    );
    assert!(cornered(&b, head(&b, 1, 0), head(&b, 0, 0)));
    // Without c8, c9 is b9's alone: taking b9 there is room gained.
    let b = board(
        "
        X O .
        X X .
        . . .",
    );
    assert!(!cornered(&b, head(&b, 1, 0), head(&b, 0, 0)));
}

/// A White ring around `eye` (one row of the middle), walled in by
/// Black.
fn ring(eye: &str) -> String {
    let n = eye.split_whitespace().count() + 4;
    let full = vec!["X"; n].join(" ");
    let ring = format!("X {} X", vec!["O"; n - 2].join(" "));
    format!("{full}\n{ring}\nX O {eye} O X\n{ring}\n{full}")
}

#[test]
fn straight_three_dies_to_its_vital_point() {
    assert_eq!(read(&ring(". . ."), (1, 1), &[]), Answer::Dies);
}

#[test]
fn a_stone_inside_a_three_point_eye_kills() {
    assert_eq!(read(&ring("X . ."), (1, 1), &[(2, 2)]), Answer::Dies);
}

#[test]
fn two_eyes_stand() {
    assert_eq!(read(&ring(". O ."), (1, 1), &[]), Answer::Stands);
}

#[test]
fn straight_four_stands() {
    assert_eq!(read(&ring(". . . ."), (1, 1), &[]), Answer::Stands);
}

#[test]
fn an_open_group_is_not_read() {
    // The ring's wall has a gap: the space runs out to the open board.
    let d = "
        X X X . X X X . . .
        X O O O O O X . . .
        X O . . . O X . . .
        X O O O O O . . . .
        X X X X X X . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .";
    assert_eq!(read(d, (1, 1), &[]), Answer::Open);
}

/// The top right of KGS 2017-01-21-19: Black's chain has no liberty
/// outside White's wall, only its eye (i2) and the points it shares
/// with White's six stones inside, which have no eye. Black cannot be
/// killed, and moving first it takes them all: they are dead.
const RACE_WITHOUT_OUTSIDE_LIBERTIES: &str = "
    O O O O X X X X X
    O . O X X . O X .
    O O O X . O O X X
    X X X X O . O X O
    X X X X . O X O O
    O X O X X X X O O
    O O O O X O O O O";

#[test]
fn a_chain_with_no_liberty_outside_takes_the_stones_inside() {
    let inside = [(6, 1), (4, 3), (5, 4)];
    assert_eq!(
        read_and_take(RACE_WITHOUT_OUTSIDE_LIBERTIES, (4, 0), &inside),
        (Answer::Stands, true)
    );
}

/// Black's group (two eyes) holds a White stone at f5 in atari; its
/// only liberty, f6, is a pocket in White's wall.
const TAKEN_IN_A_KO: &str = "
    O O O O O O O O
    O X X X X X X O
    O X . X . X X O
    O X X X X X X O
    O X X X X O X O
    O O O O O . O O
    O O O O O O O O
    . . . . . . . .";

#[test]
fn a_stone_taken_only_in_a_ko_is_left_standing() {
    // Taking f5 at f6 leaves Black's stone there with one liberty: a
    // ko, which the game left open. With an empty point below f6 the
    // same capture is for good.
    assert_eq!(
        read_and_take(TAKEN_IN_A_KO, (1, 1), &[(5, 4)]),
        (Answer::Stands, false)
    );
    let no_ko = "
        O O O O O O O O
        O X X X X X X O
        O X . X . X X O
        O X X X X X X O
        O X X X X O X O
        O O O O O . O O
        O O O O O . O O
        O O O O O O O O";
    assert_eq!(
        read_and_take(no_ko, (1, 1), &[(5, 4)]),
        (Answer::Stands, true)
    );
}

/// The top right of KGS 2017-01-22-34: White's two chains (f1-e2-f2-e3
/// and h2-g3-h3-h4-i4) and the stone d1 have no eye; Black's stones
/// inside (g1-h1, i2) share their liberties. Black kills, but only by
/// a long forcing line (c1 puts d1 in atari, taking it at e1 puts the
/// big chain in atari, then the race), which a full-width search of
/// the same budget never reached.
const LONG_RACE: &str = "
    X X . O . O X X .
    X X X X O O . O X
    X X X X O X O O .
    X X X X X X X O O
    X X X X X X X X X
    . . . . . . . . .";

#[test]
fn a_kill_by_a_long_forcing_line_is_found() {
    assert_eq!(read(LONG_RACE, (5, 0), &[(6, 0), (8, 1)]), Answer::Dies);
}
