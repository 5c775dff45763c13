//! The opt-in referee as the analyser uses it: which games are put to it,
//! what of its answer is counted, and what stands when it has none. The
//! referee here is a stand-in that answers from a list; the real one (GNU Go
//! over GTP) is tested with the `verdict run` process in
//! `coordinator/tests/referee.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use verdict_rules::analyse::{Analyser, DeadSource, KomiPolicy, Referee, Refereed};
use verdict_rules::game::Game;
use verdict_rules::score::Position;
use verdict_rules::sgf::Reader;
use verdict_rules::{Color, Point};

/// Answers every question with `answer` (or fails with `Err`), counting
/// the questions.
#[derive(Debug)]
struct Listed {
    answer: Result<Vec<Point>, String>,
    asked: AtomicUsize,
}

impl Referee for Listed {
    fn dead_stones(&self, _: &Position, _: f64, _: Color) -> Result<Vec<Point>, String> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.answer.clone()
    }
}

fn listed(answer: Result<Vec<&str>, &str>) -> Arc<Listed> {
    Arc::new(Listed {
        answer: answer
            .map(|v| v.iter().map(|s| pt(s)).collect())
            .map_err(str::to_string),
        asked: AtomicUsize::new(0),
    })
}

fn pt(s: &str) -> Point {
    let b = s.as_bytes();
    Point::from_sgf([b[0], b[1]]).unwrap()
}

/// A 9x9 record ended by two passes: Black's wall on column c, White's
/// on column d, and Black's seven-stone ring (f7 h7 ...) in White's side
/// with one eye at g6. The settler is unsure of this board (confidence
/// 0.5: the open territory behind White's wall).
const RING: &str = "(;GM[1]FF[4]SZ[9]KM[0.5]RU[Chinese]\
AB[ca][cb][cc][cd][ce][cf][cg][ch][ci][fc][gc][hc][fd][hd][fe][ge]\
AW[da][db][dc][dd][de][df][dg][dh][di];B[];W[])";

/// One Black stone in White's corner of a board the two walls cut in two,
/// the players' marks after the passes saying it is dead.
const MARKED: &str = "(;GM[1]FF[4]SZ[5]KM[0.5]RU[Chinese]\
AB[ba][bb][bc][bd][be][ea]AW[ca][cb][cc][cd][ce];B[];W[]TB[aa][ab][ac][ad][ae]\
TW[da][db][dc][dd][de][ea][eb][ec][ed][ee])";

fn game(text: &str) -> Game<'_> {
    let sgf = Reader::new(text.as_bytes()).next().expect("one game");
    Game::from_sgf(&sgf, text.as_bytes()).expect("replayable")
}

#[test]
fn an_unsure_game_counts_the_referees_stones_only() {
    let g = game(RING);
    let alone = Analyser::new().analyse(&g, KomiPolicy::Game);
    assert_eq!(alone.dead_source, DeadSource::Settled);
    assert!(alone.settled.as_ref().unwrap().confidence <= 0.6);
    assert!(alone.refereed.is_none());
    // The referee names Black's two top stones of column c, one of them
    // twice, and an empty point (a1): only the stones count, once each.
    let referee = listed(Ok(vec!["cb", "ca", "ca", "aa"]));
    let a = Analyser::new()
        .referee(Some(referee.clone()), 0.6)
        .analyse(&g, KomiPolicy::Game);
    assert_eq!(referee.asked.load(Ordering::Relaxed), 1);
    assert_eq!(a.dead_source, DeadSource::Referee);
    assert_eq!(a.refereed, Some(Refereed::Decided));
    assert_eq!(a.dead, vec![pt("ca"), pt("cb")]);
    assert_eq!((a.counts.dead.black, a.counts.dead.white), (2, 0));
    // The settler's facts stay (the row still says how unsure it was),
    // and no flipped count is made of doubts the referee replaced.
    assert_eq!(a.settled, alone.settled);
    assert!(a.flipped.is_none());
    assert_ne!(a.verdicts, alone.verdicts);
}

#[test]
fn a_game_surer_than_the_threshold_is_not_asked() {
    let g = game(RING);
    let confidence = Analyser::new()
        .analyse(&g, KomiPolicy::Game)
        .settled
        .unwrap()
        .confidence;
    let referee = listed(Ok(vec![]));
    let a = Analyser::new()
        .referee(Some(referee.clone()), confidence - 0.01)
        .analyse(&g, KomiPolicy::Game);
    assert_eq!(referee.asked.load(Ordering::Relaxed), 0);
    assert_eq!(a.dead_source, DeadSource::Settled);
    assert!(a.refereed.is_none());
}

#[test]
fn marks_are_never_put_to_the_referee() {
    let g = game(MARKED);
    let referee = listed(Ok(vec![]));
    let a = Analyser::new()
        .referee(Some(referee.clone()), 1.0)
        .analyse(&g, KomiPolicy::Game);
    assert_eq!(referee.asked.load(Ordering::Relaxed), 0);
    assert_eq!(a.dead_source, DeadSource::Marks);
    assert_eq!(a.dead, vec![pt("ea")]);
    assert!(a.refereed.is_none());
}

#[test]
fn without_an_answer_the_settlers_stands_and_says_so() {
    let g = game(RING);
    let alone = Analyser::new().analyse(&g, KomiPolicy::Game);
    let referee = listed(Err("GNU Go stopped talking"));
    let a = Analyser::new()
        .referee(Some(referee), 0.6)
        .use_record_result(true)
        .analyse(&g, KomiPolicy::Game);
    assert_eq!(
        a.refereed,
        Some(Refereed::Failed("GNU Go stopped talking".into()))
    );
    assert_eq!(a.dead_source, DeadSource::Settled);
    assert_eq!(a.dead, alone.dead);
    assert_eq!(a.verdicts, alone.verdicts);
}
