//! The verdict wire contract: the `verdict.v1` protobuf package (messages and
//! tonic services, generated at build time from `proto/verdict/v1/*.proto`)
//! and conversions between generated types and domain types, so that no
//! other crate builds prost types field by field.

use std::path::PathBuf;

/// The prost version the generated types use (for `Message::encode`/`decode`).
pub use prost;

use verdict_corpus::input::{FilePart, InputFile, ShardFile};
use verdict_corpus::options::RunOptions;
use verdict_corpus::row::RowStatus;
use verdict_corpus::summary::{CellKey, Summary, Tally};
use verdict_rules::analyse::CheckStatus;
use verdict_rules::analyse::KomiPolicy;
use verdict_rules::game::SkipKind;
use verdict_rules::score::RuleSet;

/// Bumped when workers and coordinators of different builds must not talk
/// (a change in what a field means, not a field added). Version 2: parts are
/// written into the job's staging folder under the lease's name
/// (`Lease.staging`), not into `out/games`. Version 3: a split file is a
/// byte range (`ShardFile.part`), not a game range; a version-2 worker would
/// ignore the part and read the whole file, counting its games twice.
pub const PROTOCOL_VERSION: u32 = 3;

/// Generated code of the `verdict.v1` package.
pub mod v1 {
    #![allow(clippy::all, clippy::pedantic, missing_debug_implementations)]
    tonic::include_proto!("verdict.v1");
}

/// A message that cannot be turned into a domain value.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConvertError {
    #[error("unknown rule set {0:?}; known: {1}")]
    UnknownRuleSet(String, String),
    #[error("komi {0} is not a finite number")]
    BadKomi(String),
    #[error("byte range {start}..{end} of a file is empty")]
    EmptyPart { start: u64, end: u64 },
    #[error("unknown referee {0:?}; known: gnugo")]
    UnknownReferee(String),
    #[error("referee threshold {0} is not a confidence from 0 to 1")]
    BadThreshold(String),
    #[error("a game range {first}..{last} (protocol 2 and before): run the same verdict version on the coordinator and the workers")]
    GameRange { first: u64, last: u64 },
}

impl From<&RunOptions> for v1::AnalysisOptions {
    fn from(o: &RunOptions) -> Self {
        v1::AnalysisOptions {
            komi: Some(v1::KomiPolicy {
                policy: Some(match o.komi {
                    KomiPolicy::Game => v1::komi_policy::Policy::Game(true),
                    KomiPolicy::Fixed(k) => v1::komi_policy::Policy::Fixed(k),
                }),
            }),
            include_unfinished: o.include_unfinished,
            all_pairs: o.all_pairs,
            komi_sweep: o.komi_sweep.clone(),
            rules: if o.rules == RuleSet::ALL {
                Vec::new()
            } else {
                o.rules.iter().map(|r| r.id().to_string()).collect()
            },
            assume_rules: o
                .assume_rules
                .map(|r| r.id().to_string())
                .unwrap_or_default(),
            referee: o.referee.as_ref().map(|r| v1::RefereeRequest {
                name: r.name.clone(),
                threshold: r.threshold,
            }),
        }
    }
}

/// The referee a job's options ask for, not started (each worker starts
/// its own).
///
/// # Errors
/// A referee verdict does not know, or a threshold outside 0 to 1.
pub fn referee_choice(
    o: &v1::AnalysisOptions,
) -> Result<Option<verdict_corpus::options::RefereeChoice>, ConvertError> {
    let Some(r) = &o.referee else {
        return Ok(None);
    };
    if r.name != "gnugo" {
        return Err(ConvertError::UnknownReferee(r.name.clone()));
    }
    if !(0.0..=1.0).contains(&r.threshold) {
        return Err(ConvertError::BadThreshold(r.threshold.to_string()));
    }
    Ok(Some(verdict_corpus::options::RefereeChoice {
        name: r.name.clone(),
        threshold: r.threshold,
        referee: None,
    }))
}

