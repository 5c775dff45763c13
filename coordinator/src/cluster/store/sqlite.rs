//! [`SqliteStore`]: jobs and shards in an embedded SQLite database (WAL,
//! `synchronous=NORMAL`), written by one thread that commits whatever has
//! queued up in a single transaction (group commit).
//!
//! Job specs, shard files and summaries are stored prost-encoded
//! (`SubmitRequest`, `ShardFiles`, `ShardSummary`), converted here from and
//! to the domain types the state uses.
//!
//! One coordinator per state file: [`SqliteStore::open`] takes an exclusive
//! lock on `STATE.lock` for as long as the coordinator runs.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;
use verdict_proto::prost::Message;
use verdict_proto::v1;
use verdict_worker::engine::ShardFile;
use verdict_worker::summary::Summary;

use super::{Durable, JobRow, Loaded, Op, Recovery, ShardRow, Store, StoreError, SweepRow};
use crate::cluster::state::JobSpec;

const SCHEMA_VERSION: i64 = 2;

/// A change and, for durable ones, who waits for its commit.
type Queued = (Op, Option<oneshot::Sender<Result<(), String>>>);

enum Msg {
    Write(Queued),
    /// Prove a write goes through again, and read everything back.
    Recover(oneshot::Sender<Result<Loaded, String>>),
}

