//! The synthetic game generator: determinism, readable and legal records,
//! results that verdict's own self-check reproduces (except the deliberate
//! misses), the promised mix, seki and open dame.

use rayon::prelude::*;
use verdict_lab::synth::{game_sgf, game_spec, write_corpus, Ending, SynthOptions};
use verdict_rules::analyse::{Analyser, KomiPolicy, SelfCheck};
use verdict_rules::game::Game;
use verdict_rules::replay::Legality;
use verdict_rules::sgf::Reader;
use verdict_rules::Action;

const GAMES: usize = 500;

fn options(seed: u64) -> SynthOptions {
    SynthOptions {
        games: GAMES,
        seed,
        ..SynthOptions::default()
    }
}

#[test]
fn same_seed_and_index_give_the_same_game() {
    let a = options(11);
    let b = options(12);
    for i in 0..12 {
        let text = game_sgf(&a, i);
        assert_eq!(text, game_sgf(&a, i), "game {i} is not reproducible");
        assert_ne!(
            text,
            game_sgf(&b, i),
            "seeds 11 and 12 give the same game {i}"
        );
        assert_ne!(
            text,
            game_sgf(&a, i + 1),
            "games {i} and {} are equal",
            i + 1
        );
        assert_eq!(game_spec(&a, i), game_spec(&a, i));
    }
    // Generating in another order (or in parallel) changes nothing.
    let forward: Vec<String> = (0..8).map(|i| game_sgf(&a, i)).collect();
    let parallel: Vec<String> = (0..8)
        .into_par_iter()
        .rev()
        .map(|i| game_sgf(&a, i))
        .collect();
    let mut backward = parallel;
    backward.reverse();
    assert_eq!(forward, backward);
}

/// What one generated game showed.
struct Seen {
    size: u8,
    handicap: u8,
    ending: Ending,
    seki: bool,
    dame: bool,
}

fn check_game(options: &SynthOptions, index: usize, analyser: &mut Analyser) -> Seen {
    let spec = game_spec(options, index);
    let text = game_sgf(options, index);
    let bytes = text.as_bytes();
    let mut reader = Reader::new(bytes);
    let sgf = reader
        .next()
        .unwrap_or_else(|| panic!("game {index}: no game read"));
    assert!(reader.next().is_none(), "game {index}: more than one game");
    assert!(
        sgf.problems.is_empty(),
        "game {index}: reader problems {:?}",
        sgf.problems
    );
    let game = Game::from_sgf(&sgf, bytes).unwrap_or_else(|e| panic!("game {index}: {e:?}"));
    assert!(
        game.problems.is_empty(),
        "game {index}: {:?}\n{text}",
        game.problems
    );
    assert_eq!(u32::from(spec.size), u32::from(game.size.width()));
    assert_eq!(game.handicap.stones, spec.handicap, "game {index}");
    assert_eq!(game.info.komi.points, spec.komi, "game {index}");
    assert!(text.contains("EV[verdict synth]"));
    assert!(text.contains(&format!("GN[synth {index}]")));
    assert!(text.contains("PB[synth-black-") && text.contains("PW[synth-white-"));
    let year: u32 = spec.date[..4].parse().expect("DT starts with a year");
    assert!((2015..=2024).contains(&year));

    let analysis = analyser.analyse(&game, KomiPolicy::Game);
    let report = &analysis.report;
    assert!(
        report.problems.is_empty(),
        "game {index}: {:?}\n{text}",
        report.problems
    );
    for family in [Legality::JAPANESE, Legality::CHINESE] {
        let verdict = &report.legality.0[family.index()];
        assert!(
            verdict.is_legal(),
            "game {index} illegal under {}: {:?}\n{text}",
            family.id(),
            verdict.first_illegal
        );
    }

    let passes = |n: usize| {
        game.moves.len() >= n
            && game.moves[game.moves.len() - n..]
                .iter()
                .all(|m| m.action == Action::Pass)
    };
    match spec.ending {
        Ending::Finished => {
            assert!(passes(2), "game {index} does not end with two passes");
            assert_eq!(
                report.accounting.first_stop,
                Some(game.moves.len() as u32 - 1)
            );
            match analysis.self_check {
                SelfCheck::Agrees { .. } => {
                    assert!(
                        !spec.wrong_result,
                        "game {index}: the wrong result agrees (dead stones {:?} by {:?}, {:?})\n{text}",
                        analysis.dead,
                        analysis.dead_source,
                        analysis.settled
                    );
                }
                SelfCheck::Disagrees {
                    recorded, computed, ..
                } => {
                    assert!(
                        spec.wrong_result,
                        "game {index}: {recorded} vs {computed}\n{text}"
                    );
                    assert_eq!((recorded - computed).abs(), 1.0);
                }
                SelfCheck::Unchecked(why) => panic!("game {index} unchecked: {why:?}"),
            }
        }
        Ending::Resigned | Ending::TimedOut => {
            assert!(game.moves.iter().all(|m| m.action != Action::Pass));
            assert!(!game.moves.is_empty());
            let by = if spec.ending == Ending::Resigned {
                "+R]"
            } else {
                "+T]"
            };
            assert!(text.contains(by), "game {index}: {text}");
            assert!(matches!(analysis.self_check, SelfCheck::Unchecked(_)));
        }
    }
    let finished = spec.ending == Ending::Finished;
    let counts = &analysis.counts;
    Seen {
        size: spec.size,
        handicap: spec.handicap,
        ending: spec.ending,
        seki: finished && counts.seki_liberties > 0,
        dame: finished && counts.shared > counts.seki_liberties,
    }
}

