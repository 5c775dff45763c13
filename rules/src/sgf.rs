//! A zero-copy, iterative SGF reader.
//!
//! Reads every game tree of a collection, keeps only the main line (the first
//! child at every branch) and counts the variations it skips. Property values
//! are slices of the input with escapes left in place; text is unescaped and
//! decoded only by those who need it (see [`crate::text`]). The reader never
//! recurses, so nesting depth costs nothing, and never fails: damage is
//! recovered from where possible and reported as [`Problem`]s on the game.
//!
//! Where the input is damaged the reader follows what real files need rather
//! than what the grammar says; see [`Reader`] for the exact recovery rules.

use std::ops::Range;

use thiserror::Error;

use crate::point::Point;
use crate::problem::{Problem, Problems};

/// A property identifier: its uppercase letters only, so that the `FF[3]` long
/// names reduce to the `FF[4]` ones (`AddBlack` is `AB`). Identifiers longer than
/// 8 uppercase letters keep their first 8.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ident {
    bytes: [u8; 8],
    len: u8,
}

impl Ident {
    /// Keeps the ASCII uppercase letters of `raw`, in order.
    pub const fn new(raw: &[u8]) -> Ident {
        let mut bytes = [0u8; 8];
        let mut len = 0usize;
        let mut i = 0;
        while i < raw.len() {
            let c = raw[i];
            if c.is_ascii_uppercase() && len < 8 {
                bytes[len] = c;
                len += 1;
            }
            i += 1;
        }
        Ident {
            bytes,
            len: len as u8,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub const B: Ident = Ident::new(b"B");
    pub const W: Ident = Ident::new(b"W");
    pub const AB: Ident = Ident::new(b"AB");
    pub const AW: Ident = Ident::new(b"AW");
    pub const AE: Ident = Ident::new(b"AE");
    pub const PL: Ident = Ident::new(b"PL");
    pub const SZ: Ident = Ident::new(b"SZ");
    pub const GM: Ident = Ident::new(b"GM");
    pub const FF: Ident = Ident::new(b"FF");
    pub const CA: Ident = Ident::new(b"CA");
    pub const KM: Ident = Ident::new(b"KM");
    pub const HA: Ident = Ident::new(b"HA");
    pub const RE: Ident = Ident::new(b"RE");
    pub const RU: Ident = Ident::new(b"RU");
    pub const PB: Ident = Ident::new(b"PB");
    pub const PW: Ident = Ident::new(b"PW");
    pub const BR: Ident = Ident::new(b"BR");
    pub const WR: Ident = Ident::new(b"WR");
    pub const DT: Ident = Ident::new(b"DT");
    pub const EV: Ident = Ident::new(b"EV");
    pub const PC: Ident = Ident::new(b"PC");
    pub const AP: Ident = Ident::new(b"AP");
    pub const GN: Ident = Ident::new(b"GN");
    pub const RO: Ident = Ident::new(b"RO");
    pub const TB: Ident = Ident::new(b"TB");
    /// verdict's 大解放 convention: the point a moving move lifts its stone from.
    pub const MF: Ident = Ident::new(b"MF");
    pub const TW: Ident = Ident::new(b"TW");
}

impl std::fmt::Debug for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(std::str::from_utf8(self.as_bytes()).unwrap_or("?"))
    }
}

/// One property of a node: its identifier and the range of its values in
/// [`SgfGame::values`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    pub ident: Ident,
    pub values: Range<u32>,
}

/// One node of the main line: the range of its properties in
/// [`SgfGame::props`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub props: Range<u32>,
}

/// The main line of one game tree, borrowed from the input bytes.
///
/// Flat vectors rather than a tree, so that a reader can be reused across
/// games without allocating (see [`Reader::next_into`]).
#[derive(Clone, Debug, Default)]
pub struct SgfGame<'a> {
    /// Main-line nodes in order; `nodes[0]` is the root.
    pub nodes: Vec<Node>,
    pub props: Vec<Property>,
    /// Raw value bytes between `[` and `]`, escapes kept.
    pub values: Vec<&'a [u8]>,
    /// Number of subtrees not on the main line.
    pub variations: u32,
    /// Deepest nesting of `(` seen in this tree.
    pub max_depth: u32,
    pub problems: Problems,
    /// Where the tree lies in the input.
    pub span: Range<usize>,
}

impl<'a> SgfGame<'a> {
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.props.clear();
        self.values.clear();
        self.variations = 0;
        self.max_depth = 0;
        self.problems = Problems::NONE;
        self.span = 0..0;
    }

    /// The properties of main-line node `node`.
    pub fn node_props(&self, node: usize) -> &[Property] {
        let r = &self.nodes[node].props;
        &self.props[r.start as usize..r.end as usize]
    }

    /// The raw values of a property.
    pub fn prop_values(&self, prop: &Property) -> &[&'a [u8]] {
        &self.values[prop.values.start as usize..prop.values.end as usize]
    }

    /// The values of the first property `ident` on node `node`.
    pub fn get(&self, node: usize, ident: Ident) -> Option<&[&'a [u8]]> {
        self.node_props(node)
            .iter()
            .find(|p| p.ident == ident)
            .map(|p| self.prop_values(p))
    }

    /// The first value of `ident` on the root node.
    pub fn root_value(&self, ident: Ident) -> Option<&'a [u8]> {
        if self.nodes.is_empty() {
            return None;
        }
        self.get(0, ident).and_then(|v| v.first().copied())
    }
}

