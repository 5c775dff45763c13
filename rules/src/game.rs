//! From a main line of SGF nodes to a typed [`Game`]: size, metadata, setup,
//! moves, handicap, final territory marks.
//!
//! A `Game` is the unchecked input of replay (like shakmaty's `Setup`): every
//! move the record holds is here, legal or not. Only [`crate::replay`] decides
//! what the moves mean on a board.

use crate::info::GameInfo;
use crate::problem::Problems;
use crate::{BoardSize, ByColor, Color, Move, Point};

/// A setup instruction: put a stone of `color` on `point`, or clear it (`None`, SGF `AE`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SetupStone {
    pub point: Point,
    pub color: Option<Color>,
}

/// Setup found after the first move (`AB`/`AW`/`AE` in the middle of a game).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MidSetup {
    /// Index into [`Game::moves`] of the first move played after this setup.
    pub before_move: usize,
    pub stones: Vec<SetupStone>,
}

/// Where the handicap count came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HandicapSource {
    /// No handicap: fewer than two handicap stones in any form.
    None,
    /// `HA` on the root, confirmed or not by stones.
    Declared,
    /// Black setup stones before the first move, no White ones.
    Setup,
    /// A run of Black moves opening the game (White passing or not between them).
    OpeningMoves,
}

impl HandicapSource {
    /// A stable snake_case name (the `handicap_source` column).
    pub const fn as_str(self) -> &'static str {
        match self {
            HandicapSource::None => "none",
            HandicapSource::Declared => "declared",
            HandicapSource::Setup => "setup",
            HandicapSource::OpeningMoves => "opening_moves",
        }
    }
}

/// The handicap as verdict understands it: the number of handicap stones
/// (`0` when there is none; one stone is no handicap).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Handicap {
    pub stones: u8,
    pub source: HandicapSource,
    /// For [`HandicapSource::OpeningMoves`]: how many leading moves (Black
    /// stones and the White passes between them) make up the placement.
    pub opening_moves: u16,
}

impl Handicap {
    pub const NONE: Handicap = Handicap {
        stones: 0,
        source: HandicapSource::None,
        opening_moves: 0,
    };
}

/// One game of a record, borrowed from the input bytes.
#[derive(Clone, Debug)]
pub struct Game<'a> {
    pub size: BoardSize,
    pub info: GameInfo<'a>,
    /// `PL` at the root, if given.
    pub first_player: Option<Color>,
    /// Setup before the first move (root, and nodes before any move).
    pub setup: Vec<SetupStone>,
    /// Main-line moves, `tt` passes already read as passes.
    pub moves: Vec<Move>,
    pub mid_setups: Vec<MidSetup>,
    pub handicap: Handicap,
    /// Territory marks (`TB`/`TW`) of the final node, or of the last nodes
    /// after the final move, if the record has any.
    pub territory_marks: Option<ByColor<Vec<Point>>>,
    /// Subtrees the reader skipped.
    pub variations: u32,
    /// Everything the reader and the game builder found wrong.
    pub problems: Problems,
    /// Set when the record is a 大解放 game (RULES.md section 6): `RU`
    /// names the variant, or a move carries `MF`. Such a game is replayed by
    /// [`crate::dajiefang`], never by [`crate::replay`].
    pub dajiefang: Option<crate::dajiefang::Record>,
}

/// Why a game cannot be replayed at all. The snake_case names from
/// [`SkipReason::as_str`] are a public contract (reports, Parquet).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum SkipReason {
    /// The input holds no SGF game tree at all (empty, all NUL, not SGF).
    #[error("no SGF game found in the input")]
    NoGame,
    /// `GM` names another game than Go.
    #[error("not a Go record (GM[{0}])")]
    NotGo(u32),
    /// `SZ` is a size verdict does not replay.
    #[error("board size {width}x{height} is outside 2x2..=25x25")]
    UnsupportedSize { width: u32, height: u32 },
    /// `SZ` is present but not a number or `w:h` pair.
    #[error("board size is not a number")]
    BadSize,
    /// The file holding the game could not be read (reported by callers
    /// that do I/O; the rules crate itself never reads files).
    #[error("the file could not be read")]
    Unreadable,
}

