//! `verdict run`: a corpus in, Parquet rows and summaries out.
//!
//! The games come from the corpus engine ([`crate::engine`]) a chunk at a
//! time, each chunk analysed on every core; their rows, in input order, go to
//! a writer thread that adds them up into the summary and appends them to
//! the current part (row groups of [`crate::parquet_out::ROW_GROUP_ROWS`], parts of at most
//! [`RunOptions::part_rows`] rows). Memory is bounded by a chunk and a row
//! group, not by the corpus or its files, and the output is the same
//! whatever the thread count.
//!
//! The run works in a staging folder of its own and publishes at the end
//! ([`crate::publish`]). After every part it records how far it got (a
//! journal beside the parts): a run stopped by Ctrl-C (or killed) can be
//! taken up again with `--resume`, and ends with the rows and summary of a
//! run that was never stopped.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use verdict_proto::prost::Message;
use verdict_rules::analyse::{Analyser, KomiPolicy};
use verdict_rules::game::{Game, SkipReason};

use crate::confined::Dir;
pub use crate::engine::MAX_MEMBER_BYTES;
use crate::engine::{self, Budget, Item};
use crate::ids::random_u64;
use crate::inputs::InputFile;
use crate::parquet_out::{PartWriter, WriteError};
use crate::publish::{part_name, OutError, Staging, GAMES, STAGING};
use crate::row::{columns, GameRow, SCHEMA_VERSION};
use crate::summary::Summary;
pub use verdict_corpus::options::{RefereeChoice, RunOptions};

/// How far a run has got, after each chunk.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    /// Rows so far (games, and files with none or unreadable).
    pub games: u64,
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub elapsed: Duration,
}

/// What a run can be told and tell while it works.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Called after each chunk.
    pub progress: Option<&'a mut dyn FnMut(Progress)>,
    /// Counted up after every game analysed (for a progress bar that moves
    /// game by game).
    pub analysed: Option<&'a AtomicU64>,
    /// Set to stop after the current chunk (Ctrl-C): what is done is kept
    /// for `--resume`.
    pub stop: Option<&'a AtomicBool>,
    /// Called on the writer thread after every journal write (at the
    /// start, after each part, and at the end or stop), before the run goes
    /// on: a run into a bucket copies its staging folder there, so that a
    /// run killed with its machine can be resumed from anywhere
    /// ([`crate::run_remote`]). An error ends the run.
    pub journaled: Option<&'a JournalHook<'a>>,
}

/// What [`Hooks::journaled`] calls.
pub type JournalHook<'h> = dyn Fn(&Journaled<'_>) -> std::io::Result<()> + Sync + 'h;

/// What a journal write changed in a run's staging folder, in the order
/// to copy it: the part just finished (if one was), the summary file the
/// journal names, then the journal itself; `dropped` is the summary file
/// the previous journal named, removed once the new journal is written.
#[derive(Debug)]
pub struct Journaled<'a> {
    /// The staging folder.
    pub staging: &'a Path,
    /// Its name (`run-...`), as `verdict.run` in its parts' metadata.
    pub name: &'a str,
    /// A part just finished, in `games/`.
    pub part: Option<&'a str>,
    pub summary: &'a str,
    pub journal: &'a str,
    pub dropped: &'a str,
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").finish_non_exhaustive()
    }
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
    #[error("cannot record the run's progress in {path}: {source}")]
    Journal {
        path: String,
        source: std::io::Error,
    },
    #[error("nothing to resume in {0}: no stopped run with these inputs and options (a run started without --resume removes them)")]
    NothingToResume(String),
    #[error("the stopped run in {path} lists parts that are gone ({missing}): it cannot be resumed; run again without --resume to start over")]
    PartsGone { path: String, missing: String },
    #[error("the options ask for the referee {0}, which was not started")]
    RefereeNotStarted(String),
}

