//! Reports under faults: a run killed with SIGKILL at any moment leaves the
//! previous report or the new one, never a mixture; a full disk gives exit
//! 2, a message naming the file, and the previous report intact, also
//! when the write that fails is one of a large file's direct writes.
#![cfg(target_os = "linux")]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

fn crawlaudit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
}

/// The demo's audit (its files named, so that nothing else is written)
/// into `out`; `grace` changes the result (so that the old and the new
/// report differ).
fn audit_args(out: &Path, grace: &str) -> Vec<String> {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    let path = |p: &str| demo.join(p).to_str().unwrap().to_string();
    [
        "audit".to_string(),
        path("access.log"),
        "--snapshot".into(),
        path("snapshot"),
        "--ip-ranges".into(),
        path("ip-ranges"),
    ]
    .into_iter()
    .chain(
        [
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--robots-cache-grace",
            grace,
        ]
        .map(String::from),
    )
    .collect()
}

fn run(args: &[String]) -> Output {
    crawlaudit().args(args).output().unwrap()
}

/// A report's files by name; summary.json without its `run` timing, the
/// one field that differs between identical runs.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = if name == "summary.json" {
            common::summary_without_run(dir).to_string().into_bytes()
        } else {
            std::fs::read(&path).unwrap()
        };
        files.insert(name, bytes);
    }
    files
}

#[test]
fn a_killed_run_leaves_the_old_report_or_the_new_one() {
    let dir = common::fresh_dir("faults-kill");
    // The two reports, written undisturbed.
    let old_dir = dir.join("old");
    let new_dir = dir.join("new");
    assert!(run(&audit_args(&old_dir, "24h")).status.success());
    let start = Instant::now();
    assert!(run(&audit_args(&new_dir, "1h")).status.success());
    let duration = start.elapsed();
    let (old, new) = (contents(&old_dir), contents(&new_dir));
    assert_ne!(
        old, new,
        "the two runs must differ for the test to mean anything"
    );

    let out = dir.join("reports");
    let mut seen = BTreeMap::<&str, u32>::new();
    for step in 0..=16u32 {
        // Start from the old report, kill the new run part way through
        // (later and later; the last ones after it finished).
        assert!(run(&audit_args(&out, "24h")).status.success());
        let mut child = crawlaudit()
            .args(audit_args(&out, "1h"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(duration.mul_f64(f64::from(step) / 12.0));
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        assert!(out.is_dir(), "step {step}: no report at all");
        let got = contents(&out);
        let which = if got == old {
            "old"
        } else if got == new {
            "new"
        } else {
            panic!(
                "step {step}: the report is a mixture: files {:?}",
                got.keys().collect::<Vec<_>>()
            )
        };
        *seen.entry(which).or_default() += 1;
    }
    eprintln!("killed runs left: {seen:?}");
    assert!(
        seen.contains_key("old"),
        "no kill came early enough: {seen:?}"
    );
    // The next complete run removes what killed runs left behind.
    assert!(run(&audit_args(&out, "1h")).status.success());
    assert_eq!(common::hidden_entries(&dir), Vec::<String>::new());
    assert_eq!(contents(&out), new);
}

/// A small tmpfs mounted for the test (unmounted on drop).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Makes `cmd`'s process unable to write files past `bytes`: its writes
/// there fail with EFBIG (the signal that would otherwise kill it is
/// ignored).
fn limit_file_size(cmd: &mut Command, bytes: libc::rlim_t) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit and signal are async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
}

#[test]
fn a_full_disk_is_exit_2_and_keeps_the_previous_report() {
    let dir = common::fresh_dir("faults-disk");
    let disk = dir.join("disk");
    // Room for one demo report (about 290 KiB in 4 KiB pages), not two.
    let mounted = Tmpfs::mount(&disk, "400k");
    let out = disk.join("reports");
    let limited = |args: &[String]| -> Output {
        let mut cmd = crawlaudit();
        cmd.args(args);
        if mounted.is_none() {
            // Without the right to mount: a file size limit makes writes
            // fail the same way (EFBIG instead of ENOSPC).
            limit_file_size(&mut cmd, 20_000);
        }
        cmd.output().unwrap()
    };
    if mounted.is_some() {
        let first = limited(&audit_args(&out, "24h"));
        assert!(
            first.status.success(),
            "{}",
            String::from_utf8_lossy(&first.stderr)
        );
    } else {
        eprintln!("cannot mount a tmpfs here: limiting the file size instead");
        std::fs::create_dir_all(&disk).unwrap();
        assert!(run(&audit_args(&out, "24h")).status.success());
    }
    let before = contents(&out);
    let second = limited(&audit_args(&out, "1h"));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    let want = format!("cannot write {}/", out.display());
    assert!(stderr.contains(&want), "want {want:?} in {stderr}");
    let cause = if mounted.is_some() {
        "No space left on device"
    } else {
        "File too large"
    };
    assert!(stderr.contains(cause), "{stderr}");
    assert!(
        stderr.contains("the previous report, if any, is unchanged"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert_eq!(contents(&out), before, "the previous report changed");
    assert_eq!(common::hidden_entries(&disk), Vec::<String>::new());
}

/// A log whose violations tables run past the size from which a report
/// file is written directly (`O_DIRECT` on a local disk): `lines` GPTBot
/// requests, every one disallowed, for shop.example, whose snapshot is
/// written beside it. Returns the audit's arguments into `out`.
fn big_report_args(dir: &Path, lines: usize, out: &Path) -> Vec<String> {
    use std::io::Write;
    let snapshot = common::shop_snapshot(dir, b"User-agent: *\nDisallow: /\n");
    let log = dir.join("access.log");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&log).unwrap());
    for i in 0..lines {
        writeln!(
            w,
            "20.171.{}.{} - - [01/Nov/2026:{:02}:{:02}:{:02} +0000] \"GET /catalogue/item-{i}?page={} HTTP/1.1\" 200 5120 \"-\" \"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)\"",
            i / 250 % 250,
            i % 250,
            i / 3600 % 24,
            i / 60 % 60,
            i % 60,
            i % 97,
        )
        .unwrap();
    }
    w.flush().unwrap();
    [
        "audit",
        log.to_str().unwrap(),
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]
    .map(String::from)
    .to_vec()
}

/// A write that fails past the first 4 MiB of a report file, where the
/// file is written around the page cache on a local disk, fails the run
/// as a full disk does: exit 2, one line naming the file and the cause,
/// the previous report unchanged and no temporary directory left.
#[test]
fn a_write_failing_in_a_large_file_is_exit_2_and_keeps_the_previous_report() {
    let dir = common::fresh_dir("faults-large-file");
    let out = dir.join("reports");
    let args = big_report_args(&dir, 60_000, &out);
    let first = run(&args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let before = contents(&out);
    let csv = before["violations.csv"].len();
    // Past the cached first 4 MiB, short of the whole file.
    assert!(csv > 10 << 20, "violations.csv is only {csv} bytes");
    let limited = {
        let mut cmd = crawlaudit();
        cmd.args(&args);
        limit_file_size(&mut cmd, 7 << 20);
        cmd.output().unwrap()
    };
    let stderr = String::from_utf8_lossy(&limited.stderr);
    assert_eq!(limited.status.code(), Some(2), "{stderr}");
    let want = format!("cannot write {}/violations.", out.display());
    assert!(stderr.contains(&want), "want {want:?} in {stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert_eq!(contents(&out), before, "the previous report changed");
    assert_eq!(common::hidden_entries(&dir), Vec::<String>::new());
}
