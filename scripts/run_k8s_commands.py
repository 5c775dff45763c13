#!/usr/bin/env python3
"""The Kubernetes manifests' own commands, run on this machine.

No cluster can run here, so this does the kubelet's part by hand for the
shared-volume overlays: each container's arguments are taken from the
render of `kubectl kustomize`, their $(VAR) references expanded from the
container's environment (its env values and the keys of its envFrom
ConfigMaps and Secrets) as the kubelet expands them, and the real
`verdict` is run with them. Only these are rewritten, each named here:
the volume mount points (/data and /var/lib/verdict become folders of a
temporary directory), the coordinator's listen address (0.0.0.0:7070
becomes a free port on 127.0.0.1), the Service's name in
VERDICT_COORDINATOR (the address it then listens on), and the workers
get one analysis thread each (--threads 1 added).

- overlays/shared-volume/shards: the Indexed Job's pod for every index K
  (JOB_COMPLETION_INDEX), then the merge Job's pod;
- overlays/shared-volume: the coordinator's pod, two workers' pods, then
  the nightly CronJob's pod (`submit --wait`);

each over the same self-play corpus at VERDICT_INPUT, and each output's
summary must equal `verdict run`'s on it (bar provenance), with as many
games in its _SUCCESS. Usage: run_k8s_commands.py VERDICT_BINARY.
"""

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile

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
    import base64

    return base64.b64decode(b64).decode()


def expand(args, env):
    def one(arg):
        return re.sub(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), arg)

    return [one(a) for a in args]


def rewrite(args, root):
    """The mount points, in arguments, as folders of `root`."""
    out = []
    for a in args:
        for mount in ("/data", "/var/lib/verdict"):
            a = re.sub(rf"(^|=){re.escape(mount)}(?=/|$)", rf"\g<1>{root}{mount}", a)
        out.append(a)
    return out


def summary(out):
    s = json.loads((out / "summary.json").read_text())
    s.pop("provenance", None)
    return s


def same_as_reference(out, ref, what):
    if summary(out) != summary(ref):
        sys.exit(f"{what}: {out}/summary.json differs from verdict run's")
    marker = json.loads((out / "_SUCCESS").read_text())
    if marker["games"] != summary(ref)["games"]:
        sys.exit(f"{what}: _SUCCESS counts {marker['games']} games, verdict run {summary(ref)['games']}")


def run(verdict, args, env, what):
    p = subprocess.run([verdict, *args], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"{what}: verdict {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: run_k8s_commands.py VERDICT_BINARY")
    verdict = os.path.abspath(sys.argv[1])
    k8s = check_deploy.K8S
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        base_env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp}

        # --- static shards: every index of the Indexed Job, then the merge.
        docs = check_deploy.render(k8s / "overlays" / "shared-volume" / "shards")
        job = find(docs, "Job", "verdict-shards")
        c = pod_spec(job)["containers"][0]
        env = environment(docs, c)
        corpus = pathlib.Path(rewrite([env["VERDICT_INPUT"]], root)[0])
        run(verdict, ["synth", "--games", "300", "--out", str(corpus)], base_env, "synth")
        ref = root / "reference"
        run(verdict, ["run", str(corpus), "--out", str(ref), "--no-report"], base_env, "verdict run")
        n = job["spec"]["completions"]
        for k in range(n):
            args = rewrite(expand(c["args"], {**env, "JOB_COMPLETION_INDEX": str(k)}), root)
            run(verdict, args, base_env, f"shard pod {k} of {n}")
        merge = find(docs, "Job", "verdict-merge")
        m = pod_spec(merge)["containers"][0]
        args = rewrite(expand(m["args"], environment(docs, m)), root)
        run(verdict, args, base_env, "merge pod")
        out = pathlib.Path(rewrite([env["VERDICT_SHARDS_OUTPUT"]], root)[0])
        same_as_reference(out, ref, "static shards")
        print(f"  overlays/shared-volume/shards: {n} shard pods and the merge pod, as the kubelet would run them: verdict run's summary")

        # --- the service: coordinator, two workers, the nightly submit.
        docs = check_deploy.render(k8s / "overlays" / "shared-volume")
        sts = find(docs, "StatefulSet", "verdict-coordinator")
        c = pod_spec(sts)["containers"][0]
        env = environment(docs, c)
        port = free_port()
        args = [a.replace("0.0.0.0:7070", f"127.0.0.1:{port}").replace("0.0.0.0:9090", "127.0.0.1:0") for a in c["args"]]
        args = rewrite(expand(args, env), root)
        (root / "var/lib/verdict").mkdir(parents=True, exist_ok=True)
        procs = []
        try:
            coordinator = subprocess.Popen(
                [verdict, *args], env={**base_env, **env}, stdout=subprocess.PIPE, stderr=open(root / "serve.log", "w"), text=True
            )
            procs.append(coordinator)
            line = coordinator.stdout.readline()
            if not line.startswith("verdict: listening on "):
                sys.exit(f"the coordinator's pod did not start: {line!r}\n{(root / 'serve.log').read_text()}")
            url = f"http://{line.split()[-1]}"
            deployment = find(docs, "Deployment", "verdict-worker")
            w = pod_spec(deployment)["containers"][0]
            wenv = environment(docs, w)
            wenv["VERDICT_COORDINATOR"] = url
            for i in range(2):
                procs.append(
                    subprocess.Popen(
                        [verdict, *rewrite(expand(w["args"], wenv), root), "--threads", "1"],
                        env={**base_env, **wenv},
                        stderr=open(root / f"worker-{i}.log", "w"),
                    )
                )
            cron = find(docs, "CronJob", "verdict-nightly")
            s = pod_spec(cron)["containers"][0]
            senv = environment(docs, s)
            senv["VERDICT_COORDINATOR"] = url
            run(verdict, rewrite(expand(s["args"], senv), root), {**base_env, **senv}, "the nightly submit pod")
            out = pathlib.Path(rewrite([senv["VERDICT_OUTPUT"]], root)[0])
            same_as_reference(out, ref, "the nightly job")
            print("  overlays/shared-volume: the coordinator's, two workers' and the nightly submit's pods: verdict run's summary")
        finally:
            for p in procs:
                p.send_signal(signal.SIGTERM)
            for p in procs:
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()


if __name__ == "__main__":
    main()
