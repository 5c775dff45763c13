//! The state's tests: most on a [`MemoryStore`] and a [`FakeClock`], so
//! leases lapse when the test moves time on, not after real sleeps; those
//! about restarts and the state file on [`SqliteStore`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use verdict_proto::v1;
use verdict_worker::confined::Dir;
use verdict_worker::publish::staged_part_name;
use verdict_worker::row::{Cell, Kind};
use verdict_worker::summary::Summary;

use super::super::auth::Roots;
use super::super::store::{MemoryStore, SqliteStore};
use super::*;
use std::sync::atomic::AtomicU64;

struct Fixture {
    dir: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("verdict-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("in")).unwrap();
        let dir = dir.canonicalize().unwrap();
        for i in 0..3 {
            std::fs::write(dir.join(format!("in/{i}.sgf")), "(;SZ[9];B[aa];W[bb])").unwrap();
        }
        Fixture { dir }
    }

    fn config(&self, ttl_ms: u64, max_attempts: u32) -> Config {
        Config {
            lease_ttl: Duration::from_millis(ttl_ms),
            max_attempts,
            shard_bytes: 1,
            roots: Roots::new(std::slice::from_ref(&self.dir)).unwrap(),
            retention: None,
        }
    }

    /// A coordinator on the real state file and clocks.
    fn coordinator(&self, ttl_ms: u64, max_attempts: u32) -> Arc<Coordinator> {
        let (store, loaded) = SqliteStore::open(&self.dir.join("state.db")).unwrap();
        Coordinator::new(self.config(ttl_ms, max_attempts), Arc::new(store), loaded).unwrap()
    }

    /// A coordinator on `store` (its contents as loaded) and `clock`.
    fn on(&self, config: Config, store: &MemoryStore, clock: &Arc<FakeClock>) -> Arc<Coordinator> {
        Coordinator::with_clock(config, Arc::new(store.clone()), store.load(), clock.clone())
            .unwrap()
    }

    /// A coordinator in memory on a clock that moves only when told.
    fn fake(
        &self,
        ttl_ms: u64,
        max_attempts: u32,
    ) -> (Arc<Coordinator>, Arc<FakeClock>, MemoryStore) {
        let clock = Arc::new(FakeClock::new());
        let store = MemoryStore::new(0x5eed);
        let c = self.on(self.config(ttl_ms, max_attempts), &store, &clock);
        (c, clock, store)
    }

    /// A request for the same inputs into `out/NAME`.
    fn request_into(&self, name: &str) -> v1::SubmitRequest {
        v1::SubmitRequest {
            out: self.dir.join(name).display().to_string(),
            ..self.request()
        }
    }