/// SGF whitespace: the grammar allows it between any two tokens. Form feed and
/// vertical tab are included because old Windows editors wrote them.
#[inline]
const fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// A UTF-8 byte order mark is an encoding artefact, not garbage: skipping it
/// keeps files saved by Windows editors free of `LeadingGarbage`.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads the game trees of an SGF collection one at a time.
///
/// The reader keeps no tree: it walks the bytes once with an explicit depth
/// counter, so 340-level broadcast files cost the same as flat ones, and it
/// stores only the main line into a caller-owned [`SgfGame`] whose vectors are
/// reused from game to game.
///
/// # Main line and variations
/// The main line descends into the first `(` of every sequence. Until the
/// first `)` of a tree every `(` is such a first child, so the main line ends
/// exactly at the tree's first `)`; from there on the rest of the tree is
/// skipped (but still scanned, so that brackets inside values are honoured).
/// [`SgfGame::variations`] counts every `(` of the tree after that point, at
/// any depth: the number of subtrees not on the main line, nested ones
/// included. [`SgfGame::max_depth`] is the deepest `(` nesting of the tree,
/// the tree's own `(` being depth 1.
///
/// # Recovery
/// The reader never fails; it reports what it repaired:
/// * a game starts at `(` followed by whitespace (or more `(`) and `;`. Any
///   other text before the first game is skipped and flagged
///   [`Problem::LeadingGarbage`]; between or after games it is
///   [`Problem::StrayText`] (on the following game, or on the last game when
///   no game follows).
/// * a `;` outside any tree followed by an identifier and `[` starts a game
///   whose `(` is missing ([`Problem::MissingOpenParen`]); its implicit `(`
///   counts as depth 1, so a final `)` closes it.
/// * end of input inside a tree or value keeps what was read, the cut value
///   included, and flags [`Problem::Truncated`].
/// * NUL bytes are skipped ([`Problem::NulBytes`]); inside a value they are
///   kept in the raw slice (values are never copied) but still flagged.
/// * junk bytes, `;` right after a `)`, properties outside a node and a `)`
///   with no open tree are skipped as [`Problem::StrayText`] (before the
///   first game, everything skipped is [`Problem::LeadingGarbage`]).
/// * an identifier without `[`, a lowercase-only identifier, and values with
///   no identifier are dropped as [`Problem::BadProperty`].
///
/// Memory is linear in the input: at most one node, property and value per
/// byte. Ranges are `u32`, so a single input must stay below 4 GiB.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
    /// Problems seen between the previous game and the next start.
    pending: Problems,
    /// Where the next game starts, if already found (and whether its `(` is
    /// missing).
    next_start: Option<(usize, bool)>,
    games: u64,
}

