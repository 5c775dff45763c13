#!/usr/bin/env bash
# The offline checks of deploy/ (no cluster, no Slurm here): every
# Kubernetes overlay rendered by kustomize and validated strictly against
# the schemas of several Kubernetes versions, scripts/check_deploy.py
# (references, images, restricted Pod Security, arguments) with its
# self-test, the compose file, and the shell scripts' syntax.
# Needs kubectl (its kustomize) and `pip install kubernetes-validate==1.37.0`;
# docker-compose or `docker compose` for the compose file (skipped, and
# said so, when neither is installed).
set -euo pipefail
cd "$(dirname "$0")/.."
versions=(1.29.0 1.33.0 1.37.0)
overlays=$(find deploy/k8s/overlays -name kustomization.yaml -printf '%h\n' | sort)
for o in $overlays; do
  rendered=$(kubectl kustomize "$o")
  for v in "${versions[@]}"; do
    if ! out=$(kubernetes-validate --strict --quiet -k "$v" - <<<"$rendered" 2>&1); then
      echo "$o against Kubernetes $v:"
      echo "$out"
      exit 1
    fi
  done
  echo "  $o: $(grep -c '^kind:' <<<"$rendered") resources valid for Kubernetes ${versions[*]} (strict)"
done
python3 scripts/check_deploy.py --self-test
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
else
  compose=()
fi
if [ ${#compose[@]} -gt 0 ]; then
  VERDICT_TOKEN=check "${compose[@]}" -f deploy/compose.yaml config -q
  echo "  deploy/compose.yaml: valid (${compose[*]} config)"
else
  echo "  deploy/compose.yaml: skipped: neither docker compose nor docker-compose is installed"
fi
for s in deploy/*.sh deploy/slurm/*.sh deploy/slurm/*.sbatch; do
  [ -e "$s" ] || continue
  bash -n "$s"
done
echo "  shell scripts: syntax ok"
