//! 大解放 records (RULES.md section 6): the worked example, every kind of
//! move, the end by four 虚着, impossible moves, and scoring.
//!
//! Every record here is written by hand and every expected value worked out
//! on paper from the section's definitions (positions include the stones
//! beside the board; a moving move creates an intermediate and a final
//! position, both of which must be new).

use verdict_rules::analyse::{Analyser, DeadSource, KomiPolicy};
use verdict_rules::dajiefang::{Illegal, IllegalMove, Impossible, Origin, Replayer, Report, Stage};
use verdict_rules::game::Game;
use verdict_rules::score::RuleSet;
use verdict_rules::sgf::Reader;
use verdict_rules::{ByColor, Color, Point, Problem};

/// The lower left corner of RULES.md section 6 (seed 003, figure 1), Black
/// to move.
const FIGURE_1: &str = "(;SZ[9]RU[Dajiefang]AB[ee][fe][ff][eg]AW[de][cf][ef][cg][dg]PL[B]";

fn replay(text: &str) -> (Report, Vec<IllegalMove>) {
    let sgf = Reader::new(text.as_bytes()).next().expect("one game");
    let game = Game::from_sgf(&sgf, text.as_bytes()).expect("replayable");
    let record = game.dajiefang.as_ref().expect("a variant record");
    let mut replayer = Replayer::new();
    let report = replayer.replay(&game, record);
    assert!(report.accounting.is_conserved(), "{text}");
    (report, replayer.illegal_moves().to_vec())
}

fn with_moves(moves: &str) -> String {
    format!("{FIGURE_1}{moves})")
}

fn pt(s: &str) -> Point {
    let b = s.as_bytes();
    Point::from_sgf([b[0], b[1]]).unwrap()
}

#[test]
fn black_takes_the_ko() {
    let (report, illegal) = replay(&with_moves(";B[df]"));
    assert!(illegal.is_empty(), "{illegal:?}");
    assert_eq!(report.accounting.captures, ByColor::new(1, 0));
    // Setup stones count as placed on the board (N_X), as in section 2.
    assert_eq!(report.accounting.placed_on_board(), ByColor::new(5, 5));
}

#[test]
fn a_placing_retake_recreates_figure_1() {
    let (report, illegal) = replay(&with_moves(";B[df];W[ef]"));
    assert_eq!(
        illegal,
        vec![IllegalMove {
            move_index: 1,
            why: Illegal::Repeats {
                stage: Stage::Final,
                earlier: Origin {
                    move_index: None,
                    stage: Stage::Start
                },
            },
        }]
    );
    assert!(report.problems.contains(Problem::Repetition));
    assert_eq!(report.accounting.ko_retakes_by_moving, 0);
}

#[test]
fn a_moving_retake_creates_two_new_positions() {
    // White lifts c3 (figure 3, new) and retakes at e4 (figure 4, new).
    let (report, illegal) = replay(&with_moves(";B[df];W[ef]MF[cg]"));
    assert!(illegal.is_empty(), "{illegal:?}");
    let a = report.accounting;
    assert_eq!(a.ko_retakes_by_moving, 1);
    assert_eq!(a.moved, ByColor::new(0, 1));
    assert_eq!(a.captures, ByColor::new(1, 1));
    // Start, move 1, and two for the moving move.
    assert_eq!(a.positions, 4);
}

#[test]
fn black_placing_back_recreates_whites_intermediate_position() {
    let (_, illegal) = replay(&with_moves(";B[df];W[ef]MF[cg];B[df]"));
    assert_eq!(
        illegal,
        vec![IllegalMove {
            move_index: 2,
            why: Illegal::Repeats {
                stage: Stage::Final,
                earlier: Origin {
                    move_index: Some(1),
                    stage: Stage::Intermediate
                },
            },
        }]
    );
}

#[test]
fn black_retakes_by_moving_a_stone_that_does_not_guard_e4() {
    let (report, illegal) = replay(&with_moves(";B[df];W[ef]MF[cg];B[df]MF[fe]"));
    assert!(illegal.is_empty(), "{illegal:?}");
    assert_eq!(report.accounting.ko_retakes_by_moving, 2);
    assert_eq!(report.accounting.captures, ByColor::new(2, 1));
}

#[test]
fn moving_e5_gives_e4_a_liberty_and_d4_is_suicide() {
    let (report, illegal) = replay(&with_moves(";B[df];W[ef]MF[cg];B[df]MF[ee]"));
    assert_eq!(
        illegal,
        vec![IllegalMove {
            move_index: 2,
            why: Illegal::Suicide
        }]
    );
    assert!(report.problems.contains(Problem::Suicide));
    // The board follows the record: the lone stone is gone.
    assert_eq!(report.accounting.suicided, ByColor::new(1, 0));
    assert_eq!(report.accounting.ko_retakes_by_moving, 1);
}

