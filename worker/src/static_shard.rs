//! Static shards, for schedulers that already place and retry work
//! (Kubernetes Indexed Jobs, Slurm array jobs): `verdict run --shard K/N`
//! analyses the K-th of N shards without a coordinator, and `verdict merge`
//! publishes the N as one output once all are there.
//!
//! ```text
//! OUT/_shards/K-of-N/part-ATTEMPT.parquet   the shard's rows
//! OUT/_shards/K-of-N/summary-ATTEMPT.pb     its summary (a ShardSummary)
//! OUT/_shards/K-of-N/options.pb             the analysis options
//! OUT/_shards/K-of-N/shard.json             what it did, written last
//! ```
//!
//! The cut is the coordinator's planner ([`crate::plan`]) at a shard size of
//! a N-th of the inputs, its shards dealt out to the N in order
//! ([`StaticShard::range`]); each reads only its byte ranges of a split
//! collection. Every attempt writes files of its own name and `shard.json`
//! (naming them) last and whole, so a retried or duplicated attempt never
//! mixes with another and a killed one leaves nothing `merge` would take.
//! The shards' rows together are the rows of `verdict run` on the same
//! inputs; `merge` checks that every shard is there exactly once, from the
//! same inputs and options, before it publishes ([`crate::publish`]: the
//! folder's previous output stays whole until then).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};

use verdict_proto::prost::Message;

use crate::confined::Dir;
use crate::ids::random_u64;
use crate::inputs::{InputFile, Inputs};
pub use crate::plan::StaticShard;
use crate::plan::{plan, PlanError};
use crate::publish::{check_out, part_name, OutError, Staging};
use crate::row::SCHEMA_VERSION;
use crate::run::{options_json, RunOptions};
use crate::shard::{run_shard, PartTarget, ShardError};
use crate::summary::Summary;

/// The folder of static shards in an output folder.
pub const SHARDS: &str = "_shards";
/// A shard's record, written last.
const RECORD: &str = "shard.json";
const OPTIONS: &str = "options.pb";

/// The folder name of shard `k` of `n`.
pub fn shard_dir_name(s: StaticShard) -> String {
    format!("{}-of-{}", s.k, s.n)
}

/// What one static shard did.
#[derive(Debug)]
pub struct ShardReport {
    pub shard: StaticShard,
    pub summary: Summary,
    pub rows: u64,
    /// The planner's shards it covered (of `planned` in all).
    pub covered: usize,
    pub planned: usize,
    /// Its folder under `OUT/_shards`.
    pub dir: PathBuf,
    pub not_read: Vec<(String, String)>,
    pub elapsed: Duration,
    pub threads: usize,
}

