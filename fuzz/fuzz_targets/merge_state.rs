//! Fuzz the readers of files that other runs wrote: a shard report read
//! back by `merge` (`summary.json` and the three Parquet tables) and a
//! `--state` file. The input is five parts separated by
//! `\n--crawlaudit-part--\n`: summary.json, violations.parquet,
//! findings.parquet, crawlers.parquet, state.parquet (seeds from a real
//! shard report and state file: `fuzz/seed.py`).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use crawlaudit::report::{Report, read_state};
use libfuzzer_sys::fuzz_target;

/// What separates the parts of an input.
const SEPARATOR: &[u8] = b"\n--crawlaudit-part--\n";
const FILES: [&str; 5] = [
    "summary.json",
    "violations.parquet",
    "findings.parquet",
    "crawlers.parquet",
    "state.parquet",
];

fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("crawlaudit-fuzz-merge-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("shard")).unwrap();
        dir
    })
}

fn parts(data: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() < FILES.len() - 1 {
        match rest.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
            Some(at) => {
                parts.push(&rest[..at]);
                rest = &rest[at + SEPARATOR.len()..];
            }
            None => break,
        }
    }
    parts.push(rest);
    parts
}

fuzz_target!(|data: &[u8]| {
    let dir = scratch();
    let shard = dir.join("shard");
    let parts = parts(data);
    for (i, name) in FILES.iter().enumerate() {
        let path = if i < 4 { shard.join(name) } else { dir.join(name) };
        match parts.get(i) {
            Some(bytes) => std::fs::write(&path, bytes).unwrap(),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    // Errors are fine; a panic or an abort is a bug.
    if let Ok(state) = read_state(&dir.join("state.parquet")) {
        // What was read can be written back and read again, unchanged.
        let again = dir.join("again.parquet");
        crawlaudit::report::write_state(&again, &state).unwrap();
        assert_eq!(read_state(&again).unwrap(), state);
    }
    if let Ok(report) = Report::merge(&[shard]) {
        // A merged report is a report: its rows can be listed.
        let _ = report.crawler_rows().unwrap();
        let _ = report.finding_rows_by_kind().unwrap();
    }
});
