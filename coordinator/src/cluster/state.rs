//! The coordinator's state: jobs, their shards, leases and workers.
//!
//! Everything lives in memory behind one mutex (each operation is a few map
//! lookups, so the lease hot path stays fast) and every change that must
//! survive a restart is written through to [`Store`]; an RPC answers
//! success only once its change is committed. Shards are leased from a FIFO
//! queue; a lease lapses when its heartbeats stop, and the shard goes back
//! to the queue until it has failed `max_attempts` times.
//!
//! A job's output belongs to the job. Its workers write parts into its
//! staging folder, each under its lease's name; a completion is accepted
//! only from a lease issued for that job and shard; at the end the parts on
//! disk must be exactly the completed shards' (row counts as reported)
//! before anything is published ([`verdict_worker::publish`]). What a
//! cancelled, lapsed or foreign lease writes is never published.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use verdict_proto::prost::Message;
use verdict_proto::v1;
use verdict_worker::ids::random_u64;
use verdict_worker::publish::{self, part_name, staged_part_name, Staging};
use verdict_worker::row::SCHEMA_VERSION;
use verdict_worker::run::RunOptions;
use verdict_worker::summary::Summary;

use super::auth::{cut, shown, Roots};
use super::plan::plan;
use super::store::{JobRow, Loaded, Op, ShardRow, Store};

/// Limits on what one request may carry; a request over one is refused
/// with `INVALID_ARGUMENT` naming it.
pub mod limits {
    pub const INPUTS: usize = 10_000;
    pub const PATH_BYTES: usize = 4_096;
    pub const LABEL_BYTES: usize = 1_024;
    pub const KOMI_SWEEP: usize = 1_000;
    pub const WORKER_NAME_BYTES: usize = 256;
    pub const FAIL_REASON_BYTES: usize = 4_096;
    pub const PAGE: usize = 1_000;
    pub const DEFAULT_PAGE: usize = 100;
    /// Inputs shown per job in a listing.
    pub const LISTED_INPUTS: usize = 10;
    /// Leases kept per shard that may still complete it.
    pub const ISSUED: usize = 16;
    /// Workers remembered; the longest unseen go first beyond it.
    pub const WORKERS: usize = 100_000;
}

/// How the coordinator behaves.
#[derive(Debug, Clone)]
pub struct Config {
    pub lease_ttl: Duration,
    pub max_attempts: u32,
    pub shard_bytes: u64,
    pub roots: Roots,
    /// Ended jobs are forgotten this long after they end (`None`: kept).
    pub retention: Option<Duration>,
}

/// Why a request was refused.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{0}")]
    BadRequest(String),
    #[error("no job {0}")]
    NoJob(u64),
    #[error("{0}")]
    Conflict(String),
    /// A lease that was not issued for what it claims, or is no longer
    /// current: final, not worth retrying.
    #[error("{0}")]
    Lease(String),
    /// The state file cannot be written: try again later.
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Internal(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobState {
    Running,
    /// Every shard ended; the output is being checked and published.
    Finishing,
    Done,
    DoneWithFailures,
    Cancelled,
}

impl JobState {
    fn name(self) -> &'static str {
        match self {
            JobState::Running | JobState::Finishing => "running",
            JobState::Done => "done",
            JobState::DoneWithFailures => "done_with_failures",
            JobState::Cancelled => "cancelled",
        }
    }

    fn wire(self) -> v1::JobState {
        match self {
            JobState::Running | JobState::Finishing => v1::JobState::Running,
            JobState::Done => v1::JobState::Done,
            JobState::DoneWithFailures => v1::JobState::DoneWithFailures,
            JobState::Cancelled => v1::JobState::Cancelled,
        }
    }

    fn live(self) -> bool {
        matches!(self, JobState::Running | JobState::Finishing)
    }
}

#[derive(Debug)]
enum ShardState {
    Pending,
    Leased {
        lease: u64,
        worker: u64,
        expires: Instant,
        /// Games analysed so far, from heartbeats.
        games: u64,
    },
    /// Done: its game count and the lease whose part is the shard's (its
    /// summary is added to the job's).
    Done {
        games: u64,
        lease: u64,
    },
    Failed,
    Cancelled,
}

#[derive(Debug)]
struct Shard {
    files: Arc<Vec<v1::ShardFile>>,
    state: ShardState,
    /// Leases given so far (a released lease is given back).
    attempts: u32,
    error: Option<String>,
    /// Leases issued for this shard that may still complete it (a lapsed
    /// lease's worker may only have been slow), oldest first.
    issued: Vec<u64>,
}

#[derive(Debug)]
struct Job {
    spec: v1::SubmitRequest,
    options: RunOptions,
    state: JobState,
    shards: Vec<Shard>,
    /// Shards pending or leased.
    open: usize,
    created: i64,
    finished: i64,
    error: String,
    bytes_total: u64,
    lease_expiries: u64,
    /// The sum of the done shards' summaries: one summary per job in
    /// memory, however many shards it has.
    total: Summary,
    /// The resolved output folder.
    out: PathBuf,
    /// Where its workers write: `out/_staging/job-<coordinator>-<id>`.
    staging_path: PathBuf,
    /// The staging folder, locked while the job lives (`None` once ended,
    /// or when it could not be opened after a restart).
    staging: Option<Staging>,
}

#[derive(Debug)]
struct Worker {
    name: String,
    last_seen: Instant,
}

#[derive(Debug, Default)]
struct Inner {
    jobs: BTreeMap<u64, Job>,
    queue: VecDeque<(u64, u32)>,
    /// Every issued lease that may complete its shard, to its job and shard.
    leases: HashMap<u64, (u64, u32)>,
    workers: HashMap<u64, Worker>,
    next_job: u64,
    /// Staging folders of ended jobs that could not be removed yet.
    sweep: Vec<(PathBuf, String)>,
}

/// Counters for `/metrics`.
#[derive(Debug, Default)]
pub struct Counters {
    pub games: AtomicU64,
    pub lease_expiries: AtomicU64,
    pub leases: AtomicU64,
    pub completions: AtomicU64,
    pub failures: AtomicU64,
    /// Completions refused: a lease not issued for that shard, or no longer current.
    pub refused_completions: AtomicU64,
    /// Parts missing or holding other row counts than reported at the end.
    pub bad_parts: AtomicU64,
    /// Games per second over the last ten seconds, as `f64` bits.
    pub games_per_second: AtomicU64,
}

/// What `/metrics` shows, read in one pass under the lock.
#[derive(Debug, Default)]
pub struct Gauges {
    pub jobs: BTreeMap<&'static str, u64>,
    pub shards: BTreeMap<&'static str, u64>,
    pub workers_active: u64,
    pub workers_known: u64,
}

/// The coordinator: shared by every RPC handler.
#[derive(Debug)]
pub struct Coordinator {
    inner: Mutex<Inner>,
    store: Store,
    pub config: Config,
    pub counters: Counters,
    /// This state file's coordinator id (names staging folders).
    id: u64,
    changed: tokio::sync::watch::Sender<u64>,
    /// Woken when shards are queued, for workers waiting in `Acquire`.
    work: tokio::sync::Notify,
    /// Why changes are refused (the state file could not be written), until
    /// a recovery rebuilt the state from the file; `None` when serving.
    degraded: tokio::sync::watch::Sender<Option<String>>,
}

fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn staging_name(coordinator: u64, job: u64) -> String {
    format!("job-{coordinator:016x}-{job}")
}

/// A lease id nobody holds yet.
fn fresh_lease(inner: &Inner) -> u64 {
    loop {
        let id = random_u64();
        if !inner.leases.contains_key(&id) {
            return id;
        }
    }
}

