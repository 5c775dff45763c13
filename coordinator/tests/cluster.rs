//! The distributed service with real processes on loopback: `verdict serve`,
//! `verdict worker`s and the client commands, compared with `verdict run`
//! on the same generated corpus.

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;
use support::*;

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
        (
            &[&format!("{}/in/../../", dir.display())],
            "outside the allowed roots",
        ),
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
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--max-attempts", "2"]);
    let job = submit(&addr, &[&dir.join("in")], &dir.join("out"), 1 << 20);
    // The job's staging folder is taken away before any worker comes, so
    // no part can be written.
    for e in std::fs::read_dir(dir.join("out/_staging")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            std::fs::remove_dir_all(&p).unwrap();
        }
    }
    let w = worker(&dir, &addr, "w", &["-j", "1"]);
    let end = wait_for_end(&addr, job, &[&w, &server]);
    assert_eq!(end["state"], "done with failures", "{end}");
    assert_eq!(end["shards"]["failed"], 1, "{end}");
    let failure = &end["failures"][0];
    assert_eq!(failure["attempts"], 2, "{end}");
    assert!(
        failure["reason"]
            .as_str()
            .unwrap()
            .contains("staging folder"),
        "{end}"
    );
    assert!(
        end["error"]
            .as_str()
            .unwrap()
            .contains("nothing was published"),
        "{end}"
    );
    assert!(!dir.join("out/summary.json").exists());
    // `verdict watch` on an ended job says so and exits 1.
    let watched = client(&addr, &["watch", &job.to_string()]);
    assert_eq!(watched.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&watched.stdout).contains("failed shard 0 after 2 attempts"));
    drop(w);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
