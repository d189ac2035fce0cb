//! `--state FILE`: a week of logs audited night by night, each night
//! carrying its state to the next, reports exactly the violations one run
//! over the whole week does: a crawl-delay gap across midnight, and
//! noindex violations whose crawler fetch was days before the referral.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo");
const AHREFS: &str = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";

fn audit(logs: &[&Path], out: &Path, state: Option<&Path>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_crawlaudit"));
    cmd.arg("audit")
        .args(logs)
        .arg("--snapshot")
        .arg(Path::new(DEMO).join("snapshot"))
        .arg("--ip-ranges")
        .arg(Path::new(DEMO).join("ip-ranges"))
        .arg("--out")
        .arg(out)
        .arg("--quiet");
    if let Some(s) = state {
        cmd.arg("--state").arg(s);
    }
    let run = cmd.output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// violations.csv without its header.
fn rows(out: &Path) -> Vec<String> {
    std::fs::read_to_string(out.join("violations.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

#[test]
fn nightly_runs_with_state_report_what_one_run_over_the_week_does() {
    let dir = common::fresh_dir("state-nightly");
    // The demo week, and AhrefsBot 3 s apart across midnight (Crawl-delay 5; 3 s + 1 s resolution < 5 s).
    let mut week = std::fs::read_to_string(Path::new(DEMO).join("access.log")).unwrap();
    for (day, time, path) in [
        ("03", "23:59:59", "/products/lamp"),
        ("04", "00:00:02", "/products/rug"),
    ] {
        week.push_str(&format!(
            "shop.example:443 54.36.148.7 - - [{day}/Nov/2026:{time} +0000] \"GET {path} HTTP/1.1\" 200 100 \"-\" \"{AHREFS}\"\n"
        ));
    }
    let mut days: BTreeMap<String, String> = BTreeMap::new();
    for line in week.lines() {
        let day = line.split('[').nth(1).unwrap()[..2].to_string();
        let text = days.entry(day).or_default();
        text.push_str(line);
        text.push('\n');
    }
    assert_eq!(days.len(), 7);
    let mut files = Vec::new();
    for (day, text) in &days {
        let path = dir.join(format!("access-{day}.log"));
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    let all: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let week_out = dir.join("week");
    audit(&all, &week_out, None);
    let whole = rows(&week_out);

    let state = dir.join("state/crawlaudit.parquet");
    let (mut with_state, mut without) = (Vec::new(), Vec::new());
    for (i, file) in files.iter().enumerate() {
        let out = dir.join(format!("night-{i}"));
        audit(&[file], &out, Some(&state));
        with_state.extend(rows(&out));
        let out = dir.join(format!("alone-{i}"));
        audit(&[file], &out, None);
        without.extend(rows(&out));
    }
    assert_eq!(
        with_state, whole,
        "nightly runs with --state differ from the week"
    );

    // The test means something: the week has violations only a run that
    // remembers can see, which nights without state miss.
    let midnight = whole
        .iter()
        .find(|r| r.starts_with("2026-11-04T00:00:02Z,shop.example,AhrefsBot,"))
        .expect("the gap across midnight is a crawl-delay violation");
    assert!(
        midnight.contains("crawl-delay") && midnight.contains("gap 3s < 5s"),
        "{midnight}"
    );
    assert!(!without.contains(midnight));
    let noindex = whole.iter().filter(|r| r.contains(",noindex,")).count();
    assert!(noindex > 0);
    assert!(without.iter().filter(|r| r.contains(",noindex,")).count() < noindex);
    assert!(std::fs::metadata(&state).unwrap().len() > 0);
    // Nothing but the state file is left beside it.
    let beside: Vec<_> = std::fs::read_dir(state.parent().unwrap())
        .unwrap()
        .collect();
    assert_eq!(beside.len(), 1);
}

/// A state file whose rows are read while the logs are: a row that is not
/// a state's still stops the night with an error naming the file and the
/// row, before a report or a state is written (the previous ones stay).
#[test]
fn a_tampered_state_row_stops_the_night_and_keeps_the_previous_files() {
    use polars::prelude::*;

    let dir = common::fresh_dir("state-tampered");
    let log = Path::new(DEMO).join("access.log");
    let state = dir.join("crawlaudit.parquet");
    let out = dir.join("report");
    audit(&[&log], &out, Some(&state));
    let report_before = std::fs::read(out.join("violations.csv")).unwrap();

    // The first engine fetch's status becomes a 404 (a fetch kept by the
    // state is a 2xx).
    let mut df = ParquetReader::new(std::fs::File::open(&state).unwrap())
        .finish()
        .unwrap();
    let kinds: Vec<Option<String>> = df
        .column("kind")
        .unwrap()
        .str()
        .unwrap()
        .iter()
        .map(|k| k.map(str::to_string))
        .collect();
    let first_fetch = kinds
        .iter()
        .position(|k| k.as_deref() == Some("fetch"))
        .expect("the demo's state keeps an engine fetch");
    let status: Vec<Option<i64>> = df
        .column("status")
        .unwrap()
        .i64()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, s)| if i == first_fetch { Some(404) } else { s })
        .collect();
    df.with_column(Column::new("status".into(), status))
        .unwrap();
    ParquetWriter::new(std::fs::File::create(&state).unwrap())
        .finish(&mut df)
        .unwrap();
    let state_before = std::fs::read(&state).unwrap();

    let run = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .arg("audit")
        .arg(&log)
        .arg("--snapshot")
        .arg(Path::new(DEMO).join("snapshot"))
        .arg("--out")
        .arg(&out)
        .arg("--state")
        .arg(&state)
        .arg("--quiet")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    let row = first_fetch + 1;
    assert!(
        stderr.contains(&format!(
            "{}: not a crawlaudit state file (row {row}: a fetch's status must be 2xx): remove it to start afresh",
            state.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&state).unwrap(), state_before);
    assert_eq!(
        std::fs::read(out.join("violations.csv")).unwrap(),
        report_before
    );
    // Nothing staged is left beside the state.
    let beside: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with(".crawlaudit.parquet"))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
}
