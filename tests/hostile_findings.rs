//! Issue 13, "never let a log take the machine down": logs whose clients
//! invent what they like (User-Agents, Host headers, dates) have a bounded
//! cost. Each case runs the `crawlaudit` binary on an input generated here
//! and asserts its wall time and peak memory (the child's maximum resident
//! set, from `wait4`), and what the report says. The bounds are for the
//! unoptimised test build on a shared 2-core machine, several times what
//! it measured, and well under what the code before the fixes took.
#![cfg(target_os = "linux")]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::Run;

fn dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("findings-{name}"))
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

/// `crawlaudit audit LOG --snapshot SNAP --out DIR/out --quiet EXTRA...`,
/// bounded.
fn audit(d: &Path, log: &Path, snap: &Path, extra: &[&str], secs: u64, mib: u64) -> Run {
    common::bounded_audit(
        d,
        log.to_str().unwrap(),
        snap,
        &d.join("out"),
        extra,
        secs,
        mib,
    )
}

/// The total size of the files in `dir`.
fn size_of(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

/// Writes `text` gzip-compressed.
fn gzip(path: &Path, text: &[u8]) {
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::default(),
    );
    e.write_all(text).unwrap();
    e.finish().unwrap();
}

/// A name of letters for `i` (`a`, `b`, ..., `ba`, ...), so that invented
/// bots differ in their robots token and meta name too.
fn letters(mut i: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (i % 26) as u8);
        i /= 26;
        if i == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap()
}

/// A combined log line at second `s` of 1 November 2026.
fn combined(s: usize, target: &str, ua: &str) -> String {
    format!(
        "192.0.2.1 - - [01/Nov/2026:{:02}:{:02}:{:02} +0000] \"GET {target} HTTP/1.1\" 200 1 \"-\" \"{ua}\"\n",
        s / 3600 % 24,
        s / 60 % 60,
        s % 60
    )
}

