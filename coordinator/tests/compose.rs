//! The compose stack for real (`deploy/compose.yaml`, the image of
//! `deploy/image.sh`, built here from this build's `verdict`): a
//! coordinator and three workers in containers on their private network.
//! A job runs while a worker is killed mid-shard (`docker kill`), another
//! is cut off the network mid-shard and let back after its lease lapsed
//! (`docker network disconnect`/`connect`: a real partition, packets
//! dropped, not connections closed), and the coordinator container is
//! restarted; the job's rows and summary must then be `verdict run`'s on
//! the same corpus at the same paths.
//!
//! Storage: object storage by default (`Storage::S3`: the corpus in the
//! S3 server's bucket, the job's inputs, output and the coordinator's
//! roots `s3://` URLs, no shared folder); `VERDICT_COMPOSE_STORAGE=volume`
//! runs the same test over a shared volume (`/data` in every container).
//!
//! Without a Docker Engine (`docker info` fails) it prints
//! `skipped: no Docker Engine` and passes. Bounded: every docker command
//! and every wait has a limit, and whatever happens the stack's
//! containers, network and volumes and the test image are removed.

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::*;

/// The longest any one docker command may take (an image build included).
const COMMAND_LIMIT: Duration = Duration::from_secs(180);
/// The longest the job may take once submitted, faults included.
const JOB_LIMIT: Duration = Duration::from_secs(300);
/// Project names start with this; leftovers of a run that was killed are
/// removed by the next.
const PREFIX: &str = "verdictcomposetest";

/// Printed past the test harness's capture, so `cargo test` shows it.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "compose test: {text}");
}

/// Runs `cmd`, killing it past `limit`; its output, whatever the status.
fn run_for(cmd: &mut Command, limit: Duration) -> Output {
    let what = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    // Read both pipes on threads so a chatty command never blocks.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} took more than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn docker(args: &[&str]) -> Output {
    run_for(Command::new("docker").args(args), COMMAND_LIMIT)
}

