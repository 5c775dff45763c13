//! The columns of a game row, each defined once: its name, its type, the
//! line `docs/schema.md` gives it and how its value is read from a
//! [`GameRow`]. The Parquet writer takes its schema from [`registry`],
//! every row's cells come from it ([`GameRow::cells`]), and the schema
//! document is checked against [`schema_table`], so the three cannot drift.
//!
//! Columns that come in families are written once as a template: one
//! `first_illegal_<family>` per legality family ([`Legality::ALL`]), and a
//! run of `<rule set>_...` columns repeated for every rule set in turn
//! ([`RuleSet::ALL`]).

use std::sync::OnceLock;

use verdict_rules::replay::Legality;
use verdict_rules::score::{RuleSet, Winner};

use crate::row::GameRow;

/// The type of a column, in types DuckDB, pandas, Polars and Spark all read
/// without casts (signed integers, doubles, booleans, UTF-8 strings).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Float,
    Bool,
}

impl Kind {
    /// The type's name in `docs/schema.md` (Parquet's logical type).
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Str => "string",
            Kind::Int => "int64",
            Kind::Float => "double",
            Kind::Bool => "boolean",
        }
    }
}

/// A value of one cell; `None` is SQL NULL.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell<'a> {
    Str(Option<&'a str>),
    Int(Option<i64>),
    Float(Option<f64>),
    Bool(Option<bool>),
}

impl Cell<'_> {
    /// The kind of column this cell belongs in.
    pub const fn kind(&self) -> Kind {
        match self {
            Cell::Str(_) => Kind::Str,
            Cell::Int(_) => Kind::Int,
            Cell::Float(_) => Kind::Float,
            Cell::Bool(_) => Kind::Bool,
        }
    }
}

/// How a column's value is read from a row.
#[derive(Copy, Clone)]
enum Get {
    /// One column.
    Row(for<'a> fn(&'a GameRow) -> Cell<'a>),
    /// One column per legality family, given its index in [`Legality::ALL`].
    PerLegality(for<'a> fn(&'a GameRow, usize) -> Cell<'a>),
    /// One column per rule set, given its index in [`RuleSet::ALL`];
    /// consecutive ones repeat together for each rule set.
    PerRuleSet(for<'a> fn(&'a GameRow, usize) -> Cell<'a>),
}

/// One line of the registry: a column, or the template of a family.
struct Spec {
    /// The name, with `<family>` or `<rule set>` for a family.
    name: &'static str,
    kind: Kind,
    doc: &'static str,
    get: Get,
}

macro_rules! col {
    ($name:literal, $kind:ident, $doc:expr, |$r:ident| $e:expr) => {
        Spec {
            name: $name,
            kind: Kind::$kind,
            doc: $doc,
            get: Get::Row(|$r| $e),
        }
    };
    ($name:literal, $kind:ident, $doc:expr, $family:ident |$r:ident, $i:ident| $e:expr) => {
        Spec {
            name: $name,
            kind: Kind::$kind,
            doc: $doc,
            get: Get::$family(|$r, $i| $e),
        }
    };
}

fn s(v: &Option<String>) -> Cell<'_> {
    Cell::Str(v.as_deref())
}

fn nth<T: Copy>(v: &[Option<T>], i: usize) -> Option<T> {
    v.get(i).copied().flatten()
}

const BOARD_SIZE: &str = "board size";
const DECODED: &str = "decoded text";
const PLACED_FIRST_STOP: &str = "`N_X`: stones placed up to the first stop, setup included (大解放: stones put on the board from the bowl, setup included; a moving move or a 虚着 puts none)";
const PLACED_TOTAL: &str = "stones placed in all";
const PASSES: &str = "passes (null for 大解放 games, which have none: see `dajiefang_*`)";
const CAPTURES: &str = "stones each colour captured during play";
const SETTLED_STONES: &str = "stones whose status each layer decided; null with marks";
const DEAD: &str = "dead stones removed";
const FILLS: &str = "owned points the owner must still fill";
const SELF_CHECK_MARGINS: &str = "the two margins compared";
const DJF_PLACED: &str = "大解放 rows: 下子实着, stones from the bowl put on the board";
const DJF_PLACED_OFF: &str = "大解放 rows: 下子虚着, stones from the bowl put beside the board";
const DJF_MOVED: &str = "大解放 rows: 移子实着, stones moved from point to point";
const DJF_MOVED_OFF: &str = "大解放 rows: 移子虚着, stones moved off the board";

