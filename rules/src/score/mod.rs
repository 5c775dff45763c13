//! Scoring a settled position under every rule set of RULES.md section 4.
//!
//! [`Counter::count`] turns a final position and its dead stones into
//! [`Counts`]; [`verdict`] combines counts, the replay's accounting, komi and
//! handicap into one [`Verdict`] per [`RuleSet`]. The formulas live in one
//! place, [`RuleSet::margin_before_komi`], so that each can be read against
//! the specification line by line.

mod count;
pub mod methods;
mod position;

pub use count::{Counter, Counts, PointState};
pub(crate) use position::neighbours;
pub use position::{DiagramError, Position};

use crate::{ByColor, Color};

/// A way of counting a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleSet {
    /// 计枰点 唐宋 (A edition): area, the side that placed more stones pays.
    JpdA,
    /// 计枰点 明清 (B edition): plain area counting.
    JpdB,
    /// 计活子 唐宋 (A): living stones, basic eyes not counted, extra stones paid.
    JhzA,
    /// 计活子 明清 (B): living stones, basic eyes not counted.
    JhzB,
    Chinese,
    Japanese,
    Korean,
    Aga,
    Ing,
    NewZealand,
    TrompTaylor,
}

impl RuleSet {
    pub const ALL: [RuleSet; 11] = [
        RuleSet::JpdA,
        RuleSet::JpdB,
        RuleSet::JhzA,
        RuleSet::JhzB,
        RuleSet::Chinese,
        RuleSet::Japanese,
        RuleSet::Korean,
        RuleSet::Aga,
        RuleSet::Ing,
        RuleSet::NewZealand,
        RuleSet::TrompTaylor,
    ];

    /// Stable identifier used in JSON and Parquet column names.
    pub const fn id(self) -> &'static str {
        match self {
            RuleSet::JpdA => "jpd_a",
            RuleSet::JpdB => "jpd_b",
            RuleSet::JhzA => "jhz_a",
            RuleSet::JhzB => "jhz_b",
            RuleSet::Chinese => "chinese",
            RuleSet::Japanese => "japanese",
            RuleSet::Korean => "korean",
            RuleSet::Aga => "aga",
            RuleSet::Ing => "ing",
            RuleSet::NewZealand => "nz",
            RuleSet::TrompTaylor => "tromp_taylor",
        }
    }

    pub fn from_id(id: &str) -> Option<RuleSet> {
        RuleSet::ALL.into_iter().find(|r| r.id() == id)
    }

    /// The handicap bonus to White for `stones` handicap stones (0: even game).
    /// Chinese and Ing give one point per stone, AGA one less, territory
    /// counting and the A editions none (their handicap stones are placed
    /// stones, already charged). `jpd_b`/`jhz_b` follow the Chinese value.
    pub const fn handicap_bonus(self, stones: u8) -> i64 {
        if stones < 2 {
            return 0;
        }
        match self {
            RuleSet::JpdB
            | RuleSet::JhzB
            | RuleSet::Chinese
            | RuleSet::Ing
            | RuleSet::NewZealand => stones as i64,
            RuleSet::Aga => stones as i64 - 1,
            RuleSet::JpdA
            | RuleSet::JhzA
            | RuleSet::Japanese
            | RuleSet::Korean
            | RuleSet::TrompTaylor => 0,
        }
    }

    /// The margin (> 0: Black wins) of a count of `margin_before_komi`
    /// under this rule set at `komi` with `handicap_stones`: komi and the
    /// rule set's handicap bonus both go to White. The one place komi
    /// touches a margin, whatever komi a caller re-scores at.
    pub fn margin(self, margin_before_komi: i64, komi: f64, handicap_stones: u8) -> f64 {
        after_komi(
            margin_before_komi,
            komi,
            self.handicap_bonus(handicap_stones),
        )
    }

    /// Black minus White before komi and handicap bonus: RULES.md section 4.
    ///
    /// `placed` is `N_X` (stones placed up to the first stop, setup included),
    /// `prisoners` is `P_X` (captures during play plus dead stones removed).
    /// Owned points that must still be filled cost their owner one point under
    /// the counts that charge placed stones or count territory (`jpd_a`,
    /// `jhz_a`, Japanese, Korean): filling is one more stone placed.
    pub fn margin_before_komi(
        self,
        c: &Counts,
        placed: ByColor<u32>,
        prisoners: ByColor<u32>,
    ) -> i64 {
        let b = Color::Black;
        let w = Color::White;
        let area = c.area_difference();
        let diff = |x: &ByColor<u32>| i64::from(x[b]) - i64::from(x[w]);
        let extra_stones = diff(&placed) + diff(&c.fills);
        let eyes = diff(&c.basic_eyes);
        match self {
            RuleSet::JpdB
            | RuleSet::Chinese
            | RuleSet::Ing
            | RuleSet::Aga
            | RuleSet::NewZealand => area,
            RuleSet::JpdA => area - extra_stones,
            RuleSet::JhzB => area - eyes,
            RuleSet::JhzA => area - eyes - extra_stones,
            RuleSet::Japanese | RuleSet::Korean => {
                let side = |x: Color| {
                    i64::from(c.territory[x]) - i64::from(c.seki_eyes[x]) - i64::from(c.fills[x])
                        + i64::from(prisoners[x])
                };
                side(b) - side(w)
            }
            RuleSet::TrompTaylor => i64::from(c.raw_area[b]) - i64::from(c.raw_area[w]),
        }
    }
}