impl SkipReason {
    /// The reason without its details: what rows and summaries count by.
    pub const fn kind(self) -> SkipKind {
        match self {
            SkipReason::NoGame => SkipKind::NoGame,
            SkipReason::NotGo(_) => SkipKind::NotGo,
            SkipReason::UnsupportedSize { .. } => SkipKind::UnsupportedSize,
            SkipReason::BadSize => SkipKind::BadSize,
            SkipReason::Unreadable => SkipKind::Unreadable,
        }
    }

    pub const fn as_str(self) -> &'static str {
        self.kind().as_str()
    }
}

/// A [`SkipReason`] without its details (which `GM`, which size): the
/// `skip_reason` column and the summaries' `skip_reasons` count by it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipKind {
    NoGame,
    NotGo,
    UnsupportedSize,
    BadSize,
    Unreadable,
}

impl SkipKind {
    pub const ALL: [SkipKind; 5] = [
        SkipKind::NoGame,
        SkipKind::NotGo,
        SkipKind::UnsupportedSize,
        SkipKind::BadSize,
        SkipKind::Unreadable,
    ];

    /// The snake_case name, a public contract (reports, Parquet).
    pub const fn as_str(self) -> &'static str {
        match self {
            SkipKind::NoGame => "no_game",
            SkipKind::NotGo => "not_go",
            SkipKind::UnsupportedSize => "unsupported_size",
            SkipKind::BadSize => "bad_size",
            SkipKind::Unreadable => "unreadable",
        }
    }

    /// The kind named `name` ([`SkipKind::as_str`]).
    pub fn parse(name: &str) -> Option<SkipKind> {
        SkipKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl<'a> Game<'a> {
    /// Builds a game from one SGF tree. `input` is the whole input the tree
    /// was read from (its span is used for encoding detection of text).
    ///
    /// Damage is recovered from and recorded in [`Game::problems`]: malformed
    /// or off-board moves are read as passes (so the alternation of turns is
    /// kept), `tt` is a pass on boards up to 19x19, a node with two moves
    /// keeps the first.
    ///
    /// # Errors
    /// A [`SkipReason`] when the tree cannot be a replayable Go game.
    pub fn from_sgf(
        sgf: &crate::sgf::SgfGame<'a>,
        input: &'a [u8],
    ) -> Result<Game<'a>, SkipReason> {
        use crate::problem::Problem;
        use crate::sgf::{self, Ident};

        let mut problems = sgf.problems;
        if let Some(gm) = sgf.root_value(Ident::GM) {
            let text = std::str::from_utf8(gm).unwrap_or("").trim();
            if let Ok(n) = text.parse::<u32>() {
                if n != 1 {
                    return Err(SkipReason::NotGo(n));
                }
            }
        }
        let size = match sgf.root_value(Ident::SZ) {
            None => {
                problems.insert(Problem::MissingSize);
                BoardSize::NINETEEN
            }
            Some(raw) => match sgf::parse_size(raw) {
                None => return Err(SkipReason::BadSize),
                Some((w, h)) => BoardSize::new(w, h).map_err(|e| SkipReason::UnsupportedSize {
                    width: e.width,
                    height: e.height,
                })?,
            },
        };
        let span = input.get(sgf.span.clone()).unwrap_or(input);
        let (info, info_problems) = GameInfo::from_root(sgf, span);
        problems.extend(info_problems);

        let first_player = sgf
            .root_value(Ident::PL)
            .and_then(|v| match v.trim_ascii() {
                [b'B' | b'b', ..] => Some(Color::Black),
                [b'W' | b'w', ..] => Some(Color::White),
                _ => None,
            });

        let mut game = Game {
            size,
            info,
            first_player,
            setup: Vec::new(),
            moves: Vec::new(),
            mid_setups: Vec::new(),
            handicap: Handicap::NONE,
            territory_marks: None,
            variations: sgf.variations,
            problems,
            dajiefang: None,
        };
        // 大解放: `MF` of moving moves, and moves whose own value is bad (in
        // the variant those are impossible moves, not 虚着).
        let mut lifts: Vec<(u32, crate::dajiefang::From)> = Vec::new();
        let mut bad_targets: Vec<u32> = Vec::new();
        let mut stray_mf = false;
        // Index of the last node holding a move: territory marks count only
        // on it or after it (marks earlier in the line are analysis).
        let mut last_move_node = 0;
        for node in 0..sgf.nodes.len() {
            let mut moved = false;
            for prop in sgf.node_props(node) {
                let color = match prop.ident {
                    Ident::B => Color::Black,
                    Ident::W => Color::White,
                    _ => continue,
                };
                if moved {
                    game.problems.insert(Problem::MultipleMoves);
                    continue;
                }
                moved = true;
                last_move_node = node;
                let raw = sgf.prop_values(prop).first().copied().unwrap_or(b"");
                let action = match read_move_value(raw, game.size) {
                    Some(action) => action,
                    None => {
                        game.problems.insert(Problem::BadCoordinate);
                        bad_targets.push(game.moves.len() as u32);
                        crate::Action::Pass
                    }
                };
                game.moves.push(Move { color, action });
            }
            if let Some(values) = sgf.get(node, Ident::MF) {
                let raw = values.first().copied().unwrap_or(b"");
                if moved {
                    let index = game.moves.len() as u32 - 1;
                    lifts.push((index, crate::dajiefang::From::read(raw, game.size)));
                } else {
                    stray_mf = true;
                }
            }
            for prop in sgf.node_props(node) {
                let color = match prop.ident {
                    Ident::AB => Some(Color::Black),
                    Ident::AW => Some(Color::White),
                    Ident::AE => None,
                    _ => continue,
                };
                let mid_game = !game.moves.is_empty();
                let mut stones = Vec::new();
                for raw in sgf.prop_values(prop) {
                    let size = game.size;
                    let mut off_board = false;
                    let res = sgf::for_each_point(raw, |point| {
                        if size.contains(point) {
                            stones.push(SetupStone { point, color });
                        } else {
                            off_board = true;
                        }
                    });
                    if res.is_err() || off_board {
                        game.problems.insert(Problem::BadCoordinate);
                    }
                }
                if mid_game {
                    game.problems.insert(Problem::MidGameSetup);
                    let before_move = game.moves.len();
                    match game.mid_setups.last_mut() {
                        Some(last) if last.before_move == before_move => last.stones.extend(stones),
                        _ => game.mid_setups.push(MidSetup {
                            before_move,
                            stones,
                        }),
                    }
                } else {
                    game.setup.extend(stones);
                }
            }
        }
        game.territory_marks = read_marks(sgf, last_move_node, game.size);
        game.handicap = detect_handicap(&game);
        game.dajiefang = crate::dajiefang::Record::detect(&game.info, lifts, bad_targets, stray_mf);
        if let Some(record) = &game.dajiefang {
            if record.inferred {
                game.problems.insert(Problem::VariantInferred);
            }
            if stray_mf
                || record
                    .lifts
                    .iter()
                    .any(|(_, f)| *f == crate::dajiefang::From::Bad)
            {
                game.problems.insert(Problem::BadMoveFrom);
            }
        }
        Ok(game)
    }
}

