//! From command-line paths to the files a run reads.
//!
//! Folders are walked in sorted order (runs are reproducible), following
//! links, but every folder and file is read once: a link back to a folder
//! being walked (a loop) or to one already walked, and a second name for a
//! file already listed, are left aside with the reason, so that a folder
//! with two links to itself ends instead of growing forever.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Folders nested deeper than this under an input are not searched.
pub const MAX_DEPTH: usize = 256;

pub use verdict_corpus::input::InputFile;

/// Opens an input file for reading: its `real` path with no link
/// followed (a cluster shard), else its `path`.
///
/// # Errors
/// Missing, unreadable, or (for `real`) reached through a link.
pub fn open(file: &InputFile) -> std::io::Result<File> {
    open_range(file, None)
}

/// [`open`], or for an object in object storage
/// ([`crate::objects`]) only `range` of it, at its own offsets (a shard's
/// part of a large collection).
///
/// # Errors
/// As [`open`]; an object that cannot be read.
pub fn open_range(file: &InputFile, range: Option<std::ops::Range<u64>>) -> std::io::Result<File> {
    if crate::objects::is_url(&file.path) {
        return crate::objects::open(&file.path, range).map_err(std::io::Error::other);
    }
    match &file.real {
        Some(real) => crate::confined::open_file(real),
        None => File::open(&file.path),
    }
}

const NOT_AN_INPUT: &str = "not an .sgf file (plain, .gz, .bz2 or .zst) or a known archive";

/// The objects under an `s3://bucket/prefix` input, as a folder is walked:
/// one object if the URL names one, else everything under `prefix/`,
/// sorted by key. What cannot be listed is unread, with what to check.
fn discover_objects(path: &Path, inputs: &mut Inputs) {
    use crate::objects::{store, ObjectUrl};
    let unread = |inputs: &mut Inputs, reason: String| {
        inputs.unread.push(Unread {
            path: path.to_path_buf(),
            reason,
            duplicate: false,
            error: true,
        });
    };
    let url = match ObjectUrl::parse(path) {
        Ok(u) => u,
        Err(e) => return unread(inputs, e.message),
    };
    let store = match store(&url) {
        Ok(s) => s,
        Err(e) => return unread(inputs, e.message),
    };
    let root = url.to_path();
    // A folder first: some servers refuse a HEAD of a folder's name.
    let prefix = if url.key.is_empty() {
        String::new()
    } else {
        format!("{}/", url.key)
    };
    let listed = match store.list(&prefix) {
        Ok(l) => l,
        Err(e) => return unread(inputs, e.message),
    };
    if listed.is_empty() {
        match (url.key.is_empty(), store.head(&url.key)) {
            (false, Ok(Some(object))) => inputs.files.push(InputFile {
                path: root.clone(),
                len: object.size,
                root,
                real: None,
                version: object.etag,
            }),
            (_, Err(e)) => unread(inputs, e.message),
            _ => unread(
                inputs,
                "no objects under this prefix: check the bucket and the prefix".into(),
            ),
        }
        return;
    }
    for o in listed {
        let p = o.url.to_path();
        if is_input_name(&p) {
            inputs.files.push(InputFile {
                path: p,
                len: o.size,
                root: root.clone(),
                real: None,
                version: o.etag,
            });
        } else {
            inputs.unread.push(Unread {
                path: p,
                reason: NOT_AN_INPUT.to_string(),
                duplicate: false,
                error: false,
            });
        }
    }
}

/// A path given by the user, or found under one, that will not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unread {
    pub path: PathBuf,
    pub reason: String,
    /// A second name for a file or folder already read: not an error.
    pub duplicate: bool,
    /// It could not be read (missing, no permission, ...), as opposed to
    /// left aside (not an SGF file, a loop, a second name, too deep).
    pub error: bool,
}

/// Files to read and paths left aside, both in a stable order.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub files: Vec<InputFile>,
    pub unread: Vec<Unread>,
}

impl Inputs {
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.len).sum()
    }
}

/// Whether a file found inside a directory is read: SGF records and the
/// archives [`crate::archive`] streams. Files named on the command line are
/// read whatever their name.
pub fn is_input_name(path: &Path) -> bool {
    is_sgf_name(path)
        || is_compressed_sgf_name(path)
        || crate::archive::ArchiveKind::of_path(path).is_some()
}

/// Endings of one compressed SGF file (`game.sgf.gz`): the engine reads it
/// by its first bytes, so an `xz` one is named as unreadable instead of
/// being left aside unnoticed.
const COMPRESSED_ENDINGS: &[&str] = &["gz", "bz2", "zst", "xz"];