impl<'a> Reader<'a> {
    pub fn new(input: &'a [u8]) -> Reader<'a> {
        let pos = if input.starts_with(BOM) { BOM.len() } else { 0 };
        Reader {
            input,
            pos,
            pending: Problems::NONE,
            next_start: None,
            games: 0,
        }
    }

    /// A reader that starts at `pos`, as if `games` game trees had been
    /// read before it. From the end of a tree (its [`SgfGame::span`] end)
    /// it gives exactly the games, problems and spans that reading the
    /// whole input gives from there on: a collection can be cut into byte
    /// ranges at tree ends and read a range at a time, on any thread.
    pub fn resume(input: &'a [u8], pos: usize, games: u64) -> Reader<'a> {
        Reader {
            input,
            pos: pos.min(input.len()),
            pending: Problems::NONE,
            next_start: None,
            games,
        }
    }

    /// Byte offset up to which the input has been consumed.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Reads the next game tree into `game`, which is cleared first; `false`
    /// (and `game` empty) when the input holds no further game. Once `game`'s
    /// vectors have grown to the largest game seen, this does not allocate.
    pub fn next_into(&mut self, game: &mut SgfGame<'a>) -> bool {
        game.clear();
        let start = match self.next_start.take() {
            Some(s) => s,
            None => match self.find_start() {
                Some(s) => s,
                None => return false,
            },
        };
        game.problems = std::mem::take(&mut self.pending);
        self.games += 1;
        self.read_tree(start, game);
        // Look ahead so that damage after the last game lands on that game
        // rather than vanishing with the `false` of the next call.
        match self.find_start() {
            Some(s) => self.next_start = Some(s),
            None => game.problems.extend(std::mem::take(&mut self.pending)),
        }
        true
    }

    fn garbage(&mut self) {
        self.pending.insert(if self.games == 0 {
            Problem::LeadingGarbage
        } else {
            Problem::StrayText
        });
    }

    /// Skips to the next game start, recording what it skipped in `pending`.
    fn find_start(&mut self) -> Option<(usize, bool)> {
        let b = self.input;
        let n = b.len();
        while self.pos < n {
            let c = b[self.pos];
            match c {
                b'(' => {
                    let mut j = self.pos + 1;
                    while j < n && (is_space(b[j]) || b[j] == b'(') {
                        j += 1;
                    }
                    if j < n && b[j] == b';' {
                        return Some((self.pos, false));
                    }
                    // Every `(` up to `j` fails on the same byte: skipping them
                    // all keeps `((((...` linear.
                    self.garbage();
                    self.pos = j;
                }
                b';' => {
                    let mut j = self.pos + 1;
                    while j < n && is_space(b[j]) {
                        j += 1;
                    }
                    let id = j;
                    while j < n && b[j].is_ascii_alphabetic() {
                        j += 1;
                    }
                    let has_ident = j > id;
                    while j < n && is_space(b[j]) {
                        j += 1;
                    }
                    if has_ident && j < n && b[j] == b'[' {
                        return Some((self.pos, true));
                    }
                    self.garbage();
                    self.pos += 1;
                }
                0 => {
                    self.pending.insert(Problem::NulBytes);
                    self.pos += 1;
                }
                b')' => {
                    self.garbage();
                    self.pos += 1;
                }
                c if is_space(c) => self.pos += 1,
                _ => {
                    self.garbage();
                    self.pos += 1;
                }
            }
        }
        None
    }

    /// Reads one tree starting at `start` (its `(`, or its `;` when
    /// `missing_paren`), leaving `self.pos` after its closing `)`.
    fn read_tree(&mut self, (start, missing_paren): (usize, bool), game: &mut SgfGame<'a>) {
        let b = self.input;
        let n = b.len();
        let mut pos = if missing_paren {
            game.problems.insert(Problem::MissingOpenParen);
            start
        } else {
            start + 1
        };
        // usize and saturating counters: no overflow panic whatever the input.
        let mut depth: usize = 1;
        game.max_depth = 1;
        // True until the tree's first `)`: see the type's documentation.
        let mut main = true;
        // Properties belong to a node only between its `;` and the next
        // `(` or `)`.
        let mut in_node = false;
        let mut after_close = false;
        let mut problems = game.problems;

        loop {
            let Some(&c) = b.get(pos) else {
                problems.insert(Problem::Truncated);
                break;
            };
            match c {
                b';' => {
                    pos += 1;
                    if after_close {
                        // A node after a subtree: not part of any line.
                        problems.insert(Problem::StrayText);
                        in_node = false;
                        continue;
                    }
                    in_node = true;
                    if main {
                        let p = game.props.len() as u32;
                        game.nodes.push(Node { props: p..p });
                    }
                }
                b'(' => {
                    pos += 1;
                    depth += 1;
                    let d = u32::try_from(depth).unwrap_or(u32::MAX);
                    game.max_depth = game.max_depth.max(d);
                    if !main {
                        game.variations = game.variations.saturating_add(1);
                    }
                    in_node = false;
                    after_close = false;
                }
                b')' => {
                    pos += 1;
                    depth -= 1;
                    main = false;
                    in_node = false;
                    after_close = true;
                    if depth == 0 {
                        break;
                    }
                }
                b'A'..=b'Z' | b'a'..=b'z' => {
                    // Fast path for the shape of nearly every node of a
                    // record, a move `B[dd]`: one letter, one two-byte value.
                    if let Some(&[_, b'[', x, y, b']']) = b.get(pos..pos + 5) {
                        let mut after = pos + 5;
                        while after < n && is_space(b[after]) {
                            after += 1;
                        }
                        if c.is_ascii_uppercase()
                            && main
                            && in_node
                            && !VALUE_STOP[x as usize]
                            && !VALUE_STOP[y as usize]
                            && b.get(after) != Some(&b'[')
                        {
                            let v = game.values.len() as u32;
                            game.values.push(&b[pos + 2..pos + 4]);
                            game.props.push(Property {
                                ident: Ident {
                                    bytes: [c, 0, 0, 0, 0, 0, 0, 0],
                                    len: 1,
                                },
                                values: v..v + 1,
                            });
                            pos = after;
                            continue;
                        }
                    }
                    let (ident, end) = scan_ident(b, pos);
                    pos = end;
                    while pos < n && is_space(b[pos]) {
                        pos += 1;
                    }
                    if pos >= n || b[pos] != b'[' {
                        problems.insert(Problem::BadProperty);
                        continue;
                    }
                    if main && in_node && !ident.is_empty() {
                        let v0 = game.values.len() as u32;
                        pos = read_values(b, pos, &mut game.values, &mut problems);
                        game.props.push(Property {
                            ident,
                            values: v0..game.values.len() as u32,
                        });
                    } else {
                        if ident.is_empty() {
                            problems.insert(Problem::BadProperty);
                        } else if !in_node {
                            problems.insert(Problem::StrayText);
                        }
                        pos = skip_values(b, pos, &mut problems);
                    }
                }
                b'[' => {
                    problems.insert(Problem::BadProperty);
                    pos = skip_values(b, pos, &mut problems);
                }
                0 => {
                    problems.insert(Problem::NulBytes);
                    pos += 1;
                }
                c if is_space(c) => pos += 1,
                _ => {
                    problems.insert(Problem::StrayText);
                    pos += 1;
                }
            }
        }
        // Properties only ever go to the last node, so each node's run ends
        // where the next one's starts: cheaper than updating it per property.
        let mut end = game.props.len() as u32;
        for node in game.nodes.iter_mut().rev() {
            node.props.end = end;
            end = node.props.start;
        }
        game.problems = problems;
        game.span = start..pos;
        self.pos = pos;
    }
}

/// Bytes that stop the scan of a value.
static VALUE_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b']' as usize] = true;
    t[b'\\' as usize] = true;
    t[0] = true;
    t
};

