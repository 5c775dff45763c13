//! The output folder, and how a finished run replaces the last one.
//!
//! ```text
//! OUT/games/part-NNNNN.parquet   the rows of the last published run
//! OUT/summary.json               its summaries
//! OUT/summary.parquet
//! OUT/_SUCCESS                   its manifest (JSON), written last
//! OUT/report.html                its report (`verdict run`, `verdict report`)
//! OUT/_staging/NAME/             a run in progress
//! ```
//!
//! A run writes only into a staging folder of its own; Parquet readers skip
//! names that start with `_` or `.`, so nothing in progress is ever read as
//! output. When the run is complete, [`Staging::publish`]:
//! 1. takes the publication lock, so two runs never publish at once;
//! 2. removes `_SUCCESS`: from here on the folder says it is in flux;
//! 3. swaps the run's `games` folder with `OUT/games`, in one step where the
//!    file system can (Linux `RENAME_EXCHANGE`), so a reader of `OUT/games`
//!    sees the old parts or the new ones, never a mix and never none;
//! 4. writes the summaries, each whole or not at all;
//! 5. writes `_SUCCESS` with the manifest: the run, its parts and their row
//!    counts. A reader that checks it gets a complete, consistent output;
//! 6. gives back any file of the old `games` folder that verdict did not
//!    write, and removes the staging folder with the old parts.
//!
//! The old output stays whole until step 2, so a run that fails or is
//! stopped leaves the last published one as it was. A staging folder holds
//! a lock while its run lives; one whose lock is free belongs to a run that
//! died and is removed by the next run into the same folder ([`sweep`]).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::confined::{Dir, Kind};
use crate::parquet_out::{write_table_into, WriteError};
use crate::summary::{Summary, SummaryRow};

/// The folder of published parts.
pub const GAMES: &str = "games";
/// Where runs in progress write.
pub const STAGING: &str = "_staging";
/// The completion marker and manifest, written last.
pub const MARKER: &str = "_SUCCESS";
/// The summaries beside the parts.
pub const SUMMARY_JSON: &str = "summary.json";
pub const SUMMARY_PARQUET: &str = "summary.parquet";
/// The HTML report of the published run ([`crate::report`]).
pub const REPORT: &str = "report.html";
/// Held by a run while its staging folder is in use.
const LOCK: &str = ".lock";
/// Held while publishing, so two runs never publish into one folder at once.
const PUBLISH_LOCK: &str = ".publish.lock";

/// The name of a published part.
pub fn part_name(n: u32) -> String {
    format!("part-{n:05}.parquet")
}

/// The name of a cluster shard's part in its job's staging folder: the
/// lease is in the name, so no two attempts at a shard write one file, and
/// the coordinator publishes exactly the one it accepted.
pub fn staged_part_name(shard: u32, lease: u64) -> String {
    format!("part-{shard:05}.{lease:016x}.parquet")
}

/// Why an output folder cannot be used or published.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("{0} is a symbolic link: verdict writes only into real files and folders there; remove the link or choose another output folder")]
    Link(PathBuf),
    #[error("{dir} holds files verdict did not write ({names}): move them out, or choose another output folder")]
    Foreign { dir: PathBuf, names: String },
    #[error("{0} is not a folder: remove it or choose another output folder")]
    NotAFolder(PathBuf),
    #[error(
        "{0} is a folder where verdict writes a file: remove it or choose another output folder"
    )]
    FolderInTheWay(PathBuf),
    #[error("the staging folder {0} is in use by another run")]
    Busy(PathBuf),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Whether a name in `games` is one verdict writes: parts, and the
/// temporary files of this and earlier versions.
fn is_ours(name: &OsStr) -> bool {
    let n = name.to_string_lossy();
    n.starts_with('.')
        || (n.starts_with("part-") && (n.ends_with(".parquet") || n.ends_with(".tmp")))
}

