//! `verdict run`: a corpus in, Parquet rows and summaries out.
//!
//! Files are taken in their sorted order, a chunk at a time; each chunk is
//! analysed on every core and its rows, put back in input order, are written
//! as one `games/part-NNNNN.parquet`. Memory is bounded by the chunk, not the
//! corpus, and the output is the same whatever the thread count.

use std::collections::HashSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use verdict_rules::analyse::{Analyser, KomiPolicy};
use verdict_rules::game::{Game, SkipReason};
use verdict_rules::sgf::{Reader, SgfGame};

use crate::archive::{read_archive_file, ArchiveError, ArchiveKind};
use crate::drive::{read_games, Item};
pub use verdict_corpus::options::{RunOptions, BIG_FILE_BYTES};

use crate::ids::random_u64;
use crate::inputs::InputFile;
use crate::parquet_out::{write_table, WriteError};
use crate::publish::{part_name, OutError, Staging};
use crate::row::{columns, GameRow, SCHEMA_VERSION};
use crate::summary::Summary;

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
    #[error(transparent)]
    Out(#[from] OutError),
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

/// Which games of a file are analysed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Keep<'a> {
    /// Only the games whose index is in it (a collection split across
    /// shards); the file-level rows (no game, unreadable) belong to the
    /// range that starts at game 0.
    pub(crate) range: Option<&'a Range<u64>>,
    /// Once set, no further game is analysed (a shard whose lease is gone).
    pub(crate) stop: Option<&'a AtomicBool>,
}

/// Rows of the games in one SGF text that `keep` keeps.
#[allow(clippy::too_many_arguments)]
fn rows_of_bytes(
    source: &str,
    input: &str,
    path: &Path,
    bytes: &[u8],
    keep: Keep<'_>,
    analyser: &mut Analyser,
    options: &RunOptions,
    rows: &mut Vec<GameRow>,
) {
    let in_range = |index: usize| keep.range.is_none_or(|r| r.contains(&(index as u64)));
    let stopped = || keep.stop.is_some_and(|s| s.load(Ordering::Relaxed));
    read_games(
        path,
        bytes,
        &mut Default::default(),
        &mut |item| match item {
            Item::Game { index, .. } if !in_range(index) || stopped() => {}
            Item::NoGame { .. } | Item::Unreadable { .. } if !in_range(0) => {}
            Item::Game {
                index, sgf, bytes, ..
            } => rows.push(row_of_game(
                source, input, index, sgf, bytes, analyser, options,
            )),
            Item::NoGame { .. } => {
                rows.push(GameRow::skipped(source, input, 0, SkipReason::NoGame))
            }
            Item::Unreadable { .. } => {
                rows.push(GameRow::skipped(source, input, 0, SkipReason::Unreadable))
            }
        },
    );
}

/// The row of one game tree.
fn row_of_game(
    source: &str,
    input: &str,
    index: usize,
    sgf: &SgfGame<'_>,
    bytes: &[u8],
    analyser: &mut Analyser,
    options: &RunOptions,
) -> GameRow {
    match Game::from_sgf(sgf, bytes) {
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
    }
}

