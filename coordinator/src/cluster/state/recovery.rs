//! The state rebuilt from what a store holds: at start, and after the state
//! file could not be written (the coordinator refuses changes until a write
//! goes through again, then rebuilds everything from the file).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use verdict_worker::publish;

use super::super::store::{Durable, Loaded, Op};
use super::{
    staging_name, Clock, Config, Coordinator, Inner, Job, JobStaging, JobState, Shard, ShardState,
    StateError,
};

/// What rebuilding found beside the state itself.
#[derive(Debug, Default)]
pub(super) struct Rebuilt {
    /// Running jobs whose shards had all ended: checked and published next.
    pub ended: Vec<u64>,
    /// Changes the store is to be told of: shards whose files cannot be
    /// read back (a game range of protocol 2 and before) fail at once.
    pub fixes: Vec<Op>,
}

/// The state stored jobs are rebuilt into. Leased shards get a fresh lease
/// period from now, so live workers carry on; `stagings` are the staging
/// folders (locked) of running jobs already open.
pub(super) fn build(
    config: &Config,
    clock: &dyn Clock,
    loaded: Loaded,
    stagings: &mut HashMap<u64, JobStaging>,
) -> Result<(Inner, Rebuilt), StateError> {
    let mut inner = Inner::default();
    let mut rebuilt = Rebuilt::default();
    let expires = clock.now() + config.lease_ttl;
    let mut max_job = 0;
    inner.sweep = loaded.sweeps;
    for row in loaded.jobs {
        let spec = row.spec;
        let out = PathBuf::from(&spec.out);
        let state = match row.state.as_str() {
            "done" => JobState::Done,
            "done_with_failures" => JobState::DoneWithFailures,
            "cancelled" => JobState::Cancelled,
            _ => JobState::Running,
        };
        let running = state == JobState::Running;
        let mut shards = Vec::with_capacity(row.shards.len());
        let mut open = 0;
        let mut total = verdict_proto::empty_summary(&spec.options);
        for s in row.shards {
            let mut issued = if running { s.issued } else { Vec::new() };
            let mut error = s.error;
            let shard_state = match s.state.as_str() {
                "done" => {
                    let summary = s.summary.unwrap_or_default();
                    total.merge(&summary);
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
                _ if running && s.unreadable.is_some() => {
                    let why = s.unreadable.unwrap_or_default();
                    issued.clear();
                    rebuilt.fixes.push(Op::ShardFailed {
                        job: row.id,
                        shard: s.shard,
                        attempts: s.attempts,
                        error: why.clone(),
                    });
                    error = Some(why);
                    ShardState::Failed
                }
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
                files: Arc::new(s.files),
                state: shard_state,
                attempts: s.attempts,
                error,
                issued,
            });
        }
        max_job = max_job.max(row.id);
        let name = staging_name(loaded.coordinator, row.id);
        let staging_path = if verdict_worker::objects::is_url(&out) {
            verdict_worker::objects::ObjectUrl::parse(&out)
                .map(|u| u.join(publish::STAGING).join(&name).to_path())
                .unwrap_or_default()
        } else {
            out.join(publish::STAGING).join(&name)
        };
        let staging = if running {
            match stagings.remove(&row.id) {
                Some(s) => Some(s),
                None => match JobStaging::open(&out, &name) {
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
            rebuilt.ended.push(row.id);
        }
        inner.jobs.insert(
            row.id,
            Job {
                spec,
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
    Ok((inner, rebuilt))
}

impl Coordinator {
    /// Refuses changes while the state file cannot be written.
    pub(super) fn writable(&self) -> Result<(), StateError> {
        if let Some(why) = self.store.failure() {
            self.degrade(&why);
        }
        match &*self.degraded.borrow() {
            None => Ok(()),
            Some(why) => Err(StateError::Unavailable(why.clone())),
        }
    }

    /// Whether changes can be written now (the reaper writes nothing while
    /// they cannot: a degraded coordinator keeps its leases until rebuilt).
    pub(super) fn serving(&self) -> bool {
        self.store.failure().is_none() && self.degraded.borrow().is_none()
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
    pub(super) async fn committed(&self, durable: Durable) -> Result<(), StateError> {
        durable.committed().await.map_err(|e| {
            let why = e.to_string();
            self.degrade(&why);
            StateError::Unavailable(why)
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
        let mut stagings: HashMap<u64, JobStaging> = {
            let mut inner = self.lock();
            inner
                .jobs
                .iter_mut()
                .filter_map(|(id, j)| j.staging.take().map(|s| (*id, s)))
                .collect()
        };
        let config = self.config.clone();
        let clock = self.clock.clone();
        let built =
            tokio::task::spawn_blocking(move || build(&config, &*clock, loaded, &mut stagings))
                .await;
        let (new, rebuilt) = match built {
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
            // Those queued while the file refused writes are written now;
            // those the file holds are kept (removing twice is harmless).
            for row in sweep {
                if !inner.sweep.contains(&row) {
                    self.store.write(Op::SweepDue(row.clone()));
                    inner.sweep.push(row);
                }
            }
        }
        for op in rebuilt.fixes {
            self.store.write(op);
        }
        self.degraded.send_replace(None);
        tracing::info!("state rebuilt from the state file: serving again");
        for id in rebuilt.ended {
            self.clone().finish(id);
        }
        self.work.notify_waiters();
        self.bump();
        true
    }
}
