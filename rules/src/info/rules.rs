//! Rules (`RU`): the families verdict knows and KataGo's rule strings.

use std::fmt;

use encoding_rs::Encoding;

use super::lex::normalise;
use crate::text;

/// The rule family a record names. Closed: what verdict can score under or
/// compare with.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rules {
    Japanese,
    Chinese,
    Korean,
    Aga,
    NewZealand,
    /// Ing / GOE.
    Ing,
    TrompTaylor,
    #[default]
    Unknown,
}

impl Rules {
    pub const ALL: [Rules; 8] = [
        Rules::Japanese,
        Rules::Chinese,
        Rules::Korean,
        Rules::Aga,
        Rules::NewZealand,
        Rules::Ing,
        Rules::TrompTaylor,
        Rules::Unknown,
    ];

    /// A stable snake_case id (a public contract, like [`Problem::as_str`](crate::problem::Problem::as_str)).
    pub const fn as_str(self) -> &'static str {
        match self {
            Rules::Japanese => "japanese",
            Rules::Chinese => "chinese",
            Rules::Korean => "korean",
            Rules::Aga => "aga",
            Rules::NewZealand => "new_zealand",
            Rules::Ing => "ing",
            Rules::TrompTaylor => "tromp_taylor",
            Rules::Unknown => "unknown",
        }
    }

    /// Reads a raw `RU` value, decoding it with `enc` first if it is not
    /// ASCII (`中国规则`).
    pub fn from_raw(raw: &[u8], enc: &'static Encoding) -> (Rules, Option<KataGoRules>) {
        Rules::parse(&text::decode_text(raw, enc))
    }

    /// The family `text` names, case-insensitively and in common spellings,
    /// and the KataGo rules if `text` is KataGo's compact form (then the
    /// family is the closest one, see [`KataGoRules::family`]).
    pub fn parse(text: &str) -> (Rules, Option<KataGoRules>) {
        let lower = normalise(text.trim()).to_lowercase();
        if let Some(k) = KataGoRules::parse(&lower) {
            return (k.family(), Some(k));
        }
        let key: String = lower
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_' | '.' | '\'' | '(' | ')' | '/' | ','))
            .collect();
        let exact = match key.as_str() {
            "jp" | "jpn" | "ja" => Some(Rules::Japanese),
            "cn" | "chn" | "zh" => Some(Rules::Chinese),
            "kr" | "kor" => Some(Rules::Korean),
            "aga" | "bga" => Some(Rules::Aga),
            "nz" | "nzga" => Some(Rules::NewZealand),
            "goe" | "ing" | "ings" | "sst" | "ingsst" | "ingrules" => Some(Rules::Ing),
            "tt" | "tromp" => Some(Rules::TrompTaylor),
            _ => None,
        };
        if let Some(r) = exact {
            return (r, None);
        }
        const CONTAINS: [(&str, Rules); 24] = [
            ("zealand", Rules::NewZealand),
            ("tromp", Rules::TrompTaylor),
            ("japan", Rules::Japanese),
            ("nihon", Rules::Japanese),
            ("日本", Rules::Japanese),
            ("일본", Rules::Japanese),
            ("chin", Rules::Chinese),
            ("中国", Rules::Chinese),
            ("中國", Rules::Chinese),
            ("중국", Rules::Chinese),
            ("korea", Rules::Korean),
            ("韩国", Rules::Korean),
            ("韓国", Rules::Korean),
            ("韓國", Rules::Korean),
            ("한국", Rules::Korean),
            ("american", Rules::Aga),
            ("british", Rules::Aga),
            ("应氏", Rules::Ing),
            ("應氏", Rules::Ing),
            ("ingrule", Rules::Ing),
            ("ingsst", Rules::Ing),
            ("ingsrule", Rules::Ing),
            ("ingcount", Rules::Ing),
            ("goerule", Rules::Ing),
        ];
        let family = CONTAINS
            .iter()
            .find(|(needle, _)| key.contains(needle))
            .map_or(Rules::Unknown, |&(_, r)| r);
        (family, None)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// KataGo's ko rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum KataGoKoRule {
    Simple,
    Positional,
    Situational,
    Spight,
}

/// KataGo's scoring rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScoringRule {
    Area,
    Territory,
}

/// KataGo's tax rule: which points of living groups are not counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TaxRule {
    None,
    /// Seki eyes (Japanese).
    Seki,
    /// Two points per group (ancient stone counting, 计活子).
    All,
}

/// KataGo's white handicap bonus: what White gets per handicap stone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HandicapBonus {
    Zero,
    N,
    NMinusOne,
}

/// Rules in KataGo's compact form (`koPOSITIONALscoreAREAtaxNONEsui1`).
/// Absent keys take KataGo's defaults, which are Tromp-Taylor's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct KataGoRules {
    pub ko: KataGoKoRule,
    pub scoring: ScoringRule,
    pub tax: TaxRule,
    /// Multi-stone suicide allowed.
    pub suicide: bool,
    pub button: bool,
    pub white_handicap_bonus: HandicapBonus,
}

