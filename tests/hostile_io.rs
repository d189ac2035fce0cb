//! Hostile I/O: what the file system and the process around a run can do
//! to it (links that read a log twice or loop, files truncated or replaced
//! by FIFOs and devices, closed descriptors, absurd flags). Each case runs
//! the `crawlaudit` binary, bounded in time and memory as in
//! `hostile_inputs.rs`, and checks that nothing is counted twice, nothing
//! hangs, and every refusal names its file.
#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};

use common::{Run, bounded};

fn dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("hostile-io-{name}"))
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const AHREFS: &str = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";

/// A vhost_combined line: `agent` from `ip` fetching `path` at `second`.
fn log_line(second: u32, ip: &str, path: &str, agent: &str) -> String {
    format!(
        "shop.example:443 {ip} - - [01/Nov/2026:{:02}:{:02}:{:02} +0000] \"GET {path} HTTP/1.1\" 200 100 \"-\" \"{agent}\"\n",
        second / 3600,
        second / 60 % 60,
        second % 60
    )
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

/// `crawlaudit audit LOG --snapshot SNAP --out OUT --quiet EXTRA...`,
/// bounded to `secs` seconds and 256 MiB.
fn audit(d: &Path, log: &str, snap: &Path, out: &Path, extra: &[&str], secs: u64) -> Run {
    common::bounded_audit(d, log, snap, out, extra, secs, 256)
}

#[test]
fn closed_stdin_is_a_fault_and_empty_stdin_a_warning() {
    let d = dir("stdin");
    let snap = common::shop_snapshot(&d, b"User-agent: *\nDisallow: /private\n");
    let out = d.join("out");
    // `crawlaudit audit - ... <&-`: descriptor 0 closed.
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_crawlaudit"));
    command.args([
        "audit",
        "-",
        "--snapshot",
        snap.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    // SAFETY: close(2) is async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::close(0);
            Ok(())
        });
    }
    let closed = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&closed.stderr);
    assert_eq!(closed.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("crawlaudit: error: standard input is closed"),
        "{stderr}"
    );
    // An empty standard input (here /dev/null) is a 0-line audit that
    // succeeds, with a warning.
    let run = audit(&d, "-", &snap, &out, &[], 20);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("crawlaudit: warning: standard input was empty (0 lines)"),
        "{}",
        run.stderr
    );
    assert_eq!(summary(&out)["inputs"]["lines"], 0);
}