/// Reads an identifier (ASCII letters) starting at `pos`, keeping its
/// uppercase letters like [`Ident::new`] in the same pass; returns it and the
/// position after it.
#[inline]
fn scan_ident(b: &[u8], mut pos: usize) -> (Ident, usize) {
    let mut acc = 0u64;
    let mut len = 0u32;
    while let Some(&c) = b.get(pos) {
        if c.is_ascii_uppercase() {
            if len < 8 {
                acc |= u64::from(c) << (8 * len);
                len += 1;
            }
        } else if !c.is_ascii_lowercase() {
            break;
        }
        pos += 1;
    }
    let ident = Ident {
        bytes: acc.to_le_bytes(),
        len: len as u8,
    };
    (ident, pos)
}

/// Reads one value whose `[` is at `pos - 1`: returns its end (exclusive)
/// and the position after its `]`.
#[inline]
fn scan_value(b: &[u8], mut pos: usize, problems: &mut Problems) -> (usize, usize) {
    let n = b.len();
    loop {
        while pos < n && !VALUE_STOP[b[pos] as usize] {
            pos += 1;
        }
        match b.get(pos) {
            Some(b']') => return (pos, pos + 1),
            // Skip the escaped byte, whatever it is.
            Some(b'\\') => pos += 2,
            Some(_) => {
                problems.insert(Problem::NulBytes);
                pos += 1;
            }
            None => {
                // Cut by the end of input (possibly just after a `\`).
                problems.insert(Problem::Truncated);
                return (n, n);
            }
        }
    }
}

/// Reads the values starting at the `[` at `pos`, pushing them to `out`;
/// returns the position after the last value and the whitespace after it.
#[inline]
fn read_values<'a>(
    b: &'a [u8],
    mut pos: usize,
    out: &mut Vec<&'a [u8]>,
    problems: &mut Problems,
) -> usize {
    let n = b.len();
    while pos < n && b[pos] == b'[' {
        let start = pos + 1;
        let (end, next) = scan_value(b, start, problems);
        out.push(&b[start..end]);
        pos = next;
        while pos < n && is_space(b[pos]) {
            pos += 1;
        }
    }
    pos
}

/// [`read_values`] for values nobody keeps.
fn skip_values(b: &[u8], mut pos: usize, problems: &mut Problems) -> usize {
    let n = b.len();
    while pos < n && b[pos] == b'[' {
        pos = scan_value(b, pos + 1, problems).1;
        while pos < n && is_space(b[pos]) {
            pos += 1;
        }
    }
    pos
}

impl<'a> Iterator for Reader<'a> {
    type Item = SgfGame<'a>;

    /// Allocates a fresh game each time; use [`Reader::next_into`] on the hot
    /// path.
    fn next(&mut self) -> Option<SgfGame<'a>> {
        let mut game = SgfGame::default();
        self.next_into(&mut game).then_some(game)
    }
}

fn trim(raw: &[u8]) -> &[u8] {
    raw.trim_ascii()
}

/// Reads a point value (`dp`). Whitespace around it is tolerated because some
/// editors pad values; anything but two coordinate letters below
/// [`crate::MAX_SIZE`] is `None`, and deciding whether `tt` is a pass is the
/// caller's business (it depends on the board size).
pub fn parse_point(raw: &[u8]) -> Option<Point> {
    match trim(raw) {
        &[a, b] => Point::from_sgf([a, b]),
        _ => None,
    }
}

/// A point or point-list value that could not be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Error)]
#[error("malformed point or point rectangle")]
pub struct BadPoint;

