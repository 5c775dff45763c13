//! Prometheus metrics over plain HTTP: a few lines of tokio answer
//! `GET /metrics` in the text exposition format, so no HTTP framework is
//! needed beside gRPC.

use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::state::Coordinator;

/// The metrics page.
pub fn render(c: &Coordinator) -> String {
    let g = c.gauges();
    let k = &c.counters;
    let mut s = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, rows: &[(String, String)]| {
        let _ = writeln!(s, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, v) in rows {
            let _ = writeln!(s, "{name}{labels} {v}");
        }
    };
    let by =
        |label: &str, m: &std::collections::BTreeMap<&'static str, u64>, all: &[&'static str]| {
            all.iter()
                .map(|st| {
                    (
                        format!("{{{label}=\"{st}\"}}"),
                        m.get(st).copied().unwrap_or(0).to_string(),
                    )
                })
                .collect::<Vec<_>>()
        };
    metric(
        "verdict_jobs",
        "gauge",
        "Jobs by state.",
        &by(
            "state",
            &g.jobs,
            &["running", "done", "done_with_failures", "cancelled"],
        ),
    );
    metric(
        "verdict_shards",
        "gauge",
        "Shards by state.",
        &by(
            "state",
            &g.shards,
            &["pending", "leased", "done", "failed", "cancelled"],
        ),
    );
    let one = |v: u64| [(String::new(), v.to_string())];
    metric(
        "verdict_games_total",
        "counter",
        "Games in completed shards (rate() gives games/s).",
        &one(k.games.load(Ordering::Relaxed)),
    );
    metric(
        "verdict_games_per_second",
        "gauge",
        "Games analysed per second over the last ten seconds (running shards included).",
        &[(
            String::new(),
            format!(
                "{:.1}",
                f64::from_bits(k.games_per_second.load(Ordering::Relaxed))
            ),
        )],
    );
    metric(
        "verdict_leases_total",
        "counter",
        "Shard leases handed out.",
        &one(k.leases.load(Ordering::Relaxed)),
    );
    metric(
        "verdict_shard_completions_total",
        "counter",
        "Shards completed.",
        &one(k.completions.load(Ordering::Relaxed)),
    );
    metric(
        "verdict_shard_failures_total",
        "counter",
        "Shard attempts reported failed by workers.",
        &one(k.failures.load(Ordering::Relaxed)),
    );
    metric(
        "verdict_lease_expiries_total",
        "counter",
        "Leases that lapsed without a heartbeat.",
        &one(k.lease_expiries.load(Ordering::Relaxed)),
    );
    metric(
        "verdict_refused_completions_total",
        "counter",
        "Completions refused: a lease not issued for that shard, or no longer current.",
        &one(k.refused_completions.load(Ordering::Relaxed)),
    );
    metric(
        "verdict_bad_parts_total",
        "counter",
        "Parts missing or holding other row counts than reported when a job ended (their shards ran again).",
        &one(k.bad_parts.load(Ordering::Relaxed)),
    );
    metric(
        "verdict_state_write_errors_total",
        "counter",
        "State-file transactions that failed (the coordinator then refuses changes until it can write again).",
        &one(c.state_write_errors()),
    );
    metric(
        "verdict_state_writable",
        "gauge",
        "1 while the state file can be written and changes are accepted, 0 while they are refused.",
        &one(u64::from(c.health().borrow().is_none())),
    );
    metric(
        "verdict_workers",
        "gauge",
        "Workers seen lately (active) and since start (known).",
        &[
            (
                "{state=\"active\"}".to_string(),
                g.workers_active.to_string(),
            ),
            ("{state=\"known\"}".to_string(), g.workers_known.to_string()),
        ],
    );
    s
}

/// Samples the games analysed once a second and keeps the rate over the
/// last ten seconds for `verdict_games_per_second`.
pub async fn sample_rate(c: Arc<Coordinator>) {
    let mut samples = std::collections::VecDeque::with_capacity(11);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        samples.push_back((std::time::Instant::now(), c.games_seen()));
        if samples.len() > 11 {
            samples.pop_front();
        }
        let (t0, g0) = samples[0];
        let (t1, g1) = samples[samples.len() - 1];
        let secs = (t1 - t0).as_secs_f64();
        // Lapsed leases lose their progress: never a negative rate.
        let rate = if secs > 0.0 {
            g1.saturating_sub(g0) as f64 / secs
        } else {
            0.0
        };
        c.counters
            .games_per_second
            .store(rate.to_bits(), Ordering::Relaxed);
    }
}

/// Metrics connections served at once; more wait in the listen queue, so
/// idle clients can never take every file descriptor.
pub const MAX_CONNECTIONS: usize = 32;

/// Answers every connection with the metrics page (or 404 for other paths),
/// at most [`MAX_CONNECTIONS`] at a time, each within five seconds.
pub async fn serve(listener: TcpListener, c: Arc<Coordinator>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let mut sock = match listener.accept().await {
            Ok((sock, _)) => sock,
            Err(e) => {
                // Out of file descriptors: an accept fails at once again.
                tracing::debug!(error = %e, "cannot accept a metrics connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let c = c.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut buf = vec![0u8; 2048];
            let mut n = 0;
            // Read the request head (bounded in size and time); only the
            // request line matters.
            let read = tokio::time::timeout(Duration::from_secs(5), async {
                while n < buf.len() {
                    match sock.read(&mut buf[n..]).await {
                        Ok(0) | Err(_) => break,
                        Ok(k) => n += k,
                    }
                    if buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
            })
            .await;
            if read.is_err() {
                return;
            }
            let head = String::from_utf8_lossy(&buf[..n]);
            let path = head.split_whitespace().nth(1).unwrap_or("");
            let (status, body) = if path == "/metrics" || path.starts_with("/metrics?") {
                ("200 OK", render(&c))
            } else {
                ("404 Not Found", "try /metrics\n".to_string())
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            // A client that does not read gives its slot back all the same.
            let _ = tokio::time::timeout(Duration::from_secs(5), async {
                let _ = sock.write_all(reply.as_bytes()).await;
                let _ = sock.shutdown().await;
            })
            .await;
        });
    }
}
