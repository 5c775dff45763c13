//! The `verdict` command line and the distributed service, as a library:
//! `main.rs` only parses the arguments and calls [`run`], so tests and other
//! programs can drive the same code without spawning processes.
//!
//! Brief overview:
//! - [`cli`] holds the raw clap arguments; each command in [`cmd`] turns
//!   them into what the libraries need (ripgrep's low and high arguments).
//! - [`cluster`] is the coordinator (`verdict serve`: state, store, gRPC
//!   services, metrics) and the client commands (`submit`, `jobs`, ...);
//!   the worker process is `verdict_worker::process`.

pub mod cli;
pub mod cluster;
pub mod cmd;

use std::process::ExitCode;

/// Runs one command line; errors are printed with their context and give
/// exit status 2.
pub fn run(cli: cli::Cli) -> ExitCode {
    init_tls();
    match cmd::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("verdict: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Makes ring the process's TLS provider (tonic's, for `--tls-cert` and
/// `https://` coordinators). Two backends are linked (object_store's S3
/// client brings aws-lc-rs), and rustls refuses to choose between them.
pub fn init_tls() {
    // Err only when one is installed already: keep it.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
