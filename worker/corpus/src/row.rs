//! One output row per game: identity, metadata, replay facts, settling,
//! every rule set's verdict, the self-check, and the status.
//!
//! A [`GameRow`] holds typed values; its columns (names, types, docs and
//! how each is read from a row) are defined once in [`crate::columns`],
//! the public contract documented in `docs/schema.md`.

use verdict_rules::analyse::{Analyser, Analysis, DeadSource, KomiPolicy, SelfCheck};
use verdict_rules::game::{Game, HandicapSource, SkipReason};
use verdict_rules::info::Rules;
use verdict_rules::outcome::{self, Ending, HowEnded};
use verdict_rules::replay::Legality;
use verdict_rules::score::methods::count_methods;
use verdict_rules::score::{RuleSet, Winner};
use verdict_rules::settle::Layer;
use verdict_rules::Color;

pub use crate::columns::{columns, registry, Cell, Column, Kind};

/// Bumped whenever a column is added, removed, renamed or changes meaning.
pub const SCHEMA_VERSION: &str = "5";

/// What became of a game: the `status` column.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowStatus {
    /// Ended in a way the players counted ([`Ending::scorable`]).
    Scored,
    /// Not scorable, but scored because estimates were asked for.
    Estimated,
    /// Not scorable: counted, not scored.
    Unfinished,
    /// Not replayable at all (`skip_reason` says why).
    #[default]
    Skipped,
}

impl RowStatus {
    pub const ALL: [RowStatus; 4] = [
        RowStatus::Scored,
        RowStatus::Estimated,
        RowStatus::Unfinished,
        RowStatus::Skipped,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            RowStatus::Scored => "scored",
            RowStatus::Estimated => "estimated",
            RowStatus::Unfinished => "unfinished",
            RowStatus::Skipped => "skipped",
        }
    }

    /// The status named `name` ([`RowStatus::as_str`]).
    pub fn parse(name: &str) -> Option<RowStatus> {
        RowStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The status of a replayable game of this `ending`.
    pub const fn of(ending: Ending, include_unfinished: bool) -> RowStatus {
        if ending.scorable() {
            RowStatus::Scored
        } else if include_unfinished {
            RowStatus::Estimated
        } else {
            RowStatus::Unfinished
        }
    }
}

/// Which game a record is: the `variant` column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    Standard,
    /// 大解放 (RULES.md section 6).
    Dajiefang,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Standard, Variant::Dajiefang];

    pub const fn as_str(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Dajiefang => "dajiefang",
        }
    }
}

/// Everything verdict writes about one game, owned so rows can cross threads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRow {
    pub source: String,
    pub input: String,
    pub game_index: i64,
    pub game_hash: Option<String>,
    pub status: RowStatus,
    pub skip_reason: Option<SkipReason>,
    pub estimate: bool,
    pub board_width: Option<i64>,
    pub board_height: Option<i64>,
    pub komi_recorded: Option<String>,
    pub komi: Option<f64>,
    pub komi_scaled: Option<bool>,
    pub handicap: Option<i64>,
    pub handicap_source: Option<HandicapSource>,
    pub rules_recorded: Option<String>,
    pub rules: Option<Rules>,
    pub result_recorded: Option<String>,
    pub result: Option<String>,
    pub result_winner: Option<Winner>,
    pub result_margin: Option<f64>,
    pub how_ended: Option<HowEnded>,
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
    pub last_mover: Option<Color>,
    pub problems: Option<String>,
    /// Per legality family, in `Legality::ALL` order: the first offending
    /// move (0-based) or None when legal.
    pub first_illegal: Vec<Option<i64>>,
    pub dead_source: Option<DeadSource>,
    pub confidence: Option<f64>,
    /// The deepest settling layer that decided a chain (None with marks).
    pub settle_layer: Option<Layer>,
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
    /// The record's result against our count (None when not scored).
    pub self_check: Option<SelfCheck>,
    /// `standard` or `dajiefang` (None only for skipped rows).
    pub variant: Option<Variant>,
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

