//! Differential test of the SGF reader against `sgf-parse` on the real
//! corpora in `../shared/corpora` (see its README; they are not part of the
//! repository). Wherever `sgf-parse` reads a file, our main line's
//! `B`/`W`/`AB`/`AW`/`AE` must equal its main line, game by game.
//!
//! About 30 s in a debug build on two cores, 9 s in release; to see the
//! tallies run
//! `cargo test -p verdict-rules --release --test sgf_differential -- --nocapture`.

mod sgf_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sgf_common::{check_sane, ours, theirs};
use verdict_rules::sgf::{Reader, SgfGame};

/// `$VERDICT_CORPORA` when set (so that its absence can be tested), else
/// `shared/corpora` beside the repository.
fn corpus_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VERDICT_CORPORA") {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        manifest.join("../../shared/corpora"),
        manifest.join("../shared/corpora"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

fn sgf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[derive(Default)]
struct Tally {
    files: usize,
    games: usize,
    compared_files: usize,
    compared_games: usize,
    /// sgf-parse refused the file: error name -> count.
    refused: BTreeMap<String, usize>,
    /// Games sgf-parse read as another game than Go: not comparable.
    not_go: usize,
    /// Games whose main line we flagged with some problem.
    flagged: BTreeMap<&'static str, usize>,
    disagreements: Vec<String>,
}

impl Tally {
    fn merge(&mut self, o: Tally) {
        self.files += o.files;
        self.games += o.games;
        self.compared_files += o.compared_files;
        self.compared_games += o.compared_games;
        for (k, v) in o.refused {
            *self.refused.entry(k).or_default() += v;
        }
        self.not_go += o.not_go;
        for (k, v) in o.flagged {
            *self.flagged.entry(k).or_default() += v;
        }
        self.disagreements.extend(o.disagreements);
    }
}

fn compare_file(path: &Path, bytes: &[u8], tally: &mut Tally) {
    tally.files += 1;
    let games: Vec<SgfGame<'_>> = Reader::new(bytes).collect();
    check_sane(bytes, &games);
    tally.games += games.len();
    for g in &games {
        for p in g.problems.iter() {
            *tally.flagged.entry(p.as_str()).or_default() += 1;
        }
    }
    let text = String::from_utf8_lossy(bytes);
    let parsed = match sgf_parse::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            *tally.refused.entry(format!("{e:?}")).or_default() += 1;
            return;
        }
    };
    tally.compared_files += 1;
    let name = path.display();
    if parsed.len() != games.len() {
        tally.disagreements.push(format!(
            "{name}: {} games, sgf-parse {}",
            games.len(),
            parsed.len()
        ));
        return;
    }
    for (i, (g, tree)) in games.iter().zip(&parsed).enumerate() {
        let Ok(root) = tree.as_go_node() else {
            tally.not_go += 1;
            continue;
        };
        tally.compared_games += 1;
        let (a, b) = (ours(g), theirs(root));
        if a.len() != b.len() {
            tally.disagreements.push(format!(
                "{name} game {i}: {} main-line nodes, sgf-parse {}",
                a.len(),
                b.len()
            ));
            continue;
        }
        if let Some(j) = (0..a.len()).find(|&j| a[j] != b[j]) {
            tally.disagreements.push(format!(
                "{name} game {i} node {j}: ours {:?}, sgf-parse {:?}",
                a[j], b[j]
            ));
        }
    }
}

#[test]
fn corpus_agrees_with_sgf_parse() {
    let Some(dir) = corpus_dir() else {
        println!(
            "SKIPPED: corpus not found (../shared/corpora beside the repository, or $VERDICT_CORPORA); nothing compared"
        );
        return;
    };
    let files = sgf_files(&dir);
    println!("{} .sgf files under {}", files.len(), dir.display());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let chunk = files.len().div_ceil(workers).max(1);
    let mut tally = Tally::default();
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                // sgf-parse drops its trees recursively, one frame per node of
                // the longest line: give it room.
                std::thread::Builder::new()
                    .stack_size(512 << 20)
                    .spawn_scoped(s, move || {
                        let mut t = Tally::default();
                        for p in part {
                            let bytes = std::fs::read(p).expect("readable corpus file");
                            compare_file(p, &bytes, &mut t);
                        }
                        t
                    })
                    .expect("spawn")
            })
            .collect();
        for h in handles {
            tally.merge(h.join().expect("worker panicked"));
        }
    });

    println!(
        "files {} (games {}); sgf-parse read {} files, {} Go games compared, {} non-Go games skipped",
        tally.files, tally.games, tally.compared_files, tally.compared_games, tally.not_go
    );
    println!("sgf-parse refused: {:?}", tally.refused);
    println!("our problem flags (games): {:?}", tally.flagged);
    println!("{} disagreements", tally.disagreements.len());
    for d in &tally.disagreements {
        println!("  {d}");
    }
    assert!(tally.disagreements.is_empty());
}
