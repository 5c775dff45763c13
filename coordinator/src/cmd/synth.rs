//! `verdict synth`.

use std::process::ExitCode;

use anyhow::Context;
use verdict_worker::synth::{write_corpus, SynthOptions, SynthSummary};

use crate::cli::SynthArgs;

pub fn run(args: SynthArgs) -> anyhow::Result<ExitCode> {
    let options = SynthOptions {
        games: args.games,
        seed: args.seed,
        ..SynthOptions::default()
    };
    let summary = write_corpus(&options, &args.out, args.per_file)
        .with_context(|| format!("cannot write games to {}", args.out.display()))?;
    print_summary(&summary, &args.out);
    Ok(ExitCode::SUCCESS)
}

pub fn print_summary(s: &SynthSummary, dir: &std::path::Path) {
    let sizes: Vec<String> = s
        .by_size
        .iter()
        .map(|(k, v)| format!("{k}x{k}: {v}"))
        .collect();
    let endings: Vec<String> = s
        .by_ending
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    println!(
        "  {} games in {} files ({:.1} MB) in {}\n    {}\n    {}; handicap games: {}",
        s.games,
        s.files,
        s.bytes as f64 / 1e6,
        dir.display(),
        sizes.join(", "),
        endings.join(", "),
        s.handicap_games
    );
}