/// What a finished (or stopped) run reports.
#[derive(Debug)]
pub struct RunReport {
    pub summary: Summary,
    /// The published parts (empty when stopped).
    pub parts: Vec<PathBuf>,
    pub duplicates: u64,
    pub elapsed: Duration,
    pub threads: usize,
    /// Thread time spent reading SGF, replaying, scoring and building rows.
    pub analyse_time: Duration,
    /// Time the writer thread spent writing Parquet (it overlaps the
    /// analysis).
    pub write_time: Duration,
    /// Files, archives and members that could not be read, with the reason
    /// (each has an `unreadable` row).
    pub not_read: Vec<(String, String)>,
    /// Archive members that are not SGF, with the reason.
    pub left_aside: Vec<(String, String)>,
    /// Stopped before the end: the parts so far wait in the staging folder
    /// for `--resume`.
    pub stopped: bool,
    /// Games taken over from the stopped run this one resumed.
    pub resumed_games: u64,
}

/// The row of one item, as every run and shard makes it.
pub fn row_of(item: Item<'_, '_>, analyser: &mut Analyser, options: &RunOptions) -> GameRow {
    match item {
        Item::Game {
            unit,
            index,
            sgf,
            bytes,
        } => match Game::from_sgf(sgf, bytes) {
            Ok(game) => GameRow::analysed(
                &unit.source,
                &unit.input,
                index,
                &game,
                analyser,
                options.komi,
                options.include_unfinished,
            ),
            Err(reason) => GameRow::skipped(&unit.source, &unit.input, index, reason),
        },
        Item::NoGame { unit } => GameRow::skipped(&unit.source, &unit.input, 0, SkipReason::NoGame),
        Item::Unreadable { unit, .. } => {
            GameRow::skipped(&unit.source, &unit.input, 0, SkipReason::Unreadable)
        }
    }
}

/// The analyser a run's options ask for.
pub fn analyser(options: &RunOptions) -> Analyser {
    let referee = options.referee.as_ref();
    Analyser::new()
        .use_record_result(options.settle_with_result)
        .assume_rules(options.assume_rules)
        .referee(
            referee.and_then(|r| r.referee.clone()),
            referee.map_or(0.0, |r| r.threshold),
        )
}

/// The engine's budget a run's options ask for.
pub fn budget(options: &RunOptions) -> Budget {
    Budget {
        games: options.chunk_games.max(1),
        bytes: options.chunk_bytes.max(1),
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The options a run was made with, for its manifest and provenance.
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
        "referee": options.referee.as_ref().map(|r| serde_json::json!({
            "program": r.name,
            "threshold": r.threshold,
        })),
    })
}

/// What decides the rows: the inputs as found (paths, sizes, times), the
/// options, the engine's cuts and the verdict version. A stopped run is
/// resumed only by a run with the same fingerprint.
pub fn fingerprint(files: &[InputFile], options: &RunOptions) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut h);
    options_json(options).to_string().hash(&mut h);
    (options.chunk_games, options.chunk_bytes, options.part_rows).hash(&mut h);
    engine::CHUNKING.hash(&mut h);
    for f in files {
        f.root.hash(&mut h);
    }
    hash_files(files, &mut h);
    format!("{:016x}", h.finish())
}

/// The inputs as found, for a fingerprint: paths, sizes and times (for
/// objects in object storage, which have no time here, their ETags).
pub fn hash_files(files: &[InputFile], h: &mut impl Hasher) {
    for f in files {
        f.path.hash(h);
        f.len.hash(h);
        f.version.hash(h);
        let modified = std::fs::metadata(&f.path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos());
        modified.hash(h);
    }
}

/// The journal of a run in its staging folder: what its finished parts
/// hold. Written after every part, read by `--resume`.
pub(crate) const JOURNAL: &str = "journal.json";
/// The summary of the journal's parts (a prost-encoded `ShardSummary`)
/// is in a file of its own, named by the journal's generation: written
/// before the journal that names it, so a process killed between the two
/// writes leaves the old journal with the old summary, never a summary
/// that counts a part the journal does not list.
const JOURNAL_SUMMARY_PREFIX: &str = "journal-summary-";

fn journal_summary_name(generation: u64) -> String {
    format!("{JOURNAL_SUMMARY_PREFIX}{generation:08}.pb")
}

