//! The worker process (`verdict worker`): pulls shards from the coordinator
//! and analyses them on every core with the same code as `verdict run`.
//!
//! The analysis runs on a rayon pool off the async runtime; the runtime
//! only heartbeats, talks to the coordinator and watches for SIGTERM. When
//! the coordinator cannot be reached the worker retries with exponential
//! backoff (with jitter), forever: a restarted coordinator finds its
//! workers again. On SIGTERM it takes no new shard, finishes the current one
//! if that takes less than `--drain-seconds`, and otherwise hands it back.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tonic::{Code, Status};
use verdict_proto::v1;
use verdict_proto::v1::workers_client::WorkersClient;

use crate::connect::{authed, endpoint, Authed, ConnectError, Target};
use crate::shard::{run_shard, PartTarget, ShardError, ShardFile};

/// How a worker process runs (`verdict worker`'s options).
#[derive(Clone, Debug)]
pub struct Config {
    pub coordinator: Target,
    /// Analysis threads; 0 uses every core.
    pub threads: usize,
    /// Shown in the coordinator's logs (default: host name and process id).
    pub name: Option<String>,
    /// On SIGTERM, finish the current shard if it ends within this long;
    /// a finished shard is reported for as long too.
    pub drain: Duration,
    pub log_json: bool,
    /// The GNU Go program, started when a job asks for `--referee gnugo`.
    pub gnugo_bin: String,
}

/// How a worker process ended, when it ended on its own.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Asked to stop, nothing left unreported.
    Clean,
    /// Asked to stop before the coordinator heard that this shard was done:
    /// it will run again elsewhere.
    Unreported { job: u64, shard: u32 },
}

/// Why a worker process could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error("cannot start: {0}")]
    Start(std::io::Error),
    #[error("building the analysis thread pool: {0}")]
    Pool(rayon::ThreadPoolBuildError),
    /// A final refusal (wrong token, another protocol).
    #[error("the coordinator refused: {} ({:?})", .0.message(), .0.code())]
    Refused(Box<Status>),
}

/// Sets up structured logging on standard error.
pub fn init_logs(json: bool) {
    let level = std::env::var("VERDICT_LOG")
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(tracing::Level::INFO);
    let builder = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// Resolves when the process is asked to stop (SIGTERM or Ctrl-C).
pub async fn stop_signal() {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing a SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Raises this process's open-file limit to its hard limit: every worker
/// connection and staging lock is a file descriptor, and the default soft
/// limit (often 1024) is low for a coordinator of many workers.
pub fn raise_fd_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut lim = getrlimit(Resource::Nofile);
    if lim.current < lim.maximum {
        lim.current = lim.maximum;
        let _ = setrlimit(Resource::Nofile, lim);
    }
}

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
    /// When the stop signal came: a finished shard is reported until
    /// `drain` after it, not forever.
    stopped_at: Option<Instant>,
    gnugo_bin: String,
    /// Started for the first job that asks for it, kept for the next.
    gnugo: Option<Arc<crate::eval::GnuGoReferee>>,
}

/// A shard finished whose completion the coordinator never heard.
#[derive(Debug)]
struct Unreported {
    job: u64,
    shard: u32,
}

/// Encoded summaries larger than this are sent in chunks (`CompleteStream`).
const CHUNK_BYTES: usize = 1 << 20;

