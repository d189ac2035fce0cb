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

/// A snapshot with one host and the given robots.txt; returns its path.
fn snapshot(dir: &Path, robots: &[u8]) -> PathBuf {
    let snap = dir.join("snapshot");
    std::fs::create_dir_all(snap.join("shop.example")).unwrap();
    std::fs::write(snap.join("shop.example/robots.txt"), robots).unwrap();
    snap
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

/// `crawlaudit audit LOG --snapshot SNAP --out OUT --quiet EXTRA...`,
/// bounded to `secs` seconds and 256 MiB.
fn audit(d: &Path, log: &str, snap: &Path, out: &Path, extra: &[&str], secs: u64) -> Run {
    let mut args = vec![
        "audit",
        log,
        "--snapshot",
        snap.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    bounded(&args, d, secs, 256)
}

#[test]
fn closed_stdin_is_a_fault_and_empty_stdin_a_warning() {
    let d = dir("stdin");
    let snap = snapshot(&d, b"User-agent: *\nDisallow: /private\n");
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
