//! Why a request to the coordinator's state was refused. The gRPC layer
//! (`server.rs`) maps each kind to a status code; the messages say what to
//! do and never echo more than a few hundred characters of a request.

use std::path::PathBuf;

use verdict_proto::ConvertError;
use verdict_worker::publish::OutError;

use super::super::auth::{shown, PathError};
use super::super::plan::PlanError;

/// Why a request was refused.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A request over a limit, naming nothing, or an output folder that
    /// holds an input (`INVALID_ARGUMENT`).
    #[error("{0}")]
    BadRequest(String),
    /// A path that is relative, unreadable or outside the roots
    /// (`INVALID_ARGUMENT`).
    #[error(transparent)]
    Path(#[from] PathError),
    /// Analysis options that do not parse (`INVALID_ARGUMENT`).
    #[error(transparent)]
    Options(#[from] ConvertError),
    /// Inputs that cannot be planned into shards (`INVALID_ARGUMENT`).
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// An output folder verdict will not write into (`INVALID_ARGUMENT`).
    #[error(transparent)]
    Output(#[from] OutError),
    /// `NOT_FOUND`.
    #[error("no job {0}")]
    NoJob(u64),
    /// A live job writes to that folder already (`FAILED_PRECONDITION`).
    #[error("job {job} is writing to {} already: cancel it or choose another folder", shown(.out))]
    FolderTaken { job: u64, out: PathBuf },
    /// A live job writes inside or around that folder (`FAILED_PRECONDITION`).
    #[error("job {job} is writing to {}, which holds or lies inside {}: choose a folder apart from it", shown(.theirs), shown(.ours))]
    FolderOverlaps {
        job: u64,
        theirs: PathBuf,
        ours: PathBuf,
    },
    /// Cancelling a job that has ended (`FAILED_PRECONDITION`).
    #[error("job {job} has ended ({state}), or is publishing its output")]
    Ended { job: u64, state: &'static str },
    /// Deleting a job that still runs (`FAILED_PRECONDITION`).
    #[error("job {job} is running: cancel it first")]
    Running { job: u64 },
    /// A lease that was not issued for what it claims, or is no longer
    /// current: final, not worth retrying (`FAILED_PRECONDITION`).
    #[error("lease {lease:016x} is not one issued for job {job} shard {shard}, or another lease completed that shard: this part is not used")]
    Lease { lease: u64, job: u64, shard: u32 },
    /// The state file cannot be written: try again later (`UNAVAILABLE`).
    #[error("the coordinator cannot write its state file ({0}); it refuses changes until it can: free space or fix the state disk, and try again")]
    Unavailable(String),
    /// `INTERNAL`.
    #[error("{0}")]
    Internal(String),
}

impl StateError {
    /// Whether this is a conflict with the state of a job or a lease
    /// (`FAILED_PRECONDITION`).
    pub fn is_conflict(&self) -> bool {
        matches!(
            self,
            StateError::FolderTaken { .. }
                | StateError::FolderOverlaps { .. }
                | StateError::Ended { .. }
                | StateError::Running { .. }
                | StateError::Lease { .. }
        )
    }
}