/// Checks an output folder before a run is allowed to write there: the
/// entries verdict replaces must not be links, and `games` must hold only
/// what verdict wrote. A folder that does not exist yet passes.
///
/// # Errors
/// A link where verdict writes, or files of someone else's in `games`.
pub fn check_out(out: &Path) -> Result<(), OutError> {
    let dir = match Dir::open(out) {
        Ok(d) => d,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    for name in [GAMES, STAGING] {
        match dir.kind(name)? {
            Some(Kind::Symlink) => return Err(OutError::Link(out.join(name))),
            None | Some(Kind::Dir) => {}
            Some(_) => return Err(OutError::NotAFolder(out.join(name))),
        }
    }
    for name in [MARKER, SUMMARY_JSON, SUMMARY_PARQUET, REPORT] {
        match dir.kind(name)? {
            Some(Kind::Symlink) => return Err(OutError::Link(out.join(name))),
            Some(Kind::Dir) => return Err(OutError::FolderInTheWay(out.join(name))),
            _ => {}
        }
    }
    if dir.kind(GAMES)? == Some(Kind::Dir) {
        let games = dir.sub(GAMES)?;
        let foreign: Vec<String> = games
            .entries()?
            .into_iter()
            .filter(|e| !is_ours(&e.name) || e.kind != Kind::File)
            .map(|e| e.name.to_string_lossy().into_owned())
            .collect();
        if !foreign.is_empty() {
            let mut names: Vec<String> = foreign.iter().take(3).cloned().collect();
            if foreign.len() > 3 {
                names.push(format!("and {} more", foreign.len() - 3));
            }
            return Err(OutError::Foreign {
                dir: out.join(GAMES),
                names: names.join(", "),
            });
        }
    }
    Ok(())
}

/// A run's staging folder, locked while the run lives.
#[derive(Debug)]
pub struct Staging {
    out: Dir,
    root: Dir,
    dir: Dir,
    name: String,
    _lock: File,
}

impl Staging {
    /// Checks `out` ([`check_out`]), creates it and `out/_staging/name`
    /// (or opens it, when a restarted coordinator takes its job up again),
    /// locks it, and removes staging folders of runs that died. `out` must
    /// be resolved ([`crate::confined::resolve`]): no component may be a
    /// link.
    ///
    /// # Errors
    /// [`check_out`]'s, the staging folder is locked by a live run, or the
    /// folders cannot be created.
    pub fn open(out: &Path, name: &str) -> Result<Staging, OutError> {
        check_out(out)?;
        let out_dir = Dir::create_all(out)?;
        let root = out_dir.create_sub(STAGING)?;
        sweep_in(&root, &|n| n == name);
        let dir = root.create_sub(name)?;
        let lock = match dir.open_file(LOCK) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => match dir.create_new(LOCK) {
                Ok(f) => f,
                // Created by a racing opener: use theirs.
                Err(_) => dir.open_file(LOCK)?,
            },
            Err(e) => return Err(e.into()),
        };
        if lock.try_lock().is_err() {
            return Err(OutError::Busy(dir.path().to_path_buf()));
        }
        dir.create_sub(GAMES)?;
        Ok(Staging {
            out: out_dir,
            root,
            dir,
            name: name.to_string(),
            _lock: lock,
        })
    }

    /// The staging folder (workers write their parts here).
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The folder of parts to publish, `games` in the staging folder.
    ///
    /// # Errors
    /// It is gone.
    pub fn games(&self) -> io::Result<Dir> {
        self.dir.sub(GAMES)
    }

    /// The published `games` folder of the output, if there is one: where a
    /// run killed while publishing left the parts it had moved.
    ///
    /// # Errors
    /// The output folder cannot be read.
    pub fn published_games(&self) -> io::Result<Option<Dir>> {
        match self.out.kind(GAMES)? {
            Some(Kind::Dir) => self.out.sub(GAMES).map(Some),
            _ => Ok(None),
        }
    }

    /// Its name (a run's, in the `verdict.run` metadata of its parts).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Removes the staging folder and all it holds; the published output
    /// is untouched.
    ///
    /// # Errors
    /// Something in it cannot be removed.
    pub fn discard(self) -> io::Result<()> {
        remove_retrying(&self.root, &self.name)
    }

    /// Publishes the run ([module docs](self)): `moves` renames files of
    /// the staging folder into its `games` folder first (a cluster job's
    /// accepted parts, staged under their lease's name); `parts` are the
    /// published parts with their row counts, listed in the manifest beside
    /// `manifest`'s own fields.
    ///
    /// # Errors
    /// The file system's refusal; from step 2 on, the folder then has no
    /// `_SUCCESS` until a run publishes again.
    pub fn publish(
        self,
        moves: &[(OsString, String)],
        parts: &[(String, u64)],
        summary: &Summary,
        schema_version: &str,
        mut manifest: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), OutError> {
        let publishing = match self.root.open_file(PUBLISH_LOCK) {
            Ok(f) => f,
            Err(_) => match self.root.create_new(PUBLISH_LOCK) {
                Ok(f) => f,
                Err(_) => self.root.open_file(PUBLISH_LOCK)?,
            },
        };
        publishing.lock()?;
        let games = self.games()?;
        for (from, to) in moves {
            self.dir.rename(from, &games, to)?;
        }
        games.sync()?;
        drop(games);

        self.out.remove_file(MARKER)?;
        // The report describes the output being replaced: it goes with it
        // (`verdict run` writes the new one after publishing).
        self.out.remove_file(REPORT)?;
        self.out.sync()?;
        match self.out.kind(GAMES)? {
            None => self.dir.rename(GAMES, &self.out, GAMES)?,
            Some(_) => self
                .dir
                .exchange(GAMES, &self.out, GAMES, "games.swapping")?,
        }
        write_summary_via(&self.dir, &self.out, summary, schema_version)?;
        let games_total: u64 = parts.iter().map(|(_, n)| n).sum();
        manifest.insert("schema_version".into(), schema_version.into());
        manifest.insert("games".into(), games_total.into());
        manifest.insert(
            "parts".into(),
            parts
                .iter()
                .map(|(name, rows)| {
                    serde_json::json!({"path": format!("{GAMES}/{name}"), "rows": rows})
                })
                .collect(),
        );
        manifest.insert(
            "summaries".into(),
            serde_json::json!([SUMMARY_JSON, SUMMARY_PARQUET]),
        );
        let text = serde_json::to_vec_pretty(&serde_json::Value::Object(manifest))
            .expect("JSON of plain values");
        self.dir.write_bytes_into(&self.out, MARKER, &text)?;
        self.out.sync()?;
        // The old games folder is now in the staging folder: hand back what
        // verdict did not write, and drop the rest with the staging folder.
        if self.dir.kind(GAMES)? == Some(Kind::Dir) {
            let old = self.dir.sub(GAMES)?;
            let new = self.out.sub(GAMES)?;
            for e in old.entries()? {
                if !is_ours(&e.name) {
                    old.rename(&e.name, &new, &e.name)?;
                }
            }
        }
        drop(publishing);
        remove_retrying(&self.root, &self.name)?;
        Ok(())
    }
}

