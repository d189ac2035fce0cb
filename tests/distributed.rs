//! The distributed audit's tasks (`crawlaudit::cli::spark::Job`, which the
//! Spark package runs) give exactly the report of one `crawlaudit audit`:
//! each log file ingested once and split by shard, each shard judged from its
//! parts in file order, the shard reports assembled. Checked here without
//! Spark (the tasks are called in this process, in a shuffled order, as a
//! cluster may run them); `python/tests` runs the same through Spark.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crawlaudit::cli::spark::{Files, Job, STATE_FILE};
use crawlaudit::distributed::Part;
use crawlaudit::report::OutputFormats;
use crawlaudit::shard::Shard;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `crawlaudit audit ARGS --out OUT --quiet`: its exit code.
fn cli(args: &[String], out: &Path) -> i32 {
    let o = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .arg("audit")
        .args(args)
        .args(["--quiet", "--out"])
        .arg(out)
        .output()
        .unwrap();
    o.status.code().unwrap()
}

/// The tasks, run as a cluster would: every file ingested (in reverse
/// order, to show the order of tasks does not matter), each shard's parts
/// put in file order, each shard judged, the reports assembled. Returns the
/// exit code.
fn distributed(args: &[String], out: &Path, n: u32) -> u8 {
    let mut argv = args.to_vec();
    argv.extend(["--quiet".into(), "--out".into(), out.display().to_string()]);
    let driver = Job::new(&argv, true, &[]).unwrap();
    let inputs = driver.inputs();
    let mut files = vec![String::new(); inputs.len()];
    let mut parts: Vec<Part> = Vec::new();
    for (i, path) in inputs.iter().enumerate().rev() {
        // A task of its own: a job of its own, as on an executor.
        let task = Job::new(&argv, false, &[]).unwrap();
        let (file, mut p) = task.ingest(i as u32, path, n, None).unwrap();
        files[i] = file;
        parts.append(&mut p);
    }
    // The shuffle: by shard, then file order.
    parts.sort_by_key(|p| (p.shard, p.file, p.chunk));
    let states = driver.states(n).unwrap();
    let mut reports: Vec<(u32, Files)> = Vec::new();
    for index in (0..n).rev() {
        let mut task = Job::new(&argv, false, &[]).unwrap();
        let state = states
            .iter()
            .find(|(s, _)| *s == index)
            .map(|(_, b)| b.as_slice());
        let mine = parts
            .iter()
            .filter(|p| p.shard == index)
            .map(|p| p.bytes.as_slice());
        let report = task
            .judge(Shard { index, count: n }, &files, state, mine)
            .unwrap();
        reports.push((index, report));
    }
    driver.assemble(&files, reports).unwrap()
}

/// Every file of the two reports is the same but summary.json's run time.
fn assert_same_report(single: &Path, other: &Path, what: &str) {
    for file in OutputFormats::default().files() {
        if file == "summary.json" {
            assert_eq!(
                common::summary_without_run(other),
                common::summary_without_run(single),
                "{what}: summary.json"
            );
            continue;
        }
        let a = std::fs::read(single.join(&file)).unwrap();
        let b = std::fs::read(other.join(&file)).unwrap();
        assert!(a == b, "{what}: {file} differs from crawlaudit audit's");
    }
}

/// The golden cases' and the demo's audit arguments.
fn cases() -> Vec<(String, Vec<String>)> {
    let mut cases = Vec::new();
    for case in common::case_dirs(&Path::new(ROOT).join("fixtures/cases")) {
        let mut args = vec![
            case.join("access.log").display().to_string(),
            "--snapshot".into(),
            case.join("snapshot").display().to_string(),
        ];
        if case.join("ip-ranges").is_dir() {
            args.extend([
                "--ip-ranges".into(),
                case.join("ip-ranges").display().to_string(),
            ]);
        }
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        cases.push((name, args));
    }
    let demo = Path::new(ROOT).join("fixtures/demo");
    cases.push((
        "demo".into(),
        vec![
            demo.join("access.log").display().to_string(),
            "--snapshot".into(),
            demo.join("snapshot").display().to_string(),
            "--ip-ranges".into(),
            demo.join("ip-ranges").display().to_string(),
        ],
    ));
    cases
}

