#!/usr/bin/env python3
"""The Kubernetes manifests' own commands, run on this machine.

No cluster can run here, so this does the kubelet's part by hand for every
overlay: each container's arguments are taken from the render of
`kubectl kustomize`, their $(VAR) references expanded from the container's
environment (its env values and the keys of its envFrom ConfigMaps and
Secrets) as the kubelet expands them, and the real `verdict` is run with
them and with that environment. Only these are rewritten, each named here:

- the volume mount points (/data and /var/lib/verdict become folders of a
  temporary directory);
- the coordinator's listen address (0.0.0.0:7070 becomes a free port on
  127.0.0.1, its metrics 127.0.0.1:0), the Service's name in
  VERDICT_COORDINATOR (the address it then listens on), and the workers
  get one analysis thread each (--threads 1 added);
- object storage only: AWS_ENDPOINT_URL from the ConfigMap (the
  placeholder https://s3.example.com) becomes a moto server this script
  starts on 127.0.0.1, with AWS_ALLOW_HTTP=true added (as the component
  says to for a plain http:// endpoint). The Secret's placeholder
  credentials are used as they are (moto accepts any), and so are the
  bucket and prefixes of VERDICT_INPUT, VERDICT_OUTPUT,
  VERDICT_SHARDS_OUTPUT and VERDICT_ALLOW_ROOT.

What runs:

- overlays/{shared-volume,object-storage}/shards: the Indexed Job's pod
  for every index K (JOB_COMPLETION_INDEX), then the merge Job's pod;
- overlays/{shared-volume,object-storage}: the coordinator's pod, two
  workers' pods, then the nightly CronJob's pod (`submit --wait`);

each over the same self-play corpus at VERDICT_INPUT (for object storage,
uploaded with boto3 into a bucket of moto's), and each output's
summary.json (read from the bucket for object storage) must equal
`verdict run`'s on the local corpus bar provenance, with as many games in
its _SUCCESS and in the parts it lists, each of which must be there. The
one difference allowed: the summary's `input` dimension names the input
as given, so an s3:// input's URL stands there for the local path, and
is mapped back before the comparison (that exact URL, nothing else).

Needs kubectl, PyYAML and `moto[server]` (moto_server and boto3).
Usage: run_k8s_commands.py VERDICT_BINARY.
"""

import base64
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_deploy  # noqa: E402


def find(docs, kind, name):
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


def pod_spec(doc):
    return check_deploy.pod_specs(doc)[0][1]


def environment(docs, container):
    """The container's environment, as the kubelet builds it."""
    env = {}
    by_name = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    for e in container.get("envFrom", []):
        if "configMapRef" in e:
            env.update(by_name[("ConfigMap", e["configMapRef"]["name"])].get("data", {}))
        if "secretRef" in e:
            sec = by_name[("Secret", e["secretRef"]["name"])]
            env.update({k: decode(v) for k, v in sec.get("data", {}).items()})
    for e in container.get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        elif "secretKeyRef" in e.get("valueFrom", {}):
            r = e["valueFrom"]["secretKeyRef"]
            env[e["name"]] = decode(by_name[("Secret", r["name"])]["data"][r["key"]]).strip()
    return env


def decode(b64):
    return base64.b64decode(b64).decode()


def expand(args, env):
    def one(arg):
        return re.sub(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), arg)

    return [one(a) for a in args]


def rewrite(args, mounts):
    """The mount points, in arguments, as the folders `mounts` maps them to."""
    out = []
    for a in args:
        for mount, folder in mounts.items():
            a = re.sub(rf"(^|=){re.escape(mount)}(?=/|$)", lambda m: m.group(1) + str(folder), a)
        out.append(a)
    return out


def mounts(root, overlay):
    """The pods' volumes as folders of `root`: /data (the shared volume
    verdict-data) is one for all overlays, /var/lib/verdict (the
    coordinator's state claim) one for each."""
    return {"/data": root / "data", "/var/lib/verdict": root / overlay.relative_to(check_deploy.K8S) / "state"}


class Volume:
    """The shared volume verdict-data, at /data in every pod."""

    def __init__(self, root):
        self.mounts = {"/data": root / "data"}

    def config(self, env):
        return env

    def read(self, where, name):
        """The file `name` of the output at `where` (as the pod names it)."""
        return (pathlib.Path(rewrite([where], self.mounts)[0]) / name).read_bytes()

    def exists(self, where, name):
        return (pathlib.Path(rewrite([where], self.mounts)[0]) / name).is_file()


