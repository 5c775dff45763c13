//! Machine-readable problems found while reading and replaying a record.
//!
//! Real corpora are full of damage. verdict never stops at the first fault:
//! each layer (reader, game builder, replay) adds what it saw to a
//! [`Problems`] set and carries on, so a row can say exactly what was wrong.

/// One kind of fault. The snake_case names from [`Problem::as_str`] are a public
/// contract: they appear in JSON reports and Parquet columns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[non_exhaustive]
pub enum Problem {
    // --- the SGF reader ---
    /// Bytes other than whitespace before the first game tree.
    LeadingGarbage,
    /// A game started with `;` where `(` was expected.
    MissingOpenParen,
    /// Input ended inside a game tree or a property value.
    Truncated,
    /// Bytes that belong to no property, node or tree, skipped.
    StrayText,
    /// A property identifier without a value, or a value without an identifier.
    BadProperty,
    /// NUL bytes inside the game (files padded or overwritten with zeros).
    NulBytes,
    // --- building the game ---
    /// A move or setup point that is malformed or off the board.
    BadCoordinate,
    /// No `SZ` property: 19x19 assumed.
    MissingSize,
    /// `AB`/`AW`/`AE` after the first move: applied, and flagged.
    MidGameSetup,
    /// A node with more than one move (`B` and `W` together): the first is used.
    MultipleMoves,
    /// `KM` that could not be read as a number.
    BadKomi,
    /// `RE` that could not be read as a result.
    BadResult,
    // --- replay ---
    /// Two moves in a row by one colour: read as a pass by the other side.
    OutOfTurn,
    /// A move on an occupied point: recorded and skipped.
    Occupied,
    /// A move that left its own chain without liberties.
    Suicide,
    /// A move that retook a ko at once (illegal under simple ko).
    Ko,
    /// A move that repeated an earlier whole-board position.
    Superko,
    /// Setup left a chain without liberties (removed).
    SetupNoLiberty,
    // --- 大解放 records (RULES.md section 6) ---
    /// `MF` without `RU[Dajiefang]`: read as the variant all the same.
    VariantInferred,
    /// `MF` that is not a point of the board (or stands on a node without a
    /// move): the move is skipped.
    BadMoveFrom,
    /// `MF` names a point without a stone of the mover: the move is skipped.
    NotOwnStone,
    /// A 大解放 move whose intermediate or final position (stones beside
    /// the board included) repeats an earlier one.
    Repetition,
    /// Moves after four consecutive 虚着 had ended the game.
    PlayAfterEnd,
}

impl Problem {
    pub const ALL: [Problem; 23] = [
        Problem::LeadingGarbage,
        Problem::MissingOpenParen,
        Problem::Truncated,
        Problem::StrayText,
        Problem::BadProperty,
        Problem::NulBytes,
        Problem::BadCoordinate,
        Problem::MissingSize,
        Problem::MidGameSetup,
        Problem::MultipleMoves,
        Problem::BadKomi,
        Problem::BadResult,
        Problem::OutOfTurn,
        Problem::Occupied,
        Problem::Suicide,
        Problem::Ko,
        Problem::Superko,
        Problem::SetupNoLiberty,
        Problem::VariantInferred,
        Problem::BadMoveFrom,
        Problem::NotOwnStone,
        Problem::Repetition,
        Problem::PlayAfterEnd,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Problem::LeadingGarbage => "leading_garbage",
            Problem::MissingOpenParen => "missing_open_paren",
            Problem::Truncated => "truncated",
            Problem::StrayText => "stray_text",
            Problem::BadProperty => "bad_property",
            Problem::NulBytes => "nul_bytes",
            Problem::BadCoordinate => "bad_coordinate",
            Problem::MissingSize => "missing_size",
            Problem::MidGameSetup => "mid_game_setup",
            Problem::MultipleMoves => "multiple_moves",
            Problem::BadKomi => "bad_komi",
            Problem::BadResult => "bad_result",
            Problem::OutOfTurn => "out_of_turn",
            Problem::Occupied => "occupied",
            Problem::Suicide => "suicide",
            Problem::Ko => "ko",
            Problem::Superko => "superko",
            Problem::SetupNoLiberty => "setup_no_liberty",
            Problem::VariantInferred => "variant_inferred",
            Problem::BadMoveFrom => "bad_move_from",
            Problem::NotOwnStone => "not_own_stone",
            Problem::Repetition => "repetition",
            Problem::PlayAfterEnd => "play_after_end",
        }
    }

    /// Whether the problem makes the record dubious as a game (as opposed to a
    /// note about its formatting, such as a missing `SZ`, or a 大解放 record
    /// that does not say so in `RU`).
    pub const fn is_informational(self) -> bool {
        matches!(self, Problem::MissingSize | Problem::VariantInferred)
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of [`Problem`]s, one bit each: `Copy`, allocation-free.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Problems(u32);

impl Problems {
    pub const NONE: Problems = Problems(0);

    pub fn insert(&mut self, p: Problem) {
        self.0 |= 1 << p as u32;
    }

    pub const fn contains(self, p: Problem) -> bool {
        self.0 & (1 << p as u32) != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[must_use]
    pub const fn union(self, other: Problems) -> Problems {
        Problems(self.0 | other.0)
    }

    pub fn extend(&mut self, other: Problems) {
        self.0 |= other.0;
    }

    pub fn iter(self) -> impl Iterator<Item = Problem> {
        Problem::ALL.into_iter().filter(move |p| self.contains(*p))
    }

    pub const fn bits(self) -> u32 {
        self.0
    }
}

impl FromIterator<Problem> for Problems {
    fn from_iter<I: IntoIterator<Item = Problem>>(iter: I) -> Self {
        let mut set = Problems::NONE;
        for p in iter {
            set.insert(p);
        }
        set
    }
}

impl std::fmt::Debug for Problems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_bits_fit() {
        let mut names: Vec<_> = Problem::ALL.iter().map(|p| p.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Problem::ALL.len());
        assert!(Problem::ALL.len() <= 32);
    }

    #[test]
    fn set_holds_what_was_inserted() {
        let set: Problems = [Problem::Truncated, Problem::Superko].into_iter().collect();
        assert!(set.contains(Problem::Truncated));
        assert!(!set.contains(Problem::Ko));
        assert_eq!(set.iter().count(), 2);
        assert_eq!(format!("{set:?}"), "{Truncated, Superko}");
    }
}