impl std::fmt::Display for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Who a margin says won.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Winner {
    Black,
    White,
    Draw,
}

impl Winner {
    pub fn of_margin(margin: f64) -> Winner {
        if margin > 0.0 {
            Winner::Black
        } else if margin < 0.0 {
            Winner::White
        } else {
            Winner::Draw
        }
    }

    /// `B`, `W` or `draw`, as JSON and Parquet write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Winner::Black => "B",
            Winner::White => "W",
            Winner::Draw => "draw",
        }
    }
}

/// What the scorer needs besides the counted position.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Terms {
    /// `N_X`: stones placed up to the first stop, setup stones included.
    pub placed: ByColor<u32>,
    /// Stones each colour captured during play.
    pub captures: ByColor<u32>,
    /// Handicap stones (0 in an even game).
    pub handicap: u8,
    /// Komi in points.
    pub komi: f64,
}

/// One rule set's count of one game.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Verdict {
    pub rule_set: RuleSet,
    /// Black minus White from the board and the accounting alone.
    pub margin_before_komi: i64,
    pub komi: f64,
    /// Points given to White for the handicap under this rule set.
    pub handicap_bonus: i64,
    /// `margin_before_komi - komi - handicap_bonus`: > 0 Black wins.
    pub margin: f64,
    pub winner: Winner,
}

impl Verdict {
    /// The margin this count gives at another komi (the handicap bonus
    /// stays): what the record's own komi makes of a game scored at the
    /// job's.
    pub fn margin_at(&self, komi: f64) -> f64 {
        after_komi(self.margin_before_komi, komi, self.handicap_bonus)
    }
}

/// `margin_before_komi - komi - handicap_bonus`.
fn after_komi(margin_before_komi: i64, komi: f64, handicap_bonus: i64) -> f64 {
    margin_before_komi as f64 - komi - handicap_bonus as f64
}

/// Scores `counts` under `rule_set`.
pub fn verdict(rule_set: RuleSet, counts: &Counts, terms: &Terms) -> Verdict {
    let prisoners = ByColor::new(
        terms.captures.black + counts.dead.white,
        terms.captures.white + counts.dead.black,
    );
    let before = rule_set.margin_before_komi(counts, terms.placed, prisoners);
    let bonus = rule_set.handicap_bonus(terms.handicap);
    let margin = after_komi(before, terms.komi, bonus);
    Verdict {
        rule_set,
        margin_before_komi: before,
        komi: terms.komi,
        handicap_bonus: bonus,
        margin,
        winner: Winner::of_margin(margin),
    }
}

/// Scores `counts` under every rule set, in [`RuleSet::ALL`] order.
pub fn verdicts(counts: &Counts, terms: &Terms) -> [Verdict; 11] {
    RuleSet::ALL.map(|r| verdict(r, counts, terms))
}

#[cfg(test)]
mod tests;
