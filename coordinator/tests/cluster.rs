//! The distributed service with real processes on loopback: `verdict serve`,
//! `verdict worker`s and the client commands, compared with `verdict run`
//! on the same generated corpus.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use arrow_array::{Array, BooleanArray, Float64Array, Int64Array, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

const TOKEN: &str = "test-token";

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verdict-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

/// A child process that is killed when the test ends, pass or fail.
struct Proc {
    child: Child,
    log: PathBuf,
}

impl Proc {
    fn kill9(&mut self) {
        // Child::kill is SIGKILL on Unix: no chance to clean up.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill9();
    }
}

fn verdict() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_verdict"));
    c.env_remove("VERDICT_TOKEN")
        .env_remove("VERDICT_COORDINATOR");
    c
}

/// Starts `verdict serve` and returns it with the address it listens on.
fn serve(dir: &Path, listen: &str, extra: &[&str]) -> (Proc, String) {
    let log = dir.join(format!("serve-{}.log", listen.replace(':', "_")));
    let mut child = verdict()
        .args(["serve", "--listen", listen, "--token", TOKEN])
        .arg("--state")
        .arg(dir.join("state.db"))
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

fn worker(dir: &Path, addr: &str, name: &str, extra: &[&str]) -> Proc {
    let log = dir.join(format!("worker-{name}.log"));
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
fn client(addr: &str, args: &[&str]) -> Output {
    verdict()
        .args(args)
        .args(["--coordinator", &format!("http://{addr}")])
        .env("VERDICT_TOKEN", TOKEN)
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn submit(addr: &str, inputs: &[&Path], out: &Path, shard_bytes: u64) -> u64 {
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

fn status(addr: &str, job: u64) -> Value {
    json_of(&client(addr, &["status", &job.to_string(), "--json"]))
}

/// Polls until `done` says yes, failing with the logs after `limit`.
fn wait_until(limit: Duration, what: &str, logs: &[&Proc], mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > limit {
            let logs: Vec<String> = logs.iter().map(|p| p.log()).collect();
            panic!("timed out waiting for {what}\n{}", logs.join("\n----\n"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_end(addr: &str, job: u64, logs: &[&Proc]) -> Value {
    let mut last = Value::Null;
    wait_until(Duration::from_secs(180), "the job to end", logs, || {
        std::thread::sleep(Duration::from_millis(100));
        last = status(addr, job);
        last["state"] != "running"
    });
    last
}

/// A generated corpus: single-game and collection files, plus one large
/// collection holding every game again (split by game ranges), its last
/// game cut off.
fn corpus(dir: &Path, games: usize) -> PathBuf {
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

fn local_run(corpus: &Path, out: &Path) {
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
fn rows(out: &Path) -> Vec<String> {
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

fn summary(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

/// The job's output is the local run's: the same rows (as a multiset, whole
/// rows, so the same game_hash multiset too) and the same summary.
fn assert_same_as_local(job_out: &Path, local_out: &Path) {
    let (job, local) = (rows(job_out), rows(local_out));
    assert!(local.len() > 100, "{} rows", local.len());
    assert_eq!(job.len(), local.len(), "as many rows as the local run");
    assert!(job == local, "the same rows as the local run");
    assert_eq!(summary(job_out), summary(local_out));
    assert!(job_out.join("summary.parquet").exists());
}

fn metrics(addr: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text
}

fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

#[test]
fn three_workers_give_the_rows_and_summary_of_a_local_run() {
    let dir = temp("three");
    let corpus = corpus(&dir, 300);
    local_run(&corpus, &dir.join("local"));
    let metrics_addr = free_port();
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--metrics-listen", &metrics_addr]);
    let out = dir.join("job");
    // About ten shards, the large collection cut into several; queued
    // before the workers start, so that each finds work at once.
    let job = submit(&addr, &[&corpus], &out, 80_000);
    let workers: Vec<Proc> = (0..3)
        .map(|i| worker(&dir, &addr, &format!("w{i}"), &["-j", "1"]))
        .collect();
    let mut logs: Vec<&Proc> = workers.iter().collect();
    logs.push(&server);
    let end = wait_for_end(&addr, job, &logs);
    assert_eq!(end["state"], "done", "{end}");
    let total = end["shards"]["total"].as_u64().unwrap();
    assert!(total >= 8, "{end}");
    assert_eq!(end["shards"]["done"], total);
    assert_same_as_local(&out, &dir.join("local"));
    assert_eq!(end["games"], summary(&out)["games"]);
    // Several workers took part.
    let busy = workers
        .iter()
        .filter(|w| w.log().contains("shard done"))
        .count();
    assert!(busy >= 2, "only {busy} workers did any work");

    let m = metrics(&metrics_addr);
    assert!(m.contains("verdict_jobs{state=\"done\"} 1"), "{m}");
    assert!(
        m.contains(&format!("verdict_shards{{state=\"done\"}} {total}")),
        "{m}"
    );
    assert!(m.contains("verdict_workers{state=\"active\"} 3"), "{m}");
    assert!(m.contains("\nverdict_games_per_second "), "{m}");
    assert!(
        m.contains(&format!("\nverdict_games_total {}", summary(&out)["games"])),
        "{m}"
    );

    // Listing and a second job into the same folder replacing the first's parts.
    let list = json_of(&client(&addr, &["jobs", "--json"]));
    assert_eq!(list.as_array().unwrap().len(), 1);
    let again = submit(&addr, &[&corpus], &out, 1 << 30);
    let end = wait_for_end(&addr, again, &logs);
    assert_eq!(end["state"], "done");
    assert_same_as_local(&out, &dir.join("local"));
    drop(workers);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_worker_killed_mid_shard_loses_and_doubles_nothing() {
    let dir = temp("kill-worker");
    let corpus = corpus(&dir, 300);
    local_run(&corpus, &dir.join("local"));
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--lease-ttl-ms", "1500"]);
    let mut victim = worker(&dir, &addr, "victim", &["-j", "1"]);
    let out = dir.join("job");
    // Shards of about half a second each on one debug-build thread.
    let job = submit(&addr, &[&corpus], &out, 250_000);
    // Kill the first worker as soon as it holds a shard, before it can
    // finish it.
    wait_until(
        Duration::from_secs(60),
        "a lease",
        &[&victim, &server],
        || victim.log().contains("shard leased"),
    );
    victim.kill9();
    assert!(!victim.log().contains("shard done"), "{}", victim.log());
    let others: Vec<Proc> = (0..2)
        .map(|i| worker(&dir, &addr, &format!("w{i}"), &["-j", "1"]))
        .collect();
    let end = wait_for_end(&addr, job, &[&others[0], &others[1], &server]);
    assert_eq!(end["state"], "done", "{end}");
    assert!(end["lease_expiries"].as_u64().unwrap() >= 1, "{end}");
    assert_same_as_local(&out, &dir.join("local"));
    drop(others);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_restarted_coordinator_finishes_the_job_with_the_same_result() {
    let dir = temp("restart");
    let corpus = corpus(&dir, 300);
    local_run(&corpus, &dir.join("local"));
    let (mut server, addr) = serve(&dir, "127.0.0.1:0", &["--lease-ttl-ms", "3000"]);
    let out = dir.join("job");
    let job = submit(&addr, &[&corpus], &out, 40_000);
    // One worker, so the job takes a few seconds and, after the restart,
    // only that worker reconnecting can finish it.
    let only = worker(&dir, &addr, "only", &["-j", "1"]);
    wait_until(Duration::from_secs(120), "a shard done", &[&server], || {
        std::thread::sleep(Duration::from_millis(50));
        status(&addr, job)["shards"]["done"].as_u64().unwrap() >= 2
    });
    let before = status(&addr, job);
    assert_eq!(before["state"], "running", "killed too late: {before}");
    server.kill9();
    // The same address and state file.
    let (server, again) = serve(&dir, &addr, &["--lease-ttl-ms", "3000"]);
    assert_eq!(again, addr);
    let after = status(&addr, job);
    assert!(
        after["shards"]["done"].as_u64() >= before["shards"]["done"].as_u64(),
        "{before} then {after}"
    );
    let end = wait_for_end(&addr, job, &[&only, &server]);
    assert_eq!(end["state"], "done", "{end}");
    assert_same_as_local(&out, &dir.join("local"));
    drop(only);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clients_without_the_token_and_paths_outside_the_roots_are_refused() {
    let dir = temp("refused");
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("in/a.sgf"), "(;SZ[9];B[aa];W[bb])").unwrap();
    let (mut server, addr) = serve(&dir, "127.0.0.1:0", &[]);
    let url = format!("http://{addr}");

    let anonymous = verdict()
        .args(["jobs", "--coordinator", &url])
        .output()
        .unwrap();
    assert_eq!(anonymous.status.code(), Some(2));
    let said = String::from_utf8_lossy(&anonymous.stderr);
    assert!(said.contains("bearer token"), "{said}");
    let wrong = verdict()
        .args(["jobs", "--coordinator", &url, "--token", "guess"])
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("wrong bearer token"));
    // The standard health service answers without the token (probes carry none).
    let health = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let channel = tonic::transport::Endpoint::from_shared(url.clone())
                .unwrap()
                .connect()
                .await
                .unwrap();
            let mut h = tonic_health::pb::health_client::HealthClient::new(channel);
            h.check(tonic_health::pb::HealthCheckRequest {
                service: "verdict.v1.Workers".into(),
            })
            .await
            .unwrap()
            .into_inner()
            .status
        });
    assert_eq!(
        health,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
    // A worker without the token stops at once rather than retry forever.
    let anonymous_worker = verdict()
        .args(["worker", "--coordinator", &url])
        .output()
        .unwrap();
    assert_eq!(anonymous_worker.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&anonymous_worker.stderr).contains("bearer token"));

    let out = dir.join("out").display().to_string();
    let cases: [(&[&str], &str); 4] = [
        (&["/etc"], "outside the allowed roots"),
        (&[&format!("{}/in/../../", dir.display())], "contains `..`"),
        (
            &[&format!("{}/in/missing.sgf", dir.display())],
            "cannot read",
        ),
        (&[&format!("{}/in", dir.display())], ""),
    ];
    for (inputs, why) in cases {
        let mut args = vec!["submit"];
        args.extend(inputs);
        args.extend(["--out", &out, "--json"]);
        let o = client(&addr, &args);
        if why.is_empty() {
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        } else {
            assert_eq!(o.status.code(), Some(2), "{inputs:?}");
            let said = String::from_utf8_lossy(&o.stderr);
            assert!(said.contains(why), "{inputs:?}: {said}");
        }
    }
    // An output folder outside the roots is refused too.
    let o = client(
        &addr,
        &[
            "submit",
            &format!("{}/in", dir.display()),
            "--out",
            "/tmp/verdict-escape",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("outside the allowed roots"));
    // A second job into the running job's folder is refused; cancelling ends it.
    let o = client(
        &addr,
        &["submit", &format!("{}/in", dir.display()), "--out", &out],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("is writing to"));
    let cancelled = json_of(&client(&addr, &["cancel", "1", "--json"]));
    assert_eq!(cancelled["state"], "cancelled");
    let missing = client(&addr, &["status", "99"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no job 99"));
    // SIGTERM stops the coordinator cleanly, state committed.
    stop(&mut server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_short_load_test_runs_without_errors() {
    let out = verdict()
        .args([
            "loadtest",
            "--workers",
            "20",
            "--seconds",
            "1",
            "--shards",
            "5000",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["errors"], 0, "{v}");
    assert!(v["lease_cycles"].as_f64().unwrap() > 10.0, "{v}");
    let by: BTreeMap<String, Value> = serde_json::from_value(v["latency_ms"].clone()).unwrap();
    assert!(by["complete"]["p99"].as_f64().unwrap() > 0.0, "{v}");
}

/// Sends SIGTERM (by pid, as Kubernetes does) and expects a clean exit
/// within 30 s.
fn stop(p: &mut Proc) {
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

/// SIGTERM (sent by pid, as Kubernetes does) with no time to drain: the
/// worker hands its shard back, without counting an attempt, and exits 0;
/// another worker finishes the job.
#[test]
fn a_stopping_worker_hands_its_shard_back() {
    let dir = temp("sigterm");
    let corpus = corpus(&dir, 300);
    local_run(&corpus, &dir.join("local"));
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--max-attempts", "1"]);
    let mut first = worker(&dir, &addr, "first", &["-j", "1", "--drain-seconds", "0"]);
    let out = dir.join("job");
    let job = submit(&addr, &[&corpus], &out, 400_000);
    wait_until(
        Duration::from_secs(60),
        "a lease",
        &[&first, &server],
        || first.log().contains("shard leased"),
    );
    stop(&mut first);
    assert!(first.log().contains("shard handed back"), "{}", first.log());
    // With --max-attempts 1 a counted attempt would have failed the shard.
    let second = worker(&dir, &addr, "second", &["-j", "2"]);
    let end = wait_for_end(&addr, job, &[&second, &server]);
    assert_eq!(end["state"], "done", "{end}");
    assert_same_as_local(&out, &dir.join("local"));
    drop(second);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// With --tls-cert/--tls-key the coordinator speaks TLS only: a client that
/// trusts the certificate gets through, a plaintext one does not.
#[test]
fn tls_clients_get_through_and_plaintext_ones_do_not() {
    let dir = temp("tls");
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert_pem, key_pem) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_pem, cert.cert.pem()).unwrap();
    std::fs::write(&key_pem, cert.signing_key.serialize_pem()).unwrap();
    let (server, addr) = serve(
        &dir,
        "127.0.0.1:0",
        &[
            "--tls-cert",
            cert_pem.to_str().unwrap(),
            "--tls-key",
            key_pem.to_str().unwrap(),
        ],
    );
    let port = addr.rsplit(':').next().unwrap();
    let url = format!("https://localhost:{port}");
    let ok = verdict()
        .args(["jobs", "--json", "--coordinator", &url, "--tls-ca"])
        .arg(&cert_pem)
        .env("VERDICT_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&ok.stderr),
        server.log()
    );
    assert_eq!(json_of(&ok), serde_json::json!([]));
    let plain = client(&addr, &["jobs"]);
    assert_eq!(plain.status.code(), Some(2));
    let no_ca = verdict()
        .args(["jobs", "--coordinator", &url])
        .env("VERDICT_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(no_ca.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_ca.stderr).contains("--tls-ca"));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shard that fails every time is marked failed with its reason after
/// --max-attempts, and the job ends, reporting it, instead of hanging.
#[test]
fn shards_that_keep_failing_end_the_job_with_their_reason() {
    let dir = temp("failing");
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("in/a.sgf"), "(;SZ[9];B[aa];W[bb])").unwrap();
    // `games` is a file, so no part file can be written.
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/games"), "in the way").unwrap();
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--max-attempts", "2"]);
    let w = worker(&dir, &addr, "w", &["-j", "1"]);
    let job = submit(&addr, &[&dir.join("in")], &dir.join("out"), 1 << 20);
    let end = wait_for_end(&addr, job, &[&w, &server]);
    assert_eq!(end["state"], "done with failures", "{end}");
    assert_eq!(end["shards"]["failed"], 1, "{end}");
    let failure = &end["failures"][0];
    assert_eq!(failure["attempts"], 2, "{end}");
    assert!(
        failure["reason"].as_str().unwrap().contains("games"),
        "{end}"
    );
    // `verdict watch` on an ended job says so and exits 1.
    let watched = client(&addr, &["watch", &job.to_string()]);
    assert_eq!(watched.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&watched.stdout).contains("failed shard 0 after 2 attempts"));
    drop(w);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
