//! Command-line arguments. Raw clap structs live here; each command turns them
//! into what the libraries need.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use verdict_rules::analyse::KomiPolicy;
use verdict_rules::score::RuleSet;

/// verdict replays Go game records and scores every game under many rule sets,
/// to measure how often the rules change the winner.
///
/// Inputs are SGF files, collection files (many games in one file),
/// directories searched recursively for `*.sgf`, and archives of them. Damaged records are read as
/// far as they go: every game is counted, as replayed or as skipped with a
/// reason, and one bad file never stops a run.
#[derive(Debug, Parser)]
#[command(
    name = "verdict",
    version,
    propagate_version = true,
    after_help = "Start with `verdict demo` (no data needed), then `verdict run YOUR_CORPUS --out RESULTS`.\nEvery command explains itself: `verdict help run`."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read and replay every game, checking legality under every rule family.
    ///
    /// Prints how many games were read, replayed cleanly, replayed with
    /// problems (by kind) and skipped (by reason), which rule families find
    /// illegal moves, and the speed.
    ///
    /// Examples:
    ///   verdict replay games/
    ///   verdict replay big-collection.sgf --threads 1 --json
    #[command(verbatim_doc_comment)]
    Replay(ReplayArgs),
    /// Score one game under every rule set and show the board.
    ///
    /// Prints the final position with dead stones, territory, seki and the
    /// points an owner must still fill, then a table of every rule set's
    /// margin and winner, and checks the record's own result under its own
    /// rules (self-check). Dead stones come from the record's TB/TW marks
    /// when it has them.
    ///
    /// Examples:
    ///   verdict score game.sgf
    ///   verdict score collection.sgf --game 3 --json
    ///   verdict score game.sgf --komi 7.5
    #[command(verbatim_doc_comment)]
    Score(ScoreArgs),
    /// Score every game and check each record's own result under its own rules.
    ///
    /// For every game with a numeric result (B+3.5, W+0.5, draw) and rules
    /// verdict knows (RU), scores it under those rules with the record's komi
    /// and compares. Prints the agreement rate by dead-stone source and by
    /// rule set, and lists every disagreement with its file.
    ///
    /// Examples:
    ///   verdict check kgs/ --marked-only
    ///   verdict check corpus/ --json > check.json
    #[command(verbatim_doc_comment)]
    Check(CheckArgs),
    /// Analyse a corpus: one Parquet row per game, and summaries.
    ///
    /// Replays every game, scores each finished one under every rule set and
    /// writes DIR/games/part-NNNNN.parquet (one row per game: scored,
    /// unfinished, or skipped with a reason), DIR/summary.json and
    /// DIR/summary.parquet (how often rule sets name different winners, with
    /// 95% Wilson intervals, overall and by board size, komi, handicap,
    /// rules, how the game ended, dead-stone source, year and input).
    /// The columns are documented in docs/schema.md.
    ///
    /// Examples:
    ///   verdict run corpus/ --out results/
    ///   verdict run a.sgf b/ --out results/ --komi 7.5 --dedup
    ///   verdict run big/ --out results/ --limit 100000 --include-unfinished
    #[command(verbatim_doc_comment)]
    Run(RunArgs),
    /// Publish the N static shards of `verdict run --shard K/N` as one output.
    ///
    /// Once every shard K (0 to N-1) has run into OUT, writes
    /// OUT/games/part-K.parquet, OUT/summary.json, OUT/summary.parquet,
    /// OUT/_SUCCESS and OUT/report.html, exactly as `verdict run` over the
    /// same inputs would, and removes OUT/_shards. Refuses, naming them, when
    /// shards are missing, unfinished, duplicated, or come from other inputs,
    /// options or N; nothing is published then and a later merge can try
    /// again. Exit 2 when an input could not be read (each is named).
    ///
    /// Examples (a Slurm array job, or a Kubernetes Indexed Job, runs each K):
    ///   verdict run corpus/ --out results/ --shard 0/4   # ... up to 3/4
    ///   verdict merge results/
    #[command(verbatim_doc_comment)]
    Merge(MergeArgs),
    /// Write OUT/report.html: a finished run as one page of charts and boards.
    ///
    /// Reads OUT/games/*.parquet and OUT/summary.json (of `verdict run` or of
    /// a cluster job) and writes one self-contained HTML file, readable
    /// offline and printable: the headline rates with 95% intervals,
    /// breakdowns, the komi sweep, why the rule sets disagree, the
    /// self-check, example games drawn as boards with their counts term by
    /// term, how much the rates depend on the dead-stone settler, and the
    /// run's provenance. Every number is also in the page's JSON block
    /// (#verdict-data). `verdict run` writes the same page at its end.
    ///
    /// Examples:
    ///   verdict report results/
    ///   verdict report results/ --examples 8
    #[command(verbatim_doc_comment)]
    Report(ReportArgs),
    /// Show the whole tool working, with no data: generate, analyse, summarise.
    ///
    /// Generates a small corpus of complete games by self-play (9x9, 13x13
    /// and 19x19, some handicap, some resigned, some in seki or with open
    /// dame, and a few 大解放 games) in a temporary folder, runs the corpus
    /// job on it, and prints the summary and where the files are.
    Demo(DemoArgs),
    /// Generate a corpus of self-play games (for tests, demos, load tests).
    ///
    /// Deterministic: the same --seed gives the same files. Finished games
    /// carry verdict's own count as RE (about 2% deliberately wrong, so the
    /// self-check has something to find). With --variant dajiefang every
    /// game is a 大解放 game (`RU[Dajiefang]`, moving moves written `B[to]MF[from]`).
    ///
    /// Examples:
    ///   verdict synth --games 10000 --out corpus/
    ///   verdict synth --variant dajiefang --games 1000 --out variant/
    #[command(verbatim_doc_comment)]
    Synth(SynthArgs),
    /// Measure verdict against ground truth (see `verdict help eval deadstones`).
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Run the coordinator of the distributed service (gRPC).
    ///
    /// Keeps jobs, shards and leases in a SQLite state file: restarted on
    /// the same file it resumes every job. See docs/service.md.
    ///
    /// Example:
    ///   verdict serve --listen 0.0.0.0:7070 --state verdict.db --allow-root /data --token "$TOKEN"
    #[command(verbatim_doc_comment)]
    Serve(crate::cluster::args::ServeArgs),
    /// Pull shards from a coordinator and analyse them on every core.
    ///
    /// Example:
    ///   verdict worker --coordinator http://coordinator:7070
    #[command(verbatim_doc_comment)]
    Worker(crate::cluster::args::WorkerArgs),
    /// Submit a corpus job to a coordinator.
    ///
    /// Example:
    ///   verdict submit /data/corpus --out /data/results --wait
    #[command(verbatim_doc_comment)]
    Submit(crate::cluster::args::SubmitArgs),
    /// List a coordinator's jobs, newest first.
    Jobs(crate::cluster::args::JobsArgs),
    /// Show one job: shards by state, games, failed shards and why.
    Status(crate::cluster::args::JobArgs),
    /// Follow a job with a progress bar until it ends.
    ///
    /// Rides out coordinator restarts: it reconnects with backoff and gives
    /// up (exit 2) only after --reconnect-for seconds without an answer.
    #[command(verbatim_doc_comment)]
    Watch(crate::cluster::args::WatchArgs),
    /// Cancel a job: its shards are no longer handed out, and nothing it
    /// wrote is published.
    Cancel(crate::cluster::args::JobArgs),
    /// Forget an ended job (its published output stays where it is).
    Delete(crate::cluster::args::JobArgs),
    /// Measure a coordinator's lease cycles per second with simulated workers.
    #[command(hide = true)]
    Loadtest(crate::cluster::args::LoadtestArgs),
}

