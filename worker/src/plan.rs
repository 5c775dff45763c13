//! From a job's inputs to shards of about equal size: one planner for the
//! coordinator's jobs and for static shards (`verdict run --shard K/N`,
//! [`StaticShard`]), so both cut a corpus the same way.
//!
//! Files are taken in the order `verdict run` takes them and packed into
//! shards of about `shard_bytes`. A plain SGF file larger than a shard is
//! cut into parts at tree ends ([`crate::engine::cut`]: a parse,
//! no replay), and each part, a byte range, is a shard of its own. The last
//! part is open-ended, so a file that has grown loses no game. Archives are
//! streams, and compressed files are read whole: neither is split.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::archive::ArchiveKind;
use crate::engine::{FilePart, ShardFile};
use crate::inputs::{InputFile, Inputs};

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

/// Why a job's inputs cannot be planned. `E` is why a path was refused
/// (the coordinator's confinement to its roots).
#[derive(Debug, thiserror::Error)]
pub enum PlanError<E: std::error::Error + 'static = std::convert::Infallible> {
    #[error("cannot read input {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("no SGF files found in the inputs")]
    Empty,
    #[error(transparent)]
    Outside(E),
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

/// Plans the files `found` (in the order `verdict run` reads them) into
/// shards of about `shard_bytes`. Every file goes through `resolve` first
/// (the coordinator confines it to its roots there; a link out of a root is
/// refused); its resolved path travels with it, and workers open that path
/// without following links.
///
/// # Errors
/// No file was found, a file cannot be cut, or `resolve` refuses one.
pub fn plan<E: std::error::Error + 'static>(
    found: &Inputs,
    shard_bytes: u64,
    resolve: impl Fn(&Path) -> Result<PathBuf, E>,
) -> Result<Plan, PlanError<E>> {
    let shard_bytes = shard_bytes.max(1);
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
        let real = resolve(&file.path).map_err(PlanError::Outside)?;
        if file.len > shard_bytes && ArchiveKind::of_path(&file.path).is_none() {
            // Cut at tree ends: each shard reads only its byte range.
            let opened = InputFile {
                real: Some(real.clone()),
                ..file.clone()
            };
            let parts =
                crate::engine::cut(&opened, shard_bytes).map_err(|e| PlanError::Unreadable {
                    path: file.path.display().to_string(),
                    reason: e.to_string(),
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

/// A static shard: `K/N`, the K-th (from 0) of N.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StaticShard {
    pub k: u32,
    pub n: u32,
}

impl std::str::FromStr for StaticShard {
    type Err = String;

    fn from_str(s: &str) -> Result<StaticShard, String> {
        let usage = || format!("{s:?}: give K/N, the shard K (counting from 0) of N, e.g. 0/8");
        let (k, n) = s.split_once('/').ok_or_else(usage)?;
        let k: u32 = k.trim().parse().map_err(|_| usage())?;
        let n: u32 = n.trim().parse().map_err(|_| usage())?;
        if n == 0 || n as usize > MAX_SHARDS {
            return Err(format!("{s:?}: N must be between 1 and {MAX_SHARDS}"));
        }
        if k >= n {
            return Err(format!(
                "{s:?}: K counts from 0, so it must be below N (the last of {n} is {}/{n})",
                n - 1
            ));
        }
        Ok(StaticShard { k, n })
    }
}

impl std::fmt::Display for StaticShard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl StaticShard {
    /// The planner's shard size for N static shards of `total` bytes.
    pub fn shard_bytes(self, total: u64) -> u64 {
        total.div_ceil(u64::from(self.n)).max(1)
    }

    /// Which of `planned` shards (planned with [`StaticShard::shard_bytes`])
    /// this static shard analyses: consecutive ones, as even in number as
    /// they divide. Every planned shard goes to exactly one of the N (some
    /// get none when the inputs cannot be cut that fine, e.g. one archive).
    pub fn range(self, planned: usize) -> Range<usize> {
        let at = |k: u32| (planned as u64 * u64::from(k)).div_ceil(u64::from(self.n)) as usize;
        at(self.k)..at(self.k + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::discover;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("verdict-plan-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    fn resolved(p: &Path) -> std::io::Result<PathBuf> {
        p.canonicalize()
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
        let plan = plan(&discover(&[&dir]), 40, resolved).unwrap();
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
    fn refuses_empty_inputs_and_paths_the_resolver_refuses() {
        let dir = temp("empty");
        assert!(matches!(
            plan(&discover(&[&dir]), 10, resolved),
            Err(PlanError::Empty)
        ));
        std::fs::write(dir.join("a.sgf"), "(;)").unwrap();
        let refuse = |p: &Path| {
            Err::<PathBuf, _>(std::io::Error::other(format!("{} is outside", p.display())))
        };
        let refused = plan(&discover(&[&dir]), 10, refuse).unwrap_err();
        assert!(
            refused.to_string().ends_with("a.sgf is outside"),
            "{refused}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn static_shards_parse_and_say_what_is_wrong() {
        assert_eq!("3/8".parse(), Ok(StaticShard { k: 3, n: 8 }));
        assert!("8/8".parse::<StaticShard>().unwrap_err().contains("7/8"));
        assert!("1/0".parse::<StaticShard>().is_err());
        assert!("3".parse::<StaticShard>().unwrap_err().contains("K/N"));
        assert!("-1/4".parse::<StaticShard>().is_err());
    }

    /// Every planned shard goes to exactly one static shard, in order, and
    /// the static shards differ in size by at most one planned shard.
    #[test]
    fn static_shards_cover_the_plan_once() {
        for planned in [0usize, 1, 2, 5, 7, 8, 9, 64, 1000] {
            for n in [1u32, 2, 3, 7, 8, 100] {
                let ranges: Vec<Range<usize>> = (0..n)
                    .map(|k| StaticShard { k, n }.range(planned))
                    .collect();
                let mut next = 0;
                for r in &ranges {
                    assert_eq!(r.start, next, "{planned} over {n}");
                    next = r.end;
                }
                assert_eq!(next, planned);
                let lens: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
                let (lo, hi) = (lens.iter().min().unwrap(), lens.iter().max().unwrap());
                assert!(hi - lo <= 1, "{planned} over {n}: {lens:?}");
            }
        }
        assert_eq!(StaticShard { k: 0, n: 4 }.shard_bytes(10), 3);
        assert_eq!(StaticShard { k: 0, n: 4 }.shard_bytes(0), 1);
    }
}
