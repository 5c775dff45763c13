//! `verdict run`: a corpus in, Parquet rows and summaries out.
//!
//! Files are taken in their sorted order, a chunk at a time; each chunk is
//! analysed on every core and its rows, put back in input order, are written
//! as one `games/part-NNNNN.parquet`. Memory is bounded by the chunk, not the
//! corpus, and the output is the same whatever the thread count.

use std::collections::HashSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use verdict_rules::analyse::{Analyser, KomiPolicy};
use verdict_rules::game::{Game, SkipReason};
use verdict_rules::score::RuleSet;

use crate::archive::{read_archive, ArchiveKind};
use crate::drive::{read_games, Item};
use crate::inputs::InputFile;
use crate::parquet_out::{write_table, WriteError};
use crate::row::{columns, GameRow, SCHEMA_VERSION};
use crate::summary::Summary;

/// What a run is asked to do.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub out: PathBuf,
    pub threads: usize,
    pub komi: KomiPolicy,
    pub include_unfinished: bool,
    /// Stop after this many games.
    pub limit: Option<u64>,
    /// Leave out games whose `game_hash` was already seen in this run.
    pub dedup: bool,
    /// Summarise every pair of rule sets, not only the headline ones.
    pub all_pairs: bool,
    /// Files per chunk (and so per part file at most).
    pub chunk_files: usize,
    /// Extra komi values the summary re-scores every game at.
    pub komi_sweep: Vec<f64>,
    /// Rule sets whose verdicts are written and compared (default: all).
    pub rules: Vec<RuleSet>,
    /// Let each record's own result decide chains the settler could not
    /// (layer 4; see `Analyser::use_record_result`).
    pub settle_with_result: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            out: PathBuf::from("verdict-out"),
            threads: 0,
            komi: KomiPolicy::Game,
            include_unfinished: false,
            limit: None,
            dedup: false,
            all_pairs: false,
            chunk_files: 1024,
            komi_sweep: Vec::new(),
            rules: RuleSet::ALL.to_vec(),
            settle_with_result: false,
        }
    }
}

/// Progress after each chunk.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    pub files_done: usize,
    pub files_total: usize,
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub games: u64,
    pub elapsed: Duration,
}

