//! Command-line arguments of the distributed service: `serve`, `worker`,
//! `submit`, `jobs`, `status`, `watch`, `cancel` (and the hidden `loadtest`).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

/// The token from `--token` or from the first line of `--token-file`.
///
/// # Errors
/// The file cannot be read, or its first line is empty.
pub fn token(
    token: Option<&str>,
    file: Option<&std::path::Path>,
) -> anyhow::Result<Option<String>> {
    use anyhow::Context;
    match (token, file) {
        (Some(t), _) => Ok(Some(t.to_string())),
        (None, Some(f)) => {
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("--token-file {}", f.display()))?;
            let line = text.lines().next().unwrap_or("").trim().to_string();
            anyhow::ensure!(
                !line.is_empty(),
                "--token-file {}: the first line is empty; write the token there",
                f.display()
            );
            Ok(Some(line))
        }
        (None, None) => Ok(None),
    }
}

/// Where the coordinator is and how to prove who we are.
#[derive(Debug, Args, Clone)]
pub struct ConnectArgs {
    /// The coordinator's URL.
    #[arg(
        long,
        env = "VERDICT_COORDINATOR",
        default_value = "http://127.0.0.1:7070",
        value_name = "URL"
    )]
    pub coordinator: String,
    /// Bearer token the coordinator was started with (visible to other
    /// users in the process list: prefer --token-file or VERDICT_TOKEN).
    #[arg(
        long,
        env = "VERDICT_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN",
        conflicts_with = "token_file"
    )]
    pub token: Option<String>,
    /// Read the bearer token from this file (its first line).
    #[arg(long, value_name = "FILE", env = "VERDICT_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// CA certificate (PEM) to trust when the URL is https://.
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on for gRPC (port 0 picks a free port; the address
    /// is printed on the first line of standard output).
    #[arg(long, default_value = "127.0.0.1:7070", value_name = "ADDR")]
    pub listen: SocketAddr,
    /// The SQLite state file (created; WAL mode). Restarting on the same
    /// file resumes every job.
    #[arg(long, value_name = "FILE")]
    pub state: PathBuf,
    /// Require this bearer token on every RPC (except the health check).
    /// Visible in the process list: prefer --token-file or VERDICT_TOKEN.
    #[arg(
        long,
        env = "VERDICT_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN",
        conflicts_with = "token_file"
    )]
    pub token: Option<String>,
    /// Read the bearer token from this file (its first line).
    #[arg(long, value_name = "FILE", env = "VERDICT_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// Inputs and outputs must be under one of these folders (repeatable;
    /// default: the current folder).
    #[arg(long = "allow-root", value_name = "DIR")]
    pub allow_roots: Vec<PathBuf>,
    /// Serve Prometheus metrics over HTTP at ADDR/metrics.
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,
    /// A lease lapses this long after its last heartbeat.
    #[arg(long, default_value_t = 30_000, value_name = "MS")]
    pub lease_ttl_ms: u32,
    /// A shard that fails (or whose lease lapses) this many times is marked failed.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub max_attempts: u32,
    /// Default target shard size in bytes (collection files larger than a
    /// shard are cut into byte ranges at game ends).
    #[arg(long, default_value_t = 64 << 20, value_name = "BYTES")]
    pub shard_bytes: u64,
    /// Forget ended jobs this many hours after they end (their output
    /// stays; fractions are fine); 0 keeps them until `verdict delete`.
    #[arg(long, default_value_t = 720.0, value_name = "HOURS")]
    pub retention_hours: f64,
    /// TLS certificate chain (PEM); with --tls-key, serve gRPC over TLS.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Log JSON lines instead of text.
    #[arg(long)]
    pub log_json: bool,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Analysis threads; 0 uses every core.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N")]
    pub threads: usize,
    /// Name shown in the coordinator's logs (default: host name and process id).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// On SIGTERM, finish the current shard if it ends within this many
    /// seconds; otherwise hand it back.
    #[arg(long, default_value_t = 25, value_name = "SECONDS")]
    pub drain_seconds: u64,
    /// Log JSON lines instead of text.
    #[arg(long)]
    pub log_json: bool,
    /// The GNU Go program, for jobs submitted with --referee gnugo
    /// (`gnugo` on the PATH or in /usr/games).
    #[arg(long = "gnugo-bin", default_value = "gnugo", value_name = "PATH")]
    pub gnugo_bin: String,
}

#[derive(Debug, Args)]
pub struct SubmitArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// SGF files, collection files, directories or archives, as the
    /// coordinator and workers see them (made absolute here).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output folder (as the workers see it; its old parts are replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub analysis: crate::cli::AnalysisArgs,
    /// Every worker asks its own referee (each needs it installed; see
    /// `verdict worker --gnugo-bin`).
    #[command(flatten)]
    pub referee: crate::cli::RefereeArgs,
    /// Target shard size in bytes (default: the coordinator's).
    #[arg(long, value_name = "BYTES")]
    pub shard_bytes: Option<u64>,
    /// A label shown by `verdict jobs`.
    #[arg(long, default_value = "")]
    pub label: String,
    /// Follow the job until it ends; exit 0 only if every shard is done.
    #[arg(long)]
    pub wait: bool,
    /// With --wait: keep reconnecting this long while the coordinator
    /// cannot be reached (it may be restarting) before giving up.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    pub reconnect_for: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct JobsArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Show at most this many jobs (the newest).
    #[arg(long, default_value_t = 50, value_name = "N", conflicts_with = "all")]
    pub limit: usize,
    /// Show every job, page by page.
    #[arg(long)]
    pub all: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Keep reconnecting this long while the coordinator cannot be reached
    /// (it may be restarting) before giving up with exit status 2.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    pub reconnect_for: u64,
}

#[derive(Debug, Args)]
pub struct JobArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// The job id (`verdict jobs` lists them).
    #[arg(value_name = "JOB")]
    pub job: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LoadtestArgs {
    /// Simulated workers (one task each, in this process).
    #[arg(long, default_value_t = 300)]
    pub workers: usize,
    /// How long to run.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Tiny shards in the job (one game each).
    #[arg(long, default_value_t = 200_000)]
    pub shards: usize,
    /// HTTP/2 connections the simulated workers share.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
