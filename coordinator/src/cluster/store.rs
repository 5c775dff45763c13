//! The coordinator's durable state: jobs and shards in an embedded SQLite
//! database (WAL, `synchronous=NORMAL`).
//!
//! The in-memory state ([`super::state`]) is the source of truth while the
//! coordinator runs; every change is also sent here, to one writer thread
//! that commits whatever has queued up in a single transaction (group
//! commit). Heartbeats are not written: after a restart every leased shard
//! gets a fresh lease period, so a live worker carries on and a dead one's
//! lease lapses as usual.

use std::path::Path;
use std::sync::mpsc;

use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

/// Why the state file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("state database {path}: {source}")]
    Sqlite {
        path: String,
        source: rusqlite::Error,
    },
    #[error("state database {path} was written by schema version {found}, this verdict reads {expected}")]
    Schema {
        path: String,
        found: i64,
        expected: i64,
    },
}

const SCHEMA_VERSION: i64 = 1;

/// A shard row as stored.
#[derive(Debug, Clone)]
pub struct ShardRow {
    pub shard: u32,
    /// `verdict.v1.Lease.files`, prost-encoded (a `ShardFiles` message).
    pub files: Vec<u8>,
    pub state: String,
    pub attempts: u32,
    pub lease: Option<u64>,
    pub worker: Option<u64>,
    /// prost-encoded `ShardSummary` once done.
    pub summary: Option<Vec<u8>>,
    pub error: Option<String>,
}

/// A job row as stored, with its shards.
#[derive(Debug, Clone)]
pub struct JobRow {
    pub id: u64,
    /// prost-encoded `SubmitRequest` (after the coordinator resolved it).
    pub spec: Vec<u8>,
    pub state: String,
    pub created: i64,
    pub finished: i64,
    pub error: String,
    pub bytes_total: u64,
    pub shards: Vec<ShardRow>,
}

/// One change to write.
#[derive(Debug)]
pub enum Op {
    InsertJob(JobRow),
    ShardLeased {
        job: u64,
        shard: u32,
        lease: u64,
        worker: u64,
        attempts: u32,
    },
    /// Back to pending (lease lapsed, failed with attempts left, released).
    ShardPending {
        job: u64,
        shard: u32,
        attempts: u32,
        error: Option<String>,
    },
    ShardDone {
        job: u64,
        shard: u32,
        summary: Vec<u8>,
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
    /// Pending and leased shards of a cancelled job.
    CancelShards {
        job: u64,
    },
    /// Nothing: written durably, it tells when everything before it is.
    Barrier,
}

/// Sends changes to the writer thread.
#[derive(Debug, Clone)]
pub struct Store {
    tx: mpsc::Sender<(Op, Option<oneshot::Sender<()>>)>,
}

fn open(path: &Path) -> Result<Connection, rusqlite::Error> {
    let conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // In WAL mode NORMAL loses at most the last transactions on power loss,
    // never consistency; a lost completion only means a shard runs again.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
         CREATE TABLE IF NOT EXISTS jobs (
            id INTEGER PRIMARY KEY,
            spec BLOB NOT NULL,
            state TEXT NOT NULL,
            created INTEGER NOT NULL,
            finished INTEGER NOT NULL DEFAULT 0,
            error TEXT NOT NULL DEFAULT '',
            bytes_total INTEGER NOT NULL DEFAULT 0
         );
         CREATE TABLE IF NOT EXISTS shards (
            job INTEGER NOT NULL REFERENCES jobs(id),
            shard INTEGER NOT NULL,
            files BLOB NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            lease INTEGER,
            worker INTEGER,
            summary BLOB,
            error TEXT,
            PRIMARY KEY (job, shard)
         ) WITHOUT ROWID;",
    )?;
    Ok(conn)
}

impl Store {
    /// Opens (or creates) the state file, returns what it holds and a
    /// handle to write to it.
    ///
    /// # Errors
    /// The file cannot be opened, or was written by another schema version.
    pub fn open(path: &Path) -> Result<(Store, Vec<JobRow>), StoreError> {
        let name = path.display().to_string();
        let err = |source| StoreError::Sqlite {
            path: name.clone(),
            source,
        };
        let conn = open(path).map_err(err)?;
        let found: Option<i64> = conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(err)?;
        match found {
            None => {
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                    [SCHEMA_VERSION],
                )
                .map_err(err)?;
            }
            Some(v) if v == SCHEMA_VERSION => {}
            Some(found) => {
                return Err(StoreError::Schema {
                    path: name,
                    found,
                    expected: SCHEMA_VERSION,
                })
            }
        }
        let jobs = load(&conn).map_err(err)?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("state-writer".into())
            .spawn(move || writer(conn, rx, name))
            .expect("spawning the state writer");
        Ok((Store { tx }, jobs))
    }

    /// Queues a change; it is committed shortly, with whatever else queued.
    pub fn write(&self, op: Op) {
        // The writer only stops when every sender is gone.
        let _ = self.tx.send((op, None));
    }

    /// Queues a change and returns a receiver that fires once it is committed.
    pub fn write_durable(&self, op: Op) -> oneshot::Receiver<()> {
        let (done, rx) = oneshot::channel();
        let _ = self.tx.send((op, Some(done)));
        rx
    }
}