    fn request(&self) -> v1::SubmitRequest {
        v1::SubmitRequest {
            inputs: vec![self.dir.join("in").display().to_string()],
            out: self.dir.join("out").display().to_string(),
            ..Default::default()
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn summary(games: u64) -> Summary {
    Summary {
        games,
        ..Summary::default()
    }
}

/// Writes the part a worker holding `lease` would write, with `rows` rows.
fn part(lease: &v1::Lease, rows: u64) {
    let dir = Dir::open(Path::new(&lease.staging)).unwrap();
    let cols = [("x".to_string(), Kind::Int)];
    verdict_worker::parquet_out::write_table(
        &dir,
        &staged_part_name(lease.shard, lease.lease_id),
        &cols,
        (0..rows).map(|_| vec![Cell::Int(Some(1))]),
        "test",
    )
    .unwrap();
}

/// Writes the part and completes the lease.
async fn finish_shard(c: &Arc<Coordinator>, l: &v1::Lease, games: u64) {
    part(l, games);
    c.complete(l.lease_id, l.job_id, l.shard, summary(games))
        .await
        .unwrap();
}

/// The job once it has ended (publishing runs on a blocking thread).
async fn ended(c: &Coordinator, id: u64) -> v1::Job {
    let mut changed = c.subscribe();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let job = c.get(id).unwrap();
        if job.state != v1::JobState::Running as i32 {
            return job;
        }
        if tokio::time::timeout_at(deadline, changed.changed())
            .await
            .is_err()
        {
            panic!("job {id} did not end: {job:?}");
        }
    }
}

fn acquire(c: &Coordinator, w: u64) -> v1::Lease {
    c.acquire(w).unwrap().expect("a shard to lease")
}

#[tokio::test]
async fn lapsed_leases_are_leased_again_until_the_shard_fails() {
    let f = Fixture::new("lapse");
    let (c, clock, _) = f.fake(30, 2);
    let job = c.submit(f.request()).await.unwrap();
    // One file per shard (shard_bytes 1, files too small to split).
    assert_eq!(job.shards_total, 3);
    let w = c.register("w").unwrap();
    let leases: Vec<v1::Lease> = (0..3).map(|_| acquire(&c, w)).collect();
    assert!(
        c.acquire(w).unwrap().is_none(),
        "three shards, three leases"
    );
    for l in &leases[1..] {
        finish_shard(&c, l, 1).await;
    }
    clock.advance(Duration::from_millis(40));
    c.reap();
    assert!(
        !c.heartbeat(leases[0].lease_id, 0),
        "a lapsed lease is gone"
    );
    let again = acquire(&c, w);
    assert_eq!(again.shard, leases[0].shard);
    assert_ne!(again.lease_id, leases[0].lease_id);
    assert!(c.heartbeat(again.lease_id, 5));
    assert_eq!(c.get(job.id).unwrap().games, 2 + 5);
    clock.advance(Duration::from_millis(40));
    c.reap();
    // Two attempts used: failed, and the job ends reporting it.
    let end = ended(&c, job.id).await;
    assert_eq!(end.state, v1::JobState::DoneWithFailures as i32);
    assert_eq!(end.lease_expiries, 2);
    assert_eq!(end.failures.len(), 1);
    assert_eq!(end.failures[0].attempts, 2);
    assert!(end.failures[0].reason.contains("lapsed"), "{end:?}");
    assert!(end.error.contains("nothing was published"), "{end:?}");
    assert!(
        !f.dir.join("out/summary.json").exists(),
        "a job with a failed shard publishes nothing"
    );
    assert!(!f.dir.join("out/_staging").read_dir().unwrap().any(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with('.')));
}

#[tokio::test]
async fn a_lapsed_lease_may_complete_and_the_live_one_is_told_to_stop() {
    let f = Fixture::new("once");
    let (c, clock, _) = f.fake(30, 5);
    let job = c.submit(f.request()).await.unwrap();
    let (a, b) = (c.register("a").unwrap(), c.register("b").unwrap());
    let slow = acquire(&c, a);
    clock.advance(Duration::from_millis(40));
    c.reap();
    let fast = acquire(&c, b);
    assert_eq!(fast.shard, slow.shard);
    // The slow worker finishes first: accepted, its part is the shard's.
    finish_shard(&c, &slow, 7).await;
    assert!(
        !c.heartbeat(fast.lease_id, 1),
        "the other lease is told to stop"
    );
    part(&fast, 7);
    let late = c
        .complete(fast.lease_id, fast.job_id, fast.shard, summary(7))
        .await;
    assert!(matches!(late, Err(StateError::Lease { .. })), "{late:?}");
    // A retry of the accepted completion is fine, and counts once.
    c.complete(slow.lease_id, slow.job_id, slow.shard, summary(7))
        .await
        .unwrap();
    assert_eq!(c.get(job.id).unwrap().games, 7, "counted once");
    // A release gives the shard back without counting an attempt.
    let released = acquire(&c, a);
    c.fail(released.lease_id, "stopping", true).unwrap();
    let retry = acquire(&c, b);
    assert_eq!(retry.shard, released.shard);
    finish_shard(&c, &retry, 1).await;
    let last = acquire(&c, a);
    finish_shard(&c, &last, 1).await;
    let end = ended(&c, job.id).await;
    assert_eq!(end.state, v1::JobState::Done as i32, "{end:?}");
    assert_eq!(end.games, 9);
    // Published: the accepted parts under their shard's name, nothing else.
    let mut names: Vec<String> = std::fs::read_dir(f.dir.join("out/games"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "part-00000.parquet",
            "part-00001.parquet",
            "part-00002.parquet"
        ]
    );
    let marker: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.dir.join("out/_SUCCESS")).unwrap()).unwrap();
    assert_eq!(marker["job"], job.id);
    assert_eq!(marker["games"], 9);
    assert!(matches!(
        c.cancel(job.id).await,
        Err(StateError::Ended { .. })
    ));
}