#[test]
fn a_log_reached_by_several_links_is_read_once() {
    use std::os::unix::fs::symlink;
    let d = dir("links");
    // AhrefsBot every 30 s under a Crawl-delay of 10 s: no violation,
    // unless a request is counted twice (a gap of 0 s).
    let snap = common::shop_snapshot(&d, b"User-agent: *\nCrawl-delay: 10\n");
    let logs = d.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let text: String = (0..100)
        .map(|i| log_line(i * 30, "192.0.2.1", &format!("/p{i}"), AHREFS))
        .collect();
    std::fs::write(logs.join("access.log"), text).unwrap();
    symlink("access.log", logs.join("latest.log")).unwrap();
    symlink(".", logs.join("current")).unwrap();
    let out = d.join("out");
    let run = audit(&d, logs.to_str().unwrap(), &snap, &out, &[], 20);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let s = summary(&out);
    let files: Vec<&str> = s["inputs"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, [logs.join("access.log").to_str().unwrap()]);
    assert_eq!(s["inputs"]["lines"], 100);
    assert_eq!(s["requests"]["crawler"], 100);
    assert_eq!(s["violations"]["crawl-delay"], 0, "{s}");
    // Two links to each other, and a dangling link: refused at once,
    // naming the link.
    symlink("b.log", logs.join("a.log")).unwrap();
    symlink("a.log", logs.join("b.log")).unwrap();
    let run = audit(&d, logs.to_str().unwrap(), &snap, &d.join("out2"), &[], 10);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let a = logs.join("a.log");
    assert!(
        run.stderr
            .contains(&format!("log file {} is a symbolic link", a.display())),
        "{}",
        run.stderr
    );
    std::fs::remove_file(&a).unwrap();
    std::fs::remove_file(logs.join("b.log")).unwrap();
    symlink("access.log.1", logs.join("gone.log")).unwrap();
    let run = audit(&d, logs.to_str().unwrap(), &snap, &d.join("out3"), &[], 10);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "log file {} is a dangling symbolic link",
            logs.join("gone.log").display()
        )),
        "{}",
        run.stderr
    );
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// Unblocks anyone who opens the FIFO at `path` for reading (as the reader
/// did before it checked for regular files), by opening it for writing and
/// closing it at once, for up to a minute; the test then fails on its
/// assertions instead of hanging.
fn unblock_readers(path: PathBuf) {
    std::thread::spawn(move || {
        use std::os::unix::fs::OpenOptionsExt;
        for _ in 0..600 {
            // Without a reader, a non-blocking open for writing fails.
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&path);
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
}

#[test]
fn special_files_in_a_snapshot_are_refused() {
    let d = dir("special");
    let log = d.join("access.log");
    std::fs::write(&log, log_line(0, "192.0.2.1", "/a", AHREFS)).unwrap();
    let log = log.to_str().unwrap();
    let snap = d.join("snapshot");
    let host = snap.join("shop.example");
    std::fs::create_dir_all(&host).unwrap();
    // A FIFO as robots.txt: refused at once, named.
    let robots = host.join("robots.txt");
    mkfifo(&robots);
    unblock_readers(robots.clone());
    let run = audit(&d, log, &snap, &d.join("out"), &[], 10);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let expected = format!("{}: not a regular file (a FIFO)", robots.display());
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    // A link to /dev/zero: refused, named.
    std::fs::remove_file(&robots).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &robots).unwrap();
    let run = audit(&d, log, &snap, &d.join("out"), &[], 10);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let expected = format!(
        "{}: not a regular file (a character device)",
        robots.display()
    );
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    // The other files a snapshot directory reads: a robots/ history file,
    // pages.jsonl, and a WARC file named as the snapshot.
    std::fs::remove_file(&robots).unwrap();
    std::fs::write(&robots, "User-agent: *\nDisallow: /a\n").unwrap();
    let pages = host.join("pages.jsonl");
    mkfifo(&pages);
    unblock_readers(pages.clone());
    let run = audit(&d, log, &snap, &d.join("out"), &[], 10);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let expected = format!("{}: not a regular file (a FIFO)", pages.display());
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    std::fs::remove_file(&pages).unwrap();
    std::fs::create_dir(host.join("robots")).unwrap();
    let history = host.join("robots/2026-11-01T00-00-00Z.txt");
    mkfifo(&history);
    unblock_readers(history.clone());
    let run = audit(&d, log, &snap, &d.join("out"), &[], 10);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let expected = format!("{}: not a regular file (a FIFO)", history.display());
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    let warc = d.join("crawl.warc");
    mkfifo(&warc);
    unblock_readers(warc.clone());
    let run = audit(&d, log, &warc, &d.join("out"), &[], 10);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let expected = format!("{}: not a regular file (a FIFO)", warc.display());
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
}

#[test]
fn a_sparse_robots_txt_of_1_5_gb_costs_its_first_500_kib() {
    let d = dir("sparse");
    let snap = common::shop_snapshot(&d, b"");
    // 500 KiB of comments, a rule just past 500 KiB (ignored, as Google
    // ignores it), then holes up to 1.5 GB.
    let robots = snap.join("shop.example/robots.txt");
    let mut body = b"User-agent: *\nDisallow: /a\n".to_vec();
    while body.len() < 500 * 1024 - 100 {
        body.extend_from_slice(b"# padding padding padding padding padding padding\n");
    }
    body.resize(500 * 1024, b'#');
    body.extend_from_slice(b"\nDisallow: /b\n");
    std::fs::write(&robots, &body).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&robots)
        .unwrap()
        .set_len(1_500_000_000)
        .unwrap();
    let log = d.join("access.log");
    let text = [
        log_line(0, "192.0.2.1", "/a", AHREFS),
        log_line(30, "192.0.2.1", "/b", AHREFS),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let out = d.join("out");
    let run = audit(&d, log.to_str().unwrap(), &snap, &out, &[], 20);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // /a is disallowed within the first 500 KiB; /b only past it.
    let s = summary(&out);
    assert_eq!(s["violations"]["disallow"], 1, "{s}");
}

/// The crawler names of a report's crawlers.csv.
fn crawlers(out: &Path) -> String {
    std::fs::read_to_string(out.join("crawlers.csv")).unwrap()
}

#[test]
fn ip_range_files_mapped_and_too_broad() {
    let d = dir("ranges");
    let snap = common::shop_snapshot(&d, b"User-agent: *\nDisallow: /private\n");
    let ranges = d.join("ranges");
    std::fs::create_dir_all(&ranges).unwrap();
    let googlebot = ranges.join("googlebot.json");
    let log = d.join("access.log");
    // The real Googlebot, once as IPv4 and once IPv4-mapped, against its
    // range written in IPv6.
    std::fs::write(
        &googlebot,
        r#"{"prefixes":[{"ipv6Prefix":"::ffff:66.249.64.0/115"}]}"#,
    )
    .unwrap();
    let text = [
        log_line(0, "66.249.64.1", "/a", GOOGLEBOT),
        log_line(30, "::ffff:66.249.64.1", "/b", GOOGLEBOT),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let args = ["--ip-ranges", ranges.to_str().unwrap()];
    let out = d.join("out");
    let run = audit(&d, log.to_str().unwrap(), &snap, &out, &args, 20);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let table = crawlers(&out);
    assert!(
        table.contains("\nGooglebot,") && !table.contains("unverified"),
        "{table}"
    );
    // A range file that covers every address is no evidence: its /0 is
    // skipped with a warning, and a Googlebot from elsewhere is unverified.
    std::fs::write(
        &googlebot,
        r#"{"prefixes":[{"ipv4Prefix":"0.0.0.0/0"},{"ipv4Prefix":"66.249.64.0/19"}]}"#,
    )
    .unwrap();
    std::fs::write(&log, log_line(0, "203.0.113.9", "/a", GOOGLEBOT)).unwrap();
    let out = d.join("out2");
    let run = audit(&d, log.to_str().unwrap(), &snap, &out, &args, 20);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let warning = format!(
        "crawlaudit: warning: IP range file {}: the prefix 0.0.0.0/0 is too broad",
        googlebot.display()
    );
    assert!(run.stderr.contains(&warning), "{}", run.stderr);
    assert!(
        crawlers(&out).contains("Googlebot (unverified)"),
        "{}",
        crawlers(&out)
    );
}

#[test]
fn threads_beyond_the_machine_are_capped() {
    let d = dir("threads");
    let log = d.join("access.log");
    std::fs::write(&log, log_line(0, "192.0.2.1", "/a", AHREFS)).unwrap();
    let gz = d.join("access.log.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, log_line(0, "192.0.2.1", "/a", AHREFS).as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let run = bounded(
        &[
            "--threads",
            "20000",
            "logs",
            log.to_str().unwrap(),
            gz.to_str().unwrap(),
        ],
        &d,
        10,
        256,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "crawlaudit: warning: --threads 20000 is more than this machine can use: capped at"
        ),
        "{}",
        run.stderr
    );
}