fn load(conn: &Connection) -> Result<Vec<JobRow>, rusqlite::Error> {
    let mut jobs: Vec<JobRow> = conn
        .prepare(
            "SELECT id, spec, state, created, finished, error, bytes_total FROM jobs ORDER BY id",
        )?
        .query_map([], |r| {
            Ok(JobRow {
                id: r.get::<_, i64>(0)? as u64,
                spec: r.get(1)?,
                state: r.get(2)?,
                created: r.get(3)?,
                finished: r.get(4)?,
                error: r.get(5)?,
                bytes_total: r.get::<_, i64>(6)? as u64,
                shards: Vec::new(),
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare(
        "SELECT shard, files, state, attempts, lease, worker, summary, error
         FROM shards WHERE job = ?1 ORDER BY shard",
    )?;
    for job in &mut jobs {
        job.shards = stmt
            .query_map([job.id as i64], |r| {
                Ok(ShardRow {
                    shard: r.get(0)?,
                    files: r.get(1)?,
                    state: r.get(2)?,
                    attempts: r.get(3)?,
                    lease: r.get::<_, Option<i64>>(4)?.map(|v| v as u64),
                    worker: r.get::<_, Option<i64>>(5)?.map(|v| v as u64),
                    summary: r.get(6)?,
                    error: r.get(7)?,
                })
            })?
            .collect::<Result<_, _>>()?;
    }
    Ok(jobs)
}

/// Commits queued changes in batches until every [`Store`] is dropped.
fn writer(
    mut conn: Connection,
    rx: mpsc::Receiver<(Op, Option<oneshot::Sender<()>>)>,
    name: String,
) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < 4096 {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let result = (|| -> Result<(), rusqlite::Error> {
            let tx = conn.transaction()?;
            for (op, _) in &batch {
                apply(&tx, op)?;
            }
            tx.commit()
        })();
        if let Err(e) = result {
            // The in-memory state carries on; a restart would redo the lost
            // work (shards run again and replace their own files).
            tracing::error!(state = %name, error = %e, "cannot write the state database");
        }
        for (_, done) in batch {
            if let Some(done) = done {
                let _ = done.send(());
            }
        }
    }
}

fn apply(tx: &rusqlite::Transaction<'_>, op: &Op) -> Result<(), rusqlite::Error> {
    match op {
        Op::InsertJob(job) => {
            tx.execute(
                "INSERT INTO jobs (id, spec, state, created, finished, error, bytes_total)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    job.id as i64,
                    job.spec,
                    job.state,
                    job.created,
                    job.finished,
                    job.error,
                    job.bytes_total as i64
                ],
            )?;
            let mut stmt = tx.prepare_cached(
                "INSERT INTO shards (job, shard, files, state, attempts) VALUES (?1, ?2, ?3, ?4, 0)",
            )?;
            for s in &job.shards {
                stmt.execute(params![job.id as i64, s.shard, s.files, s.state])?;
            }
        }
        Op::ShardLeased {
            job,
            shard,
            lease,
            worker,
            attempts,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'leased', lease = ?3, worker = ?4, attempts = ?5
                 WHERE job = ?1 AND shard = ?2",
            )?
            .execute(params![
                *job as i64,
                shard,
                *lease as i64,
                *worker as i64,
                attempts
            ])?;
        }
        Op::ShardPending {
            job,
            shard,
            attempts,
            error,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'pending', lease = NULL, worker = NULL, attempts = ?3,
                 error = ?4 WHERE job = ?1 AND shard = ?2",
            )?
            .execute(params![*job as i64, shard, attempts, error])?;
        }
        Op::ShardDone {
            job,
            shard,
            summary,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'done', lease = NULL, summary = ?3
                 WHERE job = ?1 AND shard = ?2",
            )?
            .execute(params![*job as i64, shard, summary])?;
        }
        Op::ShardFailed {
            job,
            shard,
            attempts,
            error,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'failed', lease = NULL, attempts = ?3, error = ?4
                 WHERE job = ?1 AND shard = ?2",
            )?
            .execute(params![*job as i64, shard, attempts, error])?;
        }
        Op::JobState {
            job,
            state,
            finished,
            error,
        } => {
            tx.prepare_cached(
                "UPDATE jobs SET state = ?2, finished = ?3, error = ?4 WHERE id = ?1",
            )?
            .execute(params![*job as i64, state, finished, error])?;
        }
        Op::CancelShards { job } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'cancelled', lease = NULL
                 WHERE job = ?1 AND state IN ('pending', 'leased')",
            )?
            .execute(params![*job as i64])?;
        }
        Op::Barrier => {}
    }
    Ok(())
}
