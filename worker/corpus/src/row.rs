//! One output row per game: identity, metadata, replay facts, settling,
//! every rule set's verdict, the self-check, and the status.
//!
//! The column list in [`COLUMNS`] is the public contract documented in
//! `docs/schema.md`; [`GameRow::cells`] emits values in exactly that order.

use verdict_rules::analyse::{Analyser, Analysis, KomiPolicy, SelfCheck};
use verdict_rules::game::{Game, HandicapSource, SkipReason};
use verdict_rules::info::{GameResult, WinBy};
use verdict_rules::replay::Legality;
use verdict_rules::score::methods::count_methods;
use verdict_rules::score::{RuleSet, Winner};
use verdict_rules::settle::Layer;
use verdict_rules::{Action, Color};

/// Bumped whenever a column is added, removed, renamed or changes meaning.
pub const SCHEMA_VERSION: &str = "5";

/// The type of a column, in types DuckDB, pandas, Polars and Spark all read
/// without casts (signed integers, doubles, booleans, UTF-8 strings).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Float,
    Bool,
}

/// A value of one cell; `None` is SQL NULL.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell<'a> {
    Str(Option<&'a str>),
    Int(Option<i64>),
    Float(Option<f64>),
    Bool(Option<bool>),
}

/// How the game ended, as far as the record says.
pub fn how_ended(game: &Game<'_>, ends_in_stop: bool) -> &'static str {
    match game.info.result {
        GameResult::Win {
            by: WinBy::Points(_),
            ..
        }
        | GameResult::Draw => "counted",
        GameResult::Win {
            by: WinBy::Resign, ..
        } => "resign",
        GameResult::Win {
            by: WinBy::Time, ..
        } => "time",
        GameResult::Win {
            by: WinBy::Forfeit, ..
        } => "forfeit",
        GameResult::Win {
            by: WinBy::Referee, ..
        } => "referee",
        GameResult::Void => "void",
        _ if ends_in_stop => "two_passes",
        _ => "unfinished",
    }
}

/// Everything verdict writes about one game, owned so rows can cross threads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRow {
    pub source: String,
    pub input: String,
    pub game_index: i64,
    pub game_hash: Option<String>,
    pub status: &'static str,
    pub skip_reason: Option<&'static str>,
    pub estimate: bool,
    pub board_width: Option<i64>,
    pub board_height: Option<i64>,
    pub komi_recorded: Option<String>,
    pub komi: Option<f64>,
    pub komi_scaled: Option<bool>,
    pub handicap: Option<i64>,
    pub handicap_source: Option<&'static str>,
    pub rules_recorded: Option<String>,
    pub rules: Option<&'static str>,
    pub result_recorded: Option<String>,
    pub result: Option<String>,
    pub result_winner: Option<&'static str>,
    pub result_margin: Option<f64>,
    pub how_ended: Option<&'static str>,
    pub player_black: Option<String>,
    pub player_white: Option<String>,
    pub rank_black: Option<String>,
    pub rank_white: Option<String>,
    pub year: Option<i64>,
    pub date: Option<String>,
    pub event: Option<String>,
    pub moves: Option<i64>,
    pub variations: Option<i64>,
    pub placed_first_stop: [Option<i64>; 2],
    pub placed_total: [Option<i64>; 2],
    pub passes: [Option<i64>; 2],
    pub captures: [Option<i64>; 2],
    pub stops: Option<i64>,
    pub first_stop_move: Option<i64>,
    pub resumed_after_stop: Option<bool>,
    pub last_mover: Option<&'static str>,
    pub problems: Option<String>,
    /// Per legality family, in `Legality::ALL` order: the first offending
    /// move (0-based) or None when legal.
    pub first_illegal: Vec<Option<i64>>,
    pub dead_source: Option<&'static str>,
    pub confidence: Option<f64>,
    /// The deepest settling layer that decided a chain (None with marks).
    pub settle_layer: Option<&'static str>,
    /// Stones decided by each settling layer, in `Layer::ALL` order.
    pub settled_stones: [Option<i64>; Layer::ALL.len()],
    pub open_chains: Option<i64>,
    /// Chains decided without proof at confidence 0.6 or below (None with
    /// marks): the ones `*_margin_before_komi_flipped` decides the other way.
    pub doubtful_chains: Option<i64>,
    /// `decided` or `failed` when the game was put to the referee
    /// (`--referee`), None otherwise.
    pub referee: Option<&'static str>,
    pub dead: [Option<i64>; 2],
    pub seki_points: Option<i64>,
    pub fills: [Option<i64>; 2],
    /// Per rule set, in `RuleSet::ALL` order.
    pub margin_before_komi: Vec<Option<i64>>,
    pub margin: Vec<Option<f64>>,
    pub winner: Vec<Option<Winner>>,
    /// Per rule set, the margin before komi with every doubtful chain
    /// decided the other way (None when no chain is doubtful): what bounds
    /// a rate's dependence on the settler without settling twice.
    pub margin_before_komi_flipped: Vec<Option<i64>>,
    pub self_check_status: Option<&'static str>,
    pub self_check_rule_set: Option<&'static str>,
    pub self_check_recorded: Option<f64>,
    pub self_check_computed: Option<f64>,
    /// `standard` or `dajiefang` (None only for skipped rows).
    pub variant: Option<&'static str>,
    /// 大解放 rows: no `RU` named the variant, `MF` did.
    pub variant_inferred: Option<bool>,
    /// 大解放 rows: the first move illegal under the variant (0-based).
    pub first_illegal_dajiefang: Option<i64>,
    /// 大解放 rows, per colour: 下子实着, 下子虚着, 移子实着, 移子虚着.
    pub dajiefang_placed: [Option<i64>; 2],
    pub dajiefang_placed_off: [Option<i64>; 2],
    pub dajiefang_moved: [Option<i64>; 2],
    pub dajiefang_moved_off: [Option<i64>; 2],
    /// 大解放 rows: the game ended by four consecutive 虚着.
    pub dajiefang_four_xu: Option<bool>,
    pub dajiefang_ko_retakes_by_moving: Option<i64>,
    /// Scored rows: the seeds' counting procedures whose count differs from
    /// their rule set's formula (comma-separated ids, empty when all agree).
    pub methods_differ: Option<String>,
    /// Scored rows: the game's features that can make them differ.
    pub methods_findings: Option<String>,
}

