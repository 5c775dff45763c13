//! `verdict synth`.

use std::process::ExitCode;

use anyhow::Context;
use verdict_lab::synth::{write_corpus, SynthOptions, SynthSummary};

use crate::cli::{SynthArgs, Variant};

pub fn run(args: SynthArgs) -> anyhow::Result<ExitCode> {
    let options = SynthOptions {
        games: args.games,
        seed: args.seed,
        dajiefang_rate: match args.variant {
            Some(Variant::Dajiefang) => 1.0,
            None => 0.0,
        },
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
        "  {} games in {} files ({:.1} MB) in {}\n    {}\n    {}; handicap games: {}; 大解放 games: {}",
        s.games,
        s.files,
        s.bytes as f64 / 1e6,
        dir.display(),
        sizes.join(", "),
        endings.join(", "),
        s.handicap_games,
        s.dajiefang_games
    );
}