/// The state a stored job is rebuilt into, and the jobs whose shards had
/// all ended (their output is checked and published next).
fn build(
    config: &Config,
    loaded: Loaded,
    stagings: &mut HashMap<u64, Staging>,
) -> Result<(Inner, Vec<u64>), StateError> {
    let mut inner = Inner::default();
    let expires = Instant::now() + config.lease_ttl;
    let mut max_job = 0;
    let corrupt = |what: &str, e: &dyn std::fmt::Display| {
        StateError::Internal(format!("state file: cannot decode {what}: {e}"))
    };
    let mut ended = Vec::new();
    for row in loaded.jobs {
        let spec = v1::SubmitRequest::decode(&row.spec[..]).map_err(|e| corrupt("a job", &e))?;
        let out = PathBuf::from(&spec.out);
        let options =
            verdict_proto::run_options(&spec.options.clone().unwrap_or_default(), out.clone(), 0)
                .map_err(|e| corrupt("a job's options", &e))?;
        let state = match row.state.as_str() {
            "done" => JobState::Done,
            "done_with_failures" => JobState::DoneWithFailures,
            "cancelled" => JobState::Cancelled,
            _ => JobState::Running,
        };
        let running = state == JobState::Running;
        let mut shards = Vec::with_capacity(row.shards.len());
        let mut open = 0;
        let mut total = verdict_proto::empty_summary(&options);
        for s in row.shards {
            let files = v1::ShardFiles::decode(&s.files[..])
                .map_err(|e| corrupt("a shard", &e))?
                .files;
            let mut issued = if running { s.issued } else { Vec::new() };
            let shard_state = match s.state.as_str() {
                "done" => {
                    let summary =
                        v1::ShardSummary::decode(s.summary.as_deref().unwrap_or_default())
                            .map_err(|e| corrupt("a shard summary", &e))?;
                    verdict_proto::add_summary(&mut total, &summary);
                    let lease = s.lease.unwrap_or_default();
                    inner.leases.insert(lease, (row.id, s.shard));
                    issued.clear();
                    ShardState::Done {
                        games: summary.games,
                        lease,
                    }
                }
                "failed" => ShardState::Failed,
                "cancelled" => ShardState::Cancelled,
                "leased" if running => {
                    let lease = s.lease.unwrap_or_default();
                    if !issued.contains(&lease) {
                        issued.push(lease);
                    }
                    open += 1;
                    ShardState::Leased {
                        lease,
                        worker: s.worker.unwrap_or_default(),
                        expires,
                        games: 0,
                    }
                }
                _ if running => {
                    inner.queue.push_back((row.id, s.shard));
                    open += 1;
                    ShardState::Pending
                }
                _ => ShardState::Cancelled,
            };
            for l in &issued {
                inner.leases.insert(*l, (row.id, s.shard));
            }
            shards.push(Shard {
                files: Arc::new(files),
                state: shard_state,
                attempts: s.attempts,
                error: s.error,
                issued,
            });
        }
        max_job = max_job.max(row.id);
        let name = staging_name(loaded.coordinator, row.id);
        let staging_path = out.join(publish::STAGING).join(&name);
        let staging = if running {
            match stagings.remove(&row.id) {
                Some(s) => Some(s),
                None => match Staging::open(&out, &name) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        tracing::warn!(job = row.id, error = %e, "cannot open the job's staging folder: its shards will fail");
                        None
                    }
                },
            }
        } else {
            None
        };
        if running && open == 0 {
            ended.push(row.id);
        }
        inner.jobs.insert(
            row.id,
            Job {
                spec,
                options,
                state,
                shards,
                open,
                created: row.created,
                finished: row.finished,
                error: row.error,
                bytes_total: row.bytes_total,
                lease_expiries: row.lease_expiries,
                total,
                out,
                staging_path,
                staging,
            },
        );
    }
    inner.next_job = max_job + 1;
    Ok((inner, ended))
}

