//! The records behind example rows, read again to draw their boards: rows
//! hold counts, not positions, so an example's final position comes from
//! replaying its record (file or archive member) with the row's own
//! settings, and is checked against the row before it is shown.

use std::path::Path;

use verdict_rules::analyse::{Analyser, KomiPolicy};
use verdict_rules::game::Game;
use verdict_rules::score::{PointState, RuleSet};
use verdict_rules::sgf::Reader;
use verdict_rules::{BoardSize, Point};

use super::data::Row;
use crate::archive::{read_archive, ArchiveKind};
use crate::run::MAX_MEMBER_BYTES;

/// An example's final position, counted again.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    pub size: BoardSize,
    pub states: Vec<PointState>,
    /// Stones of the chains the settler was unsure of.
    pub doubtful: Vec<Point>,
    /// Rule sets whose margin differs from the row's (empty: they match).
    pub mismatches: Vec<&'static str>,
}

/// Reads the record of `row` and counts it as the run did. An error is a
/// sentence for the page: the record moved, changed, or cannot be read.
pub fn draw(row: &Row) -> Result<Drawn, String> {
    let source = &*row.source;
    let bytes = match source.split_once("!/") {
        Some((archive, member)) => member_bytes(Path::new(archive), member)?,
        None => std::fs::read(source).map_err(|e| format!("cannot read {source}: {e}"))?,
    };
    let index = usize::try_from(row.game_index).unwrap_or(usize::MAX);
    let sgf = Reader::new(&bytes)
        .nth(index)
        .ok_or_else(|| format!("{source} no longer holds game {index}"))?;
    let game = Game::from_sgf(&sgf, &bytes)
        .map_err(|r| format!("game {index} of {source} cannot be replayed: {r}"))?;
    let mut analyser =
        Analyser::new().use_record_result(row.dead_source.as_deref() == Some("settled_result"));
    let komi = row.komi.map_or(KomiPolicy::Game, KomiPolicy::Fixed);
    let a = analyser.analyse(&game, komi);
    let mismatches = RuleSet::ALL
        .iter()
        .zip(&a.verdicts)
        .enumerate()
        .filter(|(i, (_, v))| row.margin[*i].is_some_and(|m| m != v.margin))
        .map(|(_, (r, _))| r.id())
        .collect();
    let doubtful = match &a.settled {
        Some(facts) => facts
            .settlement
            .doubtful_chains()
            .flat_map(|c| verdict_rules::settle::chain_points(&a.position, c.anchor))
            .collect(),
        None => Vec::new(),
    };
    Ok(Drawn {
        size: game.size,
        states: analyser.counter().states().to_vec(),
        doubtful,
        mismatches,
    })
}

fn member_bytes(archive: &Path, member: &str) -> Result<Vec<u8>, String> {
    let kind = ArchiveKind::of_path(archive)
        .ok_or_else(|| format!("{} is not an archive verdict reads", archive.display()))?;
    let mut found = None;
    read_archive(
        archive,
        kind,
        MAX_MEMBER_BYTES,
        &mut |m| {
            if m.name == member {
                found = Some(m.bytes);
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        },
        &mut |_, _| {},
    )
    .map_err(|e| e.to_string())?;
    found.ok_or_else(|| format!("{} holds no member {member}", archive.display()))
}
