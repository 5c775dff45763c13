#!/usr/bin/env python3
"""Read a `verdict run` output folder back with pyarrow, DuckDB and polars.

Checks that the three readers see the same rows with the documented column
types, that every skipped row says why, that a DuckDB query of each
headline disagreement rate equals the one in summary.json, and that the
games folder read whole holds exactly the parts _SUCCESS lists.

    pip install pyarrow duckdb polars
    python3 scripts/check_parquet.py OUT_DIR
"""
import json
import math
import sys
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq


def main(out: Path) -> int:
    parts = sorted((out / "games").glob("part-*.parquet"))
    assert parts, f"no part files in {out / 'games'}"
    summary = json.loads((out / "summary.json").read_text())

    tables = [pq.read_table(p) for p in parts]
    for t, p in zip(tables, parts):
        meta = pq.read_metadata(p).metadata
        assert meta[b"verdict.schema_version"] == summary["schema_version"].encode(), meta
    arrow_rows = sum(t.num_rows for t in tables)
    schema = tables[0].schema
    for name in ["game_index", "jpd_a_margin_before_komi", "handicap", "year"]:
        assert str(schema.field(name).type) == "int64", (name, schema.field(name).type)
    for name in ["komi", "jpd_b_margin"]:
        assert str(schema.field(name).type) == "double", (name, schema.field(name).type)

    glob = str(out / "games" / "part-*.parquet")
    con = duckdb.connect()
    duck_rows = con.execute(f"select count(*) from read_parquet('{glob}')").fetchone()[0]
    polars_rows = pl.scan_parquet(glob).select(pl.len()).collect().item()
    assert arrow_rows == duck_rows == polars_rows == summary["games"], (arrow_rows, duck_rows, polars_rows)

    unexplained = con.execute(
        f"select count(*) from read_parquet('{glob}') where status = 'skipped' and skip_reason is null"
    ).fetchone()[0]
    assert unexplained == 0

    for comparison in ["jpd_a_vs_jpd_b", "jhz_a_vs_jpd_a", "jhz_b_vs_jpd_b"]:
        a, b = comparison.split("_vs_")
        n, k = con.execute(
            f"""select count(*), count(*) filter (where {a}_winner <> {b}_winner)
                from read_parquet('{glob}')
                where {a}_winner is not null and {b}_winner is not null"""
        ).fetchone()
        cell = next(
            c for c in summary["comparisons"] if c["comparison"] == comparison and c["dimension"] == "all"
        )
        assert (n, k) == (cell["scorable"], cell["disagreements"]), (comparison, n, k, cell)
        assert math.isclose(k / n if n else 0.0, cell["rate"]), (comparison, cell)
        print(f"{comparison}: {k}/{n} differ, as summary.json says")

    # The folder read whole, as dashboards do: only published parts are
    # there (a run in progress works in _staging/, which readers skip), and
    # _SUCCESS lists exactly them with their row counts.
    whole = pq.read_table(out / "games")
    assert whole.num_rows == arrow_rows, (whole.num_rows, arrow_rows)
    marker = json.loads((out / "_SUCCESS").read_text())
    listed = {p["path"]: p["rows"] for p in marker["parts"]}
    found = {f"games/{p.name}": pq.read_metadata(p).num_rows for p in parts}
    assert listed == found, (listed, found)
    assert marker["games"] == summary["games"], (marker["games"], summary["games"])

    s = pl.read_parquet(out / "summary.parquet")
    assert s.height == len(summary["comparisons"]), (s.height, len(summary["comparisons"]))
    print(f"ok: {arrow_rows} rows read alike by pyarrow, DuckDB and polars")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
