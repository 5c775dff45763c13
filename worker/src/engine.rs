//! The corpus engine: every game of many inputs, in order, through a
//! per-game function on every core, into whoever consumes the results.
//!
//! `verdict run`, `replay`, `check`, `eval` and a cluster shard all read
//! their inputs here, so all of them read the same games the same way, and
//! report what they could not read the same way.
//!
//! How it works:
//! - A reader thread walks the inputs in order: plain files are mapped into
//!   memory (the kernel pages them in and out), archive members and
//!   compressed files are read one at a time. It finds each game's place in
//!   its text with one pass of the SGF reader and sends small [`Entry`]s
//!   (where a game is, not the game) down a bounded channel.
//! - The caller's thread cuts the entries into chunks of at most
//!   [`Budget::games`] games or [`Budget::bytes`] bytes of SGF, whatever the
//!   files look like: a folder of big collection files costs no more memory
//!   than a folder of small files. Each chunk is analysed on the pool, each
//!   game parsed again where it is analysed ([`Reader::resume`]), and the
//!   results handed over in input order. The output is the same whatever
//!   the thread count and the budget.
//! - A shard of a big collection is a byte range of it ([`FilePart`]): only
//!   that range (and the look-ahead past its end) is read.
//! - What cannot be read (a missing file, a damaged archive, a compressed
//!   file this build cannot open) is a game of its own, an
//!   [`Item::Unreadable`], and listed with its reason ([`Outcome::not_read`]).

use std::ops::{ControlFlow, Deref};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use verdict_rules::sgf::{Reader, SgfGame};

use crate::archive::{read_archive_file, ArchiveKind};
use crate::inputs::InputFile;
pub use verdict_corpus::input::{FilePart, ShardFile};

/// Members larger than this inside an archive (and compressed files larger
/// than this once expanded) are listed as not read, not loaded: no real SGF
/// collection comes near it.
pub const MAX_MEMBER_BYTES: u64 = 256 << 20;

/// Where a game comes from, as rows and reports name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The file read (for an archive member, the archive).
    pub path: PathBuf,
    /// The file, or `archive!/member`.
    pub source: String,
    /// The input path it was found under.
    pub input: String,
}

/// What a per-game function is shown.
#[derive(Debug)]
pub enum Item<'a, 'g> {
    /// One game tree; `index` counts from 0 within its file or member.
    Game {
        unit: &'a Unit,
        index: usize,
        sgf: &'g SgfGame<'a>,
        /// The whole text the game is in (its `sgf.span` is within it).
        bytes: &'a [u8],
    },
    /// A file (or member) that holds no game tree at all.
    NoGame { unit: &'a Unit },
    /// A file, archive or member that could not be read, and why.
    Unreadable { unit: &'a Unit, reason: &'a str },
}

/// Counts that can be added up across threads.
pub trait Tally: Default + Send {
    fn merge(&mut self, other: Self);
}

/// How the engine cuts its work.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Games per chunk at most.
    pub games: usize,
    /// Bytes of SGF per chunk at most (a single bigger game is a chunk).
    pub bytes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            games: 4096,
            bytes: 8 << 20,
        }
    }
}

/// The bytes of one text: a mapped file or an owned buffer.
#[derive(Debug)]
enum Bytes {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

#[derive(Debug)]
struct Text {
    unit: Arc<Unit>,
    bytes: Bytes,
}

/// Read from the start of the text (as [`Reader::new`] does: a byte order
/// mark skipped), not resumed.
const FROM_START: usize = usize::MAX;

/// One thing found in the inputs, in order.
#[derive(Debug)]
pub struct Entry(EntryKind);

#[derive(Debug)]
enum EntryKind {
    Game {
        text: Arc<Text>,
        /// Where a reader resumes to read it (the end of the tree before).
        resume: usize,
        index: u64,
        /// Where the game's tree ends.
        end: usize,
        len: usize,
    },
    NoGame(Arc<Unit>),
    Unreadable(Arc<Unit>, String),
}

impl Entry {
    /// Bytes of SGF the entry stands for (for cutting chunks, and progress).
    pub fn sgf_bytes(&self) -> usize {
        match &self.0 {
            EntryKind::Game { len, .. } => *len,
            _ => 0,
        }
    }