#[test]
fn every_case_and_the_demo_distributed_equal_one_run() {
    let dir = common::fresh_dir("distributed-cases");
    for (name, args) in cases() {
        let single = dir.join(format!("{name}-single"));
        assert_eq!(cli(&args, &single), 0, "{name}");
        for n in [1, 2, 3, 7] {
            let out = dir.join(format!("{name}-n{n}"));
            assert_eq!(distributed(&args, &out, n), 0, "{name}, N = {n}");
            assert_same_report(&single, &out, &format!("{name}, N = {n}"));
        }
    }
}

/// The demo's log cut into `k` files (each line in one), with many hosts:
/// each demo host copied under other names.
fn demo_in_files(dir: &Path, k: usize) -> (Vec<PathBuf>, PathBuf) {
    let demo = Path::new(ROOT).join("fixtures/demo");
    let log = std::fs::read_to_string(demo.join("access.log")).unwrap();
    let snapshot = dir.join("snapshot");
    for i in 0..5 {
        for site in ["shop", "blog"] {
            let to = snapshot.join(format!("{site}{i}.example"));
            common::copy_dir(&demo.join(format!("snapshot/{site}.example")), &to);
        }
    }
    let lines: Vec<String> = log
        .lines()
        .enumerate()
        .map(|(j, l)| {
            // Each User-Agent's lines on one copy of a host, so that its
            // crawl-delay gaps stay; host 5 is not in the snapshot
            // (unknown-host).
            let agent = l.rsplit('"').nth(1).unwrap_or("");
            let i = (agent.bytes().map(usize::from).sum::<usize>() + j / 400) % 6;
            l.replacen("shop.example:443", &format!("shop{i}.example:443"), 1)
                .replacen("blog.example:443", &format!("blog{i}.example:443"), 1)
        })
        .collect();
    let per = lines.len().div_ceil(k);
    let files = lines
        .chunks(per)
        .enumerate()
        .map(|(f, chunk)| {
            let path = dir.join(format!("access-{f}.log"));
            std::fs::write(&path, chunk.join("\n") + "\n").unwrap();
            path
        })
        .collect();
    (files, snapshot)
}

#[test]
fn many_files_and_hosts_distributed_equal_one_run() {
    let dir = common::fresh_dir("distributed-files");
    let (files, snapshot) = demo_in_files(&dir, 5);
    let mut args: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    args.extend([
        "--snapshot".into(),
        snapshot.display().to_string(),
        "--ip-ranges".into(),
        format!("{ROOT}/fixtures/demo/ip-ranges"),
    ]);
    let single = dir.join("single");
    assert_eq!(cli(&args, &single), 0);
    let whole = common::summary_without_run(&single);
    assert!(whole["violations"]["crawl-delay"].as_u64().unwrap() > 0);
    assert!(whole["findings"]["unknown-host"].as_u64().unwrap() > 0);
    for n in [1, 2, 3, 7] {
        let out = dir.join(format!("n{n}"));
        assert_eq!(distributed(&args, &out, n), 0);
        assert_same_report(&single, &out, &format!("5 files, N = {n}"));
    }
}

