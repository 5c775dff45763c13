//! One shard of a distributed job: some files (or a byte range of one large
//! collection file), analysed exactly as `verdict run` analyses them, written
//! as one part file into the job's staging folder, with the shard's summary
//! returned for the coordinator to add up.
//!
//! The rows are the ones `verdict run` writes for the same games (same
//! `source`, `input`, `index`, `game_hash`), so a job's rows are the rows of a
//! local run, whatever the shard boundaries. The part is named for the
//! lease ([`crate::publish::staged_part_name`]): two attempts at a shard
//! never write one file, and the coordinator publishes only the part of the
//! lease it accepted. The staging folder must exist: a worker never creates
//! it, so one that comes back after its job was cancelled writes nothing.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use std::ops::ControlFlow;

use verdict_rules::analyse::Analyser;

use crate::confined::Dir;
use crate::engine::{self, Item};
use crate::parquet_out::{PartWriter, WriteError};
use crate::row::{columns, GameRow, SCHEMA_VERSION};
use crate::run::{analyser, budget, row_of, RunOptions};
use crate::summary::Summary;

pub use verdict_corpus::input::ShardFile;

/// Where a shard's part goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartTarget {
    /// The job's staging folder (it must exist).
    pub dir: PathBuf,
    /// The part's name in it.
    pub name: String,
}

/// What one shard gave.
#[derive(Debug)]
pub struct ShardOutcome {
    pub summary: Summary,
    pub part: PathBuf,
    /// Rows in the part (the summary's game count).
    pub rows: u64,
    /// Archive members or files not read, with the reason.
    pub not_read: Vec<(String, String)>,
}

/// Why a shard did not finish.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("cancelled")]
    Cancelled,
    #[error("cannot open the job's staging folder ({0}): the job has ended or its output folder was moved")]
    Staging(std::io::Error),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("cannot put the part in the job's bucket: {0}")]
    Upload(String),
    #[error("the job asks for the referee {0}, which this worker did not start")]
    RefereeNotStarted(String),
}

