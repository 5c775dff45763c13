//! docs/schema.md is the public contract dashboards are written against:
//! its table of game-row columns must list exactly the columns the Parquet
//! writer emits ([`columns`]), in their order, with their types, and its
//! list of rule sets must be verdict's. A column added, moved, renamed or
//! retyped without its line in the document fails here.

use std::path::Path;

use verdict_corpus::columns::schema_table;
use verdict_corpus::row::{columns, Kind, SCHEMA_VERSION};
use verdict_corpus::summary::{summary_schema_table, Dimension};
use verdict_rules::replay::Legality;
use verdict_rules::score::RuleSet;

fn schema_md() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The table under a `## ` heading: each row's cells.
fn table(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let start = doc
        .find(&format!("## {heading}\n"))
        .unwrap_or_else(|| panic!("docs/schema.md has no section {heading:?}"));
    doc[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and its rule
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The backticked names in a cell.
fn names(cell: &str) -> Vec<String> {
    cell.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

fn kind(name: &str) -> Kind {
    match name {
        "string" => Kind::Str,
        "int64" => Kind::Int,
        "double" => Kind::Float,
        "boolean" => Kind::Bool,
        other => {
            panic!("docs/schema.md gives the type {other:?}: use string, int64, double or boolean")
        }
    }
}

/// The documented columns in order: placeholder rows expanded as the
/// writer expands them (`first_illegal_<family>` for every legality
/// family; a run of `<rule set>_...` rows for every rule set in turn).
fn documented() -> Vec<(String, Kind)> {
    let rows = table(&schema_md(), "Game rows");
    let mut out = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let (cell, ty) = (&rows[i][0], kind(&rows[i][1]));
        if cell.contains("<rule set>") {
            let mut group = Vec::new();
            while i < rows.len() && rows[i][0].contains("<rule set>") {
                group.push((names(&rows[i][0]), kind(&rows[i][1])));
                i += 1;
            }
            for r in RuleSet::ALL {
                for (ns, k) in &group {
                    for n in ns {
                        out.push((n.replace("<rule set>", r.id()), *k));
                    }
                }
            }
            continue;
        }
        for n in names(cell) {
            if n.contains("<family>") {
                for l in Legality::ALL {
                    out.push((n.replace("<family>", l.id()), ty));
                }
            } else {
                out.push((n, ty));
            }
        }
        i += 1;
    }
    out
}

#[test]
fn the_schema_document_lists_every_column_in_order_with_its_type() {
    let doc = documented();
    let code = columns();
    for (i, (d, c)) in doc.iter().zip(&code).enumerate() {
        assert_eq!(
            d, c,
            "column {i}: docs/schema.md says {d:?}, the writer {c:?}"
        );
    }
    assert_eq!(
        doc.len(),
        code.len(),
        "docs/schema.md lists {} columns, the writer emits {}",
        doc.len(),
        code.len()
    );
}

#[test]
fn the_schema_document_names_every_rule_set_and_legality_family() {
    let doc = schema_md();
    let line = doc
        .lines()
        .skip_while(|l| !l.starts_with("Rule sets:"))
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let listed: Vec<String> = names(line.split("Verdict,").next().unwrap_or_default());
    let ids: Vec<String> = RuleSet::ALL.iter().map(|r| r.id().to_string()).collect();
    assert_eq!(listed, ids, "the rule sets docs/schema.md lists");
    let families = table(&doc, "Game rows")
        .into_iter()
        .find(|r| r[0].contains("<family>"))
        .expect("a first_illegal_<family> row");
    for l in Legality::ALL {
        assert!(
            families[2].contains(&format!("`{}`", l.id())),
            "docs/schema.md's first_illegal row names the family {}",
            l.id()
        );
    }
}

/// The lines of the table under a `## ` heading, header included.
fn table_text(doc: &str, heading: &str) -> String {
    let start = doc
        .find(&format!("## {heading}\n"))
        .unwrap_or_else(|| panic!("docs/schema.md has no section {heading:?}"));
    let mut out = String::new();
    for l in doc[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
    {
        out.push_str(l);
        out.push('\n');
    }
    out
}

fn same_lines(doc: &str, registry: &str, what: &str) {
    for (i, (d, r)) in doc.lines().zip(registry.lines()).enumerate() {
        assert_eq!(
            d,
            r,
            "{what}, line {}: docs/schema.md differs from the registry",
            i + 1
        );
    }
    assert_eq!(
        doc.lines().count(),
        registry.lines().count(),
        "{what}: docs/schema.md has another number of lines than the registry:\n{registry}"
    );
}

/// Every line of the game-row table is the registry's: name, type and
/// meaning, word for word.
#[test]
fn the_game_row_table_is_the_registry_s() {
    same_lines(
        &table_text(&schema_md(), "Game rows"),
        &schema_table(),
        "game rows",
    );
}

#[test]
fn the_summary_table_is_the_registry_s() {
    let doc = schema_md();
    same_lines(
        &table_text(&doc, "Summary rows"),
        &summary_schema_table(),
        "summary rows",
    );
    let dims = table(&doc, "Summary rows")
        .into_iter()
        .find(|r| r[0] == "`dimension`")
        .expect("a dimension row");
    for d in Dimension::ALL {
        assert!(
            dims[2].contains(&format!("`{}`", d.as_str())),
            "docs/schema.md's dimension row names {}",
            d.as_str()
        );
    }
}

#[test]
fn the_schema_document_is_of_this_version() {
    assert!(schema_md().starts_with(&format!("# Output schema (version {SCHEMA_VERSION})")));
}