#[test]
fn games_read_replay_legally_and_self_check() {
    let options = options(2026);
    let seen: Vec<Seen> = (0..GAMES)
        .into_par_iter()
        .map_init(Analyser::new, |analyser, i| {
            check_game(&options, i, analyser)
        })
        .collect();

    let share =
        |f: &dyn Fn(&Seen) -> bool| seen.iter().filter(|s| f(s)).count() as f64 / GAMES as f64;
    let nine = share(&|s| s.size == 9);
    let thirteen = share(&|s| s.size == 13);
    let nineteen = share(&|s| s.size == 19);
    assert!((0.42..=0.58).contains(&nine), "9x9 share {nine}");
    assert!((0.18..=0.32).contains(&thirteen), "13x13 share {thirteen}");
    assert!((0.18..=0.32).contains(&nineteen), "19x19 share {nineteen}");
    let handicap = share(&|s| s.handicap > 0);
    assert!(
        (0.04..=0.16).contains(&handicap),
        "handicap share {handicap}"
    );
    assert!(seen.iter().any(|s| s.size == 13 && s.handicap > 0));
    assert!(seen.iter().any(|s| s.size == 19 && s.handicap > 5));
    let resigned = share(&|s| s.ending == Ending::Resigned);
    assert!(
        (0.14..=0.26).contains(&resigned),
        "resigned share {resigned}"
    );
    let timed_out = share(&|s| s.ending == Ending::TimedOut);
    assert!(
        (0.02..=0.09).contains(&timed_out),
        "timed-out share {timed_out}"
    );

    let seki = seen.iter().filter(|s| s.seki).count();
    let dame = seen.iter().filter(|s| s.dame).count();
    assert!(seki >= 1, "no seki in {GAMES} games");
    assert!(dame >= 1, "no open dame in {GAMES} games");
}

#[test]
fn some_results_are_deliberately_wrong() {
    let options = options(5);
    let wrong = (0..2000)
        .filter(|&i| game_spec(&options, i).wrong_result)
        .count();
    assert!(
        (10..=70).contains(&wrong),
        "{wrong} wrong results in 2000 games"
    );
    let none = SynthOptions {
        wrong_result_rate: 0.0,
        ..options
    };
    assert!((0..2000).all(|i| !game_spec(&none, i).wrong_result));
}

#[test]
fn corpus_has_single_and_collection_files() {
    let dir = std::env::temp_dir().join(format!("verdict-synth-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = SynthOptions {
        games: 60,
        seed: 3,
        ..SynthOptions::default()
    };
    let summary = write_corpus(&options, &dir, 5).expect("corpus written");
    assert_eq!(summary.games, 60);
    assert!(summary.single_game_files > 0 && summary.collection_files > 0);
    assert_eq!(
        summary.files,
        summary.single_game_files + summary.collection_files
    );
    assert_eq!(summary.by_size.values().sum::<u64>(), 60);
    assert_eq!(summary.by_ending.values().sum::<u64>(), 60);

    let mut files = 0;
    let mut games = Vec::new();
    let mut bytes = 0;
    for entry in std::fs::read_dir(&dir).expect("corpus directory") {
        let data = std::fs::read(entry.expect("entry").path()).expect("file");
        files += 1;
        bytes += data.len() as u64;
        let in_file: Vec<String> = Reader::new(&data)
            .map(|sgf| {
                let game = Game::from_sgf(&sgf, &data).expect("a game");
                assert!(game.problems.is_empty());
                let gn = &data[sgf.span.clone()];
                String::from_utf8_lossy(gn).into_owned()
            })
            .collect();
        assert!(!in_file.is_empty());
        games.extend(in_file);
    }
    assert_eq!(files, summary.files);
    assert_eq!(bytes, summary.bytes);
    assert_eq!(games.len(), 60);
    // Every game is there exactly once, as game_sgf makes it.
    games.sort();
    let mut expected: Vec<String> = (0..60).map(|i| game_sgf(&options, i)).collect();
    expected.sort();
    for (got, want) in games.iter().zip(&expected) {
        assert_eq!(got.trim(), want.trim());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
