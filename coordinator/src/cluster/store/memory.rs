//! [`MemoryStore`]: the store's operations on maps, for unit tests of the
//! state. Clones share one "file", so a test can stop a coordinator and
//! start another on what the first wrote; [`MemoryStore::break_disk`] makes
//! every write fail, as a full disk would, until [`MemoryStore::fix_disk`].

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use verdict_worker::summary::Summary;

use super::{Durable, JobRow, Loaded, Op, Recovery, ShardRow, Store, StoreError, SweepRow};

#[derive(Debug, Default)]
struct File {
    coordinator: u64,
    jobs: BTreeMap<u64, JobRow>,
    sweeps: Vec<SweepRow>,
    /// Why the "disk" refuses writes, while it does.
    broken: Option<String>,
    /// Why the store refuses changes, from the first failed write until a
    /// recovery (as the SQLite writer does).
    failed: Option<String>,
    errors: u64,
}

/// A store in memory; clones share it.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore(Arc<Mutex<File>>);

impl MemoryStore {
    /// An empty store with this coordinator id.
    pub fn new(coordinator: u64) -> MemoryStore {
        MemoryStore(Arc::new(Mutex::new(File {
            coordinator,
            ..File::default()
        })))
    }

    fn file(&self) -> MutexGuard<'_, File> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the store holds, as a coordinator starting on it reads it.
    pub fn load(&self) -> Loaded {
        let f = self.file();
        Loaded {
            coordinator: f.coordinator,
            jobs: f.jobs.values().cloned().collect(),
            sweeps: f.sweeps.clone(),
        }
    }

    /// From now on every write fails with `why`.
    pub fn break_disk(&self, why: &str) {
        self.file().broken = Some(why.to_string());
    }

    /// Writes can go through again (once a recovery has proved it).
    pub fn fix_disk(&self) {
        self.file().broken = None;
    }

    fn commit(&self, op: Op) -> Result<(), String> {
        let mut f = self.file();
        if let Some(why) = &f.failed {
            return Err(why.clone());
        }
        if let Some(why) = f.broken.clone() {
            f.errors += 1;
            f.failed = Some(why.clone());
            return Err(why);
        }
        match op {
            Op::SweepDue(row) => {
                if !f.sweeps.contains(&row) {
                    f.sweeps.push(row);
                }
            }
            Op::Swept(row) => f.sweeps.retain(|r| *r != row),
            op => apply(&mut f.jobs, op),
        }
        Ok(())
    }
}

fn apply(jobs: &mut BTreeMap<u64, JobRow>, op: Op) {
    fn shard(jobs: &mut BTreeMap<u64, JobRow>, job: u64, n: u32) -> Option<&mut ShardRow> {
        jobs.get_mut(&job)
            .and_then(|j| j.shards.iter_mut().find(|s| s.shard == n))
    }
    match op {
        Op::InsertJob(row) => {
            jobs.insert(row.id, *row);
        }
        Op::ShardLeased {
            job,
            shard: n,
            lease,
            worker,
            attempts,
            issued,
        } => {
            if let Some(s) = shard(jobs, job, n) {
                s.state = "leased".into();
                s.lease = Some(lease);
                s.worker = Some(worker);
                s.attempts = attempts;
                s.issued = issued;
            }
        }
        Op::ShardPending {
            job,
            shard: n,
            attempts,
            error,
            issued,
        } => {
            if let Some(s) = shard(jobs, job, n) {
                s.state = "pending".into();
                s.lease = None;
                s.worker = None;
                s.attempts = attempts;
                s.error = error;
                s.issued = issued;
            }
        }
        Op::ShardDone {
            job,
            shard: n,
            lease,
            summary,
        } => {
            if let Some(s) = shard(jobs, job, n) {
                s.state = "done".into();
                s.lease = Some(lease);
                s.summary = Some(*summary);
                s.issued.clear();
            }
        }
        Op::ShardFailed {
            job,
            shard: n,
            attempts,
            error,
        } => {
            if let Some(s) = shard(jobs, job, n) {
                s.state = "failed".into();
                s.lease = None;
                s.attempts = attempts;
                s.error = Some(error);
                s.issued.clear();
            }
        }
        Op::JobState {
            job,
            state,
            finished,
            error,
        } => {
            if let Some(j) = jobs.get_mut(&job) {
                j.state = state;
                j.finished = finished;
                j.error = error;
            }
        }
        Op::JobExpiries {
            job,
            lease_expiries,
        } => {
            if let Some(j) = jobs.get_mut(&job) {
                j.lease_expiries = lease_expiries;
            }
        }
        Op::CancelShards { job } => {
            if let Some(j) = jobs.get_mut(&job) {
                for s in &mut j.shards {
                    if s.state == "pending" || s.state == "leased" {
                        s.state = "cancelled".into();
                        s.lease = None;
                        s.issued.clear();
                    }
                }
            }
        }
        Op::DeleteJob { job } => {
            jobs.remove(&job);
        }
        Op::SweepDue(_) | Op::Swept(_) | Op::Barrier => {}
    }
}

impl Store for MemoryStore {
    fn write(&self, op: Op) {
        let _ = self.commit(op);
    }

    fn write_durable(&self, op: Op) -> Durable {
        Durable::ready(self.commit(op))
    }

    fn failure(&self) -> Option<String> {
        self.file().failed.clone()
    }

    fn write_errors(&self) -> u64 {
        self.file().errors
    }

    fn read_summaries(&self, job: u64, shards: &[u32]) -> Result<Vec<Summary>, StoreError> {
        let f = self.file();
        Ok(shards
            .iter()
            .map(|n| {
                f.jobs
                    .get(&job)
                    .and_then(|j| j.shards.iter().find(|s| s.shard == *n))
                    .and_then(|s| s.summary.clone())
                    .unwrap_or_default()
            })
            .collect())
    }

    fn recover(&self) -> Recovery {
        let this = self.clone();
        Box::pin(async move {
            let mut f = this.file();
            if let Some(why) = &f.broken {
                return Err(StoreError::Failed(why.clone()));
            }
            f.failed = None;
            drop(f);
            Ok(this.load())
        })
    }
}