/// The columns in order: name, kind. Built once.
pub fn columns() -> Vec<(String, Kind)> {
    use Kind::*;
    let mut c: Vec<(String, Kind)> = [
        ("source", Str),
        ("input", Str),
        ("game_index", Int),
        ("game_hash", Str),
        ("status", Str),
        ("skip_reason", Str),
        ("estimate", Bool),
        ("board_width", Int),
        ("board_height", Int),
        ("komi_recorded", Str),
        ("komi", Float),
        ("komi_scaled", Bool),
        ("handicap", Int),
        ("handicap_source", Str),
        ("rules_recorded", Str),
        ("rules", Str),
        ("result_recorded", Str),
        ("result", Str),
        ("result_winner", Str),
        ("result_margin", Float),
        ("how_ended", Str),
        ("player_black", Str),
        ("player_white", Str),
        ("rank_black", Str),
        ("rank_white", Str),
        ("year", Int),
        ("date", Str),
        ("event", Str),
        ("moves", Int),
        ("variations", Int),
        ("placed_first_stop_b", Int),
        ("placed_first_stop_w", Int),
        ("placed_total_b", Int),
        ("placed_total_w", Int),
        ("passes_b", Int),
        ("passes_w", Int),
        ("captures_b", Int),
        ("captures_w", Int),
        ("stops", Int),
        ("first_stop_move", Int),
        ("resumed_after_stop", Bool),
        ("last_mover", Str),
        ("problems", Str),
    ]
    .into_iter()
    .map(|(n, k)| (n.to_string(), k))
    .collect();
    for l in Legality::ALL {
        c.push((format!("first_illegal_{}", l.id()), Int));
    }
    for (n, k) in [
        ("dead_source", Str),
        ("confidence", Float),
        ("settle_layer", Str),
        ("settled_stones_benson", Int),
        ("settled_stones_static", Int),
        ("settled_stones_playouts", Int),
        ("settled_stones_reading", Int),
        ("settled_stones_record_result", Int),
        ("open_chains", Int),
        ("doubtful_chains", Int),
        ("referee", Str),
        ("dead_b", Int),
        ("dead_w", Int),
        ("seki_points", Int),
        ("fills_b", Int),
        ("fills_w", Int),
    ] {
        c.push((n.to_string(), k));
    }
    for r in RuleSet::ALL {
        c.push((format!("{}_margin_before_komi", r.id()), Int));
        c.push((format!("{}_margin", r.id()), Float));
        c.push((format!("{}_winner", r.id()), Str));
        c.push((format!("{}_margin_before_komi_flipped", r.id()), Int));
    }
    for (n, k) in [
        ("self_check_status", Str),
        ("self_check_rule_set", Str),
        ("self_check_recorded_margin", Float),
        ("self_check_computed_margin", Float),
        ("variant", Str),
        ("variant_inferred", Bool),
        ("first_illegal_dajiefang", Int),
        ("dajiefang_placed_b", Int),
        ("dajiefang_placed_w", Int),
        ("dajiefang_placed_off_b", Int),
        ("dajiefang_placed_off_w", Int),
        ("dajiefang_moved_b", Int),
        ("dajiefang_moved_w", Int),
        ("dajiefang_moved_off_b", Int),
        ("dajiefang_moved_off_w", Int),
        ("dajiefang_four_xu", Bool),
        ("dajiefang_ko_retakes_by_moving", Int),
        ("methods_differ", Str),
        ("methods_findings", Str),
    ] {
        c.push((n.to_string(), k));
    }
    c
}

