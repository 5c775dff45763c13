//! `verdict`: when the same game is counted under different rules, how often
//! does the winner change?

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = verdict_coordinator::cli::Cli::parse();
    if !cli.command.talks_to_peers() {
        restore_sigpipe();
    }
    verdict_coordinator::run(cli)
}

/// Rust starts programs with SIGPIPE ignored, so writing to a closed pipe
/// (`verdict replay big/ --json | head`) makes `println!` panic. A command
/// line tool should end quietly instead, as `cat` does. Commands that talk
/// to other processes over sockets or pipes (the cluster, GNU Go) keep it
/// ignored: there a closed peer must be an error to handle, not a kill.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
