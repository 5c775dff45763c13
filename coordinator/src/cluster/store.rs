//! The coordinator's durable state: jobs and shards in an embedded SQLite
//! database (WAL, `synchronous=NORMAL`).
//!
//! The in-memory state ([`super::state`]) serves requests; every change is
//! also sent here, to one writer thread that commits whatever has queued up
//! in a single transaction (group commit). A change an RPC answers for is
//! written durably, and the RPC answers success only once it is committed.
//!
//! The state file is the truth. When a transaction fails (a full disk, a
//! file made read-only), the writer stops: every later change is refused at
//! once, without touching the file, until [`Store::recover`] succeeds, which
//! proves a write goes through again and hands back what the file holds, so
//! the coordinator rebuilds its memory from it. Nothing answered as done is
//! ever lost that way, and nothing refused is half kept.
//!
//! One coordinator per state file: [`Store::open`] takes an exclusive lock
//! on `STATE.lock` for as long as the coordinator runs.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};

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

const SCHEMA_VERSION: i64 = 2;

/// A shard row as stored.
#[derive(Debug, Clone)]
pub struct ShardRow {
    pub shard: u32,
    /// `verdict.v1.Lease.files`, prost-encoded (a `ShardFiles` message).
    pub files: Vec<u8>,
    pub state: String,
    pub attempts: u32,
    /// The live lease (leased), or the accepted one (done).
    pub lease: Option<u64>,
    pub worker: Option<u64>,
    /// prost-encoded `ShardSummary` once done.
    pub summary: Option<Vec<u8>>,
    pub error: Option<String>,
    /// Every lease issued for the shard that may still complete it.
    pub issued: Vec<u64>,
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
    /// Nothing: written durably, it tells when everything before it is.
    Barrier,
}

/// A change and, for durable ones, who waits for its commit.
type Queued = (Op, Option<oneshot::Sender<Result<(), String>>>);

enum Msg {
    Write(Queued),
    /// Prove a write goes through again, and read everything back.
    Recover(oneshot::Sender<Result<Loaded, String>>),
}