/// Analyses `files` on `pool`, writes the part to `target`, and returns the
/// shard's summary. `games` counts analysed games as they finish (for
/// heartbeats); `cancel` stops the shard at the next game, writing nothing.
/// Rows go to the part a chunk at a time: a shard of a big collection needs
/// no more memory than a small one.
///
/// `options.limit` and `options.dedup` are corpus-wide and do not apply to
/// a shard.
///
/// # Errors
/// Cancelled, the staging folder is gone, or the part could not be written.
pub fn run_shard(
    files: &[ShardFile],
    target: &PartTarget,
    options: &RunOptions,
    pool: &rayon::ThreadPool,
    games: &AtomicU64,
    cancel: &AtomicBool,
) -> Result<ShardOutcome, ShardError> {
    if let Some(name) = options.unstarted_referee() {
        return Err(ShardError::RefereeNotStarted(name.to_string()));
    }
    // A staging place in a bucket: the part is written locally, then put
    // there under its lease's name (created once, never replacing).
    let remote = crate::objects::is_url(&target.dir);
    let local = remote
        .then(|| crate::objects::Scratch::new("part"))
        .transpose()
        .map_err(ShardError::Staging)?;
    let dir_path = local
        .as_ref()
        .map_or(target.dir.clone(), |l| l.path().to_path_buf());
    // Opened first: a shard whose job is gone fails at once, not after the
    // analysis.
    let dir = Dir::open(&dir_path).map_err(ShardError::Staging)?;
    let mut summary = Summary::new(options.all_pairs, &options.rules);
    summary.sweep = options.komi_sweep.clone();
    let metadata = [
        ("verdict.schema_version", SCHEMA_VERSION),
        ("verdict.version", env!("CARGO_PKG_VERSION")),
    ];
    let mut part = PartWriter::create(&dir, &target.name, &columns(), &metadata)?;
    let state = || analyser(options);
    let per_game = |a: &mut Analyser, item: Item<'_, '_>| {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let mut row = row_of(item, a, options);
        row.keep_rule_sets(&options.rules);
        games.fetch_add(1, Ordering::Relaxed);
        Some(row)
    };
    let mut failed = None;
    let outcome = engine::chunks(files, budget(options), Some(cancel), |chunk| {
        let rows: Vec<GameRow> = engine::par_map(pool, chunk, &state, &per_game)
            .into_iter()
            .flatten()
            .collect();
        for row in &rows {
            summary.add(row);
        }
        match part.push(rows.iter().map(GameRow::cells)) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    if outcome.stopped || cancel.load(Ordering::Relaxed) {
        return Err(ShardError::Cancelled);
    }
    let rows = part.finish()?;
    if let Some(local) = &local {
        let url = crate::objects::ObjectUrl::parse(&target.dir.join(&target.name))
            .map_err(|e| ShardError::Upload(e.to_string()))?;
        crate::objects::store(&url)
            .and_then(|s| s.upload(&local.path().join(&target.name), &url.key, true))
            .map_err(|e| ShardError::Upload(e.to_string()))?;
    }
    Ok(ShardOutcome {
        summary,
        part: target.dir.join(&target.name),
        rows,
        not_read: outcome.not_read,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::discover;
    use verdict_lab::synth::{write_corpus, SynthOptions};

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("verdict-shard-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Shards that split a corpus (whole files, and one collection cut into
    /// byte ranges) add up to exactly the summary of a local run, and their
    /// rows are the local run's rows.
    #[test]
    fn shards_add_up_to_a_local_run() {
        let dir = temp("sum");
        let corpus = dir.join("corpus");
        let options = SynthOptions {
            games: 60,
            ..SynthOptions::default()
        };
        write_corpus(&options, &corpus, 8).unwrap();
        // One collection of every game of the corpus's first files, to cut.
        let found = discover(&[&corpus]);
        let mut collection = Vec::new();
        for f in &found.files[..found.files.len() / 2] {
            collection.extend(std::fs::read(&f.path).unwrap());
        }
        // Damage at the end: a game cut off mid-record, then garbage.
        collection.extend(b"(;GM[1]SZ[19]KM[6.5];B[pd];W[dp];B[pp");
        collection.extend(b"\x00\xff not sgf");
        std::fs::write(corpus.join("all.sgf"), &collection).unwrap();
        let found = discover(&[&corpus]);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();

        let local = crate::run::run(
            &found.files,
            &RunOptions {
                out: dir.join("local"),
                threads: 2,
                ..RunOptions::default()
            },
            false,
            crate::run::Hooks::default(),
        )
        .unwrap();

        let sharded = RunOptions {
            out: dir.join("sharded"),
            ..RunOptions::default()
        };
        let mut shards: Vec<Vec<ShardFile>> = Vec::new();
        for f in &found.files {
            if f.path.ends_with("all.sgf") {
                // Cut the collection at tree ends, as the coordinator does.
                let parts = crate::engine::cut(f, f.len / 3).unwrap().unwrap();
                assert_eq!(parts.len(), 3);
                for p in parts {
                    shards.push(vec![ShardFile {
                        file: f.clone(),
                        part: Some(p),
                    }]);
                }
            } else {
                if shards.last().is_none_or(|s| s.len() >= 5) {
                    shards.push(Vec::new());
                }
                shards.last_mut().unwrap().push(ShardFile {
                    file: f.clone(),
                    part: None,
                });
            }
        }
        let mut total = Summary::new(false, &verdict_rules::score::RuleSet::ALL);
        let games = AtomicU64::new(0);
        let staging = dir.join("staging");
        std::fs::create_dir_all(&staging).unwrap();
        let staging = crate::confined::resolve(&staging).unwrap();
        for (n, files) in shards.iter().enumerate() {
            let target = PartTarget {
                dir: staging.clone(),
                name: crate::publish::staged_part_name(n as u32, 7),
            };
            let got = run_shard(
                files,
                &target,
                &sharded,
                &pool,
                &games,
                &AtomicBool::new(false),
            )
            .unwrap();
            assert!(got.part.exists());
            assert_eq!(got.rows, got.summary.games);
            let rows = crate::parquet_out::rows_in(std::fs::File::open(&got.part).unwrap());
            assert_eq!(rows.unwrap(), got.rows);
            total.merge(&got.summary);
        }
        assert!(local.summary.games > 60, "{}", local.summary.games);
        assert_eq!(games.load(Ordering::Relaxed), local.summary.games);
        assert_eq!(total, local.summary);
        assert_eq!(total.to_json("x"), local.summary.to_json("x"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_cancelled_shard_writes_nothing() {
        let dir = temp("cancel");
        let corpus = dir.join("corpus");
        write_corpus(
            &SynthOptions {
                games: 5,
                ..SynthOptions::default()
            },
            &corpus,
            1,
        )
        .unwrap();
        let files: Vec<ShardFile> = discover(&[&corpus])
            .files
            .into_iter()
            .map(|file| ShardFile { file, part: None })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let options = RunOptions {
            out: dir.join("out"),
            ..RunOptions::default()
        };
        std::fs::create_dir_all(&options.out).unwrap();
        let target = PartTarget {
            dir: crate::confined::resolve(&options.out).unwrap(),
            name: "part-00003.parquet".into(),
        };
        let got = run_shard(
            &files,
            &target,
            &options,
            &pool,
            &AtomicU64::new(0),
            &AtomicBool::new(true),
        );
        assert!(matches!(got, Err(ShardError::Cancelled)));
        assert!(!target.dir.join(&target.name).exists());
        // A staging folder that is gone fails the shard before any analysis.
        let gone = PartTarget {
            dir: target.dir.join("gone"),
            name: "p.parquet".into(),
        };
        let got = run_shard(
            &files,
            &gone,
            &options,
            &pool,
            &AtomicU64::new(0),
            &AtomicBool::new(false),
        );
        assert!(matches!(got, Err(ShardError::Staging(_))), "{got:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
