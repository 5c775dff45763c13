//! `deploy/slurm/` run as Slurm would run it, without Slurm (none can run
//! here): `submit.sh` submits through a stand-in `sbatch` on PATH that
//! does what Slurm does with the options the scripts use (`--parsable`
//! prints the job id, `--array=0-M` runs the script once per task with
//! SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, here in reverse order,
//! `--dependency=afterok:ID` runs it only if every task of ID succeeded).
//! The scripts and `verdict` are the real ones: the N shards and the merge
//! must give `verdict run`'s rows and summary, and a failed task must hold
//! the merge back, leaving no published output.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::*;

/// Slurm's side of `sbatch`, for the options deploy/slurm uses.
const SBATCH: &str = r#"#!/usr/bin/env bash
set -u
state=${FAKE_SLURM_STATE:?}
mkdir -p "$state"
parsable=0 array="" dep=""
while [ $# -gt 0 ]; do
  case $1 in
    --parsable) parsable=1 ;;
    --array=*) array=${1#--array=} ;;
    --dependency=*) dep=${1#--dependency=} ;;
    --*) ;;
    *) break ;;
  esac
  shift
done
script=$1
shift
id=$(cat "$state/next" 2>/dev/null || echo 1000)
echo $((id + 1)) > "$state/next"
ok=1
if [ -n "$dep" ]; then
  case $dep in
    afterok:*) [ "$(cat "$state/${dep#afterok:}" 2>/dev/null)" = ok ] || ok=0 ;;
    *) echo "sbatch (stand-in): dependency $dep not handled" >&2; exit 1 ;;
  esac
fi
if [ $ok = 0 ]; then
  echo "never: dependency $dep not satisfied" > "$state/$id"
elif [ -n "$array" ]; then
  first=${array%-*} last=${array#*-}
  for k in $(seq "$last" -1 "$first"); do
    SLURM_JOB_ID=$id SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$k \
      SLURM_ARRAY_TASK_COUNT=$((last - first + 1)) SLURM_CPUS_PER_TASK=1 \
      bash "$script" "$@" > "$state/out-$id-$k" 2>&1 || ok=0
    if [ "${FAKE_SLURM_FAIL_TASK:-}" = "$k" ]; then ok=0; fi
  done
  [ $ok = 1 ] && echo ok > "$state/$id" || echo failed > "$state/$id"
else
  SLURM_JOB_ID=$id bash "$script" "$@" > "$state/out-$id" 2>&1 && echo ok > "$state/$id" || echo failed > "$state/$id"
fi
[ $parsable = 1 ] && echo "$id" || echo "Submitted batch job $id"
"#;

fn has_merge() -> bool {
    verdict()
        .args(["merge", "--help"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn stand_in(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(&sbatch, SBATCH).unwrap();
    let ok = Command::new("chmod")
        .arg("+x")
        .arg(&sbatch)
        .status()
        .unwrap();
    assert!(ok.success());
    bin
}

fn submit(dir: &Path, state: &str, out: &Path, inputs: &Path, fail_task: Option<u32>) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/slurm/submit.sh");
    let path = format!(
        "{}:{}",
        stand_in(dir).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("bash");
    c.arg(script)
        .arg("3")
        .arg(out)
        .arg(inputs)
        .env("PATH", path)
        .env("VERDICT", env!("CARGO_BIN_EXE_verdict"))
        .env("FAKE_SLURM_STATE", dir.join(state));
    if let Some(k) = fail_task {
        c.env("FAKE_SLURM_FAIL_TASK", k.to_string());
    }
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "submit.sh: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What the stand-in recorded for job `id`, and each of its logs.
fn job(dir: &Path, state: &str, id: u32) -> (String, String) {
    let state = dir.join(state);
    let result = std::fs::read_to_string(state.join(id.to_string())).unwrap_or_default();
    let mut logs = String::new();
    for name in names(&state) {
        if name.starts_with(&format!("out-{id}")) {
            logs += &std::fs::read_to_string(state.join(&name)).unwrap();
        }
    }
    (result.trim().to_string(), logs)
}

#[test]
fn slurm_array_then_merge_equals_verdict_run_and_a_failed_task_holds_the_merge_back() {
    if !has_merge() {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"slurm test: skipped: this verdict has no `merge` command yet\n",
        );
        return;
    }
    let dir = temp("slurm");
    let corpus = support::corpus(&dir, 300);
    local_run(&corpus, &dir.join("local"));

    // Three array tasks (0-2, run 2, 1, 0), then the merge after them.
    let out = dir.join("out");
    let said = submit(&dir, "state", &out, &corpus, None);
    assert!(said.contains("shards: job 1000 (tasks 0-2)"), "{said}");
    let (array, logs) = job(&dir, "state", 1000);
    assert_eq!(array, "ok", "every shard task succeeded:\n{logs}");
    let (merged, logs) = job(&dir, "state", 1001);
    assert_eq!(merged, "ok", "the merge ran after them:\n{logs}");
    assert_same_as_local(&out, &dir.join("local"));
    assert_eq!(counts(&out), counts(&dir.join("local")));
    assert!(out.join("_SUCCESS").exists());

    // Task 1 fails: afterok holds the merge back; nothing is published.
    let failed = dir.join("failed");
    submit(&dir, "state-failed", &failed, &corpus, Some(1));
    let (array, _) = job(&dir, "state-failed", 1000);
    assert_eq!(array, "failed");
    let (merged, _) = job(&dir, "state-failed", 1001);
    assert!(
        merged.starts_with("never"),
        "the merge did not run: {merged}"
    );
    assert!(!failed.join("_SUCCESS").exists(), "nothing published");
    assert!(!failed.join("summary.json").exists(), "nothing published");
}
