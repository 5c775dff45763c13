//! From a job's inputs to shards of about equal size.
//!
//! Files are taken in the order `verdict run` takes them and packed into
//! shards of about `shard_bytes`. A plain SGF file larger than a shard is
//! cut into parts at tree ends ([`verdict_worker::engine::cut`]: a parse,
//! no replay), and each part, a byte range, is a shard of its own. The last
//! part is open-ended, so a file that has grown loses no game. Archives are
//! streams, and compressed files are read whole: neither is split.

use std::path::{Path, PathBuf};

use verdict_worker::archive::ArchiveKind;
use verdict_worker::engine::{FilePart, ShardFile};
use verdict_worker::inputs::{discover, InputFile};

use super::auth::{PathError, Roots};

/// At most this many files in one shard, so a lease stays a small message.
pub const MAX_FILES_PER_SHARD: usize = 2000;
/// At most this many shards in one job.
pub const MAX_SHARDS: usize = 1_000_000;

/// A job's shards, each a list of files (with byte ranges for split files).
#[derive(Debug, Default)]
pub struct Plan {
    pub shards: Vec<Vec<ShardFile>>,
    pub bytes_total: u64,
}

/// Why a job's inputs cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("cannot read input {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("no SGF files found in the inputs")]
    Empty,
    #[error(transparent)]
    Outside(#[from] PathError),
    #[error("the inputs make {0} shards, more than {MAX_SHARDS}: give a larger shard size")]
    TooMany(usize),
}

/// A file of a shard (a part of it, for a split collection), with the path
/// it resolved to.
fn shard_file(file: &InputFile, real: &Path, part: Option<&FilePart>) -> ShardFile {
    ShardFile {
        file: InputFile {
            real: Some(real.to_path_buf()),
            ..file.clone()
        },
        part: part.cloned(),
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
    let mut current: Vec<ShardFile> = Vec::new();
    let mut current_bytes = 0;
    for file in &found.files {
        let real = roots.resolve_existing(&file.path)?;
        if file.len > shard_bytes && ArchiveKind::of_path(&file.path).is_none() {
            // Cut at tree ends: each shard reads only its byte range.
            let opened = InputFile {
                real: Some(real.clone()),
                ..file.clone()
            };
            let parts = verdict_worker::engine::cut(&opened, shard_bytes).map_err(|e| {
                PlanError::Unreadable {
                    path: file.path.display().to_string(),
                    reason: e.to_string(),
                }
            })?;
            if let Some(parts) = parts {
                for p in &parts {
                    plan.shards.push(vec![shard_file(file, &real, Some(p))]);
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
        current.push(shard_file(file, &real, None));
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
        // 10 games of 14 bytes: 140 bytes, cut at the first tree end 40
        // bytes or more past the last cut.
        std::fs::write(dir.join("z-big.sgf"), "(;SZ[9];B[aa])".repeat(10)).unwrap();
        let roots = Roots::new(std::slice::from_ref(&dir)).unwrap();
        let plan = plan(std::slice::from_ref(&dir), 40, &roots).unwrap();
        let sizes: Vec<usize> = plan.shards.iter().map(Vec::len).collect();
        // Two small files (28 bytes) per shard; the ranges go out as soon
        // as they are cut, the last small files when the list ends.
        assert_eq!(sizes, [2, 2, 1, 1, 1, 1, 2]);
        let parts: Vec<(u64, u64, u64)> = plan.shards[2..6]
            .iter()
            .map(|s| {
                let p = s[0].part.as_ref().unwrap();
                (p.bytes.start, p.bytes.end, p.first_game)
            })
            .collect();
        assert_eq!(
            parts,
            [(0, 42, 0), (42, 84, 3), (84, 126, 6), (126, u64::MAX, 9)]
        );
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