    /// Shows the entry to `f` as an [`Item`], the game parsed here.
    pub fn with_item<R>(&self, f: impl FnOnce(Item<'_, '_>) -> R) -> R {
        match &self.0 {
            EntryKind::Game {
                text,
                resume,
                index,
                ..
            } => {
                let bytes: &[u8] = &text.bytes;
                let mut reader = if *resume == FROM_START {
                    Reader::new(bytes)
                } else {
                    Reader::resume(bytes, *resume, *index)
                };
                let mut sgf = SgfGame::default();
                let found = reader.next_into(&mut sgf);
                debug_assert!(found, "the reader thread found a game there");
                f(Item::Game {
                    unit: &text.unit,
                    index: *index as usize,
                    sgf: &sgf,
                    bytes,
                })
            }
            EntryKind::NoGame(unit) => f(Item::NoGame { unit }),
            EntryKind::Unreadable(unit, reason) => f(Item::Unreadable { unit, reason }),
        }
    }
}

/// How far the engine got.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    /// Entries (games, and files with none or unreadable) handed over.
    pub items: u64,
    /// Bytes of the inputs read (a mapped file counts whole).
    pub bytes: u64,
    /// Files, archives and members that could not be read, with the
    /// reason: each is also an [`Item::Unreadable`]. A run that has any
    /// says so in its exit status.
    pub not_read: Vec<(String, String)>,
    /// Archive members that are not SGF (or are archives themselves), with
    /// the reason: listed, not errors.
    pub left_aside: Vec<(String, String)>,
    /// Stopped early (the stop flag, or the consumer said so).
    pub stopped: bool,
    pub elapsed: Duration,
}

/// Kinds of compression recognised by their first bytes, for files named
/// as plain SGF (or given on the command line).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Bzip2,
    Zstd,
    Xz,
}

impl Compression {
    /// The compression `head` (a file's first bytes) starts with.
    pub fn sniff(head: &[u8]) -> Option<Compression> {
        if head.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if head.starts_with(b"BZh") {
            Some(Compression::Bzip2)
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Compression::Zstd)
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Some(Compression::Xz)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }
}

/// The bytes of an object in object storage that a source reads: its
/// part, ended at the object's size as listed (an open-ended last part
/// would otherwise ask for bytes up to 2^64, which some servers refuse).
fn fetch_range(s: &ShardFile) -> Option<std::ops::Range<u64>> {
    s.part
        .as_ref()
        .map(|p| p.bytes.start.min(s.file.len)..p.bytes.end.min(s.file.len))
}

/// The producer side: walks inputs and sends entries.
struct Walker<'a> {
    send: std::sync::mpsc::SyncSender<Entry>,
    /// Objects in object storage, fetched ahead in the walk's order.
    prefetch: Option<std::sync::Mutex<crate::objects::Prefetch>>,
    not_read: &'a std::sync::Mutex<Vec<(String, String)>>,
    left_aside: &'a std::sync::Mutex<Vec<(String, String)>>,
    bytes: &'a AtomicU64,
}

