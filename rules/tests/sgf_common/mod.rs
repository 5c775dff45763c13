//! Shared by the SGF reader's integration tests: a canonical form of the
//! main line's stone properties, computed from our raw values with the same
//! value semantics as `sgf-parse`, so that a disagreement means the two
//! readers saw different *bytes* (structure, escapes, main line), not that
//! they read a point differently.
#![allow(dead_code)]

use std::collections::BTreeSet;

use sgf_parse::go::{Move, Prop};
use sgf_parse::SgfNode;
use verdict_rules::sgf::{Ident, SgfGame};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Canon {
    Move(Option<(u8, u8)>),
    Points(BTreeSet<(u8, u8)>),
    Invalid(Vec<String>),
}

pub type NodeCanon = Vec<(&'static str, Canon)>;

const IDENTS: [(&str, Ident); 5] = [
    ("B", Ident::B),
    ("W", Ident::W),
    ("AB", Ident::AB),
    ("AW", Ident::AW),
    ("AE", Ident::AE),
];

/// `sgf-parse` drops each backslash and keeps the byte after it (it has no
/// soft line breaks), and works on text decoded lossily from the file.
fn sgf_parse_unescape(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut escaped = false;
    for &c in raw {
        if c == b'\\' && !escaped {
            escaped = true;
        } else {
            escaped = false;
            out.push(c);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn point(s: &str) -> Option<(u8, u8)> {
    let c: Vec<char> = s.chars().collect();
    let coord = |c: char| {
        if c.is_ascii_lowercase() {
            Some(c as u8 - b'a')
        } else if c.is_ascii_uppercase() {
            Some(c as u8 - b'A' + 26)
        } else {
            None
        }
    };
    match c[..] {
        [a, b] => Some((coord(a)?, coord(b)?)),
        _ => None,
    }
}

fn point_list(values: &[String]) -> Option<BTreeSet<(u8, u8)>> {
    let mut set = BTreeSet::new();
    for v in values {
        if v.contains(':') {
            let parts: Vec<&str> = v.split(':').collect();
            let [a, b] = parts[..] else { return None };
            let (ul, lr) = (point(a)?, point(b)?);
            if ul.0 > lr.0 || ul.1 > lr.1 {
                return None;
            }
            for x in ul.0..=lr.0 {
                for y in ul.1..=lr.1 {
                    set.insert((x, y));
                }
            }
        } else {
            set.insert(point(v)?);
        }
    }
    (!set.is_empty()).then_some(set)
}

/// Our main line in canonical form.
pub fn ours(game: &SgfGame<'_>) -> Vec<NodeCanon> {
    (0..game.nodes.len())
        .map(|i| {
            let mut node = NodeCanon::new();
            for p in game.node_props(i) {
                let Some(&(name, _)) = IDENTS.iter().find(|(_, id)| *id == p.ident) else {
                    continue;
                };
                let values: Vec<String> = game
                    .prop_values(p)
                    .iter()
                    .map(|v| sgf_parse_unescape(v))
                    .collect();
                let canon = if name.len() == 1 {
                    match &values[..] {
                        [v] if v.is_empty() => Some(Canon::Move(None)),
                        [v] => point(v).map(|p| Canon::Move(Some(p))),
                        _ => None,
                    }
                } else {
                    point_list(&values).map(Canon::Points)
                };
                node.push((name, canon.unwrap_or(Canon::Invalid(values))));
            }
            node
        })
        .collect()
}

fn mv(m: &Move) -> Canon {
    match m {
        Move::Pass => Canon::Move(None),
        Move::Move(p) => Canon::Move(Some((p.x, p.y))),
    }
}

fn set(s: &std::collections::HashSet<sgf_parse::go::Point>) -> Canon {
    Canon::Points(s.iter().map(|p| (p.x, p.y)).collect())
}

/// `sgf-parse`'s main line (first child everywhere) in canonical form.
pub fn theirs(root: &SgfNode<Prop>) -> Vec<NodeCanon> {
    root.main_variation()
        .map(|n| {
            n.properties()
                .filter_map(|p| {
                    Some(match p {
                        Prop::B(m) => ("B", mv(m)),
                        Prop::W(m) => ("W", mv(m)),
                        Prop::AB(s) => ("AB", set(s)),
                        Prop::AW(s) => ("AW", set(s)),
                        Prop::AE(s) => ("AE", set(s)),
                        Prop::Invalid(id, v) => {
                            let &(name, _) = IDENTS.iter().find(|(n, _)| n == id)?;
                            (name, Canon::Invalid(v.clone()))
                        }
                        _ => return None,
                    })
                })
                .collect()
        })
        .collect()
}

/// Checks what must hold for any input: spans inside the input, increasing
/// and disjoint; ranges consistent; values inside their game's span.
pub fn check_sane(input: &[u8], games: &[SgfGame<'_>]) {
    let base = input.as_ptr() as usize;
    let mut last_end = 0;
    for g in games {
        assert!(g.span.start >= last_end, "spans overlap: {:?}", g.span);
        assert!(g.span.start < g.span.end && g.span.end <= input.len());
        last_end = g.span.end;
        let mut p_prev = 0;
        for n in &g.nodes {
            assert_eq!(n.props.start, p_prev);
            assert!(n.props.start <= n.props.end && n.props.end as usize <= g.props.len());
            p_prev = n.props.end;
        }
        assert_eq!(p_prev as usize, g.props.len());
        let mut v_prev = 0;
        for p in &g.props {
            assert!(!p.ident.is_empty());
            assert_eq!(p.values.start, v_prev);
            assert!(p.values.start < p.values.end && p.values.end as usize <= g.values.len());
            v_prev = p.values.end;
        }
        assert_eq!(v_prev as usize, g.values.len());
        for v in &g.values {
            let start = v.as_ptr() as usize - base;
            assert!(start >= g.span.start && start + v.len() <= g.span.end);
        }
        assert!(g.max_depth >= 1);
        assert!((g.variations as usize) < input.len());
    }
    assert!(games.len() <= input.len() / 2);
}
