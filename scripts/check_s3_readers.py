#!/usr/bin/env python3
"""An output published to object storage, read back from the bucket by
pyarrow and polars (DuckDB's httpfs extension is downloaded at run time and
cannot be here: scripts/check_parquet.py reads DuckDB from a local copy).

Starts moto in server mode, runs `verdict run INPUT --out s3://...`, then
reads the parts `_SUCCESS` lists straight from the bucket and checks that
both readers see the rows `_SUCCESS` and summary.json count.

    pip install 'moto[server]' pyarrow polars
    python3 scripts/check_s3_readers.py VERDICT INPUT
"""
import json
import os
import socket
import subprocess
import sys
import time

import polars as pl
import pyarrow.fs as pafs
import pyarrow.parquet as pq


def main(verdict: str, corpus: str) -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    endpoint = f"http://127.0.0.1:{port}"
    moto = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        key, secret = "readers", "readers-secret"
        env = dict(os.environ, AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=secret,
                   AWS_REGION="us-east-1", AWS_ENDPOINT_URL=endpoint, AWS_ALLOW_HTTP="true")
        fs = pafs.S3FileSystem(access_key=key, secret_key=secret, region="us-east-1",
                               endpoint_override=endpoint, scheme="http",
                               allow_bucket_creation=True)
        fs.create_dir("results")
        subprocess.run([verdict, "run", corpus, "--out", "s3://results/check", "--no-report"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        with fs.open_input_stream("results/check/_SUCCESS") as f:
            manifest = json.loads(f.read())
        with fs.open_input_stream("results/check/summary.json") as f:
            summary = json.loads(f.read())
        paths = [f"results/check/{p['path']}" for p in manifest["parts"]]
        arrow = sum(pq.read_table(p, filesystem=fs).num_rows for p in paths)
        assert arrow == manifest["games"] == summary["games"], (arrow, manifest["games"], summary["games"])
        options = {"aws_access_key_id": key, "aws_secret_access_key": secret,
                   "aws_region": "us-east-1", "aws_endpoint_url": endpoint, "aws_allow_http": "true"}
        frame = pl.read_parquet([f"s3://{p}" for p in paths], storage_options=options)
        assert frame.height == arrow, (frame.height, arrow)
        assert frame["game_hash"].n_unique() > 0
        print(f"s3 readers: pyarrow and polars read {arrow} rows in {len(paths)} parts from the bucket")
        return 0
    finally:
        moto.kill()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