/// Why a static shard or a merge did not finish.
#[derive(Debug, thiserror::Error)]
pub enum StaticError {
    #[error(transparent)]
    Out(#[from] OutError),
    #[error("cannot use {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot plan the inputs: {0}")]
    Plan(String),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error(
        "{0}: --limit and --dedup count over the whole corpus and cannot be used with --shard"
    )]
    CorpusWide(StaticShard),
    #[error(
        "no shards to merge in {0}: run `verdict run ... --out {0} --shard K/N` for every K first"
    )]
    NoShards(String),
    #[error("cannot merge {out}: {problems}")]
    Refused { out: String, problems: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StaticError + '_ {
    move |source| StaticError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// What decides the rows of every shard: the verdict version, the options,
/// N and the inputs as found (paths, sizes, times). All N must agree.
fn fingerprint(files: &[InputFile], options: &RunOptions, n: u32) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut h);
    options_json(options).to_string().hash(&mut h);
    n.hash(&mut h);
    crate::run::hash_files(files, &mut h);
    format!("{:016x}", h.finish())
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Analyses shard `shard` of the files `found` into
/// `options.out/_shards/K-of-N`. `games` counts analysed games; `stop`
/// ends the shard early, writing no record (it runs again whole).
///
/// # Errors
/// Corpus-wide options, an output folder that cannot be used, inputs that
/// cannot be planned, or a part that cannot be written.
pub fn run_static(
    found: &Inputs,
    options: &RunOptions,
    shard: StaticShard,
    games: &AtomicU64,
    stop: &AtomicBool,
) -> Result<ShardReport, StaticError> {
    let start = Instant::now();
    if options.limit.is_some() || options.dedup {
        return Err(StaticError::CorpusWide(shard));
    }
    if crate::objects::is_url(&options.out) {
        return run_static_bucket(found, options, shard, games, stop);
    }
    let out = crate::confined::resolve(&options.out).map_err(io(&options.out))?;
    check_out(&out)?;
    let out_dir = Dir::create_all(&out).map_err(io(&out))?;
    let root = out_dir.create_sub(SHARDS).map_err(io(&out))?;
    let dir = root.create_sub(shard_dir_name(shard)).map_err(io(&out))?;
    let planned = plan(found, shard.shard_bytes(found.total_bytes()), |p: &Path| {
        if crate::objects::is_url(p) {
            Ok(p.to_path_buf())
        } else {
            p.canonicalize()
        }
    })
    .map_err(|e: PlanError<std::io::Error>| StaticError::Plan(e.to_string()))?;
    let range = shard.range(planned.shards.len());
    let covered = range.len();
    let files: Vec<_> = planned.shards[range].concat();
    let attempt = format!("{:08x}-{:016x}", std::process::id(), random_u64());
    let part = format!("part-{attempt}.parquet");
    let summary_name = format!("summary-{attempt}.pb");
    let threads = if options.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        options.threads
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| StaticError::Io {
            path: "a thread pool".into(),
            source: std::io::Error::other(e.to_string()),
        })?;
    let target = PartTarget {
        dir: dir.path().to_path_buf(),
        name: part.clone(),
    };
    let outcome = run_shard(&files, &target, options, &pool, games, stop)?;
    let pb: verdict_proto::v1::ShardSummary = (&outcome.summary).into();
    dir.write_bytes(&summary_name, &pb.encode_to_vec())
        .map_err(io(dir.path()))?;
    let opts: verdict_proto::v1::AnalysisOptions = options.into();
    dir.write_bytes(OPTIONS, &opts.encode_to_vec())
        .map_err(io(dir.path()))?;
    let record = serde_json::json!({
        "kind": "static_shard",
        "k": shard.k,
        "n": shard.n,
        "fingerprint": fingerprint(&found.files, options, shard.n),
        "verdict_version": env!("CARGO_PKG_VERSION"),
        "schema_version": SCHEMA_VERSION,
        "part": part,
        "summary": summary_name,
        "rows": outcome.rows,
        "planned_shards": covered,
        "options": options_json(options),
        "input_files": found.files.len(),
        "inputs": roots(&found.files),
        "not_read": outcome.not_read.iter().map(|(w, r)| serde_json::json!({"what": w, "why": r})).collect::<Vec<_>>(),
        "unread_inputs": found.unread.iter().filter(|u| u.error).map(|u| serde_json::json!({"what": u.path.display().to_string(), "why": u.reason})).collect::<Vec<_>>(),
        "finished_unix": unix_now(),
    });
    dir.write_bytes(
        RECORD,
        &serde_json::to_vec_pretty(&record).expect("JSON of plain values"),
    )
    .map_err(io(dir.path()))?;
    Ok(ShardReport {
        shard,
        summary: outcome.summary,
        rows: outcome.rows,
        covered,
        planned: planned.shards.len(),
        dir: dir.path().to_path_buf(),
        not_read: outcome.not_read,
        elapsed: start.elapsed(),
        threads,
    })
}

