//! Properties of random games: conservation, hash consistency, order
//! independence, and agreement between the families.

use proptest::prelude::*;
use verdict_rules::board::Board;
use verdict_rules::board::PlayError;
use verdict_rules::game::{Game, Handicap, HandicapSource, MidSetup, SetupStone};
use verdict_rules::info::GameInfo;
use verdict_rules::replay::{
    IllegalMove, IllegalReason, KoRule, Legality, Replayer, Suicide, Verdicts,
};
use verdict_rules::{BoardSize, Color, Move, Point, Problem, Problems};

fn sizes() -> impl Strategy<Value = BoardSize> {
    (2u32..=7, 2u32..=7).prop_map(|(w, h)| BoardSize::new(w, h).unwrap())
}

fn point_in(size: BoardSize, n: u32) -> Point {
    let n = n as usize % size.points();
    Point::new(
        (n % size.width() as usize) as u8,
        (n / size.width() as usize) as u8,
    )
    .unwrap()
}

fn bare_game(size: BoardSize, setup: Vec<SetupStone>, moves: Vec<Move>) -> Game<'static> {
    Game {
        size,
        info: GameInfo::default(),
        first_player: None,
        setup,
        moves,
        mid_setups: vec![],
        handicap: Handicap::NONE,
        territory_marks: None,
        variations: 0,
        problems: Problems::NONE,
        dajiefang: None,
    }
}

fn setup_stones(size: BoardSize, raw: &[(u32, u8)]) -> Vec<SetupStone> {
    raw.iter()
        .map(|&(n, c)| SetupStone {
            point: point_in(size, n),
            color: match c % 3 {
                0 => None,
                1 => Some(Color::Black),
                _ => Some(Color::White),
            },
        })
        .collect()
}

/// Plays a random game that is legal without suicide and with simple ko,
/// passing one time in ten or when nothing is legal. Returns the moves and the
/// position the generator reached.
fn legal_game(size: BoardSize, setup: &[SetupStone], choices: &[u32]) -> (Vec<Move>, Board) {
    let mut board = Board::new(size);
    for s in setup {
        board.set(s.point, s.color).unwrap();
    }
    board.remove_chains_without_liberties();
    let mut moves = Vec::new();
    let mut color = Color::Black;
    let mut ko: Option<Point> = None;
    for &choice in choices {
        let mut legal = Vec::new();
        if choice % 10 != 0 {
            for p in size.iter() {
                if Some(p) == ko {
                    continue;
                }
                let mut trial = board.clone();
                if matches!(trial.play(color, p), Ok(out) if !out.is_suicide()) {
                    legal.push(p);
                }
            }
        }
        match legal.get(choice as usize % legal.len().max(1)) {
            Some(&p) if !legal.is_empty() => {
                ko = board.play(color, p).unwrap().ko;
                moves.push(Move::play(color, p));
            }
            _ => {
                ko = None;
                moves.push(Move::pass(color));
            }
        }
        color = !color;
    }
    (moves, board)
}

