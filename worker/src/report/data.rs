//! A finished run read back: its rows from `OUT/games/*.parquet` and its
//! summary from `OUT/summary.json`, the only two things a report may lean
//! on (a local run and a cluster job write both the same way).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use arrow_array::{Array, Float64Array, Int64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use verdict_rules::score::RuleSet;

/// Why a run could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a verdict summary: {reason}", .path.display())]
    Summary { path: PathBuf, reason: String },
    #[error("cannot read the Parquet file {}: {source}", .path.display())]
    Parquet {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
    #[error("{} has no column {column}: not the rows of a verdict run", .path.display())]
    Column { path: PathBuf, column: String },
}

/// Rule sets by index of [`RuleSet::ALL`].
pub const RULE_SETS: usize = RuleSet::ALL.len();

/// Who a verdict says won.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Win {
    B,
    W,
    Draw,
}

impl Win {
    fn parse(s: &str) -> Option<Win> {
        match s {
            "B" => Some(Win::B),
            "W" => Some(Win::W),
            "draw" => Some(Win::Draw),
            _ => None,
        }
    }

    pub fn of_margin(m: f64) -> Win {
        if m > 0.0 {
            Win::B
        } else if m < 0.0 {
            Win::W
        } else {
            Win::Draw
        }
    }
}

/// The columns of one game row the report uses. Strings that repeat over
/// a corpus (inputs, rules, sources of dead stones) are shared, not copied
/// per row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub source: Rc<str>,
    pub input: Rc<str>,
    pub game_index: i64,
    pub status: Rc<str>,
    pub board: Option<(i64, i64)>,
    pub komi: Option<f64>,
    pub handicap: Option<i64>,
    pub rules: Option<Rc<str>>,
    pub how_ended: Option<Rc<str>>,
    pub year: Option<i64>,
    pub result: Option<Rc<str>>,
    pub result_margin: Option<f64>,
    pub player_black: Option<Rc<str>>,
    pub player_white: Option<Rc<str>>,
    pub date: Option<Rc<str>>,
    pub dead_source: Option<Rc<str>>,
    pub confidence: Option<f64>,
    pub settle_layer: Option<Rc<str>>,
    /// Stones decided by the static and playout layers (guesses, not proofs).
    pub guessed_stones: Option<i64>,
    pub record_result_stones: Option<i64>,
    pub open_chains: Option<i64>,
    pub doubtful_chains: Option<i64>,
    pub placed: [Option<i64>; 2],
    pub fills: [Option<i64>; 2],
    pub dead: [Option<i64>; 2],
    pub seki_points: Option<i64>,
    pub margin_before_komi: [Option<i64>; RULE_SETS],
    pub margin: [Option<f64>; RULE_SETS],
    pub winner: [Option<Win>; RULE_SETS],
    pub margin_before_komi_flipped: [Option<i64>; RULE_SETS],
    pub self_check_status: Option<Rc<str>>,
    pub self_check_rule_set: Option<Rc<str>>,
    pub self_check_recorded: Option<f64>,
    pub self_check_computed: Option<f64>,
}

impl Row {
    /// Whether the dead stones are beyond doubt: the players' marks, or a
    /// settlement every chain of which was proven (Benson, or read out by
    /// force at the reading's 0.95). Static and playout guesses, tempo
    /// conventions and the record's result are not proofs.
    pub fn certain(&self) -> bool {
        match self.dead_source.as_deref() {
            Some("marks") => true,
            Some("settled") => {
                self.guessed_stones == Some(0)
                    && self.record_result_stones.unwrap_or(0) == 0
                    && self.confidence.is_some_and(|c| c >= 0.95 - 1e-6)
            }
            _ => false,
        }
    }

    /// Both verdicts of a comparison, when the game was scored under both.
    pub fn pair(&self, a: usize, b: usize) -> Option<(Win, Win)> {
        Some((self.winner[a]?, self.winner[b]?))
    }

    /// The winner under rule set `i` had every doubtful chain gone the other
    /// way (None when nothing was doubtful or the column is missing).
    pub fn flipped_winner(&self, i: usize) -> Option<Win> {
        let before = self.margin_before_komi_flipped[i]?;
        let stones = self.handicap.unwrap_or(0).clamp(0, 255) as u8;
        Some(Win::of_margin(RuleSet::ALL[i].margin(
            before,
            self.komi.unwrap_or(0.0),
            stones,
        )))
    }
}

/// One cell of `summary.json`'s `comparisons`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub comparison: String,
    pub dimension: String,
    pub value: String,
    pub scorable: u64,
    pub disagreements: u64,
    pub rate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub draws: u64,
}

