//! The report in a real browser: Debian's `chromium`, headless, opens the
//! page of a generated corpus; the test asserts it loads without console
//! errors, exceptions or network requests, that the sections, figures and
//! boards are in the page and rendered with a size, that the embedded JSON
//! parses, that it prints, and it writes a screenshot.
//!
//! Without Chromium the test says so and passes, unless
//! `VERDICT_REQUIRE_CHROMIUM` is set (CI sets it, after installing it).
//! The DevTools protocol is spoken over a small WebSocket client written
//! here, so the test needs no dependency for it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("which").arg(name).output() {
            if out.status.success() {
                let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
                if !p.is_empty() {
                    return Some(PathBuf::from(p));
                }
            }
        }
    }
    None
}

fn verdict(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .output()
        .expect("running verdict");
    assert!(
        out.status.success(),
        "verdict {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Flags for a headless browser in a container: no sandbox (root), no GPU,
/// a profile of its own, nothing fetched in the background.
fn headless(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--mute-audio",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect()
}

/// Kills the browser when the test ends, however it ends.
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A WebSocket to one DevTools target: text frames only, client frames
/// masked as RFC 6455 asks.
struct Socket {
    stream: TcpStream,
    next_id: u64,
    /// Events received while waiting for answers.
    events: Vec<Value>,
}

impl Socket {
    fn connect(port: u16, path: &str) -> Socket {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("DevTools port");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte).expect("the handshake answer");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        Socket {
            stream,
            next_id: 1,
            events: Vec::new(),
        }
    }

    fn send_text(&mut self, text: &str) {
        let payload = text.as_bytes();
        let mut frame = vec![0x81u8];
        let len = payload.len();
        if len < 126 {
            frame.push(0x80 | len as u8);
        } else if len < 65536 {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        } else {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(len as u64).to_be_bytes());
        }
        let mask = [0x37u8, 0xfa, 0x21, 0x3d];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame).unwrap();
    }

    fn read_message(&mut self) -> Value {
        let mut message = Vec::new();
        loop {
            let mut h = [0u8; 2];
            self.stream.read_exact(&mut h).expect("a frame");
            let fin = h[0] & 0x80 != 0;
            let opcode = h[0] & 0x0f;
            let mut len = u64::from(h[1] & 0x7f);
            if len == 126 {
                let mut b = [0u8; 2];
                self.stream.read_exact(&mut b).unwrap();
                len = u64::from(u16::from_be_bytes(b));
            } else if len == 127 {
                let mut b = [0u8; 8];
                self.stream.read_exact(&mut b).unwrap();
                len = u64::from_be_bytes(b);
            }
            let mut payload = vec![0u8; len as usize];
            self.stream.read_exact(&mut payload).unwrap();
            match opcode {
                0x8 => panic!("the browser closed the DevTools connection"),
                0x9 | 0xA => continue, // ping, pong
                _ => message.extend_from_slice(&payload),
            }
            if fin {
                return serde_json::from_slice(&message).expect("DevTools speaks JSON");
            }
        }
    }

    /// Sends a command and waits for its answer, keeping the events.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_text(&json!({"id": id, "method": method, "params": params}).to_string());
        loop {
            let m = self.read_message();
            if m["id"] == id {
                assert!(m.get("error").is_none(), "{method}: {m}");
                return m["result"].clone();
            }
            self.events.push(m);
        }
    }

    fn wait_for(&mut self, method: &str, timeout: Duration) {
        let start = Instant::now();
        if self.events.iter().any(|e| e["method"] == method) {
            return;
        }
        while start.elapsed() < timeout {
            let m = self.read_message();
            let done = m["method"] == method;
            self.events.push(m);
            if done {
                return;
            }
        }
        panic!("no {method} within {timeout:?}");
    }
}

fn http_get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").unwrap();
    // The DevTools server may keep the connection open: read the head,
    // then exactly Content-Length bytes.
    let mut reader = BufReader::new(s);
    let mut len = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("an HTTP answer");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = Vec::new();
    match len {
        Some(n) => {
            body.resize(n, 0);
            reader.read_exact(&mut body).unwrap();
        }
        // An answer without a length ends when the server closes.
        None => {
            reader.read_to_end(&mut body).unwrap();
        }
    }
    String::from_utf8(body).unwrap()
}

