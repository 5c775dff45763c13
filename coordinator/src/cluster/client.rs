//! The researcher's commands: `submit`, `jobs`, `status`, `watch`, `cancel`.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use tonic::transport::{Channel, Endpoint};
use verdict_proto::v1;
use verdict_proto::v1::jobs_client::JobsClient;

use super::args::{ConnectArgs, JobArgs, JobsArgs, SubmitArgs, WatchArgs};
use super::server::MAX_MESSAGE_BYTES;
use verdict_worker::connect::{self, Target};

pub use verdict_worker::connect::Authed;

/// What the client and worker commands connect to, from their arguments
/// (the token read from `--token-file` when given).
///
/// # Errors
/// The token file cannot be read.
pub fn target(c: &ConnectArgs) -> anyhow::Result<Target> {
    Ok(Target {
        url: c.coordinator.clone(),
        token: super::args::token(c.token.as_deref(), c.token_file.as_deref())?,
        tls_ca: c.tls_ca.clone(),
    })
}

/// An endpoint for the coordinator (TLS when the URL is https://).
///
/// # Errors
/// A URL or TLS setting that cannot work, or an unreadable token file.
pub fn endpoint(c: &ConnectArgs) -> anyhow::Result<Endpoint> {
    Ok(connect::endpoint(&target(c)?)?)
}

/// A channel that adds the token to every request.
///
/// # Errors
/// A token that cannot be sent, or an unreadable token file.
pub fn authed(channel: Channel, c: &ConnectArgs) -> anyhow::Result<Authed> {
    Ok(connect::authed(channel, &target(c)?)?)
}

async fn jobs_client(c: &ConnectArgs) -> anyhow::Result<JobsClient<Authed>> {
    let channel = endpoint(c)?
        .connect()
        .await
        .with_context(|| format!("cannot reach the coordinator at {}", c.coordinator))?;
    Ok(JobsClient::new(authed(channel, c)?).max_decoding_message_size(64 << 20))
}

/// A refusal from the coordinator, said plainly.
pub fn refused(s: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("the coordinator refused: {} ({:?})", s.message(), s.code())
}

fn state_name(job: &v1::Job) -> &'static str {
    match v1::JobState::try_from(job.state).unwrap_or_default() {
        v1::JobState::Unspecified => "unknown",
        v1::JobState::Running => "running",
        v1::JobState::Done => "done",
        v1::JobState::DoneWithFailures => "done with failures",
        v1::JobState::Cancelled => "cancelled",
    }
}

fn job_json(job: &v1::Job) -> serde_json::Value {
    serde_json::json!({
        "id": job.id,
        "state": state_name(job),
        "label": job.label,
        "inputs": job.inputs,
        "inputs_total": job.inputs_total,
        "workers_active": job.workers_active,
        "out": job.out,
        "shards": {"total": job.shards_total, "pending": job.shards_pending, "leased": job.shards_leased,
                   "done": job.shards_done, "failed": job.shards_failed},
        "games": job.games,
        "bytes_total": job.bytes_total,
        "lease_expiries": job.lease_expiries,
        "failures": job.failures.iter().map(|f| serde_json::json!({"shard": f.shard, "reason": f.reason, "attempts": f.attempts})).collect::<Vec<_>>(),
        "error": job.error,
        "created_unix": job.created_unix,
        "finished_unix": job.finished_unix,
    })
}

fn print_job(job: &v1::Job) {
    println!(
        "job {} ({}){}",
        job.id,
        state_name(job),
        if job.label.is_empty() {
            String::new()
        } else {
            format!(": {}", job.label)
        }
    );
    let more = (job.inputs_total as usize).saturating_sub(job.inputs.len());
    if more > 0 {
        println!("  inputs  {} (and {more} more)", job.inputs.join(" "));
    } else {
        println!("  inputs  {}", job.inputs.join(" "));
    }
    println!("  out     {}", job.out);
    println!(
        "  shards  {} total: {} done, {} leased, {} pending, {} failed",
        job.shards_total, job.shards_done, job.shards_leased, job.shards_pending, job.shards_failed
    );
    println!("  games   {}", job.games);
    if job.lease_expiries > 0 {
        println!("  leases that lapsed: {}", job.lease_expiries);
    }
    for f in &job.failures {
        println!(
            "  failed shard {} after {} attempts: {}",
            f.shard, f.attempts, f.reason
        );
    }
    if !job.error.is_empty() {
        println!("  error: {}", job.error);
    }
}