/// `docker ARGS`, which must succeed; its standard output.
fn docker_ok(args: &[&str]) -> String {
    let o = docker(args);
    assert!(
        o.status.success(),
        "docker {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn engine_answers() -> bool {
    Command::new("docker")
        .args(["info", "--format", "{{.ServerVersion}}"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `docker compose` (v2) where it exists, else `docker-compose` (v1).
fn compose_command() -> Vec<String> {
    let v2 = Command::new("docker")
        .args(["compose", "version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if v2 {
        vec!["docker".into(), "compose".into()]
    } else {
        vec!["docker-compose".into()]
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Where a job's inputs and output live, and how the test reaches them.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Storage {
    /// The volume `data`, at /data in the coordinator and every worker.
    Volume,
    /// The S3 server's bucket `verdict` (a folder of the server's volume).
    S3,
}

impl Storage {
    fn from_env() -> Storage {
        match std::env::var("VERDICT_COMPOSE_STORAGE").as_deref() {
            Ok("s3") | Err(_) => Storage::S3,
            Ok("volume") => Storage::Volume,
            Ok(other) => panic!("VERDICT_COMPOSE_STORAGE={other}: volume or s3"),
        }
    }

    /// What the job names `name` by.
    fn url(self, name: &str) -> String {
        match self {
            Storage::Volume => format!("/data/{name}"),
            Storage::S3 => format!("s3://verdict/{name}"),
        }
    }

    /// The coordinator's `--allow-root`.
    fn allow_root(self) -> &'static str {
        match self {
            Storage::Volume => "/data",
            Storage::S3 => "s3://verdict",
        }
    }

    /// The service whose container holds the files, and the folder in it
    /// that `url("")` names (s3s-fs keeps each object as a file named by
    /// its key, in a folder per bucket).
    fn holder(self) -> (&'static str, &'static str) {
        match self {
            Storage::Volume => ("coordinator", "/data"),
            Storage::S3 => ("s3", "/data/verdict"),
        }
    }

    fn services(self) -> &'static [&'static str] {
        match self {
            Storage::Volume => &["coordinator"],
            Storage::S3 => &["s3", "coordinator"],
        }
    }
}

/// One compose project: `docker compose down` when dropped, pass or fail.
struct Stack {
    compose: Vec<String>,
    project: String,
    env: Vec<(String, String)>,
    image: String,
    storage: Storage,
}

impl Stack {
    fn cmd(&self, args: &[&str]) -> Output {
        let file = repo().join("deploy/compose.yaml");
        let mut c = Command::new(&self.compose[0]);
        c.args(&self.compose[1..])
            .arg("-p")
            .arg(&self.project)
            .arg("-f")
            .arg(file)
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        run_for(&mut c, COMMAND_LIMIT)
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.cmd(args);
        assert!(
            o.status.success(),
            "compose {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// The containers of `service`, in a stable order.
    fn containers(&self, service: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .ok(&["ps", "-q", service])
            .lines()
            .map(str::to_string)
            .collect();
        v.sort();
        v
    }

    fn one(&self, service: &str) -> String {
        let v = self.containers(service);
        assert_eq!(v.len(), 1, "one {service}: {v:?}");
        v[0].clone()
    }

    fn network(&self) -> String {
        let id = docker_ok(&[
            "network",
            "ls",
            "-q",
            "--filter",
            &format!("label=com.docker.compose.project={}", self.project),
            "--filter",
            "label=com.docker.compose.network=private",
        ]);
        let id = id.trim().to_string();
        assert!(!id.is_empty(), "the project's private network");
        id
    }

    /// `verdict ARGS` inside the coordinator's container (it has the token
    /// in its environment), against the coordinator on its loopback.
    fn verdict(&self, args: &[&str]) -> Output {
        let coordinator = self.one("coordinator");
        let mut full = vec!["exec", coordinator.as_str(), "/usr/local/bin/verdict"];
        full.extend(args);
        docker(&full)
    }

    /// `verdict status JOB --json`, retried while the coordinator restarts.
    fn status(&self, job: u64, limit: Duration) -> Value {
        let start = Instant::now();
        loop {
            let o = self.verdict(&["status", &job.to_string(), "--json"]);
            if o.status.success() {
                return serde_json::from_slice(&o.stdout).unwrap();
            }
            assert!(
                start.elapsed() < limit,
                "verdict status {job}: {}\n{}",
                String::from_utf8_lossy(&o.stderr),
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Every container's log, for a failure message.
    fn logs(&self) -> String {
        let o = self.cmd(&["logs", "--no-color", "--tail=60"]);
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Copies a host folder into the storage, as `url(name)`.
    fn put(&self, from: &Path, name: &str) {
        let (service, root) = self.storage.holder();
        let to = format!("{}:{root}/{name}", self.one(service));
        docker_ok(&["cp", &from.display().to_string(), &to]);
    }

    /// Copies `url(name)` out of the storage into `to`.
    fn get(&self, name: &str, to: &Path) {
        let (service, root) = self.storage.holder();
        let from = format!("{}:{root}/{name}", self.one(service));
        docker_ok(&["cp", &from, &to.display().to_string()]);
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        let o = self.cmd(&["down", "--volumes", "--remove-orphans", "--timeout", "2"]);
        if !o.status.success() {
            say(&format!(
                "compose down failed: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        let _ = docker(&["image", "rm", "--force", &self.image]);
    }
}

/// Removes what a killed earlier run of this test left behind.
fn remove_leftovers() {
    let filter = "label=com.docker.compose.project";
    let projects: std::collections::BTreeSet<String> = docker_ok(&[
        "ps",
        "-a",
        "--filter",
        filter,
        "--format",
        "{{.Label \"com.docker.compose.project\"}}",
    ])
    .lines()
    .chain(
        docker_ok(&[
            "network",
            "ls",
            "--filter",
            filter,
            "--format",
            "{{.Label \"com.docker.compose.project\"}}",
        ])
        .lines(),
    )
    .filter(|p| p.starts_with(PREFIX) && *p != project_name())
    .map(str::to_string)
    .collect();
    for p in projects {
        let label = format!("label=com.docker.compose.project={p}");
        for kind in ["container", "network", "volume"] {
            let mut ls = vec![kind, "ls", "-q", "--filter", &label];
            if kind == "container" {
                ls.insert(2, "-a");
            }
            let ids = docker_ok(&ls);
            for id in ids.lines() {
                let _ = docker(&[kind, "rm", "--force", id]);
            }
        }
    }
}

fn project_name() -> String {
    format!("{PREFIX}{}", std::process::id())
}

/// A container's log (verdict logs to standard error).
fn log_of(container: &str) -> String {
    let o = docker(&["logs", container]);
    String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout)
}

/// The worker's last shard event in its log: Some(true) while it works on
/// a shard it leased, Some(false) between shards, None before any.
fn mid_shard(container: &str) -> Option<bool> {
    let mut last = None;
    for line in log_of(container).lines() {
        if line.contains("\"shard leased\"") {
            last = Some(true);
        } else if [
            "\"shard done\"",
            "shard handed back",
            "lease lost",
            "completion refused",
            "cannot report",
        ]
        .iter()
        .any(|m| line.contains(m))
        {
            last = Some(false);
        }
    }
    last
}

fn lease_expiries(s: &Value) -> u64 {
    s["lease_expiries"].as_u64().unwrap()
}

/// Each key's count.
fn multiset<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeMap<T, usize> {
    let mut m = BTreeMap::new();
    for i in items {
        *m.entry(i).or_insert(0) += 1;
    }
    m
}

/// One column of rows rendered by `support::rows` (`name=value|...`).
fn cell<'a>(row: &'a str, name: &str) -> &'a str {
    let key = format!("{name}=");
    row.split('|')
        .find_map(|c| c.strip_prefix(key.as_str()))
        .unwrap_or_else(|| panic!("no {name} in {row}"))
}

#[test]
fn compose_stack_survives_kill_partition_and_restart_and_equals_verdict_run() {
    if !engine_answers() {
        say("skipped: no Docker Engine (`docker info` failed)");
        return;
    }
    let started = Instant::now();
    let mut timings: Vec<(&str, Duration)> = Vec::new();
    let mut lap = Instant::now();
    let mut mark = |what: &'static str, timings: &mut Vec<(&str, Duration)>| {
        timings.push((what, lap.elapsed()));
        lap = Instant::now();
    };
    let storage = Storage::from_env();
    remove_leftovers();
    let dir = temp("compose");

    // The image, from the binary under test (not a release build). The
    // stack's guard first: whatever fails from here, down and image rm run.
    let image = format!("verdict-compose-test:{}", std::process::id());
    let stack = Stack {
        compose: compose_command(),
        project: project_name(),
        env: vec![
            ("VERDICT_IMAGE".into(), image.clone()),
            ("VERDICT_TOKEN".into(), TOKEN.into()),
            ("VERDICT_ALLOW_ROOT".into(), storage.allow_root().into()),
            ("VERDICT_LEASE_TTL_MS".into(), "3000".into()),
            ("VERDICT_WORKER_THREADS".into(), "1".into()),
        ],
        image: image.clone(),
        storage,
    };
    let built = run_for(
        Command::new(repo().join("deploy/image.sh"))
            .arg("verdict")
            .env("VERDICT_BIN", env!("CARGO_BIN_EXE_verdict"))
            .env("VERDICT_IMAGE", &image),
        COMMAND_LIMIT,
    );
    assert!(
        built.status.success(),
        "deploy/image.sh: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    if storage == Storage::S3 {
        let s3 = run_for(
            Command::new(repo().join("deploy/image.sh")).arg("s3s-fs"),
            Duration::from_secs(900),
        );
        assert!(
            s3.status.success(),
            "{}",
            String::from_utf8_lossy(&s3.stderr)
        );
    }
    mark("image", &mut timings);

    // 1,000 self-play games in files and collections, and all of them
    // again in one collection the planner cuts into byte ranges.
    let corpus = support::corpus(&dir, 1000);
    let mut up = vec!["up", "-d", "--no-deps"];
    up.extend(storage.services());
    stack.ok(&up);
    stack.put(&corpus, "corpus");
    mark("stack up, corpus in", &mut timings);

    // The reference: `verdict run` in the coordinator's container, on the
    // same paths (rows carry their source).
    let local = stack.verdict(&[
        "run",
        &storage.url("corpus"),
        "--out",
        &storage.url("local"),
        "--no-report",
    ]);
    assert!(
        local.status.success(),
        "verdict run: {}",
        String::from_utf8_lossy(&local.stderr)
    );
    mark("verdict run (reference)", &mut timings);

    stack.ok(&["up", "-d", "--no-deps", "--scale", "worker=3", "worker"]);
    let workers = stack.containers("worker");
    assert_eq!(workers.len(), 3);
    let submitted = stack.verdict(&[
        "submit",
        &storage.url("corpus"),
        "--out",
        &storage.url("results"),
        "--shard-bytes",
        "100000",
        "--json",
    ]);
    assert!(
        submitted.status.success(),
        "submit: {}",
        String::from_utf8_lossy(&submitted.stderr)
    );
    let job: Value = serde_json::from_slice(&submitted.stdout).unwrap();
    let job = job["id"].as_u64().unwrap();
    let job_started = Instant::now();
    let deadline = |what: &str| {
        assert!(
            job_started.elapsed() < JOB_LIMIT,
            "{what}: not within {JOB_LIMIT:?}\n{}",
            stack.logs()
        );
    };

    // A worker killed mid-shard: its lease lapses, its shard runs again.
    let (killed, partitioned) = loop {
        deadline("two workers mid-shard");
        let busy: Vec<&String> = workers
            .iter()
            .filter(|w| mid_shard(w) == Some(true))
            .collect();
        if busy.len() >= 2 {
            break (busy[0].clone(), busy[1].clone());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    docker_ok(&["kill", &killed]);
    let before = lease_expiries(&stack.status(job, JOB_LIMIT));
    say(&format!("killed worker {killed} mid-shard"));

    // Another cut off mid-shard: packets dropped, its connection left
    // hanging. Let back once its lease has lapsed too.
    let network = stack.network();
    assert_eq!(mid_shard(&partitioned), Some(true), "still mid-shard");
    docker_ok(&["network", "disconnect", &network, &partitioned]);
    let cut_at = Instant::now();
    let lapsed = loop {
        deadline("both leases to lapse");
        let s = stack.status(job, JOB_LIMIT);
        if lease_expiries(&s) >= before + 2 {
            break s;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    docker_ok(&["network", "connect", &network, &partitioned]);
    say(&format!(
        "partitioned worker {partitioned} for {:.1} s; leases lapsed: {}",
        cut_at.elapsed().as_secs_f64(),
        lease_expiries(&lapsed)
    ));
    assert_eq!(lapsed["state"], "running", "the job still runs: {lapsed}");
    mark("submit to kill and partition", &mut timings);

    // The coordinator's container restarted (SIGTERM, then started again on
    // its state volume) while the job runs.
    let s = stack.status(job, JOB_LIMIT);
    assert_eq!(
        s["state"], "running",
        "still running before the restart: {s}"
    );
    let restart = Instant::now();
    docker_ok(&["restart", "--time", "10", &stack.one("coordinator")]);
    let after = stack.status(job, JOB_LIMIT);
    say(&format!(
        "coordinator restarted in {:.1} s; job {job} {} with {} of {} shards done",
        restart.elapsed().as_secs_f64(),
        after["state"],
        after["shards"]["done"],
        after["shards"]["total"]
    ));
    mark("coordinator restart", &mut timings);

    let end = loop {
        deadline("the job to end");
        let s = stack.status(job, JOB_LIMIT);
        if s["state"] != "running" {
            break s;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert_eq!(end["state"], "done", "{end}\n{}", stack.logs());
    assert!(lease_expiries(&end) >= 2, "both leases lapsed: {end}");
    mark("job to the end", &mut timings);

    // The partitioned worker came back and its late report was settled:
    // taken (the shard was not done yet) or refused (it was), never twice.
    // (HTTP/2 pings find its dead connection within 20 s.)
    let settled = Instant::now();
    loop {
        let back = log_of(&partitioned);
        if ["\"shard done\"", "completion refused", "lease lost"]
            .iter()
            .any(|m| back.contains(m))
        {
            break;
        }
        assert!(
            settled.elapsed() < Duration::from_secs(90),
            "the partitioned worker settled its shard:\n{back}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    say(&format!(
        "the partitioned worker settled its shard {:.1} s after the job ended",
        settled.elapsed().as_secs_f64()
    ));
    mark("partitioned worker settles", &mut timings);

    // The job's output is the reference's: whole rows as a multiset (so the
    // game_hash and (source, game_index) multisets too) and the summary.
    let got = dir.join("got");
    std::fs::create_dir_all(&got).unwrap();
    stack.get("results", &got.join("results"));
    stack.get("local", &got.join("local"));
    let (job_out, local_out) = (got.join("results"), got.join("local"));
    if storage == Storage::S3 {
        // s3s-fs keeps each object as a file and leaves a folder behind
        // when the last object in it is deleted; a bucket has no folders,
        // so an empty one is no object left.
        prune_empty_dirs(&job_out);
    }
    let (job_rows, local_rows) = (rows(&job_out), rows(&local_out));
    assert!(local_rows.len() >= 2000, "{} rows", local_rows.len());
    let hashes = |r: &[String]| multiset(r.iter().map(|r| cell(r, "game_hash").to_string()));
    let places = |r: &[String]| {
        multiset(r.iter().map(|r| {
            (
                cell(r, "source").to_string(),
                cell(r, "game_index").to_string(),
            )
        }))
    };
    assert_eq!(hashes(&job_rows), hashes(&local_rows), "game_hash multiset");
    assert_eq!(
        places(&job_rows),
        places(&local_rows),
        "(source, game_index) multiset"
    );
    assert_same_as_local(&job_out, &local_out);
    assert_clean(&job_out);
    assert_eq!(counts(&job_out), counts(&local_out));
    mark("compare", &mut timings);

    drop(stack);
    mark("down", &mut timings);
    let _ = std::fs::remove_dir_all(&dir);
    let line: Vec<String> = timings
        .iter()
        .map(|(w, d)| format!("{w} {:.1} s", d.as_secs_f64()))
        .collect();
    say(&format!(
        "{storage:?}: {} rows equal verdict run's; {:.1} s in all ({})",
        job_rows.len(),
        started.elapsed().as_secs_f64(),
        line.join(", ")
    ));
}

/// Removes the empty folders under `dir` (deepest first).
fn prune_empty_dirs(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            prune_empty_dirs(&p);
            let _ = std::fs::remove_dir(&p);
        }
    }
}