#[test]
fn nights_with_state_distributed_equal_the_cli_nights() {
    // The demo's week as three nights, each with --state: the distributed
    // nights (a different N each night) write the reports and state the
    // CLI's nights write.
    let dir = common::fresh_dir("distributed-nights");
    let demo = Path::new(ROOT).join("fixtures/demo");
    let log = std::fs::read_to_string(demo.join("access.log")).unwrap();
    let nights = [
        ("[01/Nov", "[03/Nov"),
        ("[03/Nov", "[05/Nov"),
        ("[05/Nov", "[99/Nov"),
    ];
    let day = |l: &str| {
        l.split_once('[')
            .map(|(_, r)| format!("[{}", &r[..6]))
            .unwrap()
    };
    let (cli_state, dist_state) = (dir.join("cli.state"), dir.join("dist.state"));
    for (i, (from, to)) in nights.iter().enumerate() {
        let lines: Vec<&str> = log
            .lines()
            .filter(|l| day(l).as_str() >= *from && day(l).as_str() < *to)
            .collect();
        assert!(!lines.is_empty());
        let night = dir.join(format!("night{i}.log"));
        std::fs::write(&night, lines.join("\n") + "\n").unwrap();
        let args = |state: &Path| {
            vec![
                night.display().to_string(),
                "--snapshot".into(),
                demo.join("snapshot").display().to_string(),
                "--state".into(),
                state.display().to_string(),
            ]
        };
        let single = dir.join(format!("cli-{i}"));
        assert_eq!(cli(&args(&cli_state), &single), 0);
        let out = dir.join(format!("dist-{i}"));
        assert_eq!(distributed(&args(&dist_state), &out, [2, 5, 1][i]), 0);
        assert_same_report(&single, &out, &format!("night {i}"));
        assert_eq!(
            crawlaudit::report::read_state(&dist_state).unwrap(),
            crawlaudit::report::read_state(&cli_state).unwrap(),
            "night {i}: the next state"
        );
    }
    let _ = STATE_FILE;
}

#[test]
fn the_tasks_refuse_what_the_cli_refuses() {
    let e = Job::new(&["--bogus".to_string()], true, &[]).err().unwrap();
    assert_eq!(
        e.to_string(),
        "unexpected argument '--bogus' found; a similar argument exists: '--bots' (see crawlaudit audit --help)"
    );
    let e = Job::new(&["a.log".into(), "--shard".into(), "0/2".into()], true, &[])
        .err()
        .unwrap();
    assert!(
        e.to_string().starts_with("--shard is for one machine"),
        "{e}"
    );
    let e = Job::new(&["-".into()], true, &[]).err().unwrap();
    assert!(e.to_string().contains("standard input"), "{e}");
}

#[test]
fn windows_sites_and_fail_on_distributed_as_the_cli() {
    // A window, --fail-on (exit 3), --include monitor, and a log without
    // hosts charged to --site on a snapshot of two hosts.
    let dir = common::fresh_dir("distributed-flags");
    let demo = Path::new(ROOT).join("fixtures/demo");
    let hostless: String = std::fs::read_to_string(demo.join("access.log"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("shop.example"))
        .map(|l| format!("{}\n", l.split_once(' ').unwrap().1))
        .collect();
    let log = dir.join("hostless.log");
    std::fs::write(&log, hostless).unwrap();
    let snapshot = demo.join("snapshot").display().to_string();
    let cases: Vec<(Vec<String>, i32)> = vec![
        (
            vec![
                demo.join("access.log").display().to_string(),
                "--snapshot".into(),
                snapshot.clone(),
                "--since".into(),
                "2026-11-03".into(),
                "--until".into(),
                "2026-11-06T12:00:00Z".into(),
                "--fail-on".into(),
                "disallow".into(),
                "--include".into(),
                "monitor".into(),
            ],
            3,
        ),
        (
            vec![
                log.display().to_string(),
                "--snapshot".into(),
                snapshot,
                "--site".into(),
                "shop.example".into(),
                "--format".into(),
                "combined".into(),
            ],
            0,
        ),
    ];
    for (i, (args, code)) in cases.into_iter().enumerate() {
        let single = dir.join(format!("cli-{i}"));
        assert_eq!(cli(&args, &single), code, "case {i}");
        let whole = common::summary_without_run(&single);
        assert!(
            whole["violations"]["disallow"].as_u64().unwrap() > 0,
            "case {i}"
        );
        for n in [2, 3] {
            let out = dir.join(format!("case{i}-n{n}"));
            assert_eq!(
                i32::from(distributed(&args, &out, n)),
                code,
                "case {i}, N = {n}"
            );
            assert_same_report(&single, &out, &format!("case {i}, N = {n}"));
        }
    }
}
