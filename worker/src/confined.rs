//! Folders opened once and then used by handle, never by path again.
//!
//! The coordinator checks at submit that a job's inputs and output lie
//! inside its allowed roots. A check of a path says nothing about the same
//! path a minute later: a folder can be swapped for a symbolic link to
//! anywhere after the check. So every path here is opened one component at
//! a time from `/` with `O_NOFOLLOW`, and a symbolic link anywhere in it is
//! refused; everything done inside a folder afterwards is relative to its
//! handle (`openat`, `renameat`, `unlinkat`), and names are single
//! components. What was checked is what is read, written and deleted: a link
//! met on the way is reported, removed (when deleting) or replaced (when
//! renaming onto it), and never followed.
//!
//! Callers that accept links (a local `verdict run` given a path through a
//! linked home folder) resolve the path first with [`resolve`]; a resolved
//! path holds no link, so opening it here succeeds.

#[cfg(not(unix))]
compile_error!("verdict's output folders need a Unix system (openat and friends)");

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, CWD};

/// What a folder entry is, without following it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One entry of a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: OsString,
    pub kind: Kind,
}

/// An open folder.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

fn kind_of(t: FileType) -> Kind {
    match t {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    }
}

/// Says plainly what `ELOOP` from `O_NOFOLLOW` means.
fn explain(e: rustix::io::Errno, path: &Path) -> io::Error {
    let e = io::Error::from(e);
    if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
        io::Error::other(format!(
            "{} is a symbolic link: verdict does not follow links in a checked path",
            path.display()
        ))
    } else {
        io::Error::new(e.kind(), format!("{}: {e}", path.display()))
    }
}

/// One component, not `.`, `..` or empty, with no `/`.
fn name_ok(name: &OsStr) -> io::Result<()> {
    let b = name.as_bytes();
    if b.is_empty() || b == b"." || b == b".." || b.contains(&b'/') || b.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} is not a single file name"),
        ));
    }
    Ok(())
}

/// Opens the folder `name` in `at`; says plainly when it is a link (Linux
/// answers `ENOTDIR` to `O_DIRECTORY | O_NOFOLLOW` on one).
fn open_dir_at(at: &OwnedFd, name: &OsStr, full: &Path) -> io::Result<OwnedFd> {
    rustix::fs::openat(at, name, DIR_FLAGS, Mode::empty()).map_err(|e| {
        let link = e == rustix::io::Errno::NOTDIR
            && rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink);
        explain(if link { rustix::io::Errno::LOOP } else { e }, full)
    })
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// The normal components of an absolute path (`//` and `.` dropped).
fn components(path: &Path) -> io::Result<Vec<&OsStr>> {
    if !path.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not an absolute path", path.display()),
        ));
    }
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(n) => out.push(n),
            Component::ParentDir | Component::Prefix(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} contains `..`: resolve it first", path.display()),
                ))
            }
        }
    }
    Ok(out)
}

/// Resolves `path` as the kernel would open it: the longest existing prefix
/// with every link followed (`canonicalize`), then the rest, which does not
/// exist yet and so holds no link, with `.` dropped and `..` taking off the
/// component before it. Relative paths are taken from the current folder.
///
/// # Errors
/// The existing prefix cannot be resolved.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let path = std::path::absolute(path)?;
    let mut existing = path.as_path();
    let mut rest: Vec<&OsStr> = Vec::new();
    let mut tail: Vec<Component<'_>> = Vec::new();
    while std::fs::symlink_metadata(existing).is_err() {
        let Some(parent) = existing.parent() else {
            break;
        };
        if let Some(last) = existing.components().next_back() {
            tail.push(last);
        }
        existing = parent;
    }
    let mut resolved = existing.canonicalize().map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot resolve {}: {e}", existing.display()),
        )
    })?;
    for c in tail.into_iter().rev() {
        match c {
            Component::Normal(n) => rest.push(n),
            Component::ParentDir if rest.pop().is_none() => {
                resolved.pop();
            }
            _ => {}
        }
    }
    for n in rest {
        resolved.push(n);
    }
    Ok(resolved)
}

/// Opens an existing file for reading; no component of `path` may be a
/// symbolic link.
///
/// # Errors
/// A component is missing, not a folder, or a link.
pub fn open_file(path: &Path) -> io::Result<File> {
    let parts = components(path)?;
    let Some((last, folders)) = parts.split_last() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "/ is not a file",
        ));
    };
    let dir = Dir::walk(folders, false)?;
    dir.open_file(last)
}

