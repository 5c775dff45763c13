//! SGF records read straight out of archives, without unpacking to disk.
//!
//! `.zip` is read from the file through its central directory; the tar
//! family (`.tar`, `.tar.gz`/`.tgz`, `.tar.bz2`/`.tbz2`, `.tar.zst`/`.tzst`)
//! is streamed once through its decompressor, so only the member being read
//! is ever in memory, and never one larger than the caller's limit.
//!
//! Members are handed over in archive order. What is not read is reported
//! with a reason, like [`crate::inputs::Unread`]: other files, nested
//! archives, links and members over the size limit. A damaged archive
//! (truncated stream, bad central directory, corrupt member) stops the read
//! with an [`ArchiveError`] after every member read before the damage has
//! been handed over.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// The archive formats read, told apart by file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArchiveKind {
    Zip,
    Tar,
    TarGz,
    TarBz2,
    TarZst,
}

/// Name endings, lower case, longest first where one ends another.
const ENDINGS: &[(&str, ArchiveKind)] = &[
    (".zip", ArchiveKind::Zip),
    (".tar.gz", ArchiveKind::TarGz),
    (".tgz", ArchiveKind::TarGz),
    (".tar.bz2", ArchiveKind::TarBz2),
    (".tbz2", ArchiveKind::TarBz2),
    (".tbz", ArchiveKind::TarBz2),
    (".tar.zst", ArchiveKind::TarZst),
    (".tzst", ArchiveKind::TarZst),
    (".tar", ArchiveKind::Tar),
];

/// Archives met inside an archive that are not read either, though this
/// module cannot open them at the top level.
const OTHER_ARCHIVE_ENDINGS: &[&str] = &[".7z", ".rar", ".tar.xz", ".txz", ".tar.lz", ".tar.lzma"];

impl ArchiveKind {
    /// The kind of archive `path` names, by its ending (case-insensitive);
    /// `None` for anything else (including a plain `.gz`, which is one
    /// compressed file, not an archive).
    pub fn of_path(path: &Path) -> Option<ArchiveKind> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        ENDINGS
            .iter()
            .find(|(ending, _)| name.len() > ending.len() && name.ends_with(ending))
            .map(|&(_, kind)| kind)
    }

    /// A short name for messages: `zip`, `tar`, `tar.gz`, ...
    pub fn name(self) -> &'static str {
        match self {
            ArchiveKind::Zip => "zip",
            ArchiveKind::Tar => "tar",
            ArchiveKind::TarGz => "tar.gz",
            ArchiveKind::TarBz2 => "tar.bz2",
            ArchiveKind::TarZst => "tar.zst",
        }
    }
}

impl std::fmt::Display for ArchiveKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One member of an archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The path inside the archive, as the archive spells it.
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Why an archive could not be read to its end.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("cannot open archive {}: {source}", .path.display())]
    Open { path: PathBuf, source: io::Error },
    /// The archive is damaged; every member before the damage was handed over.
    #[error(
        "damaged {kind} archive {}{}: {reason}",
        .path.display(),
        .member.as_ref().map(|m| format!(" (in member {m})")).unwrap_or_default()
    )]
    Damaged {
        path: PathBuf,
        kind: ArchiveKind,
        /// The member being read when the damage showed, if any.
        member: Option<String>,
        reason: String,
    },
}

/// Reason given for members that are not SGF files.
pub const NOT_SGF: &str = "not an .sgf file";
/// Reason given for archives inside the archive.
pub const NESTED_ARCHIVE: &str = "nested archive";

