//! Golden end-to-end cases, one directory per case under `fixtures/cases/`:
//! `access.log`, `snapshot/`, optionally `ip-ranges/`, and the expected
//! `violations.csv` and `findings.csv` that `crawlaudit audit` must write.
//! Each case's `CASE.md` says which rows are expected and why; the expected
//! files were checked against it by hand. `UPDATE_EXPECT=1` rewrites them.

mod common;

use std::path::Path;
use std::process::Command;

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cases");

fn run_case(case: &Path) -> Result<(), String> {
    let out = common::fresh_dir(&format!(
        "case-{}",
        case.file_name().unwrap().to_string_lossy()
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_crawlaudit"));
    cmd.arg("audit")
        .arg(case.join("access.log"))
        .arg("--snapshot")
        .arg(case.join("snapshot"))
        .arg("--out")
        .arg(&out)
        .args(["--output-formats", "csv", "--quiet"]);
    if case.join("ip-ranges").is_dir() {
        cmd.arg("--ip-ranges").arg(case.join("ip-ranges"));
    }
    let run = cmd.output().unwrap();
    if !run.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            run.status.code(),
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let errors: Vec<String> = ["violations.csv", "findings.csv"]
        .iter()
        .filter_map(|file| {
            let actual = std::fs::read_to_string(out.join(file)).unwrap();
            common::check_golden(&actual, &case.join(file)).err()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&out);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

#[test]
fn every_golden_case_matches() {
    let cases = common::case_dirs(Path::new(CASES));
    assert!(cases.len() >= 7, "cases found: {}", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run_case(case)
                .err()
                .map(|e| format!("case {}: {e}", case.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