/// What the page itself says about its sections, figures and boards,
/// measured after layout (sizes are rendered sizes, not attributes).
const PROBE: &str = r#"(() => {
  const svgSize = s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; };
  const sections = [...document.querySelectorAll('main > section')].map(s => s.id);
  const figures = [...document.querySelectorAll('figure')].map(f => {
    const svg = f.querySelector('svg');
    return { id: f.id, role: svg && svg.getAttribute('role'),
             title: svg && svg.querySelector('title') ? svg.querySelector('title').textContent : '',
             desc: svg && svg.querySelector('desc') ? svg.querySelector('desc').textContent : '',
             size: svg ? svgSize(svg) : [0, 0], marks: f.querySelectorAll('.mark, .cell').length,
             caption: f.querySelector('figcaption') ? f.querySelector('figcaption').textContent : '' };
  });
  const boards = [...document.querySelectorAll('svg.board')].map(b => ({ size: svgSize(b),
             stones: b.querySelectorAll('circle.bd-b, circle.bd-w').length }));
  let data = null;
  try { data = JSON.parse(document.getElementById('verdict-data').textContent); } catch (e) { data = String(e); }
  const external = [...document.querySelectorAll('[src], link[href]')].map(e => e.getAttribute('src') || e.getAttribute('href'));
  return JSON.stringify({ title: document.title, sections, figures, boards,
    dataFigures: data && data.figures, dataGames: data && data.games,
    headlineRows: document.querySelectorAll('#headline tbody tr').length,
    external, bodyHeight: document.body.scrollHeight });
})()"#;