#[tokio::test]
async fn completions_need_a_lease_issued_for_that_shard() {
    let f = Fixture::new("forged");
    let c = f.coordinator(60_000, 3);
    let job = c.submit(f.request()).await.unwrap();
    let w = c.register("w").unwrap();
    let l = acquire(&c, w);
    for (lease, job_id, shard) in [
        (l.lease_id + 1, job.id, l.shard),
        (l.lease_id, job.id + 1, l.shard),
        (l.lease_id, job.id, l.shard + 1),
        (w, job.id, l.shard),
    ] {
        let forged = c.complete(lease, job_id, shard, summary(5_000_000)).await;
        assert!(
            matches!(forged, Err(StateError::Lease { .. })),
            "{forged:?}"
        );
    }
    assert_eq!(c.get(job.id).unwrap().games, 0);
    // Lease and worker ids tell nothing of each other or of the next.
    let l2 = acquire(&c, w);
    assert!(l2.lease_id.abs_diff(l.lease_id) > 1 << 20);
    assert!(l.lease_id.abs_diff(w) > 1 << 20);
}

#[tokio::test]
async fn a_part_missing_at_the_end_runs_its_shard_again() {
    let f = Fixture::new("missing");
    let c = f.coordinator(60_000, 3);
    let job = c.submit(f.request()).await.unwrap();
    let w = c.register("w").unwrap();
    let leases: Vec<v1::Lease> = (0..3).map(|_| acquire(&c, w)).collect();
    finish_shard(&c, &leases[0], 2).await;
    finish_shard(&c, &leases[1], 2).await;
    // A completion without its part (a forger with a real lease, or a
    // part deleted behind the coordinator's back).
    c.complete(
        leases[2].lease_id,
        leases[2].job_id,
        leases[2].shard,
        summary(5_000_000),
    )
    .await
    .unwrap();
    // Queued again once the job's parts are checked.
    let again = c
        .acquire_waiting(w, Duration::from_secs(10))
        .await
        .unwrap()
        .expect("the shard runs again");
    assert_eq!(again.shard, leases[2].shard);
    let now = c.get(job.id).unwrap();
    assert_eq!(now.games, 4, "the forged count is gone: {now:?}");
    finish_shard(&c, &again, 2).await;
    let end = ended(&c, job.id).await;
    assert_eq!(end.state, v1::JobState::Done as i32, "{end:?}");
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.dir.join("out/summary.json")).unwrap()).unwrap();
    assert_eq!(written["games"], 6);
}

#[tokio::test]
async fn a_restart_keeps_jobs_done_shards_and_live_leases() {
    let f = Fixture::new("restart");
    let (job, held, done) = {
        let c = f.coordinator(60_000, 3);
        let job = c.submit(f.request()).await.unwrap();
        let w = c.register("w").unwrap();
        let done = acquire(&c, w);
        finish_shard(&c, &done, 4).await;
        let held = acquire(&c, w);
        c.flush().await;
        (job, held, done)
    };
    let c = f.coordinator(60_000, 3);
    let now = c.get(job.id).unwrap();
    assert_eq!(
        (now.shards_done, now.shards_leased, now.shards_pending),
        (1, 1, 1)
    );
    assert_eq!(now.games, 4);
    assert!(
        c.heartbeat(held.lease_id, 2),
        "the lease survives the restart"
    );
    // A retry of a completion the old process answered is still fine.
    c.complete(done.lease_id, done.job_id, done.shard, summary(4))
        .await
        .unwrap();
    let w = c.register("new").unwrap();
    let next = acquire(&c, w);
    finish_shard(&c, &held, 3).await;
    finish_shard(&c, &next, 3).await;
    let end = ended(&c, job.id).await;
    assert_eq!(end.state, v1::JobState::Done as i32);
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.dir.join("out/summary.json")).unwrap()).unwrap();
    assert_eq!(written["games"], 10);
}

