//! The coordinator's state: jobs, their shards, leases and workers.
//!
//! Everything lives in memory behind one mutex (each operation is a few map
//! lookups, so the lease hot path stays fast) and every change that must
//! survive a restart is written through to [`Store`]. Shards are leased from
//! a FIFO queue; a lease lapses when its heartbeats stop, and the shard goes
//! back to the queue until it has failed `max_attempts` times.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use verdict_proto::prost::Message;
use verdict_proto::v1;
use verdict_worker::run::RunOptions;
use verdict_worker::summary::Summary;

use super::auth::Roots;
use super::plan::{clear_parts, plan};
use super::store::{JobRow, Op, ShardRow, Store};

/// How the coordinator behaves.
#[derive(Debug, Clone)]
pub struct Config {
    pub lease_ttl: Duration,
    pub max_attempts: u32,
    pub shard_bytes: u64,
    pub roots: Roots,
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
    #[error("{0}")]
    Internal(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobState {
    Running,
    /// Every shard ended; the summary is being written.
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
    /// Done, with its game count (its summary is added to the job's).
    Done(u64),
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
    leases: HashMap<u64, (u64, u32)>,
    workers: HashMap<u64, Worker>,
    next_job: u64,
    next_lease: u64,
    next_worker: u64,
}

/// Counters for `/metrics`.
#[derive(Debug, Default)]
pub struct Counters {
    pub games: AtomicU64,
    pub lease_expiries: AtomicU64,
    pub leases: AtomicU64,
    pub completions: AtomicU64,
    pub failures: AtomicU64,
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
    changed: tokio::sync::watch::Sender<u64>,
    /// Woken when shards are queued, for workers waiting in `Acquire`.
    work: tokio::sync::Notify,
}

fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Ids that no earlier run of this state file handed out, even one whose
/// last writes were lost: above every stored id and above the clock.
fn fresh_ids(stored_max: u64) -> u64 {
    (stored_max + 1).max((now_unix() as u64) << 24)
}

impl Coordinator {
    /// The coordinator over what `store` held at start. Leased shards get a
    /// fresh lease period, so live workers carry on.
    ///
    /// # Errors
    /// A stored job that cannot be decoded.
    pub fn new(config: Config, store: Store, rows: Vec<JobRow>) -> Result<Arc<Self>, StateError> {
        let mut inner = Inner::default();
        let expires = Instant::now() + config.lease_ttl;
        let (mut max_lease, mut max_worker, mut max_job) = (0, 0, 0);
        let corrupt = |what: &str, e: &dyn std::fmt::Display| {
            StateError::Internal(format!("state file: cannot decode {what}: {e}"))
        };
        for row in rows {
            let spec =
                v1::SubmitRequest::decode(&row.spec[..]).map_err(|e| corrupt("a job", &e))?;
            let options = verdict_proto::run_options(
                &spec.options.clone().unwrap_or_default(),
                PathBuf::from(&spec.out),
                0,
            )
            .map_err(|e| corrupt("a job's options", &e))?;
            let state = match row.state.as_str() {
                "done" => JobState::Done,
                "done_with_failures" => JobState::DoneWithFailures,
                "cancelled" => JobState::Cancelled,
                _ => JobState::Running,
            };
            let mut shards = Vec::with_capacity(row.shards.len());
            let mut open = 0;
            let mut total = verdict_proto::empty_summary(&options);
            for s in row.shards {
                let files = v1::ShardFiles::decode(&s.files[..])
                    .map_err(|e| corrupt("a shard", &e))?
                    .files;
                let shard_state = match s.state.as_str() {
                    "done" => {
                        let summary =
                            v1::ShardSummary::decode(s.summary.as_deref().unwrap_or_default())
                                .map_err(|e| corrupt("a shard summary", &e))?;
                        verdict_proto::add_summary(&mut total, &summary);
                        ShardState::Done(summary.games)
                    }
                    "failed" => ShardState::Failed,
                    "cancelled" => ShardState::Cancelled,
                    "leased" if state == JobState::Running => {
                        let lease = s.lease.unwrap_or_default();
                        let worker = s.worker.unwrap_or_default();
                        max_lease = max_lease.max(lease);
                        max_worker = max_worker.max(worker);
                        inner.leases.insert(lease, (row.id, s.shard));
                        open += 1;
                        ShardState::Leased {
                            lease,
                            worker,
                            expires,
                            games: 0,
                        }
                    }
                    _ if state == JobState::Running => {
                        inner.queue.push_back((row.id, s.shard));
                        open += 1;
                        ShardState::Pending
                    }
                    _ => ShardState::Cancelled,
                };
                shards.push(Shard {
                    files: Arc::new(files),
                    state: shard_state,
                    attempts: s.attempts,
                    error: s.error,
                });
            }
            max_job = max_job.max(row.id);
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
                    lease_expiries: 0,
                    total,
                },
            );
        }
        inner.next_job = max_job + 1;
        inner.next_lease = fresh_ids(max_lease);
        inner.next_worker = fresh_ids(max_worker);
        let ended: Vec<u64> = inner
            .jobs
            .iter()
            .filter(|(_, j)| j.state == JobState::Running && j.open == 0)
            .map(|(id, _)| *id)
            .collect();
        let coordinator = Arc::new(Coordinator {
            inner: Mutex::new(inner),
            store,
            config,
            counters: Counters::default(),
            changed: tokio::sync::watch::channel(0).0,
            work: tokio::sync::Notify::new(),
        });
        // Jobs whose last shard ended just before a stop: write their summary now.
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

    /// Checks and plans a job, stores it, and queues its shards.
    ///
    /// # Errors
    /// A request that names no input, paths outside the roots, options that
    /// do not parse, or an output folder another running job writes to.
    pub async fn submit(
        self: &Arc<Self>,
        mut req: v1::SubmitRequest,
    ) -> Result<v1::Job, StateError> {
        let bad = StateError::BadRequest;
        if req.inputs.is_empty() {
            return Err(bad("no inputs: name at least one file or folder".into()));
        }
        if req.inputs.len() > 10_000 {
            return Err(bad(
                "more than 10000 inputs: name their folders instead".into()
            ));
        }
        if req.out.is_empty() {
            return Err(bad("no output folder".into()));
        }
        let roots = &self.config.roots;
        let inputs: Vec<PathBuf> = req.inputs.iter().map(PathBuf::from).collect();
        for p in &inputs {
            roots.check_existing(p).map_err(bad)?;
        }
        let out = PathBuf::from(&req.out);
        roots.check_new(&out).map_err(bad)?;
        let options =
            verdict_proto::run_options(&req.options.clone().unwrap_or_default(), out.clone(), 0)
                .map_err(|e| bad(e.to_string()))?;
        if req.shard_bytes == 0 {
            req.shard_bytes = self.config.shard_bytes;
        }
        {
            let inner = self.lock();
            if let Some((id, _)) = inner
                .jobs
                .iter()
                .find(|(_, j)| j.state == JobState::Running && j.spec.out == req.out)
            {
                return Err(StateError::Conflict(format!(
                    "job {id} is writing to {} already: cancel it or choose another folder",
                    req.out
                )));
            }
        }
        let roots = roots.clone();
        let shard_bytes = req.shard_bytes;
        let out_dir = out.clone();
        let planned = tokio::task::spawn_blocking(move || {
            let p = plan(&inputs, shard_bytes, &roots)?;
            clear_parts(&out_dir);
            Ok::<_, super::plan::PlanError>(p)
        })
        .await
        .map_err(|e| StateError::Internal(e.to_string()))?
        .map_err(|e| bad(e.to_string()))?;
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
            })
            .collect();
        let (id, committed) = {
            let mut inner = self.lock();
            // Checked again: another submit may have taken the folder meanwhile.
            if let Some((other, _)) = inner
                .jobs
                .iter()
                .find(|(_, j)| j.state == JobState::Running && j.spec.out == req.out)
            {
                return Err(StateError::Conflict(format!(
                    "job {other} is writing to {} already: cancel it or choose another folder",
                    req.out
                )));
            }
            let id = inner.next_job;
            inner.next_job += 1;
            let row = JobRow {
                id,
                spec: req.encode_to_vec(),
                state: "running".into(),
                created,
                finished: 0,
                error: String::new(),
                bytes_total: planned.bytes_total,
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
                    })
                    .collect(),
            };
            for n in 0..shards.len() {
                inner.queue.push_back((id, n as u32));
            }
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
                    bytes_total: planned.bytes_total,
                    lease_expiries: 0,
                    total,
                },
            );
            (id, self.store.write_durable(Op::InsertJob(row)))
        };
        let _ = committed.await;
        tracing::info!(job = id, "job submitted");
        self.work.notify_waiters();
        self.bump();
        self.get(id)
    }

    /// # Errors
    /// No such job.
    pub fn get(&self, id: u64) -> Result<v1::Job, StateError> {
        let inner = self.lock();
        let job = inner.jobs.get(&id).ok_or(StateError::NoJob(id))?;
        Ok(snapshot(id, job))
    }

    pub fn list(&self) -> Vec<v1::Job> {
        let inner = self.lock();
        inner.jobs.iter().map(|(id, j)| snapshot(*id, j)).collect()
    }

    /// Stops handing out a job's shards; leased ones are told to stop at
    /// their next heartbeat.
    ///
    /// # Errors
    /// No such job, or it has ended.
    pub async fn cancel(&self, id: u64) -> Result<v1::Job, StateError> {
        let committed = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let job = inner.jobs.get_mut(&id).ok_or(StateError::NoJob(id))?;
            if job.state != JobState::Running {
                return Err(StateError::Conflict(format!(
                    "job {id} has ended ({})",
                    job.state.name()
                )));
            }
            job.state = JobState::Cancelled;
            job.finished = now_unix();
            job.open = 0;
            for s in &mut job.shards {
                if let ShardState::Leased { lease, .. } = s.state {
                    inner.leases.remove(&lease);
                }
                if matches!(s.state, ShardState::Pending | ShardState::Leased { .. }) {
                    s.state = ShardState::Cancelled;
                }
            }
            self.store.write(Op::CancelShards { job: id });
            self.store.write_durable(Op::JobState {
                job: id,
                state: "cancelled".into(),
                finished: job.finished,
                error: String::new(),
            })
        };
        let _ = committed.await;
        tracing::info!(job = id, "job cancelled");
        self.bump();
        self.get(id)
    }

    /// A new worker id.
    pub fn register(&self, name: &str) -> u64 {
        let mut inner = self.lock();
        let id = inner.next_worker;
        inner.next_worker += 1;
        inner.workers.insert(
            id,
            Worker {
                name: name.to_string(),
                last_seen: Instant::now(),
            },
        );
        tracing::info!(worker = id, name, "worker registered");
        id
    }

    /// The next pending shard, leased to `worker`, or `None` when there is
    /// no work.
    pub fn acquire(&self, worker: u64) -> Option<v1::Lease> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let now = Instant::now();
        inner
            .workers
            .entry(worker)
            .and_modify(|w| w.last_seen = now)
            // A worker registered before a restart is welcome as it is.
            .or_insert_with(|| Worker {
                name: String::new(),
                last_seen: now,
            });
        while let Some((job_id, n)) = inner.queue.pop_front() {
            let Some(job) = inner.jobs.get_mut(&job_id) else {
                continue;
            };
            if job.state != JobState::Running {
                continue;
            }
            let shard = &mut job.shards[n as usize];
            if !matches!(shard.state, ShardState::Pending) {
                continue;
            }
            let lease = inner.next_lease;
            inner.next_lease += 1;
            shard.attempts += 1;
            shard.state = ShardState::Leased {
                lease,
                worker,
                expires: now + self.config.lease_ttl,
                games: 0,
            };
            inner.leases.insert(lease, (job_id, n));
            self.store.write(Op::ShardLeased {
                job: job_id,
                shard: n,
                lease,
                worker,
                attempts: shard.attempts,
            });
            self.counters.leases.fetch_add(1, Ordering::Relaxed);
            return Some(v1::Lease {
                lease_id: lease,
                job_id,
                shard: n,
                out: job.spec.out.clone(),
                files: shard.files.to_vec(),
                options: job.spec.options.clone(),
                ttl_ms: self.config.lease_ttl.as_millis() as u32,
            });
        }
        None
    }

    /// [`Coordinator::acquire`], waiting up to `wait` for a shard to be
    /// queued when there is none.
    pub async fn acquire_waiting(&self, worker: u64, wait: Duration) -> Option<v1::Lease> {
        if wait.is_zero() {
            return self.acquire(worker);
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // Registered before looking, so a shard queued in between wakes us.
            let notified = self.work.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(lease) = self.acquire(worker) {
                return Some(lease);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }

    /// Renews a lease; false when it is gone (lapsed, or the job cancelled).
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
                if let Some(w) = inner.workers.get_mut(worker) {
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

    /// Records a shard's summary. Any holder of a lease on the shard may
    /// complete it, even one whose lease lapsed: every run of a shard
    /// writes the same part file and summary.
    ///
    /// # Errors
    /// No such job or shard.
    pub async fn complete(
        self: &Arc<Self>,
        job_id: u64,
        n: u32,
        summary: v1::ShardSummary,
    ) -> Result<(), StateError> {
        let (committed, ended) = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let job = inner
                .jobs
                .get_mut(&job_id)
                .ok_or(StateError::NoJob(job_id))?;
            let shard = job
                .shards
                .get_mut(n as usize)
                .ok_or_else(|| StateError::BadRequest(format!("job {job_id} has no shard {n}")))?;
            if job.state != JobState::Running
                || matches!(shard.state, ShardState::Done(_) | ShardState::Cancelled)
            {
                // Already counted, or no longer wanted: nothing to add.
                return Ok(());
            }
            match shard.state {
                ShardState::Leased { lease, .. } => {
                    inner.leases.remove(&lease);
                    job.open -= 1;
                }
                ShardState::Pending => job.open -= 1,
                _ => {}
            }
            self.counters
                .games
                .fetch_add(summary.games, Ordering::Relaxed);
            self.counters.completions.fetch_add(1, Ordering::Relaxed);
            let committed = self.store.write_durable(Op::ShardDone {
                job: job_id,
                shard: n,
                summary: summary.encode_to_vec(),
            });
            shard.state = ShardState::Done(summary.games);
            shard.error = None;
            verdict_proto::add_summary(&mut job.total, &summary);
            (committed, job.open == 0)
        };
        let _ = committed.await;
        if ended {
            self.clone().finish(job_id);
        }
        self.bump();
        Ok(())
    }

    /// A worker gives a shard up: with `release`, it is stopping (no attempt
    /// counted); otherwise the shard failed with `reason`.
    pub fn fail(self: &Arc<Self>, lease: u64, reason: &str, release: bool) {
        let ended = {
            let mut guard = self.lock();
            let Some((job_id, n)) = guard.leases.remove(&lease) else {
                return;
            };
            if release {
                if let Some(shard) = guard
                    .jobs
                    .get_mut(&job_id)
                    .map(|j| &mut j.shards[n as usize])
                {
                    shard.attempts = shard.attempts.saturating_sub(1);
                }
            } else {
                self.counters.failures.fetch_add(1, Ordering::Relaxed);
            }
            self.give_back(&mut guard, job_id, n, reason)
        };
        if let Some(job_id) = ended {
            self.clone().finish(job_id);
        }
        self.bump();
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
        });
        inner.queue.push_front((job_id, n));
        self.work.notify_waiters();
        None
    }

    /// Ends every lease whose heartbeats stopped.
    pub fn reap(self: &Arc<Self>) {
        let now = Instant::now();
        let mut ended = Vec::new();
        {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let expired: Vec<(u64, u64, u32)> = inner
                .leases
                .iter()
                .filter(|(_, (j, n))| {
                    inner.jobs.get(j).is_some_and(|job| {
                        matches!(job.shards[*n as usize].state,
                            ShardState::Leased { expires, .. } if expires <= now)
                    })
                })
                .map(|(l, (j, n))| (*l, *j, *n))
                .collect();
            for (lease, job, n) in expired {
                inner.leases.remove(&lease);
                self.counters.lease_expiries.fetch_add(1, Ordering::Relaxed);
                if let Some(j) = inner.jobs.get_mut(&job) {
                    j.lease_expiries += 1;
                }
                let reason = format!(
                    "lease {lease} lapsed: no heartbeat for {:?}",
                    self.config.lease_ttl
                );
                ended.extend(self.give_back(inner, job, n, &reason));
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

    /// Writes the job's summary (the sum of its done shards') and ends it.
    fn finish(self: Arc<Self>, job_id: u64) {
        let (out, summary) = {
            let mut inner = self.lock();
            let Some(job) = inner.jobs.get_mut(&job_id) else {
                return;
            };
            if job.state != JobState::Running {
                return;
            }
            job.state = JobState::Finishing;
            (job.options.out.clone(), job.total.clone())
        };
        let this = self.clone();
        // The folder exists unless no shard wrote a part (all failed).
        let write = move || {
            std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            verdict_worker::run::write_summary(&out, &summary).map_err(|e| e.to_string())
        };
        let finish = async move {
            let result = tokio::task::spawn_blocking(write)
                .await
                .map_err(|e| e.to_string())
                .and_then(|r| r);
            let committed = {
                let mut inner = this.lock();
                let Some(job) = inner.jobs.get_mut(&job_id) else {
                    return;
                };
                let failed = job
                    .shards
                    .iter()
                    .any(|s| matches!(s.state, ShardState::Failed));
                job.state = if failed || result.is_err() {
                    JobState::DoneWithFailures
                } else {
                    JobState::Done
                };
                if let Err(e) = result {
                    job.error = format!("cannot write the job summary: {e}");
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
            let _ = committed.await;
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
                    ShardState::Done(_) => "done",
                    ShardState::Failed => "failed",
                    ShardState::Cancelled => "cancelled",
                };
                *g.shards.entry(name).or_default() += 1;
            }
        }
        let recent = (self.config.lease_ttl).max(Duration::from_secs(10));
        g.workers_known = inner.workers.len() as u64;
        g.workers_active = inner
            .workers
            .values()
            .filter(|w| w.last_seen.elapsed() < recent)
            .count() as u64;
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
                ShardState::Done(g) | ShardState::Leased { games: g, .. } => g,
                _ => 0,
            })
            .sum()
    }

    /// Waits until every change made so far is committed.
    pub async fn flush(&self) {
        let _ = self.store.write_durable(Op::Barrier).await;
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
            ShardState::Done(games) => {
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
            let (store, rows) = Store::open(&self.dir.join("state.db")).unwrap();
            let config = Config {
                lease_ttl: Duration::from_millis(ttl_ms),
                max_attempts,
                shard_bytes: 1,
                roots: Roots::new(std::slice::from_ref(&self.dir)).unwrap(),
            };
            Coordinator::new(config, store, rows).unwrap()
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

    async fn ended(c: &Coordinator, id: u64) -> v1::Job {
        for _ in 0..200 {
            let job = c.get(id).unwrap();
            if job.state != v1::JobState::Running as i32 {
                return job;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("job {id} did not end: {:?}", c.get(id));
    }

    #[tokio::test]
    async fn lapsed_leases_are_leased_again_until_the_shard_fails() {
        let f = Fixture::new("lapse");
        let c = f.coordinator(30, 2);
        let job = c.submit(f.request()).await.unwrap();
        // One file per shard (shard_bytes 1, files too small to split).
        assert_eq!(job.shards_total, 3);
        let w = c.register("w");
        let mut leases: Vec<v1::Lease> = (0..3).map(|_| c.acquire(w).unwrap()).collect();
        assert!(c.acquire(w).is_none(), "three shards, three leases");
        for l in &leases[1..] {
            c.complete(l.job_id, l.shard, summary(1)).await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
        c.reap();
        assert!(
            !c.heartbeat(leases[0].lease_id, 0),
            "a lapsed lease is gone"
        );
        let again = c.acquire(w).expect("the lapsed shard is queued again");
        assert_eq!(again.shard, leases[0].shard);
        assert_ne!(again.lease_id, leases[0].lease_id);
        assert!(c.heartbeat(again.lease_id, 5));
        assert_eq!(c.get(job.id).unwrap().games, 2 + 5);
        tokio::time::sleep(Duration::from_millis(40)).await;
        c.reap();
        leases.push(again);
        // Two attempts used: failed, and the job ends reporting it.
        let end = ended(&c, job.id).await;
        assert_eq!(end.state, v1::JobState::DoneWithFailures as i32);
        assert_eq!(end.lease_expiries, 2);
        assert_eq!(end.failures.len(), 1);
        assert_eq!(end.failures[0].attempts, 2);
        assert!(end.failures[0].reason.contains("lapsed"), "{end:?}");
        assert!(f.dir.join("out/summary.json").exists());
    }

    #[tokio::test]
    async fn a_shard_counts_once_whoever_completes_it() {
        let f = Fixture::new("once");
        let c = f.coordinator(30, 5);
        let job = c.submit(f.request()).await.unwrap();
        let (a, b) = (c.register("a"), c.register("b"));
        let slow = c.acquire(a).unwrap();
        tokio::time::sleep(Duration::from_millis(40)).await;
        c.reap();
        let fast = c.acquire(b).unwrap();
        assert_eq!(fast.shard, slow.shard);
        // The slow worker finishes first: accepted (same rows, same summary).
        c.complete(slow.job_id, slow.shard, summary(7))
            .await
            .unwrap();
        assert!(
            !c.heartbeat(fast.lease_id, 1),
            "the other lease is told to stop"
        );
        c.complete(fast.job_id, fast.shard, summary(7))
            .await
            .unwrap();
        assert_eq!(c.get(job.id).unwrap().games, 7, "counted once");
        // A release gives the shard back without counting an attempt.
        let released = c.acquire(a).unwrap();
        c.fail(released.lease_id, "stopping", true);
        let retry = c.acquire(b).unwrap();
        assert_eq!(retry.shard, released.shard);
        c.complete(retry.job_id, retry.shard, summary(1))
            .await
            .unwrap();
        let last = c.acquire(a).unwrap();
        c.complete(last.job_id, last.shard, summary(1))
            .await
            .unwrap();
        let end = ended(&c, job.id).await;
        assert_eq!(end.state, v1::JobState::Done as i32, "{end:?}");
        assert_eq!(end.games, 9);
        assert!(matches!(
            c.cancel(job.id).await,
            Err(StateError::Conflict(_))
        ));
    }

    #[tokio::test]
    async fn a_restart_keeps_jobs_done_shards_and_live_leases() {
        let f = Fixture::new("restart");
        let (job, held) = {
            let c = f.coordinator(60_000, 3);
            let job = c.submit(f.request()).await.unwrap();
            let w = c.register("w");
            let done = c.acquire(w).unwrap();
            c.complete(done.job_id, done.shard, summary(4))
                .await
                .unwrap();
            let held = c.acquire(w).unwrap();
            c.flush().await;
            (job, held)
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
        let w = c.register("new");
        let next = c.acquire(w).unwrap();
        assert!(next.lease_id > held.lease_id, "lease ids are never reused");
        c.complete(held.job_id, held.shard, summary(3))
            .await
            .unwrap();
        c.complete(next.job_id, next.shard, summary(3))
            .await
            .unwrap();
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
        let w = c.register("w");
        let idle = Instant::now();
        assert!(c
            .acquire_waiting(w, Duration::from_millis(50))
            .await
            .is_none());
        assert!(idle.elapsed() >= Duration::from_millis(50));
        let start = Instant::now();
        let waiter = {
            let c = c.clone();
            tokio::spawn(async move { c.acquire_waiting(w, Duration::from_secs(20)).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let job = c.submit(f.request()).await.unwrap();
        let lease = waiter.await.unwrap().expect("woken with a lease");
        assert_eq!(lease.job_id, job.id);
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