/// [`run_static`] into a bucket: the shard is written locally, then its
/// files are put under `OUT/_shards/K-of-N/` (the part and summary under
/// this attempt's names, created once), `shard.json` last.
fn run_static_bucket(
    found: &Inputs,
    options: &RunOptions,
    shard: StaticShard,
    games: &AtomicU64,
    stop: &AtomicBool,
) -> Result<ShardReport, StaticError> {
    use crate::objects::{store, ObjectUrl};
    let bad = |e: crate::objects::ObjectError| StaticError::Refused {
        out: options.out.display().to_string(),
        problems: e.to_string(),
    };
    let url = ObjectUrl::parse(&options.out).map_err(bad)?;
    let st = store(&url).map_err(bad)?;
    // Fail before the analysis when the bucket cannot be reached.
    st.probe(&format!("{}/", url.join(SHARDS).key))
        .map_err(bad)?;
    let temp = crate::objects::Scratch::new("shard").map_err(io(&std::env::temp_dir()))?;
    let local = RunOptions {
        out: temp.path().to_path_buf(),
        ..options.clone()
    };
    let mut report = run_static(found, &local, shard, games, stop)?;
    let place = url.join(SHARDS).join(&shard_dir_name(shard));
    let mut names: Vec<String> = std::fs::read_dir(&report.dir)
        .map_err(io(&report.dir))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n != RECORD && !n.starts_with('.'))
        .collect();
    names.sort();
    for name in names.iter().map(String::as_str).chain([RECORD]) {
        let create = name.starts_with("part-") || name.starts_with("summary-");
        st.upload(&report.dir.join(name), &place.join(name).key, create)
            .map_err(bad)?;
    }
    report.dir = place.to_path();
    Ok(report)
}

fn roots(files: &[InputFile]) -> Vec<String> {
    let mut roots: Vec<String> = Vec::new();
    for f in files {
        let r = f.root.display().to_string();
        if !roots.contains(&r) {
            roots.push(r);
        }
    }
    roots
}

/// One finished shard found by `merge`.
#[derive(Debug)]
struct Found {
    dir: String,
    k: u32,
    n: u32,
    fingerprint: String,
    record: serde_json::Value,
}

/// What a merge published.
#[derive(Debug)]
pub struct MergeReport {
    pub summary: Summary,
    pub shards: u32,
    /// Published parts (shards with rows).
    pub parts: usize,
    /// Files, archives, members and inputs not read, by every shard.
    pub not_read: Vec<(String, String)>,
}

/// The shard folders of an output: each one's name and its record
/// (`None` while unfinished, `Err` when it does not parse).
type Listing = Vec<(String, Option<Result<serde_json::Value, String>>)>;

/// The shards a merge takes: one per K of one run.
struct Checked {
    n: u32,
    fingerprint: String,
    by_k: BTreeMap<u32, Found>,
}

