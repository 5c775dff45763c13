//! A GNU Go process spoken to over GTP: the reference settler `verdict
//! eval --gnugo` compares with, and the opt-in referee (`--referee
//! gnugo`). A tool beside the analysis, not part of it: verdict's own
//! settler never needs it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use verdict_rules::analyse::Referee;
use verdict_rules::score::Position;
use verdict_rules::{Color, Point};

/// A GNU Go process spoken to over GTP.
#[derive(Debug)]
pub struct GnuGo {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    scratch: PathBuf,
}

/// Why GNU Go could not be used.
#[derive(Debug, thiserror::Error)]
pub enum GnuGoError {
    #[error("cannot start `{program}` (install GNU Go, e.g. `apt-get install gnugo`, or pass --gnugo-bin PATH)")]
    Start {
        program: String,
        source: std::io::Error,
    },
    #[error("GNU Go stopped talking: {0}")]
    Io(#[from] std::io::Error),
    #[error("GNU Go answered `{command}` with an error: {answer}")]
    Refused { command: String, answer: String },
}

impl GnuGo {
    /// Starts `program --mode gtp`; `scratch` is a file it may overwrite.
    /// A bare `gnugo` not on the PATH is also looked for where Debian puts
    /// it (`/usr/games`).
    pub fn start(program: &str, scratch: PathBuf) -> Result<GnuGo, GnuGoError> {
        let debian = Path::new("/usr/games").join(program);
        let program_path = if !program.contains('/') && which(program).is_none() && debian.is_file()
        {
            debian
        } else {
            PathBuf::from(program)
        };
        let mut child = Command::new(&program_path)
            .args(["--mode", "gtp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| GnuGoError::Start {
                program: program.to_string(),
                source,
            })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(GnuGo {
            child,
            stdin,
            stdout,
            scratch,
        })
    }

    fn command(&mut self, command: &str) -> Result<String, GnuGoError> {
        writeln!(self.stdin, "{command}")?;
        self.stdin.flush()?;
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line)? == 0 {
                return Err(GnuGoError::Io(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "end of output",
                )));
            }
            if line.trim().is_empty() {
                if answer.is_empty() {
                    continue;
                }
                break;
            }
            answer.push_str(&line);
        }
        if let Some(rest) = answer.strip_prefix('=') {
            Ok(rest.trim().to_string())
        } else {
            Err(GnuGoError::Refused {
                command: command.to_string(),
                answer: answer.trim().to_string(),
            })
        }
    }

    /// GNU Go's dead stones of `position` (given as setup stones with
    /// `komi` and `to_move`, so no move history is needed), sorted row by
    /// row from the top.
    pub fn dead_stones(
        &mut self,
        position: &Position,
        komi: f64,
        to_move: Color,
    ) -> Result<Vec<Point>, GnuGoError> {
        let sgf = setup_sgf(position, komi, to_move);
        std::fs::write(&self.scratch, sgf)?;
        let path = self.scratch.display().to_string();
        self.command(&format!("loadsgf {path}"))?;
        let answer = self.command("final_status_list dead")?;
        let h = position.size().height();
        let mut dead: Vec<Point> = answer
            .split_whitespace()
            .filter_map(|v| gtp_point(v, h))
            .collect();
        dead.sort_unstable_by_key(|p| (p.y(), p.x()));
        Ok(dead)
    }
}

impl Drop for GnuGo {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.scratch);
    }
}

/// GNU Go as the referee of `verdict run --referee gnugo`: a pool of GTP
/// processes, one per thread that is asking at the moment, started when
/// first needed and kept for the next game. A process that stops talking
/// is dropped and the next question starts another, so one GNU Go crash
/// costs one game's answer, not the run.
#[derive(Debug)]
pub struct GnuGoReferee {
    program: String,
    idle: Mutex<Vec<GnuGo>>,
    started: AtomicUsize,
    asked: AtomicUsize,
    failed: AtomicUsize,
}