/// Streams one big SGF file: maps it into memory (the kernel pages it in
/// and out, it is never copied), reads its games in order and hands their
/// rows to `emit` a batch at a time, each batch analysed on every core.
fn stream_big_file(
    file: &InputFile,
    options: &RunOptions,
    pool: &rayon::ThreadPool,
    emit: &mut dyn FnMut(Vec<GameRow>, Duration) -> bool,
) -> Result<(), std::io::Error> {
    let source = file.path.display().to_string();
    let input = file.root.display().to_string();
    let handle = crate::inputs::open(file)?;
    // SAFETY: the map is read only; a file changed by another process while
    // it is read could show torn bytes, which the SGF reader tolerates like
    // any damaged input (it never trusts the bytes).
    let map = unsafe { memmap2::Mmap::map(&handle)? };
    let bytes: &[u8] = &map;
    let mut reader = Reader::new(bytes);
    let mut index = 0;
    // Games per batch (and so rows per part at most): four per file of a
    // small-file chunk, 4096 by default.
    let batch_len = options.chunk_files.max(1) * 4;
    let mut batch: Vec<(usize, SgfGame<'_>)> = Vec::with_capacity(batch_len);
    loop {
        let next = reader.next();
        let done = next.is_none();
        if let Some(sgf) = next {
            batch.push((index, sgf));
            index += 1;
        }
        if batch.len() == batch_len || (done && !batch.is_empty()) {
            // Thread time, as for small files: each game's analysis timed
            // where it runs, then added up.
            let timed: Vec<(GameRow, Duration)> = pool.install(|| {
                batch
                    .par_iter()
                    .map_init(
                        || {
                            Analyser::new()
                                .use_record_result(options.settle_with_result)
                                .assume_rules(options.assume_rules)
                        },
                        |analyser, (i, sgf)| {
                            let t = Instant::now();
                            let row =
                                row_of_game(&source, &input, *i, sgf, bytes, analyser, options);
                            (row, t.elapsed())
                        },
                    )
                    .collect()
            });
            let spent = timed.iter().map(|(_, d)| *d).sum();
            let rows: Vec<GameRow> = timed.into_iter().map(|(row, _)| row).collect();
            batch.clear();
            if !emit(rows, spent) {
                return Ok(());
            }
        }
        if done {
            break;
        }
    }
    if index == 0 {
        emit(
            vec![GameRow::skipped(&source, &input, 0, SkipReason::NoGame)],
            Duration::ZERO,
        );
    }
    Ok(())
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
/// `archive!/member`), and the time spent reading and analysing. `keep`'s
/// range applies to plain files only (archives are never split).
pub(crate) fn rows_of_file(
    file: &InputFile,
    keep: Keep<'_>,
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
        let opened = crate::inputs::open(file).map_err(|source| ArchiveError::Open {
            path: file.path.clone(),
            source,
        });
        let result = opened.and_then(|handle| {
            read_archive_file(
                handle,
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
                        Keep {
                            range: None,
                            ..keep
                        },
                        analyser,
                        options,
                        &mut rows,
                    );
                    std::ops::ControlFlow::Continue(())
                },
                &mut |name, reason| {
                    not_read.push((format!("{source}!/{name}"), reason.to_string()))
                },
            )
        });
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
    let read = crate::inputs::open(file).and_then(|mut f| {
        let mut bytes = Vec::with_capacity(file.len as usize);
        std::io::Read::read_to_end(&mut f, &mut bytes)?;
        Ok(bytes)
    });
    out.read_time = t0.elapsed();
    match read {
        Err(e) => {
            if keep.range.is_none_or(|r| r.start == 0) {
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
            keep,
            analyser,
            options,
            &mut out.rows,
        ),
    }
    out.analyse_time = t0.elapsed() - out.read_time;
    out
}

/// Runs the analysis over `files` and publishes its parts, `summary.json`,
/// `summary.parquet` and `_SUCCESS` under `options.out` ([`crate::publish`]):
/// the folder's previous output stays whole until this run's replaces it.
///
/// # Errors
/// The output folder cannot be used, or a part cannot be written; what was
/// published before is then left as it was.
pub fn run(
    files: &[InputFile],
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<RunReport, RunError> {
    let start = Instant::now();
    let started_unix = unix_now();
    let out = crate::confined::resolve(&options.out).map_err(|source| RunError::CreateOut {
        path: options.out.display().to_string(),
        source,
    })?;
    let name = format!("run-{}-{:016x}", std::process::id(), random_u64());
    let staging = Staging::open(&out, &name)?;
    let analysed = analyse_into(&staging, files, options, progress, start);
    let (mut report, parts) = match analysed {
        Ok(done) => done,
        Err(e) => {
            let _ = staging.discard();
            return Err(e);
        }
    };
    let t_write = Instant::now();
    let mut manifest = serde_json::Map::new();
    manifest.insert("kind".into(), "run".into());
    manifest.insert("verdict_version".into(), env!("CARGO_PKG_VERSION").into());
    manifest.insert("started_unix".into(), started_unix.into());
    manifest.insert("published_unix".into(), unix_now().into());
    manifest.insert("options".into(), options_json(options));
    manifest.insert("input_files".into(), files.len().into());
    staging.publish(&[], &parts, &report.summary, SCHEMA_VERSION, manifest)?;
    report.write_time += t_write.elapsed();
    report.parts = parts
        .iter()
        .map(|(n, _)| out.join(crate::publish::GAMES).join(n))
        .collect();
    report.elapsed = start.elapsed();
    Ok(report)
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The options a run was made with, for its manifest.
pub fn options_json(options: &RunOptions) -> serde_json::Value {
    serde_json::json!({
        "komi": match options.komi {
            KomiPolicy::Game => serde_json::Value::from("game"),
            KomiPolicy::Fixed(k) => k.into(),
        },
        "komi_sweep": options.komi_sweep,
        "rules": options.rules.iter().map(|r| r.id()).collect::<Vec<_>>(),
        "include_unfinished": options.include_unfinished,
        "all_pairs": options.all_pairs,
        "settle_with_result": options.settle_with_result,
        "assume_rules": options.assume_rules.map(|r| r.id()),
        "limit": options.limit,
        "dedup": options.dedup,
    })
}

/// The analysis of [`run`], writing parts into `staging`'s `games` folder;
/// returns the report and the parts with their row counts.
fn analyse_into(
    staging: &Staging,
    files: &[InputFile],
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress),
    start: Instant,
) -> Result<(RunReport, Vec<(String, u64)>), RunError> {
    let games_dir = staging.games().map_err(|source| RunError::CreateOut {
        path: staging.path().display().to_string(),
        source,
    })?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .expect("building a thread pool");
    // Parts are written on a thread of their own, one chunk behind the
    // analysis, so encoding Parquet overlaps analysing the next chunk.
    let (to_writer, parts_in) = std::sync::mpsc::sync_channel::<(String, Vec<GameRow>)>(1);
    let writer = std::thread::spawn(move || -> Result<Duration, WriteError> {
        let cols = columns();
        let mut busy = Duration::ZERO;
        for (name, rows) in parts_in {
            let t = Instant::now();
            write_table(
                &games_dir,
                &name,
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
    let mut parts: Vec<(String, u64)> = Vec::new();
    let bytes_total: u64 = files.iter().map(|f| f.len).sum();
    let mut bytes_done = 0;
    let mut files_done = 0;
    let mut not_read = Vec::new();
    let (mut read_time, mut analyse_time, mut write_time) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let writer_failed = std::cell::Cell::new(false);
    // Adds a batch of rows (in input order) to the summary and sends them to
    // the writer as one part; false once the run should stop.
    let mut emit = |rows: Vec<GameRow>,
                    summary: &mut Summary,
                    parts: &mut Vec<(String, u64)>,
                    duplicates: &mut u64|
     -> bool {
        let mut kept: Vec<GameRow> = Vec::with_capacity(rows.len());
        for mut row in rows {
            row.keep_rule_sets(&options.rules);
            if options.limit.is_some_and(|l| summary.games >= l) {
                break;
            }
            if options.dedup {
                if let Some(h) = &row.game_hash {
                    if !seen.insert(h.clone()) {
                        *duplicates += 1;
                        continue;
                    }
                }
            }
            summary.add(&row);
            kept.push(row);
        }
        if !kept.is_empty() {
            let name = part_name(parts.len() as u32);
            parts.push((name.clone(), kept.len() as u64));
            if to_writer.send((name, kept)).is_err() {
                // The writer stopped on an error: it is reported below.
                writer_failed.set(true);
                return false;
            }
        }
        options.limit.is_none_or(|l| summary.games < l)
    };
    for unit in units(files, options) {
        if writer_failed.get() || options.limit.is_some_and(|l| summary.games >= l) {
            break;
        }
        let chunk = match unit {
            Unit::Big(file) => {
                let mut go_on = true;
                let streamed = stream_big_file(file, options, &pool, &mut |rows, spent| {
                    analyse_time += spent;
                    let t_write = Instant::now();
                    go_on = emit(rows, &mut summary, &mut parts, &mut duplicates);
                    write_time += t_write.elapsed();
                    go_on
                });
                if let Err(e) = streamed {
                    let source = file.path.display().to_string();
                    let row = GameRow::skipped(
                        &source,
                        &file.root.display().to_string(),
                        0,
                        SkipReason::Unreadable,
                    );
                    not_read.push((source, e.to_string()));
                    emit(vec![row], &mut summary, &mut parts, &mut duplicates);
                }
                std::slice::from_ref(file)
            }
            Unit::Files(chunk) => {
                let per_file: Vec<FileRows> = pool.install(|| {
                    chunk
                        .par_iter()
                        .map_init(
                            || {
                                Analyser::new()
                                    .use_record_result(options.settle_with_result)
                                    .assume_rules(options.assume_rules)
                            },
                            |analyser, file| rows_of_file(file, Keep::default(), analyser, options),
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
                emit(rows, &mut summary, &mut parts, &mut duplicates);
                write_time += t_write.elapsed();
                chunk
            }
        };
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
    Ok((
        RunReport {
            read_time,
            analyse_time,
            write_time,
            not_read,
            summary,
            parts: Vec::new(),
            duplicates,
            elapsed: start.elapsed(),
            threads: pool.current_num_threads(),
        },
        parts,
    ))
}

/// A unit of work: a chunk of small files analysed together, or one big
/// file streamed on its own.
enum Unit<'a> {
    Files(&'a [InputFile]),
    Big(&'a InputFile),
}

/// The files in their order, cut into units: runs of small files up to
/// `chunk_files` long, and every big plain SGF file (archives are streamed
/// by their own reader) alone.
fn units<'a>(files: &'a [InputFile], options: &RunOptions) -> Vec<Unit<'a>> {
    let big =
        |f: &InputFile| f.len > options.big_file_bytes && ArchiveKind::of_path(&f.path).is_none();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, f) in files.iter().enumerate() {
        if big(f) {
            out.extend(
                files[start..i]
                    .chunks(options.chunk_files.max(1))
                    .map(Unit::Files),
            );
            out.push(Unit::Big(f));
            start = i + 1;
        }
    }
    out.extend(
        files[start..]
            .chunks(options.chunk_files.max(1))
            .map(Unit::Files),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::discover;
    use crate::synth::{write_corpus, SynthOptions};
    use arrow_array::{Array, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    /// (source, game_index, game_hash) of every row of a run's parts.
    fn identities(parts: &[PathBuf]) -> Vec<(String, i64, String)> {
        let mut out = Vec::new();
        for p in parts {
            let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(p).unwrap())
                .unwrap()
                .build()
                .unwrap();
            for batch in reader {
                let b = batch.unwrap();
                let col = |name: &str| b.column(b.schema().index_of(name).unwrap()).clone();
                let source = col("source");
                let source = source.as_any().downcast_ref::<StringArray>().unwrap();
                let index = col("game_index");
                let index = index.as_any().downcast_ref::<Int64Array>().unwrap();
                let hash = col("game_hash");
                let hash = hash.as_any().downcast_ref::<StringArray>().unwrap();
                for i in 0..b.num_rows() {
                    let h = if hash.is_null(i) {
                        String::new()
                    } else {
                        hash.value(i).to_string()
                    };
                    out.push((source.value(i).to_string(), index.value(i), h));
                }
            }
        }
        out
    }

    #[test]
    fn big_files_stream_in_batches_and_give_the_same_rows() {
        let dir = std::env::temp_dir().join(format!("verdict-run-big-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let corpus = dir.join("corpus");
        write_corpus(
            &SynthOptions {
                games: 40,
                ..SynthOptions::default()
            },
            &corpus,
            8,
        )
        .unwrap();
        // One collection of every game, damaged at the end, and an empty file.
        let mut collection = Vec::new();
        for f in &discover(&[&corpus]).files {
            collection.extend(std::fs::read(&f.path).unwrap());
        }
        collection.extend(b"(;GM[1]SZ[19]KM[6.5];B[pd];W[dp];B[pp");
        std::fs::write(corpus.join("all.sgf"), &collection).unwrap();
        std::fs::write(corpus.join("empty.sgf"), b"").unwrap();
        let files = discover(&[&corpus]).files;

        let whole = run(
            &files,
            &RunOptions {
                out: dir.join("whole"),
                threads: 2,
                ..RunOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
        // Every file above 100 bytes is streamed, 8 games a batch.
        let streamed = run(
            &files,
            &RunOptions {
                out: dir.join("streamed"),
                threads: 2,
                big_file_bytes: 100,
                chunk_files: 2,
                ..RunOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
        assert!(whole.summary.games > 80, "{}", whole.summary.games);
        assert_eq!(streamed.summary, whole.summary);
        assert!(
            streamed.parts.len() > whole.parts.len() + 5,
            "{} parts",
            streamed.parts.len()
        );
        // Same rows, in the same order.
        assert_eq!(identities(&streamed.parts), identities(&whole.parts));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
