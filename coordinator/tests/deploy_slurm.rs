//! `deploy/slurm/` under Slurm: `submit.sh` submits the array of static
//! shards and the merge after it, and the shards and the merge must give
//! `verdict run`'s rows and summary; an array whose tasks fail must never
//! start the merge, and nothing is published.
//!
//! Where Slurm is installed and the test runs as root (CI:
//! `apt-get install slurmctld slurmd slurm-client munge`), the test starts
//! a real one-node Slurm of its own (munged, slurmctld and slurmd on free
//! ports, its own `SLURM_CONF` in a temporary folder; all killed when the
//! test ends). Elsewhere it says so and uses a stand-in `sbatch` on PATH
//! that does what Slurm does with the options the scripts use
//! (`--parsable` prints the job id; `--array=0-M` runs the script once per
//! task with SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, here in reverse
//! order; `--dependency=afterok:ID` runs it only if every task of ID
//! succeeded, and cancels it otherwise, as `--kill-on-invalid-dep=yes`).

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// Slurm's side of `sbatch`, for the options deploy/slurm uses; job states
/// in Slurm's words.
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
run=1
if [ -n "$dep" ]; then
  case $dep in
    afterok:*) grep -qv COMPLETED <(tr ' ' '\n' < "$state/${dep#afterok:}") && run=0 ;;
    *) echo "sbatch (stand-in): dependency $dep not handled" >&2; exit 1 ;;
  esac
fi
if [ $run = 0 ]; then
  echo CANCELLED > "$state/$id"
elif [ -n "$array" ]; then
  first=${array%-*} last=${array#*-} states=""
  for k in $(seq "$last" -1 "$first"); do
    if SLURM_JOB_ID=$id SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$k \
      SLURM_ARRAY_TASK_COUNT=$((last - first + 1)) SLURM_CPUS_PER_TASK=1 \
      bash "$script" "$@" > "$state/out-$id-$k" 2>&1; then
      states="$states COMPLETED"
    else
      states="$states FAILED"
    fi
  done
  echo $states > "$state/$id"
else
  SLURM_JOB_ID=$id bash "$script" "$@" > "$state/out-$id" 2>&1 && echo COMPLETED > "$state/$id" || echo FAILED > "$state/$id"
fi
[ $parsable = 1 ] && echo "$id" || echo "Submitted batch job $id"
"#;

fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "slurm test: {text}");
}