impl GameRow {
    /// The cells of this row in [`columns`] order.
    pub fn cells(&self) -> Vec<Cell<'_>> {
        registry().iter().map(|c| c.cell(self)).collect()
    }

    /// The rule set the self-check compared under, when it could.
    pub fn self_check_rule_set(&self) -> Option<RuleSet> {
        match self.self_check? {
            SelfCheck::Agrees { rule_set, .. } | SelfCheck::Disagrees { rule_set, .. } => {
                Some(rule_set)
            }
            SelfCheck::Unchecked(_) => None,
        }
    }

    /// A row for a game that could not be replayed.
    pub fn skipped(source: &str, input: &str, index: usize, reason: SkipReason) -> GameRow {
        GameRow {
            source: source.to_string(),
            input: input.to_string(),
            game_index: index as i64,
            status: RowStatus::Skipped,
            skip_reason: Some(reason),
            ..GameRow::default()
        }
    }

    /// The row of a replayable game. Games that are not scorable
    /// ([`Ending::scorable`]) are `unfinished` and get no verdicts unless
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
        let ending = Ending::of(game, &replayed);
        let status = RowStatus::of(ending, include_unfinished);
        let info = &game.info;
        let text = |v: Option<std::borrow::Cow<'_, str>>| v.map(|c| c.into_owned());
        let raw = |v: Option<&[u8]>| v.map(|b| String::from_utf8_lossy(b).into_owned());
        let by =
            |x: verdict_rules::ByColor<u32>| [Some(i64::from(x.black)), Some(i64::from(x.white))];
        let problems: Vec<&str> = game
            .problems
            .union(report.problems)
            .iter()
            .map(|p| p.as_str())
            .collect();
        let mut row = GameRow {
            source: source.to_string(),
            input: input.to_string(),
            game_index: index as i64,
            game_hash: Some(format!("{:016x}", outcome::game_hash(game))),
            status,
            skip_reason: None,
            estimate: status == RowStatus::Estimated,
            board_width: Some(i64::from(game.size.width())),
            board_height: Some(i64::from(game.size.height())),
            komi_recorded: raw(info.raw.km),
            komi: Some(match komi {
                KomiPolicy::Game => info.komi.points,
                KomiPolicy::Fixed(k) => k,
            }),
            komi_scaled: Some(info.komi.is_scaled()),
            handicap: Some(i64::from(game.handicap.stones)),
            handicap_source: Some(game.handicap.source),
            rules_recorded: raw(info.raw.ru),
            rules: Some(info.rules),
            result_recorded: raw(info.raw.re),
            result: Some(info.result.to_string()),
            result_winner: outcome::recorded_winner(&info.result),
            result_margin: outcome::recorded_margin(&info.result),
            how_ended: Some(ending.how),
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
            last_mover: acc.last_mover,
            problems: Some(problems.join(",")),
            first_illegal: report
                .legality
                .iter()
                .map(|v| v.first_illegal.map(|m| i64::from(m.move_index)))
                .collect(),
            variant: Some(if variant.is_some() {
                Variant::Dajiefang
            } else {
                Variant::Standard
            }),
            ..GameRow::default()
        };
        if let Some(v) = &variant {
            fill_variant(&mut row, game, v);
        }
        if status != RowStatus::Unfinished {
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
    row.handicap_source = Some(HandicapSource::None);
}

fn fill_scores(row: &mut GameRow, a: &Analysis) {
    let c = &a.counts;
    row.dead_source = Some(a.dead_source);
    match &a.settled {
        None => row.confidence = Some(1.0),
        Some(facts) => {
            row.confidence = Some(f64::from(facts.confidence));
            row.settle_layer = Some(facts.deepest);
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
    row.self_check = Some(a.self_check);
    let methods = count_methods(&a.position, &a.dead, &a.counts, &a.terms);
    let differ: Vec<&str> = methods.differing().map(|r| r.method.id()).collect();
    let findings: Vec<&str> = methods.findings.iter().map(|f| f.as_str()).collect();
    row.methods_differ = Some(differ.join(","));
    row.methods_findings = Some(findings.join(","));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_of(record: &str, include_unfinished: bool) -> GameRow {
        let sgf = verdict_rules::sgf::Reader::new(record.as_bytes())
            .next()
            .expect("one tree");
        let game = Game::from_sgf(&sgf, record.as_bytes()).expect("a game");
        GameRow::analysed(
            "t.sgf",
            "t",
            0,
            &game,
            &mut Analyser::new(),
            KomiPolicy::Game,
            include_unfinished,
        )
    }

    #[test]
    fn the_status_follows_the_ending() {
        let passed = "(;SZ[5]KM[0.5]RE[W+R];B[bb];W[dd];B[];W[])";
        let resigned = "(;SZ[5]KM[0.5]RE[W+R];B[bb];W[dd])";
        let row = row_of(passed, false);
        assert_eq!(row.status, RowStatus::Scored);
        assert_eq!(row.how_ended, Some(HowEnded::Resign));
        assert!(!row.estimate);
        assert!(row.self_check.is_some() && !row.margin.is_empty());
        let row = row_of(resigned, false);
        assert_eq!(row.status, RowStatus::Unfinished);
        assert_eq!(row.result_winner, Some(Winner::White));
        assert_eq!(row.result_margin, None);
        assert!(row.self_check.is_none() && row.margin.is_empty());
        let row = row_of(resigned, true);
        assert_eq!((row.status, row.estimate), (RowStatus::Estimated, true));
        assert_eq!(row.winner.len(), RuleSet::ALL.len());
    }

    #[test]
    fn typed_values_are_written_by_their_names() {
        let row = row_of(
            "(;SZ[5]HA[2]AB[bb][dd]RU[AGA]RE[B+2.5];W[cc];B[];W[])",
            false,
        );
        let cell = |name: &str| {
            let c = registry().iter().find(|c| c.name == name).unwrap();
            c.cell(&row)
        };
        assert_eq!(cell("status"), Cell::Str(Some("scored")));
        assert_eq!(cell("how_ended"), Cell::Str(Some("counted")));
        assert_eq!(cell("rules"), Cell::Str(Some("aga")));
        assert_eq!(cell("handicap_source"), Cell::Str(Some("declared")));
        assert_eq!(cell("result_winner"), Cell::Str(Some("B")));
        assert_eq!(cell("result_margin"), Cell::Float(Some(2.5)));
        assert_eq!(cell("last_mover"), Cell::Str(Some("W")));
        assert_eq!(cell("variant"), Cell::Str(Some("standard")));
        assert_eq!(cell("self_check_rule_set"), Cell::Str(Some("aga")));
        assert_eq!(cell("skip_reason"), Cell::Str(None));
        let skipped = GameRow::skipped("x", "y", 3, SkipReason::NoGame);
        let c = registry().iter().find(|c| c.name == "skip_reason").unwrap();
        assert_eq!(c.cell(&skipped), Cell::Str(Some("no_game")));
    }

    #[test]
    fn a_row_has_one_cell_per_column() {
        assert_eq!(GameRow::default().cells().len(), columns().len());
    }
}