impl Command {
    /// Whether the command writes to sockets or to another program's pipe
    /// (where a peer going away is an error to report, not a signal).
    pub fn talks_to_peers(&self) -> bool {
        match self {
            Command::Replay(_)
            | Command::Score(_)
            | Command::Check(_)
            | Command::Report(_)
            | Command::Demo(_)
            | Command::Synth(_) => false,
            // GNU Go as the referee, or an object store over sockets.
            Command::Run(args) => {
                args.referee.referee.is_some()
                    || verdict_worker::objects::is_url(&args.out)
                    || args
                        .inputs
                        .iter()
                        .any(|i| verdict_worker::objects::is_url(i))
            }
            Command::Eval(EvalCommand::Deadstones(args)) => {
                args.gnugo.enabled || args.referee.referee.is_some()
            }
            Command::Eval(EvalCommand::Results(args)) => {
                args.gnugo.enabled || args.referee.referee.is_some()
            }
            _ => true,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Settle marked games without their marks and compare with the marks.
    ///
    /// Every game whose final node marks territory (TB/TW) shows which
    /// stones the players agreed were dead. verdict settles the final
    /// position ignoring the marks and reports: games, games exactly right,
    /// stone precision and recall, games where the difference changes the
    /// winner under the record's own rules (Japanese when it names none),
    /// and milliseconds per game (median, p99) on one core.
    ///
    /// With --gnugo, GNU Go settles the same positions in the same run
    /// (GTP `loadsgf`, then `final_status_list dead`; install it with
    /// `apt-get install gnugo`) and both are reported side by side.
    /// Players mark wrongly at times (a stone in atari left standing, a
    /// seki given up): the games where verdict and GNU Go agree with each
    /// other against the marks are listed, stone by stone (in JSON:
    /// `disputed`), and both are also scored on the other games
    /// (`exact_undisputed` of `undisputed_games`).
    ///
    /// Examples:
    ///   verdict eval deadstones kgs/
    ///   verdict eval deadstones kgs/ --gnugo --json
    ///   verdict eval deadstones kgs/ --show-misses 10
    ///   verdict eval deadstones kgs/ --seeds 6
    ///
    /// The playouts are random (seeded from each position, so one run
    /// always gives the same answer); --seeds N settles every game again
    /// with N playout seeds and reports each seed's exact games and winner
    /// flips, and lists the games exact on some seeds and not others (in
    /// JSON: `unstable`, with `exact_seeds` for each). On the KGS games the
    /// seeds spread by two or three games: compare two versions of the
    /// settler over several seeds, not one.
    #[command(verbatim_doc_comment)]
    Deadstones(DeadstonesArgs),
    /// Settle unmarked games and check their recorded results.
    ///
    /// A game without marks but with a numeric result (B+3.5) and rules
    /// verdict knows is labelled by its result: the dead stones the players
    /// agreed on gave that margin. verdict settles the final position and
    /// reports how many games its dead stones give the recorded margin
    /// (and winner) under the record's own rules, as `verdict check` does
    /// for settled games. Games that were not played out (dame open,
    /// groups unsettled) are here too, so this asks more of a settler than
    /// marked games do.
    ///
    /// With --gnugo, GNU Go's `final_status_list dead` is scored the same
    /// way, side by side: games only one of the two reproduces are counted
    /// (and listed with --show-misses).
    ///
    /// Examples:
    ///   verdict eval results kgs/
    ///   verdict eval results kgs/ --gnugo --show-misses 20
    ///   verdict eval results kgs/ --gnugo --json
    #[command(verbatim_doc_comment)]
    Results(ResultsArgs),
}

/// GNU Go beside verdict, on the same positions.
#[derive(Debug, Args)]
pub struct GnuGoArgs {
    /// Also run GNU Go on the same positions.
    #[arg(long = "gnugo")]
    pub enabled: bool,
    /// The GNU Go program.
    #[arg(long = "gnugo-bin", default_value = "gnugo", value_name = "PATH")]
    pub program: String,
}

/// Who settles the games verdict is unsure of.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Referee {
    /// GNU Go's `final_status_list dead` over GTP (`--gnugo-bin`).
    Gnugo,
}

impl Referee {
    /// The name options, provenance and jobs call it by.
    pub const fn id(self) -> &'static str {
        match self {
            Referee::Gnugo => "gnugo",
        }
    }
}