/// Every column in order. The `_b`/`_w` pairs are Black's then White's.
const SPECS: &[Spec] = &[
    col!("source", Str, "the file the game was read from", |r| Cell::Str(Some(&r.source))),
    col!("input", Str, "the command-line input (file or directory) it was found under", |r| Cell::Str(Some(&r.input))),
    col!("game_index", Int, "index of the game within its file, from 0", |r| Cell::Int(Some(r.game_index))),
    col!("game_hash", Str, "16 hex digits: FNV-1a 64 of board size, sorted initial setup and the moves, not metadata; equal for the same game in two corpora (`--dedup` uses it); null for skipped rows", |r| s(&r.game_hash)),
    col!("status", Str, "`scored` (ended in two passes or has a numeric result), `unfinished` (resigned, timed out, ...: counted, not scored), `estimated` (unfinished but scored because of `--include-unfinished`), `skipped`", |r| Cell::Str(Some(r.status.as_str()))),
    col!("skip_reason", Str, "for `skipped` rows: `no_game`, `not_go`, `unsupported_size`, `bad_size`, `unreadable`", |r| Cell::Str(r.skip_reason.map(|x| x.as_str()))),
    col!("estimate", Bool, "the verdicts are estimates of an unfinished game", |r| Cell::Bool(Some(r.estimate))),
    col!("board_width", Int, BOARD_SIZE, |r| Cell::Int(r.board_width)),
    col!("board_height", Int, BOARD_SIZE, |r| Cell::Int(r.board_height)),
    col!("komi_recorded", Str, "`KM` as written", |r| s(&r.komi_recorded)),
    col!("komi", Float, "komi in points used for scoring (the game's, normalised, or the job's `--komi`)", |r| Cell::Float(r.komi)),
    col!("komi_scaled", Bool, "`KM` was normalised (hundredths such as `KM[650]`, or stones such as `KM[375]`)", |r| Cell::Bool(r.komi_scaled)),
    col!("handicap", Int, "handicap stones (0: even; always 0 for 大解放 games, which have none)", |r| Cell::Int(r.handicap)),
    col!("handicap_source", Str, "`none`, `declared` (HA), `setup` (Black-only root setup), `opening_moves`", |r| Cell::Str(r.handicap_source.map(|x| x.as_str()))),
    col!("rules_recorded", Str, "`RU` as written", |r| s(&r.rules_recorded)),
    col!("rules", Str, "recorded rules family: `japanese`, `chinese`, `korean`, `aga`, `new_zealand`, `ing`, `tromp_taylor`, `unknown`", |r| Cell::Str(r.rules.map(|x| x.as_str()))),
    col!("result_recorded", Str, "`RE` as written", |r| s(&r.result_recorded)),
    col!("result", Str, "the result, canonical (`B+3.5`, `W+R`, `0`, `Void`, `?`)", |r| s(&r.result)),
    col!("result_winner", Str, "`B`, `W`, `draw`, or null", |r| Cell::Str(r.result_winner.map(Winner::as_str))),
    col!("result_margin", Float, "recorded margin in points, Black's view (negative: White won), when numeric", |r| Cell::Float(r.result_margin)),
    col!("how_ended", Str, "`counted`, `resign`, `time`, `forfeit`, `referee`, `void`, `two_passes`, `four_xu` (a 大解放 game ended by four consecutive 虚着), `unfinished`", |r| Cell::Str(r.how_ended.map(|x| x.as_str()))),
    col!("player_black", Str, DECODED, |r| s(&r.player_black)),
    col!("player_white", Str, DECODED, |r| s(&r.player_white)),
    col!("rank_black", Str, DECODED, |r| s(&r.rank_black)),
    col!("rank_white", Str, DECODED, |r| s(&r.rank_white)),
    col!("year", Int, "year from `DT`", |r| Cell::Int(r.year)),
    col!("date", Str, DECODED, |r| s(&r.date)),
    col!("event", Str, DECODED, |r| s(&r.event)),
    col!("moves", Int, "main-line moves", |r| Cell::Int(r.moves)),
    col!("variations", Int, "subtrees not on the main line", |r| Cell::Int(r.variations)),
    col!("placed_first_stop_b", Int, PLACED_FIRST_STOP, |r| Cell::Int(r.placed_first_stop[0])),
    col!("placed_first_stop_w", Int, PLACED_FIRST_STOP, |r| Cell::Int(r.placed_first_stop[1])),
    col!("placed_total_b", Int, PLACED_TOTAL, |r| Cell::Int(r.placed_total[0])),
    col!("placed_total_w", Int, PLACED_TOTAL, |r| Cell::Int(r.placed_total[1])),
    col!("passes_b", Int, PASSES, |r| Cell::Int(r.passes[0])),
    col!("passes_w", Int, PASSES, |r| Cell::Int(r.passes[1])),
    col!("captures_b", Int, CAPTURES, |r| Cell::Int(r.captures[0])),
    col!("captures_w", Int, CAPTURES, |r| Cell::Int(r.captures[1])),
    col!("stops", Int, "pairs of consecutive passes (null for 大解放 games)", |r| Cell::Int(r.stops)),
    col!("first_stop_move", Int, "index of the second pass of the first stop (null for 大解放 games)", |r| Cell::Int(r.first_stop_move)),
    col!("resumed_after_stop", Bool, "a stone was played after a stop (null for 大解放 games)", |r| Cell::Bool(r.resumed_after_stop)),
    col!("last_mover", Str, "colour of the last stone placed", |r| Cell::Str(r.last_mover.map(|c| c.fold("B", "W")))),
    col!("problems", Str, "comma-separated problem kinds (README: problem kinds)", |r| s(&r.problems)),
    col!("first_illegal_<family>", Int, "first move illegal under the legality family, null when legal; families `nosuicide_simple`, `nosuicide_psk`, `nosuicide_psk_clear`, `nosuicide_ssk`, `nosuicide_ssk_clear`, `suicide_simple`, `suicide_psk`, `suicide_psk_clear`, `suicide_ssk`, `suicide_ssk_clear`; null for 大解放 games, which these families do not judge (see `first_illegal_dajiefang`)", PerLegality |r, i| Cell::Int(nth(&r.first_illegal, i))),
    col!("dead_source", Str, "`marks` (the record's TB/TW), `settled` (verdict's settler, from the position alone), `settled_result` (the settler, with the record's own result choosing the status of chains it left open; the self-check of such a game agrees by construction), `four_xu` (a 大解放 game ended by four 虚着: no stone is removed, RULES.md section 6) or `referee` (`--referee`: the settler was unsure, at or below `--referee-threshold`, and the referee's dead stones are counted; `confidence`, `settle_layer` and `settled_stones_*` stay the settler's)", |r| Cell::Str(r.dead_source.map(|x| x.as_str()))),
    col!("confidence", Float, "1.0 for marks; for settled games the least sure chain decision, 0 to 1 (1: proven by Benson)", |r| Cell::Float(r.confidence)),
    col!("settle_layer", Str, "deepest settling layer that decided a chain: `benson`, `static`, `playouts`, `reading`, `record_result`; null with marks", |r| Cell::Str(r.settle_layer.map(|x| x.as_str()))),
    col!("settled_stones_benson", Int, SETTLED_STONES, |r| Cell::Int(r.settled_stones[0])),
    col!("settled_stones_static", Int, SETTLED_STONES, |r| Cell::Int(r.settled_stones[1])),
    col!("settled_stones_playouts", Int, SETTLED_STONES, |r| Cell::Int(r.settled_stones[2])),
    col!("settled_stones_reading", Int, SETTLED_STONES, |r| Cell::Int(r.settled_stones[3])),
    col!("settled_stones_record_result", Int, SETTLED_STONES, |r| Cell::Int(r.settled_stones[4])),
    col!("open_chains", Int, "chains the settler left open (confidence below 0.6); null with marks", |r| Cell::Int(r.open_chains)),
    col!("doubtful_chains", Int, "chains decided without proof at confidence 0.6 or below (open chains, tempo fights settled by convention, playouts less lopsided than four to one); null with marks", |r| Cell::Int(r.doubtful_chains)),
    col!("referee", Str, "`decided` (the referee's dead stones are counted: `dead_source` is `referee`) or `failed` (it was asked and gave no answer; the settler's answer is counted and the run names the game on stderr); null when the game was not put to a referee", |r| Cell::Str(r.referee)),
    col!("dead_b", Int, DEAD, |r| Cell::Int(r.dead[0])),
    col!("dead_w", Int, DEAD, |r| Cell::Int(r.dead[1])),
    col!("seki_points", Int, "seki liberties", |r| Cell::Int(r.seki_points)),
    col!("fills_b", Int, FILLS, |r| Cell::Int(r.fills[0])),
    col!("fills_w", Int, FILLS, |r| Cell::Int(r.fills[1])),
    col!("<rule set>_margin_before_komi", Int, "Black minus White before komi and handicap bonus; for 大解放 games only `jpd_a`, `jpd_b`, `jhz_a`, `jhz_b` are computed, the other rule sets' columns are null", PerRuleSet |r, i| Cell::Int(nth(&r.margin_before_komi, i))),
    col!("<rule set>_margin", Float, "the margin: > 0 Black wins", PerRuleSet |r, i| Cell::Float(nth(&r.margin, i))),
    col!("<rule set>_winner", Str, "`B`, `W`, `draw`", PerRuleSet |r, i| Cell::Str(nth(&r.winner, i).map(Winner::as_str))),
    col!("<rule set>_margin_before_komi_flipped", Int, "the margin before komi with every doubtful chain decided the other way at once (dead ones alive, living ones dead); null when no chain is doubtful. With `komi` and the rule set's handicap bonus it gives the winner had the settler guessed otherwise: `verdict report` bounds every rate by it", PerRuleSet |r, i| Cell::Int(nth(&r.margin_before_komi_flipped, i))),
    col!("self_check_status", Str, "`agrees`, `disagrees`, `unchecked`", |r| Cell::Str(r.self_check.map(|c| c.status().as_str()))),
    col!("self_check_rule_set", Str, "the rule set the record's `RU` maps to", |r| Cell::Str(r.self_check_rule_set().map(RuleSet::id))),
    col!("self_check_recorded_margin", Float, SELF_CHECK_MARGINS, |r| Cell::Float(r.self_check.and_then(|c| c.recorded_margin()))),
    col!("self_check_computed_margin", Float, SELF_CHECK_MARGINS, |r| Cell::Float(r.self_check.and_then(|c| c.computed_margin()))),
    col!("variant", Str, "`standard`, or `dajiefang` for a 大解放 record (`RU[Dajiefang]`/`RU[大解放]`, or `MF` on a move); null for skipped rows", |r| Cell::Str(r.variant.map(|v| v.as_str()))),
    col!("variant_inferred", Bool, "大解放 rows: no `RU` names the variant, `MF` made it one (problem `variant_inferred`); null for standard rows", |r| Cell::Bool(r.variant_inferred)),
    col!("first_illegal_dajiefang", Int, "大解放 rows: the first move (0-based) illegal under the variant (a repetition of an earlier whole-board position, stones beside the board included, intermediate or final; a suicide; an impossible move); null when legal and for standard rows", |r| Cell::Int(r.first_illegal_dajiefang)),
    col!("dajiefang_placed_b", Int, DJF_PLACED, |r| Cell::Int(r.dajiefang_placed[0])),
    col!("dajiefang_placed_w", Int, DJF_PLACED, |r| Cell::Int(r.dajiefang_placed[1])),
    col!("dajiefang_placed_off_b", Int, DJF_PLACED_OFF, |r| Cell::Int(r.dajiefang_placed_off[0])),
    col!("dajiefang_placed_off_w", Int, DJF_PLACED_OFF, |r| Cell::Int(r.dajiefang_placed_off[1])),
    col!("dajiefang_moved_b", Int, DJF_MOVED, |r| Cell::Int(r.dajiefang_moved[0])),
    col!("dajiefang_moved_w", Int, DJF_MOVED, |r| Cell::Int(r.dajiefang_moved[1])),
    col!("dajiefang_moved_off_b", Int, DJF_MOVED_OFF, |r| Cell::Int(r.dajiefang_moved_off[0])),
    col!("dajiefang_moved_off_w", Int, DJF_MOVED_OFF, |r| Cell::Int(r.dajiefang_moved_off[1])),
    col!("dajiefang_four_xu", Bool, "大解放 rows: the game ended by four consecutive 虚着 (四虚终局)", |r| Cell::Bool(r.dajiefang_four_xu)),
    col!("dajiefang_ko_retakes_by_moving", Int, "大解放 rows: legal moving moves that retook a ko at once", |r| Cell::Int(r.dajiefang_ko_retakes_by_moving)),
    col!("methods_differ", Str, "scored rows: the seeds' counting procedures (seed 000's four for 计枰点 in both editions, seed 004's five for 计活子; ids `jpd_a_zikong`, `jpd_b_zikong`, `jpd_a_dengkong`, `jpd_b_dengkong`, `jpd_a_dengzi`, `jpd_b_dengzi`, `jpd_a_tianman`, `jpd_b_tianman`, `jhz_a_shulu`, `jhz_b_shulu`, `jhz_b_tianman`, `jhz_b_tinglu`, `jhz_b_zilu`, `jhz_b_tingxu`) whose count of the final position differs from their rule set's formula, comma-separated; empty when all agree (see `verdict score --methods`)", |r| s(&r.methods_differ)),
    col!("methods_findings", Str, "scored rows: what in the game can make a procedure differ, comma-separated: `seki`, `few_eyes` (a living unit with fewer than two owned points), `block_not_unit` (the blocks a person counts are not the living units), `fills` (owned points still to fill, charged by the A formulas), `unequal_stones` (stones on the board plus captured and dead are not the stones placed to the first stop), `odd_shared` (odd shared points in 填满计点), `out_of_stones` (a bowl runs out), `no_balancing_move`, `no_swap_point` (a 负着 or a 还棋头 swap cannot be made); empty when none", |r| s(&r.methods_findings)),
];

