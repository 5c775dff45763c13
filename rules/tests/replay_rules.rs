//! Replay of whole records: legality under every family, problems, accounting.

use verdict_rules::board::Board;
use verdict_rules::game::{Game, Handicap, HandicapSource, MidSetup, SetupStone};
use verdict_rules::info::GameInfo;
use verdict_rules::replay::{
    replay, FamilyVerdict, IllegalMove, IllegalReason, KoRule, Legality, ReplayReport, Replayer,
    Suicide,
};
use verdict_rules::{ByColor, Color, Move, Point, Problem, Problems};

fn pt(sgf: &str) -> Point {
    let b = sgf.as_bytes();
    Point::from_sgf([b[0], b[1]]).unwrap()
}

/// `B[cc] W[] ...`: SGF-like moves, `[]` a pass.
fn moves(text: &str) -> Vec<Move> {
    text.split_whitespace()
        .map(|tok| {
            let color = match &tok[..1] {
                "B" => Color::Black,
                "W" => Color::White,
                _ => panic!("bad move {tok}"),
            };
            match &tok[2..tok.len() - 1] {
                "" => Move::pass(color),
                p => Move::play(color, pt(p)),
            }
        })
        .collect()
}

fn setup_of(board: &Board) -> Vec<SetupStone> {
    board
        .points()
        .filter_map(|p| {
            board.get(p).map(|c| SetupStone {
                point: p,
                color: Some(c),
            })
        })
        .collect()
}

/// A game whose root setup is the diagram's stones.
fn game(diagram: &str, record: &str) -> Game<'static> {
    let board = Board::from_diagram(diagram).unwrap();
    Game {
        size: board.size(),
        info: GameInfo::default(),
        first_player: None,
        setup: setup_of(&board),
        moves: moves(record),
        mid_setups: vec![],
        handicap: Handicap::NONE,
        territory_marks: None,
        variations: 0,
        problems: Problems::NONE,
        dajiefang: None,
    }
}

/// Replays, checks what must always hold, and returns the final board too.
fn run(game: &Game) -> (Board, ReplayReport) {
    let (board, report) = replay(game);
    board.validate().unwrap();
    let acc = &report.accounting;
    assert!(acc.is_conserved(), "{acc:#?}");
    assert_eq!(acc.on_board, board.stone_counts());
    assert_eq!(acc.moves as usize, game.moves.len());
    // A reused replayer gives the same answer as a fresh one.
    let mut reused = Replayer::new();
    reused.replay(&game_on_other_board());
    assert_eq!(reused.replay(game), report);
    assert_eq!(*reused.board(), board);
    (board, report)
}

fn game_on_other_board() -> Game<'static> {
    game(
        ".X.O.
         XO.OX
         .....",
        "B[cb] W[ca] B[] W[] B[ac]",
    )
}

fn illegal(move_index: u32, reason: IllegalReason) -> FamilyVerdict {
    FamilyVerdict {
        first_illegal: Some(IllegalMove { move_index, reason }),
        illegal_moves: 1,
    }
}

fn legal() -> FamilyVerdict {
    FamilyVerdict::default()
}

/// The ten verdicts by id, for readable failures.
fn verdicts(report: &ReplayReport) -> Vec<(&'static str, FamilyVerdict)> {
    report
        .legality
        .by_family()
        .map(|(l, v)| (l.id(), *v))
        .collect()
}