/// `summary.json` as the report reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryFile {
    pub schema_version: String,
    pub games: u64,
    pub rows_by_status: BTreeMap<String, u64>,
    pub skip_reasons: BTreeMap<String, u64>,
    pub self_check: BTreeMap<String, u64>,
    pub cells: Vec<Cell>,
    /// When the file was last written (seconds since 1970): the run's end.
    pub written: Option<u64>,
}

/// A finished run, read back: its summary and where its rows are. The rows
/// themselves are never held together: [`RunData::scan`] hands them out one
/// at a time, a batch read at a time, so a report of ten million games
/// needs the memory of one of ten thousand.
#[derive(Clone, Debug, Default)]
pub struct RunData {
    pub out: PathBuf,
    pub summary: SummaryFile,
    pub parts: Vec<PathBuf>,
    /// `verdict.schema_version` of the first part that names one.
    pub parts_schema: Option<String>,
}

/// Rows decoded at a time: a batch of the projected columns, a few MB.
pub const BATCH_ROWS: usize = 8192;

/// Reads `out/summary.json` and lists every `out/games/*.parquet` (in name
/// order; names starting with `_` or `.` are someone's work in progress and
/// are skipped). Only the parts' footers are read here, up to the first that
/// names its schema version; [`RunData::scan`] reads the rows.
pub fn read_run(out: &Path) -> Result<RunData, ReadError> {
    let summary = read_summary(&out.join("summary.json"))?;
    let games = out.join("games");
    let entries = std::fs::read_dir(&games).map_err(|source| ReadError::Io {
        path: games.clone(),
        source,
    })?;
    let mut parts: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !name.starts_with('_') && !name.starts_with('.') && name.ends_with(".parquet")
        })
        .collect();
    parts.sort();
    let mut parts_schema = None;
    for part in &parts {
        parts_schema = open_part(part)?.1;
        if parts_schema.is_some() {
            break;
        }
    }
    Ok(RunData {
        out: out.to_path_buf(),
        summary,
        parts,
        parts_schema,
    })
}

impl RunData {
    /// Calls `f` with every row of every part, in part and row order (the
    /// order the report numbers rows in), holding one batch of rows at a
    /// time; returns how many rows there were.
    pub fn scan(&self, f: impl FnMut(&Row)) -> Result<usize, ReadError> {
        self.scan_batches(BATCH_ROWS, f)
    }

    /// [`RunData::scan`] with `batch_rows` rows decoded at a time (tests
    /// cut batches small to show the page does not depend on where).
    pub fn scan_batches(
        &self,
        batch_rows: usize,
        mut f: impl FnMut(&Row),
    ) -> Result<usize, ReadError> {
        let mut strings = Interner::default();
        let mut rows = 0;
        for part in &self.parts {
            rows += scan_part(part, batch_rows.max(1), &mut strings, &mut f)?;
        }
        Ok(rows)
    }

    /// Every row at once: memory grows with the run, so only for tests and
    /// tools that know the run is small. The report itself scans.
    pub fn read_rows(&self) -> Result<Vec<Row>, ReadError> {
        let mut rows = Vec::new();
        self.scan(|r| rows.push(r.clone()))?;
        Ok(rows)
    }
}

