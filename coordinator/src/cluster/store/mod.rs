//! The coordinator's durable state, behind the [`Store`] trait.
//!
//! The in-memory state ([`super::state`]) serves requests; every change is
//! also sent to a store as an [`Op`]. A change an RPC answers for is written
//! durably ([`Store::write_durable`]), and the RPC answers success only once
//! it is committed. The store speaks domain types (job specs, shard files,
//! summaries); how they are encoded is its own business.
//!
//! - [`SqliteStore`], the real one: an embedded SQLite database (WAL,
//!   `synchronous=NORMAL`) written by one thread in group commits, locked
//!   for one coordinator at a time.
//! - `MemoryStore` (tests only): the same operations on maps, with a disk
//!   that can be made to fail, so the state's logic is tested without files.
//!
//! The state file is the truth. When a transaction fails (a full disk, a
//! file made read-only), a store refuses every later change at once until
//! [`Store::recover`] succeeds, which proves a write goes through again and
//! hands back what the file holds, so the coordinator rebuilds its memory
//! from it. Nothing answered as done is ever lost that way, and nothing
//! refused is half kept.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::oneshot;
use verdict_worker::engine::ShardFile;
use verdict_worker::summary::Summary;

use super::state::JobSpec;

#[cfg(test)]
mod memory;
mod sqlite;

#[cfg(test)]
pub use memory::MemoryStore;
pub use sqlite::SqliteStore;

/// Why the state file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("state database {path}: {source}")]
    Sqlite {
        path: String,
        source: rusqlite::Error,
    },
    #[error("state database {path}: cannot decode {what}: {why}")]
    Corrupt {
        path: String,
        what: &'static str,
        why: String,
    },
    #[error("state database {path} was written by schema version {found}, this verdict reads {expected} (and upgrades 1)")]
    Schema {
        path: String,
        found: i64,
        expected: i64,
    },
    #[error("another coordinator is using the state file {path} (it holds {lock}): stop it first, or give this one a state file of its own")]
    Locked { path: String, lock: String },
    #[error("cannot lock the state file {path}: {source}")]
    Lock {
        path: String,
        source: std::io::Error,
    },
    #[error("the state file cannot be written: {0}")]
    Failed(String),
}

/// A shard as stored.
#[derive(Debug, Clone)]
pub struct ShardRow {
    pub shard: u32,
    pub files: Vec<ShardFile>,
    /// `pending`, `leased`, `done`, `failed` or `cancelled`.
    pub state: String,
    pub attempts: u32,
    /// The live lease (leased), or the accepted one (done).
    pub lease: Option<u64>,
    pub worker: Option<u64>,
    /// Its summary once done.
    pub summary: Option<Summary>,
    pub error: Option<String>,
    /// Every lease issued for the shard that may still complete it.
    pub issued: Vec<u64>,
    /// Why its files cannot be read back (a game range of protocol 2 and before): the
    /// shard cannot run, and fails when its job is loaded.
    pub unreadable: Option<String>,
}

impl ShardRow {
    /// A shard as a job is stored: pending, never leased.
    pub fn pending(shard: u32, files: Vec<ShardFile>) -> ShardRow {
        ShardRow {
            shard,
            files,
            state: "pending".into(),
            attempts: 0,
            lease: None,
            worker: None,
            summary: None,
            error: None,
            issued: Vec::new(),
            unreadable: None,
        }
    }
}

/// A job as stored, with its shards.
#[derive(Debug, Clone)]
pub struct JobRow {
    pub id: u64,
    /// What was submitted, after the coordinator resolved it.
    pub spec: JobSpec,
    /// `running`, `done`, `done_with_failures` or `cancelled`.
    pub state: String,
    pub created: i64,
    pub finished: i64,
    pub error: String,
    pub bytes_total: u64,
    pub lease_expiries: u64,
    pub shards: Vec<ShardRow>,
}