#[tokio::test]
async fn a_waiting_worker_is_woken_by_new_work() {
    let f = Fixture::new("wake");
    let c = f.coordinator(60_000, 3);
    let w = c.register("w").unwrap();
    let idle = Instant::now();
    assert!(c
        .acquire_waiting(w, Duration::from_millis(50))
        .await
        .unwrap()
        .is_none());
    assert!(idle.elapsed() >= Duration::from_millis(50));
    let start = Instant::now();
    let waiter = {
        let c = c.clone();
        tokio::spawn(async move { c.acquire_waiting(w, Duration::from_secs(20)).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let job = c.submit(f.request()).await.unwrap();
    let lease = waiter.await.unwrap().unwrap().expect("woken with a lease");
    assert_eq!(lease.job_id, job.id);
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn one_folder_under_two_names_is_one_folder() {
    let f = Fixture::new("names");
    let c = f.coordinator(60_000, 3);
    c.submit(f.request()).await.unwrap();
    std::os::unix::fs::symlink(f.dir.join("out"), f.dir.join("alias")).unwrap();
    let out = f.dir.join("out").display().to_string();
    for other in [
        format!("{out}/"),
        format!("{out}//"),
        format!("{}/./out", f.dir.display()),
        format!("{}/in/../out", f.dir.display()),
        f.dir.join("alias").display().to_string(),
        format!("{out}/inner"),
    ] {
        let req = v1::SubmitRequest {
            out: other.clone(),
            ..f.request()
        };
        let got = c.submit(req).await;
        assert!(
            matches!(&got, Err(e) if e.is_conflict()),
            "{other}: {got:?}"
        );
    }
    // A folder holding a running job's output is refused too.
    let inner = v1::SubmitRequest {
        out: f.dir.join("wrap/inner").display().to_string(),
        ..f.request()
    };
    c.submit(inner).await.unwrap();
    let around = v1::SubmitRequest {
        out: f.dir.join("wrap").display().to_string(),
        ..f.request()
    };
    assert!(matches!(
        c.submit(around).await,
        Err(StateError::FolderOverlaps { .. })
    ));
    // The refused submits neither queued nor deleted anything.
    assert_eq!(c.list(&v1::ListJobsRequest::default()).unwrap().0.len(), 2);
    assert!(f.dir.join("out/_staging").exists());
}

#[tokio::test]
async fn listings_come_in_pages_and_ended_jobs_can_be_deleted() {
    let f = Fixture::new("pages");
    let c = f.coordinator(60_000, 3);
    let mut ids = Vec::new();
    for i in 0..5 {
        let req = v1::SubmitRequest {
            out: f.dir.join(format!("out{i}")).display().to_string(),
            ..f.request()
        };
        ids.push(c.submit(req).await.unwrap().id);
    }
    let page = |token: &str, newest_first: bool| {
        c.list(&v1::ListJobsRequest {
            page_size: 2,
            page_token: token.into(),
            newest_first,
        })
        .unwrap()
    };
    let (first, next) = page("", false);
    assert_eq!(first.iter().map(|j| j.id).collect::<Vec<_>>(), ids[..2]);
    let (second, next) = page(&next, false);
    assert_eq!(second.iter().map(|j| j.id).collect::<Vec<_>>(), ids[2..4]);
    let (third, next) = page(&next, false);
    assert_eq!(third.len(), 1);
    assert!(next.is_empty());
    let (newest, _) = page("", true);
    assert_eq!(newest[0].id, ids[4]);
    assert!(c
        .list(&v1::ListJobsRequest {
            page_size: 5000,
            ..Default::default()
        })
        .is_err());
    assert!(matches!(
        c.delete(ids[0]).await,
        Err(StateError::Running { .. })
    ));
    c.cancel(ids[0]).await.unwrap();
    c.delete(ids[0]).await.unwrap();
    assert!(matches!(c.get(ids[0]), Err(StateError::NoJob(_))));
    drop(c);
    let c = f.coordinator(60_000, 3);
    assert!(
        matches!(c.get(ids[0]), Err(StateError::NoJob(_))),
        "deleted for good"
    );
    assert!(c.get(ids[1]).is_ok());
}

#[test]
fn the_workers_table_is_bounded() {
    let f = Fixture::new("workers");
    let c = f.coordinator(60_000, 3);
    for _ in 0..limits::WORKERS + 10 {
        c.register("w").unwrap();
    }
    assert_eq!(c.gauges().workers_known, limits::WORKERS as u64);
    // Unknown ids (workers from before a restart) do not grow it either.
    for id in 1..=10 {
        c.acquire(id).unwrap();
    }
    assert_eq!(c.gauges().workers_known, limits::WORKERS as u64);
}

#[tokio::test]
async fn requests_over_a_limit_are_refused_naming_it() {
    let f = Fixture::new("limits");
    let c = f.coordinator(60_000, 3);
    let cases = [
        v1::SubmitRequest {
            label: "x".repeat(limits::LABEL_BYTES + 1),
            ..f.request()
        },
        v1::SubmitRequest {
            inputs: vec![format!("/{}", "y".repeat(limits::PATH_BYTES))],
            ..f.request()
        },
        v1::SubmitRequest {
            options: Some(v1::AnalysisOptions {
                komi_sweep: vec![6.5; limits::KOMI_SWEEP + 1],
                ..Default::default()
            }),
            ..f.request()
        },
        v1::SubmitRequest {
            options: Some(v1::AnalysisOptions {
                rules: vec!["jpd_a".into(), "jpd_a".into()],
                ..Default::default()
            }),
            ..f.request()
        },
    ];
    for req in cases {
        match c.submit(req).await {
            Err(StateError::BadRequest(m)) => {
                assert!(m.contains("limit") || m.contains("twice"), "{m}");
                assert!(m.len() < 300, "{m}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(c.register(&"n".repeat(300)).is_err());
}

/// The stored row of shard `n` of job `job`.
fn stored(store: &MemoryStore, job: u64, n: u32) -> super::super::store::ShardRow {
    store
        .load()
        .jobs
        .into_iter()
        .find(|j| j.id == job)
        .and_then(|j| j.shards.into_iter().find(|s| s.shard == n))
        .expect("a stored shard")
}

fn count(c: &AtomicU64) -> u64 {
    c.load(std::sync::atomic::Ordering::Relaxed)
}

#[tokio::test]
async fn a_lease_lapses_at_its_deadline_and_its_shard_is_queued_first() {
    let f = Fixture::new("deadline");
    let (c, clock, store) = f.fake(1_000, 3);
    let job = c.submit(f.request()).await.unwrap();
    let w = c.register("w").unwrap();
    let first = acquire(&c, w);
    clock.advance(Duration::from_millis(999));
    c.reap();
    let now = c.get(job.id).unwrap();
    assert_eq!((now.shards_leased, now.lease_expiries), (1, 0), "{now:?}");
    clock.advance(Duration::from_millis(1));
    c.reap();
    let now = c.get(job.id).unwrap();
    assert_eq!(
        (now.shards_leased, now.shards_pending, now.lease_expiries),
        (0, 3, 1),
        "{now:?}"
    );
    assert_eq!(count(&c.counters.lease_expiries), 1);
    assert!(
        !c.heartbeat(first.lease_id, 1),
        "a lapsed lease is told to stop"
    );
    let row = stored(&store, job.id, first.shard);
    assert_eq!((row.state.as_str(), row.attempts), ("pending", 1));
    assert!(row.error.unwrap().contains("lapsed"));
    // Ahead of the shards never leased, under a new lease.
    let again = acquire(&c, w);
    assert_eq!(again.shard, first.shard);
    assert_ne!(again.lease_id, first.lease_id);
    assert_eq!(stored(&store, job.id, first.shard).attempts, 2);
}

#[tokio::test]
async fn heartbeats_keep_a_lease_past_its_first_deadline() {
    let f = Fixture::new("heartbeat");
    let (c, clock, _) = f.fake(1_000, 3);
    let job = c.submit(f.request()).await.unwrap();
    let w = c.register("w").unwrap();
    let l = acquire(&c, w);
    for games in 1..=5 {
        clock.advance(Duration::from_millis(600));
        c.reap();
        assert!(c.heartbeat(l.lease_id, games), "after {games} heartbeats");
    }
    // Three seconds after it was issued, never a second without a heartbeat.
    let now = c.get(job.id).unwrap();
    assert_eq!(
        (now.shards_leased, now.lease_expiries, now.games),
        (1, 0, 5),
        "{now:?}"
    );
    clock.advance(Duration::from_millis(999));
    c.reap();
    assert_eq!(c.get(job.id).unwrap().shards_leased, 1);
    clock.advance(Duration::from_millis(1));
    c.reap();
    assert_eq!(c.get(job.id).unwrap().lease_expiries, 1);
    assert!(!c.heartbeat(l.lease_id, 6));
}

#[tokio::test]
async fn a_late_completion_after_another_lease_completed_is_refused_and_not_counted() {
    let f = Fixture::new("late");
    let (c, clock, store) = f.fake(1_000, 3);
    let job = c.submit(f.request()).await.unwrap();
    let (a, b) = (c.register("a").unwrap(), c.register("b").unwrap());
    let slow = acquire(&c, a);
    clock.advance(Duration::from_secs(1));
    c.reap();
    let fast = acquire(&c, b);
    assert_eq!(fast.shard, slow.shard);
    finish_shard(&c, &fast, 4).await;
    // The lapsed lease finishes after all: its part is not used.
    part(&slow, 4);
    let late = c
        .complete(slow.lease_id, slow.job_id, slow.shard, summary(4))
        .await;
    assert!(matches!(late, Err(StateError::Lease { .. })), "{late:?}");
    assert!(!c.heartbeat(slow.lease_id, 4));
    let now = c.get(job.id).unwrap();
    assert_eq!(
        (now.games, now.shards_done),
        (4, 1),
        "counted once: {now:?}"
    );
    assert_eq!(count(&c.counters.games), 4);
    assert_eq!(count(&c.counters.completions), 1);
    assert_eq!(count(&c.counters.refused_completions), 1);
    let row = stored(&store, job.id, fast.shard);
    assert_eq!(row.state, "done");
    assert_eq!(row.lease, Some(fast.lease_id), "the accepted lease's part");
    assert_eq!(row.summary.map(|s| s.games), Some(4));
}

#[tokio::test]
async fn a_lapsed_lease_completing_while_its_shard_waits_ends_the_shard_once() {
    let f = Fixture::new("waits");
    let (c, clock, _) = f.fake(1_000, 3);
    let job = c.submit(f.request()).await.unwrap();
    let w = c.register("w").unwrap();
    let slow = acquire(&c, w);
    clock.advance(Duration::from_secs(2));
    c.reap();
    assert_eq!(c.get(job.id).unwrap().shards_pending, 3);
    finish_shard(&c, &slow, 3).await;
    // A retry of the same completion is fine, and adds nothing.
    c.complete(slow.lease_id, slow.job_id, slow.shard, summary(3))
        .await
        .unwrap();
    let now = c.get(job.id).unwrap();
    assert_eq!((now.shards_done, now.games), (1, 3), "{now:?}");
    assert_eq!(count(&c.counters.completions), 1);
    // The queued entry of the done shard is skipped.
    let rest: Vec<u32> = (0..2).map(|_| acquire(&c, w).shard).collect();
    assert!(!rest.contains(&slow.shard), "{rest:?}");
    assert!(c.acquire(w).unwrap().is_none());
}

#[tokio::test]
async fn a_late_completion_after_the_shard_failed_is_refused() {
    let f = Fixture::new("failedlate");
    let (c, clock, _) = f.fake(1_000, 1);
    let job = c.submit(f.request()).await.unwrap();
    let w = c.register("w").unwrap();
    let l = acquire(&c, w);
    clock.advance(Duration::from_secs(1));
    c.reap();
    let now = c.get(job.id).unwrap();
    assert_eq!(now.shards_failed, 1, "one attempt, used: {now:?}");
    part(&l, 2);
    let late = c.complete(l.lease_id, l.job_id, l.shard, summary(2)).await;
    assert!(matches!(late, Err(StateError::Lease { .. })), "{late:?}");
    assert_eq!(c.get(job.id).unwrap().games, 0);
}

#[tokio::test]
async fn ended_jobs_are_forgotten_after_their_retention_and_running_ones_never() {
    let f = Fixture::new("retention");
    let clock = Arc::new(FakeClock::new());
    let store = MemoryStore::new(7);
    let config = Config {
        retention: Some(Duration::from_secs(3600)),
        ..f.config(60_000, 3)
    };
    let c = f.on(config.clone(), &store, &clock);
    let old = c.submit(f.request_into("old")).await.unwrap().id;
    c.cancel(old).await.unwrap();
    let running = c.submit(f.request_into("running")).await.unwrap().id;
    clock.advance(Duration::from_secs(3599));
    c.reap();
    assert!(c.get(old).is_ok(), "kept for its retention");
    clock.advance(Duration::from_secs(2));
    c.reap();
    assert!(matches!(c.get(old), Err(StateError::NoJob(_))));
    assert!(c.get(running).is_ok(), "a running job never expires");
    let ids: Vec<u64> = store.load().jobs.iter().map(|j| j.id).collect();
    assert_eq!(ids, [running], "forgotten in the store too");
    let restarted = f.on(config, &store, &clock);
    assert!(matches!(restarted.get(old), Err(StateError::NoJob(_))));
}

#[tokio::test]
async fn workers_unseen_are_counted_inactive_then_forgotten() {
    let f = Fixture::new("unseen");
    let (c, clock, _) = f.fake(1_000, 3);
    let w = c.register("w").unwrap();
    assert_eq!(
        (c.gauges().workers_active, c.gauges().workers_known),
        (1, 1)
    );
    clock.advance(Duration::from_secs(10));
    assert_eq!(
        (c.gauges().workers_active, c.gauges().workers_known),
        (0, 1)
    );
    c.acquire(w).unwrap();
    assert_eq!(c.gauges().workers_active, 1, "seen again");
    clock.advance(Duration::from_secs(599));
    c.reap();
    assert_eq!(c.gauges().workers_known, 1);
    clock.advance(Duration::from_secs(1));
    c.reap();
    assert_eq!(c.gauges().workers_known, 0);
}

#[tokio::test]
async fn a_store_that_cannot_write_refuses_changes_until_it_recovers() {
    let f = Fixture::new("degraded");
    let (c, clock, store) = f.fake(1_000, 3);
    let job = c.submit(f.request_into("first")).await.unwrap();
    let w = c.register("w").unwrap();
    let held = acquire(&c, w);
    store.break_disk("disk full");
    let refused = c.submit(f.request_into("second")).await;
    assert!(
        matches!(refused, Err(StateError::Unavailable(_))),
        "{refused:?}"
    );
    assert!(c.health().borrow().is_some(), "NOT_SERVING");
    assert!(matches!(c.acquire(w), Err(StateError::Unavailable(_))));
    // A degraded coordinator lets no lease lapse: it could not record it.
    clock.advance(Duration::from_secs(5));
    c.reap();
    assert_eq!(c.get(job.id).unwrap().lease_expiries, 0);
    assert!(!c.recover().await, "the disk is still full");
    store.fix_disk();
    assert!(c.recover().await);
    assert!(c.health().borrow().is_none(), "SERVING again");
    assert_eq!(store.write_errors(), 1);
    // Rebuilt from the store: the refused job is not there, the lease is.
    assert_eq!(c.list(&v1::ListJobsRequest::default()).unwrap().0.len(), 1);
    assert!(c.heartbeat(held.lease_id, 1));
    assert!(c.acquire(w).unwrap().is_some());
}

#[tokio::test]
async fn a_shard_whose_stored_files_cannot_run_fails_at_load() {
    let f = Fixture::new("unreadable");
    let clock = Arc::new(FakeClock::new());
    let store = MemoryStore::new(9);
    let job = {
        let c = f.on(f.config(1_000, 3), &store, &clock);
        c.submit(f.request()).await.unwrap()
    };
    // As a state file written before byte-range parts would load.
    let mut loaded = store.load();
    let shard = &mut loaded.jobs[0].shards[1];
    shard.files.clear();
    shard.unreadable = Some("a game range 0..9 (protocol 2 and before)".into());
    let c = Coordinator::with_clock(
        f.config(1_000, 3),
        Arc::new(store.clone()),
        loaded,
        clock.clone(),
    )
    .unwrap();
    let now = c.get(job.id).unwrap();
    assert_eq!((now.shards_failed, now.shards_pending), (1, 2), "{now:?}");
    assert_eq!(now.failures[0].shard, 1);
    assert!(
        now.failures[0].reason.contains("protocol 2 and before"),
        "{now:?}"
    );
    assert_eq!(stored(&store, job.id, 1).state, "failed", "and stored so");
    // The others run; the job then ends without publishing.
    let w = c.register("w").unwrap();
    for _ in 0..2 {
        let l = acquire(&c, w);
        assert_ne!(l.shard, 1);
        finish_shard(&c, &l, 1).await;
    }
    let end = ended(&c, job.id).await;
    assert_eq!(end.state, v1::JobState::DoneWithFailures as i32, "{end:?}");
}
