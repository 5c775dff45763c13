//! `verdict loadtest` (hidden): how many lease cycles a coordinator sustains.
//!
//! Starts a real `verdict serve` process (a fresh state file, a token), gives
//! it a job of tiny shards (one collection of empty games, split one game per
//! shard through the ordinary submit path), and runs simulated workers as
//! tasks in this process for a bounded time. Each cycle is acquire,
//! heartbeat, complete: three RPCs with the coordinator's real state
//! handling and SQLite writes, but no analysis.

use std::io::{BufRead, BufReader};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use tonic::transport::Channel;
use verdict_proto::v1;
use verdict_proto::v1::jobs_client::JobsClient;
use verdict_proto::v1::workers_client::WorkersClient;

use super::args::{ConnectArgs, LoadtestArgs};
use super::client::{authed, endpoint, refused, Authed};

/// Latencies of one kind of RPC, in microseconds.
#[derive(Debug, Default)]
struct Latencies(Vec<u32>);

impl Latencies {
    fn add(&mut self, since: Instant) {
        self.0
            .push(since.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
    }

    fn quantile(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        let i = ((self.0.len() - 1) as f64 * q).round() as usize;
        f64::from(self.0[i]) / 1000.0
    }
}

#[derive(Debug, Default)]
struct Tally {
    acquire: Latencies,
    heartbeat: Latencies,
    complete: Latencies,
    errors: u64,
    idle: u64,
}

async fn simulated_worker(channel: Authed, deadline: Instant) -> Tally {
    let mut client = WorkersClient::new(channel);
    let mut t = Tally::default();
    let Ok(r) = client
        .register(v1::RegisterRequest {
            name: "loadtest".into(),
            threads: 1,
            protocol: verdict_proto::PROTOCOL_VERSION,
        })
        .await
    else {
        t.errors += 1;
        return t;
    };
    let worker_id = r.into_inner().worker_id;
    while Instant::now() < deadline {
        let start = Instant::now();
        let lease = match client
            .acquire(v1::AcquireRequest {
                worker_id,
                wait_ms: 0,
                protocol: verdict_proto::PROTOCOL_VERSION,
            })
            .await
        {
            Ok(r) => r.into_inner().lease,
            Err(_) => {
                t.errors += 1;
                continue;
            }
        };
        t.acquire.add(start);
        let Some(lease) = lease else {
            t.idle += 1;
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let start = Instant::now();
        match client
            .heartbeat(v1::HeartbeatRequest {
                lease_id: lease.lease_id,
                games: 1,
            })
            .await
        {
            Ok(_) => t.heartbeat.add(start),
            Err(_) => t.errors += 1,
        }
        let start = Instant::now();
        match client
            .complete(v1::CompleteRequest {
                lease_id: lease.lease_id,
                job_id: lease.job_id,
                shard: lease.shard,
                summary: Some(v1::ShardSummary::default()),
            })
            .await
        {
            Ok(_) => t.complete.add(start),
            Err(_) => t.errors += 1,
        }
    }
    t
}

pub fn run(args: LoadtestArgs) -> anyhow::Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("verdict-loadtest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    let dir = dir.canonicalize()?;
    // One collection of empty games: split one game per shard.
    std::fs::write(dir.join("tiny.sgf"), "(;)".repeat(args.shards.max(1)))?;
    let token = format!("loadtest-{}", std::process::id());
    let mut server = Command::new(std::env::current_exe()?)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--lease-ttl-ms",
            "60000",
        ])
        .arg("--state")
        .arg(dir.join("state.db"))
        .arg("--allow-root")
        .arg(&dir)
        .env("VERDICT_TOKEN", &token)
        .env("VERDICT_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .context("starting verdict serve")?;
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("piped"))
        .read_line(&mut line)
        .context("reading the coordinator's address")?;
    let Some(addr) = line.trim().strip_prefix("verdict: listening on ") else {
        let _ = server.kill();
        bail!("verdict serve did not start: {line:?}");
    };
    let connect = ConnectArgs {
        coordinator: format!("http://{addr}"),
        token: Some(token),
        token_file: None,
        tls_ca: None,
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let result = runtime.block_on(async {
        let mut channels: Vec<Channel> = Vec::new();
        for _ in 0..args.connections.max(1) {
            channels.push(endpoint(&connect)?.connect().await?);
        }
        let mut jobs = JobsClient::new(authed(channels[0].clone(), &connect)?);
        let job = jobs
            .submit(v1::SubmitRequest {
                inputs: vec![dir.join("tiny.sgf").display().to_string()],
                out: dir.join("out").display().to_string(),
                shard_bytes: 1,
                label: "loadtest".into(),
                ..Default::default()
            })
            .await
            .map_err(refused)?
            .into_inner();
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(args.seconds.max(0.1));
        let mut tasks = Vec::new();
        for i in 0..args.workers.max(1) {
            let channel = authed(channels[i % channels.len()].clone(), &connect)?;
            tasks.push(tokio::spawn(simulated_worker(channel, deadline)));
        }
        let mut all = Tally::default();
        for t in tasks {
            let t = t.await?;
            all.acquire.0.extend(t.acquire.0);
            all.heartbeat.0.extend(t.heartbeat.0);
            all.complete.0.extend(t.complete.0);
            all.errors += t.errors;
            all.idle += t.idle;
        }
        let elapsed = start.elapsed().as_secs_f64();
        let _ = jobs.cancel(v1::CancelJobRequest { job_id: job.id }).await;
        Ok::<_, anyhow::Error>((all, elapsed, job.shards_total))
    });
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let (mut t, elapsed, shards) = result?;
    let cycles = t.complete.0.len() as f64;
    let rpcs = (t.acquire.0.len() + t.heartbeat.0.len() + t.complete.0.len()) as f64;
    let mut every: Vec<u32> = Vec::new();
    for l in [&mut t.acquire, &mut t.heartbeat, &mut t.complete] {
        l.0.sort_unstable();
        every.extend(&l.0);
    }
    every.sort_unstable();
    let every = Latencies(every);
    let report = serde_json::json!({
        "workers": args.workers,
        "connections": args.connections,
        "seconds": elapsed,
        "shards_in_job": shards,
        "lease_cycles": cycles,
        "lease_cycles_per_s": cycles / elapsed,
        "rpcs_per_s": rpcs / elapsed,
        "errors": t.errors,
        "idle_acquires": t.idle,
        "latency_ms": {
            "all": {"p50": every.quantile(0.5), "p99": every.quantile(0.99)},
            "acquire": {"p50": t.acquire.quantile(0.5), "p99": t.acquire.quantile(0.99)},
            "heartbeat": {"p50": t.heartbeat.quantile(0.5), "p99": t.heartbeat.quantile(0.99)},
            "complete": {"p50": t.complete.quantile(0.5), "p99": t.complete.quantile(0.99)},
        },
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} simulated workers over {} connections for {elapsed:.1} s",
            args.workers, args.connections
        );
        println!(
            "  lease cycles (acquire + heartbeat + complete): {cycles:.0}, {:.0}/s",
            cycles / elapsed
        );
        println!("  RPCs: {:.0}/s, errors: {}", rpcs / elapsed, t.errors);
        for (name, l) in [
            ("all", &every),
            ("acquire", &t.acquire),
            ("heartbeat", &t.heartbeat),
            ("complete", &t.complete),
        ] {
            println!(
                "  {name:<10} p50 {:>7.2} ms   p99 {:>7.2} ms",
                l.quantile(0.5),
                l.quantile(0.99)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
