//! Layer 5 of settling: the record's result picks between statuses the
//! settler could not separate, and nothing else.

use verdict_rules::analyse::open_statuses_from_result;
use verdict_rules::score::{verdict, Counter, Position, RuleSet, Terms};
use verdict_rules::settle::{ChainFate, Layer, Settlement, Status};
use verdict_rules::{ByColor, Color, Point};

/// Black's wall on column c, White's on d; two lone White stones inside
/// Black's side, at a7 (ac) and a2 (ah), are the chains under question.
const BOARD: &str = "
    . . X O . . . . .
    . . X O . . . . .
    O . X O . . . . .
    . . X O . . . . .
    . . X O . . . . .
    . . X O . . . . .
    . . X O . . . . .
    O . X O . . . . .
    . . X O . . . . .";

fn pt(s: &str) -> Point {
    let b = s.as_bytes();
    Point::from_sgf([b[0], b[1]]).unwrap()
}

fn fate(anchor: &str, color: Color, status: Status, layer: Layer, confidence: f32) -> ChainFate {
    ChainFate {
        anchor: pt(anchor),
        color,
        stones: 1,
        status,
        layer,
        confidence,
    }
}

fn terms() -> Terms {
    Terms {
        placed: ByColor::new(10, 10),
        captures: ByColor::new(0, 0),
        handicap: 0,
        komi: 0.0,
    }
}

fn margin(position: &Position, dead: &[Point]) -> f64 {
    let counts = Counter::new().count(position, dead);
    verdict(RuleSet::Chinese, &counts, &terms()).margin
}

#[test]
fn the_result_decides_an_open_chain_and_only_an_open_one() {
    let position = Position::from_diagram(BOARD).unwrap();
    // The settler left a2 undecided and was sure a7 is alive (wrongly, but
    // sure is sure).
    let settlement = Settlement {
        dead: Vec::new(),
        chains: vec![
            fate("ac", Color::White, Status::Alive, Layer::Playouts, 0.9),
            fate("ah", Color::White, Status::Alive, Layer::Static, 0.5),
        ],
    };
    let one_dead = margin(&position, &[pt("ah")]);
    let as_settled = margin(&position, &[]);
    assert_ne!(one_dead, as_settled);
    let mut counter = Counter::new();
    let dead = open_statuses_from_result(
        &settlement,
        &mut counter,
        &position,
        &terms(),
        RuleSet::Chinese,
        one_dead,
    );
    assert_eq!(dead, Some(vec![pt("ah")]));

    // A result only a change to the sure chain could explain is not
    // explained: the settler's answer stands.
    let both_dead = margin(&position, &[pt("ac"), pt("ah")]);
    assert_ne!(both_dead, one_dead);
    let dead = open_statuses_from_result(
        &settlement,
        &mut counter,
        &position,
        &terms(),
        RuleSet::Chinese,
        both_dead,
    );
    assert_eq!(dead, None);
}

#[test]
fn nothing_open_nothing_changed() {
    let position = Position::from_diagram(BOARD).unwrap();
    let settlement = Settlement {
        dead: Vec::new(),
        chains: vec![fate(
            "ah",
            Color::White,
            Status::Alive,
            Layer::Playouts,
            0.7,
        )],
    };
    let dead = open_statuses_from_result(
        &settlement,
        &mut Counter::new(),
        &position,
        &terms(),
        RuleSet::Chinese,
        margin(&position, &[pt("ah")]),
    );
    assert_eq!(dead, None);
}

/// The report's bounds: every doubtful chain decided the other way at once,
/// a sure one left as it is, and the counter's answer for that position.
#[test]
fn doubtful_chains_are_flipped_together_and_sure_ones_stay() {
    use verdict_rules::analyse::flip_doubtful;
    let position = Position::from_diagram(BOARD).unwrap();
    // a7 alive for sure; a2 alive on an open guess; so a2 alone flips.
    let settlement = Settlement {
        dead: Vec::new(),
        chains: vec![
            fate("ac", Color::White, Status::Alive, Layer::Playouts, 0.9),
            fate("ah", Color::White, Status::Alive, Layer::Static, 0.5),
        ],
    };
    let flipped = flip_doubtful(&settlement, &mut Counter::new(), &position, &[], &terms())
        .expect("a doubtful chain");
    assert_eq!(flipped.chains, 1);
    let chinese = flipped.verdicts[RuleSet::ALL
        .iter()
        .position(|r| *r == RuleSet::Chinese)
        .unwrap()];
    assert_eq!(chinese.margin, margin(&position, &[pt("ah")]));

    // Dead on weak playouts (lost in 70% of them: confidence 0.4) comes
    // back to life, and the open one dies, in the same count.
    let settlement = Settlement {
        dead: vec![pt("ac")],
        chains: vec![
            fate("ac", Color::White, Status::Dead, Layer::Playouts, 0.4),
            fate("ah", Color::White, Status::Alive, Layer::Static, 0.5),
        ],
    };
    let flipped = flip_doubtful(
        &settlement,
        &mut Counter::new(),
        &position,
        &[pt("ac")],
        &terms(),
    )
    .expect("doubtful chains");
    assert_eq!(flipped.chains, 2);
    assert_eq!(
        flipped.verdicts[4].margin,
        margin(&position, &[pt("ah")]),
        "{:?}",
        flipped.verdicts[4]
    );

    // Nothing doubtful: nothing to flip (a tempo fight at 0.6 would be).
    let sure = Settlement {
        dead: Vec::new(),
        chains: vec![fate(
            "ah",
            Color::White,
            Status::Alive,
            Layer::Playouts,
            0.7,
        )],
    };
    assert_eq!(
        flip_doubtful(&sure, &mut Counter::new(), &position, &[], &terms()),
        None
    );
    let tempo = Settlement {
        dead: Vec::new(),
        chains: vec![fate("ah", Color::White, Status::Alive, Layer::Reading, 0.6)],
    };
    assert!(flip_doubtful(&tempo, &mut Counter::new(), &position, &[], &terms()).is_some());
}