/// Checks the sizes of what a submit carries.
fn check_limits(req: &v1::SubmitRequest) -> Result<(), StateError> {
    let bad = |m: String| Err(StateError::BadRequest(m));
    if req.inputs.is_empty() {
        return bad("no inputs: name at least one file or folder".into());
    }
    if req.inputs.len() > limits::INPUTS {
        return bad(format!(
            "{} inputs, more than the limit of {}: name their folders instead",
            req.inputs.len(),
            limits::INPUTS
        ));
    }
    for p in req.inputs.iter().chain([&req.out]) {
        if p.len() > limits::PATH_BYTES {
            return bad(format!(
                "a path of {} bytes, more than the limit of {} ({})",
                p.len(),
                limits::PATH_BYTES,
                cut(p, 80)
            ));
        }
    }
    if req.out.is_empty() {
        return bad("no output folder".into());
    }
    if req.label.len() > limits::LABEL_BYTES {
        return bad(format!(
            "a label of {} bytes, more than the limit of {}",
            req.label.len(),
            limits::LABEL_BYTES
        ));
    }
    if let Some(o) = &req.options {
        if o.komi_sweep.len() > limits::KOMI_SWEEP {
            return bad(format!(
                "a komi sweep of {} values, more than the limit of {}",
                o.komi_sweep.len(),
                limits::KOMI_SWEEP
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = o.rules.iter().find(|r| !seen.insert(r.as_str())) {
            return bad(format!("rule set {} given twice", cut(dup, 40)));
        }
    }
    Ok(())
}

/// Whether two folders are one, or one holds the other.
fn overlap(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// What `finish` checks and publishes, taken out of the lock.
struct Finishing {
    job: u64,
    out: PathBuf,
    staging: Option<Staging>,
    /// Done shards: shard, accepted lease, games reported.
    done: Vec<(u32, u64, u64)>,
    failed: usize,
    total: Summary,
    manifest: serde_json::Map<String, serde_json::Value>,
}

/// How checking and publishing a job's output went.
enum Published {
    Done,
    /// Shards failed: nothing was published, the folder is as it was.
    Withheld(usize),
    /// These done shards' parts are missing or hold other row counts; the
    /// total without them; the staging folder to go on with.
    BadParts(Vec<(u32, String)>, Box<Summary>, Option<Staging>),
    Failed(String),
}

impl Finishing {
    /// Checks every done shard's part and publishes them (blocking I/O).
    fn run(self, coordinator: u64, store: &Store) -> Published {
        let Some(staging) = self.staging else {
            return Published::Failed("the job's staging folder could not be opened".into());
        };
        if self.failed > 0 {
            let _ = staging.discard();
            return Published::Withheld(self.failed);
        }
        // Published already, by this job, before a restart could record it.
        if publish::published(&self.out).is_some_and(|m| {
            m["job"] == self.job && m["coordinator"] == format!("{coordinator:016x}")
        }) {
            let _ = staging.discard();
            return Published::Done;
        }
        let mut bad = Vec::new();
        for &(shard, lease, games) in &self.done {
            let name = staged_part_name(shard, lease);
            let rows = staging
                .dir()
                .open_file(&name)
                .map_err(|e| e.to_string())
                .and_then(|f| verdict_worker::parquet_out::rows_in(f).map_err(|e| e.to_string()));
            match rows {
                Ok(rows) if rows == games => {}
                Ok(rows) => bad.push((
                    shard,
                    format!("its part {name} holds {rows} rows, not the {games} its completion reported"),
                )),
                Err(e) => bad.push((shard, format!("its part {name} cannot be read ({e})"))),
            }
        }
        if !bad.is_empty() {
            let keep: Vec<u32> = self
                .done
                .iter()
                .map(|d| d.0)
                .filter(|s| !bad.iter().any(|b| b.0 == *s))
                .collect();
            return match store.read_summaries(self.job, &keep) {
                Ok(summaries) => {
                    let mut total = Summary {
                        pairs: self.total.pairs.clone(),
                        sweep: self.total.sweep.clone(),
                        ..Summary::default()
                    };
                    for s in &summaries {
                        verdict_proto::add_summary(&mut total, s);
                    }
                    Published::BadParts(bad, Box::new(total), Some(staging))
                }
                Err(e) => Published::Failed(format!(
                    "parts are missing and the state file cannot be read to run them again: {e}"
                )),
            };
        }
        let moves: Vec<(std::ffi::OsString, String)> = self
            .done
            .iter()
            .map(|&(s, l, _)| (staged_part_name(s, l).into(), part_name(s)))
            .collect();
        let parts: Vec<(String, u64)> = self
            .done
            .iter()
            .map(|&(s, _, g)| (part_name(s), g))
            .collect();
        let mut manifest = self.manifest;
        manifest.insert("published_unix".into(), now_unix().into());
        // summary.json says where its numbers come from, as a local run's does.
        let mut total = self.total;
        total.provenance = Some(serde_json::Value::Object(manifest.clone()));
        match staging.publish(&moves, &parts, &total, SCHEMA_VERSION, manifest) {
            Ok(()) => Published::Done,
            Err(e) => Published::Failed(format!("cannot publish the output: {e}")),
        }
    }
}

impl Coordinator {
    /// The coordinator over what `store` held at start. Leased shards get a
    /// fresh lease period, so live workers carry on.
    ///
    /// # Errors
    /// A stored job that cannot be decoded.
    pub fn new(config: Config, store: Store, loaded: Loaded) -> Result<Arc<Self>, StateError> {
        let id = loaded.coordinator;
        let (inner, ended) = build(&config, loaded, &mut HashMap::new())?;
        let coordinator = Arc::new(Coordinator {
            inner: Mutex::new(inner),
            store,
            config,
            counters: Counters::default(),
            id,
            changed: tokio::sync::watch::channel(0).0,
            work: tokio::sync::Notify::new(),
            degraded: tokio::sync::watch::channel(None).0,
        });
        // Jobs whose last shard ended just before a stop: publish them now.
        for id in ended {
            coordinator.clone().finish(id);
        }
        Ok(coordinator)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic under the lock leaves plain data; carry on with it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|v| *v += 1);
    }

    /// A receiver that wakes whenever any job changes.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// A receiver of why changes are refused (`None` while serving).
    pub fn health(&self) -> tokio::sync::watch::Receiver<Option<String>> {
        self.degraded.subscribe()
    }

    /// Failed state-file transactions so far.
    pub fn state_write_errors(&self) -> u64 {
        self.store.write_errors()
    }

    /// Refuses changes while the state file cannot be written.
    fn writable(&self) -> Result<(), StateError> {
        if let Some(why) = self.store.failure() {
            self.degrade(&why);
        }
        match &*self.degraded.borrow() {
            None => Ok(()),
            Some(why) => Err(Self::unavailable(why)),
        }
    }

    fn unavailable(why: &str) -> StateError {
        StateError::Unavailable(format!(
            "the coordinator cannot write its state file ({why}); it refuses changes until it can: free space or fix the state disk, and try again"
        ))
    }

    /// Enters the refusing state (once); `recover` leaves it.
    fn degrade(&self, why: &str) {
        self.degraded.send_if_modified(|d| {
            if d.is_some() {
                return false;
            }
            tracing::error!(
                error = why,
                "state file not writable: refusing changes, health NOT_SERVING"
            );
            *d = Some(why.to_string());
            true
        });
    }

    /// Waits for a durable change; a failure degrades the coordinator.
    async fn committed(&self, durable: super::store::Durable) -> Result<(), StateError> {
        durable.committed().await.map_err(|e| {
            let why = e.to_string();
            self.degrade(&why);
            Self::unavailable(&why)
        })
    }

    /// While degraded: tries the state file again; once a write goes
    /// through, rebuilds the whole state from what the file holds (changes
    /// made in memory since the failure were never acknowledged) and serves
    /// again. Returns whether the coordinator serves.
    pub async fn recover(self: &Arc<Self>) -> bool {
        if self.degraded.borrow().is_none() && self.store.failure().is_none() {
            return true;
        }
        let loaded = match self.store.recover().await {
            Ok(l) => l,
            Err(e) => {
                tracing::debug!(error = %e, "state file still not writable");
                return false;
            }
        };
        let mut stagings: HashMap<u64, Staging> = {
            let mut inner = self.lock();
            inner
                .jobs
                .iter_mut()
                .filter_map(|(id, j)| j.staging.take().map(|s| (*id, s)))
                .collect()
        };
        let config = self.config.clone();
        let built =
            tokio::task::spawn_blocking(move || build(&config, loaded, &mut stagings)).await;
        let (new, ended) = match built {
            Ok(Ok(b)) => b,
            Ok(Err(e)) => {
                tracing::error!(error = %e, "cannot rebuild the state from the state file");
                return false;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot rebuild the state from the state file");
                return false;
            }
        };
        {
            let mut inner = self.lock();
            let workers = std::mem::take(&mut inner.workers);
            let sweep = std::mem::take(&mut inner.sweep);
            *inner = new;
            inner.workers = workers;
            inner.sweep = sweep;
        }
        self.degraded.send_replace(None);
        tracing::info!("state rebuilt from the state file: serving again");
        for id in ended {
            self.clone().finish(id);
        }
        self.work.notify_waiters();
        self.bump();
        true
    }

    /// Checks and plans a job, stores it, and queues its shards.
    ///
    /// # Errors
    /// A request over a limit or naming no input, paths outside the roots,
    /// options that do not parse, an output folder another running job
    /// writes to (or inside or around it), or a state file that cannot be
    /// written.
    pub async fn submit(
        self: &Arc<Self>,
        mut req: v1::SubmitRequest,
    ) -> Result<v1::Job, StateError> {
        self.writable()?;
        check_limits(&req)?;
        let bad = StateError::BadRequest;
        let roots = self.config.roots.clone();
        let mut inputs: Vec<PathBuf> = Vec::with_capacity(req.inputs.len());
        for p in &req.inputs {
            let resolved = roots.resolve_existing(Path::new(p)).map_err(bad)?;
            if !inputs.contains(&resolved) {
                inputs.push(resolved);
            }
        }
        let out = roots.resolve_new(Path::new(&req.out)).map_err(bad)?;
        if let Some(i) = inputs.iter().find(|i| i.starts_with(&out)) {
            return Err(bad(format!(
                "the output folder {} holds the input {}: write the output elsewhere",
                shown(&out),
                shown(i)
            )));
        }
        let options =
            verdict_proto::run_options(&req.options.clone().unwrap_or_default(), out.clone(), 0)
                .map_err(|e| bad(e.to_string()))?;
        if req.shard_bytes == 0 {
            req.shard_bytes = self.config.shard_bytes;
        }
        req.inputs = inputs.iter().map(|p| p.display().to_string()).collect();
        req.out = out.display().to_string();
        let id = {
            let mut inner = self.lock();
            Self::conflict(&inner, &out)?;
            // Taken now, so the staging folder can be named before the job
            // is stored; a refused submit leaves a gap in the ids, never a
            // reused one.
            let id = inner.next_job;
            inner.next_job += 1;
            id
        };
        let shard_bytes = req.shard_bytes;
        let out_dir = out.clone();
        let name = staging_name(self.id, id);
        let planned = tokio::task::spawn_blocking(move || {
            publish::check_out(&out_dir).map_err(|e| e.to_string())?;
            let p = plan(&inputs, shard_bytes, &roots).map_err(|e| e.to_string())?;
            let staging = Staging::open(&out_dir, &name).map_err(|e| e.to_string())?;
            Ok::<_, String>((p, staging))
        })
        .await
        .map_err(|e| StateError::Internal(e.to_string()))?
        .map_err(bad)?;
        let (planned, staging) = planned;
        let created = now_unix();
        let total = verdict_proto::empty_summary(&options);
        let shards: Vec<Shard> = planned
            .shards
            .into_iter()
            .map(|files| Shard {
                files: Arc::new(files),
                state: ShardState::Pending,
                attempts: 0,
                error: None,
                issued: Vec::new(),
            })
            .collect();
        let durable = {
            let mut inner = self.lock();
            // Checked again: another submit may have taken the folder meanwhile.
            match Self::conflict(&inner, &out) {
                Ok(()) => Ok(self.insert(
                    &mut inner,
                    id,
                    req,
                    options,
                    shards,
                    created,
                    planned.bytes_total,
                    total,
                    out,
                    staging,
                )),
                Err(e) => Err((e, staging)),
            }
        };
        let durable = match durable {
            Ok(d) => d,
            Err((e, staging)) => {
                let _ = tokio::task::spawn_blocking(move || staging.discard()).await;
                return Err(e);
            }
        };
        if let Err(e) = self.committed(durable).await {
            let staging = self
                .lock()
                .jobs
                .remove(&id)
                .and_then(|mut j| j.staging.take());
            if let Some(s) = staging {
                let _ = tokio::task::spawn_blocking(move || s.discard()).await;
            }
            return Err(e);
        }
        {
            let mut inner = self.lock();
            let n = inner.jobs.get(&id).map_or(0, |j| j.shards.len());
            for shard in 0..n {
                inner.queue.push_back((id, shard as u32));
            }
        }
        tracing::info!(job = id, "job submitted");
        self.work.notify_waiters();
        self.bump();
        self.get(id)
    }

    /// Puts a planned job in memory (so no other job takes its folder) and
    /// sends it to the state file; its shards are queued only once it is
    /// stored.
    #[allow(clippy::too_many_arguments)]
    fn insert(
        &self,
        inner: &mut Inner,
        id: u64,
        req: v1::SubmitRequest,
        options: RunOptions,
        shards: Vec<Shard>,
        created: i64,
        bytes_total: u64,
        total: Summary,
        out: PathBuf,
        staging: Staging,
    ) -> super::store::Durable {
        let row = JobRow {
            id,
            spec: req.encode_to_vec(),
            state: "running".into(),
            created,
            finished: 0,
            error: String::new(),
            bytes_total,
            lease_expiries: 0,
            shards: shards
                .iter()
                .enumerate()
                .map(|(n, s)| ShardRow {
                    shard: n as u32,
                    files: v1::ShardFiles {
                        files: s.files.to_vec(),
                    }
                    .encode_to_vec(),
                    state: "pending".into(),
                    attempts: 0,
                    lease: None,
                    worker: None,
                    summary: None,
                    error: None,
                    issued: Vec::new(),
                })
                .collect(),
        };
        inner.jobs.insert(
            id,
            Job {
                spec: req,
                options,
                state: JobState::Running,
                open: shards.len(),
                shards,
                created,
                finished: 0,
                error: String::new(),
                bytes_total,
                lease_expiries: 0,
                total,
                staging_path: staging.path().to_path_buf(),
                out,
                staging: Some(staging),
            },
        );
        self.store.write_durable(Op::InsertJob(row))
    }

    /// Refuses an output folder that a live job writes to, or that holds
    /// one or lies inside one.
    fn conflict(inner: &Inner, out: &Path) -> Result<(), StateError> {
        match inner
            .jobs
            .iter()
            .find(|(_, j)| j.state.live() && overlap(&j.out, out))
        {
            Some((id, j)) if j.out == out => Err(StateError::Conflict(format!(
                "job {id} is writing to {} already: cancel it or choose another folder",
                shown(out)
            ))),
            Some((id, j)) => Err(StateError::Conflict(format!(
                "job {id} is writing to {}, which holds or lies inside {}: choose a folder apart from it",
                shown(&j.out),
                shown(out)
            ))),
            None => Ok(()),
        }
    }

    fn active_workers(&self, inner: &Inner) -> u32 {
        let recent = self.config.lease_ttl.max(Duration::from_secs(10));
        inner
            .workers
            .values()
            .filter(|w| w.last_seen.elapsed() < recent)
            .count() as u32
    }

    /// # Errors
    /// No such job.
    pub fn get(&self, id: u64) -> Result<v1::Job, StateError> {
        let inner = self.lock();
        let job = inner.jobs.get(&id).ok_or(StateError::NoJob(id))?;
        let mut snap = snapshot(id, job);
        snap.workers_active = self.active_workers(&inner);
        Ok(snap)
    }

    /// A page of jobs, and the token of the next page (empty on the last).
    ///
    /// # Errors
    /// A page size over the limit, or a token this coordinator did not give.
    pub fn list(&self, req: &v1::ListJobsRequest) -> Result<(Vec<v1::Job>, String), StateError> {
        let size = match req.page_size as usize {
            0 => limits::DEFAULT_PAGE,
            n if n > limits::PAGE => {
                return Err(StateError::BadRequest(format!(
                    "page size {n} is over the limit of {}",
                    limits::PAGE
                )))
            }
            n => n,
        };
        let after: Option<u64> = if req.page_token.is_empty() {
            None
        } else {
            Some(req.page_token.parse().map_err(|_| {
                StateError::BadRequest(format!(
                    "page token {:?} is not one this coordinator gave",
                    cut(&req.page_token, 40)
                ))
            })?)
        };
        let inner = self.lock();
        let active = self.active_workers(&inner);
        let range: Box<dyn Iterator<Item = (&u64, &Job)>> = match (req.newest_first, after) {
            (false, None) => Box::new(inner.jobs.iter()),
            (false, Some(a)) => Box::new(inner.jobs.range(a + 1..)),
            (true, None) => Box::new(inner.jobs.iter().rev()),
            (true, Some(a)) => Box::new(inner.jobs.range(..a).rev()),
        };
        let mut jobs = Vec::with_capacity(size);
        let mut next = String::new();
        for (id, j) in range {
            if jobs.len() == size {
                next = jobs
                    .last()
                    .map(|j: &v1::Job| j.id.to_string())
                    .unwrap_or_default();
                break;
            }
            let mut snap = snapshot(*id, j);
            snap.inputs.truncate(limits::LISTED_INPUTS);
            snap.workers_active = active;
            jobs.push(snap);
        }
        Ok((jobs, next))
    }

    /// Stops handing out a job's shards; leased ones are told to stop at
    /// their next heartbeat, and its staging folder is removed, so a late
    /// worker of it has nowhere to write.
    ///
    /// # Errors
    /// No such job, it has ended, or the state file cannot be written.
    pub async fn cancel(&self, id: u64) -> Result<v1::Job, StateError> {
        self.writable()?;
        let (durable, staging, out) = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let job = inner.jobs.get_mut(&id).ok_or(StateError::NoJob(id))?;
            if job.state != JobState::Running {
                return Err(StateError::Conflict(format!(
                    "job {id} has ended ({}), or is publishing its output",
                    job.state.name()
                )));
            }
            job.state = JobState::Cancelled;
            job.finished = now_unix();
            job.open = 0;
            for s in &mut job.shards {
                if matches!(s.state, ShardState::Pending | ShardState::Leased { .. }) {
                    for l in s.issued.drain(..) {
                        inner.leases.remove(&l);
                    }
                    s.state = ShardState::Cancelled;
                }
            }
            self.store.write(Op::CancelShards { job: id });
            let durable = self.store.write_durable(Op::JobState {
                job: id,
                state: "cancelled".into(),
                finished: job.finished,
                error: String::new(),
            });
            (durable, job.staging.take(), job.out.clone())
        };
        self.committed(durable).await?;
        if let Some(s) = staging {
            let name = s
                .path()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let removed = tokio::task::spawn_blocking(move || s.discard()).await;
            if !matches!(removed, Ok(Ok(()))) {
                self.lock().sweep.push((out, name));
            }
        }
        tracing::info!(job = id, "job cancelled");
        self.bump();
        self.get(id)
    }

    /// Forgets an ended job (its published output stays).
    ///
    /// # Errors
    /// No such job, it is still running, or the state file cannot be written.
    pub async fn delete(&self, id: u64) -> Result<(), StateError> {
        self.writable()?;
        let durable = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let job = inner.jobs.get(&id).ok_or(StateError::NoJob(id))?;
            if job.state.live() {
                return Err(StateError::Conflict(format!(
                    "job {id} is running: cancel it first"
                )));
            }
            Self::forget(inner, id);
            self.store.write_durable(Op::DeleteJob { job: id })
        };
        self.committed(durable).await?;
        tracing::info!(job = id, "job deleted");
        self.bump();
        Ok(())
    }

    fn forget(inner: &mut Inner, id: u64) {
        if let Some(job) = inner.jobs.remove(&id) {
            for s in &job.shards {
                for l in &s.issued {
                    inner.leases.remove(l);
                }
                if let ShardState::Done { lease, .. } = s.state {
                    inner.leases.remove(&lease);
                }
            }
        }
    }

    /// A new worker id.
    ///
    /// # Errors
    /// A name over the limit.
    pub fn register(&self, name: &str) -> Result<u64, StateError> {
        if name.len() > limits::WORKER_NAME_BYTES {
            return Err(StateError::BadRequest(format!(
                "a worker name of {} bytes, more than the limit of {}",
                name.len(),
                limits::WORKER_NAME_BYTES
            )));
        }
        let mut inner = self.lock();
        let id = loop {
            let id = random_u64();
            if !inner.workers.contains_key(&id) {
                break id;
            }
        };
        Self::touch(&mut inner, id, Some(name));
        tracing::info!(worker = id, name, "worker registered");
        Ok(id)
    }

    /// Notes a worker as seen, remembering at most [`limits::WORKERS`].
    fn touch(inner: &mut Inner, id: u64, name: Option<&str>) {
        let now = Instant::now();
        if let Some(w) = inner.workers.get_mut(&id) {
            w.last_seen = now;
            return;
        }
        if inner.workers.len() >= limits::WORKERS {
            if let Some(oldest) = inner
                .workers
                .iter()
                .min_by_key(|(_, w)| w.last_seen)
                .map(|(id, _)| *id)
            {
                inner.workers.remove(&oldest);
            }
        }
        inner.workers.insert(
            id,
            Worker {
                name: name.unwrap_or_default().to_string(),
                last_seen: now,
            },
        );
    }

    /// The next pending shard, leased to `worker`, or `None` when there is
    /// no work.
    ///
    /// # Errors
    /// The state file cannot be written (no lease is handed out that could
    /// not be recorded).
    pub fn acquire(&self, worker: u64) -> Result<Option<v1::Lease>, StateError> {
        self.writable()?;
        let mut guard = self.lock();
        let inner = &mut *guard;
        let now = Instant::now();
        // A worker registered before a restart is welcome as it is.
        Self::touch(inner, worker, None);
        while let Some((job_id, n)) = inner.queue.pop_front() {
            let Some(job) = inner.jobs.get(&job_id) else {
                continue;
            };
            if job.state != JobState::Running
                || !matches!(job.shards[n as usize].state, ShardState::Pending)
            {
                continue;
            }
            let lease = fresh_lease(inner);
            let job = inner.jobs.get_mut(&job_id).expect("looked up above");
            let shard = &mut job.shards[n as usize];
            shard.attempts += 1;
            shard.state = ShardState::Leased {
                lease,
                worker,
                expires: now + self.config.lease_ttl,
                games: 0,
            };
            shard.issued.push(lease);
            if shard.issued.len() > limits::ISSUED {
                let oldest = shard.issued.remove(0);
                inner.leases.remove(&oldest);
            }
            inner.leases.insert(lease, (job_id, n));
            self.store.write(Op::ShardLeased {
                job: job_id,
                shard: n,
                lease,
                worker,
                attempts: shard.attempts,
                issued: shard.issued.clone(),
            });
            self.counters.leases.fetch_add(1, Ordering::Relaxed);
            return Ok(Some(v1::Lease {
                lease_id: lease,
                job_id,
                shard: n,
                out: job.spec.out.clone(),
                files: shard.files.to_vec(),
                options: job.spec.options.clone(),
                ttl_ms: self.config.lease_ttl.as_millis() as u32,
                staging: job.staging_path.display().to_string(),
            }));
        }
        Ok(None)
    }

    /// [`Coordinator::acquire`], waiting up to `wait` for a shard to be
    /// queued when there is none.
    ///
    /// # Errors
    /// As [`Coordinator::acquire`].
    pub async fn acquire_waiting(
        &self,
        worker: u64,
        wait: Duration,
    ) -> Result<Option<v1::Lease>, StateError> {
        if wait.is_zero() {
            return self.acquire(worker);
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // Registered before looking, so a shard queued in between wakes us.
            let notified = self.work.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(lease) = self.acquire(worker)? {
                return Ok(Some(lease));
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(None);
            }
        }
    }

    /// Renews a lease; false when it is not the shard's live lease (lapsed,
    /// the shard done by another, or the job cancelled).
    pub fn heartbeat(&self, lease: u64, games: u64) -> bool {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let Some(&(job_id, n)) = inner.leases.get(&lease) else {
            return false;
        };
        let Some(job) = inner.jobs.get_mut(&job_id) else {
            return false;
        };
        let ttl = self.config.lease_ttl;
        match &mut job.shards[n as usize].state {
            ShardState::Leased {
                lease: l,
                expires,
                games: g,
                worker,
            } if *l == lease => {
                let now = Instant::now();
                *expires = now + ttl;
                let moved = *g != games;
                *g = games;
                let worker = *worker;
                if let Some(w) = inner.workers.get_mut(&worker) {
                    w.last_seen = now;
                }
                drop(guard);
                if moved {
                    self.bump();
                }
                true
            }
            _ => false,
        }
    }

    /// Records a shard's summary, from a lease issued for that job and
    /// shard (a lapsed one too: its worker may only have been slow, and its
    /// part is its own). The job publishes that lease's part.
    ///
    /// # Errors
    /// A lease not issued for this shard or no longer current, or a state
    /// file that cannot be written.
    pub async fn complete(
        self: &Arc<Self>,
        lease: u64,
        job_id: u64,
        n: u32,
        summary: v1::ShardSummary,
    ) -> Result<(), StateError> {
        self.writable()?;
        let (durable, ended) = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            if inner.leases.get(&lease) != Some(&(job_id, n)) {
                self.counters
                    .refused_completions
                    .fetch_add(1, Ordering::Relaxed);
                return Err(StateError::Lease(format!(
                    "lease {lease:016x} is not one issued for job {job_id} shard {n}, or another lease completed that shard: this part is not used"
                )));
            }
            let job = inner
                .jobs
                .get_mut(&job_id)
                .ok_or(StateError::NoJob(job_id))?;
            let shard = &mut job.shards[n as usize];
            if job.state != JobState::Running
                || !matches!(shard.state, ShardState::Pending | ShardState::Leased { .. })
            {
                // Already counted (a retry of this very completion), or the
                // job has ended: nothing to add.
                return Ok(());
            }
            for l in shard.issued.drain(..) {
                if l != lease {
                    inner.leases.remove(&l);
                }
            }
            job.open -= 1;
            self.counters
                .games
                .fetch_add(summary.games, Ordering::Relaxed);
            self.counters.completions.fetch_add(1, Ordering::Relaxed);
            let durable = self.store.write_durable(Op::ShardDone {
                job: job_id,
                shard: n,
                lease,
                summary: summary.encode_to_vec(),
            });
            shard.state = ShardState::Done {
                games: summary.games,
                lease,
            };
            shard.error = None;
            verdict_proto::add_summary(&mut job.total, &summary);
            (durable, job.open == 0)
        };
        self.committed(durable).await?;
        if ended {
            self.clone().finish(job_id);
        }
        self.bump();
        Ok(())
    }

    /// A worker gives a shard up: with `release`, it is stopping (no attempt
    /// counted); otherwise the shard failed with `reason`. Only the live
    /// lease can: another is ignored.
    ///
    /// # Errors
    /// The state file cannot be written.
    pub fn fail(
        self: &Arc<Self>,
        lease: u64,
        reason: &str,
        release: bool,
    ) -> Result<(), StateError> {
        self.writable()?;
        let reason = cut(reason, limits::FAIL_REASON_BYTES);
        let ended = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let Some(&(job_id, n)) = inner.leases.get(&lease) else {
                return Ok(());
            };
            let Some(shard) = inner
                .jobs
                .get_mut(&job_id)
                .map(|j| &mut j.shards[n as usize])
            else {
                return Ok(());
            };
            if !matches!(shard.state, ShardState::Leased { lease: l, .. } if l == lease) {
                return Ok(());
            }
            // This lease will not complete: it may not later either.
            shard.issued.retain(|l| *l != lease);
            inner.leases.remove(&lease);
            if release {
                shard.attempts = shard.attempts.saturating_sub(1);
            } else {
                self.counters.failures.fetch_add(1, Ordering::Relaxed);
            }
            self.give_back(inner, job_id, n, &reason)
        };
        if let Some(job_id) = ended {
            self.clone().finish(job_id);
        }
        self.bump();
        Ok(())
    }

    /// Puts a shard whose lease ended back in the queue, or marks it failed
    /// when it has used its attempts. Returns the job id if that ended the job.
    fn give_back(&self, inner: &mut Inner, job_id: u64, n: u32, reason: &str) -> Option<u64> {
        let job = inner.jobs.get_mut(&job_id)?;
        let shard = &mut job.shards[n as usize];
        shard.error = Some(reason.to_string());
        if shard.attempts >= self.config.max_attempts {
            tracing::warn!(
                job = job_id,
                shard = n,
                attempts = shard.attempts,
                reason,
                "shard failed"
            );
            shard.state = ShardState::Failed;
            for l in shard.issued.drain(..) {
                inner.leases.remove(&l);
            }
            job.open -= 1;
            self.store.write(Op::ShardFailed {
                job: job_id,
                shard: n,
                attempts: shard.attempts,
                error: reason.to_string(),
            });
            return (job.open == 0).then_some(job_id);
        }
        tracing::info!(
            job = job_id,
            shard = n,
            attempts = shard.attempts,
            reason,
            "shard queued again"
        );
        shard.state = ShardState::Pending;
        self.store.write(Op::ShardPending {
            job: job_id,
            shard: n,
            attempts: shard.attempts,
            error: Some(reason.to_string()),
            issued: shard.issued.clone(),
        });
        inner.queue.push_front((job_id, n));
        self.work.notify_waiters();
        None
    }

    /// Ends every lease whose heartbeats stopped, forgets workers long
    /// unseen and jobs past their retention, and retries removing staging
    /// folders that could not be removed.
    pub fn reap(self: &Arc<Self>) {
        let now = Instant::now();
        let mut ended = Vec::new();
        let sweep = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let expired: Vec<(u64, u64, u32)> = inner
                .jobs
                .iter()
                .filter(|(_, j)| j.state == JobState::Running)
                .flat_map(|(id, j)| {
                    j.shards
                        .iter()
                        .enumerate()
                        .filter_map(move |(n, s)| match s.state {
                            ShardState::Leased { lease, expires, .. } if expires <= now => {
                                Some((lease, *id, n as u32))
                            }
                            _ => None,
                        })
                })
                .collect();
            // Written only when the store can take it: a degraded
            // coordinator keeps its leases until it is rebuilt.
            if self.store.failure().is_none() && self.degraded.borrow().is_none() {
                for (lease, job, n) in expired {
                    self.counters.lease_expiries.fetch_add(1, Ordering::Relaxed);
                    if let Some(j) = inner.jobs.get_mut(&job) {
                        j.lease_expiries += 1;
                        self.store.write(Op::JobExpiries {
                            job,
                            lease_expiries: j.lease_expiries,
                        });
                    }
                    let reason = format!(
                        "lease {lease:016x} lapsed: no heartbeat for {:?}",
                        self.config.lease_ttl
                    );
                    ended.extend(self.give_back(inner, job, n, &reason));
                }
                if let Some(keep) = self.config.retention {
                    let cutoff = now_unix() - keep.as_secs() as i64;
                    let old: Vec<u64> = inner
                        .jobs
                        .iter()
                        .filter(|(_, j)| !j.state.live() && j.finished > 0 && j.finished < cutoff)
                        .map(|(id, _)| *id)
                        .collect();
                    for id in old {
                        tracing::info!(job = id, "job expired");
                        Self::forget(inner, id);
                        self.store.write(Op::DeleteJob { job: id });
                    }
                }
            }
            let unseen = (self.config.lease_ttl * 10).max(Duration::from_secs(600));
            inner.workers.retain(|_, w| w.last_seen.elapsed() < unseen);
            std::mem::take(&mut inner.sweep)
        };
        if !sweep.is_empty() {
            let this = self.clone();
            if let Ok(h) = tokio::runtime::Handle::try_current() {
                h.spawn_blocking(move || {
                    for (out, name) in sweep {
                        let gone = verdict_worker::confined::Dir::open(&out)
                            .and_then(|d| d.sub(publish::STAGING))
                            .and_then(|d| d.remove_tree(&name));
                        if gone.is_err() {
                            this.lock().sweep.push((out, name));
                        }
                    }
                });
            }
        }
        let any = !ended.is_empty();
        for job in ended {
            self.clone().finish(job);
        }
        if any {
            self.bump();
        }
    }

    /// Checks a job's parts and publishes its output ([`Finishing::run`]),
    /// then ends it; parts found missing send their shards back to run.
    fn finish(self: Arc<Self>, job_id: u64) {
        let prepared = {
            let mut inner = self.lock();
            let Some(job) = inner.jobs.get_mut(&job_id) else {
                return;
            };
            if job.state != JobState::Running || job.open != 0 {
                return;
            }
            // A degraded coordinator publishes nothing: its rebuild will.
            if self.degraded.borrow().is_some() {
                return;
            }
            job.state = JobState::Finishing;
            let mut done = Vec::new();
            let mut failed = 0;
            for (n, s) in job.shards.iter().enumerate() {
                match s.state {
                    ShardState::Done { games, lease } => done.push((n as u32, lease, games)),
                    ShardState::Failed => failed += 1,
                    _ => {}
                }
            }
            let mut manifest = serde_json::Map::new();
            manifest.insert("kind".into(), "job".into());
            manifest.insert("job".into(), job_id.into());
            manifest.insert("coordinator".into(), format!("{:016x}", self.id).into());
            manifest.insert("label".into(), job.spec.label.clone().into());
            manifest.insert("verdict_version".into(), env!("CARGO_PKG_VERSION").into());
            manifest.insert("inputs".into(), job.spec.inputs.clone().into());
            manifest.insert(
                "options".into(),
                verdict_worker::run::options_json(&job.options),
            );
            manifest.insert("created_unix".into(), job.created.into());
            Finishing {
                job: job_id,
                out: job.out.clone(),
                staging: job.staging.take(),
                done,
                failed,
                total: job.total.clone(),
                manifest,
            }
        };
        let this = self.clone();
        let finish = async move {
            let store = this.store.clone();
            let coordinator = this.id;
            let published = tokio::task::spawn_blocking(move || prepared.run(coordinator, &store))
                .await
                .unwrap_or_else(|e| Published::Failed(format!("publishing panicked: {e}")));
            let durable = {
                let mut guard = this.lock();
                let inner = &mut *guard;
                let Some(job) = inner.jobs.get_mut(&job_id) else {
                    return;
                };
                match published {
                    Published::BadParts(bad, total, staging) => {
                        job.state = JobState::Running;
                        job.total = *total;
                        job.staging = staging;
                        for (n, why) in bad {
                            this.counters.bad_parts.fetch_add(1, Ordering::Relaxed);
                            tracing::warn!(job = job_id, shard = n, reason = %why, "part missing: running the shard again");
                            let shard = &mut job.shards[n as usize];
                            if let ShardState::Done { lease, .. } = shard.state {
                                inner.leases.remove(&lease);
                            }
                            // The part was not there: an attempt spent.
                            shard.attempts += 1;
                            shard.error = Some(why.clone());
                            if shard.attempts >= this.config.max_attempts {
                                shard.state = ShardState::Failed;
                                this.store.write(Op::ShardFailed {
                                    job: job_id,
                                    shard: n,
                                    attempts: shard.attempts,
                                    error: why,
                                });
                            } else {
                                shard.state = ShardState::Pending;
                                job.open += 1;
                                this.store.write(Op::ShardPending {
                                    job: job_id,
                                    shard: n,
                                    attempts: shard.attempts,
                                    error: Some(why),
                                    issued: Vec::new(),
                                });
                                inner.queue.push_front((job_id, n));
                            }
                        }
                        let again = job.open == 0;
                        drop(guard);
                        this.work.notify_waiters();
                        if again {
                            this.clone().finish(job_id);
                        }
                        this.bump();
                        return;
                    }
                    Published::Done => {
                        job.state = JobState::Done;
                    }
                    Published::Withheld(failed) => {
                        job.state = JobState::DoneWithFailures;
                        job.error = format!(
                            "{failed} shard(s) failed: nothing was published, and {} keeps its previous output",
                            job.spec.out
                        );
                    }
                    Published::Failed(why) => {
                        job.state = JobState::DoneWithFailures;
                        job.error = why;
                    }
                }
                job.finished = now_unix();
                tracing::info!(job = job_id, state = job.state.name(), "job finished");
                this.store.write_durable(Op::JobState {
                    job: job_id,
                    state: job.state.name().into(),
                    finished: job.finished,
                    error: job.error.clone(),
                })
            };
            let _ = this.committed(durable).await;
            this.bump();
        };
        match tokio::runtime::Handle::try_current() {
            Ok(h) => {
                h.spawn(finish);
            }
            Err(_) => tracing::error!(job = job_id, "no runtime to finish the job on"),
        }
    }

    /// Jobs and shards by state, and workers seen lately.
    pub fn gauges(&self) -> Gauges {
        let inner = self.lock();
        let mut g = Gauges::default();
        for job in inner.jobs.values() {
            *g.jobs.entry(job.state.name()).or_default() += 1;
            for s in &job.shards {
                let name = match s.state {
                    ShardState::Pending => "pending",
                    ShardState::Leased { .. } => "leased",
                    ShardState::Done { .. } => "done",
                    ShardState::Failed => "failed",
                    ShardState::Cancelled => "cancelled",
                };
                *g.shards.entry(name).or_default() += 1;
            }
        }
        g.workers_known = inner.workers.len() as u64;
        g.workers_active = u64::from(self.active_workers(&inner));
        g
    }

    /// Games analysed so far in every job: done shards' and the progress
    /// running ones report.
    pub fn games_seen(&self) -> u64 {
        let inner = self.lock();
        inner
            .jobs
            .values()
            .flat_map(|j| &j.shards)
            .map(|s| match s.state {
                ShardState::Done { games: g, .. } | ShardState::Leased { games: g, .. } => g,
                _ => 0,
            })
            .sum()
    }

    /// Waits until every change made so far is committed.
    pub async fn flush(&self) {
        let _ = self.store.write_durable(Op::Barrier).committed().await;
    }

    /// The heartbeat period workers are told to keep.
    pub fn heartbeat_period(&self) -> Duration {
        self.config.lease_ttl / 3
    }

    /// A worker's name, for logs.
    pub fn worker_name(&self, id: u64) -> String {
        self.lock()
            .workers
            .get(&id)
            .map(|w| w.name.clone())
            .unwrap_or_default()
    }
}