impl GameRow {
    /// The cells of this row in [`columns`] order.
    pub fn cells(&self) -> Vec<Cell<'_>> {
        use Cell::*;
        fn s(v: &Option<String>) -> Cell<'_> {
            Cell::Str(v.as_deref())
        }
        let mut out = vec![
            Str(Some(&self.source)),
            Str(Some(&self.input)),
            Int(Some(self.game_index)),
            s(&self.game_hash),
            Str(Some(self.status)),
            Str(self.skip_reason),
            Bool(Some(self.estimate)),
            Int(self.board_width),
            Int(self.board_height),
            s(&self.komi_recorded),
            Float(self.komi),
            Bool(self.komi_scaled),
            Int(self.handicap),
            Str(self.handicap_source),
            s(&self.rules_recorded),
            Str(self.rules),
            s(&self.result_recorded),
            s(&self.result),
            Str(self.result_winner),
            Float(self.result_margin),
            Str(self.how_ended),
            s(&self.player_black),
            s(&self.player_white),
            s(&self.rank_black),
            s(&self.rank_white),
            Int(self.year),
            s(&self.date),
            s(&self.event),
            Int(self.moves),
            Int(self.variations),
            Int(self.placed_first_stop[0]),
            Int(self.placed_first_stop[1]),
            Int(self.placed_total[0]),
            Int(self.placed_total[1]),
            Int(self.passes[0]),
            Int(self.passes[1]),
            Int(self.captures[0]),
            Int(self.captures[1]),
            Int(self.stops),
            Int(self.first_stop_move),
            Bool(self.resumed_after_stop),
            Str(self.last_mover),
            s(&self.problems),
        ];
        for i in 0..Legality::ALL.len() {
            out.push(Int(self.first_illegal.get(i).copied().flatten()));
        }
        out.extend([
            Str(self.dead_source),
            Float(self.confidence),
            Str(self.settle_layer),
            Int(self.settled_stones[0]),
            Int(self.settled_stones[1]),
            Int(self.settled_stones[2]),
            Int(self.settled_stones[3]),
            Int(self.settled_stones[4]),
            Int(self.open_chains),
            Int(self.doubtful_chains),
            Str(self.referee),
            Int(self.dead[0]),
            Int(self.dead[1]),
            Int(self.seki_points),
            Int(self.fills[0]),
            Int(self.fills[1]),
        ]);
        for i in 0..RuleSet::ALL.len() {
            out.push(Int(self.margin_before_komi.get(i).copied().flatten()));
            out.push(Float(self.margin.get(i).copied().flatten()));
            out.push(Str(self
                .winner
                .get(i)
                .copied()
                .flatten()
                .map(Winner::as_str)));
            out.push(Int(self
                .margin_before_komi_flipped
                .get(i)
                .copied()
                .flatten()));
        }
        out.extend([
            Str(self.self_check_status),
            Str(self.self_check_rule_set),
            Float(self.self_check_recorded),
            Float(self.self_check_computed),
            Str(self.variant),
            Bool(self.variant_inferred),
            Int(self.first_illegal_dajiefang),
            Int(self.dajiefang_placed[0]),
            Int(self.dajiefang_placed[1]),
            Int(self.dajiefang_placed_off[0]),
            Int(self.dajiefang_placed_off[1]),
            Int(self.dajiefang_moved[0]),
            Int(self.dajiefang_moved[1]),
            Int(self.dajiefang_moved_off[0]),
            Int(self.dajiefang_moved_off[1]),
            Bool(self.dajiefang_four_xu),
            Int(self.dajiefang_ko_retakes_by_moving),
            s(&self.methods_differ),
            s(&self.methods_findings),
        ]);
        out
    }

    /// A row for a game that could not be replayed.
    pub fn skipped(source: &str, input: &str, index: usize, reason: SkipReason) -> GameRow {
        GameRow {
            source: source.to_string(),
            input: input.to_string(),
            game_index: index as i64,
            status: "skipped",
            skip_reason: Some(reason.as_str()),
            ..GameRow::default()
        }
    }

    /// The row of a replayable game. Games that did not end in a stop and
    /// carry no numeric result are `unfinished` and get no verdicts unless
    /// `include_unfinished` asks for estimates.
    pub fn analysed(
        source: &str,
        input: &str,
        index: usize,
        game: &Game<'_>,
        analyser: &mut Analyser,
        komi: KomiPolicy,
        include_unfinished: bool,
    ) -> GameRow {
        // One replay per game: the row's replay facts and, when it is
        // scored, the verdicts come from the same `Replayed`.
        let replayed = analyser.replayed(game);
        let variant = replayed.variant().copied();
        let report = *replayed.report();
        let acc = &report.accounting;
        let ends_in_stop = acc.last_stop.is_some_and(|s| s + 1 >= acc.moves);
        let four_xu = variant.is_some_and(|v| v.accounting.ended_by_four_xu());
        let ended = match how_ended(game, ends_in_stop) {
            "unfinished" if four_xu => "four_xu",
            other => other,
        };
        let scorable = ends_in_stop || four_xu || ended == "counted";
        let info = &game.info;
        let text = |v: Option<std::borrow::Cow<'_, str>>| v.map(|c| c.into_owned());
        let raw = |v: Option<&[u8]>| v.map(|b| String::from_utf8_lossy(b).into_owned());
        let by =
            |x: verdict_rules::ByColor<u32>| [Some(i64::from(x.black)), Some(i64::from(x.white))];
        let (winner, margin) = match info.result {
            GameResult::Win { winner, by, .. } => (
                Some(winner.fold("B", "W")),
                match by {
                    WinBy::Points(p) => Some(winner.fold(p, -p)),
                    _ => None,
                },
            ),
            GameResult::Draw => (Some("draw"), Some(0.0)),
            _ => (None, None),
        };
        let problems: Vec<&str> = game
            .problems
            .union(report.problems)
            .iter()
            .map(|p| p.as_str())
            .collect();
        let score = scorable || include_unfinished;
        let mut row = GameRow {
            source: source.to_string(),
            input: input.to_string(),
            game_index: index as i64,
            game_hash: Some(format!("{:016x}", game_hash(game))),
            status: if scorable {
                "scored"
            } else if include_unfinished {
                "estimated"
            } else {
                "unfinished"
            },
            skip_reason: None,
            estimate: !scorable && include_unfinished,
            board_width: Some(i64::from(game.size.width())),
            board_height: Some(i64::from(game.size.height())),
            komi_recorded: raw(info.raw.km),
            komi: Some(match komi {
                KomiPolicy::Game => info.komi.points,
                KomiPolicy::Fixed(k) => k,
            }),
            komi_scaled: Some(info.komi.is_scaled()),
            handicap: Some(i64::from(game.handicap.stones)),
            handicap_source: Some(match game.handicap.source {
                HandicapSource::None => "none",
                HandicapSource::Declared => "declared",
                HandicapSource::Setup => "setup",
                HandicapSource::OpeningMoves => "opening_moves",
            }),
            rules_recorded: raw(info.raw.ru),
            rules: Some(info.rules.as_str()),
            result_recorded: raw(info.raw.re),
            result: Some(info.result.to_string()),
            result_winner: winner,
            result_margin: margin,
            how_ended: Some(ended),
            player_black: text(info.player(Color::Black)),
            player_white: text(info.player(Color::White)),
            rank_black: text(info.rank(Color::Black)),
            rank_white: text(info.rank(Color::White)),
            year: info.year.map(i64::from),
            date: text(info.date()),
            event: text(info.event()),
            moves: Some(game.moves.len() as i64),
            variations: Some(i64::from(game.variations)),
            placed_first_stop: by(acc.placed_to_first_stop),
            placed_total: by(acc.placed_total),
            passes: by(acc.passes),
            captures: by(acc.captures),
            stops: Some(i64::from(acc.stops)),
            first_stop_move: acc.first_stop.map(i64::from),
            resumed_after_stop: Some(acc.resumed_after_stop),
            last_mover: acc.last_mover.map(|c| c.fold("B", "W")),
            problems: Some(problems.join(",")),
            first_illegal: report
                .legality
                .iter()
                .map(|v| v.first_illegal.map(|m| i64::from(m.move_index)))
                .collect(),
            variant: Some(if variant.is_some() {
                "dajiefang"
            } else {
                "standard"
            }),
            ..GameRow::default()
        };
        if let Some(v) = &variant {
            fill_variant(&mut row, game, v);
        }
        if score {
            fill_scores(&mut row, &analyser.analyse_replayed(game, replayed, komi));
        }
        row
    }
}