/// Exit status for an ended job: 0 only when every shard is done.
fn exit_for(job: &v1::Job) -> ExitCode {
    if job.state == v1::JobState::Done as i32 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

pub fn submit(args: SubmitArgs) -> anyhow::Result<ExitCode> {
    let (komi, komi_sweep) = args.analysis.komi()?;
    let komi = match komi {
        verdict_rules::analyse::KomiPolicy::Game => None,
        verdict_rules::analyse::KomiPolicy::Fixed(points) => Some(v1::KomiPolicy {
            policy: Some(v1::komi_policy::Policy::Fixed(points)),
        }),
    };
    // Checked here so a typo fails before the job is queued.
    args.analysis.rule_sets()?;
    // Paths as the coordinator sees them; object-store URLs as written.
    let absolute = |p: &std::path::Path| -> anyhow::Result<String> {
        if verdict_worker::objects::is_url(p) {
            return Ok(p.display().to_string());
        }
        Ok(std::path::absolute(p)
            .with_context(|| format!("{}", p.display()))?
            .display()
            .to_string())
    };
    let req = v1::SubmitRequest {
        inputs: args
            .inputs
            .iter()
            .map(|p| absolute(p))
            .collect::<anyhow::Result<_>>()?,
        out: absolute(&args.out)?,
        options: Some(v1::AnalysisOptions {
            komi,
            include_unfinished: args.analysis.include_unfinished,
            all_pairs: args.analysis.all_pairs,
            komi_sweep,
            rules: args.analysis.rules.clone(),
            assume_rules: args
                .analysis
                .assume
                .rule_set()?
                .map(|r| r.id().to_string())
                .unwrap_or_default(),
            referee: args.referee.referee.map(|r| v1::RefereeRequest {
                name: r.id().to_string(),
                threshold: args.referee.referee_threshold,
            }),
        }),
        shard_bytes: args.shard_bytes.unwrap_or(0),
        label: args.label.clone(),
    };
    // Said here, before anything is sent, in the words the coordinator
    // would use.
    use super::state::limits;
    if req.label.len() > limits::LABEL_BYTES {
        bail!(
            "--label: {} bytes, more than the limit of {}",
            req.label.len(),
            limits::LABEL_BYTES
        );
    }
    if req.inputs.len() > limits::INPUTS
        || verdict_proto::prost::Message::encoded_len(&req) > MAX_MESSAGE_BYTES
    {
        bail!(
            "too many inputs for one request ({}; the limit is {} and 4 MiB in all): name their folders instead",
            req.inputs.len(),
            limits::INPUTS
        );
    }
    runtime()?.block_on(async {
        let mut client = jobs_client(&args.connect).await?;
        let job = client.submit(req).await.map_err(refused)?.into_inner();
        if !args.wait {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&job_json(&job))?);
            } else {
                println!(
                    "job {}: {} shards, {} bytes; follow it with `verdict watch {}`",
                    job.id, job.shards_total, job.bytes_total, job.id
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("verdict: job {}: {} shards", job.id, job.shards_total);
        let job = follow(
            &args.connect,
            job.id,
            args.json,
            Duration::from_secs(args.reconnect_for),
        )
        .await?;
        Ok(exit_for(&job))
    })
}

/// Whether a refusal is final (retrying cannot help).
fn final_refusal(s: &tonic::Status) -> bool {
    matches!(
        s.code(),
        tonic::Code::NotFound
            | tonic::Code::Unauthenticated
            | tonic::Code::PermissionDenied
            | tonic::Code::InvalidArgument
            | tonic::Code::FailedPrecondition
    )
}

/// Follows a job to its end with a progress bar (plain lines when not a
/// terminal), then prints it; returns its last state. A coordinator that
/// goes away (a restart) is reconnected to with backoff; only after
/// `patience` without an answer does this give up.
async fn follow(
    c: &ConnectArgs,
    id: u64,
    json: bool,
    patience: Duration,
) -> anyhow::Result<v1::Job> {
    let bar = (std::io::stderr().is_terminal() && !json).then(|| {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} shards {msg} ETA {eta}",
            )
            .expect("a valid template"),
        );
        // The clock moves even when the job does not.
        bar.enable_steady_tick(Duration::from_millis(250));
        bar
    });
    let start = Instant::now();
    let mut last_line = Instant::now() - Duration::from_secs(60);
    let mut last_contact = Instant::now();
    let mut last: Option<v1::Job> = None;
    let mut wait = Duration::from_millis(200);
    let url = connect::url(&c.coordinator)?;
    let mut show = |job: &v1::Job, note: &str| {
        let ended = u64::from(job.shards_done + job.shards_failed);
        let rate = job.games as f64 / start.elapsed().as_secs_f64().max(1e-3);
        let idle = if job.workers_active == 0 && job.shards_pending > 0 {
            format!(" | no worker active: start `verdict worker --coordinator {url}`")
        } else {
            String::new()
        };
        if let Some(bar) = &bar {
            bar.set_length(u64::from(job.shards_total));
            bar.set_position(ended);
            bar.set_message(format!(
                "{} games, {rate:.0} games/s{idle}{note}",
                job.games
            ));
        } else if (!json && last_line.elapsed() > Duration::from_secs(2)) || !note.is_empty() {
            // Progress lines only for people; a lost coordinator is said
            // on standard error to scripts too.
            last_line = Instant::now();
            eprintln!(
                "verdict: job {id}: {ended}/{} shards, {} games{idle}{note}",
                job.shards_total, job.games
            );
        }
    };
    let job = loop {
        let attempt: Result<v1::Job, tonic::Status> = async {
            let mut client = jobs_client(c)
                .await
                .map_err(|e| tonic::Status::unavailable(format!("{e:#}")))?;
            let mut stream = client
                .watch(v1::GetJobRequest { job_id: id })
                .await?
                .into_inner();
            while let Some(job) = stream.message().await? {
                last_contact = Instant::now();
                wait = Duration::from_millis(200);
                show(&job, "");
                let ended = job.state != v1::JobState::Running as i32;
                last = Some(job);
                if ended {
                    return Ok(last.clone().expect("just set"));
                }
            }
            Err(tonic::Status::unavailable(
                "the coordinator closed the watch",
            ))
        }
        .await;
        match attempt {
            Ok(job) => break job,
            Err(s) if final_refusal(&s) => return Err(refused(s)),
            Err(s) => {
                let gone = last_contact.elapsed();
                if gone >= patience {
                    bail!(
                        "lost the coordinator at {} for {} s ({}): the job may still be running; follow it again with `verdict watch {id}`",
                        c.coordinator,
                        gone.as_secs(),
                        s.message()
                    );
                }
                let note = format!(
                    " | coordinator unreachable for {} s, reconnecting ({})",
                    gone.as_secs(),
                    s.message()
                );
                match &last {
                    Some(job) => show(job, &note),
                    None => eprintln!("verdict: job {id}:{note}"),
                }
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&job_json(&job))?);
    } else {
        print_job(&job);
    }
    Ok(job)
}

