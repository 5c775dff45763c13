//! `verdict`: when the same game is counted under different rules, how often
//! does the winner change?

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod cluster;
mod cmd;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cmd::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("verdict: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