impl Walker<'_> {
    /// False once the consumer has gone.
    fn send(&self, e: EntryKind) -> bool {
        self.send.send(Entry(e)).is_ok()
    }

    fn not_read(&self, what: String, why: String) {
        self.not_read
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((what, why));
    }

    /// A member skipped inside an archive: not SGF is not an error, a
    /// member too big or undecodable is.
    fn member_skipped(&self, what: String, why: &str) {
        let list = if why == crate::archive::NOT_SGF || why == crate::archive::NESTED_ARCHIVE {
            self.left_aside
        } else {
            self.not_read
        };
        list.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((what, why.to_string()));
    }

    fn unreadable(&self, unit: Arc<Unit>, why: String) -> bool {
        self.not_read(unit.source.clone(), why.clone());
        self.send(EntryKind::Unreadable(unit, why))
    }

    fn source(&self, s: &ShardFile) -> bool {
        let file = &s.file;
        let unit = Arc::new(Unit {
            path: file.path.clone(),
            source: file.path.display().to_string(),
            input: file.root.display().to_string(),
        });
        // File-level rows belong to the part that starts at game 0.
        let first = s.part.as_ref().is_none_or(|p| p.first_game == 0);
        // An object is fetched only as far as its part reaches.
        let range = fetch_range(s);
        let fetched = self.prefetch.as_ref().and_then(|p| {
            p.lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(&file.path, &range)
        });
        let opened = match fetched {
            Some(Ok(crate::objects::Fetched::Bytes(v))) => {
                return self.bytes_of(unit, Bytes::Owned(v), s.part.as_ref(), first)
            }
            Some(Ok(crate::objects::Fetched::File(f))) => Ok(f),
            Some(Err(e)) => Err(std::io::Error::other(e)),
            None => crate::inputs::open_range(file, range),
        };
        let handle = match opened {
            Ok(h) => h,
            Err(e) => return !first || self.unreadable(unit, e.to_string()),
        };
        if let Some(kind) = ArchiveKind::of_path(&file.path) {
            return self.archive(handle, &unit, kind);
        }
        // SAFETY: the map is read only; a file changed by another process
        // while it is read could show torn bytes, which the SGF reader
        // tolerates like any damaged input (it never trusts the bytes).
        let map = match unsafe { memmap2::Mmap::map(&handle) } {
            Ok(m) => m,
            Err(e) => return !first || self.unreadable(unit, e.to_string()),
        };
        self.bytes_of(unit, Bytes::Map(map), s.part.as_ref(), first)
    }

    /// The games of one input's bytes (of `part` of them), expanded first
    /// when compressed.
    fn bytes_of(&self, unit: Arc<Unit>, map: Bytes, part: Option<&FilePart>, first: bool) -> bool {
        match Compression::sniff(&map[..map.len().min(8)]) {
            None => {
                self.bytes.fetch_add(map.len() as u64, Ordering::Relaxed);
                let text = Arc::new(Text { unit, bytes: map });
                self.text(&text, part)
            }
            Some(c) if !first => {
                // The coordinator never splits a compressed file; a part of
                // one reads nothing.
                let _ = c;
                true
            }
            Some(c) => match expand(c, &map) {
                Ok(bytes) => {
                    self.bytes.fetch_add(map.len() as u64, Ordering::Relaxed);
                    let text = Arc::new(Text {
                        unit,
                        bytes: Bytes::Owned(bytes),
                    });
                    self.text(&text, None)
                }
                Err(why) => self.unreadable(unit, why),
            },
        }
    }

    fn archive(&self, handle: std::fs::File, unit: &Arc<Unit>, kind: ArchiveKind) -> bool {
        if let Ok(meta) = handle.metadata() {
            self.bytes.fetch_add(meta.len(), Ordering::Relaxed);
        }
        let mut alive = true;
        let result = read_archive_file(
            handle,
            &unit.path,
            kind,
            MAX_MEMBER_BYTES,
            &mut |member| {
                let text = Arc::new(Text {
                    unit: Arc::new(Unit {
                        path: unit.path.clone(),
                        source: format!("{}!/{}", unit.source, member.name),
                        input: unit.input.clone(),
                    }),
                    bytes: Bytes::Owned(member.bytes),
                });
                alive = self.text(&text, None);
                if alive {
                    ControlFlow::Continue(())
                } else {
                    ControlFlow::Break(())
                }
            },
            &mut |name, reason| self.member_skipped(format!("{}!/{name}", unit.source), reason),
        );
        if let Err(e) = result {
            // What was read before the damage stays; the archive itself gets
            // an entry saying it could not be read to the end.
            return alive && self.unreadable(unit.clone(), e.to_string());
        }
        alive
    }

    /// Finds the games of one text (of `part` of it) and sends them.
    fn text(&self, text: &Arc<Text>, part: Option<&FilePart>) -> bool {
        let bytes: &[u8] = &text.bytes;
        let (mut reader, mut resume, mut index, end) = match part {
            None => (Reader::new(bytes), FROM_START, 0, usize::MAX),
            Some(p) => {
                let start = p.bytes.start as usize;
                let resume = if p.first_game == 0 { FROM_START } else { start };
                let reader = if p.first_game == 0 {
                    Reader::new(bytes)
                } else {
                    Reader::resume(bytes, start, p.first_game)
                };
                (reader, resume, p.first_game, p.bytes.end as usize)
            }
        };
        let first = index == 0;
        let mut sgf = SgfGame::default();
        let mut any = false;
        while reader.next_into(&mut sgf) {
            if sgf.span.start >= end {
                break;
            }
            any = true;
            let entry = EntryKind::Game {
                text: text.clone(),
                resume,
                index,
                end: sgf.span.end,
                len: sgf.span.len(),
            };
            if !self.send(entry) {
                return false;
            }
            resume = sgf.span.end;
            index += 1;
        }
        if !any && first {
            return self.send(EntryKind::NoGame(text.unit.clone()));
        }
        true
    }
}