pub fn jobs(args: JobsArgs) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let mut client = jobs_client(&args.connect).await?;
        let mut jobs = Vec::new();
        let mut token = String::new();
        loop {
            let want = if args.all {
                1000
            } else {
                (args.limit - jobs.len()).min(1000)
            };
            if want == 0 {
                break;
            }
            let page = client
                .list(v1::ListJobsRequest {
                    page_size: want as u32,
                    page_token: token,
                    newest_first: true,
                })
                .await
                .map_err(refused)?
                .into_inner();
            jobs.extend(page.jobs);
            token = page.next_page_token;
            if token.is_empty() {
                break;
            }
        }
        if args.json {
            let all: Vec<_> = jobs.iter().map(job_json).collect();
            println!("{}", serde_json::to_string_pretty(&all)?);
            return Ok(ExitCode::SUCCESS);
        }
        println!(
            "{:>6}  {:<20} {:>13} {:>12}  out",
            "job", "state", "shards done", "games"
        );
        for j in &jobs {
            println!(
                "{:>6}  {:<20} {:>6}/{:<6} {:>12}  {}",
                j.id,
                state_name(j),
                j.shards_done,
                j.shards_total,
                j.games,
                j.out
            );
        }
        if !token.is_empty() {
            println!(
                "  (the newest {}; `verdict jobs --all` lists every one)",
                jobs.len()
            );
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn status(args: JobArgs) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let mut client = jobs_client(&args.connect).await?;
        let job = client
            .get(v1::GetJobRequest { job_id: args.job })
            .await
            .map_err(refused)?
            .into_inner();
        show_job(&job, args.json)?;
        Ok(ExitCode::SUCCESS)
    })
}

/// One job as JSON (`--json`) or as the human summary.
fn show_job(job: &v1::Job, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(&job_json(job))?);
    } else {
        print_job(job);
    }
    Ok(())
}

pub fn watch(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let patience = Duration::from_secs(args.reconnect_for);
    let args = args.job;
    runtime()?.block_on(async {
        let job = follow(&args.connect, args.job, args.json, patience).await?;
        Ok(exit_for(&job))
    })
}

pub fn delete(args: JobArgs) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let mut client = jobs_client(&args.connect).await?;
        client
            .delete(v1::DeleteJobRequest { job_id: args.job })
            .await
            .map_err(refused)?;
        if args.json {
            println!("{}", serde_json::json!({"deleted": args.job}));
        } else {
            println!("job {} deleted", args.job);
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn cancel(args: JobArgs) -> anyhow::Result<ExitCode> {
    runtime()?.block_on(async {
        let mut client = jobs_client(&args.connect).await?;
        let job = client
            .cancel(v1::CancelJobRequest { job_id: args.job })
            .await
            .map_err(refused)?
            .into_inner();
        show_job(&job, args.json)?;
        Ok(ExitCode::SUCCESS)
    })
}