impl GameRow {
    /// Blanks the verdict columns of rule sets not in `selected` (the
    /// columns stay, so the schema does not depend on the job).
    pub fn keep_rule_sets(&mut self, selected: &[RuleSet]) {
        for (i, r) in RuleSet::ALL.iter().enumerate() {
            if !selected.contains(r) {
                if let Some(v) = self.margin.get_mut(i) {
                    *v = None;
                }
                if let Some(v) = self.margin_before_komi.get_mut(i) {
                    *v = None;
                }
                if let Some(v) = self.winner.get_mut(i) {
                    *v = None;
                }
                if let Some(v) = self.margin_before_komi_flipped.get_mut(i) {
                    *v = None;
                }
            }
        }
    }
}

/// The 大解放 columns, and the ordinary ones whose meaning the variant
/// changes: no ordinary family judges it, there are no passes nor stops (its
/// 虚着 are counted apart), and no handicap.
fn fill_variant(row: &mut GameRow, game: &Game<'_>, v: &verdict_rules::dajiefang::Report) {
    let a = &v.accounting;
    let by = |x: verdict_rules::ByColor<u32>| [Some(i64::from(x.black)), Some(i64::from(x.white))];
    row.variant_inferred = game.dajiefang.as_ref().map(|r| r.inferred);
    row.first_illegal_dajiefang = v.verdict.first_illegal.map(|m| i64::from(m.move_index));
    row.first_illegal = vec![None; Legality::ALL.len()];
    row.dajiefang_placed = by(a.placed);
    row.dajiefang_placed_off = by(a.placed_off);
    row.dajiefang_moved = by(a.moved);
    row.dajiefang_moved_off = by(a.moved_off);
    row.dajiefang_four_xu = Some(a.ended_by_four_xu());
    row.dajiefang_ko_retakes_by_moving = Some(i64::from(a.ko_retakes_by_moving));
    row.passes = [None, None];
    row.stops = None;
    row.first_stop_move = None;
    row.resumed_after_stop = None;
    row.handicap = Some(0);
    row.handicap_source = Some("none");
}

