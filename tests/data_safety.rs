//! The tool never loses a user's data (issue "Never lose a user's data"):
//! `--out` refuses what the report did not write, the state and the exit
//! code survive a closed stdout, nothing printed can drive the terminal,
//! `merge` refuses tampered shard reports with one line, and an input that
//! could not be read leaves yesterday's report.
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo");

fn crawlaudit(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `mydata/` holding the demo's log and a file of the user's.
fn mydata(dir: &Path) -> PathBuf {
    let data = dir.join("mydata");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(format!("{DEMO}/access.log"), data.join("access.log")).unwrap();
    std::fs::write(data.join("notes.txt"), "mine").unwrap();
    data
}

#[test]
fn out_refuses_a_directory_of_the_users() {
    let dir = common::fresh_dir("safety-out");
    let data = mydata(&dir);
    let snapshot = format!("{DEMO}/snapshot");
    let run = crawlaudit(
        &[
            "audit",
            "mydata/access.log",
            "--snapshot",
            &snapshot,
            "--out",
            "mydata",
            "--quiet",
        ],
        &dir,
    );
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert_eq!(
        stderr(&run),
        "crawlaudit: error: --out mydata: not empty and not a crawlaudit report (no .crawlaudit-report file): the report replaces --out whole, so it goes only to a new or empty directory or a previous report; choose another --out\n"
    );
    assert_eq!(listing(&data), ["access.log", "notes.txt"]);
    // The working directory itself (`--out "$PWD"`, `--out .`).
    for out in [".", data.to_str().unwrap()] {
        let run = crawlaudit(
            &[
                "audit",
                "access.log",
                "--snapshot",
                &snapshot,
                "--out",
                out,
                "--quiet",
            ],
            &data,
        );
        assert_eq!(run.status.code(), Some(2), "{out}: {}", stderr(&run));
        assert!(
            stderr(&run).contains("not a crawlaudit report"),
            "{}",
            stderr(&run)
        );
    }
    assert_eq!(listing(&data), ["access.log", "notes.txt"]);
    assert_eq!(listing(&dir), ["mydata"]);
    // A file: refused, not hidden.
    std::fs::write(dir.join("precious.html"), "mine").unwrap();
    let run = crawlaudit(
        &[
            "audit",
            "mydata/access.log",
            "--snapshot",
            &snapshot,
            "--out",
            "precious.html",
            "--quiet",
        ],
        &dir,
    );
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        stderr(&run),
        "crawlaudit: error: --out precious.html: a file, not a report directory: crawlaudit writes a directory and never replaces a file; choose another --out\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("precious.html")).unwrap(),
        "mine"
    );
    assert_eq!(listing(&dir), ["mydata", "precious.html"]);
    // A report is replaced, run after run; the marker is in it.
    for _ in 0..2 {
        let run = crawlaudit(
            &[
                "audit",
                "mydata/access.log",
                "--snapshot",
                &snapshot,
                "--out",
                "reports",
                "--quiet",
            ],
            &dir,
        );
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    }
    assert!(listing(&dir.join("reports")).contains(&".crawlaudit-report".to_string()));
    assert_eq!(listing(&dir), ["mydata", "precious.html", "reports"]);
    // A state file kept inside --out would be lost: refused before any work.
    let run = crawlaudit(
        &[
            "audit",
            "mydata/access.log",
            "--snapshot",
            &snapshot,
            "--out",
            "reports",
            "--state",
            "reports/state.parquet",
            "--quiet",
        ],
        &dir,
    );
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        stderr(&run),
        "crawlaudit: error: --state reports/state.parquet lies inside --out reports, which every run replaces whole: keep it elsewhere\n"
    );
}

#[test]
fn a_closed_stdout_changes_nothing_but_the_summary() {
    let dir = common::fresh_dir("safety-stdout");
    let data = mydata(&dir);
    let snapshot = format!("{DEMO}/snapshot");
    // The reader of stdout is gone before the summary is printed.
    let closed = |args: &[&str]| -> (Option<i32>, String) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        (out.status.code(), stderr(&out))
    };
    let (code, err) = closed(&[
        "audit",
        "mydata/access.log",
        "--snapshot",
        &snapshot,
        "--out",
        "r1",
        "--state",
        "state.parquet",
        "--fail-on",
        "any",
        "--quiet",
    ]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("--fail-on matched"), "{err}");
    assert!(
        dir.join("state.parquet").is_file(),
        "the state was not written"
    );
    // A fault: exit 2 and its message.
    std::fs::write(
        data.join("broken.log.gz"),
        [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2],
    )
    .unwrap();
    let (code, err) = closed(&[
        "audit",
        "mydata/access.log",
        "mydata/broken.log.gz",
        "--snapshot",
        &snapshot,
        "--out",
        "r2",
        "--quiet",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("broken.log.gz"), "{err}");
}

