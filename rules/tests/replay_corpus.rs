//! Replay against real records in `../shared/corpora` (not in the
//! repository). When the corpora are absent the tests say so and pass.
//!
//! The edge-case records are checked on every run; the sweep over every
//! corpus is ignored by default: `cargo test --release -p verdict-rules --test
//! replay_corpus -- --ignored --nocapture`.

use std::path::{Path, PathBuf};

use verdict_rules::game::Game;
use verdict_rules::replay::{IllegalReason, Legality, ReplayReport, Replayer};
use verdict_rules::sgf::Reader;
use verdict_rules::Problem;

fn corpora() -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = here
        .ancestors()
        .map(|a| a.join("shared/corpora"))
        .find(|p| p.is_dir());
    if found.is_none() {
        eprintln!("shared/corpora not found above {}: skipped", here.display());
    }
    found
}

fn sgf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sgf_files(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
}

/// Replays the first game of a file.
fn replay_first(replayer: &mut Replayer, path: &Path) -> ReplayReport {
    let input = std::fs::read(path).unwrap();
    let sgf = Reader::new(&input).next().expect("a game");
    let game = Game::from_sgf(&sgf, &input).expect("replayable");
    let report = replayer.replay(&game);
    assert!(report.accounting.is_conserved(), "{}", path.display());
    report
}

/// `(family, first illegal move)` for every family that rejects the record.
fn rejected(report: &ReplayReport) -> Vec<(&'static str, u32, IllegalReason)> {
    report
        .legality
        .by_family()
        .filter_map(|(l, v)| v.first_illegal.map(|m| (l.id(), m.move_index, m.reason)))
        .collect()
}

#[test]
fn edge_records_break_the_rules_they_are_named_after() {
    let Some(corpora) = corpora() else { return };
    let dir = corpora.join("edge/Illegal games");
    let mut replayer = Replayer::new();
    use IllegalReason::{Occupied, Suicide, Superko};

    // Legal under situational superko: the board comes back with the other
    // side to move.
    let r = replay_first(&mut replayer, &dir.join("positional-superko.sgf"));
    assert_eq!(
        rejected(&r),
        vec![
            ("nosuicide_psk", 22, Superko),
            ("nosuicide_psk_clear", 22, Superko),
            ("suicide_psk", 22, Superko),
            ("suicide_psk_clear", 22, Superko),
        ]
    );

    // Passes in between, but never two in a row: no stop clears anything.
    let r = replay_first(&mut replayer, &dir.join("situational-superko.sgf"));
    assert_eq!(r.accounting.stops, 0);
    let superko: Vec<_> = rejected(&r)
        .into_iter()
        .map(|(_, i, why)| (i, why))
        .collect();
    assert_eq!(superko, vec![(23, Superko); 8]);
    assert!(r.legality[Legality::JAPANESE].is_legal());

    // White fills its own last liberty in the corner: one stone, so the
    // position repeats and only situational superko lets it pass.
    let r = replay_first(&mut replayer, &dir.join("suicide.sgf"));
    let s = rejected(&r);
    assert!(s.contains(&("nosuicide_simple", 3, Suicide)));
    assert!(s.contains(&("suicide_psk", 3, Superko)));
    assert!(r.legality[Legality::NEW_ZEALAND].is_legal());
    assert!(r.legality[Legality::new(
        verdict_rules::replay::Suicide::Allowed,
        verdict_rules::replay::KoRule::Simple,
        false
    )]
    .is_legal());
    assert_eq!(r.accounting.suicided.white, 1);

    let r = replay_first(&mut replayer, &dir.join("illegal-move.sgf"));
    assert_eq!(rejected(&r).len(), 10);
    assert!(rejected(&r)
        .iter()
        .all(|&(_, i, why)| i == 15 && why == Occupied));
    assert_eq!(r.accounting.skipped_moves, 1);

    let r = replay_first(&mut replayer, &dir.join("illegal-setup.sgf"));
    assert!(r.problems.contains(Problem::SetupNoLiberty));
}

#[test]
#[ignore = "reads every corpus; run with --release"]
fn every_corpus_game_replays_with_stones_conserved() {
    let Some(corpora) = corpora() else { return };
    let mut files = Vec::new();
    sgf_files(&corpora, &mut files);
    let mut replayer = Replayer::new();
    let (mut games, mut moves, mut illegal) = (0u64, 0u64, 0u64);
    for path in &files {
        let Ok(input) = std::fs::read(path) else {
            continue;
        };
        for sgf in Reader::new(&input) {
            let Ok(game) = Game::from_sgf(&sgf, &input) else {
                continue;
            };
            let report = replayer.replay(&game);
            let acc = &report.accounting;
            assert!(acc.is_conserved(), "{}: {acc:?}", path.display());
            assert_eq!(acc.on_board, replayer.board().stone_counts());
            assert_eq!(replayer.board().validate(), Ok(()), "{}", path.display());
            games += 1;
            moves += game.moves.len() as u64;
            illegal += u64::from(!report.legality.all_legal());
        }
    }
    println!("{games} games, {moves} moves, {illegal} illegal under some family");
    assert!(games > 0);
}
