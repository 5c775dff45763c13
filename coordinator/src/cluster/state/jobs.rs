//! Jobs: what was submitted ([`JobSpec`]), and submit, get, list, cancel
//! and delete.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use verdict_proto::v1;
use verdict_worker::run::RunOptions;
use verdict_worker::summary::Summary;

use super::super::auth::{cut, shown};
use super::super::plan::plan;
use super::super::store::{Durable, JobRow, Op, ShardRow};
use super::limits::{self, check_limits};
use super::wire::snapshot;
use super::{
    clock::since, staging_name, Coordinator, Inner, Job, JobStaging, JobState, Shard, ShardState,
    StateError,
};

/// A job as submitted, after the coordinator resolved its paths.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// The inputs, resolved, each once.
    pub inputs: Vec<String>,
    /// The output folder, resolved.
    pub out: String,
    /// How its games are analysed (writing to `out`).
    pub options: RunOptions,
    /// Target shard size in bytes.
    pub shard_bytes: u64,
    pub label: String,
}

impl JobSpec {
    /// The spec a submit request means.
    ///
    /// # Errors
    /// Analysis options that do not parse.
    pub fn from_wire(req: &v1::SubmitRequest) -> Result<JobSpec, verdict_proto::ConvertError> {
        let options = verdict_proto::run_options(
            &req.options.clone().unwrap_or_default(),
            PathBuf::from(&req.out),
            0,
        )?;
        Ok(JobSpec {
            inputs: req.inputs.clone(),
            out: req.out.clone(),
            options,
            shard_bytes: req.shard_bytes,
            label: req.label.clone(),
        })
    }

    /// The submit request that means this spec (how it is stored).
    pub fn to_wire(&self) -> v1::SubmitRequest {
        v1::SubmitRequest {
            inputs: self.inputs.clone(),
            out: self.out.clone(),
            options: Some((&self.options).into()),
            shard_bytes: self.shard_bytes,
            label: self.label.clone(),
        }
    }
}

/// Whether two folders are one, or one holds the other.
fn overlap(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

impl Coordinator {
    /// Checks and plans a job, stores it, and queues its shards.
    ///
    /// # Errors
    /// A request over a limit or naming no input, paths outside the roots,
    /// options that do not parse, an output folder another running job
    /// writes to (or inside or around it), or a state file that cannot be
    /// written.
    pub async fn submit(self: &Arc<Self>, req: v1::SubmitRequest) -> Result<v1::Job, StateError> {
        self.writable()?;
        check_limits(&req)?;
        let bad = StateError::BadRequest;
        let roots = self.config.roots.clone();
        let mut inputs: Vec<PathBuf> = Vec::with_capacity(req.inputs.len());
        for p in &req.inputs {
            let resolved = roots.resolve_existing(Path::new(p))?;
            if !inputs.contains(&resolved) {
                inputs.push(resolved);
            }
        }
        let out = roots.resolve_new(Path::new(&req.out))?;
        if let Some(i) = inputs.iter().find(|i| i.starts_with(&out)) {
            return Err(bad(format!(
                "the output folder {} holds the input {}: write the output elsewhere",
                shown(&out),
                shown(i)
            )));
        }
        let spec = JobSpec {
            inputs: inputs.iter().map(|p| p.display().to_string()).collect(),
            out: out.display().to_string(),
            options: verdict_proto::run_options(
                &req.options.clone().unwrap_or_default(),
                out.clone(),
                0,
            )?,
            shard_bytes: match req.shard_bytes {
                0 => self.config.shard_bytes,
                n => n,
            },
            label: req.label,
        };
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
        let shard_bytes = spec.shard_bytes;
        let out_dir = out.clone();
        let name = staging_name(self.id, id);
        let (planned, staging) = tokio::task::spawn_blocking(move || {
            JobStaging::check_out(&out_dir)?;
            let p = plan(&inputs, shard_bytes, &roots)?;
            let staging = JobStaging::open(&out_dir, &name)?;
            Ok::<_, StateError>((p, staging))
        })
        .await
        .map_err(|e| StateError::Internal(e.to_string()))??;
        let created = self.clock.unix();
        let total = verdict_proto::empty_summary(&spec.options);
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
                    spec,
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
        spec: JobSpec,
        shards: Vec<Shard>,
        created: i64,
        bytes_total: u64,
        total: Summary,
        out: PathBuf,
        staging: JobStaging,
    ) -> Durable {
        let row = JobRow {
            id,
            spec: spec.clone(),
            state: "running".into(),
            created,
            finished: 0,
            error: String::new(),
            bytes_total,
            lease_expiries: 0,
            shards: shards
                .iter()
                .enumerate()
                .map(|(n, s)| ShardRow::pending(n as u32, s.files.to_vec()))
                .collect(),
        };
        inner.jobs.insert(
            id,
            Job {
                spec,
                state: JobState::Running,
                open: shards.len(),
                shards,
                created,
                finished: 0,
                error: String::new(),
                bytes_total,
                lease_expiries: 0,
                total,
                staging_path: staging.path(),
                out,
                staging: Some(staging),
            },
        );
        self.store.write_durable(Op::InsertJob(Box::new(row)))
    }

    /// Refuses an output folder that a live job writes to, or that holds
    /// one or lies inside one.
    fn conflict(inner: &Inner, out: &Path) -> Result<(), StateError> {
        match inner
            .jobs
            .iter()
            .find(|(_, j)| j.state.live() && overlap(&j.out, out))
        {
            Some((id, j)) if j.out == out => Err(StateError::FolderTaken {
                job: *id,
                out: out.to_path_buf(),
            }),
            Some((id, j)) => Err(StateError::FolderOverlaps {
                job: *id,
                theirs: j.out.clone(),
                ours: out.to_path_buf(),
            }),
            None => Ok(()),
        }
    }

    pub(super) fn active_workers(&self, inner: &Inner) -> u32 {
        let recent = self
            .config
            .lease_ttl
            .max(std::time::Duration::from_secs(10));
        inner
            .workers
            .values()
            .filter(|w| since(&*self.clock, w.last_seen) < recent)
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
                return Err(StateError::Ended {
                    job: id,
                    state: job.state.name(),
                });
            }
            job.state = JobState::Cancelled;
            job.finished = self.clock.unix();
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
                let mut inner = self.lock();
                self.sweep_later(&mut inner, &out, &name, std::time::Duration::ZERO);
            }
        }
        // A worker still at a shard of it may put its part after that.
        {
            let mut inner = self.lock();
            self.sweep_late_puts(&mut inner, id);
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
                return Err(StateError::Running { job: id });
            }
            Self::forget(inner, id);
            self.store.write_durable(Op::DeleteJob { job: id })
        };
        self.committed(durable).await?;
        tracing::info!(job = id, "job deleted");
        self.bump();
        Ok(())
    }

    pub(super) fn forget(inner: &mut Inner, id: u64) {
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
}