/// A compressed file, expanded (at most [`MAX_MEMBER_BYTES`]).
fn expand(c: Compression, bytes: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let reader: Box<dyn Read> = match c {
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(bytes)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(bytes)),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::new(bytes)
                .map_err(|e| format!("a zstd-compressed file that cannot be read: {e}"))?,
        ),
        Compression::Xz => {
            return Err(
                "an xz-compressed file, which this build cannot read: decompress it (unxz), or pack it as .tar.gz"
                    .to_string(),
            )
        }
    };
    let mut out = Vec::new();
    let got = reader
        .take(MAX_MEMBER_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            format!(
                "a {}-compressed file that cannot be read to its end: {e}",
                c.name()
            )
        })?;
    if got as u64 > MAX_MEMBER_BYTES {
        return Err(format!(
            "a {}-compressed file larger than {MAX_MEMBER_BYTES} bytes once expanded: decompress it first",
            c.name()
        ));
    }
    Ok(out)
}

/// Cuts a collection file into parts of about `bytes` each, at tree ends
/// ([`FilePart`]): how the coordinator splits a big file across shards.
/// `None` when it is not worth cutting (one part would hold it, or it is
/// compressed: a compressed file is read whole).
///
/// # Errors
/// The file cannot be opened or mapped.
pub fn cut(file: &InputFile, bytes: u64) -> std::io::Result<Option<Vec<FilePart>>> {
    let handle = crate::inputs::open(file)?;
    // SAFETY: as in the walker: read only, torn bytes are tolerated.
    let map = unsafe { memmap2::Mmap::map(&handle)? };
    if Compression::sniff(&map[..map.len().min(8)]).is_some() {
        return Ok(None);
    }
    let bytes = bytes.max(1);
    let mut reader = Reader::new(&map);
    let mut sgf = SgfGame::default();
    let mut cuts: Vec<(u64, u64)> = Vec::new();
    let (mut last, mut games) = (0u64, 0u64);
    while reader.next_into(&mut sgf) {
        games += 1;
        let end = sgf.span.end as u64;
        if end - last >= bytes {
            cuts.push((end, games));
            last = end;
        }
    }
    // A cut after the last game would make a part with none.
    if cuts.last().is_some_and(|&(_, next)| next == games) {
        cuts.pop();
    }
    if cuts.is_empty() {
        return Ok(None);
    }
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    let (mut start, mut first) = (0, 0);
    for (end, next) in cuts {
        parts.push(FilePart {
            bytes: start..end,
            first_game: first,
        });
        (start, first) = (end, next);
    }
    parts.push(FilePart {
        bytes: start..u64::MAX,
        first_game: first,
    });
    Ok(Some(parts))
}

/// The whole files `files`, as engine sources.
pub fn whole(files: &[InputFile]) -> Vec<ShardFile> {
    files
        .iter()
        .map(|file| ShardFile {
            file: file.clone(),
            part: None,
        })
        .collect()
}

/// The first chunk of a walk over objects in object storage holds at most
/// this many games, and each next one twice as many as the one before, up
/// to the budget: the analysis starts as soon as the first objects are
/// fetched instead of waiting for a whole chunk's round trips, and works
/// while the next ones are fetched. The cut depends only on the entries and
/// the budget, never on timing, so a resumed run cuts its inputs as the
/// stopped one did ([`CHUNKING`] is in its fingerprint).
pub const FIRST_OBJECT_CHUNK: usize = 64;

/// Names how [`chunks`] cuts, for the fingerprint of a stopped run.
pub const CHUNKING: &str = "budget; objects from 64 doubling";

/// The games of each chunk at most, in turn: the budget's, from a first
/// chunk of `first` doubling up to it.
fn chunk_limits(budget: Budget, first: usize) -> impl Iterator<Item = usize> {
    let top = budget.games.max(1);
    std::iter::successors(Some(first.clamp(1, top)), move |&n| {
        Some(n.saturating_mul(2).min(top))
    })
}