/// Why a run failed as a whole (single games and files never fail a run).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot create the output folder {path}: {source}")]
    CreateOut {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// What a finished run reports.
#[derive(Debug)]
pub struct RunReport {
    pub summary: Summary,
    pub parts: Vec<PathBuf>,
    pub duplicates: u64,
    pub elapsed: Duration,
    pub threads: usize,
    /// Thread time spent reading files from disk.
    pub read_time: Duration,
    /// Thread time spent reading SGF, replaying, scoring and building rows.
    pub analyse_time: Duration,
    /// Time spent writing Parquet (on its own thread, overlapping the
    /// analysis) and adding up the summary.
    pub write_time: Duration,
    /// Archive members and files that were not read, with the reason.
    pub not_read: Vec<(String, String)>,
}

/// Members larger than this inside an archive are listed as skipped, not
/// loaded: no real SGF collection comes near it.
pub const MAX_MEMBER_BYTES: u64 = 256 << 20;

/// Rows of the games in one SGF text; with `range`, only the games whose
/// index is in it (a collection split across shards), and the file-level
/// rows (no game, unreadable) only in the range that starts at game 0.
#[allow(clippy::too_many_arguments)]
fn rows_of_bytes(
    source: &str,
    input: &str,
    path: &Path,
    bytes: &[u8],
    range: Option<&Range<u64>>,
    analyser: &mut Analyser,
    options: &RunOptions,
    rows: &mut Vec<GameRow>,
) {
    let in_range = |index: usize| range.is_none_or(|r| r.contains(&(index as u64)));
    read_games(
        path,
        bytes,
        &mut Default::default(),
        &mut |item| match item {
            Item::Game { index, .. } if !in_range(index) => {}
            Item::NoGame { .. } | Item::Unreadable { .. } if !in_range(0) => {}
            Item::Game {
                index, sgf, bytes, ..
            } => rows.push(match Game::from_sgf(sgf, bytes) {
                Ok(game) => GameRow::analysed(
                    source,
                    input,
                    index,
                    &game,
                    analyser,
                    options.komi,
                    options.include_unfinished,
                ),
                Err(reason) => GameRow::skipped(source, input, index, reason),
            }),
            Item::NoGame { .. } => {
                rows.push(GameRow::skipped(source, input, 0, SkipReason::NoGame))
            }
            Item::Unreadable { .. } => {
                rows.push(GameRow::skipped(source, input, 0, SkipReason::Unreadable))
            }
        },
    );
}

/// What one input file gave: rows, members left aside, time spent.
#[derive(Debug, Default)]
pub(crate) struct FileRows {
    pub(crate) rows: Vec<GameRow>,
    /// Archive members or archives not read, with the reason.
    pub(crate) not_read: Vec<(String, String)>,
    read_time: Duration,
    analyse_time: Duration,
}

/// Rows of one file (or of every SGF member of an archive, named
/// `archive!/member`), and the time spent reading and analysing. `range`
/// keeps only some games of a plain file (archives are never split).
pub(crate) fn rows_of_file(
    file: &InputFile,
    range: Option<&Range<u64>>,
    analyser: &mut Analyser,
    options: &RunOptions,
) -> FileRows {
    let source = file.path.display().to_string();
    let input = file.root.display().to_string();
    let mut out = FileRows::default();
    let t0 = Instant::now();
    if let Some(kind) = ArchiveKind::of_path(&file.path) {
        let mut rows = Vec::new();
        let mut not_read = Vec::new();
        let result = read_archive(
            &file.path,
            kind,
            MAX_MEMBER_BYTES,
            &mut |member| {
                let name = format!("{source}!/{}", member.name);
                rows_of_bytes(
                    &name,
                    &input,
                    &file.path,
                    &member.bytes,
                    None,
                    analyser,
                    options,
                    &mut rows,
                );
                std::ops::ControlFlow::Continue(())
            },
            &mut |name, reason| not_read.push((format!("{source}!/{name}"), reason.to_string())),
        );
        if let Err(e) = result {
            // What was read before the damage stays; the archive itself gets
            // a row saying it could not be read to the end.
            rows.push(GameRow::skipped(&source, &input, 0, SkipReason::Unreadable));
            not_read.push((source.clone(), e.to_string()));
        }
        out.rows = rows;
        out.not_read = not_read;
        out.analyse_time = t0.elapsed();
        return out;
    }
    let read = std::fs::read(&file.path);
    out.read_time = t0.elapsed();
    match read {
        Err(e) => {
            if range.is_none_or(|r| r.start == 0) {
                out.rows
                    .push(GameRow::skipped(&source, &input, 0, SkipReason::Unreadable));
            }
            out.not_read.push((source.clone(), e.to_string()));
        }
        Ok(bytes) => rows_of_bytes(
            &source,
            &input,
            &file.path,
            &bytes,
            range,
            analyser,
            options,
            &mut out.rows,
        ),
    }
    out.analyse_time = t0.elapsed() - out.read_time;
    out
}

/// Runs the analysis over `files`, writing parts, `summary.json` and
/// `summary.parquet` under `options.out`.
pub fn run(
    files: &[InputFile],
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<RunReport, RunError> {
    let start = Instant::now();
    let games_dir = options.out.join("games");
    std::fs::create_dir_all(&games_dir).map_err(|source| RunError::CreateOut {
        path: games_dir.display().to_string(),
        source,
    })?;
    // A re-run into the same folder replaces its parts, never mixes in old ones.
    if let Ok(entries) = std::fs::read_dir(&games_dir) {
        for e in entries.flatten() {
            if e.path()
                .extension()
                .is_some_and(|x| x == "parquet" || x == "tmp")
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .expect("building a thread pool");
    // Parts are written on a thread of their own, one chunk behind the
    // analysis, so encoding Parquet overlaps analysing the next chunk.
    let (to_writer, parts_in) = std::sync::mpsc::sync_channel::<(PathBuf, Vec<GameRow>)>(1);
    let writer = std::thread::spawn(move || -> Result<Duration, WriteError> {
        let cols = columns();
        let mut busy = Duration::ZERO;
        for (path, rows) in parts_in {
            let t = Instant::now();
            write_table(
                &path,
                &cols,
                rows.iter().map(GameRow::cells),
                SCHEMA_VERSION,
            )?;
            busy += t.elapsed();
        }
        Ok(busy)
    });
    let mut summary = Summary::new(options.all_pairs, &options.rules);
    summary.sweep = options.komi_sweep.clone();
    let mut seen: HashSet<String> = HashSet::new();
    let mut duplicates = 0;
    let mut parts = Vec::new();
    let bytes_total: u64 = files.iter().map(|f| f.len).sum();
    let mut bytes_done = 0;
    let mut files_done = 0;
    let mut not_read = Vec::new();
    let (mut read_time, mut analyse_time, mut write_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for (n, chunk) in files.chunks(options.chunk_files.max(1)).enumerate() {
        if options.limit.is_some_and(|l| summary.games >= l) {
            break;
        }
        let per_file: Vec<FileRows> = pool.install(|| {
            chunk
                .par_iter()
                .map_init(
                    || Analyser::new().use_record_result(options.settle_with_result),
                    |analyser, file| rows_of_file(file, None, analyser, options),
                )
                .collect()
        });
        let t_write = Instant::now();
        let mut rows: Vec<GameRow> = Vec::new();
        for f in per_file {
            read_time += f.read_time;
            analyse_time += f.analyse_time;
            rows.extend(f.rows);
            not_read.extend(f.not_read);
        }
        let mut kept: Vec<GameRow> = Vec::with_capacity(rows.len());
        for mut row in rows {
            row.keep_rule_sets(&options.rules);
            if options.limit.is_some_and(|l| summary.games >= l) {
                break;
            }
            if options.dedup {
                if let Some(h) = &row.game_hash {
                    if !seen.insert(h.clone()) {
                        duplicates += 1;
                        continue;
                    }
                }
            }
            summary.add(&row);
            kept.push(row);
        }
        if !kept.is_empty() {
            let path = games_dir.join(format!("part-{n:05}.parquet"));
            parts.push(path.clone());
            if to_writer.send((path, kept)).is_err() {
                // The writer stopped on an error: report it.
                break;
            }
        }
        write_time += t_write.elapsed();
        files_done += chunk.len();
        bytes_done += chunk.iter().map(|f| f.len).sum::<u64>();
        progress(Progress {
            files_done,
            files_total: files.len(),
            bytes_done,
            bytes_total,
            games: summary.games,
            elapsed: start.elapsed(),
        });
    }
    drop(to_writer);
    write_time += writer
        .join()
        .expect("the Parquet writer thread does not panic")?;
    let t_write = Instant::now();
    write_summary(&options.out, &summary)?;
    write_time += t_write.elapsed();
    Ok(RunReport {
        read_time,
        analyse_time,
        write_time,
        not_read,
        summary,
        parts,
        duplicates,
        elapsed: start.elapsed(),
        threads: pool.current_num_threads(),
    })
}

/// Writes `summary.json` and `summary.parquet` into `out` (a local run's, or
/// a distributed job's merged from its shards).
pub fn write_summary(out: &Path, summary: &Summary) -> Result<(), RunError> {
    let json = summary.to_json(SCHEMA_VERSION);
    let path = out.join("summary.json");
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&json).expect("JSON of plain values"),
    )
    .map_err(|source| RunError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let (cols, rows) = summary.table();
    write_table(&out.join("summary.parquet"), &cols, rows, SCHEMA_VERSION)?;
    Ok(())
}
