//! Positions drawn by hand, each checked against counts worked out on paper.

use super::*;
use crate::{ByColor, Point};

fn pt(s: &str) -> Point {
    let b = s.as_bytes();
    Point::from_sgf([b[0], b[1]]).unwrap()
}

/// RULES.md section 7 (seed 004), rows from the top. c2 is a dead black
/// stone: in SGF coordinates column c, row 6 from the top = `cf`.
const SEED_7X7: &str = "
7  . X . X X O .
6  . X X X O . O
5  . . X O O O O
4  X X X X O X O
3  O O O X X X X
2  O . X O O X X
1  . O O O O O X
   a b c d e f g";

#[test]
fn seed_7x7_example_counts_as_the_essay_says() {
    let pos = Position::from_diagram(SEED_7X7).unwrap();
    let mut counter = Counter::new();
    let c = counter.count(&pos, &[pt("cf")]);
    assert_eq!(c.dead, ByColor::new(1, 0));
    assert_eq!(c.stones, ByColor::new(19, 20));
    assert_eq!(c.territory, ByColor::new(5, 5));
    assert_eq!((c.area(Color::Black), c.area(Color::White)), (24, 25));
    assert_eq!(c.units, ByColor::new(1, 2));
    assert_eq!(c.basic_eyes, ByColor::new(2, 4));
    // Living stones: area minus basic eyes.
    assert_eq!(c.area(Color::Black) - c.basic_eyes.black, 22);
    assert_eq!(c.area(Color::White) - c.basic_eyes.white, 21);
    assert_eq!(
        (c.shared, c.seki_liberties, c.fills),
        (0, 0, ByColor::new(0, 0))
    );

    // Each side made 21 moves and captured one stone during play; no komi.
    let terms = Terms {
        placed: ByColor::new(21, 21),
        captures: ByColor::new(1, 1),
        handicap: 0,
        komi: 0.0,
    };
    let v = verdicts(&c, &terms);
    let get = |r: RuleSet| v.iter().find(|x| x.rule_set == r).copied().unwrap();
    assert_eq!(get(RuleSet::JpdB).margin, -1.0);
    assert_eq!(get(RuleSet::JpdB).winner, Winner::White);
    assert_eq!(get(RuleSet::JpdA).margin, -1.0);
    assert_eq!(get(RuleSet::JhzB).margin, 1.0);
    assert_eq!(get(RuleSet::JhzB).winner, Winner::Black);
    assert_eq!(get(RuleSet::JhzA).margin, 1.0);
    // Territory + prisoners: (5 + 1) - (5 + 1 + 1 dead) = -1, as jpd_a.
    assert_eq!(get(RuleSet::Japanese).margin, -1.0);
}

/// Two eyeless groups share two liberties (d0, d1): seki. Each outer wall
/// has two eyes.
const SEKI_NO_EYES: &str = "
. O X . O X .
O O X . O X X
O X X X O O X
. O O O X X .
. O O O X X .";

#[test]
fn seki_without_eyes() {
    let pos = Position::from_diagram(SEKI_NO_EYES).unwrap();
    let mut counter = Counter::new();
    let c = counter.count(&pos, &[]);
    assert_eq!(c.stones, ByColor::new(13, 14));
    assert_eq!(c.territory, ByColor::new(3, 3));
    assert_eq!((c.shared, c.seki_liberties), (2, 2));
    assert_eq!(c.seki_stones, ByColor::new(5, 4));
    assert_eq!(c.seki_eyes, ByColor::new(0, 0));
    // The seki groups are units of their own with b = min(0, 2 - 2) = 0.
    assert_eq!(c.units, ByColor::new(2, 2));
    assert_eq!(c.basic_eyes, ByColor::new(2, 2));
    assert_eq!(c.fills, ByColor::new(0, 0));
    let states = counter.states();
    assert_eq!(states[3], PointState::SekiLiberty);
    assert_eq!(states[7 + 3], PointState::SekiLiberty);
    assert_eq!(states[0], PointState::Territory(Color::White));
    assert_eq!(states[6], PointState::Territory(Color::Black));
}

/// The same seki, but each inner group owns a one-point eye and they share
/// one liberty: `s = 1`, so each inner unit keeps `b = min(1, 1) = 1`, and
/// the eyes are seki eyes (area, not Japanese territory).
const SEKI_WITH_EYES: &str = "
. O X . X . O . O
. O X X X X O O O
O O O O O O X X X
. O O O X X X . X
O O . O X . X X X";