#[test]
fn a_xu_then_a_placing_retake_is_legal() {
    // 隔虚可提: the board after W[ef] is figure 1 again, but each side now
    // has a stone beside the board.
    let (report, illegal) = replay(&with_moves(";B[df];W[];B[];W[ef]"));
    assert!(illegal.is_empty(), "{illegal:?}");
    assert_eq!(report.accounting.beside, ByColor::new(1, 1));
    assert_eq!(report.accounting.placed_off, ByColor::new(1, 1));
    // Without the 虚着 the same board is a repetition of the start.
    let (_, illegal) = replay(&with_moves(";B[df];W[ef]"));
    assert_eq!(illegal.len(), 1);
}

#[test]
fn putting_a_lifted_stone_back_repeats_the_position_before() {
    let (_, illegal) = replay("(;SZ[5]RU[Dajiefang];B[aa];W[bb];B[aa]MF[aa])");
    assert_eq!(
        illegal,
        vec![IllegalMove {
            move_index: 2,
            why: Illegal::Repeats {
                stage: Stage::Final,
                earlier: Origin {
                    move_index: Some(1),
                    stage: Stage::Final
                },
            },
        }]
    );
}

#[test]
fn lifting_the_stone_just_placed_repeats_the_position_before_it() {
    // Lifting the stone a move just placed, capturing nothing, shows the
    // position before that move again. In alternating play the opponent's
    // move always comes between (and changes the position), so the record
    // has to give Black two moves in a row to reach it: out of turn, flagged.
    let (report, illegal) = replay("(;SZ[5]RU[Dajiefang];W[ee];B[aa];B[cc]MF[aa])");
    assert!(report.problems.contains(Problem::OutOfTurn));
    assert_eq!(
        illegal,
        vec![IllegalMove {
            move_index: 2,
            why: Illegal::Repeats {
                stage: Stage::Intermediate,
                earlier: Origin {
                    move_index: Some(0),
                    stage: Stage::Final
                },
            },
        }]
    );
    // One turn later, with White's move between, the same lift is new.
    let (_, illegal) = replay("(;SZ[5]RU[Dajiefang];B[aa];W[ee];B[cc]MF[aa])");
    assert!(illegal.is_empty(), "{illegal:?}");
}

#[test]
fn four_xu_end_the_game_three_do_not() {
    let (report, _) = replay("(;SZ[5]RU[Dajiefang];B[cc];W[];B[];W[]MF[];B[])");
    // W[]MF[] is an impossible move (bad MF): no 虚着, it breaks the run.
    assert_eq!(report.accounting.four_xu_end, None);
    let (report, illegal) = replay("(;SZ[5]RU[Dajiefang];B[cc];W[];B[];W[])");
    assert!(illegal.is_empty());
    assert_eq!(report.accounting.four_xu_end, None);
    let (report, illegal) = replay("(;SZ[5]RU[Dajiefang];B[cc];W[dd];B[];W[];B[]MF[cc];W[])");
    assert!(illegal.is_empty(), "{illegal:?}");
    assert_eq!(report.accounting.four_xu_end, Some(5));
    assert!(report.accounting.ended_by_four_xu());
    assert_eq!(report.accounting.xu(Color::Black), 2);
    assert!(!report.problems.contains(Problem::PlayAfterEnd));
    // A fifth move is play after the end.
    let (report, _) = replay("(;SZ[5]RU[Dajiefang];B[cc];W[];B[];W[];B[];W[dd])");
    assert_eq!(report.accounting.four_xu_end, Some(4));
    assert!(report.problems.contains(Problem::PlayAfterEnd));
}

#[test]
fn a_move_off_the_board() {
    let (report, illegal) = replay("(;SZ[5]RU[Dajiefang];B[cc];W[dd];B[]MF[cc])");
    assert!(illegal.is_empty(), "{illegal:?}");
    let a = report.accounting;
    assert_eq!(a.moved_off, ByColor::new(1, 0));
    assert_eq!(a.beside, ByColor::new(1, 0));
    assert_eq!(a.on_board, ByColor::new(0, 1));
    assert_eq!(a.from_bowl(Color::Black), 1);
    // N_X: the stone was placed on the board once.
    assert_eq!(a.placed_on_board(), ByColor::new(1, 1));
}

#[test]
fn a_move_off_whose_intermediate_position_repeats() {
    // B aa; W bb; B aa->cc; W bb->dd; B cc->aa; then White lifts dd: the
    // board shows Black's aa alone, the final position of move 1.
    let (_, illegal) =
        replay("(;SZ[5]RU[Dajiefang];B[aa];W[bb];B[cc]MF[aa];W[dd]MF[bb];B[aa]MF[cc];W[]MF[dd])");
    assert_eq!(
        illegal,
        vec![IllegalMove {
            move_index: 5,
            why: Illegal::Repeats {
                stage: Stage::Intermediate,
                earlier: Origin {
                    move_index: Some(0),
                    stage: Stage::Final
                },
            },
        }]
    );
}