fn fill_scores(row: &mut GameRow, a: &Analysis) {
    let c = &a.counts;
    row.dead_source = Some(a.dead_source.as_str());
    match &a.settled {
        None => row.confidence = Some(1.0),
        Some(facts) => {
            row.confidence = Some(f64::from(facts.confidence));
            row.settle_layer = Some(facts.deepest.as_str());
            row.settled_stones = facts.stones_by_layer.map(|n| Some(i64::from(n)));
            row.open_chains = Some(i64::from(facts.open_chains));
            row.doubtful_chains = Some(a.flipped.map_or(0, |f| i64::from(f.chains)));
        }
    }
    row.referee = a.refereed.as_ref().map(|r| r.as_str());
    if let Some(f) = &a.flipped {
        row.margin_before_komi_flipped = f
            .verdicts
            .iter()
            .map(|v| Some(v.margin_before_komi))
            .collect();
    }
    row.dead = [Some(i64::from(c.dead.black)), Some(i64::from(c.dead.white))];
    row.seki_points = Some(i64::from(c.seki_liberties));
    row.fills = [
        Some(i64::from(c.fills.black)),
        Some(i64::from(c.fills.white)),
    ];
    // Rule sets that do not apply to the game (the variant's) stay null.
    let of = |r: &RuleSet| a.get_verdict(*r);
    row.margin_before_komi = RuleSet::ALL
        .iter()
        .map(|r| of(r).map(|v| v.margin_before_komi))
        .collect();
    row.margin = RuleSet::ALL
        .iter()
        .map(|r| of(r).map(|v| v.margin))
        .collect();
    row.winner = RuleSet::ALL
        .iter()
        .map(|r| of(r).map(|v| v.winner))
        .collect();
    row.self_check_status = Some(a.self_check.status());
    row.self_check_rule_set = match a.self_check {
        SelfCheck::Agrees { rule_set, .. } | SelfCheck::Disagrees { rule_set, .. } => {
            Some(rule_set.id())
        }
        SelfCheck::Unchecked(_) => None,
    };
    row.self_check_recorded = a.self_check.recorded_margin();
    row.self_check_computed = a.self_check.computed_margin();
    let methods = count_methods(&a.position, &a.dead, &a.counts, &a.terms);
    let differ: Vec<&str> = methods.differing().map(|r| r.method.id()).collect();
    let findings: Vec<&str> = methods.findings.iter().map(|f| f.as_str()).collect();
    row.methods_differ = Some(differ.join(","));
    row.methods_findings = Some(findings.join(","));
}