/// The run options a job's analysis options mean, writing to `out` on
/// `threads` threads (0: every core).
///
/// # Errors
/// Unknown rule set ids, or a komi that is not a finite number.
pub fn run_options(
    o: &v1::AnalysisOptions,
    out: PathBuf,
    threads: usize,
) -> Result<RunOptions, ConvertError> {
    let komi = match o.komi.as_ref().and_then(|k| k.policy.as_ref()) {
        None | Some(v1::komi_policy::Policy::Game(_)) => KomiPolicy::Game,
        Some(v1::komi_policy::Policy::Fixed(k)) if k.is_finite() => KomiPolicy::Fixed(*k),
        Some(v1::komi_policy::Policy::Fixed(k)) => {
            return Err(ConvertError::BadKomi(k.to_string()))
        }
    };
    if let Some(k) = o.komi_sweep.iter().find(|k| !k.is_finite()) {
        return Err(ConvertError::BadKomi(k.to_string()));
    }
    let rules = if o.rules.is_empty() {
        RuleSet::ALL.to_vec()
    } else {
        o.rules
            .iter()
            .map(|id| {
                RuleSet::from_id(id).ok_or_else(|| {
                    let ids: Vec<&str> = RuleSet::ALL.iter().map(|r| r.id()).collect();
                    ConvertError::UnknownRuleSet(id.clone(), ids.join(", "))
                })
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let unknown = |id: &String| {
        let ids: Vec<&str> = RuleSet::ALL.iter().map(|r| r.id()).collect();
        ConvertError::UnknownRuleSet(id.clone(), ids.join(", "))
    };
    let assume_rules = if o.assume_rules.is_empty() {
        None
    } else {
        Some(RuleSet::from_id(&o.assume_rules).ok_or_else(|| unknown(&o.assume_rules))?)
    };
    Ok(RunOptions {
        out,
        threads,
        assume_rules,
        referee: referee_choice(o)?,
        komi,
        include_unfinished: o.include_unfinished,
        all_pairs: o.all_pairs,
        komi_sweep: o.komi_sweep.clone(),
        rules,
        ..RunOptions::default()
    })
}

/// The empty summary a job's shard summaries are added to.
pub fn empty_summary(options: &RunOptions) -> Summary {
    let mut s = Summary::new(options.all_pairs, &options.rules);
    s.sweep = options.komi_sweep.clone();
    s
}

impl From<&Summary> for v1::ShardSummary {
    fn from(s: &Summary) -> Self {
        use verdict_corpus::summary::named;
        let wire = |m: std::collections::BTreeMap<&str, u64>| {
            m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
        };
        v1::ShardSummary {
            games: s.games,
            by_status: wire(named(&s.by_status, |k| k.as_str())),
            skip_reasons: wire(named(&s.skip_reasons, |k| k.as_str())),
            self_check: wire(named(&s.self_check, |k| k.as_str())),
            cells: s
                .rows()
                .into_iter()
                .map(|r| v1::SummaryCell {
                    comparison: r.comparison,
                    dimension: r.dimension.to_string(),
                    value: r.value,
                    scorable: r.tally.scorable,
                    disagreements: r.tally.disagreements,
                    draws: r.tally.draws,
                })
                .collect(),
        }
    }
}

impl TryFrom<&v1::ShardSummary> for Summary {
    type Error = String;

    /// The counts of a shard's summary (no pairs or sweep: a summary to
    /// [`Summary::merge`] into a job's).
    ///
    /// # Errors
    /// A cell whose comparison, dimension or value verdict does not write.
    fn try_from(s: &v1::ShardSummary) -> Result<Self, String> {
        let mut part = Summary {
            games: s.games,
            ..Summary::default()
        };
        fn counts<K: Ord>(
            what: &str,
            theirs: &std::collections::HashMap<String, u64>,
            parse: impl Fn(&str) -> Option<K>,
        ) -> Result<std::collections::BTreeMap<K, u64>, String> {
            theirs
                .iter()
                .map(|(k, v)| {
                    let key = parse(k)
                        .ok_or_else(|| format!("a summary {what} verdict does not write: {k:?}"))?;
                    Ok((key, *v))
                })
                .collect()
        }
        part.by_status = counts("status", &s.by_status, RowStatus::parse)?;
        part.skip_reasons = counts("skip reason", &s.skip_reasons, SkipKind::parse)?;
        part.self_check = counts("self-check status", &s.self_check, CheckStatus::parse)?;
        for c in &s.cells {
            let key = CellKey::parse(&c.comparison, &c.dimension, &c.value).ok_or_else(|| {
                format!(
                    "a summary cell verdict does not write: {:?} / {:?} / {:?}",
                    c.comparison, c.dimension, c.value
                )
            })?;
            part.cells.entry(key).or_default().merge(&Tally {
                scorable: c.scorable,
                disagreements: c.disagreements,
                draws: c.draws,
            });
        }
        Ok(part)
    }
}

/// Adds the counts of a shard's summary to `total`.
///
/// # Errors
/// As [`Summary::try_from`]: `total` is then unchanged.
pub fn add_summary(total: &mut Summary, s: &v1::ShardSummary) -> Result<(), String> {
    total.merge(&Summary::try_from(s)?);
    Ok(())
}

impl From<&ShardFile> for v1::ShardFile {
    fn from(f: &ShardFile) -> Self {
        v1::ShardFile {
            path: f.file.path.display().to_string(),
            root: f.file.root.display().to_string(),
            len: f.file.len,
            range: None,
            part: f.part.as_ref().map(|p| v1::FilePart {
                byte_start: p.bytes.start,
                byte_end: p.bytes.end,
                first_game: p.first_game,
            }),
            real: f
                .file
                .real
                .as_ref()
                .map(|r| r.display().to_string())
                .unwrap_or_default(),
        }
    }
}

impl TryFrom<&v1::ShardFile> for ShardFile {
    type Error = ConvertError;

    fn try_from(f: &v1::ShardFile) -> Result<Self, ConvertError> {
        if let Some(r) = &f.range {
            return Err(ConvertError::GameRange {
                first: r.first,
                last: r.last,
            });
        }
        let part = match &f.part {
            None => None,
            Some(p) if p.byte_start < p.byte_end => Some(FilePart {
                bytes: p.byte_start..p.byte_end,
                first_game: p.first_game,
            }),
            Some(p) => {
                return Err(ConvertError::EmptyPart {
                    start: p.byte_start,
                    end: p.byte_end,
                })
            }
        };
        Ok(ShardFile {
            file: InputFile {
                path: PathBuf::from(&f.path),
                len: f.len,
                root: PathBuf::from(&f.root),
                real: (!f.real.is_empty()).then(|| PathBuf::from(&f.real)),
                version: None,
            },
            part,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_corpus::summary::{Group, Komi};
    use verdict_rules::info::Rules;

    #[test]
    fn options_survive_the_wire() {
        let o = RunOptions {
            out: PathBuf::from("/out"),
            komi: KomiPolicy::Fixed(7.5),
            include_unfinished: true,
            all_pairs: true,
            komi_sweep: vec![5.5, 6.5],
            rules: vec![RuleSet::JpdA, RuleSet::Chinese],
            ..RunOptions::default()
        };
        let back = run_options(&(&o).into(), PathBuf::from("/out"), 0).unwrap();
        assert_eq!(format!("{back:?}"), format!("{o:?}"));
        let all = run_options(&v1::AnalysisOptions::default(), PathBuf::new(), 0).unwrap();
        assert_eq!(all.rules, RuleSet::ALL);
        assert!(matches!(all.komi, KomiPolicy::Game));
        let bad = v1::AnalysisOptions {
            rules: vec!["jpd_z".into()],
            ..Default::default()
        };
        assert!(matches!(
            run_options(&bad, PathBuf::new(), 0),
            Err(ConvertError::UnknownRuleSet(..))
        ));
    }

    #[test]
    fn a_referee_crosses_the_wire_by_name_and_is_started_by_nobody() {
        let wire = v1::AnalysisOptions {
            referee: Some(v1::RefereeRequest {
                name: "gnugo".into(),
                threshold: 0.75,
            }),
            ..Default::default()
        };
        let o = run_options(&wire, PathBuf::new(), 0).unwrap();
        let choice = o.referee.as_ref().unwrap();
        assert_eq!((choice.name.as_str(), choice.threshold), ("gnugo", 0.75));
        assert_eq!(o.unstarted_referee(), Some("gnugo"));
        assert_eq!(v1::AnalysisOptions::from(&o).referee, wire.referee);
        for (name, threshold, want) in [
            ("katago", 0.5, "unknown referee"),
            ("gnugo", 1.5, "not a confidence"),
            ("gnugo", f32::NAN, "not a confidence"),
        ] {
            let bad = v1::AnalysisOptions {
                referee: Some(v1::RefereeRequest {
                    name: name.into(),
                    threshold,
                }),
                ..Default::default()
            };
            let e = run_options(&bad, PathBuf::new(), 0).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
    }

    #[test]
    fn summaries_survive_the_wire() {
        let mut s = Summary::new(false, &RuleSet::ALL);
        s.games = 7;
        s.by_status.insert(RowStatus::Scored, 5);
        s.skip_reasons.insert(SkipKind::NoGame, 2);
        s.self_check.insert(CheckStatus::Disagrees, 1);
        for (group, scorable) in [
            (Group::All, 5),
            (Group::Komi(Some(Komi(6.5))), 3),
            (Group::Rules(Some(Rules::Japanese)), 2),
            (Group::HowEnded(None), 1),
            (Group::BoardSize(Some((19, 19))), 5),
            (Group::Input("a/b x".into()), 5),
            (Group::KomiSweep(Komi(-0.5)), 5),
        ] {
            s.cells.insert(
                CellKey {
                    pair: (RuleSet::JpdA, RuleSet::JpdB),
                    group,
                },
                Tally {
                    scorable,
                    disagreements: 1,
                    draws: 0,
                },
            );
        }
        let mut total = Summary::new(false, &RuleSet::ALL);
        add_summary(&mut total, &(&s).into()).unwrap();
        assert_eq!(total, s);
        add_summary(&mut total, &(&s).into()).unwrap();
        assert_eq!(total.games, 14);
        assert_eq!(total.cells.values().next().unwrap().disagreements, 2);
        // A cell verdict does not write is refused, not dropped.
        let mut bad: v1::ShardSummary = (&s).into();
        bad.cells[0].dimension = "moon_phase".into();
        let before = total.clone();
        assert!(add_summary(&mut total, &bad).is_err());
        assert_eq!(total, before);
        // So is a count under a name verdict does not write.
        for field in 0..3 {
            let mut bad: v1::ShardSummary = (&s).into();
            let map = match field {
                0 => &mut bad.by_status,
                1 => &mut bad.skip_reasons,
                _ => &mut bad.self_check,
            };
            map.insert("lost_in_the_mail".into(), 1);
            let err = add_summary(&mut total, &bad).unwrap_err();
            assert!(err.contains("lost_in_the_mail"), "{err}");
            assert_eq!(total, before);
        }
    }

    #[test]
    fn empty_parts_and_old_game_ranges_are_refused() {
        let f = v1::ShardFile {
            path: "a.sgf".into(),
            part: Some(v1::FilePart {
                byte_start: 3,
                byte_end: 3,
                first_game: 1,
            }),
            ..Default::default()
        };
        assert!(ShardFile::try_from(&f).is_err());
        let old = v1::ShardFile {
            path: "a.sgf".into(),
            range: Some(v1::GameRange { first: 0, last: 9 }),
            ..Default::default()
        };
        assert!(matches!(
            ShardFile::try_from(&old),
            Err(ConvertError::GameRange { .. })
        ));
        let back = v1::ShardFile {
            path: "a.sgf".into(),
            part: Some(v1::FilePart {
                byte_start: 0,
                byte_end: 99,
                first_game: 0,
            }),
            ..Default::default()
        };
        assert_eq!(
            v1::ShardFile::from(&ShardFile::try_from(&back).unwrap()),
            back
        );
    }
}