/// A move's point, or a pass: empty values and `tt` (on boards up to 19x19)
/// are passes by convention; `None` for anything malformed or off the board,
/// which the caller reads as a pass, flagged, so that turns keep alternating
/// (and which a 大解放 record treats as an impossible move).
fn read_move_value(raw: &[u8], size: BoardSize) -> Option<crate::Action> {
    use crate::Action;
    let trimmed = raw.trim_ascii();
    if trimmed.is_empty() {
        return Some(Action::Pass);
    }
    if trimmed == b"tt" && size.width() <= 19 && size.height() <= 19 {
        return Some(Action::Pass);
    }
    match crate::sgf::parse_point(trimmed) {
        Some(p) if size.contains(p) => Some(Action::Play(p)),
        _ => None,
    }
}

/// The territory marks of the end of the game: the union of `TB`/`TW` on the
/// last move node and any node after it. KGS writes them on the node after the
/// two passes; some editors put them on the last move itself.
fn read_marks(
    sgf: &crate::sgf::SgfGame<'_>,
    last_move_node: usize,
    size: BoardSize,
) -> Option<ByColor<Vec<Point>>> {
    use crate::sgf::{self, Ident};
    let mut marks: ByColor<Vec<Point>> = ByColor::default();
    let mut any = false;
    for node in last_move_node..sgf.nodes.len() {
        for prop in sgf.node_props(node) {
            let color = match prop.ident {
                Ident::TB => Color::Black,
                Ident::TW => Color::White,
                _ => continue,
            };
            any = true;
            for raw in sgf.prop_values(prop) {
                // Damaged marks are dropped point by point; the settling layer
                // judges whether what is left is usable.
                let _ = sgf::for_each_point(raw, |p| {
                    if size.contains(p) {
                        marks[color].push(p);
                    }
                });
            }
        }
    }
    if !any {
        return None;
    }
    for list in [&mut marks.black, &mut marks.white] {
        list.sort_unstable();
        list.dedup();
    }
    Some(marks)
}