/// A confidence from 0 to 1.
fn confidence(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(c) if (0.0..=1.0).contains(&c) => Ok(c),
        _ => Err(format!("`{s}` is not a confidence from 0 to 1")),
    }
}

/// The opt-in referee: another program decides the games whose
/// settlement is not certain.
#[derive(Debug, Args)]
pub struct RefereeArgs {
    /// Ask this referee about every game whose least sure chain is at or
    /// below --referee-threshold, and count its answer there (slow: GNU Go
    /// takes about a second a game). `eval` reports it beside verdict
    /// alone; in `run` the rows it decided say dead_source `referee`.
    #[arg(long, value_enum, value_name = "PROGRAM")]
    pub referee: Option<Referee>,
    /// The confidence at or below which a game goes to the referee (0.6:
    /// every doubtful chain; 0.95: everything but proofs).
    #[arg(long = "referee-threshold", default_value_t = 0.6, value_name = "C", value_parser = confidence)]
    pub referee_threshold: f32,
}

#[derive(Debug, Args)]
pub struct ResultsArgs {
    /// SGF files, collection files, directories (searched recursively) or
    /// archives; only games without TB/TW marks, with a numeric result and
    /// known rules (or --assume-rules), are used.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub gnugo: GnuGoArgs,
    #[command(flatten)]
    pub referee: RefereeArgs,
    #[command(flatten)]
    pub assume: AssumeRulesArg,
    /// List up to N games verdict does not reproduce, with the recorded
    /// margin and each settler's.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub show_misses: usize,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct DeadstonesArgs {
    /// SGF files, collection files, directories (searched recursively) or
    /// archives; only games with TB/TW marks are used.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub gnugo: GnuGoArgs,
    #[command(flatten)]
    pub referee: RefereeArgs,
    /// Print the board of up to N games verdict gets wrong: x/o dead for
    /// both; dead by the marks only: # black, @ white; dead by verdict
    /// only: * black, % white.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub show_misses: usize,
    /// Settle again with playout seeds 1 to N-1 and report every seed's
    /// exact games and winner flips, and the games only some seeds get
    /// right (seed 0, the default, gives the table).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub seeds: u64,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// How many games to generate.
    #[arg(long, default_value_t = 400, value_name = "N")]
    pub games: usize,
    /// Where to put the corpus and the results (default: a new temporary folder).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Worker threads; 0 uses every core.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N")]
    pub threads: usize,
}