/// The state in an SQLite file: sends changes to the writer thread.
#[derive(Debug, Clone)]
pub struct SqliteStore {
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
         ) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS sweeps (
            out TEXT NOT NULL,
            name TEXT NOT NULL,
            due INTEGER NOT NULL,
            PRIMARY KEY (out, name, due)
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

impl SqliteStore {
    /// Opens (or creates) the state file, locks it, and returns what it
    /// holds and a handle to write to it.
    ///
    /// # Errors
    /// Another coordinator holds it, it cannot be opened, or it was written
    /// by another schema version.
    pub fn open(path: &Path) -> Result<(SqliteStore, Loaded), StoreError> {
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
        let loaded = load(&conn, &name)?;
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
            SqliteStore {
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

    /// The stored summaries of some shards of a job, read on a connection
    /// of its own (WAL lets it read beside the writer).
    fn summaries(&self, job: u64, shards: &[u32]) -> Result<Vec<Summary>, StoreError> {
        let name = self.path.display().to_string();
        let err = |source| StoreError::Sqlite {
            path: name.clone(),
            source,
        };
        let conn =
            Connection::open_with_flags(&self.path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .map_err(err)?;
        let mut stmt = conn
            .prepare("SELECT summary FROM shards WHERE job = ?1 AND shard = ?2 AND state = 'done'")
            .map_err(err)?;
        let mut out = Vec::with_capacity(shards.len());
        for s in shards {
            let bytes: Option<Vec<u8>> = stmt
                .query_row(params![job as i64, s], |r| r.get(0))
                .optional()
                .map_err(err)?
                .flatten();
            out.push(decode_summary(&name, bytes.as_deref())?);
        }
        Ok(out)
    }
}

impl Store for SqliteStore {
    fn write(&self, op: Op) {
        // The writer only stops when every sender is gone.
        let _ = self.tx.send(Msg::Write((op, None)));
    }

    fn write_durable(&self, op: Op) -> Durable {
        let (done, durable) = Durable::channel();
        let _ = self.tx.send(Msg::Write((op, Some(done))));
        durable
    }

    fn failure(&self) -> Option<String> {
        if !self.failing.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn write_errors(&self) -> u64 {
        self.errors.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn read_summaries(&self, job: u64, shards: &[u32]) -> Result<Vec<Summary>, StoreError> {
        self.summaries(job, shards)
    }

    fn recover(&self) -> Recovery {
        let (done, rx) = oneshot::channel();
        let _ = self.tx.send(Msg::Recover(done));
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err("the state writer stopped".into()))
                .map_err(StoreError::Failed)
        })
    }
}

fn decode_summary(path: &str, bytes: Option<&[u8]>) -> Result<Summary, StoreError> {
    let s =
        v1::ShardSummary::decode(bytes.unwrap_or_default()).map_err(|e| StoreError::Corrupt {
            path: path.to_string(),
            what: "a shard summary",
            why: e.to_string(),
        })?;
    Summary::try_from(&s).map_err(|why| StoreError::Corrupt {
        path: path.to_string(),
        what: "a shard summary",
        why,
    })
}

/// A shard's files, and why they cannot be run if some do not convert.
fn decode_files(path: &str, bytes: &[u8]) -> Result<(Vec<ShardFile>, Option<String>), StoreError> {
    let wire = v1::ShardFiles::decode(bytes).map_err(|e| StoreError::Corrupt {
        path: path.to_string(),
        what: "a shard",
        why: e.to_string(),
    })?;
    match wire.files.iter().map(ShardFile::try_from).collect() {
        Ok(files) => Ok((files, None)),
        Err(e) => Ok((Vec::new(), Some(e.to_string()))),
    }
}

fn encode_files(files: &[ShardFile]) -> Vec<u8> {
    v1::ShardFiles {
        files: files.iter().map(v1::ShardFile::from).collect(),
    }
    .encode_to_vec()
}

/// Everything the file holds, decoded.
fn load(conn: &Connection, name: &str) -> Result<Loaded, StoreError> {
    let err = |source| StoreError::Sqlite {
        path: name.to_string(),
        source,
    };
    let corrupt = |what, e: &dyn std::fmt::Display| StoreError::Corrupt {
        path: name.to_string(),
        what,
        why: e.to_string(),
    };
    let coordinator: i64 = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'coordinator'",
            [],
            |r| r.get(0),
        )
        .map_err(err)?;
    type RawJob = (u64, Vec<u8>, String, i64, i64, String, u64, u64);
    let raw: Vec<RawJob> = conn
        .prepare(
            "SELECT id, spec, state, created, finished, error, bytes_total, lease_expiries
             FROM jobs ORDER BY id",
        )
        .and_then(|mut stmt| {
            stmt.query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)? as u64,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get::<_, i64>(6)? as u64,
                    r.get::<_, i64>(7)? as u64,
                ))
            })?
            .collect::<Result<_, _>>()
        })
        .map_err(err)?;
    let mut stmt = conn
        .prepare(
            "SELECT shard, files, state, attempts, lease, worker, summary, error, issued
             FROM shards WHERE job = ?1 ORDER BY shard",
        )
        .map_err(err)?;
    let mut jobs = Vec::with_capacity(raw.len());
    for (id, spec, state, created, finished, error, bytes_total, lease_expiries) in raw {
        let wire = v1::SubmitRequest::decode(&spec[..]).map_err(|e| corrupt("a job", &e))?;
        let spec = JobSpec::from_wire(&wire).map_err(|e| corrupt("a job's options", &e))?;
        type RawShard = (
            u32,
            Vec<u8>,
            String,
            u32,
            Option<i64>,
            Option<i64>,
            Option<Vec<u8>>,
            Option<String>,
            Option<Vec<u8>>,
        );
        let rows: Vec<RawShard> = stmt
            .query_map([id as i64], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                ))
            })
            .and_then(|rows| rows.collect::<Result<_, _>>())
            .map_err(err)?;
        let mut shards = Vec::with_capacity(rows.len());
        for (shard, files, state, attempts, lease, worker, summary, error, issued) in rows {
            let (files, unreadable) = decode_files(name, &files)?;
            let summary = match state.as_str() {
                "done" => Some(decode_summary(name, summary.as_deref())?),
                _ => None,
            };
            shards.push(ShardRow {
                shard,
                files,
                state,
                attempts,
                lease: lease.map(|v| v as u64),
                worker: worker.map(|v| v as u64),
                summary,
                error,
                issued: decode_ids(issued),
                unreadable,
            });
        }
        jobs.push(JobRow {
            id,
            spec,
            state,
            created,
            finished,
            error,
            bytes_total,
            lease_expiries,
            shards,
        });
    }
    let sweeps = conn
        .prepare("SELECT out, name, due FROM sweeps ORDER BY due")
        .and_then(|mut stmt| {
            stmt.query_map([], |r| {
                Ok(SweepRow {
                    out: r.get(0)?,
                    name: r.get(1)?,
                    due: r.get(2)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()
        })
        .map_err(err)?;
    Ok(Loaded {
        coordinator: coordinator as u64,
        jobs,
        sweeps,
    })
}

/// Commits queued changes in batches until every [`SqliteStore`] is dropped;
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
                    .map_err(|e| e.to_string())
                    .and_then(|_| load(&conn, &name).map_err(|e| e.to_string()));
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
                    job.spec.to_wire().encode_to_vec(),
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
                stmt.execute(params![
                    job.id as i64,
                    s.shard,
                    encode_files(&s.files),
                    s.state
                ])?;
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
            .execute(params![
                *job as i64,
                shard,
                *lease as i64,
                v1::ShardSummary::from(&**summary).encode_to_vec()
            ])?;
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
        Op::SweepDue(row) => {
            tx.prepare_cached("INSERT OR IGNORE INTO sweeps (out, name, due) VALUES (?1, ?2, ?3)")?
                .execute(params![row.out, row.name, row.due])?;
        }
        Op::Swept(row) => {
            tx.prepare_cached("DELETE FROM sweeps WHERE out = ?1 AND name = ?2 AND due = ?3")?
                .execute(params![row.out, row.name, row.due])?;
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
        let (first, loaded) = SqliteStore::open(&path).unwrap();
        let e = SqliteStore::open(&path).unwrap_err();
        assert!(matches!(e, StoreError::Locked { .. }), "{e}");
        assert!(e.to_string().contains("another coordinator"), "{e}");
        drop(first);
        // The writer thread holds a clone of nothing: the lock goes with
        // the last handle.
        let (_again, reloaded) = SqliteStore::open(&path).unwrap();
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
        let (_store, loaded) = SqliteStore::open(&path).unwrap();
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

    /// A staging place to remove later is in the file until it is
    /// removed: a coordinator restarted in between still removes it.
    #[tokio::test]
    async fn sweeps_due_later_survive_the_state_file() {
        let dir = temp("sweeps");
        let path = dir.join("state.db");
        let row = |name: &str, due: i64| SweepRow {
            out: "s3://b/out".into(),
            name: name.into(),
            due,
        };
        {
            let (store, loaded) = SqliteStore::open(&path).unwrap();
            assert!(loaded.sweeps.is_empty());
            store.write(Op::SweepDue(row("job-1", 50)));
            store.write(Op::SweepDue(row("job-1", 10)));
            store.write(Op::SweepDue(row("job-2", 20)));
            store.write(Op::Swept(row("job-2", 20)));
            store.write_durable(Op::Barrier).committed().await.unwrap();
        }
        let (_store, loaded) = SqliteStore::open(&path).unwrap();
        assert_eq!(loaded.sweeps, vec![row("job-1", 10), row("job-1", 50)]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn specs_files_and_summaries_survive_the_state_file() {
        use verdict_rules::analyse::KomiPolicy;
        use verdict_rules::score::RuleSet;
        use verdict_worker::engine::FilePart;
        use verdict_worker::inputs::InputFile;
        use verdict_worker::run::RunOptions;
        use verdict_worker::summary::{CellKey, Group, Tally};

        let dir = temp("domain");
        let path = dir.join("state.db");
        let spec = JobSpec {
            inputs: vec!["/in/a".into(), "/in/b.sgf".into()],
            out: "/out".into(),
            options: RunOptions {
                out: PathBuf::from("/out"),
                komi: KomiPolicy::Fixed(7.5),
                all_pairs: true,
                komi_sweep: vec![6.5, 7.0],
                rules: vec![RuleSet::JpdA, RuleSet::Chinese],
                assume_rules: Some(RuleSet::Japanese),
                ..RunOptions::default()
            },
            shard_bytes: 1234,
            label: "label".into(),
        };
        let file = |part: Option<FilePart>| ShardFile {
            file: InputFile {
                path: PathBuf::from("/in/b.sgf"),
                len: 99,
                root: PathBuf::from("/in"),
                real: Some(PathBuf::from("/real/b.sgf")),
                version: None,
            },
            part,
        };
        let files = vec![
            file(None),
            file(Some(FilePart {
                bytes: 40..u64::MAX,
                first_game: 3,
            })),
        ];
        let mut summary = Summary {
            games: 5,
            ..Summary::default()
        };
        summary
            .by_status
            .insert(verdict_worker::row::RowStatus::Scored, 4);
        summary.cells.insert(
            CellKey {
                pair: (RuleSet::JpdA, RuleSet::JpdB),
                group: Group::All,
            },
            Tally {
                scorable: 4,
                disagreements: 1,
                draws: 0,
            },
        );
        {
            let (store, _) = SqliteStore::open(&path).unwrap();
            let shard = ShardRow::pending(0, files.clone());
            store.write(Op::InsertJob(Box::new(JobRow {
                id: 1,
                spec: spec.clone(),
                state: "running".into(),
                created: 10,
                finished: 0,
                error: String::new(),
                bytes_total: 99,
                lease_expiries: 0,
                shards: vec![shard],
            })));
            store
                .write_durable(Op::ShardDone {
                    job: 1,
                    shard: 0,
                    lease: 42,
                    summary: Box::new(summary.clone()),
                })
                .committed()
                .await
                .unwrap();
            assert_eq!(store.read_summaries(1, &[0]).unwrap(), [summary.clone()]);
        }
        let (_store, loaded) = SqliteStore::open(&path).unwrap();
        let job = &loaded.jobs[0];
        assert_eq!(format!("{:?}", job.spec), format!("{spec:?}"));
        let shard = &job.shards[0];
        assert_eq!(shard.files, files);
        assert_eq!(shard.summary.as_ref(), Some(&summary));
        assert_eq!((shard.state.as_str(), shard.lease), ("done", Some(42)));
        assert!(shard.unreadable.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stored_game_range_of_protocol_1_is_loaded_as_unreadable() {
        let dir = temp("range");
        let path = dir.join("state.db");
        let files = v1::ShardFiles {
            files: vec![v1::ShardFile {
                path: "/in/a.sgf".into(),
                range: Some(v1::GameRange { first: 0, last: 9 }),
                ..Default::default()
            }],
        }
        .encode_to_vec();
        {
            let (_store, _) = SqliteStore::open(&path).unwrap();
            let conn = Connection::open(&path).unwrap();
            conn.execute(
                "INSERT INTO jobs (id, spec, state, created) VALUES (1, x'', 'running', 0)",
                [],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO shards (job, shard, files, state) VALUES (1, 0, ?1, 'pending')",
                [files],
            )
            .unwrap();
        }
        let (_store, loaded) = SqliteStore::open(&path).unwrap();
        let shard = &loaded.jobs[0].shards[0];
        assert!(shard.files.is_empty());
        let why = shard.unreadable.as_deref().unwrap();
        assert!(why.contains("protocol 2 and before"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