/// RULES.md section 5: `HA`, else Black-only setup stones before the first
/// move, else a run of Black moves opening the game with or without White
/// passes between them. One stone is no handicap.
fn detect_handicap(game: &Game<'_>) -> Handicap {
    // The opening run is measured in every case, so that replay does not take
    // a placement written as moves for moves out of turn.
    let mut black_stones = 0u16;
    // Moves up to and including the last Black stone of the opening run.
    let mut end = 0u16;
    let first_is_black = game.first_player != Some(Color::White);
    if first_is_black {
        for (i, m) in game.moves.iter().enumerate() {
            match (m.color, m.action) {
                (Color::Black, crate::Action::Play(_)) => {
                    black_stones += 1;
                    end = i as u16 + 1;
                }
                (Color::White, crate::Action::Pass) => {}
                _ => break,
            }
            if i >= u16::MAX as usize - 1 {
                break;
            }
        }
    }
    let opening_moves = if black_stones >= 2 { end } else { 0 };

    if let Some(ha) = game.info.handicap_declared {
        if ha >= 2 {
            return Handicap {
                stones: ha,
                source: HandicapSource::Declared,
                opening_moves,
            };
        }
    }
    let black_setup = game
        .setup
        .iter()
        .filter(|s| s.color == Some(Color::Black))
        .count();
    let white_setup = game
        .setup
        .iter()
        .filter(|s| s.color == Some(Color::White))
        .count();
    if black_setup >= 2 && white_setup == 0 {
        return Handicap {
            stones: black_setup.min(u8::MAX as usize) as u8,
            source: HandicapSource::Setup,
            opening_moves,
        };
    }
    if black_stones >= 2 {
        return Handicap {
            stones: black_stones.min(u8::MAX as u16) as u8,
            source: HandicapSource::OpeningMoves,
            opening_moves,
        };
    }
    Handicap::NONE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Problem;
    use crate::sgf::Reader;
    use crate::Action;

    fn game(text: &str) -> Game<'_> {
        let sgf = Reader::new(text.as_bytes()).next().expect("one game");
        Game::from_sgf(&sgf, text.as_bytes()).expect("replayable")
    }

    fn pt(s: &str) -> Point {
        let b = s.as_bytes();
        Point::from_sgf([b[0], b[1]]).unwrap()
    }

    #[test]
    fn moves_setup_and_passes() {
        let g = game("(;GM[1]SZ[9]AB[cc][gg]AW[cg];B[ee];W[tt];B[];W[jj];B[e])");
        assert_eq!(g.size, BoardSize::square(9).unwrap());
        assert_eq!(g.setup.len(), 3);
        assert_eq!(g.moves[0], Move::play(Color::Black, pt("ee")));
        // tt is a pass on boards up to 19x19.
        assert!(g.moves[1].is_pass() && g.moves[2].is_pass());
        // Off the 9x9 board, and malformed: passes, flagged.
        assert!(g.moves[3].is_pass() && g.moves[4].is_pass());
        assert!(g.problems.contains(Problem::BadCoordinate));
        assert!(!g.problems.contains(Problem::MissingSize));
    }

    #[test]
    fn tt_is_a_point_on_big_boards() {
        let g = game("(;SZ[21];B[tt])");
        assert_eq!(g.moves[0].action, Action::Play(pt("tt")));
    }

    #[test]
    fn missing_size_is_nineteen_and_flagged() {
        let g = game("(;;B[pd])");
        assert_eq!(g.size, BoardSize::NINETEEN);
        assert!(g.problems.contains(Problem::MissingSize));
    }

    #[test]
    fn non_square_and_unsupported_sizes() {
        assert_eq!(game("(;SZ[9:5];B[ia])").size, BoardSize::new(9, 5).unwrap());
        let text = "(;SZ[31];B[aa])";
        let sgf = Reader::new(text.as_bytes()).next().unwrap();
        assert_eq!(
            Game::from_sgf(&sgf, text.as_bytes()).unwrap_err(),
            SkipReason::UnsupportedSize {
                width: 31,
                height: 31
            }
        );
        let text = "(;GM[2]SZ[8])";
        let sgf = Reader::new(text.as_bytes()).next().unwrap();
        assert_eq!(
            Game::from_sgf(&sgf, text.as_bytes()).unwrap_err(),
            SkipReason::NotGo(2)
        );
    }

    #[test]
    fn setup_in_a_second_node_is_still_initial_setup() {
        // Fox writes handicap stones in a node of their own before the moves.
        let g = game("(;SZ[19]HA[2];AB[pd][dp];W[dd])");
        assert_eq!(g.setup.len(), 2);
        assert!(g.mid_setups.is_empty());
        assert_eq!(g.handicap.stones, 2);
        assert_eq!(g.handicap.source, HandicapSource::Declared);
    }

    #[test]
    fn mid_game_setup_is_kept_in_place_and_flagged() {
        let g = game("(;SZ[9];B[ee];W[cc];AB[gg]AE[ee];B[cg])");
        assert!(g.problems.contains(Problem::MidGameSetup));
        assert_eq!(g.mid_setups.len(), 1);
        assert_eq!(g.mid_setups[0].before_move, 2);
        assert_eq!(g.mid_setups[0].stones.len(), 2);
    }

    #[test]
    fn compressed_setup_lists_expand() {
        let g = game("(;SZ[9]AB[aa:cc]AW[ee])");
        assert_eq!(
            g.setup
                .iter()
                .filter(|s| s.color == Some(Color::Black))
                .count(),
            9
        );
    }

    #[test]
    fn handicap_in_each_form() {
        let declared = game("(;SZ[19]HA[3]AB[pd][dp][pp];W[dd])");
        assert_eq!(
            (declared.handicap.stones, declared.handicap.source),
            (3, HandicapSource::Declared)
        );
        let setup = game("(;SZ[19]AB[pd][dp][pp][dd];W[qf])");
        assert_eq!(
            (setup.handicap.stones, setup.handicap.source),
            (4, HandicapSource::Setup)
        );
        // Black-only setup plus White stones is a problem position, not a handicap.
        let mixed = game("(;SZ[19]AB[pd][dp]AW[pp];W[qf])");
        assert_eq!(mixed.handicap, Handicap::NONE);
        let moves = game("(;SZ[19];B[pd];W[];B[dp];W[];B[pp];W[dd])");
        assert_eq!(
            (
                moves.handicap.stones,
                moves.handicap.source,
                moves.handicap.opening_moves
            ),
            (3, HandicapSource::OpeningMoves, 5)
        );
        let no_passes = game("(;SZ[19];B[pd];B[dp];W[dd])");
        assert_eq!(
            (no_passes.handicap.stones, no_passes.handicap.opening_moves),
            (2, 2)
        );
        let even = game("(;SZ[19]HA[1];B[pd];W[dd];B[dp])");
        assert_eq!(even.handicap, Handicap::NONE);
        let white_first = game("(;SZ[19]PL[W];B[pd];B[dd])");
        assert_eq!(white_first.handicap.stones, 0);
    }

    #[test]
    fn territory_marks_after_the_last_move() {
        let g = game("(;SZ[9];B[ee];W[cc]TB[aa];B[];W[]TB[ab][ac]TW[ii:hh])");
        let marks = g.territory_marks.expect("marks after the passes");
        assert_eq!(marks.black, vec![pt("ab"), pt("ac")]);
        assert_eq!(marks.white.len(), 4);
        // Marks before the last move are analysis, not the end of the game.
        let g = game("(;SZ[9];B[ee]TB[aa];W[cc])");
        assert!(g.territory_marks.is_none());
        // Marks on the last move node itself count.
        let g = game("(;SZ[9];B[ee];W[cc]TW[aa])");
        assert_eq!(g.territory_marks.unwrap().white, vec![pt("aa")]);
    }

    #[test]
    fn two_moves_in_one_node_keep_the_first() {
        let g = game("(;SZ[9];B[ee]W[cc];W[gg])");
        assert_eq!(g.moves.len(), 2);
        assert!(g.problems.contains(Problem::MultipleMoves));
    }
}