/// Checks that `listing` holds every shard of one run exactly once,
/// naming what is missing, unfinished, duplicated or foreign.
fn check(listing: Listing, shown: &str) -> Result<Checked, StaticError> {
    let mut found: Vec<Found> = Vec::new();
    let mut unfinished: Vec<String> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for (name, record) in listing {
        let v = match record {
            None => {
                unfinished.push(name);
                continue;
            }
            Some(Err(err)) => {
                problems.push(format!("{SHARDS}/{name}/{RECORD} does not parse ({err})"));
                continue;
            }
            Some(Ok(v)) => v,
        };
        let (Some(k), Some(n), Some(fp)) = (
            v["k"].as_u64(),
            v["n"].as_u64(),
            v["fingerprint"].as_str().map(str::to_string),
        ) else {
            problems.push(format!(
                "{SHARDS}/{name}/{RECORD} lacks k, n or fingerprint"
            ));
            continue;
        };
        found.push(Found {
            dir: name,
            k: k as u32,
            n: n as u32,
            fingerprint: fp,
            record: v,
        });
    }
    if found.is_empty() && unfinished.is_empty() && problems.is_empty() {
        return Err(StaticError::NoShards(shown.to_string()));
    }
    // The run most shards belong to; the others are named.
    let mut runs: BTreeMap<(u32, String), usize> = BTreeMap::new();
    for f in &found {
        *runs.entry((f.n, f.fingerprint.clone())).or_default() += 1;
    }
    let Some((n, fp)) = runs.into_iter().max_by_key(|(_, c)| *c).map(|(run, _)| run) else {
        problems.push(format!(
            "unfinished (no {RECORD}): {}",
            unfinished.join(", ")
        ));
        return Err(StaticError::Refused {
            out: shown.to_string(),
            problems: problems.join("; "),
        });
    };
    let foreign: Vec<&str> = found
        .iter()
        .filter(|f| f.n != n || f.fingerprint != fp)
        .map(|f| f.dir.as_str())
        .collect();
    if !foreign.is_empty() {
        problems.push(format!(
            "from another run (other N, inputs, options or verdict version): {} (remove them, or run those shards again)",
            foreign.join(", ")
        ));
    }
    let mut by_k: BTreeMap<u32, Vec<Found>> = BTreeMap::new();
    for f in found
        .into_iter()
        .filter(|f| f.n == n && f.fingerprint == fp)
    {
        by_k.entry(f.k).or_default().push(f);
    }
    let missing: Vec<String> = (0..n)
        .filter(|k| !by_k.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        let shown_missing = if missing.len() > 20 {
            format!(
                "{} and {} more",
                missing[..20].join(", "),
                missing.len() - 20
            )
        } else {
            missing.join(", ")
        };
        problems.push(format!("missing shards: {shown_missing}"));
    }
    let duplicated: Vec<String> = by_k
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, v)| {
            let dirs: Vec<&str> = v.iter().map(|f| f.dir.as_str()).collect();
            format!("{k}/{n} in {}", dirs.join(" and "))
        })
        .collect();
    if !duplicated.is_empty() {
        problems.push(format!("duplicated shards: {}", duplicated.join("; ")));
    }
    if !problems.is_empty() {
        if !unfinished.is_empty() {
            problems.push(format!(
                "unfinished (no {RECORD} yet): {}",
                unfinished.join(", ")
            ));
        }
        return Err(StaticError::Refused {
            out: shown.to_string(),
            problems: problems.join("; "),
        });
    }
    Ok(Checked {
        n,
        fingerprint: fp,
        by_k: by_k
            .into_iter()
            .map(|(k, mut v)| (k, v.remove(0)))
            .collect(),
    })
}

/// Where a merge reads the shards' files from.
trait ShardFiles {
    fn read(&self, dir: &str, name: &str) -> Result<Vec<u8>, StaticError>;
}

/// The summary, the reading problems and the parts to publish (shard
/// folder, its part, the published name, rows) of checked shards.
#[allow(clippy::type_complexity)]
fn gather(
    checked: &Checked,
    files: &dyn ShardFiles,
    out: &Path,
    shown: &str,
) -> Result<
    (
        Summary,
        RunOptions,
        Vec<(String, String)>,
        Vec<(String, String, String, u64)>,
    ),
    StaticError,