#[test]
fn impossible_moving_moves_are_skipped_and_play_goes_on() {
    let text = "(;SZ[5]RU[Dajiefang];B[aa];W[bb];B[cc]MF[bb];W[cc]MF[dd];B[bb]MF[aa];W[dd]MF[zz];B[dd];W[ee])";
    let (report, illegal) = replay(text);
    let kinds: Vec<(u32, Illegal)> = illegal.iter().map(|m| (m.move_index, m.why)).collect();
    assert_eq!(
        kinds,
        vec![
            // MF on White's stone.
            (2, Illegal::Impossible(Impossible::NotOwnStone)),
            // MF on an empty point.
            (3, Illegal::Impossible(Impossible::NotOwnStone)),
            // Target occupied by White.
            (4, Illegal::Impossible(Impossible::Occupied)),
            // MF off the 5x5 board.
            (5, Illegal::Impossible(Impossible::BadFrom)),
        ]
    );
    assert!(report.problems.contains(Problem::NotOwnStone));
    assert!(report.problems.contains(Problem::Occupied));
    assert!(report.problems.contains(Problem::BadMoveFrom));
    let a = report.accounting;
    assert_eq!(a.skipped_moves, 4);
    // Moves 0, 1, 6, 7 were played.
    assert_eq!(a.on_board, ByColor::new(2, 2));
    assert_eq!(a.moved, ByColor::new(0, 0));
    assert_eq!(report.verdict.illegal_moves, 4);
    assert_eq!(report.verdict.first_illegal.map(|m| m.move_index), Some(2));
}

#[test]
fn a_bad_target_is_impossible_not_a_xu() {
    let (report, illegal) = replay("(;SZ[5]RU[Dajiefang];B[aa];W[z])");
    assert_eq!(illegal[0].why, Illegal::Impossible(Impossible::BadTarget));
    assert_eq!(report.accounting.placed_off, ByColor::new(0, 0));
}

fn analyse(text: &str) -> verdict_rules::analyse::Analysis {
    let sgf = Reader::new(text.as_bytes()).next().expect("one game");
    let game = Game::from_sgf(&sgf, text.as_bytes()).expect("replayable");
    Analyser::new().analyse(&game, KomiPolicy::Game)
}

#[test]
fn four_xu_are_scored_with_every_stone_alive() {
    // 5x5, Black's wall on column c, White's on column d; a White stone
    // dead in Black's area stays on the board after 四虚终局.
    //   a b c d e
    // 5 . . X O .
    // 4 . O X O .
    // 3 . . X O .
    // 2 . . X O .
    // 1 . . X O .
    let text = "(;SZ[5]RU[Dajiefang]KM[0.5];B[ca];W[da];B[cb];W[db];B[cc];W[dc];B[cd];W[dd];B[ce];W[de];B[];W[bb];B[];W[];B[]MF[ca];W[])";
    let a = analyse(text);
    let report = a.variant.expect("variant");
    assert!(report.verdict.is_legal(), "{:?}", report.verdict);
    assert_eq!(report.accounting.four_xu_end, Some(15));
    assert_eq!(a.dead_source, DeadSource::FourXu);
    assert!(a.dead.is_empty());
    // Black: stones c2-c5 (c1... ca is c5, lifted) = 4, area: a/b columns
    // hold White's b4 stone, so the left region touches both: shared.
    // Column a and b less b4: 9 points shared; c5 empty touches c4 (X), b5
    // (shared region) and d5 (O): part of the shared region.
    // White: 5 on column d + b4, territory column e (5 points).
    let c = &a.counts;
    assert_eq!(c.stones, ByColor::new(4, 6));
    assert_eq!(c.territory, ByColor::new(0, 5));
    assert_eq!(c.shared, 10);
    // N_X: Black put 5 on the board, White 6; komi 0.5, no handicap.
    let jpd_b = a.verdict(RuleSet::JpdB);
    assert_eq!(jpd_b.margin_before_komi, 4 - 11);
    assert_eq!(jpd_b.margin, -7.5);
    assert_eq!(jpd_b.handicap_bonus, 0);
    assert_eq!(a.verdict(RuleSet::JpdA).margin_before_komi, -7 - (5 - 6));
    // Only the four seed rule sets apply.
    assert_eq!(a.verdicts.len(), 4);
    assert!(a.get_verdict(RuleSet::Japanese).is_none());
    assert!(a.get_verdict(RuleSet::TrompTaylor).is_none());
}

#[test]
fn an_agreed_end_settles_dead_stones() {
    // The same board without four 虚着 at the end: the settler decides, and
    // the lone White stone b4 inside Black's side is dead.
    let text = "(;SZ[5]RU[Dajiefang]KM[0.5];B[ca];W[da];B[cb];W[db];B[cc];W[dc];B[cd];W[dd];B[ce];W[de];B[];W[bb])";
    let a = analyse(text);
    assert_eq!(a.dead_source, DeadSource::Settled);
    assert_eq!(a.dead, vec![pt("bb")]);
    assert_eq!(a.counts.area(Color::Black), 15);
    assert_eq!(a.counts.area(Color::White), 10);
}
