//! Workers and leases: register, acquire (and the long poll), heartbeat,
//! complete, fail, and the reaper that ends leases whose heartbeats
//! stopped, forgets workers long unseen and jobs past their retention.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use verdict_proto::v1;
use verdict_worker::ids::random_u64;
use verdict_worker::summary::Summary;

use super::super::auth::cut;
use super::super::store::{Op, SweepRow};
use super::clock::since;
use super::{
    fresh_lease, limits, wire, Clock, Coordinator, Inner, JobStaging, JobState, ShardState,
    StateError, Worker,
};

impl Coordinator {
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
        Self::touch(&mut inner, &*self.clock, id, Some(name));
        tracing::info!(worker = id, name, "worker registered");
        Ok(id)
    }

    /// Notes a worker as seen, remembering at most [`limits::WORKERS`].
    fn touch(inner: &mut Inner, clock: &dyn Clock, id: u64, name: Option<&str>) {
        let now = clock.now();
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
        let now = self.clock.now();
        // A worker registered before a restart is welcome as it is.
        Self::touch(inner, &*self.clock, worker, None);
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
            return Ok(Some(wire::lease(
                lease,
                job_id,
                n,
                job,
                self.config.lease_ttl,
            )));
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
                let now = self.clock.now();
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
        summary: Summary,
    ) -> Result<(), StateError> {
        self.writable()?;
        let (durable, ended) = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            if inner.leases.get(&lease) != Some(&(job_id, n)) {
                self.counters
                    .refused_completions
                    .fetch_add(1, Ordering::Relaxed);
                return Err(StateError::Lease {
                    lease,
                    job: job_id,
                    shard: n,
                });
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
            shard.state = ShardState::Done {
                games: summary.games,
                lease,
            };
            shard.error = None;
            job.total.merge(&summary);
            let durable = self.store.write_durable(Op::ShardDone {
                job: job_id,
                shard: n,
                lease,
                summary: Box::new(summary),
            });
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
        let now = self.clock.now();
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
            if self.serving() {
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
                    let cutoff = self.clock.unix() - keep.as_secs() as i64;
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
            let clock = &*self.clock;
            inner
                .workers
                .retain(|_, w| since(clock, w.last_seen) < unseen);
            // Taken out while they are worked on, so a tick that comes
            // before they are done does not start them twice.
            let today = self.clock.unix();
            let (due, later): (Vec<SweepRow>, Vec<SweepRow>) = std::mem::take(&mut inner.sweep)
                .into_iter()
                .partition(|r| r.due <= today);
            inner.sweep = later;
            due
        };
        if !sweep.is_empty() {
            let this = self.clone();
            if let Ok(h) = tokio::runtime::Handle::try_current() {
                h.spawn_blocking(move || {
                    for row in sweep {
                        if JobStaging::sweep(Path::new(&row.out), &row.name) {
                            tracing::info!(out = %row.out, name = %row.name, "staging place removed");
                            this.store.write(Op::Swept(row));
                        } else {
                            this.lock().sweep.push(row);
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
}