/// Runs a worker until it is asked to stop (SIGTERM or Ctrl-C).
///
/// # Errors
/// A coordinator URL or TLS setting that cannot work, or a final refusal
/// (wrong token, another protocol version).
pub fn run(config: Config) -> Result<Stopped, ProcessError> {
    init_logs(config.log_json);
    raise_fd_limit();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .thread_name(|i| format!("analyse-{i}"))
        .build()
        .map_err(ProcessError::Pool)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ProcessError::Start)?;
    let result = runtime.block_on(async move {
        // A coordinator that stopped answering (paused, or behind a dead
        // link) must not hold a request forever: acquire waits at most 30 s.
        let channel = endpoint(&config.coordinator)?
            .timeout(Duration::from_secs(45))
            .connect_lazy();
        let client = WorkersClient::new(authed(channel, &config.coordinator)?)
            .max_decoding_message_size(64 << 20);
        let (stop_tx, stop) = watch::channel(false);
        tokio::spawn(async move {
            stop_signal().await;
            tracing::info!("asked to stop: taking no new shard");
            let _ = stop_tx.send(true);
        });
        let name = config.name.clone().unwrap_or_else(|| {
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
            drain: config.drain,
            stop,
            stopped_at: None,
            gnugo_bin: config.gnugo_bin.clone(),
            gnugo: None,
        };
        match w
            .run()
            .await
            .map_err(|s| ProcessError::Refused(Box::new(s)))?
        {
            None => Ok(Stopped::Clean),
            Some(u) => Ok(Stopped::Unreported {
                job: u.job,
                shard: u.shard,
            }),
        }
    });
    // A shard handed back may still be finishing its current file.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

impl Worker {
    fn stopping(&mut self) -> bool {
        let stop = *self.stop.borrow();
        if stop && self.stopped_at.is_none() {
            self.stopped_at = Some(Instant::now());
        }
        stop
    }

    /// Past the drain period after a stop signal.
    fn drained(&mut self) -> bool {
        self.stopping() && self.stopped_at.is_some_and(|t| t.elapsed() >= self.drain)
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
                Err(s)
                    if matches!(
                        s.code(),
                        Code::Unauthenticated | Code::FailedPrecondition | Code::InvalidArgument
                    ) =>
                {
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

    /// Leases and analyses shards until stopped; returns the shard left
    /// unreported, if the stop came before the coordinator heard of it.
    async fn run(&mut self) -> Result<Option<Unreported>, Status> {
        let Some((id, heartbeat)) = self.register().await? else {
            return Ok(None);
        };
        let mut backoff = Backoff::new();
        while !self.stopping() {
            // Wait at the coordinator for work (long poll), but not past a stop.
            let req = v1::AcquireRequest {
                worker_id: id,
                wait_ms: 10_000,
                protocol: verdict_proto::PROTOCOL_VERSION,
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
                        Some(lease) => {
                            if let Some(u) = self.work(lease, heartbeat).await {
                                return Ok(Some(u));
                            }
                        }
                        None => {
                            let wait = Duration::from_millis(u64::from(r.retry_after_ms.max(100)));
                            self.pause(wait).await;
                        }
                    }
                }
                Err(s) if matches!(s.code(), Code::Unauthenticated | Code::FailedPrecondition) => {
                    return Err(s)
                }
                Err(s) => {
                    let wait = backoff.step();
                    tracing::warn!(error = %s.message(), code = ?s.code(), retry_in = ?wait, "cannot reach the coordinator");
                    self.pause(wait).await;
                }
            }
        }
        tracing::info!("stopped");
        Ok(None)
    }

    /// Analyses one leased shard, heartbeating, and reports how it ended;
    /// returns the shard if it was done but could not be reported before
    /// the drain period ran out.
    async fn work(&mut self, lease: v1::Lease, heartbeat: Duration) -> Option<Unreported> {
        let id = lease.lease_id;
        tracing::info!(
            job = lease.job_id,
            shard = lease.shard,
            lease = format!("{id:016x}"),
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
        let (files, mut options) = match (files, options) {
            (Ok(f), Ok(o)) => (f, o),
            (Err(e), _) | (_, Err(e)) => {
                self.give_up(id, &format!("bad lease: {e}"), false).await;
                return None;
            }
        };
        if let Some(choice) = options.referee.as_mut() {
            match self.referee().await {
                Ok(r) => choice.referee = Some(r),
                Err(why) => {
                    // Counted as an attempt: a job no worker can referee
                    // fails with this reason instead of going round.
                    tracing::warn!(lease = format!("{id:016x}"), error = %why, "cannot start the job's referee");
                    self.give_up(id, &why, false).await;
                    return None;
                }
            }
        }
        if lease.staging.is_empty() {
            self.give_up(id, "bad lease: no staging folder", false)
                .await;
            return None;
        }
        let target = PartTarget {
            dir: PathBuf::from(&lease.staging),
            name: crate::publish::staged_part_name(lease.shard, id),
        };
        let games = Arc::new(AtomicU64::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let pool = self.pool.clone();
        let shard = lease.shard;
        let task = {
            let (games, cancel) = (games.clone(), cancel.clone());
            tokio::task::spawn_blocking(move || {
                run_shard(&files, &target, &options, &pool, &games, &cancel)
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
                _ = tick.tick(), if !lost => {
                    let req = v1::HeartbeatRequest { lease_id: id, games: games.load(Ordering::Relaxed) };
                    match self.client.heartbeat(req).await {
                        Ok(r) if !r.get_ref().keep => {
                            tracing::warn!(lease = format!("{id:016x}"), "lease lost (lapsed or job cancelled): dropping the shard");
                            cancel.store(true, Ordering::Relaxed);
                            lost = true;
                        }
                        Ok(_) => {}
                        Err(s) => tracing::warn!(lease = format!("{id:016x}"), error = %s.message(), "heartbeat failed"),
                    }
                }
                _ = stop.wait_for(|s| *s), if drain_until.is_none() => {
                    tracing::info!(lease = format!("{id:016x}"), drain = ?self.drain, "finishing the current shard before stopping");
                    self.stopping();
                    drain_until = Some(Instant::now() + self.drain);
                }
                _ = tokio::time::sleep_until(deadline), if drain_until.is_some() => {
                    cancel.store(true, Ordering::Relaxed);
                    self.give_up(id, "worker stopping", true).await;
                    tracing::info!(lease = format!("{id:016x}"), "shard handed back");
                    return None;
                }
            }
        };
        if lost {
            // Whatever the analysis gave, the lease is gone: nothing to report.
            return None;
        }
        match result {
            Ok(Ok(outcome)) => {
                let summary: v1::ShardSummary = (&outcome.summary).into();
                if self.report(id, lease.job_id, shard, summary).await {
                    tracing::info!(
                        job = lease.job_id,
                        shard,
                        games = outcome.summary.games,
                        "shard done"
                    );
                    None
                } else if self.drained() {
                    Some(Unreported {
                        job: lease.job_id,
                        shard,
                    })
                } else {
                    None
                }
            }
            Ok(Err(ShardError::Cancelled)) => None,
            Ok(Err(e)) => {
                self.give_up(id, &e.to_string(), false).await;
                None
            }
            Err(join) => {
                self.give_up(id, &format!("analysis panicked: {join}"), false)
                    .await;
                None
            }
        }
    }

    /// Reports a finished shard until the coordinator hears it (it may be
    /// restarting), says it is not wanted, or the drain period after a stop
    /// runs out. True when the coordinator took it.
    async fn report(
        &mut self,
        lease: u64,
        job: u64,
        shard: u32,
        summary: v1::ShardSummary,
    ) -> bool {
        let encoded = verdict_proto::prost::Message::encode_to_vec(&summary);
        let mut backoff = Backoff::new();
        loop {
            let sent = if encoded.len() > CHUNK_BYTES {
                let chunks: Vec<v1::CompleteChunk> = encoded
                    .chunks(CHUNK_BYTES)
                    .enumerate()
                    .map(|(i, data)| v1::CompleteChunk {
                        lease_id: if i == 0 { lease } else { 0 },
                        job_id: if i == 0 { job } else { 0 },
                        shard: if i == 0 { shard } else { 0 },
                        summary_len: if i == 0 { encoded.len() as u64 } else { 0 },
                        data: data.to_vec(),
                    })
                    .collect();
                self.client
                    .complete_stream(tokio_stream::iter(chunks))
                    .await
                    .map(|_| ())
            } else {
                let req = v1::CompleteRequest {
                    lease_id: lease,
                    job_id: job,
                    shard,
                    summary: Some(summary.clone()),
                };
                self.client.complete(req).await.map(|_| ())
            };
            match sent {
                Ok(()) => return true,
                Err(s) if transient(&s) => {
                    if self.drained() {
                        tracing::warn!(error = %s.message(), "stopping: the coordinator did not hear of the finished shard in time");
                        return false;
                    }
                    let wait = backoff.step();
                    tracing::warn!(error = %s.message(), retry_in = ?wait, "cannot report a finished shard");
                    let mut stop = self.stop.clone();
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = stop.wait_for(|s| *s), if self.stopped_at.is_none() => { self.stopping(); }
                    }
                }
                Err(s) => {
                    tracing::warn!(error = %s.message(), code = ?s.code(), "completion refused");
                    // Say why, so the job lists the real reason, not a lapse.
                    self.give_up(
                        lease,
                        &format!("the coordinator refused the completion: {}", s.message()),
                        false,
                    )
                    .await;
                    return false;
                }
            }
        }
    }

    /// GNU Go for a job's `--referee gnugo`: started once (off the async
    /// threads), then shared by every shard.
    async fn referee(&mut self) -> Result<Arc<dyn verdict_rules::analyse::Referee>, String> {
        if let Some(g) = &self.gnugo {
            return Ok(g.clone());
        }
        let program = self.gnugo_bin.clone();
        let started = tokio::task::spawn_blocking(move || crate::eval::GnuGoReferee::start(&program))
            .await
            .map_err(|e| format!("starting GNU Go: {e}"))?
            .map_err(|e| {
                format!(
                    "the job asks for --referee gnugo and worker {} cannot start GNU Go ({}): {e}; install it on the workers or start them with --gnugo-bin",
                    self.name, self.gnugo_bin
                )
            })?;
        let g = Arc::new(started);
        self.gnugo = Some(g.clone());
        Ok(g)
    }

    async fn give_up(&mut self, lease: u64, reason: &str, release: bool) {
        let req = v1::FailRequest {
            lease_id: lease,
            reason: reason.to_string(),
            release,
        };
        if let Err(s) = self.client.fail(req).await {
            // The lease will lapse instead.
            tracing::warn!(lease = format!("{lease:016x}"), error = %s.message(), "cannot report the shard");
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