#[derive(Debug, Default, Clone)]
pub(crate) struct Journal {
    fingerprint: String,
    /// Chunks of the engine whose rows are all in `parts`.
    chunks: u64,
    /// Entries handed over in those chunks.
    items: u64,
    parts: Vec<(String, u64)>,
    duplicates: u64,
    started_unix: u64,
    /// How many times the journal was written; names its summary file.
    generation: u64,
}

impl Journal {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "fingerprint": self.fingerprint,
            "chunks": self.chunks,
            "items": self.items,
            "duplicates": self.duplicates,
            "started_unix": self.started_unix,
            "generation": self.generation,
            "parts": self.parts.iter().map(|(n, r)| serde_json::json!({"name": n, "rows": r})).collect::<Vec<_>>(),
        })
    }

    fn from_json(v: &serde_json::Value) -> Option<Journal> {
        Some(Journal {
            fingerprint: v["fingerprint"].as_str()?.to_string(),
            chunks: v["chunks"].as_u64()?,
            items: v["items"].as_u64()?,
            duplicates: v["duplicates"].as_u64()?,
            started_unix: v["started_unix"].as_u64()?,
            generation: v["generation"].as_u64()?,
            parts: v["parts"]
                .as_array()?
                .iter()
                .map(|p| Some((p["name"].as_str()?.to_string(), p["rows"].as_u64()?)))
                .collect::<Option<_>>()?,
        })
    }

    /// The journal's JSON, as written: its fingerprint, its parts and the
    /// summary file it names (for a copy of the staging folder).
    pub(crate) fn parse(bytes: &[u8]) -> Option<(String, Vec<String>, String)> {
        let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        let j = Journal::from_json(&v)?;
        Some((
            j.fingerprint,
            j.parts.into_iter().map(|(n, _)| n).collect(),
            journal_summary_name(j.generation),
        ))
    }

    /// Tells `hook` what the last [`Journal::write`] changed.
    fn tell(
        &self,
        hook: Option<&JournalHook<'_>>,
        dir: &Dir,
        part: Option<&str>,
    ) -> std::io::Result<()> {
        let Some(hook) = hook else { return Ok(()) };
        let name = dir
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        hook(&Journaled {
            staging: dir.path(),
            name: &name,
            part,
            summary: &journal_summary_name(self.generation),
            journal: JOURNAL,
            dropped: &journal_summary_name(self.generation.saturating_sub(1)),
        })
    }

    fn read(dir: &Dir) -> Option<(Journal, Summary)> {
        let file = dir.open_file(JOURNAL).ok()?;
        let v: serde_json::Value = serde_json::from_reader(std::io::BufReader::new(file)).ok()?;
        let journal = Journal::from_json(&v)?;
        let mut bytes = Vec::new();
        let named = journal_summary_name(journal.generation);
        std::io::Read::read_to_end(&mut dir.open_file(named).ok()?, &mut bytes).ok()?;
        let pb = verdict_proto::v1::ShardSummary::decode(&bytes[..]).ok()?;
        let mut summary = Summary::default();
        verdict_proto::add_summary(&mut summary, &pb).ok()?;
        Some((journal, summary))
    }

    /// Writes the summary, then the journal naming it, then drops the
    /// summary the previous journal named.
    fn write(&mut self, dir: &Dir, summary: &Summary) -> std::io::Result<()> {
        let pb: verdict_proto::v1::ShardSummary = summary.into();
        let previous = self.generation;
        self.generation += 1;
        dir.write_bytes(journal_summary_name(self.generation), &pb.encode_to_vec())?;
        dir.write_bytes(
            JOURNAL,
            &serde_json::to_vec_pretty(&self.to_json()).expect("JSON of plain values"),
        )?;
        dir.remove_file(journal_summary_name(previous))
    }
}