/// Whether a file is named as one compressed SGF file (`x.sgf.gz`,
/// `x.sgf.bz2`, `x.sgf.zst`, `x.sgf.xz`).
pub fn is_compressed_sgf_name(path: &Path) -> bool {
    let compressed = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| COMPRESSED_ENDINGS.iter().any(|c| e.eq_ignore_ascii_case(c)));
    compressed
        && path
            .file_stem()
            .is_some_and(|stem| is_sgf_name(Path::new(stem)))
}

/// Whether a file looks like an SGF record by its name.
pub fn is_sgf_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
}

/// Files and folders already seen, by device and inode, with the path
/// they were first seen under.
type Seen = HashMap<(u64, u64), PathBuf>;

/// Expands `paths`: files as given, directories recursively (SGF files only,
/// in sorted order so that runs are reproducible). Missing paths, other
/// files found in directories, loops and second names of what was already
/// listed are in [`Inputs::unread`], never fatal.
pub fn discover<P: AsRef<Path>>(paths: &[P]) -> Inputs {
    let mut inputs = Inputs::default();
    let mut seen = Seen::new();
    for path in paths {
        let path = path.as_ref();
        if crate::objects::is_url(path) {
            discover_objects(path, &mut inputs);
            continue;
        }
        match std::fs::metadata(path) {
            Err(e) => inputs.unread.push(Unread {
                path: path.to_path_buf(),
                reason: e.to_string(),
                duplicate: false,
                error: true,
            }),
            Ok(meta) if meta.is_dir() => {
                let first = inputs.files.len();
                walk(path, &meta, &mut inputs, &mut seen);
                for f in &mut inputs.files[first..] {
                    f.root = path.to_path_buf();
                }
                // Whole paths in order, so a directory's files and its
                // subdirectories interleave as a file manager lists them.
                inputs.files[first..].sort_by(|a, b| a.path.cmp(&b.path));
            }
            Ok(meta) => {
                if let Some(unread) = once(&mut seen, path, &meta) {
                    inputs.unread.push(unread);
                    continue;
                }
                inputs.files.push(InputFile {
                    path: path.to_path_buf(),
                    len: meta.len(),
                    root: path.to_path_buf(),
                    real: None,
                    version: None,
                });
            }
        }
    }
    inputs
}

/// Records `path` as seen; if it was seen before (under another name, or
/// the same one given twice), why it is not read again.
fn once(seen: &mut Seen, path: &Path, meta: &std::fs::Metadata) -> Option<Unread> {
    match seen.entry((meta.dev(), meta.ino())) {
        std::collections::hash_map::Entry::Occupied(first) => Some(Unread {
            path: path.to_path_buf(),
            reason: format!("already read as {}", first.get().display()),
            duplicate: true,
            error: false,
        }),
        std::collections::hash_map::Entry::Vacant(v) => {
            v.insert(path.to_path_buf());
            None
        }
    }
}

