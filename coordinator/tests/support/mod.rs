//! What the cluster tests share: real `verdict` processes on loopback
//! (killed when a test ends, pass or fail), generated corpora, local runs
//! to compare with, and the output folder read back row by row.
#![allow(dead_code)]

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use arrow_array::{Array, BooleanArray, Float64Array, Int64Array, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

pub const TOKEN: &str = "test-token";

pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verdict-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

/// A child process that is killed when the test ends, pass or fail.
pub struct Proc {
    pub child: Child,
    pub log: PathBuf,
}

impl Proc {
    /// Starts `cmd` with its output in `log`.
    pub fn spawn(cmd: &mut Command, log: &Path) -> Proc {
        let file = File::create(log).unwrap();
        let child = cmd
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        Proc {
            child,
            log: log.to_path_buf(),
        }
    }

    pub fn kill9(&mut self) {
        // Child::kill is SIGKILL on Unix: no chance to clean up.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Proc {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(ok.success(), "kill {sig} failed");
    }

    /// SIGSTOP: the process stops answering, as a hung or paused machine.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// SIGCONT.
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    /// The exit status, if it has exited within `limit`.
    pub fn exited_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let start = Instant::now();
        loop {
            if let Some(code) = self.child.try_wait().unwrap() {
                return Some(code);
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill9();
    }
}

pub fn verdict() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_verdict"));
    c.env_remove("VERDICT_TOKEN")
        .env_remove("VERDICT_COORDINATOR");
    c
}

/// A number for each log file, so restarts never write over a log.
fn log_number() -> usize {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Starts `verdict serve` on `dir/state.db` and returns it with the
/// address it listens on.
pub fn serve(dir: &Path, listen: &str, extra: &[&str]) -> (Proc, String) {
    serve_on(dir, &dir.join("state.db"), listen, extra)
}

/// Starts `verdict serve` on the state file `state`, roots at `dir`.
pub fn serve_on(dir: &Path, state: &Path, listen: &str, extra: &[&str]) -> (Proc, String) {
    let log = dir.join(format!("serve-{}.log", log_number()));
    let mut child = verdict()
        .args(["serve", "--listen", listen, "--token", TOKEN])
        .arg("--state")
        .arg(state)
        .arg("--allow-root")
        .arg(dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let proc = Proc { child, log };
    let addr = line
        .trim()
        .strip_prefix("verdict: listening on ")
        .unwrap_or_else(|| panic!("serve did not start: {line:?}\n{}", proc.log()))
        .to_string();
    (proc, addr)
}

pub fn worker(dir: &Path, addr: &str, name: &str, extra: &[&str]) -> Proc {
    let log = dir.join(format!("worker-{name}-{}.log", log_number()));
    let child = verdict()
        .args(["worker", "--coordinator", &format!("http://{addr}")])
        .args(["--name", name])
        .args(extra)
        .env("VERDICT_TOKEN", TOKEN)
        .stderr(File::create(&log).unwrap())
        .spawn()
        .unwrap();
    Proc { child, log }
}

/// Runs a client command against `addr` with the token.
pub fn client(addr: &str, args: &[&str]) -> Output {
    verdict()
        .args(args)
        .args(["--coordinator", &format!("http://{addr}")])
        .env("VERDICT_TOKEN", TOKEN)
        .output()
        .unwrap()
}

pub fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

pub fn submit(addr: &str, inputs: &[&Path], out: &Path, shard_bytes: u64) -> u64 {
    let mut args: Vec<String> = vec!["submit".into(), "--json".into()];
    args.extend(inputs.iter().map(|p| p.display().to_string()));
    args.extend([
        "--out".into(),
        out.display().to_string(),
        "--shard-bytes".into(),
        shard_bytes.to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    json_of(&client(addr, &args))["id"].as_u64().unwrap()
}

pub fn status(addr: &str, job: u64) -> Value {
    json_of(&client(addr, &["status", &job.to_string(), "--json"]))
}

/// Polls until `done` says yes, failing with the logs after `limit`.
pub fn wait_until(limit: Duration, what: &str, logs: &[&Proc], mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > limit {
            let logs: Vec<String> = logs.iter().map(|p| p.log()).collect();
            panic!("timed out waiting for {what}\n{}", logs.join("\n----\n"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn wait_for_end(addr: &str, job: u64, logs: &[&Proc]) -> Value {
    let mut last = Value::Null;
    wait_until(Duration::from_secs(180), "the job to end", logs, || {
        std::thread::sleep(Duration::from_millis(100));
        last = status(addr, job);
        last["state"] != "running"
    });
    last
}

/// A generated corpus: single-game and collection files, plus one large
/// collection holding every game again (split by byte ranges), its last
/// game cut off.
pub fn corpus(dir: &Path, games: usize) -> PathBuf {
    let corpus = dir.join("corpus");
    let out = verdict()
        .args(["synth", "--games", &games.to_string(), "--out"])
        .arg(&corpus)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut all = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for p in names {
        all.extend(std::fs::read(p).unwrap());
    }
    // Damage at the end: a game cut off mid-record.
    all.extend(b"(;GM[1]SZ[19]KM[6.5];B[pd];W[dp];B[pp");
    std::fs::write(corpus.join("zz-everything.sgf"), all).unwrap();
    corpus
}

pub fn local_run(corpus: &Path, out: &Path) {
    let o = verdict()
        .arg("run")
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Every row of every part file, each rendered whole, sorted.
pub fn rows(out: &Path) -> Vec<String> {
    let mut rows = Vec::new();
    for e in std::fs::read_dir(out.join("games")).unwrap() {
        let p = e.unwrap().path();
        assert_eq!(
            p.extension().unwrap(),
            "parquet",
            "no temporary file is left: {}",
            p.display()
        );
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&p).unwrap())
            .unwrap()
            .build()
            .unwrap();
        for b in reader {
            let b = b.unwrap();
            let schema = b.schema();
            for i in 0..b.num_rows() {
                let mut cells = Vec::new();
                for (f, col) in schema.fields().iter().zip(b.columns()) {
                    let any = col.as_any();
                    let v = if col.is_null(i) {
                        "null".to_string()
                    } else if let Some(a) = any.downcast_ref::<StringArray>() {
                        a.value(i).to_string()
                    } else if let Some(a) = any.downcast_ref::<Int64Array>() {
                        a.value(i).to_string()
                    } else if let Some(a) = any.downcast_ref::<Float64Array>() {
                        a.value(i).to_string()
                    } else if let Some(a) = any.downcast_ref::<BooleanArray>() {
                        a.value(i).to_string()
                    } else {
                        panic!("unexpected column type {}", f.data_type())
                    };
                    cells.push(format!("{}={v}", f.name()));
                }
                rows.push(cells.join("|"));
            }
        }
    }
    rows.sort();
    rows
}

/// Two outputs hold the same rows (as multisets); when they do not, says
/// how many each has and which rows only one of them holds, so a failure
/// far away (in CI) can be read without running it again.
pub fn assert_same_rows(got: &Path, want: &Path) {
    let (a, b) = (rows(got), rows(want));
    if a == b {
        return;
    }
    let mut only_got = a.clone();
    let mut only_want = Vec::new();
    for r in &b {
        match only_got.iter().position(|x| x == r) {
            Some(i) => {
                only_got.swap_remove(i);
            }
            None => only_want.push(r.clone()),
        }
    }
    let show = |v: &[String]| {
        v.iter()
            .take(3)
            .map(|r| r.chars().take(300).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n    ")
    };
    panic!(
        "{} has {} rows, {} has {}\n  only in the first ({}):\n    {}\n  only in the second ({}):\n    {}",
        got.display(),
        a.len(),
        want.display(),
        b.len(),
        only_got.len(),
        show(&only_got),
        only_want.len(),
        show(&only_want)
    );
}

/// A run's `summary.json` as written, `provenance` included.
pub fn summary(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

/// `summary.json` bar its `provenance` (which job or run made it): what a
/// job and the local run of the same inputs must share.
pub fn counts(out: &Path) -> Value {
    let mut s = summary(out);
    s.as_object_mut().unwrap().remove("provenance");
    s
}

/// The job's output is the local run's: the same rows (as a multiset, whole
/// rows, so the same game_hash multiset too) and the same summary.
pub fn assert_same_as_local(job_out: &Path, local_out: &Path) {
    let (job, local) = (rows(job_out), rows(local_out));
    assert!(local.len() > 100, "{} rows", local.len());
    assert_eq!(job.len(), local.len(), "as many rows as the local run");
    assert!(job == local, "the same rows as the local run");
    // Bar provenance: a job's says which job, a local run's which run.
    let (mut job_summary, mut local_summary) = (summary(job_out), summary(local_out));
    let job_provenance = job_summary.as_object_mut().unwrap().remove("provenance");
    let local_provenance = local_summary.as_object_mut().unwrap().remove("provenance");
    assert_eq!(job_provenance.unwrap()["kind"], "job");
    assert_eq!(local_provenance.unwrap()["kind"], "run");
    assert_eq!(job_summary, local_summary);
    assert!(job_out.join("summary.parquet").exists());
}

pub fn metrics(addr: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text
}

pub fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// Sends SIGTERM (by pid, as Kubernetes does) and expects a clean exit
/// within 30 s.
pub fn stop(p: &mut Proc) {
    let term = Command::new("kill")
        .args(["-TERM", &p.child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let start = Instant::now();
    let code = loop {
        if let Some(code) = p.child.try_wait().unwrap() {
            break code;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{}", p.log());
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(code.success(), "{}", p.log());
}

/// A deterministic self-play corpus of `games` games in `dir/name`.
pub fn synth(dir: &Path, name: &str, games: usize, seed: u64) -> PathBuf {
    let corpus = dir.join(name);
    let out = verdict()
        .args([
            "synth",
            "--games",
            &games.to_string(),
            "--seed",
            &seed.to_string(),
            "--out",
        ])
        .arg(&corpus)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    corpus
}

/// The names in a folder, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// An output folder holds one published run and nothing else: the parts
/// its `_SUCCESS` lists (with their row counts), the summaries, and a
/// staging folder with no run left in it.
pub fn assert_clean(out: &Path) {
    let top = names(out);
    for n in &top {
        assert!(
            [
                "_SUCCESS",
                "_staging",
                "games",
                "summary.json",
                "summary.parquet",
                "report.html"
            ]
            .contains(&n.as_str()),
            "{} holds a stray {n}: {top:?}",
            out.display()
        );
    }
    let marker: Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).expect("a _SUCCESS marker"))
            .unwrap();
    let mut listed: Vec<(String, u64)> = marker["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["path"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("games/")
                    .to_string(),
                p["rows"].as_u64().unwrap(),
            )
        })
        .collect();
    listed.sort();
    let found = names(&out.join("games"));
    assert_eq!(
        found,
        listed.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        "the parts in {} are exactly those _SUCCESS lists",
        out.display()
    );
    for (name, rows) in &listed {
        let file = File::open(out.join("games").join(name)).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        assert_eq!(
            reader.metadata().file_metadata().num_rows() as u64,
            *rows,
            "{name} holds the rows _SUCCESS says"
        );
    }
    assert_eq!(
        marker["games"],
        summary(out)["games"],
        "_SUCCESS and summary.json count the same games"
    );
    if out.join("_staging").exists() {
        let left: Vec<String> = names(&out.join("_staging"))
            .into_iter()
            .filter(|n| !n.starts_with('.'))
            .collect();
        assert!(
            left.is_empty(),
            "runs left in {}/_staging: {left:?}",
            out.display()
        );
    }
}

/// A raw gRPC client's bearer token.
pub fn add_token(mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
    req.metadata_mut()
        .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    Ok(req)
}

pub type Raw = tonic::service::interceptor::InterceptedService<
    tonic::transport::Channel,
    fn(tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status>,
>;

/// A current-thread runtime for raw gRPC calls.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A channel to the coordinator at `addr` that adds the token.
pub async fn raw(addr: &str) -> Raw {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    tonic::service::interceptor::InterceptedService::new(channel, add_token as fn(_) -> _)
}

/// A worker of the test's own at the coordinator at `addr`, registered
/// under `name` over raw gRPC (no worker process): its client and id, to
/// take leases and complete them by hand.
pub async fn raw_worker(
    addr: &str,
    name: &str,
) -> (verdict_proto::v1::workers_client::WorkersClient<Raw>, u64) {
    let mut w = verdict_proto::v1::workers_client::WorkersClient::new(raw(addr).await);
    let worker = w
        .register(verdict_proto::v1::RegisterRequest {
            name: name.into(),
            threads: 1,
            protocol: verdict_proto::PROTOCOL_VERSION,
        })
        .await
        .unwrap()
        .into_inner()
        .worker_id;
    (w, worker)
}

/// A lease for `worker` at once (no waiting), from a [`raw_worker`]
/// client; panics when there is no shard to lease.
pub async fn raw_lease(
    w: &mut verdict_proto::v1::workers_client::WorkersClient<Raw>,
    worker: u64,
) -> verdict_proto::v1::Lease {
    w.acquire(verdict_proto::v1::AcquireRequest {
        worker_id: worker,
        wait_ms: 0,
        protocol: verdict_proto::PROTOCOL_VERSION,
    })
    .await
    .unwrap()
    .into_inner()
    .lease
    .expect("a shard to lease")
}

/// A TCP proxy in front of the coordinator: a worker behind it can be cut
/// off (every connection closed, new ones refused) and let through again,
/// as a network partition does.
pub struct Proxy {
    pub addr: String,
    cut: std::sync::Arc<std::sync::atomic::AtomicBool>,
    live: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Proxy {
    pub fn new(upstream: &str) -> Proxy {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let cut = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let live = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (c, l, up) = (cut.clone(), live.clone(), upstream.to_string());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(down) = conn else { continue };
                if c.load(Ordering::SeqCst) {
                    drop(down);
                    continue;
                }
                let Ok(upc) = std::net::TcpStream::connect(&up) else {
                    continue;
                };
                let pairs = [
                    (down.try_clone().unwrap(), upc.try_clone().unwrap()),
                    (upc.try_clone().unwrap(), down.try_clone().unwrap()),
                ];
                {
                    let mut g = l.lock().unwrap();
                    g.push(down);
                    g.push(upc);
                }
                for (mut from, mut to) in pairs {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Proxy { addr, cut, live }
    }

    /// Cuts every connection through the proxy and refuses new ones.
    pub fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        for s in self.live.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Lets connections through again.
    pub fn heal(&self) {
        self.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The command succeeded; else its output, to see why.
pub fn assert_ok(o: &Output) {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `verdict run INPUT --out OUT --shard SPEC` (a folder or `s3://`).
pub fn shard(input: &Path, out: &Path, spec: &str) -> Output {
    verdict()
        .arg("run")
        .arg(input)
        .arg("--out")
        .arg(out)
        .args(["--shard", spec, "--no-report"])
        .output()
        .unwrap()
}

/// `verdict merge OUT`.
pub fn merge(out: &Path) -> Output {
    verdict()
        .arg("merge")
        .arg(out)
        .arg("--no-report")
        .output()
        .unwrap()
}
