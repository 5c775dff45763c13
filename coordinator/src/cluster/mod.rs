//! The distributed service: the coordinator (`verdict serve`) and the
//! commands researchers use to submit and follow jobs. The wire contract is
//! `verdict-proto`; the worker process is `verdict_worker::process`, and the
//! analysis of one shard `verdict_worker::shard`, the same code as
//! `verdict run`.

pub mod args;
mod auth;
mod client;
mod loadtest;
mod metrics;
mod plan;
mod server;
mod state;
mod store;

pub use client::{cancel, delete, jobs, status, submit, watch};
pub use loadtest::run as loadtest;
pub use server::run as serve;

/// `verdict worker`: the worker process (`verdict_worker::process`) with
/// this command line's options; exit 1 when it stopped with a finished
/// shard the coordinator never heard of, 2 when it could not run.
pub fn worker(args: args::WorkerArgs) -> anyhow::Result<std::process::ExitCode> {
    use verdict_worker::process::{self, Stopped};
    let config = process::Config {
        coordinator: client::target(&args.connect)?,
        threads: args.threads,
        name: args.name,
        drain: std::time::Duration::from_secs(args.drain_seconds),
        log_json: args.log_json,
        gnugo_bin: args.gnugo_bin,
    };
    match process::run(config)? {
        Stopped::Clean => Ok(std::process::ExitCode::SUCCESS),
        Stopped::Unreported { job, shard } => {
            eprintln!(
                "verdict: stopped before the coordinator heard that shard {shard} of job {job} was done: it will run again elsewhere"
            );
            Ok(std::process::ExitCode::from(1))
        }
    }
}