impl KataGoRules {
    /// Parses the compact form (lowercase). Needs at least the `ko` and
    /// `score` keys; unknown trailing keys (`fpok`, `komi`, `startPos`...) are
    /// ignored.
    fn parse(lower: &str) -> Option<KataGoRules> {
        if !lower.starts_with("ko") {
            return None;
        }
        let mut r = KataGoRules {
            ko: KataGoKoRule::Positional,
            scoring: ScoringRule::Area,
            tax: TaxRule::None,
            suicide: true,
            button: false,
            white_handicap_bonus: HandicapBonus::Zero,
        };
        let (mut seen_ko, mut seen_score) = (false, false);
        let mut rest = lower;
        fn take<T: Copy>(rest: &mut &str, options: &[(&str, T)]) -> Option<T> {
            let &(word, value) = options.iter().find(|(w, _)| rest.starts_with(w))?;
            *rest = &rest[word.len()..];
            Some(value)
        }
        const BOOL: [(&str, bool); 4] =
            [("1", true), ("0", false), ("true", true), ("false", false)];
        while !rest.is_empty() {
            if let Some(r2) = rest.strip_prefix("ko") {
                rest = r2;
                r.ko = take(
                    &mut rest,
                    &[
                        ("simple", KataGoKoRule::Simple),
                        ("positional", KataGoKoRule::Positional),
                        ("situational", KataGoKoRule::Situational),
                        ("spight", KataGoKoRule::Spight),
                    ],
                )?;
                seen_ko = true;
            } else if let Some(r2) = rest.strip_prefix("score") {
                rest = r2;
                r.scoring = take(
                    &mut rest,
                    &[
                        ("area", ScoringRule::Area),
                        ("territory", ScoringRule::Territory),
                    ],
                )?;
                seen_score = true;
            } else if let Some(r2) = rest.strip_prefix("tax") {
                rest = r2;
                r.tax = take(
                    &mut rest,
                    &[
                        ("none", TaxRule::None),
                        ("seki", TaxRule::Seki),
                        ("all", TaxRule::All),
                    ],
                )?;
            } else if let Some(r2) = rest.strip_prefix("sui") {
                rest = r2;
                r.suicide = take(&mut rest, &BOOL)?;
            } else if let Some(r2) = rest.strip_prefix("button") {
                rest = r2;
                r.button = take(&mut rest, &BOOL)?;
            } else if let Some(r2) = rest.strip_prefix("whb") {
                rest = r2;
                r.white_handicap_bonus = take(
                    &mut rest,
                    &[
                        ("n-1", HandicapBonus::NMinusOne),
                        ("n", HandicapBonus::N),
                        ("0", HandicapBonus::Zero),
                    ],
                )?;
            } else {
                break;
            }
        }
        (seen_ko && seen_score).then_some(r)
    }

    /// The closest family:
    ///
    /// | KataGo | family |
    /// |---|---|
    /// | territory scoring | Japanese (Korean is the same rule set) |
    /// | area, multi-stone suicide, situational ko | New Zealand |
    /// | area, multi-stone suicide, other ko | Tromp-Taylor |
    /// | area, no suicide, situational ko, button or `whbN-1` | AGA |
    /// | area, no suicide, otherwise | Chinese |
    ///
    /// `taxALL` (stone counting) has no family of its own; it follows the
    /// table (area) and the tax stays visible in the struct.
    pub fn family(&self) -> Rules {
        match (self.scoring, self.suicide) {
            (ScoringRule::Territory, _) => Rules::Japanese,
            (ScoringRule::Area, true) if self.ko == KataGoKoRule::Situational => Rules::NewZealand,
            (ScoringRule::Area, true) => Rules::TrompTaylor,
            (ScoringRule::Area, false)
                if self.ko == KataGoKoRule::Situational
                    || self.button
                    || self.white_handicap_bonus == HandicapBonus::NMinusOne =>
            {
                Rules::Aga
            }
            (ScoringRule::Area, false) => Rules::Chinese,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_spellings() {
        let cases: &[(&str, Rules)] = &[
            ("Japanese", Rules::Japanese),
            ("jp", Rules::Japanese),
            ("JAPANESE", Rules::Japanese),
            ("日本规则", Rules::Japanese),
            ("日本ルール", Rules::Japanese),
            ("Chinese", Rules::Chinese),
            ("cn", Rules::Chinese),
            ("中国规则", Rules::Chinese),
            ("Korean", Rules::Korean),
            ("AGA", Rules::Aga),
            ("NZ", Rules::NewZealand),
            ("New Zealand", Rules::NewZealand),
            ("GOE", Rules::Ing),
            ("Ing", Rules::Ing),
            ("Tromp-Taylor", Rules::TrompTaylor),
            ("tromp_taylor", Rules::TrompTaylor),
            ("", Rules::Unknown),
            ("whatever", Rules::Unknown),
        ];
        for (text, want) in cases {
            assert_eq!(Rules::parse(text), (*want, None), "{text}");
        }
        let names: std::collections::HashSet<_> = Rules::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names.len(), Rules::ALL.len());
    }

    #[test]
    fn katago_rules() {
        let (family, k) = Rules::parse("koPOSITIONALscoreAREAtaxNONEsui1");
        assert_eq!(family, Rules::TrompTaylor);
        let k = k.unwrap();
        assert_eq!(
            (k.ko, k.scoring, k.tax, k.suicide),
            (
                KataGoKoRule::Positional,
                ScoringRule::Area,
                TaxRule::None,
                true
            )
        );
        let (family, k) = Rules::parse("koSIMPLEscoreTERRITORYtaxSEKIsui0");
        assert_eq!(family, Rules::Japanese);
        assert_eq!(k.unwrap().tax, TaxRule::Seki);
        assert_eq!(
            Rules::parse("koSITUATIONALscoreAREAtaxNONEsui1").0,
            Rules::NewZealand
        );
        assert_eq!(
            Rules::parse("koSITUATIONALscoreAREAtaxNONEsui0whbN-1").0,
            Rules::Aga
        );
        let (family, k) = Rules::parse("koSIMPLEscoreAREAtaxNONEsui0whbNfpok1komi7.5");
        assert_eq!(family, Rules::Chinese);
        assert_eq!(k.unwrap().white_handicap_bonus, HandicapBonus::N);
        assert_eq!(Rules::parse("koBOGUSscoreAREA"), (Rules::Unknown, None));
    }
}
