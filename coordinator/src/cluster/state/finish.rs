//! The end of a job: once every shard has ended, its parts are checked
//! (each done shard's accepted part there, holding the rows its completion
//! reported) and published in one step, or withheld when shards failed;
//! parts found missing send their shards back to run.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use verdict_worker::publish::{part_name, staged_part_name};
use verdict_worker::row::SCHEMA_VERSION;
use verdict_worker::summary::Summary;

use super::super::store::{Op, Store};
use super::{Clock, Coordinator, JobStaging, JobState, ShardState};

/// What `finish` checks and publishes, taken out of the lock.
struct Finishing {
    job: u64,
    out: PathBuf,
    staging: Option<JobStaging>,
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
    BadParts(Vec<(u32, String)>, Box<Summary>, Option<JobStaging>),
    Failed(String),
}

impl Finishing {
    /// Checks every done shard's part and publishes them (blocking I/O).
    fn run(self, coordinator: u64, store: &dyn Store, clock: &dyn Clock) -> Published {
        let Some(staging) = self.staging else {
            return Published::Failed("the job's staging folder could not be opened".into());
        };
        if self.failed > 0 {
            let _ = staging.discard();
            return Published::Withheld(self.failed);
        }
        // Published already, by this job, before a restart could record it.
        if JobStaging::published(&self.out).is_some_and(|m| {
            m["job"] == self.job && m["coordinator"] == format!("{coordinator:016x}")
        }) {
            let _ = staging.discard();
            return Published::Done;
        }
        let mut bad = Vec::new();
        for &(shard, lease, games) in &self.done {
            let name = staged_part_name(shard, lease);
            let rows = staging.rows_of(&name);
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
                        total.merge(s);
                    }
                    Published::BadParts(bad, Box::new(total), Some(staging))
                }
                Err(e) => Published::Failed(format!(
                    "parts are missing and the state file cannot be read to run them again: {e}"
                )),
            };
        }
        let moves: Vec<(String, String)> = self
            .done
            .iter()
            .map(|&(s, l, _)| (staged_part_name(s, l), part_name(s)))
            .collect();
        let parts: Vec<(String, u64)> = self
            .done
            .iter()
            .map(|&(s, _, g)| (part_name(s), g))
            .collect();
        let mut manifest = self.manifest;
        manifest.insert("published_unix".into(), clock.unix().into());
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
    /// Checks a job's parts and publishes its output ([`Finishing::run`]),
    /// then ends it; parts found missing send their shards back to run.
    pub(super) fn finish(self: Arc<Self>, job_id: u64) {
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
                verdict_worker::run::options_json(&job.spec.options),
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
            let clock = this.clock.clone();
            let coordinator = this.id;
            let published =
                tokio::task::spawn_blocking(move || prepared.run(coordinator, &*store, &*clock))
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
                job.finished = this.clock.unix();
                tracing::info!(job = job_id, state = job.state.name(), "job finished");
                let durable = this.store.write_durable(Op::JobState {
                    job: job_id,
                    state: job.state.name().into(),
                    finished: job.finished,
                    error: job.error.clone(),
                });
                // A lapsed lease's worker may still put its part after the
                // staging place was removed.
                this.sweep_late_puts(inner, job_id);
                durable
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
}