/// Parses `summary.json`.
pub fn read_summary(path: &Path) -> Result<SummaryFile, ReadError> {
    let bytes = std::fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |reason: &str| ReadError::Summary {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let v: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(&format!("not JSON ({e})")))?;
    let counts = |key: &str| -> BTreeMap<String, u64> {
        v[key]
            .as_object()
            .map(|o| {
                o.iter()
                    .filter_map(|(k, n)| Some((k.clone(), n.as_u64()?)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let comparisons = v["comparisons"]
        .as_array()
        .ok_or_else(|| bad("no `comparisons` list"))?;
    let mut cells = Vec::with_capacity(comparisons.len());
    for c in comparisons {
        let s = |k: &str| c[k].as_str().map(str::to_string);
        let n = |k: &str| c[k].as_u64();
        let f = |k: &str| c[k].as_f64();
        let cell = (|| {
            Some(Cell {
                comparison: s("comparison")?,
                dimension: s("dimension")?,
                value: s("value")?,
                scorable: n("scorable")?,
                disagreements: n("disagreements")?,
                rate: f("rate")?,
                ci_low: f("ci_low")?,
                ci_high: f("ci_high")?,
                draws: n("draws")?,
            })
        })()
        .ok_or_else(|| bad(&format!("a comparison row lacks a field: {c}")))?;
        cells.push(cell);
    }
    let written = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    Ok(SummaryFile {
        schema_version: v["schema_version"].as_str().unwrap_or("").to_string(),
        games: v["games"].as_u64().ok_or_else(|| bad("no `games` count"))?,
        rows_by_status: counts("rows_by_status"),
        skip_reasons: counts("skip_reasons"),
        self_check: counts("self_check"),
        cells,
        written,
    })
}

/// One copy of each string that repeats from row to row (statuses, rules,
/// inputs, the source of a file's many games). Strings that do not repeat
/// (players, dates, the sources of a million one-game files) would fill it
/// without end, so past [`Interner::MAX`] strings it starts again: a bounded
/// cache, not a table of every string of the run.
#[derive(Default)]
struct Interner(HashMap<Box<str>, Rc<str>>);

impl Interner {
    const MAX: usize = 4096;

    fn get(&mut self, s: &str) -> Rc<str> {
        if let Some(r) = self.0.get(s) {
            return r.clone();
        }
        if self.0.len() >= Self::MAX {
            self.0.clear();
        }
        let r: Rc<str> = Rc::from(s);
        self.0.insert(Box::from(s), r.clone());
        r
    }
}

/// The columns read; the rest of the file is never decoded.
fn wanted() -> Vec<String> {
    let mut c: Vec<String> = [
        "source",
        "input",
        "game_index",
        "status",
        "board_width",
        "board_height",
        "komi",
        "handicap",
        "rules",
        "how_ended",
        "year",
        "result",
        "result_margin",
        "player_black",
        "player_white",
        "date",
        "dead_source",
        "confidence",
        "settle_layer",
        "settled_stones_static",
        "settled_stones_playouts",
        "settled_stones_record_result",
        "open_chains",
        "doubtful_chains",
        "placed_first_stop_b",
        "placed_first_stop_w",
        "fills_b",
        "fills_w",
        "dead_b",
        "dead_w",
        "seki_points",
        "self_check_status",
        "self_check_rule_set",
        "self_check_recorded_margin",
        "self_check_computed_margin",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for r in RuleSet::ALL {
        for suffix in [
            "margin_before_komi",
            "margin",
            "winner",
            "margin_before_komi_flipped",
        ] {
            c.push(format!("{}_{suffix}", r.id()));
        }
    }
    c
}

/// Columns every verdict run has written since schema 1; the others
/// (`doubtful_chains`, the flipped margins, ...) are read when present.
const REQUIRED: [&str; 4] = ["source", "game_index", "status", "input"];

/// Opens a part: its reader builder and its schema version.
fn open_part(
    path: &Path,
) -> Result<(ParquetRecordBatchReaderBuilder<File>, Option<String>), ReadError> {
    let file = File::open(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|source| ReadError::Parquet {
            path: path.to_path_buf(),
            source,
        })?;
    let version = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| {
            kv.iter()
                .find(|k| k.key == "verdict.schema_version")
                .and_then(|k| k.value.clone())
        });
    Ok((builder, version))
}

/// Hands the rows of one part to `f`, a batch at a time; returns how many.
fn scan_part(
    path: &Path,
    batch_rows: usize,
    strings: &mut Interner,
    f: &mut impl FnMut(&Row),
) -> Result<usize, ReadError> {
    let pq = |source| ReadError::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let (builder, _) = open_part(path)?;
    let arrow = builder.schema().clone();
    let wanted = wanted();
    let indices: Vec<usize> = wanted
        .iter()
        .filter_map(|n| arrow.index_of(n).ok())
        .collect();
    for c in REQUIRED {
        if arrow.index_of(c).is_err() {
            return Err(ReadError::Column {
                path: path.to_path_buf(),
                column: c.to_string(),
            });
        }
    }
    let mask = ProjectionMask::roots(builder.parquet_schema(), indices);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(batch_rows)
        .build()
        .map_err(pq)?;
    let mut rows = 0;
    for batch in reader {
        let batch =
            batch.map_err(|e| pq(parquet::errors::ParquetError::ArrowError(e.to_string())))?;
        rows += batch.num_rows();
        scan_batch(&batch, strings, f);
    }
    Ok(rows)
}

fn scan_batch(batch: &RecordBatch, strings: &mut Interner, visit: &mut impl FnMut(&Row)) {
    let schema = batch.schema();
    let col = |name: &str| schema.index_of(name).ok().map(|i| batch.column(i).clone());
    let strs =
        |name: &str| col(name).and_then(|c| c.as_any().downcast_ref::<StringArray>().cloned());
    let ints =
        |name: &str| col(name).and_then(|c| c.as_any().downcast_ref::<Int64Array>().cloned());
    let floats =
        |name: &str| col(name).and_then(|c| c.as_any().downcast_ref::<Float64Array>().cloned());
    fn s(a: &Option<StringArray>, i: usize) -> Option<&str> {
        let a = a.as_ref()?;
        (!a.is_null(i)).then(|| a.value(i))
    }
    fn n(a: &Option<Int64Array>, i: usize) -> Option<i64> {
        let a = a.as_ref()?;
        (!a.is_null(i)).then(|| a.value(i))
    }
    fn f(a: &Option<Float64Array>, i: usize) -> Option<f64> {
        let a = a.as_ref()?;
        (!a.is_null(i)).then(|| a.value(i))
    }
    let source = strs("source");
    let input = strs("input");
    let game_index = ints("game_index");
    let status = strs("status");
    let (bw, bh) = (ints("board_width"), ints("board_height"));
    let komi = floats("komi");
    let handicap = ints("handicap");
    let rules = strs("rules");
    let how_ended = strs("how_ended");
    let year = ints("year");
    let result = strs("result");
    let result_margin = floats("result_margin");
    let (pb, pw) = (strs("player_black"), strs("player_white"));
    let date = strs("date");
    let dead_source = strs("dead_source");
    let confidence = floats("confidence");
    let settle_layer = strs("settle_layer");
    let (st_static, st_playouts, st_result) = (
        ints("settled_stones_static"),
        ints("settled_stones_playouts"),
        ints("settled_stones_record_result"),
    );
    let open_chains = ints("open_chains");
    let doubtful = ints("doubtful_chains");
    let placed = [ints("placed_first_stop_b"), ints("placed_first_stop_w")];
    let fills = [ints("fills_b"), ints("fills_w")];
    let dead = [ints("dead_b"), ints("dead_w")];
    let seki = ints("seki_points");
    let sc_status = strs("self_check_status");
    let sc_rule = strs("self_check_rule_set");
    let sc_rec = floats("self_check_recorded_margin");
    let sc_comp = floats("self_check_computed_margin");
    let per_rule: Vec<_> = RuleSet::ALL
        .iter()
        .map(|r| {
            let id = r.id();
            (
                ints(&format!("{id}_margin_before_komi")),
                floats(&format!("{id}_margin")),
                strs(&format!("{id}_winner")),
                ints(&format!("{id}_margin_before_komi_flipped")),
            )
        })
        .collect();
    for i in 0..batch.num_rows() {
        let mut st = |a: &Option<StringArray>| s(a, i).map(|v| strings.get(v));
        let mut row = Row {
            source: st(&source).unwrap_or_else(|| Rc::from("")),
            input: st(&input).unwrap_or_else(|| Rc::from("")),
            game_index: n(&game_index, i).unwrap_or(0),
            status: st(&status).unwrap_or_else(|| Rc::from("")),
            board: n(&bw, i).zip(n(&bh, i)),
            komi: f(&komi, i),
            handicap: n(&handicap, i),
            rules: st(&rules),
            how_ended: st(&how_ended),
            year: n(&year, i),
            result: st(&result),
            result_margin: f(&result_margin, i),
            player_black: st(&pb),
            player_white: st(&pw),
            date: st(&date),
            dead_source: st(&dead_source),
            confidence: f(&confidence, i),
            settle_layer: st(&settle_layer),
            guessed_stones: n(&st_static, i).zip(n(&st_playouts, i)).map(|(a, b)| a + b),
            record_result_stones: n(&st_result, i),
            open_chains: n(&open_chains, i),
            doubtful_chains: n(&doubtful, i),
            placed: [n(&placed[0], i), n(&placed[1], i)],
            fills: [n(&fills[0], i), n(&fills[1], i)],
            dead: [n(&dead[0], i), n(&dead[1], i)],
            seki_points: n(&seki, i),
            self_check_status: st(&sc_status),
            self_check_rule_set: st(&sc_rule),
            self_check_recorded: f(&sc_rec, i),
            self_check_computed: f(&sc_comp, i),
            ..Row::default()
        };
        for (k, (mbk, m, w, fl)) in per_rule.iter().enumerate() {
            row.margin_before_komi[k] = n(mbk, i);
            row.margin[k] = f(m, i);
            row.winner[k] = s(w, i).and_then(Win::parse);
            row.margin_before_komi_flipped[k] = n(fl, i);
        }
        visit(&row);
    }
}
