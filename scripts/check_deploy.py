#!/usr/bin/env python3
"""Offline checks of deploy/k8s that a schema cannot make.

For every overlay under deploy/k8s/overlays (each folder holding a
kustomization.yaml), rendered with `kubectl kustomize`:

- every Secret, ConfigMap and PersistentVolumeClaim a pod refers to is
  defined in the same render and namespace (a StatefulSet's own
  volumeClaimTemplates count);
- every image comes from the registry and tag set in
  deploy/k8s/components/release (the one place they are set);
- every pod passes the restricted Pod Security profile (numeric non-root
  user, no privilege escalation, all capabilities dropped, RuntimeDefault
  seccomp, no host namespaces, ports or paths) and its namespace enforces
  that profile;
- every $(VAR) in a container's command and arguments is defined in its
  environment (env, or the keys of the ConfigMaps and Secrets of envFrom);
- the workers' grace period is above their --drain-seconds; the Indexed
  Job's completions equal its VERDICT_SHARDS and its pods run
  `--shard $(JOB_COMPLETION_INDEX)/$(VERDICT_SHARDS)`; the CronJob forbids
  overlap and has both deadlines; the coordinator has gRPC probes;
- object-storage overlays mount no shared volume; shared-volume overlays
  mount verdict-data at /data in every pod;
- every Service and NetworkPolicy selects pods that some workload makes.

`--self-test` breaks a good render in each of those ways and fails unless
every break is caught. Needs PyYAML (a dependency of kubernetes-validate)
and kubectl. Exit status 1 on any problem, each named.
"""

import copy
import pathlib
import re
import subprocess
import sys

import yaml

REPO = pathlib.Path(__file__).resolve().parent.parent
K8S = REPO / "deploy" / "k8s"


def overlays():
    root = K8S / "overlays"
    return sorted(p.parent for p in root.rglob("kustomization.yaml"))


def render(overlay):
    out = subprocess.run(
        ["kubectl", "kustomize", str(overlay)], check=True, capture_output=True, text=True
    ).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def release():
    """The registry/name and tag every image must have."""
    k = yaml.safe_load((K8S / "components" / "release" / "kustomization.yaml").read_text())
    (image,) = k["images"]
    return image["newName"], str(image["newTag"])


def pod_specs(doc):
    """(where, pod spec, pod template metadata) of a workload."""
    kind = doc["kind"]
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        t = doc["spec"]["template"]
        return [(f"{kind}/{doc['metadata']['name']}", t["spec"])]
    if kind == "CronJob":
        t = doc["spec"]["jobTemplate"]["spec"]["template"]
        return [(f"{kind}/{doc['metadata']['name']}", t["spec"])]
    if kind == "Pod":
        return [(f"Pod/{doc['metadata']['name']}", doc["spec"])]
    return []


def containers(spec):
    return spec.get("initContainers", []) + spec.get("containers", [])