/// Walks `sources` and calls `each` with every chunk of entries, in input
/// order, until the sources end, `stop` is set (checked between chunks) or
/// `each` breaks. `items` counts the entries handed over, as they are.
pub fn chunks(
    sources: &[ShardFile],
    budget: Budget,
    stop: Option<&AtomicBool>,
    mut each: impl FnMut(&[Entry]) -> ControlFlow<()>,
) -> Outcome {
    let start = Instant::now();
    let not_read = std::sync::Mutex::new(Vec::new());
    let left_aside = std::sync::Mutex::new(Vec::new());
    let bytes = AtomicU64::new(0);
    let mut outcome = Outcome::default();
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<Entry>(budget.games.clamp(64, 8192));
        let objects: Vec<_> = sources
            .iter()
            .filter(|s| crate::objects::is_url(&s.file.path))
            .map(|s| {
                let range = fetch_range(s);
                // fetch_range ends at the object's size already.
                let bytes = range.as_ref().map_or(s.file.len, |r| r.end - r.start);
                crate::objects::Wanted {
                    path: s.file.path.clone(),
                    range,
                    bytes,
                    in_memory: ArchiveKind::of_path(&s.file.path).is_none(),
                }
            })
            .collect();
        let mut limits = chunk_limits(
            budget,
            if objects.is_empty() {
                budget.games
            } else {
                FIRST_OBJECT_CHUNK
            },
        );
        let mut limit = limits.next().unwrap_or(budget.games);
        let walker = Walker {
            prefetch: (!objects.is_empty())
                .then(|| std::sync::Mutex::new(crate::objects::Prefetch::new(objects))),
            send,
            not_read: &not_read,
            left_aside: &left_aside,
            bytes: &bytes,
        };
        scope.spawn(move || {
            for s in sources {
                if !walker.source(s) {
                    return;
                }
            }
        });
        let mut chunk: Vec<Entry> = Vec::with_capacity(budget.games);
        let mut chunk_bytes = 0;
        let stopped = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let mut hand_over = |chunk: &mut Vec<Entry>, outcome: &mut Outcome| {
            outcome.items += chunk.len() as u64;
            let flow = each(chunk);
            release(chunk);
            chunk.clear();
            flow.is_continue()
        };
        for entry in receive.iter() {
            chunk_bytes += entry.sgf_bytes();
            chunk.push(entry);
            if chunk.len() >= limit || chunk_bytes >= budget.bytes {
                chunk_bytes = 0;
                limit = limits.next().unwrap_or(budget.games);
                if stopped() || !hand_over(&mut chunk, &mut outcome) {
                    outcome.stopped = true;
                    chunk.clear();
                    break;
                }
            }
        }
        if !outcome.stopped
            && !chunk.is_empty()
            && (stopped() || !hand_over(&mut chunk, &mut outcome))
        {
            outcome.stopped = true;
        }
        // Dropping the receiver ends a walker still sending.
        drop(receive);
    });
    outcome.bytes = bytes.load(Ordering::Relaxed);
    outcome.not_read = not_read.into_inner().unwrap_or_else(|e| e.into_inner());
    outcome.left_aside = left_aside.into_inner().unwrap_or_else(|e| e.into_inner());
    outcome.elapsed = start.elapsed();
    outcome
}

/// Gives back the memory of mapped files up to where this chunk's games
/// end: the next chunk starts after them, and a corpus of one 10 GB
/// collection then needs no more memory than one of small files.
fn release(chunk: &[Entry]) {
    let mut last: Option<(&Arc<Text>, usize)> = None;
    let flush = |text: &Arc<Text>, end: usize| {
        if let Bytes::Map(m) = &text.bytes {
            let page = 4096;
            let len = end / page * page;
            if len > 0 {
                // SAFETY: a private read-only file mapping; pages dropped are
                // read back from the file if touched again, with the same
                // bytes (the reader tolerates a file changed meanwhile).
                let _ =
                    unsafe { m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, len) };
            }
        }
    };
    for e in chunk {
        if let EntryKind::Game { text, end, .. } = &e.0 {
            match last {
                Some((t, _)) if Arc::ptr_eq(t, text) => last = Some((t, *end)),
                Some((t, e)) => {
                    flush(t, e);
                    last = Some((text, *end));
                }
                None => last = Some((text, *end)),
            }
        }
    }
    if let Some((t, e)) = last {
        flush(t, e);
    }
}

