//! `verdict report`: a finished run as one HTML page a researcher reads.
//!
//! Brief overview:
//! - [`data`] reads the run back: `OUT/games/*.parquet` and
//!   `OUT/summary.json`, nothing else, so a local run and a cluster job
//!   give the same page.
//! - [`model`] computes every number the page shows, once; the page embeds
//!   them as JSON (`<script type="application/json" id="verdict-data">`),
//!   and the charts carry them as `data-*` attributes, so tests compare
//!   what is drawn with `summary.json`.
//! - [`chart`] and [`board`] draw small hand-written SVG (no plotting
//!   library: the charts are dots, whiskers, bands and grids, and each
//!   needs accessible titles, greyscale-safe patterns and data attributes
//!   that a library would not give).
//! - [`records`] replays the records of the example games to draw them.
//! - `html` puts the page together: one file, styles and figures inline,
//!   no script to run, no network, no external font.

pub mod board;
pub mod chart;
pub mod data;
mod html;
pub mod model;
pub mod records;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use data::{read_run, ReadError, RunData};

/// What a report is asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportOptions {
    /// Example games per comparison.
    pub examples: usize,
    /// Boards drawn in all (each example game is drawn once).
    pub max_boards: usize,
    /// The time written on the page (UTC, ISO 8601); None: now. Tests pin it.
    pub now: Option<String>,
    /// Set by `verdict run`: how the run was asked for and how long it took.
    pub run: Option<RunInfo>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            examples: 4,
            max_boards: 24,
            now: None,
            run: None,
        }
    }
}

/// The run as its command line gave it (a report made later from the
/// folder alone infers what it can from the rows).
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    pub command: String,
    /// `(option, value)` as the run used them.
    pub options: Vec<(String, String)>,
    pub elapsed: Duration,
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What writing a report did.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub path: PathBuf,
    pub bytes: u64,
    pub rows: usize,
    pub boards: usize,
    pub elapsed: Duration,
    /// Warnings the page opens with (rows and summary disagree, ...).
    pub warnings: Vec<String>,
}

/// Reads the run in `out` and writes `out/report.html` (under a temporary
/// name first, so a reader never opens half a page).
pub fn write_report(out: &Path, options: &ReportOptions) -> Result<Written, ReportError> {
    let start = Instant::now();
    let run = read_run(out)?;
    let page = render(&run, options);
    let path = out.join(crate::publish::REPORT);
    // By handle, as the output is published: a link in its place is
    // replaced, never followed.
    crate::confined::resolve(out)
        .and_then(|o| crate::confined::Dir::open(&o))
        .and_then(|dir| dir.write_bytes(crate::publish::REPORT, page.html.as_bytes()))
        .map_err(|source| ReportError::Write {
            path: path.clone(),
            source,
        })?;
    Ok(Written {
        path,
        bytes: page.html.len() as u64,
        rows: run.rows.len(),
        boards: page.boards,
        elapsed: start.elapsed(),
        warnings: page.warnings,
    })
}

/// A rendered page.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub html: String,
    pub boards: usize,
    pub warnings: Vec<String>,
}

/// The page of a run already read.
pub fn render(run: &RunData, options: &ReportOptions) -> Page {
    let model = model::build(run, options.examples, options.max_boards);
    let now = options.now.clone().unwrap_or_else(|| {
        utc(SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()))
    });
    html::page(run, &model, options, &now)
}

/// Seconds since 1970 as `YYYY-MM-DD HH:MM:SS UTC` (civil calendar, no
/// time-zone data needed).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_are_civil() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        // 2000-02-29 12:34:56, a leap day.
        assert_eq!(utc(951_827_696), "2000-02-29 12:34:56 UTC");
        assert_eq!(utc(1_735_689_599), "2024-12-31 23:59:59 UTC");
    }
}