/// Calls `on_member` for every regular-file member whose name ends in `.sgf`
/// (case-insensitive), in archive order, and `on_skipped(name, reason)` for
/// every other regular file (not `.sgf`, a nested archive, too large, a
/// member this build cannot decode) and every link. Directories and
/// metadata entries are passed over in silence.
///
/// Members larger than `max_member_bytes` are skipped with a reason, never
/// loaded. `ControlFlow::Break` from `on_member` stops the read at once with
/// `Ok(())`. A damaged archive reports what it read so far, then returns
/// [`ArchiveError::Damaged`]; it never panics and never loops.
pub fn read_archive(
    path: &Path,
    kind: ArchiveKind,
    max_member_bytes: u64,
    on_member: &mut dyn FnMut(Member) -> ControlFlow<()>,
    on_skipped: &mut dyn FnMut(&str, &str),
) -> Result<(), ArchiveError> {
    let file = File::open(path).map_err(|source| ArchiveError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    read_archive_file(file, path, kind, max_member_bytes, on_member, on_skipped)
}

/// [`read_archive`] of a file already open (`path` names it in messages).
///
/// # Errors
/// As [`read_archive`].
pub fn read_archive_file(
    file: File,
    path: &Path,
    kind: ArchiveKind,
    max_member_bytes: u64,
    on_member: &mut dyn FnMut(Member) -> ControlFlow<()>,
    on_skipped: &mut dyn FnMut(&str, &str),
) -> Result<(), ArchiveError> {
    let mut ctx = Ctx {
        path,
        kind,
        max: max_member_bytes,
        on_member,
        on_skipped,
    };
    let file = BufReader::with_capacity(64 * 1024, file);
    match kind {
        ArchiveKind::Zip => read_zip(&mut ctx, file),
        ArchiveKind::Tar => read_tar(&mut ctx, file),
        ArchiveKind::TarGz => read_tar(&mut ctx, flate2::read::MultiGzDecoder::new(file)),
        ArchiveKind::TarBz2 => read_tar(&mut ctx, bzip2::read::MultiBzDecoder::new(file)),
        ArchiveKind::TarZst => {
            let decoder = zstd::stream::read::Decoder::with_buffer(file)
                .map_err(|e| ctx.damaged(None, e.to_string()))?;
            read_tar(&mut ctx, decoder)
        }
    }
}

/// What one read needs, passed down to the per-format readers.
struct Ctx<'p, 'c> {
    path: &'p Path,
    kind: ArchiveKind,
    max: u64,
    on_member: &'c mut dyn FnMut(Member) -> ControlFlow<()>,
    on_skipped: &'c mut dyn FnMut(&str, &str),
}

impl Ctx<'_, '_> {
    fn damaged(&self, member: Option<&str>, reason: impl Into<String>) -> ArchiveError {
        ArchiveError::Damaged {
            path: self.path.to_path_buf(),
            kind: self.kind,
            member: member.map(str::to_string),
            reason: reason.into(),
        }
    }

    /// Why a regular file named `name` of `size` bytes (as its header says)
    /// is not read, if it is not.
    fn skip_reason(&self, name: &str, size: u64) -> Option<String> {
        if is_archive_name(name) {
            Some(NESTED_ARCHIVE.to_string())
        } else if !is_sgf_member(name) {
            Some(NOT_SGF.to_string())
        } else if size > self.max {
            Some(self.too_large(size))
        } else {
            None
        }
    }

    fn too_large(&self, size: u64) -> String {
        format!(
            "too large: {size} bytes, over the limit of {} bytes",
            self.max
        )
    }
}

/// Whether a member name ends in `.sgf` (case-insensitive).
pub fn is_sgf_member(name: &str) -> bool {
    let n = name.as_bytes();
    n.len() > 4 && n[n.len() - 4..].eq_ignore_ascii_case(b".sgf")
}

/// Whether a member name looks like an archive (one this module reads or
/// another well-known kind).
pub fn is_archive_name(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    ArchiveKind::of_path(Path::new(base)).is_some()
        || OTHER_ARCHIVE_ENDINGS
            .iter()
            .any(|e| lower.len() > e.len() && lower.ends_with(e))
}

/// Reads at most `max + 1` bytes, so that a member whose header understates
/// its size is still caught as too large without being loaded whole.
fn read_bounded(reader: &mut dyn Read, expected: u64, max: u64) -> io::Result<Vec<u8>> {
    // The capacity trusts the header only up to the limit.
    let mut bytes = Vec::with_capacity(expected.min(max).min(usize::MAX as u64) as usize);
    reader.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn read_zip(ctx: &mut Ctx<'_, '_>, file: BufReader<File>) -> Result<(), ArchiveError> {
    let mut zip = zip::ZipArchive::new(file).map_err(|e| ctx.damaged(None, e.to_string()))?;
    for index in 0..zip.len() {
        let Some(name) = zip.name_for_index(index).map(str::to_string) else {
            continue;
        };
        if name.ends_with('/') {
            continue;
        }
        // Judged by the central directory alone: the member's own header
        // and data are only touched for SGF files.
        if !is_sgf_member(&name) {
            let reason = if is_archive_name(&name) {
                NESTED_ARCHIVE
            } else {
                NOT_SGF
            };
            (ctx.on_skipped)(&name, reason);
            continue;
        }
        let mut entry = match zip.by_index(index) {
            Ok(entry) => entry,
            // Encryption or a compression method this build does not decode:
            // the member is unreadable, the archive is fine.
            Err(
                e @ (zip::result::ZipError::UnsupportedArchive(_)
                | zip::result::ZipError::CompressionMethodNotSupported(_)),
            ) => {
                (ctx.on_skipped)(&name, &format!("unreadable member: {e}"));
                continue;
            }
            Err(e) => return Err(ctx.damaged(Some(&name), e.to_string())),
        };
        if entry.is_dir() {
            continue;
        }
        if entry.is_symlink() {
            (ctx.on_skipped)(&name, "symbolic link, not a regular file");
            continue;
        }
        let size = entry.size();
        if size > ctx.max {
            let reason = ctx.too_large(size);
            (ctx.on_skipped)(&name, &reason);
            continue;
        }
        let bytes = read_bounded(&mut entry, size, ctx.max)
            .map_err(|e| ctx.damaged(Some(&name), e.to_string()))?;
        if bytes.len() as u64 > ctx.max {
            // The header understated the size.
            let reason = ctx.too_large(bytes.len() as u64);
            (ctx.on_skipped)(&name, &reason);
            continue;
        }
        if (ctx.on_member)(Member { name, bytes }).is_break() {
            return Ok(());
        }
    }
    Ok(())
}

/// Passes reads through and notes whether the stream ran out, which tells a
/// tar that simply stops from one that ends with its end-of-archive blocks.
struct EofWatch<R> {
    inner: R,
    hit_eof: bool,
}

impl<R: Read> Read for EofWatch<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.hit_eof = true;
        }
        Ok(n)
    }
}