def check(docs, name, registry, tag):
    problems = []

    def bad(text):
        problems.append(f"{name}: {text}")

    defined = {}
    for d in docs:
        ns = d["metadata"].get("namespace", "default")
        defined.setdefault((d["kind"], ns), {})[d["metadata"]["name"]] = d
    namespaces = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Namespace"}
    storage = "object-storage" if "object-storage" in name else "shared-volume"

    for d in docs:
        if d["kind"] not in ("Namespace",) and "namespace" not in d["metadata"]:
            bad(f"{d['kind']}/{d['metadata']['name']} has no namespace")
    for d in docs:
        ns = d["metadata"].get("namespace", "default")
        for where, spec in pod_specs(d):
            where = f"{where} ({ns})"
            # The namespace must exist here and enforce the restricted profile.
            n = namespaces.get(ns)
            labels = (n or {}).get("metadata", {}).get("labels", {})
            if labels.get("pod-security.kubernetes.io/enforce") != "restricted":
                bad(f"{where}: namespace {ns} is not defined enforcing the restricted profile")

            def ref(kind, ref_name, why, optional=False):
                if optional:
                    return
                if ref_name not in defined.get((kind, ns), {}):
                    bad(f"{where}: {why} names {kind} {ref_name}, defined nowhere in {ns}")

            claims = set()
            if d["kind"] == "StatefulSet":
                claims = {t["metadata"]["name"] for t in d["spec"].get("volumeClaimTemplates", [])}
            volumes = {}
            for v in spec.get("volumes", []):
                volumes[v["name"]] = v
                if "persistentVolumeClaim" in v:
                    ref("PersistentVolumeClaim", v["persistentVolumeClaim"]["claimName"], f"volume {v['name']}")
                if "secret" in v:
                    ref("Secret", v["secret"]["secretName"], f"volume {v['name']}", v["secret"].get("optional"))
                if "configMap" in v:
                    ref("ConfigMap", v["configMap"]["name"], f"volume {v['name']}", v["configMap"].get("optional"))
                for src in v.get("projected", {}).get("sources", []):
                    if "secret" in src:
                        ref("Secret", src["secret"]["name"], f"volume {v['name']}", src["secret"].get("optional"))
                    if "configMap" in src:
                        ref("ConfigMap", src["configMap"]["name"], f"volume {v['name']}", src["configMap"].get("optional"))
                for host in ("hostPath",):
                    if host in v:
                        bad(f"{where}: volume {v['name']} is a {host} (not allowed by the restricted profile)")
            for s in spec.get("imagePullSecrets", []):
                ref("Secret", s["name"], "imagePullSecrets")

            # Restricted Pod Security profile.
            psc = spec.get("securityContext", {})
            for host in ("hostNetwork", "hostPID", "hostIPC"):
                if spec.get(host):
                    bad(f"{where}: {host}")
            for c in containers(spec):
                cw = f"{where} container {c['name']}"
                csc = c.get("securityContext", {})
                image = c.get("image", "")
                if image != f"{registry}:{tag}":
                    bad(f"{cw}: image {image!r}, not {registry}:{tag} (deploy/k8s/components/release)")
                non_root = csc.get("runAsNonRoot", psc.get("runAsNonRoot"))
                if non_root is not True:
                    bad(f"{cw}: runAsNonRoot is not true")
                user = csc.get("runAsUser", psc.get("runAsUser"))
                if not isinstance(user, int) or user == 0:
                    bad(f"{cw}: runAsUser {user!r} is not a numeric non-root user")
                if csc.get("allowPrivilegeEscalation") is not False:
                    bad(f"{cw}: allowPrivilegeEscalation is not false")
                if csc.get("privileged"):
                    bad(f"{cw}: privileged")
                caps = csc.get("capabilities", {})
                if "ALL" not in caps.get("drop", []):
                    bad(f"{cw}: capabilities do not drop ALL")
                if set(caps.get("add", [])) - {"NET_BIND_SERVICE"}:
                    bad(f"{cw}: adds capabilities {caps['add']}")
                seccomp = csc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
                if seccomp not in ("RuntimeDefault", "Localhost"):
                    bad(f"{cw}: seccompProfile {seccomp!r}, not RuntimeDefault")
                for p in c.get("ports", []):
                    if p.get("hostPort"):
                        bad(f"{cw}: hostPort {p['hostPort']}")

                # References from the environment, and $(VAR) in arguments.
                env = set()
                for e in c.get("envFrom", []):
                    if "configMapRef" in e:
                        r = e["configMapRef"]
                        ref("ConfigMap", r["name"], f"{c['name']} envFrom", r.get("optional"))
                        cm = defined.get(("ConfigMap", ns), {}).get(r["name"], {})
                        env |= {e.get("prefix", "") + k for k in cm.get("data", {})}
                    if "secretRef" in e:
                        r = e["secretRef"]
                        ref("Secret", r["name"], f"{c['name']} envFrom", r.get("optional"))
                        sec = defined.get(("Secret", ns), {}).get(r["name"], {})
                        env |= {e.get("prefix", "") + k for k in {**sec.get("data", {}), **sec.get("stringData", {})}}
                for e in c.get("env", []):
                    env.add(e["name"])
                    vf = e.get("valueFrom", {})
                    if "secretKeyRef" in vf:
                        r = vf["secretKeyRef"]
                        ref("Secret", r["name"], f"env {e['name']}", r.get("optional"))
                        sec = defined.get(("Secret", ns), {}).get(r["name"])
                        if sec and r["key"] not in {**sec.get("data", {}), **sec.get("stringData", {})}:
                            bad(f"{cw}: env {e['name']} reads key {r['key']} that Secret {r['name']} lacks")
                    if "configMapKeyRef" in vf:
                        r = vf["configMapKeyRef"]
                        ref("ConfigMap", r["name"], f"env {e['name']}", r.get("optional"))
                for arg in c.get("command", []) + c.get("args", []):
                    for var in re.findall(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", arg):
                        if var not in env:
                            bad(f"{cw}: argument {arg!r} names $({var}), which its environment lacks")
                for m in c.get("volumeMounts", []):
                    if m["name"] not in volumes and m["name"] not in claims:
                        bad(f"{cw}: mounts {m['name']}, which is not a volume of the pod")

                # Shared volume or object storage.
                mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
                data = mounts.get("/data")
                if storage == "shared-volume":
                    v = volumes.get(data, {})
                    if v.get("persistentVolumeClaim", {}).get("claimName") != "verdict-data":
                        bad(f"{cw}: the shared volume verdict-data is not mounted at /data")
                else:
                    for v in volumes.values():
                        if "persistentVolumeClaim" in v:
                            bad(f"{cw}: object storage, yet the pod mounts the claim {v['persistentVolumeClaim']['claimName']}")

                args = c.get("args", [])
                if args[:1] == ["worker"]:
                    drain = [a for a in args if a.startswith("--drain-seconds=")]
                    grace = spec.get("terminationGracePeriodSeconds", 30)
                    if not drain or not grace > int(drain[0].split("=", 1)[1]):
                        bad(f"{cw}: terminationGracePeriodSeconds {grace} is not above {drain or 'the default --drain-seconds'}")
                if args[:1] == ["serve"]:
                    for probe in ("readinessProbe", "livenessProbe"):
                        if "grpc" not in c.get(probe, {}):
                            bad(f"{cw}: no gRPC {probe}")
                    if "fsGroup" not in psc:
                        bad(f"{cw}: no fsGroup: the user cannot write the state volume")
                if args[:1] == ["run"] and d["kind"] == "Job":
                    shards = {e["name"]: e.get("value") for e in c.get("env", [])}.get("VERDICT_SHARDS")
                    if d["spec"].get("completionMode") != "Indexed":
                        bad(f"{cw}: a shard Job that is not Indexed")
                    if str(d["spec"].get("completions")) != str(shards):
                        bad(f"{cw}: completions {d['spec'].get('completions')} but VERDICT_SHARDS {shards}")
                    if "--shard=$(JOB_COMPLETION_INDEX)/$(VERDICT_SHARDS)" not in args:
                        bad(f"{cw}: does not run --shard=$(JOB_COMPLETION_INDEX)/$(VERDICT_SHARDS)")
        if d["kind"] == "CronJob":
            s = d["spec"]
            where = f"CronJob/{d['metadata']['name']}"
            if s.get("concurrencyPolicy") != "Forbid":
                bad(f"{where}: concurrencyPolicy is not Forbid")
            if not s.get("startingDeadlineSeconds"):
                bad(f"{where}: no startingDeadlineSeconds")
            if not s["jobTemplate"]["spec"].get("activeDeadlineSeconds"):
                bad(f"{where}: no activeDeadlineSeconds")
    # Every Service and NetworkPolicy selects pods that some workload makes.
    templates = []
    for d in docs:
        if d["kind"] in ("Deployment", "StatefulSet", "Job"):
            templates.append(d["spec"]["template"].get("metadata", {}).get("labels", {}))
        if d["kind"] == "CronJob":
            templates.append(d["spec"]["jobTemplate"]["spec"]["template"].get("metadata", {}).get("labels", {}))
    for d in docs:
        if d["kind"] == "Service":
            selector = d["spec"].get("selector", {})
        elif d["kind"] == "NetworkPolicy":
            selector = d["spec"]["podSelector"].get("matchLabels", {})
        else:
            continue
        if not any(all(t.get(k) == v for k, v in selector.items()) for t in templates):
            bad(f"{d['kind']}/{d['metadata']['name']} selects {selector}, which no pod of this render carries")
    if storage == "shared-volume" and "verdict-data" not in {
        n for (k, _), names in defined.items() if k == "PersistentVolumeClaim" for n in names
    }:
        bad("the PersistentVolumeClaim verdict-data is not defined")
    return problems


def self_test(docs, name, registry, tag):
    """Each break of a good render must be caught."""

    def find(kind, prefix=""):
        return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"].startswith(prefix))

    def first_container(d):
        return pod_specs(d)[0][1]["containers"][0]

    breaks = {}

    def broken(label, change):
        b = copy.deepcopy(docs)
        change(b)
        breaks[label] = b

    def drop(kind, prefix):
        return lambda b: b.remove(next(d for d in b if d["kind"] == kind and d["metadata"]["name"].startswith(prefix)))

    worker = "Deployment" if any(d["kind"] == "Deployment" for d in docs) else "Job"
    if worker == "Deployment":
        # (Static shards and the merge need no token.)
        broken("the token Secret missing", drop("Secret", "verdict-token"))
    broken("the config ConfigMap missing", drop("ConfigMap", "verdict-config"))
    if any(d["kind"] == "PersistentVolumeClaim" for d in docs):
        broken("the data PVC missing", drop("PersistentVolumeClaim", "verdict-data"))

    def other_registry(b):
        first_container(next(d for d in b if d["kind"] == worker))["image"] = f"docker.io/verdict:{tag}"

    def root(b):
        pod_specs(next(d for d in b if d["kind"] == worker))[0][1]["securityContext"]["runAsUser"] = 0

    def escalation(b):
        first_container(next(d for d in b if d["kind"] == worker))["securityContext"]["allowPrivilegeEscalation"] = True

    def typo(b):
        first_container(next(d for d in b if d["kind"] == worker))["args"].append("$(VERDICT_COORDINATR)")

    def unenforced(b):
        next(d for d in b if d["kind"] == "Namespace")["metadata"]["labels"].pop("pod-security.kubernetes.io/enforce")

    def unselected(b):
        service = next((d for d in b if d["kind"] == "Service"), None)
        if service:
            service["spec"]["selector"]["app.kubernetes.io/component"] = "coordinatr"

    if any(d["kind"] == "Service" for d in docs):
        broken("a Service selecting no pod", unselected)
    broken("an image from another registry", other_registry)
    broken("a root user", root)
    broken("privilege escalation", escalation)
    broken("an undefined $(VAR)", typo)
    broken("the restricted profile not enforced", unenforced)
    failures = []
    for label, b in breaks.items():
        found = check(b, name, registry, tag)
        if not found:
            failures.append(f"{name}: self-test: {label} went unnoticed")
    return failures, len(breaks)


def main():
    registry, tag = release()
    problems, caught, rendered = [], 0, 0
    for overlay in overlays():
        name = str(overlay.relative_to(K8S))
        docs = render(overlay)
        rendered += 1
        problems += check(docs, name, registry, tag)
        if "--self-test" in sys.argv:
            failures, n = self_test(docs, name, registry, tag)
            problems += failures
            caught += n - len(failures)
    for p in problems:
        print(p)
    if rendered < 4:
        print(f"only {rendered} overlays found under {K8S / 'overlays'}")
        return 1
    extra = f"; self-test: {caught} breaks caught" if "--self-test" in sys.argv else ""
    print(f"check_deploy: {rendered} overlays, images {registry}:{tag}, {len(problems)} problems{extra}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