/// Sends changes to the writer thread.
#[derive(Debug, Clone)]
pub struct Store {
    tx: mpsc::Sender<Msg>,
    /// Why the last transaction failed, until a recovery; shared with the
    /// writer thread.
    failed: Arc<Mutex<Option<String>>>,
    /// Whether `failed` holds a reason: read on every RPC without a lock.
    failing: Arc<std::sync::atomic::AtomicBool>,
    /// Failed transactions so far (for `/metrics`).
    errors: Arc<std::sync::atomic::AtomicU64>,
    path: PathBuf,
    /// Held for as long as any handle lives: one coordinator per state file.
    _lock: Arc<File>,
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

/// Brings a schema-1 file to schema 2: the new columns, a coordinator id,
/// and the running jobs' done and leased shards queued again (schema 1
/// wrote parts straight into `out/games`, where a job no longer publishes
/// from).
fn upgrade_from_1(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.execute_batch(
        "BEGIN;
         ALTER TABLE jobs ADD COLUMN lease_expiries INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE shards ADD COLUMN issued BLOB;
         UPDATE shards SET state = 'pending', lease = NULL, worker = NULL, summary = NULL
            WHERE state IN ('leased', 'done')
            AND job IN (SELECT id FROM jobs WHERE state = 'running');
         UPDATE meta SET value = 2 WHERE key = 'schema';
         COMMIT;",
    )
}

fn encode_ids(ids: &[u64]) -> Vec<u8> {
    ids.iter().flat_map(|i| i.to_le_bytes()).collect()
}

fn decode_ids(bytes: Option<Vec<u8>>) -> Vec<u64> {
    bytes
        .unwrap_or_default()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of eight")))
        .collect()
}

/// The lock file beside a state file.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

impl Store {
    /// Opens (or creates) the state file, locks it, and returns what it
    /// holds and a handle to write to it.
    ///
    /// # Errors
    /// Another coordinator holds it, it cannot be opened, or it was written
    /// by another schema version.
    pub fn open(path: &Path) -> Result<(Store, Loaded), StoreError> {
        let name = path.display().to_string();
        let lock_file = lock_path(path);
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_file)
            .map_err(|source| StoreError::Lock {
                path: lock_file.display().to_string(),
                source,
            })?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(StoreError::Locked {
                    path: name,
                    lock: lock_file.display().to_string(),
                })
            }
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(StoreError::Lock {
                    path: lock_file.display().to_string(),
                    source,
                })
            }
        }
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
                conn.execute_batch(
                    "ALTER TABLE jobs ADD COLUMN lease_expiries INTEGER NOT NULL DEFAULT 0;
                     ALTER TABLE shards ADD COLUMN issued BLOB;",
                )
                .map_err(err)?;
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                    [SCHEMA_VERSION],
                )
                .map_err(err)?;
            }
            Some(1) => upgrade_from_1(&conn).map_err(err)?,
            Some(v) if v == SCHEMA_VERSION => {}
            Some(found) => {
                return Err(StoreError::Schema {
                    path: name,
                    found,
                    expected: SCHEMA_VERSION,
                })
            }
        }
        let has_id: Option<i64> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'coordinator'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        if has_id.is_none() {
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('coordinator', ?1)",
                [verdict_worker::ids::random_u64() as i64],
            )
            .map_err(err)?;
        }
        let loaded = load(&conn).map_err(err)?;
        let (tx, rx) = mpsc::channel();
        let failed = Arc::new(Mutex::new(None));
        let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let errors = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (shared, flag, counted) = (failed.clone(), failing.clone(), errors.clone());
        std::thread::Builder::new()
            .name("state-writer".into())
            .spawn(move || writer(conn, rx, name, (shared, flag), &counted))
            .expect("spawning the state writer");
        Ok((
            Store {
                tx,
                failed,
                failing,
                errors,
                path: path.to_path_buf(),
                _lock: Arc::new(lock),
            },
            loaded,
        ))
    }

    /// Why the state file cannot be written now, if it cannot.
    pub fn failure(&self) -> Option<String> {
        if !self.failing.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Failed transactions since start.
    pub fn write_errors(&self) -> u64 {
        self.errors.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The stored summaries of some shards of a job, read on a connection
    /// of its own (WAL lets it read beside the writer).
    ///
    /// # Errors
    /// The file cannot be read, or holds a summary that does not decode.
    pub fn read_summaries(
        &self,
        job: u64,
        shards: &[u32],
    ) -> Result<Vec<verdict_proto::v1::ShardSummary>, String> {
        use verdict_proto::prost::Message;
        let conn =
            Connection::open_with_flags(&self.path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .map_err(|e| e.to_string())?;
        let mut stmt = conn
            .prepare("SELECT summary FROM shards WHERE job = ?1 AND shard = ?2 AND state = 'done'")
            .map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(shards.len());
        for s in shards {
            let bytes: Option<Vec<u8>> = stmt
                .query_row(params![job as i64, s], |r| r.get(0))
                .optional()
                .map_err(|e| e.to_string())?
                .flatten();
            let summary =
                verdict_proto::v1::ShardSummary::decode(bytes.as_deref().unwrap_or_default())
                    .map_err(|e| e.to_string())?;
            out.push(summary);
        }
        Ok(out)
    }

    /// Queues a change; it is committed shortly, with whatever else queued.
    /// A change that must not be lost goes through [`Store::write_durable`].
    pub fn write(&self, op: Op) {
        // The writer only stops when every sender is gone.
        let _ = self.tx.send(Msg::Write((op, None)));
    }

    /// Queues a change; the result tells when it is committed, or why not.
    pub fn write_durable(&self, op: Op) -> Durable {
        let (done, rx) = oneshot::channel();
        let _ = self.tx.send(Msg::Write((op, Some(done))));
        Durable(rx)
    }

    /// After a failure: proves that a write goes through again and returns
    /// what the state file holds.
    ///
    /// # Errors
    /// The state file still cannot be written or read.
    pub async fn recover(&self) -> Result<Loaded, StoreError> {
        let (done, rx) = oneshot::channel();
        let _ = self.tx.send(Msg::Recover(done));
        rx.await
            .unwrap_or_else(|_| Err("the state writer stopped".into()))
            .map_err(StoreError::Failed)
    }
}

/// A change on its way to the state file.
#[derive(Debug)]
pub struct Durable(oneshot::Receiver<Result<(), String>>);

impl Durable {
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

fn load(conn: &Connection) -> Result<Loaded, rusqlite::Error> {
    let coordinator: i64 = conn.query_row(
        "SELECT value FROM meta WHERE key = 'coordinator'",
        [],
        |r| r.get(0),
    )?;
    let mut jobs: Vec<JobRow> = conn
        .prepare(
            "SELECT id, spec, state, created, finished, error, bytes_total, lease_expiries
             FROM jobs ORDER BY id",
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
                lease_expiries: r.get::<_, i64>(7)? as u64,
                shards: Vec::new(),
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare(
        "SELECT shard, files, state, attempts, lease, worker, summary, error, issued
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
                    issued: decode_ids(r.get(8)?),
                })
            })?
            .collect::<Result<_, _>>()?;
    }
    Ok(Loaded {
        coordinator: coordinator as u64,
        jobs,
    })
}

