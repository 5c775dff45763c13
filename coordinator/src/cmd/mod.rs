//! One module per command.

use std::process::ExitCode;

use crate::cli::{Cli, Command};

mod check;
mod demo;
mod eval;
mod replay;
mod run;
mod score;
mod synth;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Replay(args) => replay::run(args),
        Command::Score(args) => score::run(args),
        Command::Check(args) => check::run(args),
        Command::Run(args) => run::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Eval(crate::cli::EvalCommand::Deadstones(args)) => eval::deadstones(args),
    }
}