/// What must hold after any replay.
fn check_invariants(game: &Game, replayer: &mut Replayer) -> Result<(), TestCaseError> {
    let report = replayer.replay(game);
    let board = replayer.board();
    prop_assert_eq!(board.validate(), Ok(()));
    prop_assert_eq!(board.hash(), board.recompute_hash());
    let acc = &report.accounting;
    prop_assert!(acc.is_conserved(), "{:#?}", acc);
    prop_assert_eq!(acc.on_board, board.stone_counts());
    prop_assert_eq!(acc.moves as usize, game.moves.len());
    let passes = acc.passes.black + acc.passes.white;
    let implicit = acc.implicit_passes.black + acc.implicit_passes.white;
    let placed = acc.placed_total.black + acc.placed_total.white
        - acc.setup_stones.black
        - acc.setup_stones.white;
    prop_assert_eq!(placed + passes + acc.skipped_moves, acc.moves);
    prop_assert!(acc.stops <= (passes + implicit) / 2);
    prop_assert_eq!(acc.first_stop.is_some(), acc.stops > 0);
    for c in Color::ALL {
        prop_assert!(acc.placed_to_first_stop[c] <= acc.placed_total[c]);
    }
    // A move that repeats a situation repeats a board; a repetition since the
    // last stop is a repetition; suicide-allowed families never reject what
    // the forbidding ones accept, except for a one-stone suicide's repetition.
    let count = |s, k, c| report.legality[Legality::new(s, k, c)].illegal_moves;
    for s in [Suicide::Forbidden, Suicide::Allowed] {
        prop_assert!(count(s, KoRule::Situational, false) <= count(s, KoRule::Positional, false));
        prop_assert!(count(s, KoRule::Situational, true) <= count(s, KoRule::Situational, false));
        prop_assert!(count(s, KoRule::Positional, true) <= count(s, KoRule::Positional, false));
        prop_assert!(count(s, KoRule::Situational, true) <= count(s, KoRule::Positional, true));
    }
    let any_illegal = report.legality.by_family().any(|(_, v)| !v.is_legal());
    let illegal_problem = [
        Problem::Occupied,
        Problem::Suicide,
        Problem::Ko,
        Problem::Superko,
    ]
    .into_iter()
    .any(|p| report.problems.contains(p));
    prop_assert_eq!(any_illegal, illegal_problem);
    Ok(())
}

