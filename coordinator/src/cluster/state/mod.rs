//! The coordinator's state: jobs, their shards, leases and workers.
//!
//! Everything lives in memory behind one mutex (each operation is a few map
//! lookups, so the lease hot path stays fast) and every change that must
//! survive a restart is written through to a [`Store`]; an RPC answers
//! success only once its change is committed. Shards are leased from a FIFO
//! queue; a lease lapses when its heartbeats stop, and the shard goes back
//! to the queue until it has failed `max_attempts` times. Time comes from a
//! [`Clock`], so tests move it on instead of sleeping.
//!
//! A job's output belongs to the job. Its workers write parts into its
//! staging folder, each under its lease's name; a completion is accepted
//! only from a lease issued for that job and shard; at the end the parts on
//! disk must be exactly the completed shards' (row counts as reported)
//! before anything is published ([`verdict_worker::publish`]). What a
//! cancelled, lapsed or foreign lease writes is never published.
//!
//! - `jobs`: submit, get, list, cancel, delete, and the job's spec;
//! - `leases`: workers, acquire, heartbeat, complete, fail, the reaper;
//! - `finish`: checking a finished job's parts and publishing them;
//! - `recovery`: the state rebuilt from a store, at start and after the
//!   state file could not be written;
//! - `limits`, `errors`, `clock`, and `wire` (the `verdict.v1` views of
//!   jobs and leases).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use verdict_worker::engine::ShardFile;
use verdict_worker::ids::random_u64;
use verdict_worker::summary::Summary;

use super::auth::Roots;
use super::store::{Loaded, Op, Store, SweepRow};
use output::JobStaging;

mod clock;
mod errors;
mod finish;
mod jobs;
mod leases;
pub mod limits;
mod output;
mod recovery;
#[cfg(test)]
mod tests;
mod wire;

#[cfg(test)]
pub use clock::FakeClock;
pub use clock::{Clock, SystemClock};
pub use errors::StateError;
pub use jobs::JobSpec;

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

impl ShardState {
    fn name(&self) -> &'static str {
        match self {
            ShardState::Pending => "pending",
            ShardState::Leased { .. } => "leased",
            ShardState::Done { .. } => "done",
            ShardState::Failed => "failed",
            ShardState::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug)]
struct Shard {
    files: Arc<Vec<ShardFile>>,
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
    spec: JobSpec,
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
    staging: Option<JobStaging>,
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
    /// Staging places of ended jobs to remove once due (stored): those
    /// that could not be removed yet, and a bucket job's place once more
    /// after its late workers' puts ([`Coordinator::sweep_later`]).
    sweep: Vec<SweepRow>,
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
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
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

/// How long after a bucket job ends its staging place is removed once
/// more: twice the lease period, by when every worker that held one of its
/// leases has been told at a heartbeat to stop (a late put of a part can
/// still come in that long after the place was first removed).
pub const LATE_SWEEP_LEASES: u32 = 2;

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

impl Coordinator {
    /// The coordinator over what `store` held at start, on the machine's
    /// clocks. Leased shards get a fresh lease period, so live workers
    /// carry on.
    ///
    /// # Errors
    /// A stored job that cannot be rebuilt.
    pub fn new(
        config: Config,
        store: Arc<dyn Store>,
        loaded: Loaded,
    ) -> Result<Arc<Self>, StateError> {
        Self::with_clock(config, store, loaded, Arc::new(SystemClock))
    }

    /// [`Coordinator::new`] on `clock`.
    ///
    /// # Errors
    /// A stored job that cannot be rebuilt.
    pub fn with_clock(
        config: Config,
        store: Arc<dyn Store>,
        loaded: Loaded,
        clock: Arc<dyn Clock>,
    ) -> Result<Arc<Self>, StateError> {
        let id = loaded.coordinator;
        let (inner, rebuilt) = recovery::build(&config, &*clock, loaded, &mut HashMap::new())?;
        let coordinator = Arc::new(Coordinator {
            inner: Mutex::new(inner),
            store,
            clock,
            config,
            counters: Counters::default(),
            id,
            changed: tokio::sync::watch::channel(0).0,
            work: tokio::sync::Notify::new(),
            degraded: tokio::sync::watch::channel(None).0,
        });
        for op in rebuilt.fixes {
            coordinator.store.write(op);
        }
        // Jobs whose last shard ended just before a stop: publish them now.
        for id in rebuilt.ended {
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

    /// Jobs and shards by state, and workers seen lately.
    pub fn gauges(&self) -> Gauges {
        let inner = self.lock();
        let mut g = Gauges::default();
        for job in inner.jobs.values() {
            *g.jobs.entry(job.state.name()).or_default() += 1;
            for s in &job.shards {
                *g.shards.entry(s.state.name()).or_default() += 1;
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

impl Coordinator {
    /// Queues the removal of `out`'s staging place `name` once `after` has
    /// passed, written to the store so that a restart still does it; the
    /// reaper ([`Coordinator::reap`]) removes it when due, and tries again
    /// at its next tick when it cannot.
    fn sweep_later(&self, inner: &mut Inner, out: &std::path::Path, name: &str, after: Duration) {
        // Whole seconds, rounded up, and one more: the Unix clock is read in
        // whole seconds, so `after` has surely passed when it is due.
        let secs = after.as_secs() as i64 + i64::from(after.subsec_nanos() > 0) + 1;
        let row = SweepRow {
            out: out.display().to_string(),
            name: name.to_string(),
            due: if after.is_zero() {
                self.clock.unix()
            } else {
                self.clock.unix() + secs
            },
        };
        if inner.sweep.contains(&row) {
            return;
        }
        self.store.write(Op::SweepDue(row.clone()));
        inner.sweep.push(row);
    }

    /// After a bucket job ended (finished or cancelled) and its staging
    /// place was removed: removes it again past the lease period's late
    /// puts ([`LATE_SWEEP_LEASES`]).
    fn sweep_late_puts(&self, inner: &mut Inner, job: u64) {
        let Some(out) = inner.jobs.get(&job).map(|j| j.out.clone()) else {
            return;
        };
        if verdict_worker::objects::is_url(&out) {
            let after = self.config.lease_ttl * LATE_SWEEP_LEASES;
            self.sweep_later(inner, &out, &staging_name(self.id, job), after);
        }
    }
}
