//! `verdict demo`: the README's first command.

use std::process::ExitCode;

use anyhow::Context;
use verdict_lab::synth::{write_corpus, SynthOptions};
use verdict_rules::analyse::KomiPolicy;
use verdict_worker::inputs;
use verdict_worker::run::{run as run_corpus, RunOptions};

use crate::cli::DemoArgs;

pub fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let dir = args.dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("verdict-demo-{}", std::process::id()))
    });
    let corpus = dir.join("corpus");
    let out = dir.join("results");
    println!(
        "verdict demo: generating {} self-play games in {}",
        args.games,
        corpus.display()
    );
    let options = SynthOptions {
        games: args.games,
        seed: 2026,
        // A few 大解放 games: the summary's `variant` rows show them apart.
        dajiefang_rate: 0.03,
        ..SynthOptions::default()
    };
    let synth = write_corpus(&options, &corpus, 10)
        .with_context(|| format!("cannot write to {}", corpus.display()))?;
    super::synth::print_summary(&synth, &corpus);
    println!(
        "\nverdict demo: analysing them under every rule set (verdict run {} --out {})",
        corpus.display(),
        out.display()
    );
    let found = inputs::discover(&[&corpus]);
    let run_options = RunOptions {
        out: out.clone(),
        threads: args.threads,
        komi: KomiPolicy::Game,
        ..RunOptions::default()
    };
    let report = run_corpus(
        &found.files,
        &run_options,
        false,
        verdict_worker::run::Hooks::default(),
    )?;
    super::run::print_report(&report, &out);
    println!(
        "\n  Next: open the rows with DuckDB (select * from '{}/games/*.parquet'),\n  score one game (verdict score FILE), or run your own corpus (verdict run DIR --out DIR).",
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