#[test]
fn the_report_renders_in_chromium() {
    let Some(browser) = chromium() else {
        if std::env::var_os("VERDICT_REQUIRE_CHROMIUM").is_some() {
            panic!("VERDICT_REQUIRE_CHROMIUM is set but no chromium is installed (apt-get install chromium)");
        }
        eprintln!("skipping the browser test: chromium not found (apt-get install chromium)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("verdict-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let corpus = dir.join("corpus");
    let out = dir.join("out");
    verdict(&[
        "synth",
        "--games",
        "120",
        "--out",
        corpus.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    verdict(&[
        "run",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--komi",
        "5.5:8.5:0.5",
        "-j",
        "2",
    ]);
    let page = out.join("report.html");
    let url = format!("file://{}", page.display());

    // 1. A screenshot, as a person would first look at it.
    let png = dir.join("report.png");
    let shot = Command::new(&browser)
        .args(headless(&dir.join("profile-shot")))
        .args([
            "--window-size=1200,1800".to_string(),
            format!("--screenshot={}", png.display()),
            url.clone(),
        ])
        .stdin(Stdio::null())
        .output()
        .expect("running chromium");
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h) = (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    );
    assert_eq!((w, h), (1200, 1800));
    // A blank page compresses to a few kilobytes; charts and text do not.
    assert!(
        bytes.len() > 40_000,
        "{} bytes: is the page blank?",
        bytes.len()
    );

    // 2. The page through the DevTools protocol.
    let mut child = Command::new(&browser)
        .args(headless(&dir.join("profile-cdp")))
        .args([
            "--remote-debugging-port=0",
            "--window-size=1200,1800",
            "about:blank",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting chromium");
    let stderr = child.stderr.take().unwrap();
    let browser_process = Browser(child);
    let mut port = None;
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.split("DevTools listening on ws://127.0.0.1:").nth(1) {
            port = rest.split('/').next().and_then(|p| p.parse::<u16>().ok());
            break;
        }
    }
    let port = port.expect("chromium prints its DevTools port");
    let targets: Value = serde_json::from_str(&http_get(port, "/json/list")).unwrap();
    let ws = targets
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "page")
        .and_then(|t| t["webSocketDebuggerUrl"].as_str())
        .expect("a page target")
        .to_string();
    let path = &ws[ws.find("/devtools/").unwrap()..];
    let mut cdp = Socket::connect(port, path);
    for domain in [
        "Runtime.enable",
        "Log.enable",
        "Page.enable",
        "Network.enable",
    ] {
        cdp.call(domain, json!({}));
    }
    cdp.call("Page.navigate", json!({"url": url}));
    cdp.wait_for("Page.loadEventFired", Duration::from_secs(60));
    let probe = cdp.call(
        "Runtime.evaluate",
        json!({"expression": PROBE, "returnByValue": true}),
    );
    let pdf = cdp.call("Page.printToPDF", json!({"printBackground": true}));
    // Late console messages have had the time of the two calls to arrive.
    let events = std::mem::take(&mut cdp.events);
    drop(cdp);
    drop(browser_process);

    let problems: Vec<&Value> = events
        .iter()
        .filter(|e| {
            let m = e["method"].as_str().unwrap_or("");
            m == "Runtime.exceptionThrown"
                || (m == "Runtime.consoleAPICalled"
                    && matches!(
                        e["params"]["type"].as_str(),
                        Some("error" | "warning" | "assert")
                    ))
                || (m == "Log.entryAdded"
                    && matches!(
                        e["params"]["entry"]["level"].as_str(),
                        Some("error" | "warning")
                    ))
        })
        .collect();
    assert!(problems.is_empty(), "console problems: {problems:#?}");
    let requests: Vec<&str> = events
        .iter()
        .filter(|e| e["method"] == "Network.requestWillBeSent")
        .filter_map(|e| e["params"]["request"]["url"].as_str())
        .collect();
    assert!(
        requests
            .iter()
            .all(|u| u.starts_with("file://") || u.starts_with("data:")),
        "the page asked the network for {requests:?}"
    );
    assert!(
        requests.iter().any(|u| u.ends_with("report.html")),
        "{requests:?}"
    );

    let p: Value =
        serde_json::from_str(probe["result"]["value"].as_str().expect("the probe's JSON")).unwrap();
    assert_eq!(
        p["sections"],
        json!([
            "headline",
            "breakdowns",
            "komi-sweep",
            "why",
            "self-check",
            "examples",
            "uncertainty",
            "provenance"
        ])
    );
    assert_eq!(
        p["external"],
        json!([]),
        "nothing loaded from outside the page"
    );
    let figures = p["figures"].as_array().unwrap();
    let ids: Vec<&str> = figures.iter().map(|f| f["id"].as_str().unwrap()).collect();
    for want in [
        "fig-headline",
        "fig-by-board_size",
        "fig-by-komi",
        "fig-by-handicap",
        "fig-by-rules",
        "fig-by-how_ended",
        "fig-by-dead_source",
        "fig-by-certainty",
        "fig-by-year",
        "fig-by-input",
        "fig-sweep",
        "fig-split-jpd_a_vs_jpd_b",
        "fig-winners",
        "fig-check-dead_source",
        "fig-check-rule_set",
    ] {
        assert!(ids.contains(&want), "{want} missing from {ids:?}");
    }
    assert_eq!(
        p["dataFigures"],
        json!(ids),
        "the JSON lists the figures drawn"
    );
    for f in figures {
        assert_eq!(f["role"], "img", "{f}");
        assert!(!f["title"].as_str().unwrap().is_empty(), "{f}");
        assert!(f["desc"].as_str().unwrap().len() > 20, "alt text: {f}");
        assert!(!f["caption"].as_str().unwrap().is_empty(), "{f}");
        let size = f["size"].as_array().unwrap();
        assert!(
            size[0].as_f64().unwrap() > 100.0 && size[1].as_f64().unwrap() > 50.0,
            "rendered size: {f}"
        );
        assert!(f["marks"].as_u64().unwrap() > 0, "marks: {f}");
    }
    let boards = p["boards"].as_array().unwrap();
    assert!(!boards.is_empty(), "example boards");
    for b in boards {
        assert!(b["size"][0].as_f64().unwrap() > 150.0, "{b}");
        assert!(b["stones"].as_u64().unwrap() > 10, "{b}");
    }
    assert_eq!(p["headlineRows"], 3);
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(p["dataGames"], summary["games"]);
    assert!(p["title"].as_str().unwrap().starts_with("verdict report"));
    // Printable: Chromium lays the page out on paper.
    assert!(
        pdf["data"].as_str().unwrap().len() > 50_000,
        "the PDF is too small to hold the report"
    );

    if let Ok(keep) = std::env::var("VERDICT_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
