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
    let page = render(&run, options)?;
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
        rows: page.rows,
        boards: page.boards,
        elapsed: start.elapsed(),
        warnings: page.warnings,
    })
}

/// A rendered page.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub html: String,
    /// Rows read.
    pub rows: usize,
    pub boards: usize,
    pub warnings: Vec<String>,
}

/// The page of a run: its rows are read once, a batch at a time, and only
/// counts and the rows the page names are kept, so memory does not grow
/// with the run.
pub fn render(run: &RunData, options: &ReportOptions) -> Result<Page, ReadError> {
    let model = model::build(run, options.examples, options.max_boards)?;
    Ok(render_model(run, &model, options))
}

/// The page of a model already built (tests build it from rows in memory
/// too, to show the page is the same).
pub fn render_model(run: &RunData, model: &model::Model, options: &ReportOptions) -> Page {
    let now = options.now.clone().unwrap_or_else(|| {
        utc(SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()))
    });
    html::page(run, model, options, &now)
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
    use std::sync::Arc;

    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    /// A run of self-play games from two inputs, with a komi sweep: rows
    /// of every kind the page counts (misses, doubtful chains, examples).
    fn a_run(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("verdict-report-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let inputs: Vec<PathBuf> = [(1, 97), (2, 53)]
            .iter()
            .map(|&(seed, games)| {
                let corpus = dir.join(format!("corpus-{seed}"));
                verdict_lab::synth::write_corpus(
                    &verdict_lab::synth::SynthOptions {
                        games,
                        seed,
                        ..verdict_lab::synth::SynthOptions::default()
                    },
                    &corpus,
                    5,
                )
                .expect("writing a corpus");
                corpus
            })
            .collect();
        let out = dir.join("out");
        crate::run::run(
            &crate::inputs::discover(&inputs).files,
            &crate::run::RunOptions {
                out: out.clone(),
                komi_sweep: crate::summary::parse_sweep("5.5:7.5:0.5").unwrap(),
                ..crate::run::RunOptions::default()
            },
            false,
            crate::run::Hooks::default(),
        )
        .expect("the run");
        out
    }

    /// Writes the rows of `out`'s parts again, in the same order, as parts
    /// of `per_part` rows in row groups of `per_group`.
    fn cut_parts(out: &Path, per_part: usize, per_group: usize) {
        let run = read_run(out).unwrap();
        let mut batches = Vec::new();
        let mut metadata = None;
        for part in &run.parts {
            let builder =
                ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(part).unwrap())
                    .unwrap();
            if metadata.is_none() {
                metadata = builder
                    .metadata()
                    .file_metadata()
                    .key_value_metadata()
                    .cloned();
            }
            for b in builder.build().unwrap() {
                batches.push(b.unwrap());
            }
            std::fs::remove_file(part).unwrap();
        }
        let schema = batches[0].schema();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(per_group))
            .set_key_value_metadata(metadata)
            .build();
        let mut writer: Option<ArrowWriter<std::fs::File>> = None;
        let (mut in_part, mut parts) = (0, 0);
        for batch in &batches {
            let mut at = 0;
            while at < batch.num_rows() {
                if writer.is_none() {
                    let file = std::fs::File::create(
                        out.join("games")
                            .join(format!("part-cut-{parts:05}.parquet")),
                    )
                    .unwrap();
                    writer = Some(
                        ArrowWriter::try_new(file, Arc::clone(&schema), Some(props.clone()))
                            .unwrap(),
                    );
                    parts += 1;
                }
                let n = (per_part - in_part).min(batch.num_rows() - at);
                writer.as_mut().unwrap().write(&batch.slice(at, n)).unwrap();
                at += n;
                in_part += n;
                if in_part == per_part {
                    writer.take().unwrap().close().unwrap();
                    in_part = 0;
                }
            }
        }
        if let Some(w) = writer {
            w.close().unwrap();
        }
    }

    /// The page of rows streamed a batch at a time is the page of the same
    /// rows read whole, whatever the batches, parts and row groups.
    #[test]
    fn the_page_does_not_depend_on_how_the_rows_are_read_or_cut() {
        let out = a_run("streamed");
        let run = read_run(&out).unwrap();
        let rows = run.read_rows().unwrap();
        assert_eq!(rows.len(), 150);
        let all = ReportOptions {
            now: Some("2026-01-01 00:00:00 UTC".to_string()),
            ..ReportOptions::default()
        };
        // Few boards: the budget cuts the examples of later comparisons.
        let few = ReportOptions {
            examples: 1,
            max_boards: 1,
            ..all.clone()
        };
        let mut pages = Vec::new();
        for options in [&all, &few] {
            let model = model::build(&run, options.examples, options.max_boards).unwrap();
            let whole =
                model::build_from_rows(&run.summary, &rows, options.examples, options.max_boards);
            assert_eq!(model, whole);
            assert!(!model.examples.is_empty() && !model.self_check.misses.is_empty());
            // Only the rows the page names are kept.
            let named: std::collections::BTreeSet<usize> = model
                .examples
                .iter()
                .map(|e| e.row)
                .chain(model.self_check.misses.iter().map(|m| m.row))
                .collect();
            assert!(model.shown.keys().copied().eq(named));
            assert!(model.shown.iter().all(|(i, r)| rows[*i] == *r));
            for batch in [1, 7] {
                let mut b = model::Builder::new(&run.summary, options.examples, options.max_boards);
                assert_eq!(run.scan_batches(batch, |r| b.add(r)).unwrap(), 150);
                assert_eq!(b.finish(&run.summary), model, "batches of {batch}");
            }
            let page = render(&run, options).unwrap();
            assert_eq!(page, render_model(&run, &whole, options));
            assert_eq!(
                (page.rows, page.warnings.len()),
                (150, 0),
                "{:?}",
                page.warnings
            );
            pages.push(page);
        }
        assert!(pages[0].boards > pages[1].boards);

        // The same rows in parts of 11 rows, row groups of 4.
        let parts = run.parts.len();
        cut_parts(&out, 23, 4);
        let cut = read_run(&out).unwrap();
        assert_eq!(cut.parts.len(), 7);
        assert_eq!(cut.parts_schema, run.parts_schema);
        assert_eq!(cut.read_rows().unwrap(), rows);
        for (options, page) in [&all, &few].into_iter().zip(&pages) {
            let again = render(&cut, options).unwrap();
            // Only the count of part files may differ.
            assert_eq!(
                again
                    .html
                    .replace(" in 7 part files", &format!(" in {parts} part files")),
                page.html
            );
            assert_eq!(
                (again.boards, &again.warnings),
                (page.boards, &page.warnings)
            );
        }
        let _ = std::fs::remove_dir_all(out.parent().unwrap());
    }

    #[test]
    fn utc_dates_are_civil() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        // 2000-02-29 12:34:56, a leap day.
        assert_eq!(utc(951_827_696), "2000-02-29 12:34:56 UTC");
        assert_eq!(utc(1_735_689_599), "2024-12-31 23:59:59 UTC");
    }
}