#[derive(Debug, Args)]
pub struct SynthArgs {
    /// How many games.
    #[arg(long, value_name = "N")]
    pub games: usize,
    /// Output folder (created).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Random seed: the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games per collection file (about half the files hold one game).
    #[arg(long, default_value_t = 20, value_name = "K")]
    pub per_file: usize,
    /// Generate games of a variant instead: `dajiefang` (大解放, RULES.md
    /// section 6), whose players also move stones (sometimes to retake a
    /// ko, sometimes off the board) and end by four consecutive 虚着.
    #[arg(long, value_enum, value_name = "VARIANT")]
    pub variant: Option<Variant>,
}

/// A variant of Go that `verdict synth` can generate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    /// 大解放: a move may also move one of your own stones.
    Dajiefang,
}

/// What to score and compare: shared by `verdict run` and `verdict submit`,
/// so a local run and a cluster job are asked for in the same words.
#[derive(Debug, Args)]
pub struct AnalysisArgs {
    /// Komi for every rule set: `game` (each record's own), points, or a
    /// sweep `start:end:step` (e.g. 5.5:8.5:0.5) that adds one summary row
    /// per komi value (`dimension` = komi_sweep).
    #[arg(
        long,
        default_value = "game",
        value_name = "game|POINTS",
        allow_negative_numbers = true
    )]
    pub komi: String,
    /// Score resigned, timed-out and unfinished games too, as estimates (flagged).
    #[arg(long)]
    pub include_unfinished: bool,
    /// Summarise every pair of rule sets, not only the three headline pairs.
    #[arg(long)]
    pub all_pairs: bool,
    /// Rule sets to write and compare, comma-separated (default: all):
    /// jpd_a, jpd_b, jhz_a, jhz_b, chinese, japanese, korean, aga, ing, nz,
    /// tromp_taylor.
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub rules: Vec<String>,
    #[command(flatten)]
    pub assume: AssumeRulesArg,
}