/// A slow, obvious replay: the whole history as a list of boards, each with
/// its side to move and the number of stops before it.
fn reference_verdicts(game: &Game) -> Verdicts {
    struct Seen {
        board: Board,
        to_move: Color,
        stops: u32,
    }
    let mut verdicts = Verdicts::default();
    let flag = |verdicts: &mut Verdicts, l: Legality, i: usize, reason| {
        let v = &mut verdicts.0[l.index()];
        v.illegal_moves += 1;
        v.first_illegal.get_or_insert(IllegalMove {
            move_index: i as u32,
            reason,
        });
    };
    let mut board = Board::new(game.size);
    let setup = |board: &mut Board, stones: &[SetupStone]| {
        for s in stones {
            let _ = board.set(s.point, s.color);
        }
        board.remove_chains_without_liberties();
    };
    setup(&mut board, &game.setup);
    let mut to_move = game
        .moves
        .first()
        .map(|m| m.color)
        .or(game.first_player)
        .unwrap_or(Color::Black);
    let mut stops = 0;
    let mut history = vec![Seen {
        board: board.clone(),
        to_move,
        stops,
    }];
    let mut pending_pass = false;
    let mut ko: Option<(Point, Color)> = None;
    let placement = if game.handicap.source == HandicapSource::OpeningMoves {
        game.handicap.opening_moves as usize
    } else {
        0
    };
    let pass =
        |board: &Board, history: &mut Vec<Seen>, stops: &mut u32, pending: &mut bool, c: Color| {
            if *pending {
                *stops += 1;
            }
            *pending = !*pending;
            history.push(Seen {
                board: board.clone(),
                to_move: !c,
                stops: *stops,
            });
        };
    for (i, mv) in game.moves.iter().enumerate() {
        for m in game.mid_setups.iter().filter(|m| m.before_move == i) {
            setup(&mut board, &m.stones);
            ko = None;
            history.push(Seen {
                board: board.clone(),
                to_move,
                stops,
            });
        }
        let c = mv.color;
        if c != to_move && !(i < placement && c == Color::Black) {
            ko = None;
            pass(&board, &mut history, &mut stops, &mut pending_pass, to_move);
        }
        match mv.point() {
            None => {
                ko = None;
                pass(&board, &mut history, &mut stops, &mut pending_pass, c);
            }
            Some(p) => {
                pending_pass = false;
                let retake_point = ko.take();
                match board.play(c, p) {
                    Err(e) => {
                        let reason = match e {
                            PlayError::OffBoard(_) => IllegalReason::OffBoard,
                            PlayError::Occupied(_) => IllegalReason::Occupied,
                        };
                        for l in Legality::ALL {
                            flag(&mut verdicts, l, i, reason);
                        }
                    }
                    Ok(out) => {
                        let suicide = out.is_suicide();
                        let retake = retake_point == Some((p, c)) && out.captured == 1;
                        let repeats = |situational: bool, clear: bool| {
                            history.iter().any(|h| {
                                h.board == board
                                    && (!situational || h.to_move == !c)
                                    && (!clear || h.stops == stops)
                            })
                        };
                        for l in Legality::ALL {
                            let reason = if suicide && l.suicide == Suicide::Forbidden {
                                Some(IllegalReason::Suicide)
                            } else {
                                let broken = match l.ko {
                                    KoRule::Simple => retake,
                                    KoRule::Positional => repeats(false, l.clear_at_stop),
                                    KoRule::Situational => repeats(true, l.clear_at_stop),
                                };
                                broken.then_some(match l.ko {
                                    KoRule::Simple => IllegalReason::Ko,
                                    _ => IllegalReason::Superko,
                                })
                            };
                            if let Some(reason) = reason {
                                flag(&mut verdicts, l, i, reason);
                            }
                        }
                        ko = out.ko.map(|q| (q, !c));
                    }
                }
                history.push(Seen {
                    board: board.clone(),
                    to_move: !c,
                    stops,
                });
            }
        }
        to_move = !c;
    }
    verdicts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn legal_games_replay_consistently(
        size in sizes(),
        raw_setup in prop::collection::vec((any::<u32>(), any::<u8>()), 0..8),
        choices in prop::collection::vec(any::<u32>(), 0..120),
    ) {
        let setup = setup_stones(size, &raw_setup);
        let (moves, expected) = legal_game(size, &setup, &choices);
        let game = bare_game(size, setup, moves);
        let mut replayer = Replayer::new();
        check_invariants(&game, &mut replayer)?;
        let report = replayer.replay(&game);
        prop_assert_eq!(replayer.board(), &expected);
        prop_assert!(report.legality[Legality::JAPANESE].is_legal());
        for p in [Problem::Occupied, Problem::Suicide, Problem::Ko, Problem::OutOfTurn] {
            prop_assert!(!report.problems.contains(p));
        }
        // The final position rebuilt stone by stone hashes the same.
        let mut rebuilt = Board::new(size);
        for p in size.iter() {
            rebuilt.set(p, expected.get(p)).unwrap();
        }
        prop_assert_eq!(rebuilt.hash(), expected.hash());
        prop_assert_eq!(&rebuilt, &expected);
    }

    #[test]
    fn arbitrary_records_never_break_replay(
        size in sizes(),
        raw_setup in prop::collection::vec((any::<u32>(), any::<u8>()), 0..12),
        raw_moves in prop::collection::vec((any::<u32>(), any::<bool>(), 0u8..8), 0..150),
        mid in prop::collection::vec((0usize..150, any::<u32>(), any::<u8>()), 0..3),
        first_player in prop::option::of(any::<bool>()),
    ) {
        let moves = raw_moves
            .iter()
            .map(|&(n, white, kind)| {
                let color = if white { Color::White } else { Color::Black };
                match kind {
                    0 => Move::pass(color),
                    // Sometimes off this board.
                    1 => Move::play(color, Point::new((n % 25) as u8, (n / 25 % 25) as u8).unwrap()),
                    _ => Move::play(color, point_in(size, n)),
                }
            })
            .collect();
        let mut game = bare_game(size, setup_stones(size, &raw_setup), moves);
        game.first_player = first_player.map(|w| if w { Color::White } else { Color::Black });
        let mut mid = mid;
        mid.sort_by_key(|m| m.0);
        game.mid_setups = mid
            .into_iter()
            .map(|(before_move, n, c)| MidSetup {
                before_move,
                stones: setup_stones(size, &[(n, c), (n / 7, c / 3)]),
            })
            .collect();
        let mut replayer = Replayer::new();
        check_invariants(&game, &mut replayer)?;
        prop_assert_eq!(replayer.replay(&game).legality, reference_verdicts(&game));
    }

    #[test]
    fn repetitions_agree_with_a_naive_history(
        size in (2u32..=4, 2u32..=3).prop_map(|(w, h)| BoardSize::new(w, h).unwrap()),
        raw_moves in prop::collection::vec((any::<u32>(), 0u8..12), 0..200),
        opening in 0u16..6,
    ) {
        // Tiny boards and long records: captures, kos and repeated positions
        // are everywhere. Colours alternate, with a few moves out of turn.
        let mut color = Color::Black;
        let moves: Vec<Move> = raw_moves
            .iter()
            .map(|&(n, kind)| {
                if kind == 0 {
                    color = !color;
                }
                let m = match kind {
                    1 | 2 => Move::pass(color),
                    _ => Move::play(color, point_in(size, n)),
                };
                color = !color;
                m
            })
            .collect();
        let mut game = bare_game(size, vec![], moves);
        if opening > 1 {
            game.handicap = Handicap {
                stones: opening as u8,
                source: HandicapSource::OpeningMoves,
                opening_moves: opening,
            };
        }
        let mut replayer = Replayer::new();
        check_invariants(&game, &mut replayer)?;
        let report = replayer.replay(&game);
        prop_assert_eq!(report.legality, reference_verdicts(&game));
    }

    #[test]
    fn hash_does_not_depend_on_placement_order(
        (size, in_order, shuffled) in (sizes(), prop::collection::vec((any::<u32>(), any::<bool>()), 0..40))
            .prop_flat_map(|(size, raw)| {
                // One colour per point, so that both orders describe the same position.
                let mut seen = std::collections::HashSet::new();
                let stones: Vec<(Point, Color)> = raw
                    .into_iter()
                    .map(|(n, white)| (point_in(size, n), if white { Color::White } else { Color::Black }))
                    .filter(|(p, _)| seen.insert(*p))
                    .collect();
                (Just(size), Just(stones.clone()), Just(stones).prop_shuffle())
            }),
    ) {
        let place = |stones: &[(Point, Color)]| {
            let mut board = Board::new(size);
            for &(p, c) in stones {
                board.set(p, Some(c)).unwrap();
            }
            board
        };
        let a = place(&in_order);
        let b = place(&shuffled);
        prop_assert_eq!(a.validate(), Ok(()));
        prop_assert_eq!(b.validate(), Ok(()));
        prop_assert_eq!(a.hash(), b.hash());
        prop_assert_eq!(a.hash(), a.recompute_hash());
        prop_assert_eq!(&a, &b);
    }

    #[test]
    fn non_capturing_moves_commute(
        size in sizes(),
        moves in prop::collection::vec((any::<u32>(), any::<bool>()), 0..30)
            .prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle())),
    ) {
        // Play each order, skipping points already taken and keeping only
        // runs that never capture or suicide: then both orders must meet.
        let play = |moves: &[(u32, bool)]| {
            let mut board = Board::new(size);
            for &(n, white) in moves {
                let color = if white { Color::White } else { Color::Black };
                match board.play(color, point_in(size, n)) {
                    Ok(out) if out.captured > 0 || out.suicided > 0 => return None,
                    _ => {}
                }
            }
            Some(board)
        };
        let (order, shuffled) = moves;
        let mut seen = std::collections::HashSet::new();
        let unique: Vec<_> = order.iter().copied().filter(|&(n, _)| seen.insert(point_in(size, n))).collect();
        let unique_shuffled: Vec<_> = shuffled
            .iter()
            .copied()
            .filter(|m| unique.contains(m))
            .collect();
        if let (Some(a), Some(b)) = (play(&unique), play(&unique_shuffled)) {
            prop_assert_eq!(a.hash(), b.hash());
            prop_assert_eq!(&a, &b);
        }
    }

    #[test]
    fn random_operations_keep_the_board_consistent(
        size in sizes(),
        ops in prop::collection::vec((any::<u32>(), 0u8..5), 0..200),
    ) {
        let mut board = Board::new(size);
        for (n, op) in ops {
            let p = point_in(size, n);
            match op {
                0 => { board.set(p, None).unwrap(); }
                1 => { board.set(p, Some(Color::Black)).unwrap(); }
                2 => { board.remove_chains_without_liberties(); }
                3 => { let _ = board.play(Color::Black, p); }
                _ => { let _ = board.play(Color::White, p); }
            }
            prop_assert_eq!(board.validate(), Ok(()));
            for q in size.iter() {
                if board.get(q).is_some() {
                    prop_assert_eq!(board.has_liberty(q), board.liberties(q) > 0);
                }
            }
        }
    }
}
