//! `verdict worker`: pulls shards from the coordinator and analyses them on
//! every core with the same code as `verdict run`.
//!
//! The analysis runs on a rayon pool off the async runtime; the runtime
//! only heartbeats, talks to the coordinator and watches for SIGTERM. When
//! the coordinator cannot be reached the worker retries with exponential
//! backoff (with jitter), forever: a restarted coordinator finds its
//! workers again. On SIGTERM it takes no new shard, finishes the current one
//! if that takes less than `--drain-seconds`, and otherwise hands it back.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::watch;
use tonic::{Code, Status};
use verdict_proto::v1;
use verdict_proto::v1::workers_client::WorkersClient;
use verdict_worker::shard::{run_shard, ShardError, ShardFile};

use super::args::WorkerArgs;
use super::client::{authed, endpoint, Authed};
use super::server::{init_logs, stop_signal};

/// Exponential backoff with jitter, between 100 ms and 5 s.
#[derive(Debug)]
struct Backoff {
    next: Duration,
    seed: u64,
}

impl Backoff {
    fn new() -> Backoff {
        Backoff {
            next: Duration::from_millis(100),
            seed: u64::from(std::process::id()),
        }
    }

    fn reset(&mut self) {
        self.next = Duration::from_millis(100);
    }

    /// The next wait: the current step plus up to half of it again.
    fn step(&mut self) -> Duration {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let jitter = (self.seed >> 33) % (self.next.as_millis() as u64 / 2 + 1);
        let wait = self.next + Duration::from_millis(jitter);
        self.next = (self.next * 2).min(Duration::from_secs(5));
        wait
    }
}

/// Whether an error means "try again later" rather than "this is wrong".
fn transient(s: &Status) -> bool {
    matches!(
        s.code(),
        Code::Unavailable
            | Code::Unknown
            | Code::DeadlineExceeded
            | Code::Cancelled
            | Code::Aborted
            | Code::Internal
    )
}

struct Worker {
    client: WorkersClient<Authed>,
    pool: Arc<rayon::ThreadPool>,
    threads: usize,
    name: String,
    drain: Duration,
    stop: watch::Receiver<bool>,
}

pub fn run(args: WorkerArgs) -> anyhow::Result<ExitCode> {
    init_logs(args.log_json);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .thread_name(|i| format!("analyse-{i}"))
        .build()
        .context("building the analysis thread pool")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let result = runtime.block_on(async move {
        let channel = endpoint(&args.connect)?.connect_lazy();
        let client =
            WorkersClient::new(authed(channel, &args.connect)?).max_decoding_message_size(64 << 20);
        let (stop_tx, stop) = watch::channel(false);
        tokio::spawn(async move {
            stop_signal().await;
            tracing::info!("asked to stop: taking no new shard");
            let _ = stop_tx.send(true);
        });
        let name = args.name.clone().unwrap_or_else(|| {
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|h| h.trim().to_string())
                .unwrap_or_else(|_| "worker".into());
            format!("{host}-{}", std::process::id())
        });
        let mut w = Worker {
            client,
            threads: pool.current_num_threads(),
            pool: Arc::new(pool),
            name,
            drain: Duration::from_secs(args.drain_seconds),
            stop,
        };
        w.run().await.map_err(super::client::refused)?;
        Ok(ExitCode::SUCCESS)
    });
    // A shard handed back may still be finishing its current file.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

impl Worker {
    fn stopping(&self) -> bool {
        *self.stop.borrow()
    }

    /// Sleeps `d`, or less if asked to stop.
    async fn pause(&mut self, d: Duration) {
        let mut stop = self.stop.clone();
        tokio::select! {
            _ = tokio::time::sleep(d) => {}
            _ = stop.wait_for(|s| *s) => {}
        }
    }

    /// Registers, retrying while the coordinator cannot be reached; a
    /// refusal (wrong token, another protocol) is final.
    async fn register(&mut self) -> Result<Option<(u64, Duration)>, Status> {
        let mut backoff = Backoff::new();
        while !self.stopping() {
            let req = v1::RegisterRequest {
                name: self.name.clone(),
                threads: self.threads as u32,
                protocol: verdict_proto::PROTOCOL_VERSION,
            };
            match self.client.register(req).await {
                Ok(r) => {
                    let r = r.into_inner();
                    tracing::info!(worker = r.worker_id, name = %self.name, threads = self.threads, "registered");
                    return Ok(Some((
                        r.worker_id,
                        Duration::from_millis(u64::from(r.heartbeat_ms.max(50))),
                    )));
                }
                Err(s) if matches!(s.code(), Code::Unauthenticated | Code::FailedPrecondition) => {
                    return Err(s)
                }
                Err(s) => {
                    let wait = backoff.step();
                    tracing::warn!(error = %s.message(), code = ?s.code(), retry_in = ?wait, "cannot register");
                    self.pause(wait).await;
                }
            }
        }
        Ok(None)
    }

