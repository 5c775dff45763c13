//! A zero-copy, iterative SGF reader.
//!
//! Reads every game tree of a collection, keeps only the main line (the first
//! child at every branch) and counts the variations it skips. Property values
//! are slices of the input with escapes left in place; text is unescaped and
//! decoded only by those who need it (see [`crate::text`]). The reader never
//! recurses, so nesting depth costs nothing, and never fails: damage is
//! recovered from where possible and reported as [`Problem`]s on the game.
//!
//! HELPER-OWNED: implementation to be written (see the types below, which are
//! the contract other modules rely on).

use std::ops::Range;

use crate::problem::Problems;

/// A property identifier: its uppercase letters only, so that the FF[3] long
/// names reduce to the FF[4] ones (`AddBlack` is `AB`). Identifiers longer than
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