/// Commits queued changes in batches until every [`Store`] is dropped;
/// after a failed transaction refuses every change until a recovery.
fn writer(
    mut conn: Connection,
    rx: mpsc::Receiver<Msg>,
    name: String,
    (failed, failing): (
        Arc<Mutex<Option<String>>>,
        Arc<std::sync::atomic::AtomicBool>,
    ),
    errors: &std::sync::atomic::AtomicU64,
) {
    let set_failed = |why: Option<String>| {
        let mut f = failed.lock().unwrap_or_else(|e| e.into_inner());
        failing.store(why.is_some(), std::sync::atomic::Ordering::Release);
        *f = why;
    };
    let is_failed = || failed.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut pending: Option<Msg> = None;
    loop {
        let first = match pending.take() {
            Some(m) => m,
            None => match rx.recv() {
                Ok(m) => m,
                Err(_) => return,
            },
        };
        let first = match first {
            Msg::Recover(reply) => {
                let probe = conn
                    .execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', strftime('%s'))",
                        [],
                    )
                    .and_then(|_| load(&conn));
                let answer = match probe {
                    Ok(loaded) => {
                        set_failed(None);
                        tracing::info!(state = %name, "the state file can be written again");
                        Ok(loaded)
                    }
                    Err(e) => Err(e.to_string()),
                };
                let _ = reply.send(answer);
                continue;
            }
            Msg::Write(q) => q,
        };
        let mut batch = vec![first];
        while batch.len() < 4096 {
            match rx.try_recv() {
                Ok(Msg::Write(q)) => batch.push(q),
                Ok(recover) => {
                    pending = Some(recover);
                    break;
                }
                Err(_) => break,
            }
        }
        let result = match is_failed() {
            Some(why) => Err(why),
            None => (|| -> Result<(), rusqlite::Error> {
                let tx = conn.transaction()?;
                for (op, _) in &batch {
                    apply(&tx, op)?;
                }
                tx.commit()
            })()
            .map_err(|e| {
                let why = format!("{name}: {e}");
                errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tracing::error!(state = %name, error = %e, "cannot write the state file: refusing changes until it can");
                set_failed(Some(why.clone()));
                why
            }),
        };
        for (_, done) in batch {
            if let Some(done) = done {
                let _ = done.send(result.clone());
            }
        }
    }
}