> {
    let first = &checked.by_k[&0];
    let opts: verdict_proto::v1::AnalysisOptions =
        decode(&files.read(&first.dir, OPTIONS)?, OPTIONS)?;
    let options = verdict_proto::run_options(&opts, out.to_path_buf(), 1)
        .map_err(|e| StaticError::Plan(e.to_string()))?;
    let mut summary = verdict_proto::empty_summary(&options);
    let mut not_read = Vec::new();
    let mut parts = Vec::new();
    for (k, f) in &checked.by_k {
        let name = |key: &str| {
            f.record[key]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| StaticError::Refused {
                    out: shown.to_string(),
                    problems: format!("{SHARDS}/{}/{RECORD} names no {key}", f.dir),
                })
        };
        let summary_name = name("summary")?;
        let s: verdict_proto::v1::ShardSummary =
            decode(&files.read(&f.dir, &summary_name)?, &summary_name)?;
        verdict_proto::add_summary(&mut summary, &s).map_err(|why| StaticError::Refused {
            out: shown.to_string(),
            problems: format!("{SHARDS}/{}/{summary_name}: {why}", f.dir),
        })?;
        for key in ["not_read", "unread_inputs"] {
            for w in f.record[key].as_array().into_iter().flatten() {
                let item = (
                    w["what"].as_str().unwrap_or_default().to_string(),
                    w["why"].as_str().unwrap_or_default().to_string(),
                );
                // Every shard lists the inputs discovery could not read.
                if key == "not_read" || *k == 0 {
                    not_read.push(item);
                }
            }
        }
        let rows = f.record["rows"].as_u64().unwrap_or(0);
        if rows > 0 {
            parts.push((f.dir.clone(), name("part")?, part_name(*k), rows));
        }
    }
    Ok((summary, options, not_read, parts))
}

fn decode<M: Message + Default>(bytes: &[u8], what: &str) -> Result<M, StaticError> {
    M::decode(bytes).map_err(|e| StaticError::Io {
        path: what.to_string(),
        source: std::io::Error::other(e.to_string()),
    })
}

fn manifest_of(
    checked: &Checked,
    options: &RunOptions,
    summary: &mut Summary,
) -> serde_json::Map<String, serde_json::Value> {
    let first = &checked.by_k[&0];
    let mut manifest = serde_json::Map::new();
    manifest.insert("kind".into(), "merge".into());
    manifest.insert("verdict_version".into(), env!("CARGO_PKG_VERSION").into());
    manifest.insert("published_unix".into(), unix_now().into());
    manifest.insert("options".into(), options_json(options));
    manifest.insert("shards".into(), checked.n.into());
    manifest.insert("fingerprint".into(), checked.fingerprint.clone().into());
    summary.provenance = Some(serde_json::json!({
        "verdict_version": env!("CARGO_PKG_VERSION"),
        "kind": "merge",
        "shards": checked.n,
        "options": options_json(options),
        "inputs": first.record["inputs"],
        "input_files": first.record["input_files"],
        "finished_unix": unix_now(),
    }));
    manifest
}

/// Publishes the N static shards in `out` (a folder, or `s3://`) as one
/// output: parts, summaries, `_SUCCESS`. Refuses, naming them, when shards
/// are missing, unfinished, duplicated, or from other inputs, options or
/// N; nothing is published then.
///
/// # Errors
/// As said, or the file system's or the store's refusal.
pub fn merge(out: &Path) -> Result<MergeReport, StaticError> {
    if crate::objects::is_url(out) {
        return merge_bucket(out);
    }
    let out = crate::confined::resolve(out).map_err(io(out))?;
    let shown = out.display().to_string();
    let root = Dir::open(&out)
        .and_then(|d| d.sub(SHARDS))
        .map_err(|_| StaticError::NoShards(shown.clone()))?;
    let mut entries = root.entries().map_err(io(root.path()))?;
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut listing: Listing = Vec::new();
    for e in entries {
        let name = e.name.to_string_lossy().into_owned();
        let Ok(dir) = root.sub(&e.name) else {
            continue;
        };
        let record = dir.open_file(RECORD).ok().map(|f| {
            serde_json::from_reader::<_, serde_json::Value>(std::io::BufReader::new(f))
                .map_err(|e| e.to_string())
        });
        listing.push((name, record));
    }
    let checked = check(listing, &shown)?;
    struct Local<'a>(&'a Dir);
    impl ShardFiles for Local<'_> {
        fn read(&self, dir: &str, name: &str) -> Result<Vec<u8>, StaticError> {
            let d = self.0.sub(dir).map_err(io(self.0.path()))?;
            let path = d.path().join(name);
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut d.open_file(name).map_err(io(&path))?, &mut bytes)
                .map_err(io(&path))?;
            Ok(bytes)
        }
    }
    let (mut summary, options, not_read, parts) = gather(&checked, &Local(&root), &out, &shown)?;
    let staging = Staging::open(&out, &format!("merge-{:016x}", random_u64()))?;
    // Parts are moved into the staging folder's games folder, then
    // published with it.
    let games = staging.games().map_err(io(staging.path()))?;
    for (dir, file, to, _) in &parts {
        let src = root.sub(dir).map_err(io(root.path()))?;
        src.rename(file, &games, to).map_err(io(src.path()))?;
    }
    drop(games);
    let manifest = manifest_of(&checked, &options, &mut summary);
    let published: Vec<(String, u64)> = parts.iter().map(|p| (p.2.clone(), p.3)).collect();
    staging.publish(&[], &published, &summary, SCHEMA_VERSION, manifest)?;
    // Published: the shards' folders have done their work.
    let out_dir = Dir::open(&out).map_err(io(&out))?;
    let _ = out_dir.remove_tree(SHARDS);
    Ok(MergeReport {
        summary,
        shards: checked.n,
        parts: published.len(),
        not_read,
    })
}