class Bucket:
    """Object storage: moto's S3 at `endpoint`, as boto3 reads it."""

    def __init__(self, endpoint, s3):
        self.endpoint, self.s3 = endpoint, s3

    def config(self, env):
        return {**env, "AWS_ENDPOINT_URL": self.endpoint, "AWS_ALLOW_HTTP": "true"}

    @staticmethod
    def split(url, name):
        bucket, _, prefix = url.removeprefix("s3://").partition("/")
        return bucket, f"{prefix.rstrip('/')}/{name}" if prefix else name

    def read(self, url, name):
        bucket, key = self.split(url, name)
        return self.s3.get_object(Bucket=bucket, Key=key)["Body"].read()

    def exists(self, url, name):
        bucket, key = self.split(url, name)
        try:
            self.s3.head_object(Bucket=bucket, Key=key)
            return True
        except self.s3.exceptions.ClientError as e:
            if e.response["Error"]["Code"] in ("404", "NoSuchKey", "NotFound"):
                return False
            raise


def summary(data, inputs=None):
    """summary.json bar provenance; `inputs` maps input names to others."""
    s = json.loads(data)
    s.pop("provenance", None)
    for c in s.get("comparisons", []):
        if inputs and c.get("dimension") == "input":
            c["value"] = inputs.get(c["value"], c["value"])
    return s


def same_as_reference(store, out, ref, what, inputs=None):
    """The output at `out` (in `store`) is verdict run's at `ref`."""
    expected = summary((ref / "summary.json").read_bytes())
    if summary(store.read(out, "summary.json"), inputs) != expected:
        sys.exit(f"{what}: {out}/summary.json differs from verdict run's")
    marker = json.loads(store.read(out, "_SUCCESS"))
    if marker["games"] != expected["games"]:
        sys.exit(f"{what}: _SUCCESS counts {marker['games']} games, verdict run {expected['games']}")
    if sum(p["rows"] for p in marker["parts"]) != expected["games"]:
        sys.exit(f"{what}: the parts _SUCCESS lists hold {sum(p['rows'] for p in marker['parts'])} rows, not {expected['games']}")
    missing = [p["path"] for p in marker["parts"] if not store.exists(out, p["path"])]
    if missing:
        sys.exit(f"{what}: _SUCCESS lists parts that are not in {out}: {missing}")