fn apply(tx: &rusqlite::Transaction<'_>, op: &Op) -> Result<(), rusqlite::Error> {
    match op {
        Op::InsertJob(job) => {
            tx.execute(
                "INSERT INTO jobs (id, spec, state, created, finished, error, bytes_total, lease_expiries)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    job.id as i64,
                    job.spec,
                    job.state,
                    job.created,
                    job.finished,
                    job.error,
                    job.bytes_total as i64,
                    job.lease_expiries as i64,
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
            issued,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'leased', lease = ?3, worker = ?4, attempts = ?5,
                 issued = ?6 WHERE job = ?1 AND shard = ?2",
            )?
            .execute(params![
                *job as i64,
                shard,
                *lease as i64,
                *worker as i64,
                attempts,
                encode_ids(issued)
            ])?;
        }
        Op::ShardPending {
            job,
            shard,
            attempts,
            error,
            issued,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'pending', lease = NULL, worker = NULL, attempts = ?3,
                 error = ?4, issued = ?5 WHERE job = ?1 AND shard = ?2",
            )?
            .execute(params![
                *job as i64,
                shard,
                attempts,
                error,
                encode_ids(issued)
            ])?;
        }
        Op::ShardDone {
            job,
            shard,
            lease,
            summary,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'done', lease = ?3, summary = ?4, issued = NULL
                 WHERE job = ?1 AND shard = ?2",
            )?
            .execute(params![*job as i64, shard, *lease as i64, summary])?;
        }
        Op::ShardFailed {
            job,
            shard,
            attempts,
            error,
        } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'failed', lease = NULL, attempts = ?3, error = ?4,
                 issued = NULL WHERE job = ?1 AND shard = ?2",
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
        Op::JobExpiries {
            job,
            lease_expiries,
        } => {
            tx.prepare_cached("UPDATE jobs SET lease_expiries = ?2 WHERE id = ?1")?
                .execute(params![*job as i64, *lease_expiries as i64])?;
        }
        Op::CancelShards { job } => {
            tx.prepare_cached(
                "UPDATE shards SET state = 'cancelled', lease = NULL, issued = NULL
                 WHERE job = ?1 AND state IN ('pending', 'leased')",
            )?
            .execute(params![*job as i64])?;
        }
        Op::DeleteJob { job } => {
            tx.prepare_cached("DELETE FROM shards WHERE job = ?1")?
                .execute(params![*job as i64])?;
            tx.prepare_cached("DELETE FROM jobs WHERE id = ?1")?
                .execute(params![*job as i64])?;
        }
        Op::Barrier => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("verdict-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_second_coordinator_on_one_state_file_is_refused() {
        let dir = temp("lock");
        let path = dir.join("state.db");
        let (first, loaded) = Store::open(&path).unwrap();
        let e = Store::open(&path).unwrap_err();
        assert!(matches!(e, StoreError::Locked { .. }), "{e}");
        assert!(e.to_string().contains("another coordinator"), "{e}");
        drop(first);
        // The writer thread holds a clone of nothing: the lock goes with
        // the last handle.
        let (_again, reloaded) = Store::open(&path).unwrap();
        assert_eq!(loaded.coordinator, reloaded.coordinator, "the id is kept");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_schema_1_file_is_upgraded_and_its_running_work_queued_again() {
        let dir = temp("upgrade");
        let path = dir.join("state.db");
        {
            let conn = open(&path).unwrap();
            conn.execute_batch(
                "INSERT INTO meta (key, value) VALUES ('schema', 1);
                 INSERT INTO jobs (id, spec, state, created) VALUES (1, x'', 'running', 0);
                 INSERT INTO jobs (id, spec, state, created) VALUES (2, x'', 'done', 0);
                 INSERT INTO shards (job, shard, files, state, lease) VALUES (1, 0, x'', 'done', 5);
                 INSERT INTO shards (job, shard, files, state, lease) VALUES (1, 1, x'', 'leased', 6);
                 INSERT INTO shards (job, shard, files, state, lease) VALUES (2, 0, x'', 'done', 7);",
            )
            .unwrap();
        }
        let (_store, loaded) = Store::open(&path).unwrap();
        let states: Vec<(u64, String)> = loaded
            .jobs
            .iter()
            .flat_map(|j| j.shards.iter().map(move |s| (j.id, s.state.clone())))
            .collect();
        assert_eq!(
            states,
            [
                (1, "pending".to_string()),
                (1, "pending".to_string()),
                (2, "done".to_string())
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
