//! Helpers shared by the integration tests (each test crate uses a part).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// This test process's directory under the system's temporary directory,
/// removed when the process exits (set `CRAWLAUDIT_KEEP_TEST_DIRS=1` to
/// keep it for a look after a failure): a test run leaves nothing behind.
fn process_dir() -> PathBuf {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    extern "C" fn remove() {
        if std::env::var_os("CRAWLAUDIT_KEEP_TEST_DIRS").is_none() {
            let _ = std::fs::remove_dir_all(process_dir_path());
        }
    }
    REGISTER.call_once(|| {
        // SAFETY: `remove` is a plain function that does not unwind.
        unsafe {
            libc::atexit(remove);
        }
    });
    process_dir_path()
}

fn process_dir_path() -> PathBuf {
    std::env::temp_dir().join(format!("crawlaudit-tests-{}", std::process::id()))
}

/// An empty directory for one test, in this process's temporary directory.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = process_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The subdirectories of `root`, sorted: one golden case each.
pub fn case_dirs(root: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    cases
}

/// Compares `actual` with the golden file at `expected`; with
/// `UPDATE_EXPECT` set, rewrites the golden file first (re-blessing).
/// The error shows both sides.
pub fn check_golden(actual: &str, expected: &Path) -> Result<(), String> {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(expected, actual).unwrap();
    }
    let want = std::fs::read_to_string(expected)
        .map_err(|e| format!("{}: {e} (UPDATE_EXPECT=1 writes it)", expected.display()))?;
    if actual == want {
        Ok(())
    } else {
        Err(format!(
            "{} differs:\n--- expected\n{want}--- actual\n{actual}",
            expected.display()
        ))
    }
}

/// A report's `summary.json` without its `run` timing, the one field that
/// differs between two runs over the same input.
pub fn summary_without_run(report: &Path) -> serde_json::Value {
    let path = report.join("summary.json");
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: serde_json::Value = serde_json::from_slice(&text).unwrap();
    v.as_object_mut().unwrap().remove("run");
    v
}

/// The hidden entries of `dir` (names starting with `.`): what a failed or
/// killed report write would leave behind.
pub fn hidden_entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// What one bounded run gave.
#[cfg(target_os = "linux")]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: std::time::Duration,
    pub max_rss_mib: u64,
}

/// Runs the binary with `args`, waits for it with `wait4` to read its peak
/// resident set, and asserts the time and memory bounds.
#[cfg(target_os = "linux")]
pub fn bounded(args: &[&str], dir: &Path, max_secs: u64, max_rss_mib: u64) -> Run {
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    let start = std::time::Instant::now();
    // Reaped by wait4 below, which also gives its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are to
    // live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    let elapsed = start.elapsed();
    let exit =
        <std::process::ExitStatus as std::os::unix::process::ExitStatusExt>::from_raw(status);
    let run = Run {
        code: exit.code(),
        stdout: std::fs::read_to_string(&out_path).unwrap(),
        stderr: std::fs::read_to_string(&err_path).unwrap(),
        elapsed,
        // ru_maxrss is in KiB on Linux.
        max_rss_mib: usage.ru_maxrss as u64 / 1024,
    };
    eprintln!(
        "{args:?}: exit {:?} in {:.2} s, peak RSS {} MiB",
        run.code,
        run.elapsed.as_secs_f64(),
        run.max_rss_mib
    );
    assert!(
        run.elapsed <= std::time::Duration::from_secs(max_secs),
        "took {:?}, bound {max_secs} s; stderr: {}",
        run.elapsed,
        run.stderr
    );
    assert!(
        run.max_rss_mib <= max_rss_mib,
        "peak RSS {} MiB, bound {max_rss_mib} MiB",
        run.max_rss_mib
    );
    run
}

/// The names of the files directly in `dir`, sorted.
pub fn dir_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `crawlaudit audit LOG --snapshot SNAP --out OUT --quiet EXTRA...`,
/// bounded to `secs` seconds and `mib` MiB of peak RSS ([`bounded`]).
#[cfg(target_os = "linux")]
pub fn bounded_audit(
    dir: &Path,
    log: &str,
    snap: &Path,
    out: &Path,
    extra: &[&str],
    secs: u64,
    mib: u64,
) -> Run {
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
    bounded(&args, dir, secs, mib)
}

/// A snapshot in `dir/snapshot` with one host, shop.example, and the given
/// robots.txt; returns its path.
pub fn shop_snapshot(dir: &Path, robots: &[u8]) -> PathBuf {
    let snap = dir.join("snapshot");
    std::fs::create_dir_all(snap.join("shop.example")).unwrap();
    std::fs::write(snap.join("shop.example/robots.txt"), robots).unwrap();
    snap
}

/// The data `report.html` embeds (the JSON its script renders).
#[allow(dead_code)]
pub fn page_data(html: &str) -> serde_json::Value {
    let start = r#"<script type="application/json" id="data">"#;
    let at = html.find(start).expect("report.html embeds its data") + start.len();
    let end = html[at..].find("</script>").expect("the data's end") + at;
    serde_json::from_str(&html[at..end]).expect("the data is JSON")
}

/// Copies directory `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
