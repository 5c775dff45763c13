#!/usr/bin/env python3
"""What reading a corpus from object storage costs: `verdict run` over the
same corpus from files and from a local S3-compatible server (moto, started
here), alternating, several times; prints the medians and the overhead.

    python3 scripts/bench_s3.py CORPUS [--verdict target/release/verdict] [--runs 3] [--s3s-fs BIN]

The server is moto (`pip install 'moto[server]'`, Python: about 2 ms of CPU
per request) or, with --s3s-fs, the Rust s3s-fs (`cargo install s3s-fs
--version 0.14.1 --features binary`). It runs on the same machine, so its
CPU is part of the wall time measured; the user and system CPU of verdict
itself are printed too. The corpus is uploaded once (not timed); each run
writes to a local folder, so only the reading differs.

With --pin the server gets the machine's last core to itself and verdict
(from files and from S3 alike) the others, `-j` as many: the store off the
analysis cores, as a real object store is. What is left is what reading
from a store costs verdict itself (requests, waiting, copies), not the
server's CPU taken from the analysis.
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--verdict", default="target/release/verdict")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--s3s-fs", help="use this s3s-fs binary instead of moto_server")
    ap.add_argument("--pin", action="store_true",
                    help="the server on the last core, verdict on the others (-j as many)")
    args = ap.parse_args()
    server_cpus, verdict_cpus = None, None
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            sys.exit("--pin needs two cores at least")
        server_cpus, verdict_cpus = {cpus[-1]}, set(cpus[:-1])
        args.threads = str(len(verdict_cpus))

    def pinned(cpus):
        return None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))

    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    root = os.path.abspath(args.corpus)
    store = tempfile.TemporaryDirectory()
    if args.s3s_fs:
        import shutil
        shutil.copytree(root, os.path.join(store.name, "bench", "corpus"))
        server = subprocess.Popen([args.s3s_fs, "--host", "127.0.0.1", "--port", str(port),
                                   "--access-key", "bench", "--secret-key", "bench-secret", store.name],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  preexec_fn=pinned(server_cpus))
    else:
        server = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  preexec_fn=pinned(server_cpus))
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        env = dict(os.environ, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench-secret",
                   AWS_REGION="us-east-1", AWS_ENDPOINT_URL=endpoint, AWS_ALLOW_HTTP="true")
        n, size = 0, 0
        if not args.s3s_fs:
            import boto3
            s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="bench",
                              aws_secret_access_key="bench-secret", region_name="us-east-1")
            s3.create_bucket(Bucket="bench")
        for dirpath, _, files in os.walk(root):
            for f in files:
                p = os.path.join(dirpath, f)
                if not args.s3s_fs:
                    s3.upload_file(p, "bench", "corpus/" + os.path.relpath(p, root))
                n += 1
                size += os.path.getsize(p)
        print(f"uploaded {n} objects, {size / 1e6:.1f} MB", file=sys.stderr)
        times = {"files": [], "s3": []}
        cpu = {"files": [], "s3": []}
        with tempfile.TemporaryDirectory() as out:
            for i in range(args.runs):
                for name, src in [("files", root), ("s3", "s3://bench/corpus")]:
                    before = os.times()
                    t = time.perf_counter()
                    r = subprocess.run([args.verdict, "run", src, "--out", os.path.join(out, name),
                                        "--no-report", "-j", args.threads, "--json"],
                                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       preexec_fn=pinned(verdict_cpus))
                    dt = time.perf_counter() - t
                    after = os.times()
                    used = (after.children_user - before.children_user) + (after.children_system - before.children_system)
                    if r.returncode not in (0, 2):
                        sys.exit(f"{name}: exit {r.returncode}: {r.stderr.decode()[-2000:]}")
                    times[name].append(dt)
                    cpu[name].append(used)
                    print(f"run {i + 1} {name}: {dt:.2f} s wall, {used:.2f} s CPU of verdict", file=sys.stderr)
        f, o = statistics.median(times["files"]), statistics.median(times["s3"])
        cf, co = statistics.median(cpu["files"]), statistics.median(cpu["s3"])
        server_name = "s3s-fs" if args.s3s_fs else "moto"
        where = "on its own core" if args.pin else "on the same cores"
        print(f"{n} objects, {size / 1e6:.1f} MB, {server_name} {where}, -j {args.threads}, medians of {args.runs}:")
        print(f"  wall: files {f:.2f} s, s3 {o:.2f} s: {100 * (o - f) / f:+.1f}%")
        print(f"  verdict's CPU: files {cf:.2f} s, s3 {co:.2f} s: {100 * (co - cf) / cf:+.1f}%")
    finally:
        server.kill()
        store.cleanup()


if __name__ == "__main__":
    main()