/// The Done-when of issue 13, item 2: a 25 KB log with 1,000 invented bot
/// User-Agents against a 10,000-page noindex site runs in bounded memory
/// (under 256 MiB) and writes a report under 10 MB. Before, it wrote one
/// `noindex-unseen` row per crawler and page: 10 million rows, and the run
/// aborted.
#[test]
fn a_thousand_invented_bots_against_ten_thousand_noindex_pages() {
    let d = dir("unseen");
    let snap = common::shop_snapshot(&d, b"User-agent: *\nDisallow: /private/\n");
    let mut pages = String::new();
    for i in 0..10_000 {
        pages.push_str(&format!(
            "{{\"url\": \"/private/p{i}\", \"x_robots_tag\": [\"noindex\"]}}\n"
        ));
    }
    std::fs::write(snap.join("shop.example/pages.jsonl"), pages).unwrap();
    let mut log = String::new();
    // `noindex-unseen` concerns crawlers that feed a search index, which
    // only a catalogue names: a `--bots` file of 1,000 such crawlers (a
    // client can no longer invent them, but a catalogue can be large).
    let mut bots = String::new();
    for i in 0..1_000 {
        let name = format!("Zz{}XqBot", letters(i));
        let ua = format!("Mozilla/5.0 (compatible; {name}/1.0)");
        log.push_str(&combined(i, "/", &ua));
        bots.push_str(&format!(
            "[[crawler]]\nname = \"{name}\"\ncategory = \"search\"\npattern = '; {name}/'\nengine = \"google\"\n\n"
        ));
    }
    let bots_path = d.join("bots.toml");
    std::fs::write(&bots_path, bots).unwrap();
    let path = d.join("access.log.gz");
    gzip(&path, log.as_bytes());
    let bytes = std::fs::metadata(&path).unwrap().len();
    assert!(bytes <= 25_000, "the log is {bytes} bytes");
    let run = audit(
        &d,
        &path,
        &snap,
        &["--bots", bots_path.to_str().unwrap()],
        120,
        256,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out = d.join("out");
    let report = size_of(&out);
    eprintln!("report: {report} bytes");
    assert!(report < 10_000_000, "the report is {report} bytes");
    let s = summary(&out);
    assert_eq!(s["requests"]["crawler"], 1_000);
    // Every crawler and page is still counted, in one row per page.
    assert_eq!(s["findings"]["noindex-unseen"], 10_000_000);
    let findings = std::fs::read_to_string(out.join("findings.csv")).unwrap();
    let unseen: Vec<&str> = findings
        .lines()
        .filter(|l| l.starts_with("noindex-unseen,"))
        .collect();
    assert_eq!(unseen.len(), 10_000);
    assert!(
        unseen.contains(
            &"noindex-unseen,shop.example,\"ZzaXqBot, ZzbXqBot, ZzbaXqBot, ZzbaaXqBot, ZzbabXqBot and 995 more\",,/private/p0,1000,X-Robots-Tag: noindex cannot be seen: robots.txt forbids fetching the page (2: Disallow: /private/)"
        ),
        "{}",
        unseen[0]
    );
    let html = std::fs::metadata(out.join("report.html")).unwrap().len();
    assert!(html < 1 << 20, "report.html is {html} bytes");
}

/// A browser's User-Agent made distinct by `i`, about 500 bytes long
/// (and compressible: one distinct number in a common text).
fn browser(i: usize) -> String {
    format!(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.{i}.0 Safari/537.36 Ext/{i:08x}{}",
        "0123456789abcdef".repeat(25)
    )
}

/// Issue 13, item 3: memory grew with distinct User-Agents, even of
/// people: every User-Agent was cached in a shared map without bound, and
/// again in each chunk's collector, kept until the replay. 200,000 human
/// visits with distinct 500-byte User-Agents (a gzip log of a few MB).
#[test]
fn two_hundred_thousand_distinct_human_user_agents() {
    let d = dir("people");
    let snap = common::shop_snapshot(&d, b"User-agent: *\nDisallow: /private/\n");
    let mut log = Vec::new();
    for i in 0..200_000 {
        log.extend_from_slice(combined(i / 3, &format!("/p{}", i % 100), &browser(i)).as_bytes());
    }
    let path = d.join("access.log.gz");
    gzip(&path, &log);
    drop(log);
    eprintln!("log: {} bytes", std::fs::metadata(&path).unwrap().len());
    let run = audit(
        &d,
        &path,
        &snap,
        &["--output-formats", "csv,json"],
        240,
        224,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let s = summary(&d.join("out"));
    assert_eq!(s["requests"]["human"], 200_000);
    assert_eq!(s["requests"]["crawler"], 0);
}

/// Issue 13, item 3: one `unknown-host` row (and map entry in every chunk)
/// per Host header a client invents. Now the first 10,000 unknown hosts
/// in byte order are named, with their exact counts, and the rest are one
/// `(other hosts)` row; the total stays exact.
#[test]
fn four_hundred_thousand_invented_host_headers() {
    // The log's 64 MiB read window is part of the peak; the old code's
    // one finding per host took 205 MiB at 200,000 hosts, over 300 MiB at
    // 400,000.
    const HOSTS: usize = 400_000;
    let d = dir("hosts");
    let snap = common::shop_snapshot(&d, b"User-agent: *\nDisallow: /private/\n");
    let mut log = String::new();
    let ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    for i in 0..HOSTS {
        // Host h{i}: h0 and h1 twice more each, at the end (other chunks).
        log.push_str(&format!(
            "h{i}.invented.example:443 {}",
            combined(i / 3, "/", ua)
        ));
    }
    for host in ["h0", "h1", "shop.example"] {
        log.push_str(&format!("{host}.invented.example {}", combined(0, "/", ua)));
        log.push_str(&format!("{host}.invented.example {}", combined(1, "/", ua)));
    }
    let path = d.join("access.log");
    std::fs::write(&path, log).unwrap();
    let run = audit(
        &d,
        &path,
        &snap,
        &["--output-formats", "csv,json", "--format", "vhost_combined"],
        240,
        224,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out = d.join("out");
    let s = summary(&out);
    assert_eq!(s["findings"]["unknown-host"], HOSTS as u64 + 6);
    let findings = std::fs::read_to_string(out.join("findings.csv")).unwrap();
    let rows: Vec<&str> = findings
        .lines()
        .filter(|l| l.starts_with("unknown-host,"))
        .collect();
    assert_eq!(rows.len(), 10_001);
    // Named: the first 10,000 host names in byte order (h0, h1, h10,
    // h100, ...), each with its exact count.
    let count = |host: &str| {
        rows.iter()
            .find(|r| r.starts_with(&format!("unknown-host,{host},")))
            .map(|r| r.split(',').nth(5).unwrap().to_string())
    };
    assert_eq!(count("h0.invented.example").as_deref(), Some("3"));
    assert_eq!(count("h1.invented.example").as_deref(), Some("3"));
    assert_eq!(count("h10.invented.example").as_deref(), Some("1"));
    assert_eq!(count("shop.example.invented.example"), None);
    assert_eq!(count("h99999.invented.example"), None);
    let named: u64 = rows
        .iter()
        .filter(|r| !r.starts_with("unknown-host,(other hosts),"))
        .map(|r| r.split(',').nth(5).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(named, 10_004);
    let other = (HOSTS + 6 - 10_004).to_string();
    assert_eq!(count("(other hosts)").as_deref(), Some(other.as_str()));
}

/// Issue 13, item 7: requests dated 1700 and 2026 (and one at the edge of
/// what fits, 1677) go through the whole audit, report.html included:
/// before, the crawl-delay gap overflowed (`gap -8132916873.71s < 10s`)
/// and the chart asked for a bucket per day of 326 years (`capacity
/// overflow`).
#[test]
fn requests_centuries_apart_through_the_whole_audit() {
    let d = dir("centuries");
    let snap = common::shop_snapshot(&d, b"User-agent: *\nCrawl-delay: 10\nDisallow: /x\n");
    let ahrefs = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
    let at = |date: &str, target: &str| {
        format!("192.0.2.1 - - [{date} +0000] \"GET {target} HTTP/1.1\" 200 1 \"-\" \"{ahrefs}\"\n")
    };
    let log = [
        at("21/Sep/1677:00:13:00", "/x"),
        at("01/Jan/1700:00:00:00", "/x"),
        at("01/Nov/2026:10:00:00", "/x"),
        at("01/Nov/2026:10:00:05", "/a"),
    ]
    .concat();
    std::fs::write(d.join("access.log"), log).unwrap();
    let run = audit(&d, &d.join("access.log"), &snap, &[], 60, 256);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out = d.join("out");
    let s = summary(&out);
    assert_eq!(s["violations"]["disallow"], 3);
    assert_eq!(s["violations"]["crawl-delay"], 1);
    assert_eq!(s["window"]["first"], "1677-09-21T00:13:00Z");
    let violations = std::fs::read_to_string(out.join("violations.csv")).unwrap();
    assert!(violations.contains("gap 5s < 10s"), "{violations}");
    assert!(!violations.contains("gap -"), "{violations}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.len() < 1 << 20);
    // The chart's days: 1677 to 2026 in at most 180 buckets.
    let page = common::page_data(&html);
    let days = page["daily"]["days"].as_array().unwrap();
    assert_eq!(
        page["daily"]["bucket_days"],
        127_510 / 180 + 1,
        "the chart's buckets"
    );
    assert!(days.len() <= 180, "{}", days.len());
    assert_eq!(days[0], "1677-09-21");
}

/// Issue 13, item 7: a W3C time past what i64 nanoseconds hold (after
/// 2262-04-11T23:47:16.854775807Z) wrapped around to 1677; now it is a bad
/// time, as epoch times past 2262 already were.
#[test]
fn a_w3c_time_in_2262_is_a_bad_time() {
    let d = dir("w3c-2262");
    let snap = common::shop_snapshot(&d, b"User-agent: *\nDisallow: /x\n");
    let log = "#Version: 1.0\n#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)\n\
        2262-04-11 23:47:16 192.0.2.1 GET /x 200 Mozilla/5.0+(compatible;+AhrefsBot/7.0)\n\
        2262-04-11 23:47:16.9 192.0.2.1 GET /x 200 Mozilla/5.0+(compatible;+AhrefsBot/7.0)\n\
        2262-04-12 00:00:00 192.0.2.1 GET /x 200 Mozilla/5.0+(compatible;+AhrefsBot/7.0)\n";
    std::fs::write(d.join("access.log"), log).unwrap();
    let run = audit(&d, &d.join("access.log"), &snap, &[], 60, 256);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let s = summary(&d.join("out"));
    let file = &s["inputs"]["files"][0];
    assert_eq!(file["format"], "w3c");
    assert_eq!(file["parsed"], 1);
    assert_eq!(file["bad_by_reason"]["time"], 2);
    assert_eq!(s["window"]["first"], "2262-04-11T23:47:16Z");
    assert_eq!(s["window"]["last"], "2262-04-11T23:47:16Z");
    assert_eq!(s["violations"]["disallow"], 1);
}