/// `f` over every entry of `chunk` on `pool`, each thread with a state of
/// its own from `state`; the results in the chunk's order.
pub fn par_map<S, O>(
    pool: &rayon::ThreadPool,
    chunk: &[Entry],
    state: &(dyn Fn() -> S + Sync),
    f: &(dyn Fn(&mut S, Item<'_, '_>) -> O + Sync),
) -> Vec<O>
where
    S: Send,
    O: Send,
{
    pool.install(|| {
        chunk
            .par_iter()
            .map_init(state, |st, e| e.with_item(|item| f(st, item)))
            .collect()
    })
}

/// The outcome of a parallel run that adds up counts.
#[derive(Debug)]
pub struct Run<T> {
    pub tally: T,
    pub elapsed: Duration,
    pub threads: usize,
    /// Files, archives and members that could not be read, with the reason.
    pub not_read: Vec<(String, String)>,
    /// Archive members that are not SGF, with the reason.
    pub left_aside: Vec<(String, String)>,
}

/// Every game of `files` through `visit` on `threads` threads (0: every
/// core), each thread with a state from `state` (reusable analysers),
/// adding up into a tally; for the commands that count (`replay`, `check`,
/// `eval`).
pub fn fold<T, S, FS, FV>(files: &[InputFile], threads: usize, state: FS, visit: FV) -> Run<T>
where
    T: Tally,
    S: Send,
    FS: Fn() -> S + Sync + Send,
    FV: Fn(&mut S, &mut T, Item<'_, '_>) + Sync + Send,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("building a thread pool");
    let mut tally = T::default();
    let outcome = chunks(&whole(files), Budget::default(), None, |chunk| {
        let part = pool.install(|| {
            chunk
                .par_iter()
                .fold(
                    || (T::default(), state()),
                    |(mut t, mut st), e| {
                        e.with_item(|item| visit(&mut st, &mut t, item));
                        (t, st)
                    },
                )
                .map(|(t, _)| t)
                .reduce(T::default, |mut a, b| {
                    a.merge(b);
                    a
                })
        });
        tally.merge(part);
        ControlFlow::Continue(())
    });
    Run {
        tally,
        elapsed: outcome.elapsed,
        threads: pool.current_num_threads(),
        not_read: outcome.not_read,
        left_aside: outcome.left_aside,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over objects the chunks grow from 64 games, doubling, to the
    /// budget; a budget under 64 is the first chunk's too.
    #[test]
    fn chunks_over_objects_grow_to_the_budget() {
        let budget = |games| Budget {
            games,
            bytes: 1 << 20,
        };
        let first: Vec<usize> = chunk_limits(budget(4096), FIRST_OBJECT_CHUNK)
            .take(9)
            .collect();
        assert_eq!(first, [64, 128, 256, 512, 1024, 2048, 4096, 4096, 4096]);
        let small: Vec<usize> = chunk_limits(budget(10), FIRST_OBJECT_CHUNK)
            .take(3)
            .collect();
        assert_eq!(small, [10, 10, 10]);
        let files: Vec<usize> = chunk_limits(budget(4096), 4096).take(2).collect();
        assert_eq!(files, [4096, 4096]);
    }

    /// An open-ended last part is fetched up to the object's size, not
    /// 2^64 (s3s-fs misreads that range, and games were lost).
    #[test]
    fn object_ranges_end_at_the_listed_size() {
        let file = InputFile {
            path: "s3://b/big.sgf".into(),
            len: 100,
            root: "s3://b".into(),
            real: None,
            version: None,
        };
        let part = |start, end| ShardFile {
            file: file.clone(),
            part: Some(FilePart {
                bytes: start..end,
                first_game: 1,
            }),
        };
        assert_eq!(fetch_range(&part(40, u64::MAX)), Some(40..100));
        assert_eq!(fetch_range(&part(0, 40)), Some(0..40));
        let whole = ShardFile { file, part: None };
        assert_eq!(fetch_range(&whole), None);
    }
    use std::path::Path;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("verdict-engine-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// (source, index, first move or what the item was) of every item.
    fn items(sources: &[ShardFile], budget: Budget) -> Vec<(String, usize, String)> {
        let mut out = Vec::new();
        let outcome = chunks(sources, budget, None, |chunk| {
            assert!(chunk.len() <= budget.games);
            for e in chunk {
                out.push(e.with_item(|item| match item {
                    Item::Game {
                        unit, index, sgf, ..
                    } => (
                        unit.source.clone(),
                        index,
                        format!("{:?}/{:?}", sgf.span, sgf.problems),
                    ),
                    Item::NoGame { unit } => (unit.source.clone(), 0, "none".into()),
                    Item::Unreadable { unit, reason } => (unit.source.clone(), 0, reason.into()),
                }));
            }
            ControlFlow::Continue(())
        });
        assert!(!outcome.stopped);
        out
    }

    fn file(path: &Path) -> InputFile {
        InputFile {
            path: path.to_path_buf(),
            len: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            root: path.to_path_buf(),
            real: None,
            version: None,
        }
    }

    /// Any budget, and any cut of a collection into parts at tree ends,
    /// reads the same games.
    #[test]
    fn budgets_and_parts_read_the_same_games() {
        let dir = temp("cuts");
        let mut text = Vec::new();
        text.extend(b"junk ");
        for i in 0..30 {
            text.extend(format!("(;SZ[9]C[{i}];B[aa];W[bb])").as_bytes());
            if i % 7 == 0 {
                text.extend(b" stray ; ");
            }
        }
        text.extend(b"(;SZ[9];B[cc");
        std::fs::write(dir.join("all.sgf"), &text).unwrap();
        std::fs::write(dir.join("empty.sgf"), b"").unwrap();
        let files = [
            file(&dir.join("all.sgf")),
            file(&dir.join("empty.sgf")),
            file(&dir.join("gone.sgf")),
        ];
        let whole_read = items(&whole(&files), Budget::default());
        assert_eq!(whole_read.len(), 31 + 1 + 1);
        assert_eq!(whole_read[32].0, dir.join("gone.sgf").display().to_string());
        for budget in [
            Budget {
                games: 1,
                bytes: 1 << 20,
            },
            Budget {
                games: 7,
                bytes: 1 << 20,
            },
            Budget {
                games: 1000,
                bytes: 100,
            },
        ] {
            assert_eq!(items(&whole(&files), budget), whole_read, "{budget:?}");
        }
        // The collection cut into three parts at tree ends.
        let ends: Vec<usize> = Reader::new(&text).map(|g| g.span.end).collect();
        let (a, b) = (ends[9], ends[20]);
        let part = |bytes: std::ops::Range<u64>, first_game: u64| ShardFile {
            file: files[0].clone(),
            part: Some(FilePart { bytes, first_game }),
        };
        let cut = [
            part(0..a as u64, 0),
            part(a as u64..b as u64, 10),
            part(b as u64..u64::MAX, 21),
        ];
        assert_eq!(items(&cut, Budget::default()), whole_read[..31]);
        // So do the parts `cut` makes, for any size.
        for size in [1, 50, 200, 1 << 20] {
            let sources: Vec<ShardFile> = match super::cut(&files[0], size).unwrap() {
                None => whole(&files[..1]),
                Some(parts) => parts
                    .into_iter()
                    .map(|p| ShardFile {
                        file: files[0].clone(),
                        part: Some(p),
                    })
                    .collect(),
            };
            assert_eq!(sources.len() > 1, size < 1 << 20, "size {size}");
            assert_eq!(
                items(&sources, Budget::default()),
                whole_read[..31],
                "size {size}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn compressed_files_are_read_or_named() {
        use std::io::Write;
        let dir = temp("compressed");
        let game = b"(;SZ[9];B[aa];W[bb])";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(game).unwrap();
        std::fs::write(dir.join("a.sgf"), gz.finish().unwrap()).unwrap();
        std::fs::write(dir.join("b.sgf"), [0xfd, b'7', b'z', b'X', b'Z', 0, 1, 2]).unwrap();
        let files = [file(&dir.join("a.sgf")), file(&dir.join("b.sgf"))];
        let got = items(&whole(&files), Budget::default());
        assert_eq!(got.len(), 2);
        assert!(got[0].2.starts_with("0..20"), "{got:?}");
        assert!(got[1].2.contains("xz-compressed"), "{got:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