/// Calls `f` on every point of one value of a point list: a single point
/// (`aa`) or a compressed rectangle (`aa:cc`, both corners inclusive). The
/// corners may come in any order because some editors write them
/// lower-right first; an empty value is an empty list (`FF[4]` `elist`).
///
/// # Errors
/// When the value is neither a point nor a rectangle of two points.
pub fn for_each_point(raw: &[u8], mut f: impl FnMut(Point)) -> Result<(), BadPoint> {
    let raw = trim(raw);
    if raw.is_empty() {
        return Ok(());
    }
    match raw.iter().position(|&c| c == b':') {
        None => {
            f(parse_point(raw).ok_or(BadPoint)?);
        }
        Some(colon) => {
            let a = parse_point(&raw[..colon]).ok_or(BadPoint)?;
            let b = parse_point(&raw[colon + 1..]).ok_or(BadPoint)?;
            let (x0, x1) = (a.x().min(b.x()), a.x().max(b.x()));
            let (y0, y1) = (a.y().min(b.y()), a.y().max(b.y()));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    // In range: both corners are valid points.
                    if let Some(p) = Point::new(x, y) {
                        f(p);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Reads an `SZ` value: `19`, or `19:13` as width:height (`FF[4]` non-square
/// boards). Range checks are [`crate::BoardSize`]'s job.
pub fn parse_size(raw: &[u8]) -> Option<(u32, u32)> {
    fn number(raw: &[u8]) -> Option<u32> {
        let raw = trim(raw);
        if raw.is_empty() || !raw.iter().all(u8::is_ascii_digit) {
            return None;
        }
        raw.iter().try_fold(0u32, |acc, &d| {
            acc.checked_mul(10)?.checked_add(u32::from(d - b'0'))
        })
    }
    let raw = trim(raw);
    match raw.iter().position(|&c| c == b':') {
        None => number(raw).map(|n| (n, n)),
        Some(colon) => Some((number(&raw[..colon])?, number(&raw[colon + 1..])?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8]) -> Vec<SgfGame<'_>> {
        Reader::new(input).collect()
    }

    fn one(input: &[u8]) -> SgfGame<'_> {
        let mut games = read(input);
        assert_eq!(games.len(), 1, "{:?}", String::from_utf8_lossy(input));
        games.pop().unwrap()
    }

    /// The main line's moves as `B:dd` strings.
    fn moves(game: &SgfGame<'_>) -> Vec<String> {
        let mut out = Vec::new();
        for i in 0..game.nodes.len() {
            for p in game.node_props(i) {
                if p.ident == Ident::B || p.ident == Ident::W {
                    let v = game.prop_values(p)[0];
                    out.push(format!("{:?}:{}", p.ident, String::from_utf8_lossy(v)));
                }
            }
        }
        out
    }

    fn problems(list: &[Problem]) -> Problems {
        list.iter().copied().collect()
    }

    /// Cut at any tree's end, a damaged collection reads on from there as
    /// it reads whole: same games, same spans, same problems.
    #[test]
    fn resuming_at_a_tree_end_reads_as_the_whole() {
        let input: &[u8] = b"junk(;SZ[9];B[aa])  stray ;W[bb] (;SZ[9];B[cc]) ) (;SZ[9];B[dd])\n\
            ((;SZ[9]PB[x];W[ee]))tail(;SZ[9];B[ff";
        let whole = read(input);
        assert_eq!(whole.len(), 5);
        assert!(whole.iter().any(|g| !g.problems.is_empty()));
        for k in 0..whole.len() {
            let cut = whole[k].span.end;
            let rest: Vec<SgfGame<'_>> = Reader::resume(input, cut, k as u64 + 1).collect();
            assert_eq!(rest.len(), whole.len() - k - 1, "cut after game {k}");
            for (a, b) in rest.iter().zip(&whole[k + 1..]) {
                assert_eq!(a.span, b.span, "cut after game {k}");
                assert_eq!(a.problems, b.problems, "cut after game {k}");
                assert_eq!(moves(a), moves(b), "cut after game {k}");
            }
        }
        assert_eq!(Reader::resume(input, input.len(), 9).count(), 0);
    }

    #[test]
    fn simple_game() {
        let input = b"(;GM[1]FF[4]SZ[19]KM[6.5]PB[Honinbo]\n;B[pd];W[dp]\n;B[];W[tt])";
        let g = one(input);
        assert_eq!(g.nodes.len(), 5);
        assert_eq!(g.root_value(Ident::SZ), Some(&b"19"[..]));
        assert_eq!(g.root_value(Ident::PB), Some(&b"Honinbo"[..]));
        assert_eq!(moves(&g), ["B:pd", "W:dp", "B:", "W:tt"]);
        assert_eq!(g.variations, 0);
        assert_eq!(g.max_depth, 1);
        assert!(g.problems.is_empty(), "{:?}", g.problems);
        assert_eq!(g.span, 0..input.len());
    }

    #[test]
    fn collection_of_three() {
        let input = b"(;GM[1];B[aa])\n(;GM[1];B[bb];W[cc])  (;GM[1])\n";
        let games = read(input);
        assert_eq!(games.len(), 3);
        assert_eq!(moves(&games[0]), ["B:aa"]);
        assert_eq!(moves(&games[1]), ["B:bb", "W:cc"]);
        assert_eq!(games[2].nodes.len(), 1);
        let mut last = 0;
        for g in &games {
            assert!(g.span.start >= last && g.span.end > g.span.start);
            assert_eq!(input[g.span.start], b'(');
            assert_eq!(input[g.span.end - 1], b')');
            last = g.span.end;
            assert!(g.problems.is_empty());
        }
    }

    #[test]
    fn variations_at_several_depths() {
        // Main line: root, B[aa], W[bb], B[cc], W[dd].
        // Skipped: (;W[xx](;B[yy])(;B[zz])) = 3 subtrees, (;B[qq]) = 1,
        // (;W[rr]) = 1.
        let input = b"(;GM[1];B[aa](;W[bb](;B[cc];W[dd])(;B[qq]))\
                      (;W[xx](;B[yy])(;B[zz]))(;W[rr]))";
        let g = one(input);
        assert_eq!(moves(&g), ["B:aa", "W:bb", "B:cc", "W:dd"]);
        assert_eq!(g.variations, 5);
        assert_eq!(g.max_depth, 3);
        assert!(g.problems.is_empty(), "{:?}", g.problems);
    }

    #[test]
    fn every_move_in_its_own_variation() {
        // Broadcast style: each move nested one level deeper.
        let input = b"(;GM[1](;B[aa](;W[bb](;B[cc])(;B[dd]))))";
        let g = one(input);
        assert_eq!(moves(&g), ["B:aa", "W:bb", "B:cc"]);
        assert_eq!(g.variations, 1);
        assert_eq!(g.max_depth, 4);
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let depth = 100_000;
        let mut input = b"(;GM[1]".to_vec();
        for i in 0..depth {
            input.extend_from_slice(if i % 2 == 0 { b"(;B[aa]" } else { b"(;W[bb]" });
        }
        input.extend(std::iter::repeat_n(b')', depth + 1));
        let g = one(&input);
        assert_eq!(g.nodes.len(), depth + 1);
        assert_eq!(g.max_depth as usize, depth + 1);
        assert!(g.problems.is_empty());

        let mut thousand = b"(;GM[1]".to_vec();
        for _ in 0..1000 {
            thousand.extend_from_slice(b"(;B[aa])(;W[bb]");
        }
        thousand.extend(std::iter::repeat_n(b')', 1001));
        let g = one(&thousand);
        // The first `(;B[aa])` is main line, then everything else is skipped.
        assert_eq!(moves(&g), ["B:aa"]);
        assert_eq!(g.max_depth, 1001);
        assert_eq!(g.variations, 1999);
    }

    #[test]
    fn long_names_and_multiple_values() {
        let g = one(b"(;GaMe[1]AddBlack[aa][bb]\n [cc]AddWhite[dd];Black[ee];White[ff])");
        assert_eq!(g.get(0, Ident::GM), Some(&[&b"1"[..]][..]));
        assert_eq!(g.get(0, Ident::AB).unwrap(), [&b"aa"[..], b"bb", b"cc"]);
        assert_eq!(g.get(0, Ident::AW).unwrap(), [&b"dd"[..]]);
        assert_eq!(moves(&g), ["B:ee", "W:ff"]);
        assert!(g.problems.is_empty());
    }

    #[test]
    fn escapes_are_kept_and_honoured() {
        let g = one(br"(;C[a\]b(;B[zz\])\\]GN[x\\];B[aa])");
        assert_eq!(
            g.root_value(Ident::new(b"C")),
            Some(&br"a\]b(;B[zz\])\\"[..])
        );
        assert_eq!(g.root_value(Ident::GN), Some(&br"x\\"[..]));
        assert_eq!(moves(&g), ["B:aa"]);
        assert_eq!(g.variations, 0);
        let mut out = Vec::new();
        crate::text::unescape_text(
            g.root_value(Ident::new(b"C")).unwrap(),
            encoding_rs::UTF_8,
            &mut out,
        );
        assert_eq!(out, br"a]b(;B[zz])\");
    }

    #[test]
    fn one_letter_multi_values() {
        // The move fast path must leave these to the general path.
        let g = one(b"(;B[aa] [bb];W[cc]\n[dd]C[x];B[e\\]];W[ff]XY[1])");
        assert_eq!(g.get(0, Ident::B).unwrap(), [&b"aa"[..], b"bb"]);
        assert_eq!(g.get(1, Ident::W).unwrap(), [&b"cc"[..], b"dd"]);
        assert_eq!(g.get(2, Ident::B).unwrap(), [&br"e\]"[..]]);
        assert_eq!(g.get(3, Ident::W).unwrap(), [&b"ff"[..]]);
        assert_eq!(g.get(3, Ident::new(b"XY")).unwrap(), [&b"1"[..]]);
        assert!(g.problems.is_empty());
    }

    #[test]
    fn crlf_whitespace() {
        let g = one(b"\r\n(\r\n;\r\nGM\r\n[1]\r\n\t;\r\nB [aa]\r\n)\r\n");
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(moves(&g), ["B:aa"]);
        assert!(g.problems.is_empty(), "{:?}", g.problems);
    }

    #[test]
    fn bom_is_not_garbage() {
        let g = one(b"\xEF\xBB\xBF(;GM[1];B[aa])");
        assert!(g.problems.is_empty());
        assert_eq!(g.span, 3..17);
    }

    #[test]
    fn leading_garbage() {
        let input = b"From: someone (see below)\nDate: (x)\n\n(;GM[1];B[aa])(;GM[1])";
        let games = read(input);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].problems, problems(&[Problem::LeadingGarbage]));
        assert_eq!(moves(&games[0]), ["B:aa"]);
        assert!(games[1].problems.is_empty());
        assert_eq!(&input[games[0].span.clone()], b"(;GM[1];B[aa])");
        // Junk between and after games is stray text.
        let games = read(b"(;GM[1]) junk (;GM[1]) more");
        assert!(games[0].problems.is_empty());
        assert_eq!(games[1].problems, problems(&[Problem::StrayText]));
    }

    #[test]
    fn missing_open_paren() {
        let g = one(b";GM[1]FF[4]  SZ[19];B[aa];W[bb])");
        assert_eq!(g.problems, problems(&[Problem::MissingOpenParen]));
        assert_eq!(moves(&g), ["B:aa", "W:bb"]);
        assert_eq!(g.root_value(Ident::SZ), Some(&b"19"[..]));

        let g = one(b";GM[1];B[aa](;W[bb])(;W[cc]))");
        assert_eq!(moves(&g), ["B:aa", "W:bb"]);
        assert_eq!(g.variations, 1);
        assert_eq!(g.problems, problems(&[Problem::MissingOpenParen]));

        let g = one(b";GM[1];B[aa]");
        assert_eq!(
            g.problems,
            problems(&[Problem::MissingOpenParen, Problem::Truncated])
        );
        assert_eq!(moves(&g), ["B:aa"]);
    }

    #[test]
    fn truncated_value_is_kept() {
        let g = one(b"(;GM[1]C[hello wor");
        assert_eq!(g.root_value(Ident::new(b"C")), Some(&b"hello wor"[..]));
        assert_eq!(g.problems, problems(&[Problem::Truncated]));
        let g = one(b"(;GM[1]C[ends with escape\\");
        assert_eq!(
            g.root_value(Ident::new(b"C")),
            Some(&b"ends with escape\\"[..])
        );
        assert!(g.problems.contains(Problem::Truncated));
    }

    #[test]
    fn truncated_at_every_offset() {
        let input: &[u8] = b"(;GM[1]FF[4]SZ[19]C[a\\]b];B[pd](;W[dp];B[pp])(;W[dd]))";
        let full = one(input);
        for cut in 0..=input.len() {
            let part = &input[..cut];
            let games = read(part);
            if cut < 2 {
                assert!(games.is_empty(), "cut {cut}");
                continue;
            }
            assert_eq!(games.len(), 1, "cut {cut}");
            let g = &games[0];
            assert!(g.span.end <= cut);
            assert_eq!(
                g.problems.contains(Problem::Truncated),
                cut < input.len(),
                "cut {cut}"
            );
            assert!(g.nodes.len() <= full.nodes.len());
            // What was read is a prefix of the full main line.
            let (m, fm) = (moves(g), moves(&full));
            assert!(m.len() <= fm.len());
            for (a, b) in m.iter().zip(&fm) {
                assert!(b.starts_with(a.as_str()), "cut {cut}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn nul_bytes() {
        assert!(read(&[0u8; 4096]).is_empty());
        let g = one(b"(;GM[1]\0\0;B[aa])\0\0\0\0");
        assert_eq!(g.problems, problems(&[Problem::NulBytes]));
        assert_eq!(moves(&g), ["B:aa"]);
        let g = one(b"\0\0(;GM[1];B[aa])");
        assert_eq!(g.problems, problems(&[Problem::NulBytes]));
    }

    #[test]
    fn stray_text_and_bad_properties() {
        let g = one(b"(;GM[1];;B[aa] 42 ;W[bb]))");
        // `;;` is an empty node, not damage; `42` is stray, and so is the
        // final `)` that closes nothing.
        assert_eq!(g.problems, problems(&[Problem::StrayText]));
        assert_eq!(moves(&g), ["B:aa", "W:bb"]);
        assert_eq!(g.nodes.len(), 4);

        let g = one(b"(;GM[1]XX;B[aa][zz]C;W[bb]xy[1])");
        assert_eq!(g.problems, problems(&[Problem::BadProperty]));
        assert_eq!(moves(&g), ["B:aa", "W:bb"]);
        assert_eq!(g.get(1, Ident::B).unwrap(), [&b"aa"[..], b"zz"]);

        let g = one(b"(;GM[1](;B[aa]);W[cc])");
        assert_eq!(g.problems, problems(&[Problem::StrayText]));
        assert_eq!(moves(&g), ["B:aa"]);

        let g = one(b"(;GM[1](B[aa];W[bb]))");
        assert_eq!(g.problems, problems(&[Problem::StrayText]));
        assert_eq!(moves(&g), ["W:bb"]);

        let g = one(b") ; (;GM[1])");
        assert_eq!(g.problems, problems(&[Problem::LeadingGarbage]));
        let games = read(b"(;GM[1]))(;GM[1])");
        assert_eq!(games[1].problems, problems(&[Problem::StrayText]));
    }

    #[test]
    fn reuse_does_not_allocate() {
        let input = b"(;GM[1];B[aa];W[bb];B[cc])(;GM[1];B[dd])(;GM[1];B[aa];W[bb];B[cc];W[dd])";
        let mut reader = Reader::new(input);
        let mut g = SgfGame::default();
        assert!(reader.next_into(&mut g));
        let caps = (g.nodes.capacity(), g.props.capacity(), g.values.capacity());
        let ptr = g.values.as_ptr();
        assert!(reader.next_into(&mut g));
        assert_eq!(moves(&g), ["B:dd"]);
        assert_eq!(
            caps,
            (g.nodes.capacity(), g.props.capacity(), g.values.capacity())
        );
        assert_eq!(ptr, g.values.as_ptr());
        assert!(reader.next_into(&mut g));
        assert!(!reader.next_into(&mut g));
        assert!(g.nodes.is_empty());
    }

    #[test]
    fn points() {
        assert_eq!(parse_point(b"dp"), Point::new(3, 15));
        assert_eq!(parse_point(b" dp\n"), Point::new(3, 15));
        assert_eq!(parse_point(b""), None);
        assert_eq!(parse_point(b"d"), None);
        assert_eq!(parse_point(b"dpp"), None);
        assert_eq!(parse_point(b"zz"), None);
        assert_eq!(parse_point(b"d5"), None);

        let collect = |raw: &[u8]| {
            let mut v = Vec::new();
            for_each_point(raw, |p| v.push(p.to_string())).map(|()| v)
        };
        assert_eq!(collect(b"aa").unwrap(), ["aa"]);
        assert_eq!(collect(b"").unwrap(), Vec::<String>::new());
        assert_eq!(
            collect(b"aa:bc").unwrap(),
            ["aa", "ba", "ab", "bb", "ac", "bc"]
        );
        assert_eq!(collect(b"bc:aa").unwrap(), collect(b"aa:bc").unwrap());
        assert_eq!(collect(b"ba:ab").unwrap(), collect(b"aa:bb").unwrap());
        assert_eq!(collect(b"cc:cc").unwrap(), ["cc"]);
        assert_eq!(collect(b"aa:"), Err(BadPoint));
        assert_eq!(collect(b"aa:b"), Err(BadPoint));
        assert_eq!(collect(b"a"), Err(BadPoint));
        assert_eq!(collect(b"aa:bb:cc"), Err(BadPoint));
    }

    #[test]
    fn text_unescaping() {
        let un = |raw: &[u8]| {
            let mut out = b"<".to_vec();
            crate::text::unescape_text(raw, encoding_rs::UTF_8, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(un(br"a\]b"), "<a]b");
        assert_eq!(un(br"a\\b"), r"<a\b");
        assert_eq!(un(br"a\:b\x"), "<a:bx");
        assert_eq!(un(b"soft\\\nbreak"), "<softbreak");
        assert_eq!(un(b"soft\\\r\nbreak"), "<softbreak");
        assert_eq!(un(b"soft\\\n\rbreak"), "<softbreak");
        assert_eq!(un(b"soft\\\rbreak"), "<softbreak");
        assert_eq!(un(b"two\\\n\nlines"), "<two\nlines");
        assert_eq!(un(b"hard\r\nbreak\n"), "<hard\r\nbreak\n");
        assert_eq!(un(b"tab\there\x0b"), "<tab here ");
        assert_eq!(un(b"trailing\\"), "<trailing");
        assert_eq!(un("中文\\]".as_bytes()), "<中文]");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size(b"19"), Some((19, 19)));
        assert_eq!(parse_size(b" 9 "), Some((9, 9)));
        assert_eq!(parse_size(b"19:13"), Some((19, 13)));
        assert_eq!(parse_size(b"19 : 13"), Some((19, 13)));
        assert_eq!(parse_size(b""), None);
        assert_eq!(parse_size(b"19x19"), None);
        assert_eq!(parse_size(b"-5"), None);
        assert_eq!(parse_size(b"19:"), None);
        assert_eq!(parse_size(b"99999999999"), None);
    }
}
