//! `audit --shard K/N` then `merge` gives exactly the report of one run:
//! the same bytes in every CSV, NDJSON, Parquet and HTML file, and the same
//! summary.json but for its run time. The input is the demo spread over
//! many hosts (each a copy of the demo's shop or blog), plus lines without
//! a host and hosts the snapshot does not know.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crawlaudit::report::OutputFormats;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo");

fn crawlaudit(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Writes the many-host input into `dir`: `access.log` and `snapshot/`.
fn many_hosts(dir: &Path) -> (PathBuf, PathBuf) {
    let demo = std::fs::read_to_string(Path::new(DEMO).join("access.log")).unwrap();
    let snapshot = dir.join("snapshot");
    let mut log = String::new();
    for i in 0..12 {
        let (shop, blog) = (format!("shop{i}.example"), format!("blog{i}.example"));
        // Hosts 10 and 11 are not in the snapshot: unknown-host findings.
        if i < 10 {
            common::copy_dir(
                &Path::new(DEMO).join("snapshot/shop.example"),
                &snapshot.join(&shop),
            );
            common::copy_dir(
                &Path::new(DEMO).join("snapshot/blog.example"),
                &snapshot.join(&blog),
            );
        }
        for line in demo.lines().skip(i * 7).step_by(3) {
            let line = line
                .replacen("shop.example:443", &format!("{shop}:443"), 1)
                .replacen("blog.example:443", &format!("{blog}:443"), 1);
            log.push_str(&line);
            log.push('\n');
        }
    }
    // Lines in a format without a host cannot be spread (a log is one
    // format), so the host-less lines are another file.
    let hostless: String = demo
        .lines()
        .take(40)
        .map(|l| format!("{}\n", l.split_once(' ').unwrap().1))
        .collect();
    std::fs::write(dir.join("access.log"), log).unwrap();
    std::fs::write(dir.join("hostless.log"), hostless).unwrap();
    (dir.to_path_buf(), snapshot)
}

fn audit(dir: &Path, snapshot: &Path, out: &Path, shard: Option<String>) {
    let mut args = vec![
        "audit".to_string(),
        dir.join("access.log").display().to_string(),
        dir.join("hostless.log").display().to_string(),
        "--snapshot".into(),
        snapshot.display().to_string(),
        "--ip-ranges".into(),
        format!("{DEMO}/ip-ranges"),
        "--out".into(),
        out.display().to_string(),
        "--quiet".into(),
    ];
    if let Some(s) = shard {
        args.extend(["--shard".to_string(), s]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    crawlaudit(&args);
}

/// A shard count from the clock, so that runs cover different N; printed
/// so that a failure can be reproduced.
fn random_n() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    2 + nanos % 15
}

#[test]
fn merged_shards_equal_one_run() {
    let dir = common::fresh_dir("shards");
    let (input, snapshot) = many_hosts(&dir);
    let single = dir.join("single");
    audit(&input, &snapshot, &single, None);
    let whole = common::summary_without_run(&single);
    assert!(whole["requests"]["no_host"].as_u64().unwrap() > 0);
    assert!(whole["findings"]["unknown-host"].as_u64().unwrap() > 0);
    assert!(whole["violations"]["disallow"].as_u64().unwrap() > 100);
    let random = random_n();
    eprintln!("random shard count: {random}");
    for n in [1, 2, 3, 7, random] {
        let shards: Vec<PathBuf> = (0..n).map(|k| dir.join(format!("n{n}-shard{k}"))).collect();
        for (k, out) in shards.iter().enumerate() {
            audit(&input, &snapshot, out, Some(format!("{k}/{n}")));
        }
        let merged = dir.join(format!("n{n}-merged"));
        // Shards given in any order.
        let mut args = vec!["merge".to_string()];
        args.extend(shards.iter().rev().map(|s| s.display().to_string()));
        args.extend(["--out".to_string(), merged.display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crawlaudit(&args);
        // Every file but summary.json, whose run time differs.
        let files = OutputFormats::default().files();
        for file in files.iter().filter(|f| *f != "summary.json") {
            let a = std::fs::read(single.join(file)).unwrap();
            let b = std::fs::read(merged.join(file)).unwrap();
            assert!(a == b, "N = {n}: {file} differs from the single run's");
        }
        assert_eq!(
            common::summary_without_run(&merged),
            whole,
            "N = {n}: summary.json"
        );
        if n > 1 {
            // The shards split the work: no shard saw every violation.
            let per_shard: Vec<u64> = shards
                .iter()
                .map(|s| {
                    common::summary_without_run(s)["violations"]["disallow"]
                        .as_u64()
                        .unwrap()
                })
                .collect();
            assert_eq!(
                per_shard.iter().sum::<u64>(),
                whole["violations"]["disallow"].as_u64().unwrap()
            );
            assert!(
                per_shard
                    .iter()
                    .all(|&v| v < whole["violations"]["disallow"].as_u64().unwrap()),
                "N = {n}: {per_shard:?}"
            );
        }
    }
}

#[test]
fn merge_refuses_what_is_not_one_audit() {
    let dir = common::fresh_dir("shards-bad");
    let out = |name: &str| dir.join(name).display().to_string();
    for k in 0..3 {
        crawlaudit(&[
            "audit",
            "--out",
            &out(&format!("s{k}")),
            "--quiet",
            "--shard",
            &format!("{k}/3"),
        ]);
    }
    crawlaudit(&["audit", "--out", &out("plain"), "--quiet"]);
    crawlaudit(&[
        "audit",
        "--out",
        &out("other"),
        "--quiet",
        "--shard",
        "2/3",
        "--robots-cache-grace",
        "1h",
    ]);
    let merge = |dirs: &[&str]| {
        let mut args = vec!["merge".to_string()];
        args.extend(dirs.iter().map(|d| out(d)));
        args.extend(["--out".to_string(), out("merged")]);
        Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
            .args(&args)
            .output()
            .unwrap()
    };
    let cases: [(&[&str], String); 4] = [
        (
            &["s0", "s2"],
            format!(
                "crawlaudit: error: the shards do not make up one audit: each of 0/3 to 2/3 is needed once; given 0/3 ({}), 2/3 ({})",
                out("s0"),
                out("s2")
            ),
        ),
        (
            &["s0", "s1", "s1", "s2"],
            "crawlaudit: error: the shards do not make up one audit".into(),
        ),
        (
            &["plain"],
            format!(
                "crawlaudit: error: {}/summary.json: not a shard report: write it with audit --shard K/N",
                out("plain")
            ),
        ),
        (
            &["s0", "s1", "other"],
            format!(
                "crawlaudit: error: {}/summary.json and {}/summary.json differ in settings: shards must audit the same logs with the same settings",
                out("s0"),
                out("other")
            ),
        ),
    ];
    for (dirs, want) in cases {
        let run = merge(dirs);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{dirs:?}: {stderr}");
        assert!(
            stderr.starts_with(&want),
            "{dirs:?}: want {want}\ngot {stderr}"
        );
        assert!(!dir.join("merged").exists());
    }
}

/// Past the cap on named unknown hosts, shards each name their own first
/// hosts; merged, the report names the first of all and folds the rest
/// into one row, as one run does.
#[test]
fn unknown_hosts_past_the_cap_merge_as_one_run() {
    let dir = common::fresh_dir("shards-unknown");
    let (_, snapshot) = many_hosts(&dir);
    // 12,000 hosts the snapshot does not know, some more than once.
    let mut log = std::fs::read_to_string(dir.join("access.log")).unwrap();
    for i in 0..12_000u32 {
        for _ in 0..=(i % 3) {
            log.push_str(&format!(
                "h{i:05}.unknown.example:443 192.0.2.9 - - [01/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"Mozilla/5.0\"\n"
            ));
        }
    }
    std::fs::write(dir.join("access.log"), log).unwrap();
    let single = dir.join("single");
    audit(&dir, &snapshot, &single, None);
    let shards: Vec<PathBuf> = (0..3).map(|k| dir.join(format!("shard{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        audit(&dir, &snapshot, out, Some(format!("{k}/3")));
    }
    let merged = dir.join("merged");
    let mut args = vec!["merge".to_string()];
    args.extend(shards.iter().map(|s| s.display().to_string()));
    args.extend(["--out".to_string(), merged.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    crawlaudit(&args);
    let findings = std::fs::read_to_string(single.join("findings.csv")).unwrap();
    let unknown = findings
        .lines()
        .filter(|l| l.starts_with("unknown-host,"))
        .count();
    assert_eq!(unknown, 10_001, "the first 10,000 named and one other row");
    assert!(
        findings.contains(r#"unknown-host,(other hosts),"",,"",4208,"#),
        "{findings}"
    );
    for file in ["findings.csv", "findings.parquet", "report.html"] {
        assert!(
            std::fs::read(single.join(file)).unwrap() == std::fs::read(merged.join(file)).unwrap(),
            "{file} differs"
        );
    }
}