/// What the state file held at open (or at a recovery).
#[derive(Debug, Clone)]
pub struct Loaded {
    /// This state file's coordinator id: names its jobs' staging folders,
    /// so those of another state file's coordinator are never taken for its
    /// own.
    pub coordinator: u64,
    pub jobs: Vec<JobRow>,
    /// Staging places of ended jobs still to be removed.
    pub sweeps: Vec<SweepRow>,
}

/// A staging place of an ended job to remove once `due` (Unix seconds) has
/// come: `out`'s `_staging/name`. A job's place is removed when it ends;
/// in a bucket a late worker can still put its part there afterwards
/// (objects need no folder), so it is removed again later. Stored, so a
/// coordinator restarted in between still does it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepRow {
    pub out: String,
    pub name: String,
    pub due: i64,
}

/// One change to write.
#[derive(Debug)]
pub enum Op {
    InsertJob(Box<JobRow>),
    ShardLeased {
        job: u64,
        shard: u32,
        lease: u64,
        worker: u64,
        attempts: u32,
        issued: Vec<u64>,
    },
    /// Back to pending (lease lapsed, failed with attempts left, released,
    /// or its part was missing at the end).
    ShardPending {
        job: u64,
        shard: u32,
        attempts: u32,
        error: Option<String>,
        issued: Vec<u64>,
    },
    ShardDone {
        job: u64,
        shard: u32,
        lease: u64,
        summary: Box<Summary>,
    },
    ShardFailed {
        job: u64,
        shard: u32,
        attempts: u32,
        error: String,
    },
    JobState {
        job: u64,
        state: String,
        finished: i64,
        error: String,
    },
    JobExpiries {
        job: u64,
        lease_expiries: u64,
    },
    /// Pending and leased shards of a cancelled job.
    CancelShards {
        job: u64,
    },
    DeleteJob {
        job: u64,
    },
    /// A staging place to remove once due.
    SweepDue(SweepRow),
    /// That one is removed.
    Swept(SweepRow),
    /// Nothing: written durably, it tells when everything before it is.
    Barrier,
}

/// What a recovery hands back, once it is done.
pub type Recovery = Pin<Box<dyn Future<Output = Result<Loaded, StoreError>> + Send>>;

/// Where the coordinator's changes go, and what it reads back.
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Queues a change; it is committed shortly, with whatever else queued.
    /// A change that must not be lost goes through [`Store::write_durable`].
    fn write(&self, op: Op);

    /// Queues a change; the result tells when it is committed, or why not.
    fn write_durable(&self, op: Op) -> Durable;

    /// Why the state file cannot be written now, if it cannot.
    fn failure(&self) -> Option<String>;

    /// Failed transactions since start.
    fn write_errors(&self) -> u64;

    /// The stored summaries of some done shards of a job (blocking).
    ///
    /// # Errors
    /// The file cannot be read, or holds a summary that does not decode.
    fn read_summaries(&self, job: u64, shards: &[u32]) -> Result<Vec<Summary>, StoreError>;

    /// After a failure: proves that a write goes through again and returns
    /// what the state file holds (an error while it still cannot).
    fn recover(&self) -> Recovery;
}

/// A change on its way to the state file.
#[derive(Debug)]
pub struct Durable(oneshot::Receiver<Result<(), String>>);

impl Durable {
    /// A change and the sender its commit (or failure) is told through.
    pub fn channel() -> (oneshot::Sender<Result<(), String>>, Durable) {
        let (tx, rx) = oneshot::channel();
        (tx, Durable(rx))
    }

    /// A change whose fate is known already.
    #[cfg(test)]
    pub fn ready(result: Result<(), String>) -> Durable {
        let (tx, d) = Durable::channel();
        let _ = tx.send(result);
        d
    }

    /// Waits for the commit.
    ///
    /// # Errors
    /// The transaction holding the change failed.
    pub async fn committed(self) -> Result<(), StoreError> {
        self.0
            .await
            .unwrap_or_else(|_| Err("the state writer stopped".into()))
            .map_err(StoreError::Failed)
    }
}