/// The staging folder of a stopped run into `out` with `fingerprint`, if
/// one is there and no live run holds it.
fn stopped_run(out: &Path, fingerprint: &str) -> Option<String> {
    let root = Dir::open(out).and_then(|d| d.sub(STAGING)).ok()?;
    for e in root.entries().ok()? {
        let name = e.name.to_string_lossy().into_owned();
        if !name.starts_with("run-") {
            continue;
        }
        let Ok(dir) = root.sub(&e.name) else {
            continue;
        };
        if Journal::read(&dir).is_some_and(|(j, _)| j.fingerprint == fingerprint) {
            return Some(name);
        }
    }
    None
}

/// Runs the analysis over `files` and publishes its parts, `summary.json`,
/// `summary.parquet` and `_SUCCESS` under `options.out` ([`crate::publish`]):
/// the folder's previous output stays whole until this run's replaces it.
/// With `resume`, it takes up a stopped run with the same inputs and
/// options where it stopped. Stopped by `hooks.stop`, it keeps what it did
/// for a later `resume` and publishes nothing.
///
/// # Errors
/// The output folder cannot be used, a part cannot be written, or there is
/// nothing to resume; what was published before is then left as it was.
pub fn run(
    files: &[InputFile],
    options: &RunOptions,
    resume: bool,
    mut hooks: Hooks<'_>,
) -> Result<RunReport, RunError> {
    let start = Instant::now();
    if let Some(name) = options.unstarted_referee() {
        return Err(RunError::RefereeNotStarted(name.to_string()));
    }
    let out = crate::confined::resolve(&options.out).map_err(|source| RunError::CreateOut {
        path: options.out.display().to_string(),
        source,
    })?;
    let fingerprint = fingerprint(files, options);
    let name = if resume {
        stopped_run(&out, &fingerprint)
            .ok_or_else(|| RunError::NothingToResume(out.display().to_string()))?
    } else {
        format!("run-{}-{:016x}", std::process::id(), random_u64())
    };
    let staging = Staging::open(&out, &name)?;
    let (journal, summary) = match Journal::read(staging.dir()) {
        Some((j, mut s)) if resume && j.fingerprint == fingerprint => {
            s.pairs = Summary::new(options.all_pairs, &options.rules).pairs;
            s.sweep = options.komi_sweep.clone();
            (j, s)
        }
        _ => {
            let mut s = Summary::new(options.all_pairs, &options.rules);
            s.sweep = options.komi_sweep.clone();
            let mut j = Journal {
                fingerprint,
                started_unix: unix_now(),
                ..Journal::default()
            };
            // Journaled from the start: a run killed before its first part
            // is one that --resume takes up (from nothing).
            let written = j
                .write(staging.dir(), &s)
                .and_then(|()| j.tell(hooks.journaled, staging.dir(), None));
            if let Err(source) = written {
                let path = staging.path().display().to_string();
                // Nothing done yet: nothing to keep for --resume.
                let _ = staging.discard();
                return Err(RunError::Journal { path, source });
            }
            (j, s)
        }
    };
    tidy(&staging, &journal)?;
    let analysed = analyse_into(
        &staging, files, options, journal, summary, &mut hooks, start,
    );
    let (mut report, journal) = match analysed {
        Ok(done) => done,
        Err(e) => {
            // Kept for --resume when it got somewhere; an error is not a stop.
            let _ = staging.discard();
            return Err(e);
        }
    };
    if report.stopped {
        // The staging folder (parts and journal) stays for --resume; its
        // lock goes with this process.
        drop(staging);
        report.elapsed = start.elapsed();
        return Ok(report);
    }
    let t_write = Instant::now();
    let mut manifest = serde_json::Map::new();
    manifest.insert("kind".into(), "run".into());
    manifest.insert("verdict_version".into(), env!("CARGO_PKG_VERSION").into());
    manifest.insert("started_unix".into(), journal.started_unix.into());
    manifest.insert("published_unix".into(), unix_now().into());
    manifest.insert("options".into(), options_json(options));
    manifest.insert("input_files".into(), files.len().into());
    manifest.insert("resumed".into(), (report.resumed_games > 0).into());
    let mut summary = report.summary.clone();
    summary.provenance = Some(provenance(files, options, journal.started_unix));
    staging.publish(&[], &journal.parts, &summary, SCHEMA_VERSION, manifest)?;
    report.write_time += t_write.elapsed();
    report.parts = journal
        .parts
        .iter()
        .map(|(n, _)| out.join(GAMES).join(n))
        .collect();
    report.elapsed = start.elapsed();
    Ok(report)
}

