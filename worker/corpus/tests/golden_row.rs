//! The row of one hand-made record, every column in order with its type and
//! value, pinned by a golden file: a column moved, renamed, retyped or
//! computed differently shows here first (the Parquet schema is a public
//! contract). `VERDICT_BLESS=1 cargo test -p verdict-corpus --test
//! golden_row` rewrites the file after a deliberate change, which then
//! needs a schema version bump and a line in docs/schema.md.

use std::path::Path;

use verdict_corpus::row::{columns, Cell, GameRow, Kind};
use verdict_rules::analyse::{Analyser, KomiPolicy};
use verdict_rules::game::Game;
use verdict_rules::sgf::Reader;

/// 9x9: two walls, four columns of area each and the dame column between,
/// both pass, and a result the counts reproduce: enough to fill the
/// metadata, accounting, settling and verdict columns.
const RECORD: &[u8] = b"(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[0.5]RU[Chinese]RE[W+0.5]\
    PB[Black Player]PW[White Player]BR[3d]WR[2d]DT[2026-11-30]EV[Golden]\
    ;B[da];W[fa];B[db];W[fb];B[dc];W[fc];B[dd];W[fd];B[de];W[fe];B[df];W[ff];B[dg];W[fg];B[dh];W[fh];B[di];W[fi];B[];W[])";

fn render() -> String {
    let sgf = Reader::new(RECORD).next().expect("one tree");
    let game = Game::from_sgf(&sgf, RECORD).expect("a game");
    let mut analyser = Analyser::new();
    let row = GameRow::analysed(
        "golden.sgf",
        "tests",
        0,
        &game,
        &mut analyser,
        KomiPolicy::Game,
        false,
    );
    let cols = columns();
    let cells = row.cells();
    assert_eq!(cols.len(), cells.len(), "one cell per column");
    let mut out = String::new();
    for ((name, kind), cell) in cols.iter().zip(&cells) {
        let (k, v) = match (kind, cell) {
            (Kind::Str, Cell::Str(v)) => ("string", v.map(|s| format!("{s:?}"))),
            (Kind::Int, Cell::Int(v)) => ("int64", v.map(|x| x.to_string())),
            (Kind::Float, Cell::Float(v)) => ("double", v.map(|x| format!("{x:?}"))),
            (Kind::Bool, Cell::Bool(v)) => ("boolean", v.map(|x| x.to_string())),
            _ => panic!("{name}: the cell's type is not the column's ({kind:?}, {cell:?})"),
        };
        out.push_str(&format!(
            "{name}\t{k}\t{}\n",
            v.unwrap_or_else(|| "null".into())
        ));
    }
    out
}

#[test]
fn the_row_of_a_hand_made_record_is_pinned() {
    let got = render();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/row.tsv");
    if std::env::var_os("VERDICT_BLESS").is_some() {
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden)
        .expect("tests/golden/row.tsv (VERDICT_BLESS=1 cargo test -p verdict-corpus --test golden_row writes it)");
    for (k, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "column {} differs from tests/golden/row.tsv", k + 1);
    }
    assert_eq!(
        got.lines().count(),
        want.lines().count(),
        "the number of columns changed"
    );
    // What the golden row must say, so a careless bless cannot hide it.
    for line in [
        "status\tstring\t\"scored\"",
        "board_width\tint64\t9",
        "rules\tstring\t\"chinese\"",
        "chinese_margin_before_komi\tint64\t0",
        "chinese_winner\tstring\t\"W\"",
        "self_check_status\tstring\t\"agrees\"",
    ] {
        assert!(
            got.lines().any(|l| l == line),
            "the row says {line:?}:\n{got}"
        );
    }
}