/// One column of a game row.
#[derive(Clone)]
pub struct Column {
    /// The column's name (a family's, expanded: `chinese_margin`).
    pub name: String,
    pub kind: Kind,
    /// Its meaning, as `docs/schema.md` gives it.
    pub doc: &'static str,
    /// The name as the registry writes it: the same as `name`, or a
    /// family's template (`<rule set>_margin`, `first_illegal_<family>`).
    pub template: &'static str,
    get: Get,
    /// The family member's index (legality family or rule set), else 0.
    index: usize,
}

impl std::fmt::Debug for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("template", &self.template)
            .finish_non_exhaustive()
    }
}

impl Column {
    /// This column's value in `row`.
    pub fn cell<'a>(&self, row: &'a GameRow) -> Cell<'a> {
        match self.get {
            Get::Row(f) => f(row),
            Get::PerLegality(f) | Get::PerRuleSet(f) => f(row, self.index),
        }
    }
}

fn expand() -> Vec<Column> {
    let column = |spec: &Spec, name: String, index: usize| Column {
        name,
        kind: spec.kind,
        doc: spec.doc,
        template: spec.name,
        get: spec.get,
        index,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < SPECS.len() {
        let spec = &SPECS[i];
        match spec.get {
            Get::Row(_) => out.push(column(spec, spec.name.to_string(), 0)),
            Get::PerLegality(_) => {
                for (k, l) in Legality::ALL.iter().enumerate() {
                    out.push(column(spec, spec.name.replace("<family>", l.id()), k));
                }
            }
            Get::PerRuleSet(_) => {
                let run = SPECS[i..]
                    .iter()
                    .take_while(|s| matches!(s.get, Get::PerRuleSet(_)))
                    .count();
                for (k, r) in RuleSet::ALL.iter().enumerate() {
                    for spec in &SPECS[i..i + run] {
                        out.push(column(spec, spec.name.replace("<rule set>", r.id()), k));
                    }
                }
                i += run;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Every column of a game row, in the order the Parquet files hold them.
pub fn registry() -> &'static [Column] {
    static REGISTRY: OnceLock<Vec<Column>> = OnceLock::new();
    REGISTRY.get_or_init(expand)
}

/// The columns in order: name, kind.
pub fn columns() -> Vec<(String, Kind)> {
    registry()
        .iter()
        .map(|c| (c.name.clone(), c.kind))
        .collect()
}

/// A Markdown table of columns: `| column | type | meaning |`, one line per
/// entry of `entries` (names, type, meaning), consecutive entries with the
/// same type and meaning on one line (`board_width`, `board_height`).
pub fn markdown_table<'a>(entries: impl IntoIterator<Item = (&'a str, Kind, &'a str)>) -> String {
    let mut lines: Vec<(Vec<&str>, Kind, &str)> = Vec::new();
    for (name, kind, doc) in entries {
        match lines.last_mut() {
            Some((names, k, d)) if *k == kind && *d == doc => names.push(name),
            _ => lines.push((vec![name], kind, doc)),
        }
    }
    let mut out = String::from("| column | type | meaning |\n|---|---|---|\n");
    for (names, kind, doc) in lines {
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        out.push_str(&format!(
            "| {} | {} | {doc} |\n",
            names.join(", "),
            kind.as_str()
        ));
    }
    out
}

/// The game-row table of `docs/schema.md`, families as their templates.
pub fn schema_table() -> String {
    markdown_table(SPECS.iter().map(|s| (s.name, s.kind, s.doc)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_are_unique_and_every_column_is_documented() {
        let mut names: Vec<&str> = registry().iter().map(|c| c.name.as_str()).collect();
        assert!(names.iter().all(|n| !n.contains('<')), "{names:?}");
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), registry().len(), "a name used twice");
        for c in registry() {
            assert!(!c.doc.trim().is_empty(), "{} has no doc", c.name);
            assert!(!c.doc.contains('|'), "{}: a doc line cannot hold |", c.name);
        }
    }

    #[test]
    fn every_family_has_a_column_for_every_member() {
        let names: Vec<&str> = registry().iter().map(|c| c.name.as_str()).collect();
        for l in Legality::ALL {
            assert!(names.contains(&format!("first_illegal_{}", l.id()).as_str()));
        }
        let templates: Vec<&str> = SPECS
            .iter()
            .filter(|s| matches!(s.get, Get::PerRuleSet(_)))
            .map(|s| s.name)
            .collect();
        assert_eq!(templates.len(), 4);
        // The settling layers' columns, in `Layer::ALL` order.
        let layers: Vec<String> = verdict_rules::settle::Layer::ALL
            .iter()
            .map(|l| format!("settled_stones_{}", l.as_str()))
            .collect();
        let at = names.iter().position(|n| *n == layers[0]).unwrap();
        assert_eq!(names[at..at + layers.len()], layers);
        // Rule set by rule set, each with its run of columns in order.
        let first = names
            .iter()
            .position(|n| *n == "jpd_a_margin_before_komi")
            .expect("the first rule set's first column");
        for (k, r) in RuleSet::ALL.iter().enumerate() {
            for (j, t) in templates.iter().enumerate() {
                assert_eq!(
                    names[first + k * templates.len() + j],
                    t.replace("<rule set>", r.id())
                );
            }
        }
        assert_eq!(
            registry().len(),
            SPECS.len() - 1 - templates.len()
                + Legality::ALL.len()
                + templates.len() * RuleSet::ALL.len()
        );
    }

    #[test]
    fn each_column_reads_its_own_member_of_a_family() {
        let row = GameRow {
            margin_before_komi: (0..RuleSet::ALL.len() as i64).map(Some).collect(),
            first_illegal: (0..Legality::ALL.len() as i64)
                .map(|i| Some(100 + i))
                .collect(),
            ..GameRow::default()
        };
        for (k, r) in RuleSet::ALL.iter().enumerate() {
            let name = format!("{}_margin_before_komi", r.id());
            let c = registry().iter().find(|c| c.name == name).unwrap();
            assert_eq!(c.cell(&row), Cell::Int(Some(k as i64)), "{name}");
        }
        for (k, l) in Legality::ALL.iter().enumerate() {
            let name = format!("first_illegal_{}", l.id());
            let c = registry().iter().find(|c| c.name == name).unwrap();
            assert_eq!(c.cell(&row), Cell::Int(Some(100 + k as i64)), "{name}");
        }
    }

    #[test]
    fn every_cell_is_of_its_column_s_kind() {
        let row = GameRow::default();
        for c in registry() {
            assert_eq!(c.cell(&row).kind(), c.kind, "{}", c.name);
        }
        assert_eq!(row.cells().len(), registry().len());
    }

    /// The doc line of a column of names lists every name the code writes.
    #[test]
    fn docs_name_every_value_of_a_named_column() {
        use verdict_rules::analyse::DeadSource;
        use verdict_rules::game::HandicapSource;
        use verdict_rules::info::Rules;
        use verdict_rules::outcome::HowEnded;
        use verdict_rules::settle::Layer;

        use crate::row::{RowStatus, Variant};

        let doc = |name: &str| registry().iter().find(|c| c.name == name).unwrap().doc;
        let check = |name: &str, values: &[&str]| {
            for v in values {
                assert!(
                    doc(name).contains(&format!("`{v}`")),
                    "{name} does not name {v}"
                );
            }
        };
        check("status", &RowStatus::ALL.map(RowStatus::as_str));
        check("how_ended", &HowEnded::ALL.map(HowEnded::as_str));
        check("rules", &Rules::ALL.map(Rules::as_str));
        check("dead_source", &DeadSource::ALL.map(DeadSource::as_str));
        check("settle_layer", &Layer::ALL.map(Layer::as_str));
        check("variant", &Variant::ALL.map(Variant::as_str));
        check(
            "handicap_source",
            &[
                HandicapSource::None,
                HandicapSource::Declared,
                HandicapSource::Setup,
                HandicapSource::OpeningMoves,
            ]
            .map(HandicapSource::as_str),
        );
        check(
            "first_illegal_nosuicide_simple",
            &Legality::ALL.map(Legality::id),
        );
        check(
            "result_winner",
            &[Winner::Black, Winner::White, Winner::Draw].map(Winner::as_str),
        );
    }

    #[test]
    fn markdown_tables_group_neighbours_of_one_meaning() {
        let t = markdown_table([
            ("a", Kind::Int, "x"),
            ("b", Kind::Int, "x"),
            ("c", Kind::Str, "x"),
            ("d", Kind::Int, "x"),
        ]);
        assert_eq!(
            t,
            "| column | type | meaning |\n|---|---|---|\n\
             | `a`, `b` | int64 | x |\n| `c` | string | x |\n| `d` | int64 | x |\n"
        );
    }
}
