//! Hostile inputs have bounded cost: each case runs the `crawlaudit` binary
//! on a generated input and asserts its wall time and peak memory (the
//! child's maximum resident set, from `wait4`), and the message where the
//! tool refuses something. The limits are documented in the README
//! ("Limits"); the bounds here are for the unoptimised test build on a
//! shared 2-core machine, several times what it measured.
#![cfg(target_os = "linux")]

mod common;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use common::{Run, bounded};

fn dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("hostile-{name}"))
}

/// A snapshot with one host and the given robots.txt; returns its path.
fn snapshot(dir: &Path, robots: &[u8]) -> PathBuf {
    let snap = dir.join("snapshot");
    std::fs::create_dir_all(snap.join("shop.example")).unwrap();
    std::fs::write(snap.join("shop.example/robots.txt"), robots).unwrap();
    snap
}

const AHREFS: &str = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";

fn log_line(second: u32, path: &str) -> String {
    format!(
        "shop.example:443 192.0.2.1 - - [01/Nov/2026:{:02}:{:02}:{:02} +0000] \"GET {path} HTTP/1.1\" 200 100 \"-\" \"{AHREFS}\"\n",
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
fn audit(d: &Path, log: &Path, snap: &Path, out: &Path, extra: &[&str], secs: u64) -> Run {
    common::bounded_audit(d, log.to_str().unwrap(), snap, out, extra, secs, 256)
}

/// `crawlaudit rules --agent Googlebot --html PAGE --json`, bounded.
fn rules_json(d: &Path, page: &Path) -> Run {
    let args = [
        "rules",
        "--agent",
        "Googlebot",
        "--html",
        page.to_str().unwrap(),
        "--json",
    ];
    bounded(&args, d, 20, 256)
}

#[test]
fn robots_txt_of_500_kib_wildcard_rules() {
    let d = dir("robots");
    // 500 KiB of rules with 50 wildcards each over a small alphabet, and
    // 400 requests for distinct 200-byte paths made of that alphabet: the
    // worst case for a matcher that backtracks.
    let mut robots = b"User-agent: *\n".to_vec();
    let mut i = 0u32;
    while robots.len() < 500 * 1024 - 200 {
        let mut rule = String::from("Disallow: /");
        for k in 0..50 {
            rule.push(char::from(b'a' + ((i + k) % 3) as u8));
            rule.push('*');
        }
        rule.push_str(&format!("{i}z\n"));
        robots.extend_from_slice(rule.as_bytes());
        i += 1;
    }
    let snap = snapshot(&d, &robots);
    let mut log = String::new();
    for n in 0..400u32 {
        let path: String = (0..200)
            .map(|k| char::from(b'a' + ((n + k) % 3) as u8))
            .collect();
        log.push_str(&log_line(n * 20, &format!("/{path}z{n}")));
    }
    std::fs::write(d.join("access.log"), log).unwrap();
    let out = d.join("out");
    let run = audit(&d, &d.join("access.log"), &snap, &out, &[], 20);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let s = summary(&out);
    assert_eq!(s["requests"]["crawler"], 400);
    // Every rule ends in digits and a `z`, every path in a `z` and digits:
    // nothing is disallowed, though each path holds every byte of every
    // rule, so no rule can be skipped without matching it.
    assert_eq!(s["violations"]["disallow"], 0);
}

/// Writes a log with `head` lines, then `long` bytes of one line (no
/// newline inside), then `tail` lines.
fn log_with_long_line(path: &Path, long: usize, fill: u8) {
    let mut f = std::io::BufWriter::new(File::create(path).unwrap());
    f.write_all(log_line(0, "/a").as_bytes()).unwrap();
    f.write_all(log_line(30, "/b").as_bytes()).unwrap();
    let block = vec![fill; 1 << 20];
    let mut left = long;
    while left > 0 {
        let n = left.min(block.len());
        f.write_all(&block[..n]).unwrap();
        left -= n;
    }
    f.write_all(b"\n").unwrap();
    f.write_all(log_line(60, "/c").as_bytes()).unwrap();
    f.write_all(log_line(90, "/d").as_bytes()).unwrap();
}

#[test]
fn a_100_mb_single_line_is_counted_and_skipped() {
    let d = dir("long-line");
    let snap = snapshot(&d, b"User-agent: *\nDisallow: /c\n");
    let log = d.join("access.log");
    log_with_long_line(&log, 100_000_000, b'x');
    let out = d.join("out");
    // Detected format, plain-file path: the line is longer than the
    // 64 MiB window.
    let run = audit(&d, &log, &snap, &out, &[], 30);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let s = summary(&out);
    let file = &s["inputs"]["files"][0];
    assert_eq!(file["lines"], 5);
    assert_eq!(file["parsed"], 4);
    assert_eq!(file["bad_by_reason"]["too-long"], 1);
    assert_eq!(file["samples"][0]["line"], 3);
    assert_eq!(file["bytes"], std::fs::metadata(&log).unwrap().len());
    // The lines after it were judged: /c is disallowed.
    assert_eq!(s["violations"]["disallow"], 1);
}

/// Writes `piece` to `path` `times` times over: members or streams one
/// after another.
fn write_repeated(path: &Path, piece: &[u8], times: usize) {
    let mut f = std::io::BufWriter::new(File::create(path).unwrap());
    for _ in 0..times {
        f.write_all(piece).unwrap();
    }
    f.flush().unwrap();
}

/// Concatenated gzip members of 1 MiB of zeros each: `mib` MiB of zeros
/// (no newline) for a few kilobytes per member.
fn gzip_bomb(path: &Path, mib: usize) {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&vec![0u8; 1 << 20]).unwrap();
    write_repeated(path, &e.finish().unwrap(), mib);
}

/// One zstd frame of `mib` MiB of zeros (no newline) with a 128 MiB
/// window, the largest the reader accepts: the most memory its decoder
/// holds.
fn zstd_bomb(path: &Path, mib: usize) {
    let file = std::io::BufWriter::new(File::create(path).unwrap());
    let mut e = zstd::stream::write::Encoder::new(file, 1).unwrap();
    e.window_log(27).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..mib {
        e.write_all(&zeros).unwrap();
    }
    e.finish().unwrap().flush().unwrap();
}

/// Concatenated bzip2 streams of 1 MiB of zeros each.
fn bzip2_bomb(path: &Path, mib: usize) {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    e.write_all(&vec![0u8; 1 << 20]).unwrap();
    write_repeated(path, &e.finish().unwrap(), mib);
}

/// Audits a bomb that `make` writes, 1 GiB of zeros compressed with
/// `kind`: one line of a gigabyte, in bounded time and memory.
fn audit_bomb(kind: &str, make: fn(&Path, usize)) {
    let d = dir(&format!("bomb-{kind}"));
    let bomb = d.join(format!("bomb.log.{kind}"));
    make(&bomb, 1024);
    assert!(std::fs::metadata(&bomb).unwrap().len() < 4 << 20);
    let snap = snapshot(&d, b"User-agent: *\nDisallow: /\n");
    let out = d.join("out");
    let run = audit(&d, &bomb, &snap, &out, &["--format", "vhost_combined"], 60);
    // One line of a gigabyte: a bad line, not a fault.
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let file = &summary(&out)["inputs"]["files"][0];
    assert_eq!(file["lines"], 1);
    assert_eq!(file["bad_by_reason"]["too-long"], 1);
    assert_eq!(file["bytes"], 1u64 << 30);
    assert_eq!(file["compressed"], true);
    // Named only when not gzip: gzip's entry is as it was before.
    let named = (kind != "gzip").then_some(kind);
    assert_eq!(file.get("compression").and_then(|c| c.as_str()), named);
    // Without --format there is no line to detect the format from.
    let run = audit(&d, &bomb, &snap, &d.join("out2"), &[], 60);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("cannot detect the log format") && run.stderr.contains("--format"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_gzip_bomb_of_1_gib_of_zeros_runs_in_bounded_memory() {
    audit_bomb("gzip", gzip_bomb);
}

#[test]
fn a_zstd_bomb_with_the_largest_window_runs_in_bounded_memory() {
    audit_bomb("zstd", zstd_bomb);
}

#[test]
fn a_bzip2_bomb_of_1_gib_of_zeros_runs_in_bounded_memory() {
    audit_bomb("bzip2", bzip2_bomb);
}

#[test]
fn a_50_mb_pages_jsonl_line_is_refused_with_its_line() {
    let d = dir("pages");
    let snap = snapshot(&d, b"User-agent: *\nAllow: /\n");
    let mut pages = File::create(snap.join("shop.example/pages.jsonl")).unwrap();
    writeln!(pages, r#"{{"url": "/a", "x_robots_tag": "noindex"}}"#).unwrap();
    write!(pages, r#"{{"url": "/b", "html": ""#).unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..50 {
        pages.write_all(&block).unwrap();
    }
    writeln!(pages, r#""}}"#).unwrap();
    drop(pages);
    std::fs::write(d.join("access.log"), log_line(0, "/a")).unwrap();
    let run = audit(&d, &d.join("access.log"), &snap, &d.join("out"), &[], 20);
    assert_eq!(run.code, Some(2));
    let expected = format!(
        "{}, line 2: the line is longer than 16 MiB",
        snap.join("shop.example/pages.jsonl").display()
    );
    assert!(run.stderr.contains(&expected), "{}", run.stderr);
    assert!(!d.join("out").exists(), "no report for a refused snapshot");
}

/// One WARC response record for `uri` with `body`, declaring `declared`
/// as its Content-Length (`None`: the true length).
fn warc_record(uri: &str, body: &str, declared: Option<&str>) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let length = declared.map_or_else(|| http.len().to_string(), str::to_string);
    format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2026-11-01T00:00:00Z\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: {length}\r\n\r\n{http}\r\n\r\n"
    )
    .into_bytes()
}

#[test]
fn warc_records_whose_length_lies() {
    let d = dir("warc");
    std::fs::write(d.join("access.log"), log_line(0, "/a")).unwrap();
    let good = warc_record(
        "https://shop.example/robots.txt",
        "User-agent: *\nDisallow: /private\n",
        None,
    );
    let huge = (1u64 << 60).to_string();
    let cases: [(&str, Vec<u8>, String); 3] = [
        (
            // Longer than the file: a huge declared length allocates nothing.
            "longer",
            [
                good.clone(),
                warc_record("https://shop.example/a", "x", Some(&huge)),
            ]
            .concat(),
            format!(
                "byte {}: the record declares Content-Length {huge} but the file ends",
                good.len()
            ),
        ),
        (
            // Shorter than the block: the next "record" is the block's tail.
            "shorter",
            [
                warc_record("https://shop.example/a", "hello world", Some("20")),
                good.clone(),
            ]
            .concat(),
            "a record must start with a WARC/1.x line".to_string(),
        ),
        (
            "nan",
            warc_record("https://shop.example/a", "x", Some("lots")),
            "byte 0: the record's Content-Length is not a number".to_string(),
        ),
    ];
    for (name, bytes, expected) in cases {
        let warc = d.join(format!("{name}.warc"));
        std::fs::write(&warc, bytes).unwrap();
        let run = audit(&d, &d.join("access.log"), &warc, &d.join("out"), &[], 20);
        assert_eq!(run.code, Some(2), "{name}");
        let prefix = format!("{}, ", warc.display());
        assert!(
            run.stderr.contains(&prefix) && run.stderr.contains(&expected),
            "{name}: want {prefix}...{expected}, got {}",
            run.stderr
        );
    }
}

#[test]
fn deeply_nested_and_unterminated_html() {
    let d = dir("html");
    // 2 million nested elements, a comment and a script that never end
    // after the meta tag that counts, and an unterminated meta tag.
    let mut html =
        String::from("<!doctype html><html><head><meta name=\"robots\" content=\"noindex\">");
    html.push_str(&"<div><span>".repeat(1_000_000));
    html.push_str("<meta name=\"robots\" content=\"nofollow");
    let mut page = d.join("page.html");
    std::fs::write(&page, &html).unwrap();
    for tail in [
        "",
        "<!-- never closed <meta name=robots content=noarchive>",
        "<script>if (a < b) {",
    ] {
        std::fs::write(&page, format!("{html}{tail}")).unwrap();
        let run = rules_json(&d, &page);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let rules: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(rules["noindex"], true, "{tail}: {}", run.stdout);
        assert!(rules.get("noarchive").is_none(), "{tail}: {}", run.stdout);
    }
    page = d.join("deep-only.html");
    std::fs::write(&page, "<a".repeat(5_000_000)).unwrap();
    let run = rules_json(&d, &page);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "{}");
}
