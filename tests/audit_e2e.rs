//! `crawlaudit audit` end to end: the bundled demo against golden files
//! (`fixtures/golden/demo/`, re-blessed with `UPDATE_EXPECT=1`), determinism,
//! exit codes, faults and atomicity.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn audit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .arg("audit")
        .args(args)
        .output()
        .unwrap()
}

fn temp(name: &str) -> PathBuf {
    common::fresh_dir(&format!("e2e-{name}"))
}

fn golden(out: &Path, file: &str) {
    let got = std::fs::read_to_string(out.join(file)).unwrap();
    let path = Path::new(ROOT).join("fixtures/golden/demo").join(file);
    if let Err(e) = common::check_golden(&got, &path) {
        panic!("{e}");
    }
}

#[test]
fn the_demo_matches_its_golden_report() {
    let dir = temp("demo");
    let out = dir.join("reports");
    let run = audit(&["--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(stdout.contains("auditing the bundled demo"), "{stdout}");
    assert!(
        stdout.contains("violations: 63 disallow, 12 crawl-delay, 6 noindex, 1 unavailable-after"),
        "{stdout}"
    );
    for file in ["violations.csv", "crawlers.csv", "findings.csv"] {
        golden(&out, file);
    }
    for file in [
        "violations.parquet",
        "crawlers.parquet",
        "findings.parquet",
        "violations.ndjson",
        "summary.json",
        "report.html",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    // report.html: self-contained, evidence first, the demo's crawlers ranked.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for external in [
        "<script src",
        "<link rel=\"stylesheet",
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
    ] {
        assert!(!html.contains(external), "report.html fetches: {external}");
    }
    let page = common::page_data(&html);
    let stories: Vec<&str> = page["stories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["crawler"].as_str().unwrap())
        .collect();
    let rank = |name: &str| {
        stories
            .iter()
            .position(|s| *s == name)
            .unwrap_or(usize::MAX)
    };
    assert!(rank("GPTBot") < rank("AhrefsBot") && rank("AhrefsBot") < rank("bingbot"));
    let rules: Vec<&str> = page["evidence"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"robots.txt 5xx"), "{rules:?}");
    // Each rule with its robots.txt line, version and group.
    let gptbot = page["evidence"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["crawler"] == "GPTBot" && e["line"] == 17)
        .unwrap();
    assert_eq!(gptbot["group"], "User-agent: GPTBot, CCBot");
    assert_eq!(gptbot["version"], "2026-11-03T00-00-00Z.txt");
    assert_eq!(gptbot["count"], 9);
    assert_eq!(gptbot["examples"].as_array().unwrap().len(), 3);
    assert!(
        !page["daily"]["cells"].as_array().unwrap().is_empty(),
        "no chart data"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["violations"]["noindex"], 6);
    assert_eq!(summary["requests"]["crawler"], 211);
    assert_eq!(summary["inputs"]["lines"], 394);
}

#[test]
fn two_runs_write_the_same_bytes() {
    let dir = temp("twice");
    let (a, b) = (dir.join("a"), dir.join("b"));
    assert!(audit(&["--out", a.to_str().unwrap()]).status.success());
    assert!(
        audit(&["--out", b.to_str().unwrap(), "--threads", "1"])
            .status
            .success()
    );
    let files = crawlaudit::report::OutputFormats::default().files();
    for file in files.iter().filter(|f| *f != "summary.json") {
        let read = |dir: &Path| std::fs::read(dir.join(file)).unwrap();
        assert!(read(&a) == read(&b), "{file} differs between two runs");
    }
    // summary.json differs only in the run's duration.
    assert_eq!(
        common::summary_without_run(&a),
        common::summary_without_run(&b)
    );
}

/// The demo is unpacked into a temporary directory for the run. The run's
/// prepared state is never dropped (freeing it would only cost time), and
/// the directory went with it: every demo run, the README's first command,
/// left one behind in the temporary directory, whether it succeeded,
/// matched `--fail-on` or failed after the unpacking.
#[test]
fn the_demo_leaves_no_temporary_files() {
    let dir = temp("demo-tmp");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = dir.join("reports");
    let runs: [&[&str]; 3] = [
        &["--quiet"],
        &["--quiet", "--fail-on", "any"],
        // Fails at its end, the report written: the state file cannot be.
        &["--quiet", "--state", "/proc/crawlaudit-no-such-dir/state"],
    ];
    for (args, code) in runs.into_iter().zip([0, 3, 2]) {
        let run = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
            .arg("audit")
            .args(["--out", out.to_str().unwrap()])
            .args(args)
            .env("TMPDIR", &tmp)
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let left: Vec<_> = std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            left.is_empty(),
            "{args:?} left {left:?} in {}",
            tmp.display()
        );
    }
}

fn demo_args(out: &Path) -> Vec<String> {
    vec![
        format!("{ROOT}/fixtures/demo/access.log"),
        "--snapshot".into(),
        format!("{ROOT}/fixtures/demo/snapshot"),
        "--ip-ranges".into(),
        format!("{ROOT}/fixtures/demo/ip-ranges"),
        "--out".into(),
        out.display().to_string(),
    ]
}

#[test]
fn explicit_inputs_fail_on_and_window() {
    let dir = temp("explicit");
    let out = dir.join("r");
    let mut args = demo_args(&out);
    args.extend(["--fail-on".into(), "noindex".into()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = audit(&refs);
    assert_eq!(
        run.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stderr).contains("--fail-on matched 6 violation(s)"));
    // The same inputs given explicitly give the embedded demo's report.
    let embedded = dir.join("embedded");
    assert!(
        audit(&["--out", embedded.to_str().unwrap(), "--quiet"])
            .status
            .success()
    );
    for file in ["violations.csv", "crawlers.csv", "findings.csv"] {
        let read = |dir: &Path| std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(read(&out) == read(&embedded), "{file} differs");
    }
    // A window without noindex evidence does not fail.
    let mut args = demo_args(&out);
    args.extend([
        "--fail-on".into(),
        "noindex,unavailable-after".into(),
        "--until".into(),
        "2026-11-03".into(),
    ]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(audit(&refs).status.code(), Some(0));
    let run = audit(&["--fail-on", "spam"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("unknown kind \"spam\""));
}

#[test]
fn faults_exit_2_but_keep_what_was_read() {
    let dir = temp("faults");
    let text = std::fs::read(format!("{ROOT}/fixtures/demo/access.log")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    let cut = dir.join("cut.log.gz");
    std::fs::write(&cut, &gz[..gz.len() * 2 / 3]).unwrap();
    let out = dir.join("r");
    let mut args = demo_args(&out);
    args[0] = cut.display().to_string();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = audit(&refs);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("gzip stream is corrupt or truncated"));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["inputs"]["faults"].as_array().unwrap().len(), 1);
    assert!(summary["inputs"]["parsed"].as_u64().unwrap() > 0);
    let mut args = refs.clone();
    args.push("--allow-partial");
    assert_eq!(audit(&args).status.code(), Some(0));
}

#[test]
fn a_failed_run_leaves_the_previous_report() {
    let dir = temp("atomic");
    let out = dir.join("reports");
    assert!(audit(&["--out", out.to_str().unwrap()]).status.success());
    let before = std::fs::read(out.join("violations.csv")).unwrap();
    let run = audit(&[
        &format!("{ROOT}/fixtures/demo/access.log"),
        "--snapshot",
        "/nonexistent/snapshot",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("/nonexistent/snapshot"));
    assert_eq!(std::fs::read(out.join("violations.csv")).unwrap(), before);
    assert_eq!(common::hidden_entries(&dir), Vec::<String>::new());
}

/// Uptime monitors are configured by the site itself: their violations
/// stay in the tables but are left out of the totals and `--fail-on`
/// unless `--include monitor`.
#[test]
fn monitors_count_only_when_included() {
    let dir = temp("monitors");
    let snap = common::shop_snapshot(&dir, b"User-agent: *\nDisallow: /private/\n");
    let log = dir.join("a.log");
    std::fs::write(
        &log,
        "shop.example:443 192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET /private/health HTTP/1.1\" 200 1 \"-\" \"Uptime-Kuma/1.23.0\"\n",
    )
    .unwrap();
    let run = |extra: &[&str], out: &str| {
        let out = dir.join(out);
        let mut args = vec![
            log.to_str().unwrap(),
            "--snapshot",
            snap.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--fail-on",
            "disallow",
        ];
        args.extend_from_slice(extra);
        let o = audit(&args);
        (o, common::summary_without_run(&out), out)
    };
    let (o, s, out) = run(&[], "r1");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(s["violations"]["disallow"], 0);
    assert_eq!(s["not_counted"]["monitor"], 1);
    assert_eq!(s["top_crawlers"], serde_json::json!([]));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("not counted above: 1 violations of monitor crawlers"),
        "{stdout}"
    );
    let csv = std::fs::read_to_string(out.join("violations.csv")).unwrap();
    assert!(
        csv.contains(",Uptime-Kuma,"),
        "the row stays in the table: {csv}"
    );
    let (o, s, _) = run(&["--include", "monitor"], "r2");
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(s["violations"]["disallow"], 1);
    assert!(s.get("not_counted").is_none());
    let bad = audit(&["--include", "monitors"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("--include: unknown crawler category \"monitors\"")
    );
}

/// `--timings` prints every stage's wall time on stderr, the stages adding
/// up to at most the whole run's; the report is the one written without
/// it, and without it nothing is printed.
#[test]
fn timings_name_every_stage_only_when_asked() {
    let dir = temp("timings");
    let (timed, plain) = (dir.join("timed"), dir.join("plain"));
    let mut args = demo_args(&timed);
    args.push("--timings".into());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = audit(&refs);
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let table = stderr
        .split_once("crawlaudit: stage timings (wall time)\n")
        .unwrap_or_else(|| panic!("no timings in {stderr:?}"))
        .1;
    // The number followed by the unit `s`.
    let seconds = |line: &str| -> f64 {
        let words: Vec<&str> = line.split_whitespace().collect();
        words
            .windows(2)
            .find_map(|w| (w[1] == "s").then(|| w[0].parse().ok()).flatten())
            .unwrap_or_else(|| panic!("no seconds in {line:?}"))
    };
    let lines: Vec<&str> = table.lines().collect();
    let stages = [
        "set-up",
        "reading",
        "judging",
        "building the report",
        "writing the report",
        "total",
    ];
    assert_eq!(lines.len(), stages.len(), "{table}");
    for (line, stage) in lines.iter().zip(stages) {
        assert!(
            line.trim_start().starts_with(stage),
            "{line:?} is not {stage}"
        );
    }
    let reading = lines[1];
    assert!(
        reading.contains(" MB, ") && reading.ends_with(" MB/s"),
        "{reading}"
    );
    let times: Vec<f64> = lines.iter().map(|l| seconds(l)).collect();
    let total = times[times.len() - 1];
    assert!(times.iter().all(|&t| t >= 0.0), "{table}");
    assert!(total > 0.0, "{table}");
    // Each shown to the millisecond: five roundings of half a millisecond.
    let sum: f64 = times[..times.len() - 1].iter().sum();
    assert!(
        sum <= total + 0.003,
        "the stages take {sum} s of {total} s:\n{table}"
    );
    // The same report without the flag, and no table.
    let args = demo_args(&plain);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = audit(&refs);
    assert_eq!(run.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&run.stderr).contains("timings"));
    for file in [
        "violations.csv",
        "violations.ndjson",
        "violations.parquet",
        "crawlers.csv",
    ] {
        let read = |dir: &Path| std::fs::read(dir.join(file)).unwrap();
        assert!(
            read(&timed) == read(&plain),
            "{file} differs with --timings"
        );
    }
}
