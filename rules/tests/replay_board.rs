//! The board on its own: captures, suicide, ko points, setup, diagrams.

use verdict_rules::board::{Board, PlayError};
use verdict_rules::{BoardSize, Color, Point};

fn pt(sgf: &str) -> Point {
    let b = sgf.as_bytes();
    Point::from_sgf([b[0], b[1]]).unwrap()
}

fn board(diagram: &str) -> Board {
    let b = Board::from_diagram(diagram).unwrap();
    b.validate().unwrap();
    b
}

fn assert_shows(board: &Board, diagram: &str) {
    assert_eq!(*board, Board::from_diagram(diagram).unwrap(), "\n{board}");
    board.validate().unwrap();
}

#[test]
fn single_capture_in_the_middle() {
    let mut b = board(
        ".....
         ..X..
         .XO..
         ..X..
         .....",
    );
    let out = b.play(Color::Black, pt("dc")).unwrap();
    assert_eq!(out.captured, 1);
    assert_eq!(out.single_capture, Some(pt("cc")));
    // The capturing stone keeps three liberties: no ko.
    assert_eq!(out.ko, None);
    assert!(!out.is_suicide());
    assert_eq!(b.stones(Color::White), 0);
    assert_eq!(b.stones(Color::Black), 4);
    assert_shows(
        &b,
        ".....
         ..X..
         .X.X.
         ..X..
         .....",
    );
}

#[test]
fn four_chains_captured_at_once() {
    let mut b = board(
        ".XOX.
         XO.OX
         .XOX.",
    );
    let out = b.play(Color::Black, pt("cb")).unwrap();
    assert_eq!(out.captured, 4);
    assert_eq!(out.single_capture, None);
    assert_eq!(out.ko, None);
    assert_shows(
        &b,
        ".X.X.
         X.X.X
         .X.X.",
    );
}

#[test]
fn corner_and_edge_captures() {
    let mut b = board(
        "OX.XOX.
         .......
         .......",
    );
    assert_eq!(b.play(Color::Black, pt("ab")).unwrap().captured, 1);
    assert_eq!(b.get(pt("aa")), None);
    assert_eq!(b.play(Color::Black, pt("eb")).unwrap().captured, 1);
    assert_shows(
        &b,
        ".X.X.X.
         X...X..
         .......",
    );
}

#[test]
fn capturing_gives_liberties_back_to_the_capturer() {
    let mut b = board(
        "XXO..
         OO...
         .....",
    );
    assert_eq!(b.liberties(pt("ca")), 2);
    assert_eq!(
        b.play(Color::White, pt("ab")).unwrap_err(),
        PlayError::Occupied(pt("ab"))
    );
    let out = b.play(Color::White, pt("ca")).unwrap_err();
    assert_eq!(out, PlayError::Occupied(pt("ca")));
    // Drawn without liberties: a setup position, fixed up explicitly.
    let removed = b.remove_chains_without_liberties();
    assert_eq!((removed.black, removed.white), (2, 0));
    assert_eq!(b.liberties(pt("ca")), 3);
    assert_eq!(b.liberties(pt("ab")), 5);
    b.validate().unwrap();
}

#[test]
fn snapback() {
    let mut b = board(
        "OOOOO.
         OXXXO.
         OX..O.",
    );
    // White throws in; Black takes one stone and is left in atari.
    assert_eq!(b.play(Color::White, pt("cc")).unwrap().captured, 0);
    let take = b.play(Color::Black, pt("dc")).unwrap();
    assert_eq!(take.captured, 1);
    assert_eq!(take.ko, None, "a five-stone chain in atari is no ko");
    assert_eq!(b.liberties(pt("bb")), 1);
    // White takes five back at the same point.
    let back = b.play(Color::White, pt("cc")).unwrap();
    assert_eq!(back.captured, 5);
    assert_shows(
        &b,
        "OOOOO.
         O...O.
         O.O.O.",
    );
}

#[test]
fn single_stone_suicide_removes_the_stone() {
    let mut b = board(
        ".O.
         O..
         ...",
    );
    let before = b.hash();
    let out = b.play(Color::Black, pt("aa")).unwrap();
    assert_eq!(out.suicided, 1);
    assert_eq!(out.captured, 0);
    assert!(out.is_suicide());
    assert_eq!(b.hash(), before);
    assert_eq!(b.stones(Color::Black), 0);
    b.validate().unwrap();
}

#[test]
fn multi_stone_suicide_removes_the_chain() {
    let mut b = board(
        "X.O.
         OO..
         ....",
    );
    let out = b.play(Color::Black, pt("ba")).unwrap();
    assert_eq!(out.suicided, 2);
    assert_shows(
        &b,
        "..O.
         OO..
         ....",
    );
}

#[test]
fn capture_beats_suicide() {
    let mut b = board(
        ".XO.
         XO..
         O...",
    );
    // White's stone has no liberty when put down, but it takes both black
    // stones first.
    let out = b.play(Color::White, pt("aa")).unwrap();
    assert_eq!((out.captured, out.suicided), (2, 0));
    assert_eq!(out.single_capture, None);
    assert_shows(
        &b,
        "O.O.
         .O..
         O...",
    );
}