/// `--assume-rules`, for the self-check of records that do not say.
#[derive(Debug, Args, Clone, Default)]
pub struct AssumeRulesArg {
    /// Check the recorded result of records whose RU names no rule set
    /// verdict knows (every Tygem record, for one) as if it named this one:
    /// jpd_a, jpd_b, jhz_a, jhz_b, chinese, japanese, korean, aga, ing, nz,
    /// tromp_taylor. Records that name their rules keep them.
    #[arg(long, value_name = "ID")]
    pub assume_rules: Option<String>,
}

impl AssumeRulesArg {
    /// The rule set, checked.
    pub fn rule_set(&self) -> anyhow::Result<Option<RuleSet>> {
        self.assume_rules
            .as_deref()
            .map(|id| {
                RuleSet::from_id(id).with_context(|| {
                    let ids: Vec<&str> = RuleSet::ALL.iter().map(|r| r.id()).collect();
                    format!(
                        "--assume-rules: unknown rule set {id:?}; choose from {}",
                        ids.join(", ")
                    )
                })
            })
            .transpose()
    }
}

impl AnalysisArgs {
    /// `--komi` read: the policy to score with, and the sweep values (the
    /// summary adds one row per value; games are scored at their own komi).
    pub fn komi(&self) -> anyhow::Result<(KomiPolicy, Vec<f64>)> {
        Ok(match self.komi.as_str() {
            "game" => (KomiPolicy::Game, Vec::new()),
            sweep if sweep.contains(':') => (
                KomiPolicy::Game,
                verdict_worker::summary::parse_sweep(sweep)
                    .map_err(|e| anyhow::anyhow!("--komi {e}"))?,
            ),
            value => (
                KomiPolicy::Fixed(value.parse().with_context(|| {
                    format!("--komi {value:?}: give `game`, points such as 6.5, or a sweep such as 5.5:8.5:0.5")
                })?),
                Vec::new(),
            ),
        })
    }