/// A stable 64-bit identity of a game's play: FNV-1a over the board size,
/// the initial setup (sorted) and the moves, not the metadata, so the same
/// game copied into two corpora under other names hashes the same.
pub fn game_hash(game: &Game<'_>) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(PRIME);
    };
    eat(game.size.width());
    eat(game.size.height());
    let mut setup: Vec<(u8, u8, u8)> = game
        .setup
        .iter()
        .map(|s| {
            (
                s.point.y(),
                s.point.x(),
                s.color.map_or(0, |c| c.index() as u8 + 1),
            )
        })
        .collect();
    setup.sort_unstable();
    for (y, x, c) in setup {
        eat(b'S');
        eat(c);
        eat(x);
        eat(y);
    }
    for m in &game.moves {
        eat(m.color.letter() as u8);
        match m.action {
            Action::Play(p) => {
                eat(p.x());
                eat(p.y());
            }
            Action::Pass => {
                eat(255);
                eat(255);
            }
        }
    }
    h
}

/// Whether a verdict pair names different winners (a win against a draw counts).
pub fn differ(a: Option<&str>, b: Option<&str>) -> Option<bool> {
    Some(a? != b?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/schema.md is the public contract: every column is documented.
    #[test]
    fn every_column_is_documented() {
        let doc = include_str!("../../../docs/schema.md");
        for (name, _) in columns() {
            let family = name.strip_prefix("first_illegal_").is_some();
            let rule = RuleSet::ALL
                .iter()
                .any(|r| name.starts_with(&format!("{}_", r.id())));
            let named = doc.contains(&format!("`{name}`"));
            assert!(named || family || rule, "{name} is not in docs/schema.md");
        }
        assert!(doc.contains(&format!("(version {SCHEMA_VERSION})")));
    }

    #[test]
    fn a_row_has_one_cell_per_column() {
        assert_eq!(GameRow::default().cells().len(), columns().len());
    }
}
