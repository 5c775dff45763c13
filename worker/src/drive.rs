//! Running a per-game visitor over many files on every core.
//!
//! Each rayon task reads one file and pushes its games, one by one, into a
//! visitor together with per-thread state (reusable analysers) and a tally.
//! Tallies are merged at the end, so threads never contend while working.

use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use verdict_rules::sgf::{Reader, SgfGame};

use crate::inputs::InputFile;

/// What a visitor is shown for each unit of input.
#[derive(Debug)]
pub enum Item<'a, 'g> {
    /// One game tree of a file; `index` counts from 0 within the file.
    Game {
        file: &'a Path,
        index: usize,
        sgf: &'g SgfGame<'a>,
        bytes: &'a [u8],
    },
    /// A file that holds no game tree at all.
    NoGame { file: &'a Path },
    /// A file that could not be read from disk.
    Unreadable {
        file: &'a Path,
        error: std::io::Error,
    },
}

/// Counts that can be added up across threads.
pub trait Tally: Default + Send {
    fn merge(&mut self, other: Self);
}

/// The outcome of a parallel run.
#[derive(Debug)]
pub struct Run<T> {
    pub tally: T,
    pub elapsed: Duration,
    pub threads: usize,
}

/// Feeds every game of `files` to `visit` on `threads` threads (0: every
/// core). `state` builds the per-thread scratch state once per rayon task
/// group; `visit` adds what it sees to the tally.
pub fn run<T, S, FS, FV>(files: &[InputFile], threads: usize, state: FS, visit: FV) -> Run<T>
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
    let start = Instant::now();
    let tally = pool.install(|| {
        files
            .par_iter()
            .fold(
                || (T::default(), state()),
                |(mut tally, mut st), file| {
                    if let Some(kind) = crate::archive::ArchiveKind::of_path(&file.path) {
                        // Every SGF member of an archive, streamed; damage
                        // ends the archive as an unreadable item.
                        let result = crate::archive::read_archive(
                            &file.path,
                            kind,
                            crate::run::MAX_MEMBER_BYTES,
                            &mut |member| {
                                read_games(
                                    &file.path,
                                    &member.bytes,
                                    &mut SgfGame::default(),
                                    &mut |item| visit(&mut st, &mut tally, item),
                                );
                                std::ops::ControlFlow::Continue(())
                            },
                            &mut |_, _| {},
                        );
                        if let Err(e) = result {
                            let error = std::io::Error::other(e.to_string());
                            visit(
                                &mut st,
                                &mut tally,
                                Item::Unreadable {
                                    file: &file.path,
                                    error,
                                },
                            );
                        }
                        return (tally, st);
                    }
                    match std::fs::read(&file.path) {
                        // One tree buffer per file: it borrows the file's bytes.
                        Ok(bytes) => {
                            read_games(&file.path, &bytes, &mut SgfGame::default(), &mut |item| {
                                visit(&mut st, &mut tally, item)
                            })
                        }
                        Err(error) => visit(
                            &mut st,
                            &mut tally,
                            Item::Unreadable {
                                file: &file.path,
                                error,
                            },
                        ),
                    }
                    (tally, st)
                },
            )
            .map(|(tally, _)| tally)
            .reduce(T::default, |mut a, b| {
                a.merge(b);
                a
            })
    });
    Run {
        tally,
        elapsed: start.elapsed(),
        threads: pool.current_num_threads(),
    }
}

/// Reads every game of one file's bytes into `visit`.
pub fn read_games<'a>(
    file: &'a Path,
    bytes: &'a [u8],
    sgf: &mut SgfGame<'a>,
    visit: &mut dyn FnMut(Item<'a, '_>),
) {
    let mut reader = Reader::new(bytes);
    let mut index = 0;
    while reader.next_into(sgf) {
        visit(Item::Game {
            file,
            index,
            sgf,
            bytes,
        });
        index += 1;
    }
    if index == 0 {
        visit(Item::NoGame { file });
    }
}