#[test]
fn seki_with_eyes() {
    let pos = Position::from_diagram(SEKI_WITH_EYES).unwrap();
    let mut counter = Counter::new();
    let c = counter.count(&pos, &[]);
    let states = counter.states();
    let at = |x: usize, y: usize| states[y * 9 + x];
    assert_eq!(at(5, 0), PointState::SekiLiberty, "{states:?}");
    assert_eq!(c.seki_liberties, 1);
    assert_eq!(at(3, 0), PointState::SekiEye(Color::Black));
    assert_eq!(at(7, 0), PointState::SekiEye(Color::White));
    assert_eq!(c.seki_eyes, ByColor::new(1, 1));
    // Inner units keep one basic eye each, the outer walls two.
    assert_eq!(c.basic_eyes, ByColor::new(1 + 2, 1 + 2));
}

#[test]
fn dead_stones_inside_territory_become_territory_and_prisoners() {
    let pos = Position::from_diagram(
        "
        . . X O . .
        . X X O O O
        X X . O O .
        . X X O . .",
    )
    .unwrap();
    let mut counter = Counter::new();
    // Empty and off-board points in a dead list remove nothing.
    let c = counter.count(&pos, &[pt("aa"), pt("cc"), pt("dy")]);
    assert_eq!(c.dead, ByColor::new(0, 0));
    assert_eq!(c.territory, ByColor::new(4, 5));
    assert_eq!(c.shared, 1);
    // Now White's left wall is dead: every point is Black's.
    let dead: Vec<Point> = ["da", "db", "eb", "fb", "dc", "ec", "dd"]
        .iter()
        .map(|s| pt(s))
        .collect();
    let c = counter.count(&pos, &dead);
    assert_eq!(c.dead, ByColor::new(0, 7));
    assert_eq!(c.stones, ByColor::new(7, 0));
    assert_eq!(c.territory, ByColor::new(17, 0));
    let terms = Terms {
        placed: ByColor::new(7, 7),
        captures: ByColor::new(0, 0),
        handicap: 0,
        komi: 6.5,
    };
    let japanese = verdict(RuleSet::Japanese, &c, &terms);
    assert_eq!(japanese.margin_before_komi, 17 + 7);
    assert_eq!(verdict(RuleSet::JpdB, &c, &terms).margin_before_komi, 24);
    // Tromp-Taylor removes nothing: the white stones still count for White.
    let tt = verdict(RuleSet::TrompTaylor, &c, &terms);
    assert_eq!(tt.margin_before_komi, (7 + 4) - (7 + 5));
}

#[test]
fn handicap_bonus_per_rule_set() {
    let pos = Position::from_diagram("X O\nX O").unwrap();
    let c = Counter::new().count(&pos, &[]);
    let terms = |handicap| Terms {
        placed: ByColor::new(2, 2),
        captures: ByColor::default(),
        handicap,
        komi: 0.5,
    };
    for (rule, h4) in [
        (RuleSet::Chinese, 4),
        (RuleSet::JpdB, 4),
        (RuleSet::JhzB, 4),
        (RuleSet::Ing, 4),
        (RuleSet::Aga, 3),
        (RuleSet::Japanese, 0),
        (RuleSet::JpdA, 0),
    ] {
        let v = verdict(rule, &c, &terms(4));
        assert_eq!(v.handicap_bonus, h4, "{rule}");
        assert_eq!(v.margin, -0.5 - h4 as f64, "{rule}");
        // One stone is no handicap.
        assert_eq!(verdict(rule, &c, &terms(1)).handicap_bonus, 0, "{rule}");
    }
}

#[test]
fn komi_and_the_handicap_bonus_move_a_margin_to_white() {
    // A count of 10 for Black, four handicap stones, komi 0.5.
    for (rule, margin) in [
        (RuleSet::Chinese, 5.5),
        (RuleSet::Aga, 6.5),
        (RuleSet::Japanese, 9.5),
        (RuleSet::JpdA, 9.5),
    ] {
        assert_eq!(rule.margin(10, 0.5, 4), margin, "{rule}");
        assert_eq!(
            rule.margin(10, 0.5, 1),
            9.5,
            "{rule}: one stone is no handicap"
        );
    }
    assert_eq!(
        RuleSet::Chinese.margin(-3, -2.5, 0),
        -0.5,
        "negative komi helps White less"
    );
    assert_eq!(
        Winner::of_margin(RuleSet::Chinese.margin(7, 7.0, 0)),
        Winner::Draw
    );
}