fn expect(report: &ReplayReport, expected: [(&'static str, FamilyVerdict); 10]) {
    assert_eq!(verdicts(report), expected.to_vec());
}

const KO: &str = "
    . X O . . .
    X O . O . .
    . X O . . .
    . . . . . .
    . . . . . .";

#[test]
fn families_have_stable_ids_and_indices() {
    for (i, l) in Legality::ALL.into_iter().enumerate() {
        assert_eq!(l.index(), i);
        assert_eq!(Legality::from_id(l.id()), Some(l));
        assert_eq!(l.to_string(), l.id());
    }
    assert_eq!(
        Legality::from_id("nosuicide_psk_clear"),
        Some(Legality::SEED)
    );
    assert_eq!(Legality::CHINESE.id(), "nosuicide_psk");
    assert_eq!(Legality::JAPANESE.id(), "nosuicide_simple");
    assert_eq!(Legality::AGA.id(), "nosuicide_ssk");
    assert_eq!(Legality::NEW_ZEALAND.id(), "suicide_ssk");
    assert_eq!(Legality::TROMP_TAYLOR.id(), "suicide_psk");
    assert_eq!(Legality::ING, Legality::NEW_ZEALAND);
    // Clearing means nothing without a history.
    let simple_clear = Legality::new(Suicide::Allowed, KoRule::Simple, true);
    assert_eq!(
        simple_clear.index(),
        Legality::new(Suicide::Allowed, KoRule::Simple, false).index()
    );
}

#[test]
fn a_clean_game_is_legal_everywhere() {
    let g = game(
        ".....
         .....
         .....",
        "B[bb] W[db] B[cc] W[] B[]",
    );
    let (_, report) = run(&g);
    assert!(report.legality.all_legal());
    assert!(report.problems.is_empty());
}

#[test]
fn captures_are_counted_by_the_capturer() {
    let g = game(
        ".XOX.
         XO.OX
         .XOX.
         .....",
        "B[cb] W[ad]",
    );
    let (board, report) = run(&g);
    assert!(report.legality.all_legal());
    // The lower stone has a liberty on the fourth row: three of four go.
    assert_eq!(report.accounting.captures, ByColor::new(3, 0));
    assert_eq!(report.accounting.setup_stones, ByColor::new(6, 4));
    assert_eq!(board.stones(Color::White), 2);
}

#[test]
fn snapback_is_legal_everywhere() {
    let g = game(
        "OOOOO.
         OXXXO.
         OX..O.",
        "W[cc] B[dc] W[cc]",
    );
    let (board, report) = run(&g);
    assert!(report.legality.all_legal(), "{:?}", verdicts(&report));
    assert_eq!(report.accounting.captures, ByColor::new(1, 5));
    assert_eq!(board.stones(Color::Black), 0);
}

#[test]
fn single_stone_suicide() {
    let g = game(
        ".O.
         O..
         ...",
        "B[aa] W[cc]",
    );
    let (board, report) = run(&g);
    assert_eq!(board.get(pt("aa")), None);
    assert_eq!(report.accounting.suicided, ByColor::new(1, 0));
    assert_eq!(report.accounting.captures, ByColor::new(0, 0));
    assert_eq!(report.accounting.placed_total.black, 1);
    assert!(report.problems.contains(Problem::Suicide));
    // A one-stone suicide leaves the board as it was: positional superko
    // rejects it when suicide is allowed, situational superko does not (the
    // side to move changed).
    let s = illegal(0, IllegalReason::Suicide);
    let k = illegal(0, IllegalReason::Superko);
    expect(
        &report,
        [
            ("nosuicide_simple", s),
            ("nosuicide_psk", s),
            ("nosuicide_psk_clear", s),
            ("nosuicide_ssk", s),
            ("nosuicide_ssk_clear", s),
            ("suicide_simple", legal()),
            ("suicide_psk", k),
            ("suicide_psk_clear", k),
            ("suicide_ssk", legal()),
            ("suicide_ssk_clear", legal()),
        ],
    );
    assert!(report.problems.contains(Problem::Superko));
    assert!(report.legality[Legality::NEW_ZEALAND].is_legal());
    assert!(!report.legality[Legality::TROMP_TAYLOR].is_legal());
}

#[test]
fn multi_stone_suicide() {
    let g = game(
        "X.O.
         OO..
         ....",
        "B[ba]",
    );
    let (board, report) = run(&g);
    assert_eq!(board.stones(Color::Black), 0);
    assert_eq!(report.accounting.suicided, ByColor::new(2, 0));
    assert_eq!(report.problems, [Problem::Suicide].into_iter().collect());
    for (l, v) in report.legality.by_family() {
        match l.suicide {
            Suicide::Forbidden => assert_eq!(*v, illegal(0, IllegalReason::Suicide)),
            Suicide::Allowed => assert!(v.is_legal(), "{l}"),
        }
    }
}

#[test]
fn immediate_ko_retake() {
    let g = game(KO, "B[cb] W[bb]");
    let (board, report) = run(&g);
    assert_eq!(board, Board::from_diagram(KO).unwrap());
    for (l, v) in report.legality.by_family() {
        let reason = match l.ko {
            KoRule::Simple => IllegalReason::Ko,
            _ => IllegalReason::Superko,
        };
        assert_eq!(*v, illegal(1, reason), "{l}");
    }
    assert_eq!(
        report.problems,
        [Problem::Ko, Problem::Superko].into_iter().collect()
    );
    assert_eq!(report.accounting.captures, ByColor::new(1, 1));
}

#[test]
fn ko_retake_after_a_threat() {
    let g = game(KO, "B[cb] W[ee] B[ed] W[bb]");
    let (board, report) = run(&g);
    assert!(report.legality.all_legal(), "{:?}", verdicts(&report));
    assert!(report.problems.is_empty());
    assert_eq!(board.get(pt("bb")), Some(Color::White));
}

#[test]
fn ko_is_only_for_the_opponent_at_once() {
    // White fills elsewhere, then Black connects at the ko point: no retake.
    let g = game(KO, "B[cb] W[ee] B[bb]");
    let (_, report) = run(&g);
    assert!(report.legality.all_legal());
}

const TRIPLE_KO: &str = "
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . X O . .
    X . X O .
    . X O . .
    . . . . .
    . X O . .
    X O . O .
    . X O . .";

#[test]
fn triple_ko_cycle_is_legal_only_under_simple_ko() {
    // Each side takes a ko in turn; after six moves the whole board and the
    // side to move are back where they started.
    let g = game(TRIPLE_KO, "B[cb] W[bf] B[cj] W[bb] B[cf] W[bj] B[cb]");
    let (board, report) = run(&g);
    let after_cycle = Board::from_diagram(TRIPLE_KO).unwrap();
    assert_ne!(board, after_cycle);
    let k = FamilyVerdict {
        first_illegal: Some(IllegalMove {
            move_index: 5,
            reason: IllegalReason::Superko,
        }),
        // The seventh move repeats too.
        illegal_moves: 2,
    };
    expect(
        &report,
        [
            ("nosuicide_simple", legal()),
            ("nosuicide_psk", k),
            ("nosuicide_psk_clear", k),
            ("nosuicide_ssk", k),
            ("nosuicide_ssk_clear", k),
            ("suicide_simple", legal()),
            ("suicide_psk", k),
            ("suicide_psk_clear", k),
            ("suicide_ssk", k),
            ("suicide_ssk_clear", k),
        ],
    );
    assert_eq!(report.problems, [Problem::Superko].into_iter().collect());
    assert_eq!(report.accounting.captures, ByColor::new(4, 3));
}

const DOUBLE_KO: &str = "
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . X O . .
    X . X O .
    . X O . .";

#[test]
fn repetition_with_the_other_side_to_move_is_only_positional() {
    // Black's pass makes the cycle odd: the first board comes back with White
    // to move instead of Black.
    let g = game(DOUBLE_KO, "B[cb] W[bf] B[] W[bb] B[cf]");
    let (board, report) = run(&g);
    assert_eq!(board, Board::from_diagram(DOUBLE_KO).unwrap());
    let k = illegal(4, IllegalReason::Superko);
    expect(
        &report,
        [
            ("nosuicide_simple", legal()),
            ("nosuicide_psk", k),
            ("nosuicide_psk_clear", k),
            ("nosuicide_ssk", legal()),
            ("nosuicide_ssk_clear", legal()),
            ("suicide_simple", legal()),
            ("suicide_psk", k),
            ("suicide_psk_clear", k),
            ("suicide_ssk", legal()),
            ("suicide_ssk_clear", legal()),
        ],
    );
    assert!(report.legality[Legality::AGA].is_legal());
    assert!(!report.legality[Legality::CHINESE].is_legal());
}

#[test]
fn history_is_cleared_at_a_stop_under_the_seed_rules() {
    // Black takes the ko, both pass (a stop), White retakes at once.
    let g = game(KO, "B[cb] W[] B[] W[bb]");
    let (_, report) = run(&g);
    let k = illegal(3, IllegalReason::Superko);
    expect(
        &report,
        [
            ("nosuicide_simple", legal()),
            ("nosuicide_psk", k),
            ("nosuicide_psk_clear", legal()),
            ("nosuicide_ssk", k),
            ("nosuicide_ssk_clear", legal()),
            ("suicide_simple", legal()),
            ("suicide_psk", k),
            ("suicide_psk_clear", legal()),
            ("suicide_ssk", k),
            ("suicide_ssk_clear", legal()),
        ],
    );
    assert!(report.legality[Legality::SEED].is_legal());
    assert!(!report.legality[Legality::CHINESE].is_legal());
    assert!(report.legality[Legality::JAPANESE].is_legal());
    let acc = &report.accounting;
    assert_eq!(acc.first_stop, Some(2));
    assert!(acc.resumed_after_stop);
    assert_eq!(acc.placed_to_first_stop, ByColor::new(3 + 1, 4));
    assert_eq!(acc.placed_total, ByColor::new(3 + 1, 4 + 1));
}

#[test]
fn cleared_history_still_holds_the_stop_position() {
    // After the stop White takes the ko back, then Black retakes at once: the
    // position after the stop is in the fresh history, so the clearing
    // families reject the retake too.
    let g = game(KO, "B[cb] W[] B[] W[bb] B[cb]");
    let (_, report) = run(&g);
    assert_eq!(
        report.legality[Legality::SEED],
        illegal(4, IllegalReason::Superko)
    );
    assert_eq!(
        report.legality[Legality::JAPANESE],
        illegal(4, IllegalReason::Ko)
    );
    assert_eq!(report.legality[Legality::CHINESE].illegal_moves, 2);
}

#[test]
fn occupied_point_is_skipped_and_replay_goes_on() {
    let g = game(
        "...
         ...
         ...",
        "B[aa] W[aa] B[bb] W[cc]",
    );
    let (board, report) = run(&g);
    for (_, v) in report.legality.by_family() {
        assert_eq!(*v, illegal(1, IllegalReason::Occupied));
    }
    assert_eq!(report.problems, [Problem::Occupied].into_iter().collect());
    assert_eq!(report.accounting.skipped_moves, 1);
    assert_eq!(report.accounting.placed_total, ByColor::new(2, 1));
    assert_eq!(board.get(pt("aa")), Some(Color::Black));
    assert_eq!(board.get(pt("cc")), Some(Color::White));
}

#[test]
fn off_board_point_is_skipped() {
    let g = game(
        "...
         ...",
        "B[aa] W[dd] B[bb]",
    );
    let (board, report) = run(&g);
    assert_eq!(
        report.legality[Legality::CHINESE],
        illegal(1, IllegalReason::OffBoard)
    );
    assert!(report.problems.contains(Problem::Occupied));
    assert!(!report.problems.contains(Problem::OutOfTurn));
    assert_eq!(board.stones(Color::Black), 2);
}

#[test]
fn move_out_of_turn_is_an_implicit_pass() {
    let g = game(
        "...
         ...
         ...",
        "B[aa] B[bb] W[cc]",
    );
    let (board, report) = run(&g);
    assert!(report.legality.all_legal());
    assert_eq!(report.problems, [Problem::OutOfTurn].into_iter().collect());
    let acc = &report.accounting;
    assert_eq!(acc.implicit_passes, ByColor::new(0, 1));
    assert_eq!(acc.passes, ByColor::new(0, 0));
    assert_eq!(acc.stops, 0);
    assert_eq!(board.stones(Color::Black), 2);
}

#[test]
fn an_implicit_pass_can_complete_a_stop() {
    // White passes, then moves again: Black is read as passing in between.
    let g = game(
        "...
         ...
         ...",
        "B[aa] W[] W[cc]",
    );
    let (_, report) = run(&g);
    let acc = &report.accounting;
    assert_eq!(acc.implicit_passes, ByColor::new(1, 0));
    assert_eq!((acc.stops, acc.first_stop), (1, Some(2)));
    assert!(acc.resumed_after_stop);
    assert_eq!(acc.placed_to_first_stop, ByColor::new(1, 0));
}

#[test]
fn white_may_move_first() {
    let g = game(
        "...
         ...",
        "W[aa] B[bb]",
    );
    let (_, report) = run(&g);
    assert!(report.problems.is_empty());
    assert_eq!(report.accounting.last_to_move, Some(Color::Black));
    assert_eq!(report.accounting.to_move, Color::White);
}

#[test]
fn handicap_placed_by_opening_moves_is_not_out_of_turn() {
    let record = "B[dd] W[] B[pp] B[dp] W[pd] B[qq]";
    let g = game(&format!("{}\n", ".".repeat(19)).repeat(19), record);
    assert!(g.setup.is_empty());
    let (_, plain) = run(&g);
    assert!(plain.problems.contains(Problem::OutOfTurn));

    let mut g = g;
    g.handicap = Handicap {
        stones: 3,
        source: HandicapSource::OpeningMoves,
        opening_moves: 4,
    };
    let (_, report) = run(&g);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let acc = &report.accounting;
    assert_eq!(acc.implicit_passes, ByColor::new(0, 0));
    assert_eq!(acc.passes, ByColor::new(0, 1));
    assert_eq!(acc.placed_total, ByColor::new(4, 1));
    assert_eq!(acc.stops, 0);
}

#[test]
fn mid_game_setup_is_applied_before_its_move() {
    let mut g = game(
        "....
         ....
         ....",
        "B[aa] W[bb] B[dd] W[ac]",
    );
    g.mid_setups = vec![MidSetup {
        before_move: 2,
        stones: vec![
            SetupStone {
                point: pt("cc"),
                color: Some(Color::Black),
            },
            SetupStone {
                point: pt("aa"),
                color: None,
            },
            // Off the board (3 rows): ignored, the builder flags it.
            SetupStone {
                point: pt("ad"),
                color: Some(Color::Black),
            },
        ],
    }];
    let (board, report) = run(&g);
    // The move B[dd] is off this 4x3 board; the rest is played.
    assert_eq!(report.accounting.skipped_moves, 1);
    assert_eq!(
        board,
        Board::from_diagram(
            "....
             .O..
             O.X."
        )
        .unwrap()
    );
    let acc = &report.accounting;
    assert_eq!(acc.setup_stones, ByColor::new(1, 0));
    assert_eq!(acc.setup_removed, ByColor::new(1, 0));
    assert!(!report.problems.contains(Problem::MidGameSetup));
}

#[test]
fn mid_game_setup_after_the_last_move_is_applied() {
    let mut g = game("...\n...", "B[aa]");
    g.mid_setups = vec![MidSetup {
        before_move: 1,
        stones: vec![SetupStone {
            point: pt("ba"),
            color: Some(Color::White),
        }],
    }];
    let (board, _) = run(&g);
    assert_eq!(board.get(pt("ba")), Some(Color::White));
}

#[test]
fn setup_without_liberties_is_removed_and_flagged() {
    let g = game(
        ".X.
         XOX
         .X.",
        "B[aa]",
    );
    let (board, report) = run(&g);
    assert_eq!(board.get(pt("bb")), None);
    assert_eq!(
        report.problems,
        [Problem::SetupNoLiberty].into_iter().collect()
    );
    let acc = &report.accounting;
    assert_eq!(acc.setup_removed, ByColor::new(0, 1));
    assert_eq!(acc.setup_stones, ByColor::new(4, 1));
    assert_eq!(acc.placed_to_first_stop, ByColor::new(5, 1));
}

#[test]
fn accounting_follows_stops_and_resumed_play() {
    let g = game(
        "...
         ...
         ...",
        "B[aa] W[bb] B[cc] W[] B[] W[ca] B[] W[] B[]",
    );
    let (_, report) = run(&g);
    let acc = &report.accounting;
    assert_eq!(acc.placed_to_first_stop, ByColor::new(2, 1));
    assert_eq!(acc.placed_total, ByColor::new(2, 2));
    assert_eq!(acc.passes, ByColor::new(3, 2));
    assert_eq!(acc.stops, 2);
    assert_eq!(acc.first_stop, Some(4));
    assert_eq!(acc.last_stop, Some(7));
    assert!(acc.resumed_after_stop);
    assert_eq!(acc.last_mover, Some(Color::White));
    assert_eq!(acc.last_to_move, Some(Color::Black));
    assert_eq!(acc.to_move, Color::White);
    assert_eq!(acc.moves, 9);
}

#[test]
fn trailing_passes_are_not_resumed_play() {
    let g = game("...\n...", "B[aa] W[] B[] W[]");
    let (_, report) = run(&g);
    let acc = &report.accounting;
    assert_eq!((acc.stops, acc.first_stop), (1, Some(2)));
    assert!(!acc.resumed_after_stop);
}

#[test]
fn empty_record_uses_pl() {
    let mut g = game("...\n...", "");
    g.first_player = Some(Color::White);
    let (_, report) = run(&g);
    assert_eq!(report.accounting.to_move, Color::White);
    assert_eq!(report.accounting.last_to_move, None);
}