#[test]
fn ko_point_and_retake() {
    let mut b = board(
        ".XO.
         XO.O
         .XO.",
    );
    let take = b.play(Color::Black, pt("cb")).unwrap();
    assert_eq!(take.ko, Some(pt("bb")));
    let retake = b.play(Color::White, pt("bb")).unwrap();
    assert_eq!(retake.ko, Some(pt("cb")));
    assert_shows(
        &b,
        ".XO.
         XO.O
         .XO.",
    );
}

#[test]
fn occupied_and_off_board_leave_the_board_unchanged() {
    let mut b = board(
        "X..
         ...",
    );
    let before = b.clone();
    assert_eq!(
        b.play(Color::White, pt("aa")),
        Err(PlayError::Occupied(pt("aa")))
    );
    assert_eq!(
        b.play(Color::White, pt("ad")),
        Err(PlayError::OffBoard(pt("ad")))
    );
    assert_eq!(b.set(pt("da"), None), Err(PlayError::OffBoard(pt("da"))));
    assert_eq!(b, before);
    assert_eq!(b.hash(), before.hash());
}

#[test]
fn setup_overwrites_and_erases() {
    let mut b = board(
        "XXX.
         ....",
    );
    assert_eq!(b.set(pt("ba"), Some(Color::White)), Ok(Some(Color::Black)));
    assert_eq!(b.chain_len(pt("aa")), 1);
    assert_eq!(b.set(pt("aa"), None), Ok(Some(Color::Black)));
    assert_eq!(b.set(pt("aa"), None), Ok(None));
    assert_shows(
        &b,
        ".OX.
         ....",
    );
    assert_eq!(b.hash(), b.recompute_hash());
}

#[test]
fn setup_chains_without_liberties_are_found_together() {
    // Both chains are surrounded; neither is removed "first".
    let mut b = board(
        "XO
         XO",
    );
    assert_eq!(b.chains_without_liberties().count(), 2);
    let removed = b.remove_chains_without_liberties();
    assert_eq!((removed.black, removed.white), (2, 2));
    assert_eq!(b.chains_without_liberties().count(), 0);
    assert_eq!(b.hash(), 0);
}

#[test]
fn exact_liberties_and_chain_walks() {
    let b = board(
        ".....
         .XX..
         .X.X.
         .....",
    );
    // The chain {bb, cb, bc} shares cc with the lone stone at dc.
    assert_eq!(b.liberties(pt("bb")), 7);
    assert_eq!(b.liberties(pt("dc")), 4);
    assert_eq!(b.liberties(pt("aa")), 0);
    let mut chain: Vec<Point> = b.chain(pt("cb")).collect();
    chain.sort();
    assert_eq!(chain, vec![pt("bb"), pt("bc"), pt("cb")]);
    assert_eq!(b.chain_len(pt("bc")), 3);
    assert_eq!(b.chain(pt("aa")).count(), 0);
    assert_eq!(b.chains().count(), 2);
    assert_eq!(b.chain_id(pt("bb")), b.chain_id(pt("bc")));
    assert_ne!(b.chain_id(pt("bb")), b.chain_id(pt("dc")));
    let mut libs = Vec::new();
    b.for_each_liberty(pt("dc"), |p| libs.push(p));
    libs.sort();
    assert_eq!(libs, vec![pt("cc"), pt("db"), pt("dd"), pt("ec")]);
    assert!(b.has_liberty(pt("bb")));
}

#[test]
fn neighbours_respect_edges_of_non_square_boards() {
    let b = Board::new(BoardSize::new(2, 25).unwrap());
    assert_eq!(b.neighbors(pt("ay")).count(), 2);
    assert_eq!(b.neighbors(pt("bm")).count(), 3);
    assert_eq!(b.neighbors(pt("cc")).count(), 0);
}

#[test]
fn diagrams_round_trip() {
    let text = "X.O\n.OX\n...\nXXO\n";
    let b = Board::from_diagram(text).unwrap();
    assert_eq!(b.to_string(), text);
    assert_eq!(b.size(), BoardSize::new(3, 4).unwrap());
    assert_eq!(text.parse::<Board>().unwrap(), b);
    assert!(Board::from_diagram("X.\n...").is_err());
    assert!(Board::from_diagram("X?").is_err());
    assert!(Board::from_diagram("X").is_err());
    assert!(format!("{b:?}").contains("3x4"));
}

#[test]
fn largest_board_fills_up() {
    let size = BoardSize::square(25).unwrap();
    let mut b = Board::new(size);
    for p in size.iter() {
        if (p.x() + p.y()) % 3 != 0 {
            b.play(Color::Black, p).unwrap();
        }
    }
    b.validate().unwrap();
    // Diagonal bands two stones wide: {ba, ab, ca, bb, ac} touches aa and the
    // diagonal x + y = 3.
    assert_eq!(b.chain_len(pt("ba")), 5);
    assert_eq!(b.liberties(pt("ba")), 5);
    assert_eq!(b.chains().count(), 16);
}
