//! The edges of the distributed service, each a way it once went wrong
//! (issue 17): jobs that share a folder, completions it must not trust,
//! links out of the roots, a state file that cannot be written, messages
//! too big, work without bound, clients that gave up too early and
//! workers too late. Real processes on loopback, the CLI or a raw gRPC
//! client, as an operator or an attacker would do it.

mod support;

use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::*;
use verdict_proto::v1;
use verdict_proto::v1::jobs_client::JobsClient;
use verdict_proto::v1::workers_client::WorkersClient;

fn code(out: &std::process::Output) -> Option<i32> {
    out.status.code()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn cancel(addr: &str, job: u64) {
    let c = json_of(&client(addr, &["cancel", &job.to_string(), "--json"]));
    assert_eq!(c["state"], "cancelled", "{c}");
}

/// Finding 1: a cancelled job's worker, paused while it held a shard,
/// comes back after a new job took the folder. It used to rename its part
/// into the new job's folder; now it has nowhere to write.
#[test]
fn a_cancelled_jobs_late_worker_cannot_write_into_the_next_job() {
    let dir = temp("late");
    let corpus = corpus(&dir, 150);
    local_run(&corpus, &dir.join("local"));
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--lease-ttl-ms", "1500"]);
    let out = dir.join("job");
    let first = submit(&addr, &[&corpus], &out, 60_000);
    let late = worker(&dir, &addr, "late", &["-j", "1"]);
    wait_until(
        Duration::from_secs(60),
        "a lease",
        &[&late, &server],
        || late.log().contains("shard leased"),
    );
    late.pause();
    cancel(&addr, first);
    let second = submit(&addr, &[&corpus], &out, 60_000);
    let others: Vec<Proc> = (0..2)
        .map(|i| worker(&dir, &addr, &format!("w{i}"), &["-j", "1"]))
        .collect();
    let end = wait_for_end(&addr, second, &[&others[0], &server]);
    assert_eq!(end["state"], "done", "{end}");
    drop(others);
    // The late worker finishes its shard of the cancelled job and tries.
    late.resume();
    wait_until(
        Duration::from_secs(60),
        "the late worker to give its shard up",
        &[&late, &server],
        || {
            let log = late.log();
            log.contains("lease lost")
                || log.contains("staging folder")
                || log.contains("completion refused")
        },
    );
    std::thread::sleep(Duration::from_secs(1));
    assert!(!late.log().contains("shard done"), "{}", late.log());
    assert_same_as_local(&out, &dir.join("local"));
    assert_clean(&out);
    let marker: Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
    assert_eq!(marker["job"], second);
    drop(late);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 2: `X`, `X/`, `X//`, `X/./`, `p/../X` and a link to X are one
/// folder, and a folder inside or around a running job's is refused too.
#[test]
fn one_folder_under_other_names_is_one_folder() {
    let dir = temp("names");
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("in/a.sgf"), "(;SZ[9];B[aa];W[bb])").unwrap();
    let (server, addr) = serve(&dir, "127.0.0.1:0", &[]);
    let out = dir.join("x");
    submit(&addr, &[&dir.join("in")], &out, 1 << 20);
    symlink(&out, dir.join("alias")).unwrap();
    let x = out.display().to_string();
    for other in [
        format!("{x}/"),
        format!("{x}//"),
        format!("{}/./x", dir.display()),
        format!("{}/in/../x", dir.display()),
        dir.join("alias").display().to_string(),
        format!("{x}/deeper"),
    ] {
        let o = client(
            &addr,
            &[
                "submit",
                &dir.join("in").display().to_string(),
                "--out",
                &other,
            ],
        );
        assert_eq!(code(&o), Some(2), "{other}");
        let said = stderr(&o);
        assert!(said.contains("job 1 is writing to"), "{other}: {said}");
    }
    let jobs = json_of(&client(&addr, &["jobs", "--json"]));
    assert_eq!(jobs.as_array().unwrap().len(), 1, "{jobs}");
    assert_eq!(jobs[0]["out"], x, "the job names its folder resolved");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 3: links out of the allowed roots, made before a submit or
/// swapped in after it, are neither followed when reading nor written
/// through.
#[test]
fn links_out_of_the_roots_are_neither_followed_nor_written_through() {
    let dir = temp("links");
    let outside = temp("links-outside");
    std::fs::write(outside.join("precious.parquet"), "keep me").unwrap();
    std::fs::write(outside.join("victim.json"), "keep me too").unwrap();
    std::fs::write(
        outside.join("secret.sgf"),
        "(;GM[1]SZ[9]PB[Secret]PW[Agent]KM[6.5]RE[B+R];B[ee];W[cc])",
    )
    .unwrap();
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(
        input.join("a.sgf"),
        "(;GM[1]SZ[9]KM[6.5];B[ee];W[cc];B[];W[])",
    )
    .unwrap();
    std::fs::write(
        input.join("b.sgf"),
        "(;GM[1]SZ[9]KM[6.5];B[dd];W[ff];B[];W[])",
    )
    .unwrap();
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--max-attempts", "1"]);
    let submit_to = |out: &Path| {
        client(
            &addr,
            &[
                "submit",
                &input.display().to_string(),
                "--out",
                &out.display().to_string(),
                "--json",
            ],
        )
    };
    // Before submit: refused, nothing out there touched.
    for (out, link, target) in [
        (dir.join("o1"), "games", outside.clone()),
        (dir.join("o2"), "summary.json", outside.join("victim.json")),
        (dir.join("o3"), "_staging", outside.clone()),
    ] {
        std::fs::create_dir_all(&out).unwrap();
        symlink(&target, out.join(link)).unwrap();
        let o = submit_to(&out);
        assert_eq!(code(&o), Some(2), "{link}");
        assert!(
            stderr(&o).contains("symbolic link"),
            "{link}: {}",
            stderr(&o)
        );
    }
    // After submit: the job's staging folder swapped for a link out.
    let o4 = dir.join("o4");
    let job4 = json_of(&submit_to(&o4))["id"].as_u64().unwrap();
    let staging = std::fs::read_dir(o4.join("_staging"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    std::fs::remove_dir_all(&staging).unwrap();
    symlink(&outside, &staging).unwrap();
    // An input swapped for a link out, and summary.json for a link to a
    // file out there, after the next submit.
    let o5 = dir.join("o5");
    let job5 = json_of(&submit_to(&o5))["id"].as_u64().unwrap();
    std::fs::remove_file(input.join("b.sgf")).unwrap();
    symlink(outside.join("secret.sgf"), input.join("b.sgf")).unwrap();
    symlink(outside.join("victim.json"), o5.join("summary.json")).unwrap();
    let w = worker(&dir, &addr, "w", &["-j", "1"]);
    let end4 = wait_for_end(&addr, job4, &[&w, &server]);
    assert_eq!(end4["state"], "done with failures", "{end4}");
    assert!(
        end4["failures"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("symbolic link"),
        "{end4}"
    );
    let end5 = wait_for_end(&addr, job5, &[&w, &server]);
    assert_eq!(end5["state"], "done", "{end5}");
    let all = rows(&o5);
    assert_eq!(all.len(), 2);
    assert!(
        all.iter().all(|r| !r.contains("Secret")),
        "the secret was read: {all:?}"
    );
    assert!(
        all.iter()
            .any(|r| r.contains("b.sgf") && r.contains("skip_reason=unreadable")),
        "{all:?}"
    );
    assert!(!std::fs::symlink_metadata(o5.join("summary.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_clean(&o5);
    assert_eq!(
        names(&outside),
        ["precious.parquet", "secret.sgf", "victim.json"],
        "nothing was written out there"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("precious.parquet")).unwrap(),
        "keep me"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("victim.json")).unwrap(),
        "keep me too"
    );
    drop(w);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&outside);
}

/// Findings 4 and 10: a submit that is refused, or accepted but not yet
/// finished, leaves the folder's published output whole; the new output
/// replaces it only when complete.
#[test]
fn the_published_output_stays_whole_until_the_next_job_is_complete() {
    let dir = temp("whole");
    let corpus = corpus(&dir, 120);
    local_run(&corpus, &dir.join("local"));
    let (server, addr) = serve(&dir, "127.0.0.1:0", &[]);
    let out = dir.join("job");
    let first = submit(&addr, &[&corpus], &out, 60_000);
    let w = worker(&dir, &addr, "w", &["-j", "2"]);
    assert_eq!(wait_for_end(&addr, first, &[&w, &server])["state"], "done");
    drop(w);
    let published = rows(&out);
    let second = submit(&addr, &[&corpus], &out, 60_000);
    for refused in [
        vec!["submit".to_string(), corpus.display().to_string()],
        vec![
            "submit".to_string(),
            dir.join("missing").display().to_string(),
        ],
    ] {
        let mut args: Vec<&str> = refused.iter().map(String::as_str).collect();
        let o = out.display().to_string();
        args.extend(["--out", &o]);
        let got = client(&addr, &args);
        assert_eq!(code(&got), Some(2), "{}", stderr(&got));
    }
    // Job 2 has not finished: job 1's output is all there, and says so.
    assert_eq!(rows(&out), published);
    assert_eq!(counts(&out), counts(&dir.join("local")));
    let marker: Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
    assert_eq!(marker["job"], first);
    let w = worker(&dir, &addr, "w2", &["-j", "2"]);
    assert_eq!(wait_for_end(&addr, second, &[&w, &server])["state"], "done");
    assert_same_as_local(&out, &dir.join("local"));
    assert_clean(&out);
    let marker: Value =
        serde_json::from_slice(&std::fs::read(out.join("_SUCCESS")).unwrap()).unwrap();
    assert_eq!(marker["job"], second);
    drop(w);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small tmpfs at `at`, or `None` (and a line saying the test skips) when
/// this process may not mount one.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            Some(Tmpfs(at.to_path_buf()))
        } else {
            eprintln!(
                "SKIPPED: cannot mount a tmpfs here (needs root): the full-disk checks did not run"
            );
            None
        }
    }

    /// Writes a file until the disk is full; returns its path.
    fn fill(&self) -> PathBuf {
        let filler = self.0.join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 4096];
        while f.write_all(&block).is_ok() {}
        while f.write_all(&[0]).is_ok() {}
        let _ = f.sync_all();
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

fn health(addr: &str) -> i32 {
    rt().block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut h = tonic_health::pb::health_client::HealthClient::new(channel);
        h.check(tonic_health::pb::HealthCheckRequest {
            service: "verdict.v1.Jobs".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .status
    })
}

/// Finding 5: with the state disk full, a submit is refused (not answered
/// "job N" and then forgotten), health says NOT_SERVING and a metric counts
/// the failed writes; once space is back the coordinator serves again from
/// what its file holds. One coordinator per state file.
#[test]
fn a_state_file_that_cannot_be_written_refuses_changes_and_says_so() {
    let dir = temp("full");
    let Some(disk) = Tmpfs::mount(&dir.join("state-disk"), "1m") else {
        return;
    };
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("in/a.sgf"), "(;SZ[9];B[aa];W[bb])").unwrap();
    let state = disk.0.join("state.db");
    let metrics_addr = free_port();
    let (mut server, addr) = serve_on(
        &dir,
        &state,
        "127.0.0.1:0",
        &["--metrics-listen", &metrics_addr],
    );
    // A second coordinator on the same state file is refused at once.
    let second = verdict()
        .args(["serve", "--listen", "127.0.0.1:0", "--state"])
        .arg(&state)
        .arg("--allow-root")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(code(&second), Some(2));
    assert!(
        stderr(&second).contains("another coordinator"),
        "{}",
        stderr(&second)
    );
    let serving = tonic_health::pb::health_check_response::ServingStatus::Serving as i32;
    assert_eq!(health(&addr), serving);

    let filler = disk.fill();
    let input = dir.join("in").display().to_string();
    let o = client(
        &addr,
        &[
            "submit",
            &input,
            "--out",
            &dir.join("o1").display().to_string(),
        ],
    );
    assert_eq!(
        code(&o),
        Some(2),
        "a submit the state file did not take is refused"
    );
    assert!(stderr(&o).contains("state file"), "{}", stderr(&o));
    assert!(stderr(&o).contains("Unavailable"), "{}", stderr(&o));
    wait_until(Duration::from_secs(10), "NOT_SERVING", &[&server], || {
        health(&addr) != serving
    });
    let m = metrics(&metrics_addr);
    assert!(m.contains("verdict_state_writable 0"), "{m}");
    let errors: u64 = m
        .lines()
        .find_map(|l| l.strip_prefix("verdict_state_write_errors_total "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(errors >= 1, "{m}");
    assert_eq!(
        json_of(&client(&addr, &["jobs", "--json"])),
        serde_json::json!([])
    );

    std::fs::remove_file(&filler).unwrap();
    wait_until(Duration::from_secs(20), "SERVING again", &[&server], || {
        health(&addr) == serving
    });
    let id = submit(&addr, &[&dir.join("in")], &dir.join("o2"), 1 << 20);
    // Stored: a restart knows the job, and gives the next one another id.
    server.kill9();
    let (server, addr) = serve_on(&dir, &state, "127.0.0.1:0", &[]);
    assert_eq!(
        status(&addr, id)["out"],
        dir.join("o2").display().to_string()
    );
    let next = submit(&addr, &[&dir.join("in")], &dir.join("o3"), 1 << 20);
    assert!(next > id);
    drop(server);
    drop(disk);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 6: a shard summary bigger than a gRPC message (every pair of
/// rule sets, by each of 1,600 inputs) travels in pieces; the job's summary
/// equals the local run's.
#[test]
fn a_summary_larger_than_a_message_travels_in_pieces() {
    let dir = temp("big-summary");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let mut paths = Vec::new();
    for i in 0..1600 {
        // A finished 5x5 game, scored under every rule set.
        let p = input.join(format!("g{i:04}.sgf"));
        std::fs::write(&p, "(;GM[1]SZ[5]KM[0.5];B[cc];W[];B[])").unwrap();
        paths.push(p);
    }
    let mut local = verdict();
    local
        .arg("run")
        .args(&paths)
        .args(["--all-pairs", "--out"])
        .arg(dir.join("local"));
    let o = local.output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (server, addr) = serve(&dir, "127.0.0.1:0", &[]);
    let mut args: Vec<String> = vec!["submit".into(), "--json".into(), "--all-pairs".into()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    args.extend(["--out".into(), dir.join("job").display().to_string()]);
    args.extend(["--shard-bytes".into(), "1000000000".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let job = json_of(&client(&addr, &args))["id"].as_u64().unwrap();
    let w = worker(&dir, &addr, "w", &["-j", "2"]);
    let end = wait_for_end(&addr, job, &[&w, &server]);
    assert_eq!(end["state"], "done", "{end}");
    assert_eq!(end["shards"]["total"], 1, "one shard, one summary");
    let s = counts(&dir.join("job"));
    assert!(
        s["comparisons"].as_array().unwrap().len() > 80_000,
        "a big summary"
    );
    assert_eq!(s, counts(&dir.join("local")));
    assert_clean(&dir.join("job"));
    drop(w);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 7: a completion is taken only from a lease issued for that job
/// and shard; lease ids cannot be guessed; a coordinator restarted on an
/// empty state file takes nothing from the old one's workers.
#[test]
fn completions_are_checked_against_the_leases_issued() {
    let dir = temp("forged");
    let corpus = corpus(&dir, 120);
    local_run(&corpus, &dir.join("local"));
    let state = dir.join("state.db");
    let (mut server, addr) = serve_on(&dir, &state, "127.0.0.1:0", &["--lease-ttl-ms", "3000"]);
    let out = dir.join("job");
    let job = submit(&addr, &[&corpus], &out, 50_000);
    let forged = rt().block_on(async {
        let (mut w, worker) = raw_worker(&addr, "attacker").await;
        let fake = |lease_id: u64, shard: u32| v1::CompleteRequest {
            lease_id,
            job_id: job,
            shard,
            summary: Some(v1::ShardSummary {
                games: 5_000_000,
                ..Default::default()
            }),
        };
        let mut codes = Vec::new();
        for guess in [worker, worker + 1, 1, job] {
            codes.push(w.complete(fake(guess, 0)).await.unwrap_err().code());
        }
        let lease = raw_lease(&mut w, worker).await;
        let next = raw_lease(&mut w, worker).await;
        codes.push(
            w.complete(fake(lease.lease_id, lease.shard + 1))
                .await
                .unwrap_err()
                .code(),
        );
        // Hand them back: the real workers below do the job.
        for l in [&lease, &next] {
            w.fail(v1::FailRequest {
                lease_id: l.lease_id,
                reason: "test".into(),
                release: true,
            })
            .await
            .unwrap();
        }
        (codes, worker, lease.lease_id, next.lease_id)
    });
    let (codes, worker_id, l1, l2) = forged;
    assert!(
        codes.iter().all(|c| *c == tonic::Code::FailedPrecondition),
        "{codes:?}"
    );
    assert!(
        l1.abs_diff(l2) > 1 << 32 && l1.abs_diff(worker_id) > 1 << 32,
        "ids follow each other"
    );
    assert_eq!(status(&addr, job)["games"], 0, "no forged game counted");

    // The old coordinator dies with a shard leased; a new one starts on an
    // empty state file, on the same address, and takes a job into the
    // same folder. The old worker's shard is not the new job's.
    let old = worker(&dir, &addr, "old", &["-j", "1"]);
    wait_until(Duration::from_secs(60), "a lease", &[&old, &server], || {
        old.log().contains("shard leased")
    });
    server.kill9();
    for suffix in ["", "-wal", "-shm"] {
        let mut p = state.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    let (server, again) = serve_on(&dir, &state, &addr, &["--lease-ttl-ms", "3000"]);
    assert_eq!(again, addr);
    let fresh = submit(&addr, &[&corpus], &out, 50_000);
    assert_eq!(fresh, 1, "an empty state file starts again at job 1");
    let new = worker(&dir, &addr, "new", &["-j", "1"]);
    let end = wait_for_end(&addr, fresh, &[&old, &new, &server]);
    assert_eq!(end["state"], "done", "{end}");
    assert_same_as_local(&out, &dir.join("local"));
    assert_clean(&out);
    drop(old);
    drop(new);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 8: an input folder with two links to itself is read once (the
/// loop listed, not walked forever), locally and at submit.
#[test]
fn a_folder_that_links_to_itself_is_read_once() {
    let dir = temp("loop");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::write(
        input.join("a.sgf"),
        "(;GM[1]SZ[9]KM[6.5];B[ee];W[cc];B[];W[])",
    )
    .unwrap();
    std::fs::write(
        input.join("sub/b.sgf"),
        "(;GM[1]SZ[9]KM[6.5];B[dd];W[ff];B[];W[])",
    )
    .unwrap();
    symlink(&input, input.join("again")).unwrap();
    symlink(&input, input.join("sub/up")).unwrap();
    let start = Instant::now();
    let local = verdict()
        .args(["run", "--json", "--out"])
        .arg(dir.join("local"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(local.status.success(), "{}", stderr(&local));
    assert!(start.elapsed() < Duration::from_secs(60));
    let replay = verdict()
        .arg("replay")
        .arg(&input)
        .arg("--json")
        .output()
        .unwrap();
    let replayed: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(replayed["games"], 2, "{replayed}");
    let (server, addr) = serve(&dir, "127.0.0.1:0", &[]);
    let job = submit(&addr, &[&input], &dir.join("job"), 1 << 20);
    assert_eq!(status(&addr, job)["shards"]["total"], 1);
    let w = worker(&dir, &addr, "w", &["-j", "1"]);
    assert_eq!(wait_for_end(&addr, job, &[&w, &server])["state"], "done");
    assert_same_rows(&dir.join("job"), &dir.join("local"), 2);
    drop(w);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `assert_same_as_local` for outputs of any size.
fn assert_same_rows(job: &Path, local: &Path, n: usize) {
    let (a, b) = (rows(job), rows(local));
    assert_eq!(a.len(), n);
    assert!(a == b, "the same rows as the local run");
    assert_eq!(counts(job), counts(local));
}

/// Finding 8: listings come in pages, jobs can be deleted and expire, and
/// what a request carries is bounded, with INVALID_ARGUMENT naming the
/// limit.
#[test]
fn listings_come_in_pages_and_jobs_are_deleted_or_expire() {
    let dir = temp("pages");
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("in/a.sgf"), "(;SZ[9];B[aa];W[bb])").unwrap();
    let (mut server, addr) = serve(&dir, "127.0.0.1:0", &["--retention-hours", "0.001"]);
    let input = dir.join("in").display().to_string();
    let refused = rt().block_on(async {
        let mut jobs = JobsClient::new(raw(&addr).await);
        for i in 0..120 {
            jobs.submit(v1::SubmitRequest {
                inputs: vec![input.clone()],
                out: dir.join(format!("out/{i}")).display().to_string(),
                ..Default::default()
            })
            .await
            .unwrap();
        }
        let mut refused = Vec::new();
        for req in [
            v1::SubmitRequest {
                inputs: vec![input.clone()],
                out: dir.join("big").display().to_string(),
                label: "x".repeat(3_900_000),
                ..Default::default()
            },
            v1::SubmitRequest {
                inputs: vec![input.clone()],
                out: dir.join("sweep").display().to_string(),
                options: Some(v1::AnalysisOptions {
                    komi_sweep: vec![6.5; 5000],
                    ..Default::default()
                }),
                ..Default::default()
            },
            v1::SubmitRequest {
                inputs: vec![format!("{}/{}", dir.display(), "p".repeat(5000))],
                out: dir.join("long").display().to_string(),
                ..Default::default()
            },
        ] {
            refused.push(jobs.submit(req).await.unwrap_err());
        }
        let mut w = WorkersClient::new(raw(&addr).await);
        refused.push(
            w.register(v1::RegisterRequest {
                name: "n".repeat(10_000),
                threads: 1,
                protocol: verdict_proto::PROTOCOL_VERSION,
            })
            .await
            .unwrap_err(),
        );
        refused
    });
    for s in &refused {
        assert_eq!(s.code(), tonic::Code::InvalidArgument, "{s:?}");
        assert!(s.message().contains("limit"), "{}", s.message());
        assert!(
            s.message().len() < 300,
            "the message echoes the request: {}",
            s.message().len()
        );
    }
    let newest = json_of(&client(&addr, &["jobs", "--json"]));
    let newest = newest.as_array().unwrap();
    assert_eq!(newest.len(), 50, "50 by default");
    assert_eq!(newest[0]["id"], 120, "newest first");
    let every = json_of(&client(&addr, &["jobs", "--all", "--json"]));
    assert_eq!(every.as_array().unwrap().len(), 120);
    let o = client(&addr, &["delete", "1"]);
    assert_eq!(code(&o), Some(2));
    assert!(stderr(&o).contains("cancel it first"), "{}", stderr(&o));
    cancel(&addr, 1);
    assert_eq!(code(&client(&addr, &["delete", "1"])), Some(0));
    cancel(&addr, 2);
    server.kill9();
    let (server, addr) = serve(&dir, "127.0.0.1:0", &["--retention-hours", "0.001"]);
    assert!(
        stderr(&client(&addr, &["status", "1"])).contains("no job 1"),
        "deleted for good"
    );
    // Job 2 ended; 3.6 s later it is forgotten.
    wait_until(
        Duration::from_secs(20),
        "job 2 to expire",
        &[&server],
        || stderr(&client(&addr, &["status", "2"])).contains("no job 2"),
    );
    assert_eq!(
        status(&addr, 3)["state"],
        "running",
        "running jobs never expire"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The CPU time (user + system, in clock ticks) a process has used.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

/// Finding 8: hundreds of idle connections to `/metrics`, past the
/// coordinator's open-file limit, used to put it in a busy loop; now it
/// idles, and gRPC still answers.
#[test]
fn idle_metrics_connections_cost_no_cpu() {
    let dir = temp("idle");
    let metrics_addr = free_port();
    let log = dir.join("serve.log");
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 128 && exec '{}' serve --listen 127.0.0.1:0 --token {TOKEN} --state '{}' --allow-root '{}' --metrics-listen {metrics_addr}",
            env!("CARGO_BIN_EXE_verdict"),
            dir.join("state.db").display(),
            dir.display()
        ))
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let server = Proc { child, log };
    let addr = line
        .trim()
        .strip_prefix("verdict: listening on ")
        .unwrap()
        .to_string();
    // The metrics listener may come up just after the gRPC one: wait for
    // it, or a loaded machine refuses the first connections.
    let up = Instant::now();
    while std::net::TcpStream::connect(&metrics_addr).is_err() {
        assert!(
            up.elapsed() < Duration::from_secs(20),
            "no metrics listener"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let idle: Vec<std::net::TcpStream> = (0..300)
        .filter_map(|_| std::net::TcpStream::connect(&metrics_addr).ok())
        .collect();
    // More than the coordinator may open files for (how many the kernel
    // queues beyond that varies).
    assert!(idle.len() > 150, "{} connections", idle.len());
    std::thread::sleep(Duration::from_millis(500));
    let before = cpu_ticks(server.pid());
    std::thread::sleep(Duration::from_secs(3));
    let used = cpu_ticks(server.pid()) - before;
    // 100 ticks a second: a busy loop would use about 300.
    assert!(
        used < 60,
        "the coordinator used {used} ticks in 3 s with idle connections"
    );
    let jobs = client(&addr, &["jobs", "--json"]);
    assert!(jobs.status.success(), "{}", stderr(&jobs));
    drop(idle);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 9: `submit --wait` and `watch` follow a job across a coordinator
/// restart (the shipped CronJob relies on `--wait`).
#[test]
fn waiting_clients_ride_out_a_coordinator_restart() {
    let dir = temp("ride");
    let corpus = corpus(&dir, 150);
    local_run(&corpus, &dir.join("local"));
    let (mut server, addr) = serve(&dir, "127.0.0.1:0", &["--lease-ttl-ms", "3000"]);
    let w = worker(&dir, &addr, "w", &["-j", "1"]);
    let out = dir.join("job");
    let wait_log = dir.join("submit-wait.log");
    let waiting = verdict()
        .args([
            "submit",
            "--json",
            "--wait",
            "--shard-bytes",
            "30000",
            "--out",
        ])
        .arg(&out)
        .arg(&corpus)
        .args(["--coordinator", &format!("http://{addr}")])
        .env("VERDICT_TOKEN", TOKEN)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&wait_log).unwrap())
        .spawn()
        .unwrap();
    let mut waiting = Proc {
        child: waiting,
        log: wait_log,
    };
    wait_until(
        Duration::from_secs(60),
        "the job",
        &[&waiting, &server],
        || client(&addr, &["status", "1", "--json"]).status.success(),
    );
    let watch_log = dir.join("watch.log");
    let watching = verdict()
        .args([
            "watch",
            "1",
            "--json",
            "--coordinator",
            &format!("http://{addr}"),
        ])
        .env("VERDICT_TOKEN", TOKEN)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&watch_log).unwrap())
        .spawn()
        .unwrap();
    let mut watching = Proc {
        child: watching,
        log: watch_log,
    };
    wait_until(
        Duration::from_secs(120),
        "two shards done",
        &[&server],
        || status(&addr, 1)["shards"]["done"].as_u64().unwrap() >= 2,
    );
    assert_eq!(status(&addr, 1)["state"], "running", "killed too late");
    server.kill9();
    std::thread::sleep(Duration::from_secs(2));
    let (server, again) = serve(&dir, &addr, &["--lease-ttl-ms", "3000"]);
    assert_eq!(again, addr);
    let done = waiting
        .exited_within(Duration::from_secs(180))
        .expect("submit --wait ends");
    assert!(done.success(), "submit --wait: {}", waiting.log());
    let done = watching
        .exited_within(Duration::from_secs(30))
        .expect("watch ends");
    assert!(done.success(), "watch: {}", watching.log());
    assert!(waiting.log().contains("reconnecting"), "{}", waiting.log());
    assert_same_as_local(&out, &dir.join("local"));
    drop(w);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 9: a worker asked to stop while its coordinator is gone reports
/// its finished shard only for --drain-seconds, then exits non-zero saying
/// the shard will run again; a URL without a scheme works, one with another
/// scheme is refused at once; `watch` says when no worker is active.
#[test]
fn workers_and_clients_give_up_when_they_should() {
    let dir = temp("give-up");
    let corpus = corpus(&dir, 60);
    let (mut server, addr) = serve(&dir, "127.0.0.1:0", &[]);
    let job = submit(&addr, &[&corpus], &dir.join("job"), 1 << 30);
    // No worker yet: `watch` says so.
    let watched = verdict()
        .args(["watch", &job.to_string(), "--coordinator", &addr])
        .env("VERDICT_TOKEN", TOKEN)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let mut watched = Proc {
        child: watched,
        log: dir.join("none"),
    };
    watched.kill9();
    let mut said = String::new();
    std::io::Read::read_to_string(watched.child.stderr.as_mut().unwrap(), &mut said).unwrap();
    assert!(said.contains("no worker active"), "{said}");
    // A bare host:port is a URL; ftp:// is refused before any retry.
    assert!(client(&addr, &["jobs"]).status.success());
    let ftp = verdict()
        .args(["worker", "--coordinator", "ftp://127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(code(&ftp), Some(2));
    assert!(stderr(&ftp).contains("scheme"), "{}", stderr(&ftp));

    let mut w = worker(&dir, &addr, "w", &["-j", "1", "--drain-seconds", "2"]);
    wait_until(Duration::from_secs(60), "a lease", &[&w, &server], || {
        w.log().contains("shard leased")
    });
    server.kill9();
    wait_until(
        Duration::from_secs(120),
        "the finished shard to go unreported",
        &[&w],
        || w.log().contains("cannot report a finished shard"),
    );
    let asked = Instant::now();
    let term = std::process::Command::new("kill")
        .args(["-TERM", &w.pid().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let exit = w
        .exited_within(Duration::from_secs(30))
        .expect("the worker exits");
    assert!(asked.elapsed() < Duration::from_secs(20));
    assert_eq!(exit.code(), Some(1), "{}", w.log());
    assert!(w.log().contains("will run again"), "{}", w.log());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 11: --token-file keeps the token out of the process list; a
/// worker paused past its lease drops its shard once and writes nothing
/// published; the lapsed-lease count survives a restart; `..` that stays
/// inside a root is fine.
#[test]
fn tokens_from_files_and_a_worker_paused_past_its_lease() {
    let dir = temp("paused");
    let corpus = corpus(&dir, 150);
    local_run(&corpus, &dir.join("local"));
    let token_file = dir.join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let state = dir.join("state.db");
    let log = dir.join("serve.log");
    let mut child = verdict()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--lease-ttl-ms",
            "1500",
            "--token-file",
        ])
        .arg(&token_file)
        .arg("--state")
        .arg(&state)
        .arg("--allow-root")
        .arg(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let mut server = Proc { child, log };
    let addr = line
        .trim()
        .strip_prefix("verdict: listening on ")
        .unwrap()
        .to_string();
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.pid())).unwrap();
    assert!(
        !String::from_utf8_lossy(&cmdline).contains(TOKEN),
        "the token shows in the process list"
    );
    let with_file = |args: &[&str]| {
        verdict()
            .args(args)
            .args(["--coordinator", &addr, "--token-file"])
            .arg(&token_file)
            .output()
            .unwrap()
    };
    let dotted = format!(
        "{}/../{}",
        corpus.display(),
        corpus.file_name().unwrap().to_string_lossy()
    );
    let out = dir.join("job");
    let submitted = with_file(&[
        "submit",
        &dotted,
        "--out",
        &out.display().to_string(),
        "--shard-bytes",
        "60000",
        "--json",
    ]);
    let job = json_of(&submitted);
    assert_eq!(job["inputs"][0], corpus.display().to_string(), "resolved");
    let paused_log = dir.join("worker-paused.log");
    let paused = verdict()
        .args([
            "worker",
            "-j",
            "1",
            "--name",
            "paused",
            "--coordinator",
            &addr,
            "--token-file",
        ])
        .arg(&token_file)
        .stderr(std::fs::File::create(&paused_log).unwrap())
        .spawn()
        .unwrap();
    let paused = Proc {
        child: paused,
        log: paused_log,
    };
    wait_until(
        Duration::from_secs(60),
        "a lease",
        &[&paused, &server],
        || paused.log().contains("shard leased"),
    );
    paused.pause();
    let other = worker(&dir, &addr, "other", &["-j", "1"]);
    std::thread::sleep(Duration::from_secs(4));
    paused.resume();
    let end = wait_for_end(&addr, 1, &[&paused, &other, &server]);
    assert_eq!(end["state"], "done", "{end}");
    let expiries = end["lease_expiries"].as_u64().unwrap();
    assert!(expiries >= 1, "{end}");
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        paused.log().matches("lease lost").count() <= 1,
        "said more than once: {}",
        paused.log()
    );
    assert_same_as_local(&out, &dir.join("local"));
    assert_clean(&out);
    server.kill9();
    let (server, addr) = serve_on(&dir, &state, "127.0.0.1:0", &[]);
    assert_eq!(
        status(&addr, 1)["lease_expiries"].as_u64().unwrap(),
        expiries
    );
    drop((paused, other, server));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Findings 3 and 10: `verdict run` into a folder on a full disk fails
/// saying why, and leaves the last output whole: no half summary, no
/// temporary file where readers look.
#[test]
fn a_full_disk_leaves_the_last_output_whole() {
    let dir = temp("full-out");
    let corpus = corpus(&dir, 40);
    let Some(disk) = Tmpfs::mount(&dir.join("out-disk"), "4m") else {
        return;
    };
    let out = disk.0.join("results");
    local_run(&corpus, &out);
    let before = (
        rows(&out),
        summary(&out),
        std::fs::read(out.join("_SUCCESS")).unwrap(),
    );
    disk.fill();
    let o = verdict()
        .arg("run")
        .arg(&corpus)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(code(&o), Some(2));
    assert!(stderr(&o).contains("No space left"), "{}", stderr(&o));
    assert_eq!(rows(&out), before.0);
    assert_eq!(summary(&out), before.1);
    assert_eq!(std::fs::read(out.join("_SUCCESS")).unwrap(), before.2);
    assert_clean(&out);
    drop(disk);
    let _ = std::fs::remove_dir_all(&dir);
}