fn has_merge() -> bool {
    verdict()
        .args(["merge", "--help"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn found(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn output(cmd: &str, args: &[&str]) -> String {
    let o = Command::new(cmd).args(args).output().unwrap();
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// A one-node Slurm of the test's own.
struct Slurm {
    conf: PathBuf,
    _daemons: Vec<Proc>,
}

impl Slurm {
    fn start(dir: &Path) -> Option<Slurm> {
        let installed = [
            "munged",
            "slurmctld",
            "slurmd",
            "sbatch",
            "scontrol",
            "sinfo",
        ]
        .iter()
        .all(|c| found(c));
        if !installed || output("id", &["-u"]) != "0" {
            return None;
        }
        let dir = dir.join("slurm");
        for sub in ["state", "spool"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let key = dir.join("munge.key");
        let mut bytes = vec![0u8; 1024];
        std::io::Read::read_exact(
            &mut std::fs::File::open("/dev/urandom").unwrap(),
            &mut bytes,
        )
        .unwrap();
        std::fs::write(&key, bytes).unwrap();
        std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o400))
            .unwrap();
        let socket = dir.join("munge.socket");
        let spawn = |name: &str, cmd: &mut Command| {
            let log = dir.join(format!("{name}.log"));
            let child = cmd
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .unwrap();
            Proc { child, log }
        };
        let munged = spawn(
            "munged",
            Command::new("munged")
                .args(["--foreground", "--force"])
                .arg(format!("--socket={}", socket.display()))
                .arg(format!("--key-file={}", key.display()))
                .arg(format!("--pid-file={}", dir.join("munged.pid").display()))
                .arg(format!("--seed-file={}", dir.join("munge.seed").display()))
                .arg(format!(
                    "--log-file={}",
                    dir.join("munged.file.log").display()
                )),
        );
        let port = |s: String| s.rsplit(':').next().unwrap().to_string();
        let (ctld_port, slurmd_port) = (port(free_port()), port(free_port()));
        let host = output("hostname", &["-s"]);
        let d = dir.display();
        let conf = dir.join("slurm.conf");
        std::fs::write(
            &conf,
            format!(
                "ClusterName=verdicttest\n\
                 SlurmctldHost={host}(127.0.0.1)\n\
                 SlurmUser=root\nSlurmdUser=root\n\
                 AuthType=auth/munge\nCredType=cred/munge\n\
                 AuthInfo=socket={}\n\
                 StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
                 SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
                 SlurmctldPort={ctld_port}\nSlurmdPort={slurmd_port}\n\
                 ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
                 JobAcctGatherType=jobacct_gather/none\n\
                 AccountingStorageType=accounting_storage/none\n\
                 SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n\
                 MpiDefault=none\nSwitchType=switch/none\nReturnToService=2\n\
                 NodeName=verdictnode NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 State=UNKNOWN\n\
                 PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
                socket.display()
            ),
        )
        .unwrap();
        let ctld = spawn(
            "slurmctld",
            Command::new("slurmctld").arg("-D").arg("-f").arg(&conf),
        );
        let slurmd = spawn(
            "slurmd",
            Command::new("slurmd")
                .args(["-D", "-N", "verdictnode", "-f"])
                .arg(&conf),
        );
        let slurm = Slurm {
            conf,
            _daemons: vec![munged, ctld, slurmd],
        };
        let start = Instant::now();
        loop {
            let state = slurm.output("sinfo", &["-h", "-o", "%t"]);
            if state == "idle" {
                break;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let logs: Vec<String> = slurm._daemons.iter().map(Proc::log).collect();
                panic!(
                    "the test's Slurm did not come up (sinfo: {state:?})\n{}",
                    logs.join("\n----\n")
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Some(slurm)
    }

    fn output(&self, cmd: &str, args: &[&str]) -> String {
        let o = Command::new(cmd)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// Every task's state, once none is pending or running.
    fn wait(&self, job: u32) -> Vec<String> {
        let start = Instant::now();
        loop {
            let text = self.output("scontrol", &["-o", "show", "job", &job.to_string()]);
            let states: Vec<String> = text
                .split_whitespace()
                .filter_map(|w| w.strip_prefix("JobState="))
                .map(str::to_string)
                .collect();
            let live = [
                "PENDING",
                "RUNNING",
                "CONFIGURING",
                "COMPLETING",
                "SUSPENDED",
            ];
            if !states.is_empty() && !states.iter().any(|s| live.contains(&s.as_str())) {
                return states;
            }
            assert!(
                start.elapsed() < Duration::from_secs(240),
                "Slurm job {job} did not end: {text}"
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

enum Scheduler {
    Real(Slurm),
    /// The stand-in `sbatch`'s folder, for PATH.
    StandIn(PathBuf),
}

impl Scheduler {
    fn new(dir: &Path) -> Scheduler {
        if let Some(s) = Slurm::start(dir) {
            say("a one-node Slurm of the test's own");
            return Scheduler::Real(s);
        }
        say("no Slurm installed (or not root): a stand-in sbatch; apt-get install slurmctld slurmd slurm-client munge for the real one");
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let sbatch = bin.join("sbatch");
        std::fs::write(&sbatch, SBATCH).unwrap();
        std::fs::set_permissions(&sbatch, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        Scheduler::StandIn(bin)
    }

    /// `deploy/slurm/submit.sh 3 OUT INPUT`, from `cwd`: the array's and
    /// the merge's job ids.
    fn submit(&self, cwd: &Path, out: &Path, input: &Path) -> (u32, u32) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/slurm/submit.sh");
        let mut c = Command::new("bash");
        c.arg(script)
            .arg("3")
            .arg(out)
            .arg(input)
            .current_dir(cwd)
            .env("VERDICT", env!("CARGO_BIN_EXE_verdict"));
        match self {
            Scheduler::Real(s) => {
                // Within the one small node (the script asks for 8 cores).
                c.env("SLURM_CONF", &s.conf)
                    .env("SBATCH_OPTIONS", "--cpus-per-task=1 --mem=400M");
            }
            Scheduler::StandIn(bin) => {
                let path = format!(
                    "{}:{}",
                    bin.display(),
                    std::env::var("PATH").unwrap_or_default()
                );
                c.env("PATH", path)
                    .env("FAKE_SLURM_STATE", cwd.join("stand-in"));
            }
        }
        let o = c.output().unwrap();
        assert!(
            o.status.success(),
            "submit.sh: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        let id = |after: &str| -> u32 {
            let rest = &said[said.find(after).unwrap_or_else(|| panic!("{said}")) + after.len()..];
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(said.contains("(tasks 0-2)"), "{said}");
        (id("shards: job "), id("merge: job "))
    }

    /// The states of job `id`'s tasks, once it has ended.
    fn wait(&self, cwd: &Path, id: u32) -> Vec<String> {
        match self {
            Scheduler::Real(s) => s.wait(id),
            Scheduler::StandIn(_) => {
                let f = cwd.join("stand-in").join(id.to_string());
                std::fs::read_to_string(f)
                    .unwrap()
                    .split_whitespace()
                    .map(str::to_string)
                    .collect()
            }
        }
    }
}

/// Every log the jobs wrote in `cwd` (their `--output` files).
fn job_logs(cwd: &Path) -> String {
    let mut text = String::new();
    for dir in [cwd.to_path_buf(), cwd.join("stand-in")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(".out") || name.starts_with("out-") {
                    text += &format!(
                        "== {name}\n{}\n",
                        std::fs::read_to_string(&p).unwrap_or_default()
                    );
                }
            }
        }
    }
    text
}

#[test]
fn slurm_array_then_merge_equals_verdict_run_and_failed_tasks_hold_the_merge_back() {
    if !has_merge() {
        say("skipped: this verdict has no `merge` command yet");
        return;
    }
    let started = Instant::now();
    let dir = temp("slurm");
    let corpus = support::corpus(&dir, 300);
    local_run(&corpus, &dir.join("local"));
    let slurm = Scheduler::new(&dir);

    // Three array tasks, then the merge once every one succeeded.
    let ok = dir.join("ok");
    std::fs::create_dir_all(&ok).unwrap();
    let out = dir.join("out");
    let (array, merge) = slurm.submit(&ok, &out, &corpus);
    let tasks = slurm.wait(&ok, array);
    assert_eq!(
        tasks,
        ["COMPLETED"; 3],
        "every shard task succeeded:\n{}",
        job_logs(&ok)
    );
    let merged = slurm.wait(&ok, merge);
    assert_eq!(
        merged,
        ["COMPLETED"],
        "the merge ran after them:\n{}",
        job_logs(&ok)
    );
    // The same rows (whole, as a multiset: so the same game_hash and
    // (source, game_index) multisets) and the summary bar its provenance.
    let (got, want) = (rows(&out), rows(&dir.join("local")));
    assert!(want.len() > 300, "{} rows", want.len());
    assert_eq!(got.len(), want.len(), "as many rows as verdict run");
    assert!(got == want, "the rows of verdict run");
    assert_eq!(counts(&out), counts(&dir.join("local")));
    assert!(out.join("_SUCCESS").exists());

    // Every task fails (its output folder cannot be made: a file is in
    // the way): afterok never holds, the merge is cancelled, nothing is
    // published.
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(dir.join("a-file"), b"").unwrap();
    let failed = dir.join("a-file").join("out");
    let (array, merge) = slurm.submit(&bad, &failed, &corpus);
    let tasks = slurm.wait(&bad, array);
    assert_eq!(tasks, ["FAILED"; 3], "{}", job_logs(&bad));
    let merged = slurm.wait(&bad, merge);
    assert_eq!(
        merged,
        ["CANCELLED"],
        "the merge never ran:\n{}",
        job_logs(&bad)
    );
    assert!(!failed.exists(), "nothing published");
    say(&format!(
        "{} in {:.1} s",
        match slurm {
            Scheduler::Real(_) => "a real Slurm",
            Scheduler::StandIn(_) => "the stand-in sbatch",
        },
        started.elapsed().as_secs_f64()
    ));
}