fn snapshot(id: u64, job: &Job) -> v1::Job {
    let mut out = v1::Job {
        id,
        state: job.state.wire() as i32,
        inputs: job.spec.inputs.clone(),
        inputs_total: job.spec.inputs.len() as u32,
        out: job.spec.out.clone(),
        label: job.spec.label.clone(),
        shards_total: job.shards.len() as u32,
        bytes_total: job.bytes_total,
        created_unix: job.created,
        finished_unix: job.finished,
        error: job.error.clone(),
        lease_expiries: job.lease_expiries,
        ..v1::Job::default()
    };
    for (n, s) in job.shards.iter().enumerate() {
        match &s.state {
            ShardState::Pending => out.shards_pending += 1,
            ShardState::Leased { games, .. } => {
                out.shards_leased += 1;
                out.games += games;
            }
            ShardState::Done { games, .. } => {
                out.shards_done += 1;
                out.games += games;
            }
            ShardState::Failed => {
                out.shards_failed += 1;
                out.failures.push(v1::ShardFailure {
                    shard: n as u32,
                    reason: s.error.clone().unwrap_or_default(),
                    attempts: s.attempts,
                });
            }
            ShardState::Cancelled => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_worker::confined::Dir;
    use verdict_worker::row::{Cell, Kind};

    struct Fixture {
        dir: PathBuf,
    }

    impl Fixture {
        fn new(name: &str) -> Fixture {
            let dir =
                std::env::temp_dir().join(format!("verdict-state-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("in")).unwrap();
            let dir = dir.canonicalize().unwrap();
            for i in 0..3 {
                std::fs::write(dir.join(format!("in/{i}.sgf")), "(;SZ[9];B[aa];W[bb])").unwrap();
            }
            Fixture { dir }
        }

        fn coordinator(&self, ttl_ms: u64, max_attempts: u32) -> Arc<Coordinator> {
            let (store, loaded) = Store::open(&self.dir.join("state.db")).unwrap();
            let config = Config {
                lease_ttl: Duration::from_millis(ttl_ms),
                max_attempts,
                shard_bytes: 1,
                roots: Roots::new(std::slice::from_ref(&self.dir)).unwrap(),
                retention: None,
            };
            Coordinator::new(config, store, loaded).unwrap()
        }

        fn request(&self) -> v1::SubmitRequest {
            v1::SubmitRequest {
                inputs: vec![self.dir.join("in").display().to_string()],
                out: self.dir.join("out").display().to_string(),
                ..Default::default()
            }
        }
    }

    impl Drop for Fixture {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn summary(games: u64) -> v1::ShardSummary {
        v1::ShardSummary {
            games,
            ..Default::default()
        }
    }

    /// Writes the part a worker holding `lease` would write, with `rows` rows.
    fn part(lease: &v1::Lease, rows: u64) {
        let dir = Dir::open(Path::new(&lease.staging)).unwrap();
        let cols = [("x".to_string(), Kind::Int)];
        verdict_worker::parquet_out::write_table(
            &dir,
            &staged_part_name(lease.shard, lease.lease_id),
            &cols,
            (0..rows).map(|_| vec![Cell::Int(Some(1))]),
            "test",
        )
        .unwrap();
    }

    /// Writes the part and completes the lease.
    async fn finish_shard(c: &Arc<Coordinator>, l: &v1::Lease, games: u64) {
        part(l, games);
        c.complete(l.lease_id, l.job_id, l.shard, summary(games))
            .await
            .unwrap();
    }

    async fn ended(c: &Coordinator, id: u64) -> v1::Job {
        for _ in 0..500 {
            let job = c.get(id).unwrap();
            if job.state != v1::JobState::Running as i32 {
                return job;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("job {id} did not end: {:?}", c.get(id));
    }

    fn acquire(c: &Coordinator, w: u64) -> v1::Lease {
        c.acquire(w).unwrap().expect("a shard to lease")
    }

    #[tokio::test]
    async fn lapsed_leases_are_leased_again_until_the_shard_fails() {
        let f = Fixture::new("lapse");
        let c = f.coordinator(30, 2);
        let job = c.submit(f.request()).await.unwrap();
        // One file per shard (shard_bytes 1, files too small to split).
        assert_eq!(job.shards_total, 3);
        let w = c.register("w").unwrap();
        let leases: Vec<v1::Lease> = (0..3).map(|_| acquire(&c, w)).collect();
        assert!(
            c.acquire(w).unwrap().is_none(),
            "three shards, three leases"
        );
        for l in &leases[1..] {
            finish_shard(&c, l, 1).await;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
        c.reap();
        assert!(
            !c.heartbeat(leases[0].lease_id, 0),
            "a lapsed lease is gone"
        );
        let again = acquire(&c, w);
        assert_eq!(again.shard, leases[0].shard);
        assert_ne!(again.lease_id, leases[0].lease_id);
        assert!(c.heartbeat(again.lease_id, 5));
        assert_eq!(c.get(job.id).unwrap().games, 2 + 5);
        tokio::time::sleep(Duration::from_millis(40)).await;
        c.reap();
        // Two attempts used: failed, and the job ends reporting it.
        let end = ended(&c, job.id).await;
        assert_eq!(end.state, v1::JobState::DoneWithFailures as i32);
        assert_eq!(end.lease_expiries, 2);
        assert_eq!(end.failures.len(), 1);
        assert_eq!(end.failures[0].attempts, 2);
        assert!(end.failures[0].reason.contains("lapsed"), "{end:?}");
        assert!(end.error.contains("nothing was published"), "{end:?}");
        assert!(
            !f.dir.join("out/summary.json").exists(),
            "a job with a failed shard publishes nothing"
        );
        assert!(!f.dir.join("out/_staging").read_dir().unwrap().any(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with('.')));
    }

    #[tokio::test]
    async fn a_lapsed_lease_may_complete_and_the_live_one_is_told_to_stop() {
        let f = Fixture::new("once");
        let c = f.coordinator(30, 5);
        let job = c.submit(f.request()).await.unwrap();
        let (a, b) = (c.register("a").unwrap(), c.register("b").unwrap());
        let slow = acquire(&c, a);
        tokio::time::sleep(Duration::from_millis(40)).await;
        c.reap();
        let fast = acquire(&c, b);
        assert_eq!(fast.shard, slow.shard);
        // The slow worker finishes first: accepted, its part is the shard's.
        finish_shard(&c, &slow, 7).await;
        assert!(
            !c.heartbeat(fast.lease_id, 1),
            "the other lease is told to stop"
        );
        part(&fast, 7);
        let late = c
            .complete(fast.lease_id, fast.job_id, fast.shard, summary(7))
            .await;
        assert!(matches!(late, Err(StateError::Lease(_))), "{late:?}");
        // A retry of the accepted completion is fine, and counts once.
        c.complete(slow.lease_id, slow.job_id, slow.shard, summary(7))
            .await
            .unwrap();
        assert_eq!(c.get(job.id).unwrap().games, 7, "counted once");
        // A release gives the shard back without counting an attempt.
        let released = acquire(&c, a);
        c.fail(released.lease_id, "stopping", true).unwrap();
        let retry = acquire(&c, b);
        assert_eq!(retry.shard, released.shard);
        finish_shard(&c, &retry, 1).await;
        let last = acquire(&c, a);
        finish_shard(&c, &last, 1).await;
        let end = ended(&c, job.id).await;
        assert_eq!(end.state, v1::JobState::Done as i32, "{end:?}");
        assert_eq!(end.games, 9);
        // Published: the accepted parts under their shard's name, nothing else.
        let mut names: Vec<String> = std::fs::read_dir(f.dir.join("out/games"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "part-00000.parquet",
                "part-00001.parquet",
                "part-00002.parquet"
            ]
        );
        let marker: serde_json::Value =
            serde_json::from_slice(&std::fs::read(f.dir.join("out/_SUCCESS")).unwrap()).unwrap();
        assert_eq!(marker["job"], job.id);
        assert_eq!(marker["games"], 9);
        assert!(matches!(
            c.cancel(job.id).await,
            Err(StateError::Conflict(_))
        ));
    }

    #[tokio::test]
    async fn completions_need_a_lease_issued_for_that_shard() {
        let f = Fixture::new("forged");
        let c = f.coordinator(60_000, 3);
        let job = c.submit(f.request()).await.unwrap();
        let w = c.register("w").unwrap();
        let l = acquire(&c, w);
        for (lease, job_id, shard) in [
            (l.lease_id + 1, job.id, l.shard),
            (l.lease_id, job.id + 1, l.shard),
            (l.lease_id, job.id, l.shard + 1),
            (w, job.id, l.shard),
        ] {
            let forged = c.complete(lease, job_id, shard, summary(5_000_000)).await;
            assert!(matches!(forged, Err(StateError::Lease(_))), "{forged:?}");
        }
        assert_eq!(c.get(job.id).unwrap().games, 0);
        // Lease and worker ids tell nothing of each other or of the next.
        let l2 = acquire(&c, w);
        assert!(l2.lease_id.abs_diff(l.lease_id) > 1 << 20);
        assert!(l.lease_id.abs_diff(w) > 1 << 20);
    }

    #[tokio::test]
    async fn a_part_missing_at_the_end_runs_its_shard_again() {
        let f = Fixture::new("missing");
        let c = f.coordinator(60_000, 3);
        let job = c.submit(f.request()).await.unwrap();
        let w = c.register("w").unwrap();
        let leases: Vec<v1::Lease> = (0..3).map(|_| acquire(&c, w)).collect();
        finish_shard(&c, &leases[0], 2).await;
        finish_shard(&c, &leases[1], 2).await;
        // A completion without its part (a forger with a real lease, or a
        // part deleted behind the coordinator's back).
        c.complete(
            leases[2].lease_id,
            leases[2].job_id,
            leases[2].shard,
            summary(5_000_000),
        )
        .await
        .unwrap();
        let again = loop {
            if let Some(l) = c.acquire(w).unwrap() {
                break l;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(again.shard, leases[2].shard);
        let now = c.get(job.id).unwrap();
        assert_eq!(now.games, 4, "the forged count is gone: {now:?}");
        finish_shard(&c, &again, 2).await;
        let end = ended(&c, job.id).await;
        assert_eq!(end.state, v1::JobState::Done as i32, "{end:?}");
        let written: serde_json::Value =
            serde_json::from_slice(&std::fs::read(f.dir.join("out/summary.json")).unwrap())
                .unwrap();
        assert_eq!(written["games"], 6);
    }

    #[tokio::test]
    async fn a_restart_keeps_jobs_done_shards_and_live_leases() {
        let f = Fixture::new("restart");
        let (job, held, done) = {
            let c = f.coordinator(60_000, 3);
            let job = c.submit(f.request()).await.unwrap();
            let w = c.register("w").unwrap();
            let done = acquire(&c, w);
            finish_shard(&c, &done, 4).await;
            let held = acquire(&c, w);
            c.flush().await;
            (job, held, done)
        };
        let c = f.coordinator(60_000, 3);
        let now = c.get(job.id).unwrap();
        assert_eq!(
            (now.shards_done, now.shards_leased, now.shards_pending),
            (1, 1, 1)
        );
        assert_eq!(now.games, 4);
        assert!(
            c.heartbeat(held.lease_id, 2),
            "the lease survives the restart"
        );
        // A retry of a completion the old process answered is still fine.
        c.complete(done.lease_id, done.job_id, done.shard, summary(4))
            .await
            .unwrap();
        let w = c.register("new").unwrap();
        let next = acquire(&c, w);
        finish_shard(&c, &held, 3).await;
        finish_shard(&c, &next, 3).await;
        let end = ended(&c, job.id).await;
        assert_eq!(end.state, v1::JobState::Done as i32);
        let written: serde_json::Value =
            serde_json::from_slice(&std::fs::read(f.dir.join("out/summary.json")).unwrap())
                .unwrap();
        assert_eq!(written["games"], 10);
    }

    #[tokio::test]
    async fn a_waiting_worker_is_woken_by_new_work() {
        let f = Fixture::new("wake");
        let c = f.coordinator(60_000, 3);
        let w = c.register("w").unwrap();
        let idle = Instant::now();
        assert!(c
            .acquire_waiting(w, Duration::from_millis(50))
            .await
            .unwrap()
            .is_none());
        assert!(idle.elapsed() >= Duration::from_millis(50));
        let start = Instant::now();
        let waiter = {
            let c = c.clone();
            tokio::spawn(async move { c.acquire_waiting(w, Duration::from_secs(20)).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let job = c.submit(f.request()).await.unwrap();
        let lease = waiter.await.unwrap().unwrap().expect("woken with a lease");
        assert_eq!(lease.job_id, job.id);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[tokio::test]
    async fn one_folder_under_two_names_is_one_folder() {
        let f = Fixture::new("names");
        let c = f.coordinator(60_000, 3);
        c.submit(f.request()).await.unwrap();
        std::os::unix::fs::symlink(f.dir.join("out"), f.dir.join("alias")).unwrap();
        let out = f.dir.join("out").display().to_string();
        for other in [
            format!("{out}/"),
            format!("{out}//"),
            format!("{}/./out", f.dir.display()),
            format!("{}/in/../out", f.dir.display()),
            f.dir.join("alias").display().to_string(),
            format!("{out}/inner"),
        ] {
            let req = v1::SubmitRequest {
                out: other.clone(),
                ..f.request()
            };
            let got = c.submit(req).await;
            assert!(
                matches!(got, Err(StateError::Conflict(_))),
                "{other}: {got:?}"
            );
        }
        // A folder holding a running job's output is refused too.
        let inner = v1::SubmitRequest {
            out: f.dir.join("wrap/inner").display().to_string(),
            ..f.request()
        };
        c.submit(inner).await.unwrap();
        let around = v1::SubmitRequest {
            out: f.dir.join("wrap").display().to_string(),
            ..f.request()
        };
        assert!(matches!(
            c.submit(around).await,
            Err(StateError::Conflict(_))
        ));
        // The refused submits neither queued nor deleted anything.
        assert_eq!(c.list(&v1::ListJobsRequest::default()).unwrap().0.len(), 2);
        assert!(f.dir.join("out/_staging").exists());
    }

    #[tokio::test]
    async fn listings_come_in_pages_and_ended_jobs_can_be_deleted() {
        let f = Fixture::new("pages");
        let c = f.coordinator(60_000, 3);
        let mut ids = Vec::new();
        for i in 0..5 {
            let req = v1::SubmitRequest {
                out: f.dir.join(format!("out{i}")).display().to_string(),
                ..f.request()
            };
            ids.push(c.submit(req).await.unwrap().id);
        }
        let page = |token: &str, newest_first: bool| {
            c.list(&v1::ListJobsRequest {
                page_size: 2,
                page_token: token.into(),
                newest_first,
            })
            .unwrap()
        };
        let (first, next) = page("", false);
        assert_eq!(first.iter().map(|j| j.id).collect::<Vec<_>>(), ids[..2]);
        let (second, next) = page(&next, false);
        assert_eq!(second.iter().map(|j| j.id).collect::<Vec<_>>(), ids[2..4]);
        let (third, next) = page(&next, false);
        assert_eq!(third.len(), 1);
        assert!(next.is_empty());
        let (newest, _) = page("", true);
        assert_eq!(newest[0].id, ids[4]);
        assert!(c
            .list(&v1::ListJobsRequest {
                page_size: 5000,
                ..Default::default()
            })
            .is_err());
        assert!(matches!(
            c.delete(ids[0]).await,
            Err(StateError::Conflict(_))
        ));
        c.cancel(ids[0]).await.unwrap();
        c.delete(ids[0]).await.unwrap();
        assert!(matches!(c.get(ids[0]), Err(StateError::NoJob(_))));
        drop(c);
        let c = f.coordinator(60_000, 3);
        assert!(
            matches!(c.get(ids[0]), Err(StateError::NoJob(_))),
            "deleted for good"
        );
        assert!(c.get(ids[1]).is_ok());
    }

    #[test]
    fn the_workers_table_is_bounded() {
        let f = Fixture::new("workers");
        let c = f.coordinator(60_000, 3);
        for _ in 0..limits::WORKERS + 10 {
            c.register("w").unwrap();
        }
        assert_eq!(c.gauges().workers_known, limits::WORKERS as u64);
        // Unknown ids (workers from before a restart) do not grow it either.
        for id in 1..=10 {
            c.acquire(id).unwrap();
        }
        assert_eq!(c.gauges().workers_known, limits::WORKERS as u64);
    }

    #[tokio::test]
    async fn requests_over_a_limit_are_refused_naming_it() {
        let f = Fixture::new("limits");
        let c = f.coordinator(60_000, 3);
        let cases = [
            v1::SubmitRequest {
                label: "x".repeat(limits::LABEL_BYTES + 1),
                ..f.request()
            },
            v1::SubmitRequest {
                inputs: vec![format!("/{}", "y".repeat(limits::PATH_BYTES))],
                ..f.request()
            },
            v1::SubmitRequest {
                options: Some(v1::AnalysisOptions {
                    komi_sweep: vec![6.5; limits::KOMI_SWEEP + 1],
                    ..Default::default()
                }),
                ..f.request()
            },
            v1::SubmitRequest {
                options: Some(v1::AnalysisOptions {
                    rules: vec!["jpd_a".into(), "jpd_a".into()],
                    ..Default::default()
                }),
                ..f.request()
            },
        ];
        for req in cases {
            match c.submit(req).await {
                Err(StateError::BadRequest(m)) => {
                    assert!(m.contains("limit") || m.contains("twice"), "{m}");
                    assert!(m.len() < 300, "{m}");
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(c.register(&"n".repeat(300)).is_err());
    }
}
