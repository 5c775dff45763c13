//! A bounded chaos run: several jobs on one coordinator, two of them
//! sharing a folder and a third written to the same folder again, while
//! workers are paused past their lease, cut off behind a proxy and let back
//! in, killed mid-shard, a job is cancelled and its folder resubmitted, and
//! the coordinator itself is killed and restarted. Every finished job's
//! output must be exactly `verdict run`'s on its inputs, with nothing else
//! in its folder.

mod support;

use std::time::{Duration, Instant};

use serde_json::Value;
use support::*;

fn marker_job(out: &std::path::Path) -> u64 {
    let m: Value = serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
    m["job"].as_u64().unwrap()
}

fn shards_done(addr: &str, job: u64) -> u64 {
    status(addr, job)["shards"]["done"].as_u64().unwrap()
}

#[test]
fn jobs_under_faults_each_equal_their_local_run() {
    let started = Instant::now();
    let dir = temp("chaos");
    let a = synth(&dir, "a", 150, 1);
    let b = synth(&dir, "b", 120, 2);
    local_run(&a, &dir.join("local-a"));
    local_run(&b, &dir.join("local-b"));
    let (o1, o2, o3) = (dir.join("o1"), dir.join("o2"), dir.join("o3"));
    let flags = ["--lease-ttl-ms", "1500", "--max-attempts", "20"];
    let (mut server, addr) = serve(&dir, "127.0.0.1:0", &flags);
    let proxy = Proxy::new(&addr);
    let w1 = worker(&dir, &addr, "w1", &["-j", "1"]);
    let mut w2 = worker(&dir, &addr, "w2", &["-j", "1"]);
    let wp = worker(&dir, &proxy.addr, "behind-proxy", &["-j", "1"]);
    let j1 = submit(&addr, &[&a], &o1, 20_000);
    let j2 = submit(&addr, &[&b], &o2, 20_000);
    let j5 = submit(&addr, &[&b], &o3, 20_000);
    let logs = || vec![&server];
    wait_until(Duration::from_secs(120), "job 1 under way", &logs(), || {
        shards_done(&addr, j1) >= 2
    });

    // A worker paused past its lease, then let go on.
    w1.pause();
    std::thread::sleep(Duration::from_secs(3));
    w1.resume();
    // A partition: the worker behind the proxy is cut off past its lease.
    proxy.cut();
    std::thread::sleep(Duration::from_secs(3));
    proxy.heal();
    // A worker killed, whatever it was doing, and another in its place.
    w2.kill9();
    let w3 = worker(&dir, &addr, "w3", &["-j", "1"]);
    // Job 2 cancelled while it runs, and its folder taken by job 3.
    let cancel = client(&addr, &["cancel", &j2.to_string()]);
    if !cancel.status.success() {
        // On a loaded machine job 2 can have finished its shards already:
        // the cancel is then refused, and its folder is free once it has
        // published.
        let said = String::from_utf8_lossy(&cancel.stderr);
        assert!(said.contains("has ended"), "cancel refused: {said}");
        wait_for_end(&addr, j2, &[&server, &w1, &w3, &wp]);
    }
    let j3 = submit(&addr, &[&b], &o2, 20_000);
    // Job 1's folder written again once job 1 is done.
    let end1 = wait_for_end(&addr, j1, &[&server, &w1, &w3, &wp]);
    assert_eq!(end1["state"], "done", "{end1}");
    let j4 = submit(&addr, &[&a], &o1, 20_000);
    // The coordinator killed mid-way and restarted on its state file.
    wait_until(Duration::from_secs(120), "job 4 under way", &logs(), || {
        shards_done(&addr, j4) >= 1
    });
    server.kill9();
    std::thread::sleep(Duration::from_millis(500));
    let (server, again) = serve(&dir, &addr, &flags);
    assert_eq!(again, addr);
    for (job, out, local) in [
        (j3, &o2, dir.join("local-b")),
        (j4, &o1, dir.join("local-a")),
        (j5, &o3, dir.join("local-b")),
    ] {
        let end = wait_for_end(&addr, job, &[&server, &w1, &w3, &wp]);
        assert_eq!(end["state"], "done", "job {job}: {end}");
        assert_eq!(marker_job(out), job, "{} is job {job}'s", out.display());
        assert_same_as_local(out, &local);
    }
    // The faults were real: leases lapsed, and the worker behind the proxy
    // lost the coordinator. A worker paused or killed between two shards
    // holds no lease to lapse (shards here take a fraction of a second),
    // so how many of the three faults lapse one is the timing's: at least
    // one does (seen: 1 once in CI, 2 or more otherwise).
    let lapsed: u64 = [j1, j2, j3, j4, j5]
        .iter()
        .map(|j| status(&addr, *j)["lease_expiries"].as_u64().unwrap())
        .sum();
    assert!(lapsed >= 1, "{lapsed} leases lapsed");
    let cut = wp.log();
    assert!(
        cut.contains("heartbeat failed")
            || cut.contains("cannot reach")
            || cut.contains("cannot report"),
        "{cut}"
    );
    let j2_end = status(&addr, j2);
    assert!(
        j2_end["state"] == "cancelled" || j2_end["state"] == "done",
        "{j2_end}"
    );
    // Late writers had their chance; then nothing foreign or left over.
    drop((w1, w3, wp));
    for out in [&o1, &o2, &o3] {
        assert_clean(out);
    }
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(600), "took {elapsed:?}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