/// Removes a staging folder; tries again when a late writer added a file
/// while it was being emptied.
fn remove_retrying(root: &Dir, name: &str) -> io::Result<()> {
    let mut last = Ok(());
    for _ in 0..5 {
        last = root.remove_tree(name);
        if last.is_ok() {
            return Ok(());
        }
    }
    last
}

/// Writes `summary.json` and `summary.parquet` into `out`, each whole or
/// not at all.
///
/// # Errors
/// The file system's refusal; the previous files are then untouched.
pub fn write_summary(out: &Dir, summary: &Summary, schema_version: &str) -> Result<(), OutError> {
    write_summary_via(out, out, summary, schema_version)
}

/// [`write_summary`] through temporary files in `tmp` (a staging folder,
/// so a crash mid-write leaves nothing beside the output).
fn write_summary_via(
    tmp: &Dir,
    out: &Dir,
    summary: &Summary,
    schema_version: &str,
) -> Result<(), OutError> {
    let json = summary.to_json(schema_version);
    tmp.write_bytes_into(
        out,
        SUMMARY_JSON,
        &serde_json::to_vec_pretty(&json).expect("JSON of plain values"),
    )?;
    let rows = summary.rows();
    write_table_into(
        tmp,
        out,
        SUMMARY_PARQUET,
        &Summary::columns(),
        rows.iter().map(SummaryRow::cells),
        schema_version,
    )?;
    Ok(())
}

/// The manifest of the run last published into `out`, if one was (and
/// nothing has begun to replace it since).
pub fn published(out: &Path) -> Option<serde_json::Value> {
    let file = Dir::open(out).and_then(|d| d.open_file(MARKER)).ok()?;
    serde_json::from_reader(std::io::BufReader::new(file)).ok()
}

/// Removes the staging folders of `out` that no live run holds and that
/// `keep` does not name. Never fails: what cannot be removed now is tried
/// again by the next run.
pub fn sweep(out: &Path, keep: &dyn Fn(&str) -> bool) {
    if let Ok(root) = Dir::open(out).and_then(|d| d.sub(STAGING)) {
        sweep_in(&root, keep);
    }
}