#[test]
fn nothing_printed_can_drive_the_terminal() {
    let dir = common::fresh_dir("safety-ansi");
    // A crawler whose User-Agent sets the terminal's title and clears it.
    let ua = "EvilBot\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}31m/1.0";
    let line = format!(
        "shop.example:443 192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET /private/x HTTP/1.1\" 200 1 \"-\" \"{ua}\"\n"
    );
    std::fs::write(dir.join("a.log"), line.repeat(3)).unwrap();
    let snap = dir.join("s/shop.example");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::write(
        snap.join("robots.txt"),
        "User-agent: *\nDisallow: /private/\n",
    )
    .unwrap();
    let run = crawlaudit(
        &["audit", "a.log", "--snapshot", "s", "--out", "r", "--quiet"],
        &dir,
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.contains("EvilBot\\u001b]0;owned"), "{out}");
    for control in ['\u{1b}', '\u{7}', '\u{9b}'] {
        assert!(!out.contains(control), "{out:?}");
        assert!(!stderr(&run).contains(control));
    }
    // And `logs`, which prints bad lines.
    std::fs::write(dir.join("bad.log"), format!("{line}\u{1b}[2Jnot a line\n")).unwrap();
    let run = crawlaudit(&["logs", "bad.log", "--format", "vhost_combined"], &dir);
    let out = String::from_utf8_lossy(&run.stdout).into_owned() + &stderr(&run);
    assert!(out.contains("\\u001b[2Jnot a line"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
}

#[test]
fn an_input_that_could_not_be_read_leaves_the_report() {
    let dir = common::fresh_dir("safety-unread");
    mydata(&dir);
    let snapshot = format!("{DEMO}/snapshot");
    let run = crawlaudit(
        &[
            "audit",
            "mydata/access.log",
            "--snapshot",
            &snapshot,
            "--out",
            "reports",
            "--quiet",
        ],
        &dir,
    );
    assert_eq!(run.status.code(), Some(0));
    let before = std::fs::read(dir.join("reports/violations.csv")).unwrap();
    std::fs::write(
        dir.join("broken.log.gz"),
        [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2],
    )
    .unwrap();
    let run = crawlaudit(
        &[
            "audit",
            "broken.log.gz",
            "--snapshot",
            &snapshot,
            "--out",
            "reports",
            "--quiet",
            "--allow-partial",
        ],
        &dir,
    );
    assert_eq!(run.status.code(), Some(2));
    let err = stderr(&run);
    assert!(
        err.ends_with(
            "crawlaudit: error: no log could be read: the report in reports is left as it was\n"
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read(dir.join("reports/violations.csv")).unwrap(),
        before
    );
}

/// Shard reports of the demo (`audit --shard K/2`), in `dir/s0`, `dir/s1`.
fn shards(dir: &Path) -> [PathBuf; 2] {
    [0, 1].map(|k| {
        let out = dir.join(format!("s{k}"));
        let run = crawlaudit(
            &[
                "audit",
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--shard",
                &format!("{k}/2"),
            ],
            dir,
        );
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        out
    })
}

#[test]
fn merge_refuses_tampered_shards_in_one_line() {
    let dir = common::fresh_dir("safety-merge");
    let [s0, s1] = shards(&dir);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s0.join("summary.json")).unwrap()).unwrap();
    let merge = |dirs: &[&Path]| -> Output {
        let mut args = vec!["merge".to_string()];
        args.extend(dirs.iter().map(|d| d.display().to_string()));
        args.extend(["--out".into(), dir.join("merged").display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crawlaudit(&args, &dir)
    };
    assert_eq!(merge(&[&s0, &s1]).status.code(), Some(0));
    // Each tampering of s1's summary, and the start of the message.
    let tamper_shard = |from: &Path, f: &dyn Fn(&mut serde_json::Value)| -> PathBuf {
        let t = dir.join("tampered");
        let _ = std::fs::remove_dir_all(&t);
        std::fs::create_dir_all(&t).unwrap();
        for name in common::dir_files(from) {
            std::fs::copy(from.join(&name), t.join(&name)).unwrap();
        }
        let mut s =
            serde_json::from_slice(&std::fs::read(from.join("summary.json")).unwrap()).unwrap();
        f(&mut s);
        std::fs::write(t.join("summary.json"), serde_json::to_vec(&s).unwrap()).unwrap();
        t
    };
    let tamper = |f: &dyn Fn(&mut serde_json::Value)| tamper_shard(&s1, f);
    let script = "<script>alert(1)</script>";
    type Tampering = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Tampering, &str)> = vec![
        (
            "HTML in a count",
            Box::new(move |s| s["inputs"]["files"][0]["lines"] = script.into()),
            "summary.json: not a shard report summary: invalid type: string \"<script>alert(1)</script>\", expected u64",
        ),
        (
            "a huge shard count",
            Box::new(|s| s["shard"]["count"] = (1u64 << 40).into()),
            "the shards do not make up one audit",
        ),
        (
            "an index past the count",
            Box::new(|s| s["shard"]["index"] = 7.into()),
            "summary.json: not a shard report summary: shard 7/2 does not exist",
        ),
    ];
    for (name, f, want) in cases {
        let t = tamper(&*f);
        let run = merge(&[&s0, &t]);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(want), "{name}: want {want}\ngot {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    // Counts that overflow when added up (the demo's requests are all in
    // shard 1 of 2).
    assert!(summary["requests"]["crawler"] == 0);
    {
        let t = tamper_shard(&s0, &|s| s["requests"]["crawler"] = u64::MAX.into());
        let run = merge(&[&t, &s1]);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert!(
            err.contains("summary.json: request counts too large to add up"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Corrupt Parquet tables: bytes flipped all through the file.
    let good = std::fs::read(s1.join("violations.parquet")).unwrap();
    let mut refused = 0;
    for step in 1..40 {
        let t = tamper(&|_| {});
        let mut bad = good.clone();
        for i in (step..bad.len()).step_by(37 + step) {
            bad[i] ^= 0x55;
        }
        std::fs::write(t.join("violations.parquet"), &bad).unwrap();
        let run = merge(&[&s0, &t]);
        let err = stderr(&run);
        assert!(!err.contains("panicked"), "step {step}: {err}");
        assert!(
            run.status.code() == Some(0) || run.status.code() == Some(2),
            "{err}"
        );
        if run.status.code() == Some(2) {
            assert_eq!(err.lines().count(), 1, "step {step}: {err}");
            assert!(err.contains("violations.parquet"), "step {step}: {err}");
            refused += 1;
        }
    }
    assert!(refused > 0);
}
