//! From a job's inputs to shards of about equal size.
//!
//! Files are taken in the order `verdict run` takes them and packed into
//! shards of about `shard_bytes`. A plain SGF file larger than a shard is
//! split by game ranges: its games are counted here (a parse, no replay),
//! and each range is a shard of its own. The last range is open-ended, so a
//! file that has grown or was counted short loses no game. Archives are
//! streams and are never split.

use std::path::{Path, PathBuf};

use verdict_proto::v1;
use verdict_rules::sgf::{Reader, SgfGame};
use verdict_worker::archive::ArchiveKind;
use verdict_worker::inputs::{discover, InputFile};

use super::auth::Roots;

/// At most this many files in one shard, so a lease stays a small message.
pub const MAX_FILES_PER_SHARD: usize = 2000;
/// At most this many shards in one job.
pub const MAX_SHARDS: usize = 1_000_000;

/// A job's shards, each a list of files (with game ranges for split files).
#[derive(Debug, Default)]
pub struct Plan {
    pub shards: Vec<Vec<v1::ShardFile>>,
    pub bytes_total: u64,
}

/// Why a job's inputs cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("cannot read input {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("no SGF files found in the inputs")]
    Empty,
    #[error("{0}")]
    Outside(String),
    #[error("the inputs make {0} shards, more than {MAX_SHARDS}: give a larger shard size")]
    TooMany(usize),
}

/// Counts the game trees of an SGF text as `verdict run` reads them.
fn count_games(bytes: &[u8]) -> u64 {
    let mut reader = Reader::new(bytes);
    let mut sgf = SgfGame::default();
    let mut n = 0;
    while reader.next_into(&mut sgf) {
        n += 1;
    }
    n
}

fn wire(file: &InputFile, real: &Path, range: Option<(u64, u64)>) -> v1::ShardFile {
    v1::ShardFile {
        path: file.path.display().to_string(),
        root: file.root.display().to_string(),
        len: file.len,
        range: range.map(|(first, last)| v1::GameRange { first, last }),
        real: real.display().to_string(),
    }
}

/// Plans `inputs` (already resolved and confined to `roots`) into shards of
/// about `shard_bytes`. Every file found must also resolve inside `roots` (a
/// symbolic link out of a root is refused); its resolved path travels with
/// it, and workers open that path without following links.
///
/// # Errors
/// An input cannot be read, holds no SGF file, or leads outside the roots.
pub fn plan(inputs: &[PathBuf], shard_bytes: u64, roots: &Roots) -> Result<Plan, PlanError> {
    let shard_bytes = shard_bytes.max(1);
    let found = discover(inputs);
    if let Some(u) = found
        .unread
        .iter()
        .find(|u| !u.duplicate && inputs.contains(&u.path))
    {
        return Err(PlanError::Unreadable {
            path: u.path.display().to_string(),
            reason: u.reason.clone(),
        });
    }
    if found.files.is_empty() {
        return Err(PlanError::Empty);
    }
    let mut plan = Plan {
        bytes_total: found.total_bytes(),
        ..Plan::default()
    };
    let mut current: Vec<v1::ShardFile> = Vec::new();
    let mut current_bytes = 0;
    for file in &found.files {
        let real = roots
            .resolve_existing(&file.path)
            .map_err(PlanError::Outside)?;
        if file.len > shard_bytes && ArchiveKind::of_path(&file.path).is_none() {
            let read = verdict_worker::confined::open_file(&real).and_then(|mut f| {
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut f, &mut bytes)?;
                Ok(bytes)
            });
            let games = match read {
                Ok(bytes) => count_games(&bytes),
                Err(e) => {
                    return Err(PlanError::Unreadable {
                        path: file.path.display().to_string(),
                        reason: e.to_string(),
                    })
                }
            };
            if games > 1 {
                let pieces = file.len.div_ceil(shard_bytes).min(games);
                for i in 0..pieces {
                    let first = games * i / pieces;
                    let last = if i + 1 == pieces {
                        u64::MAX
                    } else {
                        games * (i + 1) / pieces
                    };
                    plan.shards
                        .push(vec![wire(file, &real, Some((first, last)))]);
                }
                if plan.shards.len() > MAX_SHARDS {
                    return Err(PlanError::TooMany(plan.shards.len()));
                }
                continue;
            }
        }
        if !current.is_empty()
            && (current_bytes + file.len > shard_bytes || current.len() >= MAX_FILES_PER_SHARD)
        {
            plan.shards.push(std::mem::take(&mut current));
            current_bytes = 0;
        }
        current.push(wire(file, &real, None));
        current_bytes += file.len;
        if plan.shards.len() > MAX_SHARDS {
            return Err(PlanError::TooMany(plan.shards.len()));
        }
    }
    if !current.is_empty() {
        plan.shards.push(current);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("verdict-plan-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn packs_small_files_and_splits_a_large_collection() {
        let dir = temp("split");
        for i in 0..6 {
            std::fs::write(dir.join(format!("s{i}.sgf")), "(;SZ[9];B[aa])").unwrap();
        }
        // 10 games of 14 bytes: 140 bytes, split into ceil(140/40) = 4 ranges.
        std::fs::write(dir.join("z-big.sgf"), "(;SZ[9];B[aa])".repeat(10)).unwrap();
        let roots = Roots::new(std::slice::from_ref(&dir)).unwrap();
        let plan = plan(std::slice::from_ref(&dir), 40, &roots).unwrap();
        let sizes: Vec<usize> = plan.shards.iter().map(Vec::len).collect();
        // Two small files (28 bytes) per shard; the ranges go out as soon
        // as they are cut, the last small files when the list ends.
        assert_eq!(sizes, [2, 2, 1, 1, 1, 1, 2]);
        let ranges: Vec<(u64, u64)> = plan.shards[2..6]
            .iter()
            .map(|s| {
                let r = s[0].range.unwrap();
                (r.first, r.last)
            })
            .collect();
        assert_eq!(ranges, [(0, 2), (2, 5), (5, 7), (7, u64::MAX)]);
        assert_eq!(plan.bytes_total, 6 * 14 + 140);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn refuses_missing_and_empty_inputs() {
        let dir = temp("missing");
        let roots = Roots::new(std::slice::from_ref(&dir)).unwrap();
        assert!(matches!(
            plan(&[dir.join("nope.sgf")], 10, &roots),
            Err(PlanError::Unreadable { .. })
        ));
        assert!(matches!(
            plan(std::slice::from_ref(&dir), 10, &roots),
            Err(PlanError::Empty)
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
