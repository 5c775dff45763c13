//! The `verdict.v1` views of the state: a job as `Get`, `List` and `Watch`
//! show it, and a lease as `Acquire` hands it out. Everything else the
//! state holds is domain types; conversions of those are in `verdict-proto`.

use verdict_proto::v1;

use super::{Job, JobState, ShardState};

fn state(s: JobState) -> v1::JobState {
    match s {
        JobState::Running | JobState::Finishing => v1::JobState::Running,
        JobState::Done => v1::JobState::Done,
        JobState::DoneWithFailures => v1::JobState::DoneWithFailures,
        JobState::Cancelled => v1::JobState::Cancelled,
    }
}

/// The lease `lease_id` on shard `n` of `job`, as a worker receives it.
pub(super) fn lease(
    lease_id: u64,
    job_id: u64,
    n: u32,
    job: &Job,
    ttl: std::time::Duration,
) -> v1::Lease {
    let shard = &job.shards[n as usize];
    v1::Lease {
        lease_id,
        job_id,
        shard: n,
        out: job.spec.out.clone(),
        files: shard.files.iter().map(v1::ShardFile::from).collect(),
        options: Some((&job.spec.options).into()),
        ttl_ms: ttl.as_millis() as u32,
        staging: job.staging_path.display().to_string(),
    }
}

pub(super) fn snapshot(id: u64, job: &Job) -> v1::Job {
    let mut out = v1::Job {
        id,
        state: state(job.state) as i32,
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