/// Puts a resumed run's parts back as its journal lists them. Removed:
/// what the journal does not list (the temporary file of a part cut short,
/// a part finished but not recorded, a summary written for a journal that
/// was not) and parts another run wrote (the previous output, swapped in
/// by a publish that was killed before it ended). Moved back from the
/// published `games` folder: the journal's parts a killed publish had
/// moved there, known by the run named in their metadata.
fn tidy(staging: &Staging, journal: &Journal) -> Result<(), RunError> {
    let dir = staging.dir();
    let at = |d: &Dir| {
        let path = d.path().display().to_string();
        move |source| RunError::Journal { path, source }
    };
    let named = journal_summary_name(journal.generation);
    for e in dir.entries().map_err(at(dir))? {
        let name = e.name.to_string_lossy();
        if name.starts_with(JOURNAL_SUMMARY_PREFIX) && name != named.as_str() {
            dir.remove_file(&e.name).map_err(at(dir))?;
        }
    }
    let games = staging.games().map_err(|source| RunError::CreateOut {
        path: staging.path().display().to_string(),
        source,
    })?;
    let ours = |d: &Dir, name: &str| {
        d.open_file(name)
            .ok()
            .and_then(|f| crate::parquet_out::metadata_value(f, "verdict.run"))
            .as_deref()
            == Some(staging.name())
    };
    let listed = |name: &str| journal.parts.iter().any(|(p, _)| p == name);
    for e in games.entries().map_err(at(&games))? {
        let name = e.name.to_string_lossy();
        if !listed(&name) || !ours(&games, &name) {
            games.remove_tree(&e.name).map_err(at(&games))?;
        }
    }
    let published = staging.published_games().map_err(at(dir))?;
    let mut missing = Vec::new();
    for (name, _) in &journal.parts {
        if games.kind(name).map_err(at(&games))?.is_some() {
            continue;
        }
        match published.as_ref().filter(|p| ours(p, name)) {
            Some(p) => p.rename(name, &games, name).map_err(at(p))?,
            None => missing.push(name.as_str()),
        }
    }
    if !missing.is_empty() {
        return Err(RunError::PartsGone {
            path: staging.path().display().to_string(),
            missing: missing.join(", "),
        });
    }
    Ok(())
}

/// Where a run's numbers come from, for `summary.json`.
fn provenance(files: &[InputFile], options: &RunOptions, started: u64) -> serde_json::Value {
    let mut roots: Vec<String> = Vec::new();
    for f in files {
        let r = f.root.display().to_string();
        if roots.last() != Some(&r) && !roots.contains(&r) {
            roots.push(r);
        }
    }
    serde_json::json!({
        "verdict_version": env!("CARGO_PKG_VERSION"),
        "kind": "run",
        "options": options_json(options),
        "inputs": roots,
        "input_files": files.len(),
        "started_unix": started,
        "finished_unix": unix_now(),
    })
}

/// Rows to the writer thread: one chunk's, in order, and how far the run
/// has got once they are written.
enum ToWriter {
    Rows {
        rows: Vec<GameRow>,
        chunk: u64,
        items: u64,
        duplicates: u64,
    },
}