    /// `--rules` read (every rule set when none is named).
    pub fn rule_sets(&self) -> anyhow::Result<Vec<RuleSet>> {
        if self.rules.is_empty() {
            return Ok(RuleSet::ALL.to_vec());
        }
        self.rules
            .iter()
            .map(|id| {
                RuleSet::from_id(id).with_context(|| {
                    let ids: Vec<&str> = RuleSet::ALL.iter().map(|r| r.id()).collect();
                    format!(
                        "--rules: unknown rule set {id:?}; choose from {}",
                        ids.join(", ")
                    )
                })
            })
            .collect()
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// SGF files, collection files, directories (searched recursively) or
    /// archives (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.zst, read as streams).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output folder (created; its old parts are replaced), or a bucket
    /// prefix `s3://BUCKET/PREFIX`, `gs://...` or `az://CONTAINER/...` (written locally first, then published
    /// there; AWS_* variables configure the client).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Let each record's own numeric result decide the status of chains the
    /// dead-stone settler could not separate (settling layer 5). Such games
    /// get dead_source `settled_result` and their self-check agrees by
    /// construction; off by default because a wrong result is then
    /// "explained" instead of found.
    #[arg(long)]
    pub settle_with_result: bool,
    #[command(flatten)]
    pub referee: RefereeArgs,
    /// The GNU Go program of --referee gnugo (`gnugo` on the PATH or in
    /// /usr/games).
    #[arg(long = "gnugo-bin", default_value = "gnugo", value_name = "PATH")]
    pub gnugo_bin: String,
    /// Stop after this many games.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Leave out games whose moves repeat an earlier game (same game_hash).
    #[arg(long)]
    pub dedup: bool,
    /// Analyse only static shard K of N (K from 0), without a coordinator:
    /// for Kubernetes Indexed Jobs (K = $JOB_COMPLETION_INDEX) and Slurm
    /// array jobs (K = $SLURM_ARRAY_TASK_ID). Every K writes into
    /// OUT/_shards/K-of-N; `verdict merge OUT` publishes them together. A
    /// shard run again replaces its own attempt; the N cut the inputs as the
    /// coordinator does (large collections by byte ranges).
    #[arg(long, value_name = "K/N", conflicts_with_all = ["resume", "limit", "dedup"])]
    pub shard: Option<verdict_worker::plan::StaticShard>,
    /// Take up a run into DIR that was stopped (Ctrl-C, or killed) with the
    /// same inputs and options, where it stopped; it ends with the rows and
    /// summary of a run never stopped. Into s3://, the run's progress is
    /// kept in the bucket (OUT/_staging/run-*), so it is taken up from any
    /// machine; do not resume a run that is still running.
    #[arg(long)]
    pub resume: bool,
    /// Do not write OUT/report.html at the end (`verdict report OUT`
    /// writes it later).
    #[arg(long)]
    pub no_report: bool,
    /// Games analysed together at most. With --chunk-mib this bounds the
    /// memory of a run whatever its files hold; smaller chunks use less
    /// memory and stop sooner on Ctrl-C, larger ones spread better over
    /// many threads.
    #[arg(long, default_value_t = 4096, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_games: u32,
    /// MiB of SGF text analysed together at most.
    #[arg(long, default_value_t = 8, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub chunk_mib: u32,
    /// Rows per Parquet part file at most (a part ends where a chunk does);
    /// a stopped run resumes from its last complete part.
    #[arg(long, default_value_t = 1 << 20, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub part_rows: u64,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The output folder the static shards ran into.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Do not write OUT/report.html (`verdict report OUT` writes it later).
    #[arg(long)]
    pub no_report: bool,
    /// Print the job summary as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The output folder of a finished run (holding games/ and summary.json).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Example games shown per comparison.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub examples: usize,
    /// Boards drawn in all (each example game is drawn once).
    #[arg(long, default_value_t = 24, value_name = "N")]
    pub boards: usize,
    /// Print what was written as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// SGF files, collection files, directories (searched recursively) or
    /// archives (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.zst, read as streams).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Only games whose final node marks territory with TB/TW.
    #[arg(long)]
    pub marked_only: bool,
    /// How many disagreements the table lists.
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub max_misses: usize,
    #[command(flatten)]
    pub assume: AssumeRulesArg,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// The SGF file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Which game of a collection file, counting from 1.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub game: usize,
    /// Score with this komi (points) instead of the record's.
    #[arg(long, allow_negative_numbers = true, value_name = "POINTS")]
    pub komi: Option<f64>,
    /// Print one JSON object instead of the board and table.
    #[arg(long)]
    pub json: bool,
    /// Settle the dead stones even when the record marks them, and list
    /// every chain the settler was not sure of (with the layer that decided
    /// it): to compare the settler with the players.
    #[arg(long)]
    pub ignore_marks: bool,
    /// Also count the final position by each of the seeds' counting
    /// procedures (seed 000: four ways for 计枰点, seed 004: five for
    /// 计活子), each beside its rule set's formula, with why they differ.
    #[arg(long)]
    pub methods: bool,
    /// Also draw the final board as SVG into this file (stones, dead
    /// stones, territory, seki points, points to fill, doubtful chains),
    /// the same drawing as the examples of `verdict report`.
    #[arg(long, value_name = "OUT.svg")]
    pub svg: Option<PathBuf>,
    #[command(flatten)]
    pub assume: AssumeRulesArg,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// SGF files, collection files, directories (searched recursively) or
    /// archives (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.zst, read as streams).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Worker threads; 0 uses every core.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N")]
    pub threads: usize,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}
