//! One module per command.

use std::process::ExitCode;

use crate::cli::{Cli, Command};

mod check;
mod demo;
mod eval;
mod replay;
pub mod report;
mod run;
mod score;
mod synth;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Score(args) => score::run(args),
        Command::Check(args) => check::run(args),
        Command::Run(args) => run::run(args),
        Command::Report(args) => report::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Eval(crate::cli::EvalCommand::Deadstones(args)) => eval::deadstones(args),
        Command::Eval(crate::cli::EvalCommand::Results(args)) => eval::results(args),
        Command::Serve(args) => crate::cluster::serve(args),
        Command::Worker(args) => crate::cluster::worker(args),
        Command::Submit(args) => crate::cluster::submit(args),
        Command::Jobs(args) => crate::cluster::jobs(args),
        Command::Status(args) => crate::cluster::status(args),
        Command::Watch(args) => crate::cluster::watch(args),
        Command::Cancel(args) => crate::cluster::cancel(args),
        Command::Delete(args) => crate::cluster::delete(args),
        Command::Loadtest(args) => crate::cluster::loadtest(args),
    }
}
