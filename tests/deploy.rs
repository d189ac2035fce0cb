//! The batch-engine deployment (`deploy/`): the local simulation of the
//! Kubernetes Indexed Job (N shard processes, each with its own
//! JOB_COMPLETION_INDEX, then the merge) writes exactly the report of one
//! run, a failed shard stops it, and the manifests agree with the scripts.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn simulate(shards: u32, snapshot: &Path, work: &Path) -> Output {
    let demo = Path::new(ROOT).join("fixtures/demo");
    Command::new("sh")
        .arg(Path::new(ROOT).join("deploy/simulate.sh"))
        .env("SHARDS", shards.to_string())
        .env("LOGS", demo.join("access.log"))
        .env("SNAPSHOT", snapshot)
        .env("OUT", work.join("shards"))
        .env("REPORT", work.join("report"))
        .env(
            "CRAWLAUDIT_ARGS",
            format!("--ip-ranges {}", demo.join("ip-ranges").display()),
        )
        .env("CRAWLAUDIT", env!("CARGO_BIN_EXE_crawlaudit"))
        .env_remove("OBJECT_STORE")
        .output()
        .unwrap()
}

#[test]
fn the_local_simulation_matches_a_single_run() {
    let work = common::fresh_dir("deploy-sim");
    let demo = Path::new(ROOT).join("fixtures/demo");
    let single = work.join("single");
    let run = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .arg("audit")
        .arg(demo.join("access.log"))
        .arg("--snapshot")
        .arg(demo.join("snapshot"))
        .arg("--ip-ranges")
        .arg(demo.join("ip-ranges"))
        .arg("--out")
        .arg(&single)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(run.status.success());
    let sim = simulate(4, &demo.join("snapshot"), &work);
    assert!(
        sim.status.success(),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    for k in 0..4 {
        assert!(work.join(format!("shards/shard-{k}/summary.json")).exists());
    }
    let report = work.join("report");
    let files = crawlaudit::report::OutputFormats::default().files();
    for file in files.iter().filter(|f| *f != "summary.json") {
        assert!(
            std::fs::read(single.join(file)).unwrap() == std::fs::read(report.join(file)).unwrap(),
            "{file} differs from the single run's"
        );
    }
    assert_eq!(
        common::summary_without_run(&report),
        common::summary_without_run(&single)
    );
}

#[test]
fn a_failed_shard_stops_the_simulation() {
    let work = common::fresh_dir("deploy-fail");
    let sim = simulate(3, &work.join("no-such-snapshot"), &work);
    assert_eq!(sim.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&sim.stderr);
    assert!(
        stderr.contains("simulate: 3 of 3 shards failed; no merge"),
        "{stderr}"
    );
    assert!(!work.join("report").exists());
}

/// `key: value` of the first line (trimmed) that starts with `key:`.
fn value<'a>(yaml: &'a str, key: &str) -> &'a str {
    yaml.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no {key} in the manifest"))
        .trim()
}

/// The value of the env entry `name` (the `value:` line after its `name:`).
fn env_value(yaml: &str, name: &str) -> String {
    let mut lines = yaml.lines().map(str::trim);
    lines
        .by_ref()
        .find(|l| *l == format!("- name: {name}"))
        .unwrap_or_else(|| panic!("no env {name}"));
    lines
        .next()
        .and_then(|l| l.strip_prefix("value:"))
        .unwrap()
        .trim()
        .trim_matches('"')
        .to_string()
}

#[test]
fn the_manifests_agree_with_the_scripts() {
    let read = |p: &str| std::fs::read_to_string(Path::new(ROOT).join(p)).unwrap();
    let shards = read("deploy/k8s/audit-shards.yaml");
    let merge = read("deploy/k8s/audit-merge.yaml");
    let dockerfile = read("deploy/Dockerfile");
    assert_eq!(value(&shards, "kind"), "Job");
    assert_eq!(value(&shards, "completionMode"), "Indexed");
    let n = value(&shards, "completions");
    assert_eq!(value(&shards, "parallelism"), n);
    assert_eq!(env_value(&shards, "SHARDS"), n);
    assert_eq!(
        env_value(&merge, "SHARDS"),
        n,
        "the merge expects every shard"
    );
    assert_eq!(
        env_value(&shards, "OBJECT_STORE"),
        env_value(&merge, "OBJECT_STORE")
    );
    assert_eq!(value(&shards, "image"), value(&merge, "image"));
    // The scripts the pods run are in the image.
    for (yaml, script) in [(&shards, "shard.sh"), (&merge, "merge.sh")] {
        assert!(value(yaml, "args").contains(&format!("/usr/local/bin/{script}")));
        assert!(dockerfile.contains(&format!("deploy/{script}")));
        assert!(Path::new(ROOT).join("deploy").join(script).exists());
    }
}