def run(verdict, args, env, what):
    p = subprocess.run([verdict, *args], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"{what}: verdict {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shards(verdict, overlay, store, root, base_env, ref, inputs):
    """Every index of the Indexed Job, then the merge Job."""
    docs = check_deploy.render(overlay)
    at = mounts(root, overlay)
    job = find(docs, "Job", "verdict-shards")
    c = pod_spec(job)["containers"][0]
    env = store.config(environment(docs, c))
    n = job["spec"]["completions"]
    for k in range(n):
        penv = {**env, "JOB_COMPLETION_INDEX": str(k)}
        run(verdict, rewrite(expand(c["args"], penv), at), {**base_env, **penv}, f"{name(overlay)}: shard pod {k} of {n}")
    merge = find(docs, "Job", "verdict-merge")
    m = pod_spec(merge)["containers"][0]
    menv = store.config(environment(docs, m))
    run(verdict, rewrite(expand(m["args"], menv), at), {**base_env, **menv}, f"{name(overlay)}: merge pod")
    same_as_reference(store, env["VERDICT_SHARDS_OUTPUT"], ref, f"{name(overlay)}: static shards", inputs)
    return n


def service(verdict, overlay, store, root, base_env, ref, inputs):
    """The coordinator, two workers, then the nightly CronJob's submit."""
    docs = check_deploy.render(overlay)
    at = mounts(root, overlay)
    logs = at["/var/lib/verdict"].parent
    sts = find(docs, "StatefulSet", "verdict-coordinator")
    c = pod_spec(sts)["containers"][0]
    env = store.config(environment(docs, c))
    port = free_port()
    args = [a.replace("0.0.0.0:7070", f"127.0.0.1:{port}").replace("0.0.0.0:9090", "127.0.0.1:0") for a in c["args"]]
    args = rewrite(expand(args, env), at)
    at["/var/lib/verdict"].mkdir(parents=True)
    procs = []
    try:
        coordinator = subprocess.Popen(
            [verdict, *args], env={**base_env, **env}, stdout=subprocess.PIPE, stderr=open(logs / "serve.log", "w"), text=True
        )
        procs.append(coordinator)
        line = coordinator.stdout.readline()
        if not line.startswith("verdict: listening on "):
            sys.exit(f"{name(overlay)}: the coordinator's pod did not start: {line!r}\n{(logs / 'serve.log').read_text()}")
        url = f"http://{line.split()[-1]}"
        deployment = find(docs, "Deployment", "verdict-worker")
        w = pod_spec(deployment)["containers"][0]
        wenv = store.config(environment(docs, w))
        wenv["VERDICT_COORDINATOR"] = url
        for i in range(2):
            procs.append(
                subprocess.Popen(
                    [verdict, *rewrite(expand(w["args"], wenv), at), "--threads", "1"],
                    env={**base_env, **wenv},
                    stderr=open(logs / f"worker-{i}.log", "w"),
                )
            )
        cron = find(docs, "CronJob", "verdict-nightly")
        s = pod_spec(cron)["containers"][0]
        senv = store.config(environment(docs, s))
        senv["VERDICT_COORDINATOR"] = url
        run(verdict, rewrite(expand(s["args"], senv), at), {**base_env, **senv}, f"{name(overlay)}: the nightly submit pod")
        same_as_reference(store, senv["VERDICT_OUTPUT"], ref, f"{name(overlay)}: the nightly job", inputs)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def name(overlay):
    return str(overlay.relative_to(check_deploy.K8S))


def done(text, since):
    print(f"  {text} ({time.monotonic() - since:.1f} s)", flush=True)
    return time.monotonic()


def moto(root):
    """A moto server on a free port of 127.0.0.1, and its endpoint."""
    port = free_port()
    server = subprocess.Popen(
        ["moto_server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=open(root / "moto.log", "w"),
    )
    for _ in range(300):
        if server.poll() is not None:
            sys.exit(f"moto_server exited {server.returncode}:\n{(root / 'moto.log').read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    server.kill()
    sys.exit("moto_server did not start within 30 s")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: run_k8s_commands.py VERDICT_BINARY")
    verdict = os.path.abspath(sys.argv[1])
    overlays = check_deploy.K8S / "overlays"
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        base_env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp}

        # The corpus where the shared-volume overlays have VERDICT_INPUT,
        # and verdict run's output on it: what every pod's output must be.
        docs = check_deploy.render(overlays / "shared-volume" / "shards")
        env = environment(docs, pod_spec(find(docs, "Job", "verdict-shards"))["containers"][0])
        corpus = pathlib.Path(rewrite([env["VERDICT_INPUT"]], Volume(root).mounts)[0])
        run(verdict, ["synth", "--games", "300", "--out", str(corpus)], base_env, "synth")
        ref = root / "reference"
        run(verdict, ["run", str(corpus), "--out", str(ref), "--no-report"], base_env, "verdict run")

        t = done("the corpus and verdict run's output on it", started)
        volume = Volume(root)
        n = shards(verdict, overlays / "shared-volume" / "shards", volume, root, base_env, ref, None)
        t = done(f"overlays/shared-volume/shards: {n} shard pods and the merge pod, as the kubelet would run them: verdict run's summary", t)
        service(verdict, overlays / "shared-volume", volume, root, base_env, ref, None)
        t = done("overlays/shared-volume: the coordinator's, two workers' and the nightly submit's pods: verdict run's summary", t)

        # Object storage: the same corpus uploaded to VERDICT_INPUT in moto.
        import boto3

        server, endpoint = moto(root)
        try:
            docs = check_deploy.render(overlays / "object-storage" / "shards")
            env = environment(docs, pod_spec(find(docs, "Job", "verdict-shards"))["containers"][0])
            s3 = boto3.client(
                "s3",
                endpoint_url=endpoint,
                region_name=env["AWS_REGION"],
                aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
                aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
            )
            url = env["VERDICT_INPUT"]
            bucket, key = Bucket.split(url, "")
            s3.create_bucket(Bucket=bucket)
            for f in sorted(corpus.rglob("*")):
                if f.is_file():
                    s3.upload_file(str(f), bucket, key + str(f.relative_to(corpus)))
            # The `input` dimension names the input root as given, its
            # trailing slash left out.
            inputs = {url.rstrip("/"): str(corpus)}
            bucket_store = Bucket(endpoint, s3)
            t = done(f"moto at {endpoint}, the corpus uploaded to {url}", t)
            n = shards(verdict, overlays / "object-storage" / "shards", bucket_store, root, base_env, ref, inputs)
            t = done(f"overlays/object-storage/shards: {n} shard pods and the merge pod, into moto's bucket {bucket}: verdict run's summary", t)
            service(verdict, overlays / "object-storage", bucket_store, root, base_env, ref, inputs)
            t = done(f"overlays/object-storage: the coordinator's, two workers' and the nightly submit's pods, over moto's bucket {bucket}: verdict run's summary", t)
        finally:
            server.kill()
            server.wait()
    print(f"run_k8s_commands: 4 overlays' pods run, {time.monotonic() - started:.0f} s in all")


if __name__ == "__main__":
    main()