    async fn run(&mut self) -> Result<(), Status> {
        let Some((id, heartbeat)) = self.register().await? else {
            return Ok(());
        };
        let mut backoff = Backoff::new();
        while !self.stopping() {
            // Wait at the coordinator for work (long poll), but not past a stop.
            let req = v1::AcquireRequest {
                worker_id: id,
                wait_ms: 10_000,
            };
            let mut stop = self.stop.clone();
            let answer = tokio::select! {
                a = self.client.acquire(req) => a,
                _ = stop.wait_for(|s| *s) => break,
            };
            match answer {
                Ok(r) => {
                    backoff.reset();
                    let r = r.into_inner();
                    match r.lease {
                        Some(lease) => self.work(lease, heartbeat).await,
                        None => {
                            let wait = Duration::from_millis(u64::from(r.retry_after_ms.max(100)));
                            self.pause(wait).await;
                        }
                    }
                }
                Err(s) => {
                    let wait = backoff.step();
                    tracing::warn!(error = %s.message(), code = ?s.code(), retry_in = ?wait, "cannot reach the coordinator");
                    self.pause(wait).await;
                }
            }
        }
        tracing::info!("stopped");
        Ok(())
    }

    /// Analyses one leased shard, heartbeating, and reports how it ended.
    async fn work(&mut self, lease: v1::Lease, heartbeat: Duration) {
        let id = lease.lease_id;
        tracing::info!(
            job = lease.job_id,
            shard = lease.shard,
            lease = id,
            files = lease.files.len(),
            "shard leased"
        );
        let files: Result<Vec<ShardFile>, _> =
            lease.files.iter().map(ShardFile::try_from).collect();
        let options = verdict_proto::run_options(
            &lease.options.clone().unwrap_or_default(),
            PathBuf::from(&lease.out),
            0,
        );
        let (files, options) = match (files, options) {
            (Ok(f), Ok(o)) => (f, o),
            (Err(e), _) | (_, Err(e)) => {
                self.give_up(id, &format!("bad lease: {e}"), false).await;
                return;
            }
        };
        let games = Arc::new(AtomicU64::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let pool = self.pool.clone();
        let shard = lease.shard;
        let task = {
            let (games, cancel) = (games.clone(), cancel.clone());
            tokio::task::spawn_blocking(move || {
                run_shard(&files, shard, &options, &pool, &games, &cancel)
            })
        };
        tokio::pin!(task);
        let mut tick = tokio::time::interval(heartbeat);
        tick.tick().await;
        let mut stop = self.stop.clone();
        let mut drain_until: Option<Instant> = None;
        let mut lost = false;
        let result = loop {
            let deadline = drain_until.map_or_else(
                || tokio::time::Instant::now() + Duration::from_secs(3600 * 24),
                tokio::time::Instant::from_std,
            );
            tokio::select! {
                r = &mut task => break r,
                _ = tick.tick() => {
                    let req = v1::HeartbeatRequest { lease_id: id, games: games.load(Ordering::Relaxed) };
                    match self.client.heartbeat(req).await {
                        Ok(r) if !r.get_ref().keep => {
                            tracing::warn!(lease = id, "lease lost (lapsed or job cancelled): dropping the shard");
                            cancel.store(true, Ordering::Relaxed);
                            lost = true;
                        }
                        Ok(_) => {}
                        Err(s) => tracing::warn!(lease = id, error = %s.message(), "heartbeat failed"),
                    }
                }
                _ = stop.wait_for(|s| *s), if drain_until.is_none() => {
                    tracing::info!(lease = id, drain = ?self.drain, "finishing the current shard before stopping");
                    drain_until = Some(Instant::now() + self.drain);
                }
                _ = tokio::time::sleep_until(deadline), if drain_until.is_some() => {
                    cancel.store(true, Ordering::Relaxed);
                    self.give_up(id, "worker stopping", true).await;
                    tracing::info!(lease = id, "shard handed back");
                    return;
                }
            }
        };
        match result {
            Ok(Ok(outcome)) => {
                let req = v1::CompleteRequest {
                    lease_id: id,
                    job_id: lease.job_id,
                    shard,
                    summary: Some((&outcome.summary).into()),
                };
                let mut backoff = Backoff::new();
                // The part file is written: report it until the coordinator
                // hears (it may be restarting), or it says the job is gone.
                loop {
                    match self.client.complete(req.clone()).await {
                        Ok(_) => {
                            tracing::info!(
                                job = lease.job_id,
                                shard,
                                games = outcome.summary.games,
                                "shard done"
                            );
                            return;
                        }
                        Err(s) if transient(&s) => {
                            let wait = backoff.step();
                            tracing::warn!(error = %s.message(), retry_in = ?wait, "cannot report a finished shard");
                            tokio::time::sleep(wait).await;
                        }
                        Err(s) => {
                            tracing::warn!(error = %s.message(), code = ?s.code(), "completion refused");
                            return;
                        }
                    }
                }
            }
            Ok(Err(ShardError::Cancelled)) if lost => {}
            Ok(Err(e)) => self.give_up(id, &e.to_string(), false).await,
            Err(join) => {
                self.give_up(id, &format!("analysis panicked: {join}"), false)
                    .await
            }
        }
    }

    async fn give_up(&mut self, lease: u64, reason: &str, release: bool) {
        let req = v1::FailRequest {
            lease_id: lease,
            reason: reason.to_string(),
            release,
        };
        if let Err(s) = self.client.fail(req).await {
            // The lease will lapse instead.
            tracing::warn!(lease, error = %s.message(), "cannot report the shard");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_a_cap() {
        let mut b = Backoff::new();
        let waits: Vec<Duration> = (0..10).map(|_| b.step()).collect();
        assert!(waits[0] >= Duration::from_millis(100) && waits[0] <= Duration::from_millis(150));
        assert!(waits[3] >= Duration::from_millis(800));
        assert!(waits.iter().all(|w| *w <= Duration::from_millis(7500)));
        b.reset();
        assert!(b.step() <= Duration::from_millis(150));
    }
}
