//! Helpers shared by the integration tests (each test crate uses a part).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// An empty directory for one test, under the system's temporary directory.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crawlaudit-{name}-{}", std::process::id()));
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