impl Dir {
    fn walk(parts: &[&OsStr], create: bool) -> io::Result<Dir> {
        let mut at = PathBuf::from("/");
        let mut fd =
            rustix::fs::openat(CWD, "/", DIR_FLAGS, Mode::empty()).map_err(|e| explain(e, &at))?;
        for part in parts {
            at.push(part);
            if create {
                match rustix::fs::mkdirat(&fd, *part, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(explain(e, &at)),
                }
            }
            fd = open_dir_at(&fd, part, &at)?;
        }
        Ok(Dir { fd, path: at })
    }

    /// Opens an existing folder; no component of `path` may be a link.
    ///
    /// # Errors
    /// A component is missing, not a folder, or a link.
    pub fn open(path: &Path) -> io::Result<Dir> {
        Dir::walk(&components(path)?, false)
    }

    /// Opens a folder, creating the components that do not exist yet
    /// (`mkdir -p`); no component may be a link.
    ///
    /// # Errors
    /// A component cannot be created, is not a folder, or is a link.
    pub fn create_all(path: &Path) -> io::Result<Dir> {
        Dir::walk(&components(path)?, true)
    }

    /// The path this folder was opened by (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn child(&self, name: &OsStr) -> PathBuf {
        self.path.join(name)
    }

    /// An existing subfolder (not a link).
    ///
    /// # Errors
    /// Missing, not a folder, or a link.
    pub fn sub(&self, name: impl AsRef<OsStr>) -> io::Result<Dir> {
        let name = name.as_ref();
        name_ok(name)?;
        let fd = open_dir_at(&self.fd, name, &self.child(name))?;
        Ok(Dir {
            fd,
            path: self.child(name),
        })
    }

    /// A subfolder, created when missing (not a link).
    ///
    /// # Errors
    /// It cannot be created, or exists as something else or a link.
    pub fn create_sub(&self, name: impl AsRef<OsStr>) -> io::Result<Dir> {
        let name = name.as_ref();
        name_ok(name)?;
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(explain(e, &self.child(name))),
        }
        self.sub(name)
    }

    /// Opens a file in this folder for reading (a link is refused).
    ///
    /// # Errors
    /// Missing, or a link.
    pub fn open_file(&self, name: impl AsRef<OsStr>) -> io::Result<File> {
        let name = name.as_ref();
        name_ok(name)?;
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| explain(e, &self.child(name)))?;
        Ok(File::from(fd))
    }

    /// Creates a new file for writing; fails if the name exists (as
    /// anything, a link included).
    ///
    /// # Errors
    /// The name exists, or the folder cannot be written.
    pub fn create_new(&self, name: impl AsRef<OsStr>) -> io::Result<File> {
        let name = name.as_ref();
        name_ok(name)?;
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .map_err(|e| explain(e, &self.child(name)))?;
        Ok(File::from(fd))
    }

    /// Writes `name` whole or not at all: `write` fills a temporary file
    /// (named `.NAME.PID-N.tmp`, so readers that skip dot files never see
    /// it), which is flushed to disk and renamed over `name`. The rename
    /// replaces whatever `name` was, a link included, without following it.
    /// On failure the temporary file is removed and `name` is untouched.
    ///
    /// # Errors
    /// Whatever `write` returns, or the file system's refusal.
    pub fn write_atomic<T, E: From<io::Error>>(
        &self,
        name: impl AsRef<OsStr>,
        write: impl FnOnce(File) -> Result<(T, File), E>,
    ) -> Result<T, E> {
        self.write_atomic_into(self, name, write)
    }

    /// [`Dir::write_atomic`] with the temporary file in this folder and
    /// `name` in `dest` (the same file system): a crash mid-write then
    /// leaves the temporary file here, not where readers look.
    ///
    /// # Errors
    /// Whatever `write` returns, or the file system's refusal.
    pub fn write_atomic_into<T, E: From<io::Error>>(
        &self,
        dest: &Dir,
        name: impl AsRef<OsStr>,
        write: impl FnOnce(File) -> Result<(T, File), E>,
    ) -> Result<T, E> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = name.as_ref();
        name_ok(name)?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut tmp = OsString::from(".");
        tmp.push(name);
        tmp.push(format!(".{}-{n}.tmp", std::process::id()));
        let file = self.create_new(&tmp)?;
        let done = write(file).and_then(|(value, file)| {
            file.sync_all()?;
            drop(file);
            self.rename(&tmp, dest, name)?;
            Ok(value)
        });
        if done.is_err() {
            let _ = self.remove_file(&tmp);
        }
        done
    }

    /// Writes `bytes` as `name`, whole or not at all ([`Dir::write_atomic`]).
    ///
    /// # Errors
    /// The file system's refusal (a full disk among them).
    pub fn write_bytes(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> io::Result<()> {
        self.write_bytes_into(self, name, bytes)
    }

    /// [`Dir::write_bytes`] through a temporary file in this folder
    /// ([`Dir::write_atomic_into`]).
    ///
    /// # Errors
    /// The file system's refusal.
    pub fn write_bytes_into(
        &self,
        dest: &Dir,
        name: impl AsRef<OsStr>,
        bytes: &[u8],
    ) -> io::Result<()> {
        self.write_atomic_into(dest, name, |mut f: File| -> io::Result<((), File)> {
            f.write_all(bytes)?;
            Ok(((), f))
        })
    }

    /// Renames `from` (in this folder) to `to` in `dest`, replacing what
    /// `to` was (a link is replaced, not followed).
    ///
    /// # Errors
    /// `from` is missing, or `to` is a folder that is not empty.
    pub fn rename(
        &self,
        from: impl AsRef<OsStr>,
        dest: &Dir,
        to: impl AsRef<OsStr>,
    ) -> io::Result<()> {
        let (from, to) = (from.as_ref(), to.as_ref());
        name_ok(from)?;
        name_ok(to)?;
        rustix::fs::renameat(&self.fd, from, &dest.fd, to)
            .map_err(|e| explain(e, &self.child(from)))
    }

    /// Swaps `a` (in this folder) and `b` (in `dest`) in one step where the
    /// file system can (Linux `RENAME_EXCHANGE`), so a reader of either
    /// path sees the old entry or the new one, never neither. Elsewhere it
    /// takes two renames through `spare` (a free name in this folder), and
    /// `b` is missing for an instant. Both must exist.
    ///
    /// # Errors
    /// Either entry is missing, or `spare` is taken.
    pub fn exchange(
        &self,
        a: impl AsRef<OsStr>,
        dest: &Dir,
        b: impl AsRef<OsStr>,
        spare: impl AsRef<OsStr>,
    ) -> io::Result<()> {
        let (a, b, spare) = (a.as_ref(), b.as_ref(), spare.as_ref());
        name_ok(a)?;
        name_ok(b)?;
        name_ok(spare)?;
        #[cfg(any(target_os = "linux", target_os = "android"))]
        match rustix::fs::renameat_with(&self.fd, a, &dest.fd, b, rustix::fs::RenameFlags::EXCHANGE)
        {
            Ok(()) => return Ok(()),
            // Not supported by this file system (some network ones): fall back.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {}
            Err(e) => return Err(explain(e, &self.child(a))),
        }
        dest.rename(b, self, spare)?;
        self.rename(a, dest, b)?;
        self.rename(spare, self, a)
    }

    /// What `name` is, without following it; `None` when missing.
    ///
    /// # Errors
    /// The folder cannot be read.
    pub fn kind(&self, name: impl AsRef<OsStr>) -> io::Result<Option<Kind>> {
        let name = name.as_ref();
        name_ok(name)?;
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(kind_of(FileType::from_raw_mode(st.st_mode)))),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(explain(e, &self.child(name))),
        }
    }

    /// Removes a file or a link (the link itself, never its target). A
    /// missing name is not an error.
    ///
    /// # Errors
    /// `name` is a folder, or the folder cannot be written.
    pub fn remove_file(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        let name = name.as_ref();
        name_ok(name)?;
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
            Err(e) => Err(explain(e, &self.child(name))),
        }
    }

    /// Removes `name` and, when it is a folder, everything in it; links are
    /// removed, never followed. A missing name is not an error.
    ///
    /// # Errors
    /// Something in it cannot be removed.
    pub fn remove_tree(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        let name = name.as_ref();
        match self.kind(name)? {
            None => Ok(()),
            Some(Kind::Dir) => {
                let sub = self.sub(name)?;
                for e in sub.entries()? {
                    sub.remove_tree(&e.name)?;
                }
                drop(sub);
                match rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR) {
                    Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
                    Err(e) => Err(explain(e, &self.child(name))),
                }
            }
            Some(_) => self.remove_file(name),
        }
    }

    /// The entries of this folder (not `.` and `..`), sorted by name.
    ///
    /// # Errors
    /// The folder cannot be read.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let fd = rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())
            .map_err(|e| explain(e, &self.path))?;
        let mut out = Vec::new();
        for e in rustix::fs::Dir::new(fd).map_err(|e| explain(e, &self.path))? {
            let e = e.map_err(|e| explain(e, &self.path))?;
            let name = OsStr::from_bytes(e.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let kind = match e.file_type() {
                FileType::Unknown => self.kind(name)?.unwrap_or(Kind::Other),
                t => kind_of(t),
            };
            out.push(Entry {
                name: name.to_owned(),
                kind,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Flushes the folder's entries (renames, new files) to disk.
    ///
    /// # Errors
    /// The file system's refusal.
    pub fn sync(&self) -> io::Result<()> {
        rustix::fs::fsync(self.fd.as_fd()).map_err(|e| explain(e, &self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("verdict-confined-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn a_link_anywhere_in_a_path_is_refused() {
        let dir = temp("links");
        let outside = temp("links-outside");
        std::fs::write(outside.join("secret"), "x").unwrap();
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::fs::write(dir.join("real/a.sgf"), "(;)").unwrap();
        symlink(&outside, dir.join("link")).unwrap();
        symlink(outside.join("secret"), dir.join("real/b.sgf")).unwrap();

        assert!(open_file(&dir.join("real/a.sgf")).is_ok());
        let e = open_file(&dir.join("link/secret")).unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        let e = open_file(&dir.join("real/b.sgf")).unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        assert!(Dir::open(&dir.join("link")).is_err());
        assert!(Dir::create_all(&dir.join("link/new")).is_err());
        assert!(!outside.join("new").exists(), "nothing created out there");
        // The resolved path holds no link, so it opens.
        let resolved = resolve(&dir.join("link/secret")).unwrap();
        assert_eq!(resolved, outside.join("secret"));
        assert!(open_file(&resolved).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn resolve_takes_dotdot_after_the_links() {
        let dir = temp("resolve");
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        symlink(dir.join("a/b"), dir.join("l")).unwrap();
        // Physically, l/.. is a (the parent of a/b), not dir.
        assert_eq!(resolve(&dir.join("l/../x")).unwrap(), dir.join("a/x"));
        // In the part that does not exist, .. takes off what came before.
        assert_eq!(
            resolve(&dir.join("new/deeper/../y/./z")).unwrap(),
            dir.join("new/y/z")
        );
        assert_eq!(
            resolve(&dir.join("new/../../q")).unwrap(),
            dir.with_file_name("q")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn removing_a_tree_removes_links_not_their_targets() {
        let dir = temp("remove");
        let outside = temp("remove-outside");
        std::fs::write(outside.join("keep.parquet"), "x").unwrap();
        std::fs::create_dir_all(dir.join("t/sub")).unwrap();
        std::fs::write(dir.join("t/sub/f"), "x").unwrap();
        symlink(&outside, dir.join("t/out")).unwrap();
        symlink(outside.join("keep.parquet"), dir.join("t/sub/g.parquet")).unwrap();
        let d = Dir::open(&dir).unwrap();
        let kinds: Vec<(String, Kind)> = d
            .sub("t")
            .unwrap()
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| (e.name.to_string_lossy().into_owned(), e.kind))
            .collect();
        assert_eq!(
            kinds,
            [("out".into(), Kind::Symlink), ("sub".into(), Kind::Dir)]
        );
        d.remove_tree("t").unwrap();
        assert!(!dir.join("t").exists());
        assert!(outside.join("keep.parquet").exists());
        d.remove_tree("t").unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn atomic_writes_replace_links_and_leave_nothing_on_failure() {
        let dir = temp("atomic");
        let outside = temp("atomic-outside");
        std::fs::write(outside.join("victim"), "precious").unwrap();
        symlink(outside.join("victim"), dir.join("summary.json")).unwrap();
        let d = Dir::open(&dir).unwrap();
        d.write_bytes("summary.json", b"{}").unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.join("victim")).unwrap(),
            "precious"
        );
        assert_eq!(std::fs::read(dir.join("summary.json")).unwrap(), b"{}");
        assert_eq!(d.kind("summary.json").unwrap(), Some(Kind::File));
        let failed = d.write_atomic("other", |_f: File| -> io::Result<((), File)> {
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        let names: Vec<OsString> = d.entries().unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["summary.json"], "no temporary file is left");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn exchange_swaps_two_folders() {
        let dir = temp("exchange");
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::create_dir_all(dir.join("s/b")).unwrap();
        std::fs::write(dir.join("a/old"), "").unwrap();
        std::fs::write(dir.join("s/b/new"), "").unwrap();
        let d = Dir::open(&dir).unwrap();
        let s = d.sub("s").unwrap();
        s.exchange("b", &d, "a", "spare").unwrap();
        assert!(dir.join("a/new").exists());
        assert!(dir.join("s/b/old").exists());
        assert!(!dir.join("s/spare").exists());
        assert!(d.create_new("a").is_err(), "create_new never replaces");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