#[test]
fn a_verdict_is_its_rule_set_s_margin_and_moves_with_komi() {
    let pos = Position::from_diagram("X X . O\nX . X O\nX X O O").unwrap();
    let c = Counter::new().count(&pos, &[]);
    for handicap in [0, 3] {
        let terms = Terms {
            placed: ByColor::new(6, 4),
            captures: ByColor::new(1, 0),
            handicap,
            komi: 6.5,
        };
        for v in verdicts(&c, &terms) {
            let r = v.rule_set;
            assert_eq!(
                v.margin,
                r.margin(v.margin_before_komi, 6.5, handicap),
                "{r}"
            );
            assert_eq!(v.margin_at(6.5), v.margin, "{r}");
            assert_eq!(
                v.margin_at(0.5),
                r.margin(v.margin_before_komi, 0.5, handicap),
                "{r}"
            );
            assert_eq!(v.margin_at(0.5) - v.margin, 6.0, "{r}");
        }
    }
}

#[test]
fn a_edition_charges_the_extra_stone_of_the_last_move() {
    let pos = Position::from_diagram("X . O\nX . O").unwrap();
    let c = Counter::new().count(&pos, &[]);
    // Black placed the last stone: one more than White up to the stop.
    let terms = Terms {
        placed: ByColor::new(3, 2),
        captures: ByColor::default(),
        handicap: 0,
        komi: 0.0,
    };
    let a = verdict(RuleSet::JpdA, &c, &terms).margin;
    let b = verdict(RuleSet::JpdB, &c, &terms).margin;
    assert_eq!(a, b - 1.0);
    // Passes before the end: Black placed two more (N_B - N_W = 2).
    let terms = Terms {
        placed: ByColor::new(4, 2),
        ..terms
    };
    assert_eq!(verdict(RuleSet::JpdA, &c, &terms).margin, b - 2.0);
    assert_eq!(
        verdict(RuleSet::JhzA, &c, &terms).margin,
        verdict(RuleSet::JhzB, &c, &terms).margin - 2.0
    );
}

#[test]
fn false_eye_must_be_filled_under_territory_counting() {
    // White's c0 stone is cut off by the black stone at c1: its only
    // liberty d0 lies inside White's own territory, so White must fill it.
    let pos = Position::from_diagram(
        "
        . X O . O O . .
        X X X O O . . .
        . X O O . . . .
        X X O . . . . .
        . X O . . . . .",
    )
    .unwrap();
    let mut counter = Counter::new();
    let c = counter.count(&pos, &[]);
    assert_eq!(c.territory, ByColor::new(3, 20));
    assert_eq!(c.fills, ByColor::new(0, 1));
    assert_eq!(counter.states()[3], PointState::Fill(Color::White));
    let terms = Terms {
        placed: ByColor::new(13, 15),
        captures: ByColor::default(),
        handicap: 0,
        komi: 0.0,
    };
    let area = verdict(RuleSet::JpdB, &c, &terms).margin_before_komi;
    // The fill costs White one point under jpd_a and Japanese, not under area.
    assert_eq!(
        verdict(RuleSet::JpdA, &c, &terms).margin_before_komi,
        area - (13 - 15) + 1
    );
    let japanese = (c.territory.black as i64) - (c.territory.white as i64 - 1);
    assert_eq!(
        verdict(RuleSet::Japanese, &c, &terms).margin_before_komi,
        japanese
    );
}

/// KGS 2017-02-13-1, bottom right: White's corner has one eye (d1, d2) and
/// shares f2 with two black stones whose only eye is g1. Both are alive by
/// the marks and neither can make two eyes, so they live in seki: White's
/// eye is not territory, although White could fill f2 without self-atari.
const ONE_EYE_EACH: &str = "
. . X . X X .
. . X X O X X
. X X O O O O
X X O . O . X
X O O . O X .";

#[test]
fn one_eyed_units_sharing_a_point_are_in_seki() {
    let pos = Position::from_diagram(ONE_EYE_EACH).unwrap();
    let mut counter = Counter::new();
    let c = counter.count(&pos, &[]);
    let at = |x: usize, y: usize| counter.states()[y * 7 + x];
    assert_eq!((c.shared, c.seki_liberties), (1, 0));
    assert_eq!(at(3, 3), PointState::SekiEye(Color::White));
    assert_eq!(at(3, 4), PointState::SekiEye(Color::White));
    assert_eq!(c.seki_eyes, ByColor::new(0, 2));
    // g1 is Black's to fill once White fills f2; the black wall keeps its
    // territory (a5 region, d5, g5).
    assert_eq!(at(6, 4), PointState::Fill(Color::Black));
    assert_eq!(c.fills, ByColor::new(1, 0));
    assert_eq!(at(3, 0), PointState::Territory(Color::Black));
}