/// [`merge`] of shards in a bucket: the records and summaries are read
/// from it, the parts copied to their published names there.
fn merge_bucket(out: &Path) -> Result<MergeReport, StaticError> {
    use crate::objects::{store, BucketStaging, ObjectUrl};
    let bad = |e: crate::objects::ObjectError| StaticError::Refused {
        out: out.display().to_string(),
        problems: e.to_string(),
    };
    let url = ObjectUrl::parse(out).map_err(bad)?;
    let shown = url.to_string();
    let st = store(&url).map_err(bad)?;
    let root = url.join(SHARDS);
    let listed = st.list(&format!("{}/", root.key)).map_err(bad)?;
    // Shard folders by name, with their record if there is one.
    let mut dirs: BTreeMap<String, bool> = BTreeMap::new();
    for o in &listed {
        let rel = o.url.key[root.key.len() + 1..].to_string();
        if let Some((dir, file)) = rel.split_once('/') {
            let has = dirs.entry(dir.to_string()).or_default();
            *has |= file == RECORD;
        }
    }
    let mut listing: Listing = Vec::new();
    for (dir, has) in dirs {
        let record = if has {
            let bytes = st
                .read(&root.join(&dir).join(RECORD).key)
                .map_err(bad)?
                .unwrap_or_default();
            Some(serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
        } else {
            None
        };
        listing.push((dir, record));
    }
    let checked = check(listing, &shown)?;
    struct Remote<'a>(&'a crate::objects::Store, &'a ObjectUrl);
    impl ShardFiles for Remote<'_> {
        fn read(&self, dir: &str, name: &str) -> Result<Vec<u8>, StaticError> {
            let u = self.1.join(dir).join(name);
            self.0
                .read(&u.key)
                .map_err(|e| StaticError::Refused {
                    out: u.to_string(),
                    problems: e.to_string(),
                })?
                .ok_or_else(|| StaticError::Refused {
                    out: u.to_string(),
                    problems: "missing".into(),
                })
        }
    }
    let (mut summary, options, not_read, parts) =
        gather(&checked, &Remote(&st, &root), out, &shown)?;
    let manifest = manifest_of(&checked, &options, &mut summary);
    let moves: Vec<(String, String)> = parts
        .iter()
        .map(|(dir, file, to, _)| (format!("{dir}/{file}"), to.clone()))
        .collect();
    let published: Vec<(String, u64)> = parts.iter().map(|p| (p.2.clone(), p.3)).collect();
    let tag = format!("merge-{}", checked.fingerprint);
    BucketStaging::shards(&url, &tag)
        .publish(&moves, &published, &summary, SCHEMA_VERSION, manifest)
        .map_err(bad)?;
    Ok(MergeReport {
        summary,
        shards: checked.n,
        parts: published.len(),
        not_read,
    })
}
