//! `verdict run`: a corpus in, Parquet rows and summaries out.
//!
//! Files are taken in their sorted order, a chunk at a time; each chunk is
//! analysed on every core and its rows, put back in input order, are written
//! as one `games/part-NNNNN.parquet`. Memory is bounded by the chunk, not the
//! corpus, and the output is the same whatever the thread count.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use verdict_rules::analyse::{Analyser, KomiPolicy};
use verdict_rules::game::{Game, SkipReason};

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
}

fn rows_of_file(file: &InputFile, analyser: &mut Analyser, options: &RunOptions) -> Vec<GameRow> {
    let source = file.path.display().to_string();
    let input = file.root.display().to_string();
    let mut rows = Vec::new();
    match std::fs::read(&file.path) {
        Err(_) => rows.push(GameRow::skipped(&source, &input, 0, SkipReason::Unreadable)),
        Ok(bytes) => read_games(
            &file.path,
            &bytes,
            &mut Default::default(),
            &mut |item| match item {
                Item::Game {
                    index, sgf, bytes, ..
                } => rows.push(match Game::from_sgf(sgf, bytes) {
                    Ok(game) => GameRow::analysed(
                        &source,
                        &input,
                        index,
                        &game,
                        analyser,
                        options.komi,
                        options.include_unfinished,
                    ),
                    Err(reason) => GameRow::skipped(&source, &input, index, reason),
                }),
                Item::NoGame { .. } => {
                    rows.push(GameRow::skipped(&source, &input, 0, SkipReason::NoGame))
                }
                Item::Unreadable { .. } => {
                    rows.push(GameRow::skipped(&source, &input, 0, SkipReason::Unreadable))
                }
            },
        ),
    }
    rows
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
    let cols = columns();
    let mut summary = Summary::new(options.all_pairs);
    summary.sweep = options.komi_sweep.clone();
    let mut seen: HashSet<String> = HashSet::new();
    let mut duplicates = 0;
    let mut parts = Vec::new();
    let bytes_total: u64 = files.iter().map(|f| f.len).sum();
    let mut bytes_done = 0;
    let mut files_done = 0;
    for (n, chunk) in files.chunks(options.chunk_files.max(1)).enumerate() {
        if options.limit.is_some_and(|l| summary.games >= l) {
            break;
        }
        let per_file: Vec<Vec<GameRow>> = pool.install(|| {
            chunk
                .par_iter()
                .map_init(Analyser::new, |analyser, file| {
                    rows_of_file(file, analyser, options)
                })
                .collect()
        });
        let mut rows = Vec::new();
        for row in per_file.into_iter().flatten() {
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
            rows.push(row);
        }
        if !rows.is_empty() {
            let path = games_dir.join(format!("part-{n:05}.parquet"));
            write_table(
                &path,
                &cols,
                rows.iter().map(GameRow::cells),
                SCHEMA_VERSION,
            )?;
            parts.push(path);
        }
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
    write_summary(&options.out, &summary)?;
    Ok(RunReport {
        summary,
        parts,
        duplicates,
        elapsed: start.elapsed(),
        threads: pool.current_num_threads(),
    })
}

fn write_summary(out: &Path, summary: &Summary) -> Result<(), RunError> {
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