fn sweep_in(root: &Dir, keep: &dyn Fn(&str) -> bool) {
    let Ok(entries) = root.entries() else {
        return;
    };
    for e in entries {
        let name = e.name.to_string_lossy();
        if name.starts_with('.') || keep(&name) {
            continue;
        }
        if e.kind != Kind::Dir {
            let _ = root.remove_file(&e.name);
            continue;
        }
        let Ok(dir) = root.sub(&e.name) else {
            continue;
        };
        // No lock file: its run died before it could make one.
        let free = match dir.open_file(LOCK) {
            Ok(lock) => lock.try_lock().is_ok(),
            Err(_) => true,
        };
        if free {
            let _ = root.remove_tree(&e.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confined::resolve;
    use std::os::unix::fs::symlink;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("verdict-publish-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        resolve(&dir).unwrap()
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn publish(out: &Path, run: &str, parts: &[&str]) {
        let s = Staging::open(out, run).unwrap();
        let games = s.games().unwrap();
        for p in parts {
            games.write_bytes(p, run.as_bytes()).unwrap();
        }
        let listed: Vec<(String, u64)> = parts.iter().map(|p| (p.to_string(), 1)).collect();
        let mut m = serde_json::Map::new();
        m.insert("run".into(), run.into());
        s.publish(&[], &listed, &Summary::default(), "test", m)
            .unwrap();
    }

    #[test]
    fn a_publication_replaces_the_last_one_whole() {
        let dir = temp("replace");
        let out = dir.join("out");
        publish(&out, "run-a", &["part-00000.parquet", "part-00001.parquet"]);
        assert_eq!(
            names(&out),
            [
                "_SUCCESS",
                "_staging",
                "games",
                "summary.json",
                "summary.parquet"
            ]
        );
        let marker: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(MARKER)).unwrap()).unwrap();
        assert_eq!(marker["run"], "run-a");
        assert_eq!(marker["games"], 2);
        assert_eq!(marker["parts"][1]["path"], "games/part-00001.parquet");
        // A file of the user's in games survives a publication.
        std::fs::write(out.join("games/part-00009.parquet"), "old").unwrap();
        let s = Staging::open(&out, "run-b").unwrap();
        assert!(
            out.join("games/part-00009.parquet").exists(),
            "a new run leaves the published output alone until it publishes"
        );
        s.games()
            .unwrap()
            .write_bytes("part-00000.parquet", b"run-b")
            .unwrap();
        s.publish(
            &[],
            &[("part-00000.parquet".into(), 1)],
            &Summary::default(),
            "test",
            serde_json::Map::new(),
        )
        .unwrap();
        assert_eq!(names(&out.join("games")), ["part-00000.parquet"]);
        assert_eq!(
            std::fs::read(out.join("games/part-00000.parquet")).unwrap(),
            b"run-b"
        );
        assert!(names(&out.join(STAGING)).iter().all(|n| n.starts_with('.')));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn links_and_foreign_files_are_refused_before_anything_is_written() {
        let dir = temp("refuse");
        let outside = temp("refuse-outside");
        std::fs::write(outside.join("precious.parquet"), "x").unwrap();
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        symlink(&outside, out.join("games")).unwrap();
        let e = Staging::open(&out, "run-a").unwrap_err();
        assert!(matches!(e, OutError::Link(_)), "{e}");
        std::fs::remove_file(out.join("games")).unwrap();
        std::fs::create_dir_all(out.join("games")).unwrap();
        std::fs::write(out.join("games/notes.txt"), "mine").unwrap();
        let e = Staging::open(&out, "run-a").unwrap_err();
        assert!(e.to_string().contains("notes.txt"), "{e}");
        std::fs::remove_file(out.join("games/notes.txt")).unwrap();
        symlink(outside.join("precious.parquet"), out.join("summary.json")).unwrap();
        assert!(matches!(
            Staging::open(&out, "run-a").unwrap_err(),
            OutError::Link(_)
        ));
        assert_eq!(names(&outside), ["precious.parquet"]);
        // A link swapped in after the check is replaced, not followed.
        std::fs::remove_file(out.join("summary.json")).unwrap();
        let s = Staging::open(&out, "run-a").unwrap();
        symlink(outside.join("precious.parquet"), out.join("summary.json")).unwrap();
        s.publish(
            &[],
            &[],
            &Summary::default(),
            "test",
            serde_json::Map::new(),
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.join("precious.parquet")).unwrap(),
            "x"
        );
        assert!(!std::fs::symlink_metadata(out.join("summary.json"))
            .unwrap()
            .file_type()
            .is_symlink());
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn staging_folders_of_dead_runs_are_swept_and_live_ones_kept() {
        let dir = temp("sweep");
        let out = dir.join("out");
        let live = Staging::open(&out, "run-live").unwrap();
        // A run that died: its folder exists, nobody holds its lock.
        drop(Staging::open(&out, "run-dead").unwrap());
        std::fs::create_dir_all(out.join("_staging/run-nolock")).unwrap();
        assert!(matches!(
            Staging::open(&out, "run-live").unwrap_err(),
            OutError::Busy(_)
        ));
        let next = Staging::open(&out, "run-next").unwrap();
        assert_eq!(
            names(&out.join(STAGING)),
            ["run-live", "run-next"],
            "the dead runs' folders are gone"
        );
        next.discard().unwrap();
        live.discard().unwrap();
        assert!(names(&out.join(STAGING)).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
