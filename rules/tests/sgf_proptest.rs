//! Property tests of the SGF reader: generated records read back exactly
//! (and as `sgf-parse` reads them), and damaged input of any kind never
//! panics, hangs or yields inconsistent games.

mod sgf_common;

use proptest::prelude::*;
use sgf_common::{check_sane, ours, theirs};
use verdict_rules::sgf::{Ident, Reader, SgfGame};

#[derive(Clone, Debug)]
struct GenNode {
    props: Vec<(&'static str, Vec<String>)>,
}

#[derive(Clone, Debug)]
struct GenTree {
    nodes: Vec<GenNode>,
    children: Vec<GenTree>,
}

fn escape(raw: &str) -> String {
    let mut s = String::new();
    for c in raw.chars() {
        if c == ']' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-s]{2}",
        1 => Just(String::new()),
        1 => "[a-s]{2}:[a-s]{2}",
        1 => "[A-Za-z]{1,3}",
        2 => "[a-z ();\\[\\]\\\\\n]{0,10}".prop_map(|s| escape(&s)),
    ]
}

fn prop() -> impl Strategy<Value = (&'static str, Vec<String>)> {
    let ident = prop::sample::select(vec![
        "B", "W", "AB", "AW", "AE", "C", "N", "AddBlack", "AddWhite", "Black", "W",
    ]);
    (ident, prop::collection::vec(value(), 1..4))
}

fn node() -> impl Strategy<Value = GenNode> {
    prop::collection::vec(prop(), 0..4).prop_map(|props| GenNode { props })
}

fn tree() -> impl Strategy<Value = GenTree> {
    let leaf = prop::collection::vec(node(), 1..4).prop_map(|nodes| GenTree {
        nodes,
        children: vec![],
    });
    leaf.prop_recursive(6, 48, 3, |inner| {
        (
            prop::collection::vec(node(), 1..4),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(nodes, children)| GenTree { nodes, children })
    })
}

fn write(t: &GenTree, spaced: bool, out: &mut String) {
    // Iterative, like the reader, so deep generated trees cannot overflow.
    enum Step<'t> {
        Open(&'t GenTree),
        Close,
    }
    let mut stack = vec![Step::Open(t)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Close => out.push(')'),
            Step::Open(t) => {
                out.push('(');
                for n in &t.nodes {
                    out.push(';');
                    for (id, vals) in &n.props {
                        out.push_str(id);
                        for v in vals {
                            out.push('[');
                            out.push_str(v);
                            out.push(']');
                            if spaced {
                                out.push_str("\r\n ");
                            }
                        }
                    }
                    if spaced {
                        out.push('\n');
                    }
                }
                stack.push(Step::Close);
                for c in t.children.iter().rev() {
                    stack.push(Step::Open(c));
                }
            }
        }
    }
}

/// The main line as (ident, raw values), the variation count and the depth,
/// from the model.
type MainLine = Vec<Vec<(String, Vec<String>)>>;
fn expected(t: &GenTree) -> (MainLine, u32, u32) {
    fn subtrees(t: &GenTree) -> (u32, u32) {
        // (count, depth) without recursion.
        let mut count = 0;
        let mut depth = 0;
        let mut stack = vec![(t, 1u32)];
        while let Some((t, d)) = stack.pop() {
            count += 1;
            depth = depth.max(d);
            stack.extend(t.children.iter().map(|c| (c, d + 1)));
        }
        (count, depth)
    }
    let (all, max_depth) = subtrees(t);
    let mut line = MainLine::new();
    let mut on_main = 0;
    let mut cur = Some(t);
    while let Some(t) = cur {
        on_main += 1;
        for n in &t.nodes {
            line.push(
                n.props
                    .iter()
                    .map(|(id, v)| {
                        let id = String::from_utf8(Ident::new(id.as_bytes()).as_bytes().to_vec());
                        (id.unwrap(), v.clone())
                    })
                    .collect(),
            );
        }
        cur = t.children.first();
    }
    (line, all - on_main, max_depth)
}

fn main_line(g: &SgfGame<'_>) -> MainLine {
    (0..g.nodes.len())
        .map(|i| {
            g.node_props(i)
                .iter()
                .map(|p| {
                    let id = String::from_utf8(p.ident.as_bytes().to_vec()).unwrap();
                    let vals = g
                        .prop_values(p)
                        .iter()
                        .map(|v| String::from_utf8(v.to_vec()).unwrap())
                        .collect();
                    (id, vals)
                })
                .collect()
        })
        .collect()
}

fn read_all(input: &[u8]) -> Vec<SgfGame<'_>> {
    let mut reader = Reader::new(input);
    let mut games = Vec::new();
    let mut g = SgfGame::default();
    while reader.next_into(&mut g) {
        games.push(g.clone());
        assert!(games.len() <= input.len(), "reader does not terminate");
    }
    // Exhausted stays exhausted.
    assert!(!reader.next_into(&mut g));
    games
}

fn record() -> impl Strategy<Value = (Vec<GenTree>, bool)> {
    (prop::collection::vec(tree(), 1..4), any::<bool>())
}

fn serialize(trees: &[GenTree], spaced: bool) -> String {
    let mut s = String::new();
    for t in trees {
        write(t, spaced, &mut s);
        if spaced {
            s.push('\n');
        }
    }
    s
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, u8),
    Delete(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let special = prop::sample::select(b"()[]\\;\0 Bx:".to_vec());
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), special).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Delete),
    ]
}

fn mutate(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let n = bytes.len().max(1);
        match *m {
            Mutation::Flip(i, b) => {
                if let Some(c) = bytes.get_mut(i % n) {
                    *c ^= b | 1;
                }
            }
            Mutation::Truncate(i) => bytes.truncate(i % n),
            Mutation::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
            Mutation::Delete(i) => {
                if !bytes.is_empty() {
                    bytes.remove(i % n);
                }
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_records_read_back((trees, spaced) in record()) {
        let text = serialize(&trees, spaced);
        let games = read_all(text.as_bytes());
        check_sane(text.as_bytes(), &games);
        prop_assert_eq!(games.len(), trees.len());
        for (g, t) in games.iter().zip(&trees) {
            let (line, variations, depth) = expected(t);
            prop_assert!(g.problems.is_empty(), "{:?}", g.problems);
            prop_assert_eq!(main_line(g), line);
            prop_assert_eq!(g.variations, variations);
            prop_assert_eq!(g.max_depth, depth);
        }
    }

    #[test]
    fn generated_records_agree_with_sgf_parse((trees, spaced) in record()) {
        let text = serialize(&trees, spaced);
        let games = read_all(text.as_bytes());
        let parsed = sgf_parse::go::parse(&text).expect("sgf-parse reads valid records");
        prop_assert_eq!(parsed.len(), games.len());
        for (g, root) in games.iter().zip(&parsed) {
            prop_assert_eq!(ours(g), theirs(root));
        }
    }

    #[test]
    fn mutated_records_are_sane(
        (trees, spaced) in record(),
        muts in prop::collection::vec(mutation(), 1..6),
    ) {
        let text = serialize(&trees, spaced);
        let bytes = mutate(text.into_bytes(), &muts);
        check_sane(&bytes, &read_all(&bytes));
    }

    #[test]
    fn arbitrary_bytes_are_sane(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        check_sane(&bytes, &read_all(&bytes));
    }

    #[test]
    fn sgf_alphabet_soup_is_sane(
        bytes in prop::collection::vec(prop::sample::select(b"(();;[]]\\ \nABWaw\0:x".to_vec()), 0..2000)
    ) {
        check_sane(&bytes, &read_all(&bytes));
    }
}