/// The analysis of [`run`], writing parts into `staging`'s `games` folder
/// and the journal beside them; returns the report and the last journal.
#[allow(clippy::too_many_arguments)]
fn analyse_into(
    staging: &Staging,
    files: &[InputFile],
    options: &RunOptions,
    journal: Journal,
    summary: Summary,
    hooks: &mut Hooks<'_>,
    start: Instant,
) -> Result<(RunReport, Journal), RunError> {
    let games_dir = staging.games().map_err(|source| RunError::CreateOut {
        path: staging.path().display().to_string(),
        source,
    })?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .expect("building a thread pool");
    let resumed_games = summary.games;
    let skip_chunks = journal.chunks;
    // Copies a resumed --dedup run must still leave out.
    let mut seen: HashSet<String> = HashSet::new();
    if options.dedup && !journal.parts.is_empty() {
        for (name, _) in &journal.parts {
            let file = games_dir.open_file(name).map_err(WriteError::from)?;
            seen.extend(
                crate::parquet_out::strings_in(file, "game_hash").map_err(|source| {
                    WriteError::Parquet {
                        path: games_dir.path().join(name).display().to_string(),
                        source,
                    }
                })?,
            );
        }
    }
    let metadata_options = options_json(options).to_string();
    let run_id = staging
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let part_rows = options.part_rows.max(1);
    let mut duplicates = journal.duplicates;
    let mut games = summary.games;
    let stop = hooks.stop;
    let analysed = hooks.analysed;
    let journaled = hooks.journaled;
    let bytes_total: u64 = files.iter().map(|f| f.len).sum();
    let mut analyse_time = Duration::ZERO;
    let mut bytes_done = 0u64;
    let written = std::thread::scope(|scope| {
        // The writer thread: adds rows up, writes them, closes parts and
        // records each in the journal.
        let (to_writer, from_main) = std::sync::mpsc::sync_channel::<ToWriter>(1);
        let staging_dir = staging.dir();
        let games_dir = &games_dir;
        let metadata = [
            ("verdict.schema_version", SCHEMA_VERSION),
            ("verdict.version", env!("CARGO_PKG_VERSION")),
            ("verdict.run", run_id.as_str()),
            ("verdict.options", metadata_options.as_str()),
        ];
        let writer = scope.spawn(move || -> Result<(Journal, Summary, Duration), RunError> {
            let mut journal = journal;
            let mut summary = summary;
            let cols = columns();
            let mut busy = Duration::ZERO;
            let mut part: Option<PartWriter<'_>> = None;
            let mut last = (journal.chunks, journal.items, journal.duplicates);
            let close = |part: PartWriter<'_>,
                         journal: &mut Journal,
                         summary: &Summary,
                         last: (u64, u64, u64)|
             -> Result<(), RunError> {
                let name = part_name(journal.parts.len() as u32);
                let rows = part.finish()?;
                journal.parts.push((name.clone(), rows));
                (journal.chunks, journal.items, journal.duplicates) = last;
                journal
                    .write(staging_dir, summary)
                    .and_then(|()| journal.tell(journaled, staging_dir, Some(&name)))
                    .map_err(|source| RunError::Journal {
                        path: staging_dir.path().display().to_string(),
                        source,
                    })
            };
            for msg in from_main {
                let ToWriter::Rows {
                    rows,
                    chunk,
                    items,
                    duplicates,
                } = msg;
                let t = Instant::now();
                if !rows.is_empty() {
                    if part.is_none() {
                        let name = part_name(journal.parts.len() as u32);
                        part = Some(PartWriter::create(games_dir, &name, &cols, &metadata)?);
                    }
                    let p = part.as_mut().expect("just made");
                    for row in &rows {
                        summary.add(row);
                    }
                    p.push(rows.iter().map(GameRow::cells))?;
                }
                last = (chunk + 1, items, duplicates);
                if part.as_ref().is_some_and(|p| p.rows() >= part_rows) {
                    close(part.take().expect("checked"), &mut journal, &summary, last)?;
                }
                busy += t.elapsed();
            }
            if let Some(p) = part.take() {
                close(p, &mut journal, &summary, last)?;
            } else {
                (journal.chunks, journal.items, journal.duplicates) = last;
                journal
                    .write(staging_dir, &summary)
                    .and_then(|()| journal.tell(journaled, staging_dir, None))
                    .map_err(|source| RunError::Journal {
                        path: staging_dir.path().display().to_string(),
                        source,
                    })?;
            }
            Ok((journal, summary, busy))
        });
        let mut chunk_no = 0u64;
        let mut items = 0u64;
        let state = || analyser(options);
        let per_game = |a: &mut Analyser, item: Item<'_, '_>| {
            let t = Instant::now();
            let mut row = row_of(item, a, options);
            row.keep_rule_sets(&options.rules);
            if let Some(n) = analysed {
                n.fetch_add(1, Ordering::Relaxed);
            }
            (row, t.elapsed())
        };
        let outcome = engine::chunks(&engine::whole(files), budget(options), stop, |chunk| {
            let this = chunk_no;
            chunk_no += 1;
            items += chunk.len() as u64;
            bytes_done += chunk.iter().map(|e| e.sgf_bytes() as u64).sum::<u64>();
            if this < skip_chunks {
                // Done before the stop this run resumes.
                return ControlFlow::Continue(());
            }
            let timed = engine::par_map(&pool, chunk, &state, &per_game);
            let mut kept = Vec::with_capacity(timed.len());
            let mut full = false;
            for (row, spent) in timed {
                analyse_time += spent;
                if options.limit.is_some_and(|l| games >= l) {
                    full = true;
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
                games += 1;
                kept.push(row);
            }
            let sent = to_writer.send(ToWriter::Rows {
                rows: kept,
                chunk: this,
                items,
                duplicates,
            });
            if let Some(p) = hooks.progress.as_mut() {
                p(Progress {
                    games,
                    bytes_done,
                    bytes_total,
                    elapsed: start.elapsed(),
                });
            }
            if sent.is_err() || full || options.limit.is_some_and(|l| games >= l) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        drop(to_writer);
        let written = writer
            .join()
            .expect("the Parquet writer thread does not panic");
        (outcome, written)
    });
    let (outcome, written) = written;
    let (journal, summary, write_time) = written?;
    // A limit reached is the end of the run, not a stop.
    let stopped = outcome.stopped && stop.is_some_and(|s| s.load(Ordering::Relaxed));
    Ok((
        RunReport {
            summary,
            parts: Vec::new(),
            duplicates,
            elapsed: start.elapsed(),
            threads: pool.current_num_threads(),
            analyse_time,
            write_time,
            not_read: outcome.not_read,
            left_aside: outcome.left_aside,
            stopped,
            resumed_games,
        },
        journal,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::discover;
    use arrow_array::{Array, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use verdict_lab::synth::{write_corpus, SynthOptions};

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

    /// A fresh folder `verdict-run-{name}-PID` with a synthetic corpus of
    /// `games` games (`per_file` to a collection) in its `corpus`.
    fn fresh_corpus(name: &str, games: usize, per_file: usize) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("verdict-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let corpus = dir.join("corpus");
        write_corpus(
            &SynthOptions {
                games,
                ..SynthOptions::default()
            },
            &corpus,
            per_file,
        )
        .unwrap();
        (dir, corpus)
    }

    /// A run stopped after `chunks` chunks into `options.out`.
    fn stopped_after(files: &[InputFile], options: &RunOptions, chunks: usize) -> RunReport {
        let stop = AtomicBool::new(false);
        let mut seen = 0;
        let mut count = |_: Progress| {
            seen += 1;
            if seen == chunks {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let report = run(
            files,
            options,
            false,
            Hooks {
                progress: Some(&mut count),
                stop: Some(&stop),
                ..Hooks::default()
            },
        )
        .unwrap();
        assert!(report.stopped);
        report
    }

    fn staging_of(out: &Path) -> PathBuf {
        let mut runs: Vec<PathBuf> = std::fs::read_dir(out.join(STAGING))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        assert_eq!(runs.len(), 1, "{runs:?}");
        runs.pop().unwrap()
    }

    /// The states a kill -9 can leave inside a publish or a journal write,
    /// made by hand: each is taken up by --resume with the rows and summary
    /// of a run never stopped.
    #[test]
    fn resume_takes_up_a_run_killed_while_publishing_or_journaling() {
        let (dir, corpus) = fresh_corpus("kill", 30, 5);
        let files = discover(&[&corpus]).files;
        let options = |name: &str| RunOptions {
            out: dir.join(name),
            threads: 1,
            chunk_games: 4,
            part_rows: 4,
            ..RunOptions::default()
        };
        let whole = run(&files, &options("whole"), false, Hooks::default()).unwrap();
        let check = |name: &str| {
            let again = run(&files, &options(name), true, Hooks::default()).unwrap();
            assert!(!again.stopped);
            assert_eq!(again.summary, whole.summary, "{name}");
            assert_eq!(identities(&again.parts), identities(&whole.parts), "{name}");
            assert!(!dir.join(name).join(STAGING).read_dir().unwrap().any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("run-")));
        };

        // Killed after moving the parts into place, before the marker.
        stopped_after(&files, &options("moved"), 3);
        let staging = staging_of(&dir.join("moved"));
        std::fs::rename(staging.join(GAMES), dir.join("moved").join(GAMES)).unwrap();
        check("moved");

        // Killed after swapping the new parts with a previous output's
        // (of other inputs, parts of the same names).
        run(&files[1..], &options("swapped"), false, Hooks::default()).unwrap();
        stopped_after(&files, &options("swapped"), 2);
        let out = dir.join("swapped");
        let staging = staging_of(&out);
        std::fs::rename(out.join(GAMES), dir.join("old")).unwrap();
        std::fs::rename(staging.join(GAMES), out.join(GAMES)).unwrap();
        std::fs::rename(dir.join("old"), staging.join(GAMES)).unwrap();
        check("swapped");

        // Killed between a summary and the journal naming it: a summary of
        // a part the journal does not list is never read.
        stopped_after(&files, &options("journal"), 3);
        let staging = staging_of(&dir.join("journal"));
        std::fs::write(staging.join(journal_summary_name(999)), b"junk").unwrap();
        std::fs::write(staging.join(GAMES).join("part-99999.parquet"), b"junk").unwrap();
        check("journal");

        // A part gone altogether: the resume refuses and says to start over.
        stopped_after(&files, &options("gone"), 3);
        let staging = staging_of(&dir.join("gone"));
        std::fs::remove_file(staging.join(GAMES).join(part_name(0))).unwrap();
        let refused = run(&files, &options("gone"), true, Hooks::default());
        assert!(
            matches!(&refused, Err(RunError::PartsGone { missing, .. }) if missing == &part_name(0)),
            "{refused:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn small_chunks_and_parts_and_a_resumed_stop_give_the_same_rows() {
        let (dir, corpus) = fresh_corpus("big", 40, 8);
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
            false,
            Hooks::default(),
        )
        .unwrap();
        // Chunks of 3 games or 500 bytes, parts of 7 rows or more.
        let small = RunOptions {
            out: dir.join("small"),
            threads: 2,
            chunk_games: 3,
            chunk_bytes: 500,
            part_rows: 7,
            ..RunOptions::default()
        };
        let cut = run(&files, &small, false, Hooks::default()).unwrap();
        assert!(whole.summary.games > 80, "{}", whole.summary.games);
        assert_eq!(cut.summary, whole.summary);
        assert!(
            cut.parts.len() > whole.parts.len() + 5,
            "{} parts",
            cut.parts.len()
        );
        // Same rows, in the same order.
        assert_eq!(identities(&cut.parts), identities(&whole.parts));

        // Stopped after four chunks, then resumed: the same again.
        let resumed_out = RunOptions {
            out: dir.join("resumed"),
            ..small.clone()
        };
        let stopped = stopped_after(&files, &resumed_out, 4);
        assert!(stopped.summary.games > 0 && stopped.summary.games < whole.summary.games);
        assert!(!dir.join("resumed/_SUCCESS").exists(), "nothing published");
        let again = run(&files, &resumed_out, true, Hooks::default()).unwrap();
        assert!(!again.stopped);
        assert_eq!(again.resumed_games, stopped.summary.games);
        assert_eq!(again.summary, whole.summary);
        assert_eq!(identities(&again.parts), identities(&whole.parts));
        // Nothing left to resume.
        assert!(matches!(
            run(&files, &resumed_out, true, Hooks::default()),
            Err(RunError::NothingToResume(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
