#!/usr/bin/env bash
# A verdict run as N Slurm array tasks and a merge that waits for them:
#   deploy/slurm/submit.sh N OUT INPUT... [-- RUN_OPTION...]
# e.g. deploy/slurm/submit.sh 16 /shared/results /shared/corpus -- --komi 6.5
# Every node must see INPUT and OUT under the same paths (a shared file
# system), or they are s3:// URLs (with AWS_* in the environment, which
# sbatch passes on). `verdict` must be on the nodes' PATH, or VERDICT=/path.
# Extra sbatch options for both jobs (partition, account) go in
# SBATCH_OPTIONS, e.g. SBATCH_OPTIONS="--partition=batch --account=go".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 3 ]; then
  echo "usage: submit.sh N OUT INPUT... [-- RUN_OPTION...]" >&2
  exit 2
fi
n=$1
if ! [ "$n" -ge 1 ] 2>/dev/null; then
  echo "submit.sh: N must be a whole number of shards, 1 or more (not $n)" >&2
  exit 2
fi
# shellcheck disable=SC2086 # SBATCH_OPTIONS is a list of options
array=$(sbatch --parsable ${SBATCH_OPTIONS:-} --array="0-$((n - 1))" "$here/shard.sbatch" "$@")
array=${array%%;*} # "id;cluster" on a multi-cluster site
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTIONS:-} --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  "$here/merge.sbatch" "$2")
merge=${merge%%;*}
echo "shards: job $array (tasks 0-$((n - 1))); merge: job $merge, once every task has succeeded"
echo "follow with: squeue -j $array,$merge; the result: $2/_SUCCESS"