impl GnuGoReferee {
    /// Starts one `program` and asks its name, to see that it runs and
    /// speaks GTP (the error says how to install it when it does not).
    pub fn start(program: &str) -> Result<GnuGoReferee, GnuGoError> {
        let referee = GnuGoReferee {
            program: program.to_string(),
            idle: Mutex::new(Vec::new()),
            started: AtomicUsize::new(0),
            asked: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
        };
        let mut first = referee.spawn()?;
        first.command("name")?;
        referee.put_back(first);
        Ok(referee)
    }

    /// How many GNU Go processes were started so far.
    pub fn started(&self) -> usize {
        self.started.load(Ordering::Relaxed)
    }

    /// Games asked about so far, and how many of them got no answer.
    pub fn asked(&self) -> (usize, usize) {
        (
            self.asked.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        )
    }

    fn spawn(&self) -> Result<GnuGo, GnuGoError> {
        let k = self.started.fetch_add(1, Ordering::Relaxed);
        let scratch =
            std::env::temp_dir().join(format!("verdict-referee-{}-{k}.sgf", std::process::id()));
        GnuGo::start(&self.program, scratch)
    }

    fn put_back(&self, gnugo: GnuGo) {
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(gnugo);
    }
}

impl Referee for GnuGoReferee {
    fn dead_stones(
        &self,
        position: &Position,
        komi: f64,
        to_move: Color,
    ) -> Result<Vec<Point>, String> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        let answer = self.ask(position, komi, to_move);
        if answer.is_err() {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        answer
    }
}

impl GnuGoReferee {
    fn ask(&self, position: &Position, komi: f64, to_move: Color) -> Result<Vec<Point>, String> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut gnugo = match idle {
            Some(g) => g,
            None => self.spawn().map_err(|e| e.to_string())?,
        };
        match gnugo.dead_stones(position, komi, to_move) {
            Ok(dead) => {
                self.put_back(gnugo);
                Ok(dead)
            }
            Err(e @ GnuGoError::Refused { .. }) => {
                self.put_back(gnugo);
                Err(e.to_string())
            }
            // The process is gone: drop it, the next game starts another.
            Err(e) => Err(e.to_string()),
        }
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// `(;GM[1]SZ[..]KM[..]AB[..]AW[..]PL[..])` of a position.
fn setup_sgf(position: &Position, komi: f64, to_move: Color) -> String {
    let size = position.size();
    let sz = if size.width() == size.height() {
        size.width().to_string()
    } else {
        format!("{}:{}", size.width(), size.height())
    };
    let mut s = format!("(;GM[1]FF[4]SZ[{sz}]KM[{komi}]");
    for (prop, color) in [("AB", Color::Black), ("AW", Color::White)] {
        let mut first = true;
        for p in size.iter() {
            if position.get(p) == Some(color) {
                if first {
                    s.push_str(prop);
                    first = false;
                }
                s.push('[');
                s.push((b'a' + p.x()) as char);
                s.push((b'a' + p.y()) as char);
                s.push(']');
            }
        }
    }
    s.push_str(match to_move {
        Color::Black => "PL[B])",
        Color::White => "PL[W])",
    });
    s
}

/// A GTP vertex (`D4`: column letter without I, row from the bottom).
fn gtp_point(vertex: &str, height: u8) -> Option<Point> {
    let mut chars = vertex.chars();
    let col = chars.next()?.to_ascii_uppercase();
    if !col.is_ascii_uppercase() || col == 'I' {
        return None;
    }
    let mut x = col as u8 - b'A';
    if col > 'I' {
        x -= 1;
    }
    let row: u8 = chars.as_str().parse().ok()?;
    if row == 0 || row > height {
        return None;
    }
    Point::new(x, height - row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_vertices_skip_i_and_count_rows_from_the_bottom() {
        assert_eq!(gtp_point("A19", 19), Point::new(0, 0));
        assert_eq!(gtp_point("H1", 19), Point::new(7, 18));
        assert_eq!(gtp_point("J1", 19), Point::new(8, 18));
        assert_eq!(gtp_point("T10", 19), Point::new(18, 9));
        assert_eq!(gtp_point("I5", 19), None);
        assert_eq!(gtp_point("A20", 19), None);
    }
}