/// Iterative depth-first walk, each folder once, at most [`MAX_DEPTH`] deep.
fn walk(root: &Path, meta: &std::fs::Metadata, inputs: &mut Inputs, seen: &mut Seen) {
    if let Some(unread) = once(seen, root, meta) {
        inputs.unread.push(unread);
        return;
    }
    // Each folder with the folders it was reached through, to tell a loop
    // (a link back to one of them) from a second way to a folder walked.
    let mut stack: Vec<(PathBuf, Vec<(u64, u64)>)> =
        vec![(root.to_path_buf(), vec![(meta.dev(), meta.ino())])];
    while let Some((dir, parents)) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                inputs.unread.push(Unread {
                    path: dir,
                    reason: e.to_string(),
                    duplicate: false,
                    error: true,
                });
                continue;
            }
        };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        let mut subdirs = Vec::new();
        for path in names {
            let meta = match std::fs::metadata(&path) {
                Ok(meta) => meta,
                Err(e) => {
                    inputs.unread.push(Unread {
                        path,
                        reason: e.to_string(),
                        duplicate: false,
                        error: true,
                    });
                    continue;
                }
            };
            let id = (meta.dev(), meta.ino());
            if meta.is_dir() {
                if let Some(i) = parents.iter().position(|p| *p == id) {
                    let back = parents.len() - i;
                    inputs.unread.push(Unread {
                        path,
                        reason: format!(
                            "a link back to the folder {back} level(s) up: a loop, not searched"
                        ),
                        duplicate: false,
                        error: false,
                    });
                } else if parents.len() >= MAX_DEPTH {
                    inputs.unread.push(Unread {
                        path,
                        reason: format!("nested deeper than {MAX_DEPTH} folders: not searched"),
                        duplicate: false,
                        error: false,
                    });
                } else if let Some(unread) = once(seen, &path, &meta) {
                    inputs.unread.push(unread);
                } else {
                    let mut chain = parents.clone();
                    chain.push(id);
                    subdirs.push((path, chain));
                }
            } else if !is_input_name(&path) {
                inputs.unread.push(Unread {
                    path,
                    reason: NOT_AN_INPUT.to_string(),
                    duplicate: false,
                    error: false,
                });
            } else if let Some(unread) = once(seen, &path, &meta) {
                inputs.unread.push(unread);
            } else {
                inputs.files.push(InputFile {
                    path,
                    len: meta.len(),
                    root: PathBuf::new(),
                    real: None,
                    version: None,
                });
            }
        }
        // Reverse so that the stack pops subdirectories in sorted order.
        stack.extend(subdirs.into_iter().rev());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_sgf_files_are_inputs_by_name() {
        for yes in [
            "a.sgf",
            "a.SGF",
            "a.sgf.gz",
            "b.sgf.bz2",
            "c.Sgf.ZST",
            "d.sgf.xz",
            "e.tgz",
        ] {
            assert!(is_input_name(Path::new(yes)), "{yes}");
        }
        for no in [
            "a.gz",
            "a.txt.gz",
            "sgf.gz",
            "a.sgf.gz.txt",
            "a.html",
            "a.sgf.lz4",
        ] {
            assert!(!is_input_name(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn walks_sorted_and_lists_what_it_skips() {
        let dir = std::env::temp_dir().join(format!("verdict-inputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/deeper")).unwrap();
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("b/deeper/z.SGF"), "(;)").unwrap();
        std::fs::write(dir.join("b/y.sgf"), "(;)").unwrap();
        std::fs::write(dir.join("a/x.sgf"), "(;)").unwrap();
        std::fs::write(dir.join("a/notes.txt"), "hi").unwrap();
        let inputs = discover(&[dir.clone(), dir.join("missing.sgf")]);
        let names: Vec<_> = inputs
            .files
            .iter()
            .map(|f| {
                f.path
                    .strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["a/x.sgf", "b/deeper/z.SGF", "b/y.sgf"]);
        assert_eq!(inputs.unread.len(), 2);
        assert!(inputs.unread[0].path.ends_with("notes.txt"));
        assert!(inputs.unread[1].path.ends_with("missing.sgf"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Two links from a folder to itself made `discover` walk forever
    /// (each level doubling the paths); now each is a loop, listed once.
    #[test]
    fn loops_end_and_everything_is_read_once() {
        use std::os::unix::fs::symlink;
        let dir = std::env::temp_dir().join(format!("verdict-inputs-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("in/sub")).unwrap();
        std::fs::write(dir.join("in/a.sgf"), "(;)").unwrap();
        std::fs::write(dir.join("in/sub/b.sgf"), "(;)").unwrap();
        symlink(dir.join("in"), dir.join("in/sub/up")).unwrap();
        symlink(dir.join("in"), dir.join("in/self")).unwrap();
        symlink(dir.join("in/sub"), dir.join("side")).unwrap();
        symlink(dir.join("in/a.sgf"), dir.join("in/sub/alias.sgf")).unwrap();
        let inputs = discover(&[dir.join("in"), dir.join("side"), dir.join("in/a.sgf")]);
        let files: Vec<_> = inputs.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(files, [dir.join("in/a.sgf"), dir.join("in/sub/b.sgf")]);
        let why: Vec<(String, String)> = inputs
            .unread
            .iter()
            .map(|u| {
                (
                    u.path.strip_prefix(&dir).unwrap().display().to_string(),
                    u.reason.clone(),
                )
            })
            .collect();
        assert_eq!(why.len(), 5, "{why:?}");
        assert!(
            why[0].0 == "in/self" && why[0].1.contains("loop"),
            "{why:?}"
        );
        assert!(
            why[1].0 == "in/sub/alias.sgf" && why[1].1.contains("already read as"),
            "{why:?}"
        );
        assert!(
            why[2].0 == "in/sub/up" && why[2].1.contains("2 level(s) up"),
            "{why:?}"
        );
        assert!(
            why[3].0 == "side" && why[3].1.contains("already read as"),
            "{why:?}"
        );
        assert!(
            why[4].0 == "in/a.sgf" && why[4].1.contains("already read as"),
            "{why:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