fn read_tar<R: Read>(ctx: &mut Ctx<'_, '_>, stream: R) -> Result<(), ArchiveError> {
    let mut archive = tar::Archive::new(EofWatch {
        inner: stream,
        hit_eof: false,
    });
    let entries = archive
        .entries()
        .map_err(|e| ctx.damaged(None, e.to_string()))?;
    // The tar reader stops at the first error, and every step either reads
    // forward or ends, so this loop ends.
    for entry in entries {
        let mut entry = entry.map_err(|e| ctx.damaged(None, e.to_string()))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        let size = entry.size();
        use tar::EntryType as T;
        match kind {
            T::Regular | T::Continuous | T::GNUSparse if !name.ends_with('/') => {}
            T::Symlink => {
                (ctx.on_skipped)(&name, "symbolic link, not a regular file");
                continue;
            }
            T::Link => {
                (ctx.on_skipped)(&name, "hard link, not a regular file");
                continue;
            }
            T::Char | T::Block | T::Fifo => {
                (ctx.on_skipped)(&name, "device or pipe, not a regular file");
                continue;
            }
            // Directories, pax and GNU metadata, anything unknown.
            _ => continue,
        }
        if let Some(reason) = ctx.skip_reason(&name, size) {
            // Its data is skipped in the stream when the next entry is read.
            (ctx.on_skipped)(&name, &reason);
            continue;
        }
        let bytes = read_bounded(&mut entry, size, ctx.max)
            .map_err(|e| ctx.damaged(Some(&name), e.to_string()))?;
        if (bytes.len() as u64) < size {
            return Err(ctx.damaged(
                Some(&name),
                format!(
                    "truncated: the member ends after {} of its {size} bytes",
                    bytes.len()
                ),
            ));
        }
        if (ctx.on_member)(Member { name, bytes }).is_break() {
            return Ok(());
        }
    }
    let mut watch = archive.into_inner();
    if watch.hit_eof {
        return Err(ctx.damaged(
            None,
            "truncated: the archive ends without its end-of-archive blocks",
        ));
    }
    // Read the compressed stream to its end so that a damaged tail (a gzip
    // trailer with a wrong checksum, a cut-off zstd frame) is reported too.
    io::copy(&mut watch.inner, &mut io::sink())
        .map_err(|e| ctx.damaged(None, format!("after the last member: {e}")))?;
    Ok(())
}
