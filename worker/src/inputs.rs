//! From command-line paths to the files a run reads.

use std::path::{Path, PathBuf};

/// One file to read, with the name it is reported under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    pub path: PathBuf,
    pub len: u64,
    /// The path given on the command line this file was found under.
    pub root: PathBuf,
}

/// A path given by the user, or found under one, that will not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unread {
    pub path: PathBuf,
    pub reason: String,
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
    is_sgf_name(path) || crate::archive::ArchiveKind::of_path(path).is_some()
}

/// Whether a file looks like an SGF record by its name.
pub fn is_sgf_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
}

/// Expands `paths`: files as given, directories recursively (SGF files only,
/// in sorted order so that runs are reproducible). Missing paths and other
/// files found in directories are listed in [`Inputs::unread`], never fatal.
pub fn discover<P: AsRef<Path>>(paths: &[P]) -> Inputs {
    let mut inputs = Inputs::default();
    for path in paths {
        let path = path.as_ref();
        match std::fs::metadata(path) {
            Err(e) => inputs.unread.push(Unread {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
            Ok(meta) if meta.is_dir() => {
                let first = inputs.files.len();
                walk(path, &mut inputs);
                for f in &mut inputs.files[first..] {
                    f.root = path.to_path_buf();
                }
                // Whole paths in order, so a directory's files and its
                // subdirectories interleave as a file manager lists them.
                inputs.files[first..].sort_by(|a, b| a.path.cmp(&b.path));
            }
            Ok(meta) => inputs.files.push(InputFile {
                path: path.to_path_buf(),
                len: meta.len(),
                root: path.to_path_buf(),
            }),
        }
    }
    inputs
}

/// Iterative depth-first walk (directories nest arbitrarily deep).
fn walk(root: &Path, inputs: &mut Inputs) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                inputs.unread.push(Unread {
                    path: dir,
                    reason: e.to_string(),
                });
                continue;
            }
        };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        let mut subdirs = Vec::new();
        for path in names {
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => subdirs.push(path),
                Ok(meta) if is_input_name(&path) => inputs.files.push(InputFile {
                    path,
                    len: meta.len(),
                    root: PathBuf::new(),
                }),
                Ok(_) => inputs.unread.push(Unread {
                    path,
                    reason: "not an .sgf file or a known archive".to_string(),
                }),
                Err(e) => inputs.unread.push(Unread {
                    path,
                    reason: e.to_string(),
                }),
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
}
