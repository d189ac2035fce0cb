//! Report tests: columns and types of SPEC section 9, the per-crawler
//! aggregation, CSV/NDJSON/Parquet writing, determinism and atomicity.

use super::*;
use crate::replay::{Counts, CrawlerActivity, FindingKind, Violation, ViolationKind};

fn t(text: &str) -> i64 {
    i64::try_from(text.parse::<jiff::Timestamp>().unwrap().as_nanosecond()).unwrap()
}

fn violation(time: &str, crawler: &str, kind: &'static str, url: &str) -> Violation {
    Violation {
        time: t(time),
        host: "shop.example".into(),
        crawler: crawler.into(),
        verified: if crawler.ends_with("(unverified)") {
            Some(false)
        } else {
            None
        },
        client_ip: "192.0.2.1".into(),
        kind: ViolationKind::from_name(kind).expect("a violation kind"),
        method: "GET".into(),
        url: url.into(),
        status: 200,
        rule: "Disallow: /private/".into(),
        rule_line: (kind == "disallow").then_some(2),
        robots_version: Some("robots.txt".into()),
        detail: "".into(),
        user_agent: Some(format!("{crawler}/1.0").into()),
    }
}

/// A crawler's activity on a host: (requests, robots.txt fetches) between
/// two times.
fn activity(
    host: &str,
    crawler: &str,
    counts: (u64, u64),
    first: &str,
    last: &str,
) -> CrawlerActivity {
    CrawlerActivity {
        host: host.into(),
        crawler: crawler.into(),
        operator: (crawler == "AhrefsBot").then(|| "Ahrefs".into()),
        category: "seo",
        verified: if crawler.ends_with("(unverified)") {
            Some(false)
        } else {
            None
        },
        requests: counts.0,
        robots_txt_fetches: counts.1,
        first_seen: t(first),
        last_seen: t(last),
        user_agent: format!("{crawler}/1.0").into(),
        days: vec![(
            t(&format!("{}T00:00:00Z", &first[..10])) / crate::time::DAY,
            counts.0,
        )],
    }
}

fn outcome() -> Outcome {
    Outcome {
        violations: vec![
            violation(
                "2026-11-01T10:00:00Z",
                "AhrefsBot",
                "disallow",
                "/private/a",
            ),
            violation("2026-11-01T10:00:05Z", "AhrefsBot", "crawl-delay", "/b"),
            violation(
                "2026-11-01T11:00:00Z",
                "Googlebot (unverified)",
                "disallow",
                "/private/c",
            ),
        ]
        .into_iter()
        .collect(),
        findings: vec![Finding {
            kind: FindingKind::SpoofedAgent,
            host: "shop.example".into(),
            crawler: "Googlebot (unverified)".into(),
            url: String::new(),
            user_agent: "Googlebot/2.1".into(),
            count: 1,
            detail: "1 request claims to be Googlebot".into(),
        }],
        activity: vec![
            activity(
                "blog.example",
                "AhrefsBot",
                (1, 0),
                "2026-11-01T10:00:05Z",
                "2026-11-01T10:00:05Z",
            ),
            activity(
                "shop.example",
                "AhrefsBot",
                (3, 1),
                "2026-11-01T09:59:00Z",
                "2026-11-01T10:00:06Z",
            ),
            activity(
                "shop.example",
                "Googlebot (unverified)",
                (1, 0),
                "2026-11-01T11:00:00Z",
                "2026-11-01T11:00:00Z",
            ),
            activity(
                "shop.example",
                "Zorkbot",
                (1, 0),
                "2026-11-01T12:00:00Z",
                "2026-11-01T12:00:00Z",
            ),
        ],
        counts: Counts {
            requests: 6,
            crawler: 6,
            ..Counts::default()
        },
        ..Outcome::default()
    }
}

#[test]
fn frames_have_the_spec_columns_and_types() {
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let names = |df: &DataFrame| {
        df.get_column_names_owned()
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
    };
    let violations = violations_frame(&report.violations, &report.who).unwrap();
    assert_eq!(names(&violations), VIOLATION_COLUMNS);
    assert_eq!(names(&report.crawlers), CRAWLER_COLUMNS);
    assert_eq!(names(&report.findings), FINDING_COLUMNS);
    assert_eq!(names(&report.daily), DAILY_COLUMNS);
    let dtype = |df: &DataFrame, c: &str| df.column(c).unwrap().dtype().clone();
    let utc = DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC));
    assert_eq!(dtype(&violations, "time"), utc);
    assert_eq!(dtype(&violations, "verified"), DataType::Boolean);
    assert_eq!(dtype(&violations, "status"), DataType::Int32);
    assert_eq!(dtype(&violations, "rule_line"), DataType::Int64);
    assert_eq!(dtype(&report.crawlers, "first_seen"), utc);
    assert_eq!(dtype(&report.crawlers, "violation_rate"), DataType::Float64);
    assert_eq!(dtype(&report.findings, "count"), DataType::Int64);
    for c in tables::CRAWLER_COUNTS {
        assert_eq!(dtype(&report.crawlers, c), DataType::Int64, "{c}");
    }
    for c in ["category", "operator", "user_agent"] {
        assert_eq!(dtype(&violations, c), DataType::String, "{c}");
    }
    assert_eq!(dtype(&report.crawlers, "category"), DataType::String);
    assert_eq!(dtype(&report.findings, "user_agent"), DataType::String);
    assert_eq!(dtype(&report.daily, "day"), utc);
    assert_eq!(dtype(&report.daily, "requests"), DataType::Int64);
    assert_eq!(dtype(&report.daily, "violations"), DataType::Int64);
}

#[test]
fn daily_rows_give_each_kind_a_complete_series() {
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let d = &report.daily;
    // Three (day, host, crawler) groups with requests (AhrefsBot on two
    // hosts, the impostor, Zorkbot): four kinds each.
    assert_eq!(d.height(), 4 * 4);
    let text = rfc3339_times(d).unwrap();
    let row = |i: usize| {
        text.get_row(i)
            .unwrap()
            .0
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        row(4),
        "\"2026-11-01T00:00:00Z\" \"shop.example\" \"AhrefsBot\" \"crawl-delay\" 3 1"
    );
    assert_eq!(
        row(5),
        "\"2026-11-01T00:00:00Z\" \"shop.example\" \"AhrefsBot\" \"disallow\" 3 1"
    );
    assert_eq!(
        row(9),
        "\"2026-11-01T00:00:00Z\" \"shop.example\" \"Googlebot (unverified)\" \"disallow\" 1 1"
    );
    let sum = |c: &str| d.column(c).unwrap().i64().unwrap().sum().unwrap();
    assert_eq!(sum("violations"), 3);
    // One kind's rows hold every request once.
    let disallow = d
        .clone()
        .lazy()
        .filter(col("kind").eq(lit("disallow")))
        .collect()
        .unwrap();
    assert_eq!(
        disallow.column("requests").unwrap().i64().unwrap().sum(),
        Some(6)
    );
}

#[test]
fn crawlers_are_aggregated_and_ranked() {
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let c = &report.crawlers;
    let col_str = |name: &str| {
        c.column(name)
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect::<Vec<_>>()
    };
    let col_u64 = |name: &str| {
        c.column(name)
            .unwrap()
            .i64()
            .unwrap()
            .into_no_null_iter()
            .map(|v| u64::try_from(v).unwrap())
            .collect::<Vec<_>>()
    };
    // Most violations first, then by name.
    assert_eq!(
        col_str("crawler"),
        [
            Some("AhrefsBot".into()),
            Some("Googlebot (unverified)".into()),
            Some("Zorkbot".into())
        ]
    );
    assert_eq!(col_str("operator"), [Some("Ahrefs".into()), None, None]);
    assert_eq!(col_u64("requests"), [4, 1, 1]);
    assert_eq!(col_u64("robots_txt_fetches"), [1, 0, 0]);
    assert_eq!(col_u64("disallow"), [1, 1, 0]);
    assert_eq!(col_u64("crawl_delay"), [1, 0, 0]);
    assert_eq!(col_u64("noindex"), [0, 0, 0]);
    assert_eq!(col_u64("hosts"), [2, 1, 1]);
    let rates: Vec<f64> = c
        .column("violation_rate")
        .unwrap()
        .f64()
        .unwrap()
        .into_no_null_iter()
        .collect();
    assert_eq!(rates, [0.5, 1.0, 0.0]);
    let verified: Vec<Option<bool>> = c
        .column("verified")
        .unwrap()
        .bool()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(verified, [None, Some(false), None]);
    assert_eq!(report.summary.violations.disallow, 2);
    assert_eq!(report.summary.top_crawlers[0].crawler, "AhrefsBot");
    assert_eq!(report.summary.top_crawlers[0].violations, 2);
    assert_eq!(
        report.summary.window.as_ref().map(|w| w.first.as_str()),
        Some("2026-11-01T09:59:00Z")
    );
}

fn temp(name: &str) -> PathBuf {
    let dir = crate::test_dirs::process_dir().join(format!("report-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn files_are_written_deterministically() {
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let dir = temp("write");
    let (a, b) = (dir.join("a"), dir.join("b"));
    report.write(&a, OutputFormats::default()).unwrap();
    Report::build(&outcome(), &RunInfo::default())
        .unwrap()
        .write(&b, OutputFormats::default())
        .unwrap();
    let mut written: Vec<String> = std::fs::read_dir(&a)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut listed = OutputFormats::default().files_with_marker();
    listed.sort();
    assert_eq!(
        written, listed,
        "OutputFormats::files lists what write writes"
    );
    for file in OutputFormats::default().files() {
        assert_eq!(
            std::fs::read(a.join(&file)).unwrap(),
            std::fs::read(b.join(&file)).unwrap(),
            "{file}"
        );
    }
    let csv = std::fs::read_to_string(a.join("violations.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), VIOLATION_COLUMNS.join(","));
    // A null (verified unknown) is an empty field; an empty string (no
    // detail) is written "" so the two stay apart.
    assert_eq!(
        lines.next().unwrap(),
        "2026-11-01T10:00:00Z,shop.example,AhrefsBot,seo,Ahrefs,AhrefsBot/1.0,,192.0.2.1,disallow,GET,/private/a,200,Disallow: /private/,2,robots.txt,\"\""
    );
    let first = std::fs::read_to_string(a.join("violations.ndjson"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    // The keys in the CSV's column order, values as JSON types.
    assert_eq!(
        first,
        r#"{"time":"2026-11-01T10:00:00Z","host":"shop.example","crawler":"AhrefsBot","category":"seo","operator":"Ahrefs","user_agent":"AhrefsBot/1.0","verified":null,"client_ip":"192.0.2.1","kind":"disallow","method":"GET","url":"/private/a","status":200,"rule":"Disallow: /private/","rule_line":2,"robots_version":"robots.txt","detail":""}"#
    );
    let row: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        (
            row["time"].as_str(),
            row["verified"].is_null(),
            row["rule_line"].as_i64()
        ),
        (Some("2026-11-01T10:00:00Z"), true, Some(2))
    );
    let crawlers = std::fs::read_to_string(a.join("crawlers.csv")).unwrap();
    assert!(crawlers.starts_with(&(CRAWLER_COLUMNS.join(",") + "\nAhrefsBot,seo,Ahrefs,,4,1,1,1,0,0,0.5,2,2026-11-01T09:59:00Z,2026-11-01T10:00:06Z\n")), "{crawlers}");
    // Parquet keeps the types.
    let parquet = ParquetReader::new(File::open(a.join("violations.parquet")).unwrap())
        .finish()
        .unwrap();
    assert_eq!(
        parquet.column("time").unwrap().dtype(),
        &DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC))
    );
    assert_eq!(parquet.height(), 3);
    // Only the formats asked for.
    let c = dir.join("csv-only");
    report
        .write(
            &c,
            OutputFormats {
                csv: true,
                parquet: false,
                json: false,
                html: false,
            },
        )
        .unwrap();
    let mut files: Vec<String> = std::fs::read_dir(&c)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            MARKER,
            "crawlers.csv",
            "daily.csv",
            "findings.csv",
            "violations.csv"
        ]
    );
}

#[test]
fn the_violations_parquet_file_has_a_pool_of_its_own_beside_text_only() {
    // Beside text files, with as many workers as cores (or more): a pool
    // of its own, as large as the worker pool.
    assert_eq!(parquet_workers(2, 2, true), Some(2));
    assert_eq!(parquet_workers(8, 2, true), Some(8));
    // Alone (no text file to share the cores with), or held to fewer
    // threads than cores (`--threads 1`): the worker pool.
    assert_eq!(parquet_workers(2, 2, false), None);
    assert_eq!(parquet_workers(1, 2, true), None);
    // Either way, the same file: written beside the text files and alone.
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let dir = temp("parquet-pool");
    let (all, alone) = (dir.join("all"), dir.join("alone"));
    report.write(&all, OutputFormats::default()).unwrap();
    report
        .write(
            &alone,
            OutputFormats {
                csv: false,
                parquet: true,
                json: false,
                html: false,
            },
        )
        .unwrap();
    let (a, b) = (
        std::fs::read(all.join("violations.parquet")).unwrap(),
        std::fs::read(alone.join("violations.parquet")).unwrap(),
    );
    assert!(!a.is_empty() && a == b, "the pools wrote different files");
}

#[test]
fn writing_is_atomic() {
    let dir = temp("atomic");
    let out = dir.join("reports");
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    // A previous report (marked, only report files) is replaced whole.
    report
        .write(
            &out,
            OutputFormats {
                csv: true,
                parquet: false,
                json: false,
                html: false,
            },
        )
        .unwrap();
    std::fs::write(out.join("violations.csv"), "previous report").unwrap();
    report.write(&out, OutputFormats::default()).unwrap();
    assert_ne!(
        std::fs::read_to_string(out.join("violations.csv")).unwrap(),
        "previous report",
        "the new report replaces the old one whole"
    );
    assert!(out.join("report.html").exists() && out.join(MARKER).exists());
    // A report that cannot be written leaves what was there.
    let blocked = dir.join("file");
    std::fs::write(&blocked, "a file, not a directory").unwrap();
    let err = report
        .write(&blocked.join("reports"), OutputFormats::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot write"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&blocked).unwrap(),
        "a file, not a directory"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
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

#[test]
fn out_never_replaces_what_the_report_did_not_write() {
    let dir = temp("refuse");
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let refused = |out: &Path| -> String {
        match report.write(out, OutputFormats::default()) {
            Err(e @ ReportError::Out { .. }) => e.to_string(),
            other => panic!("{} was not refused: {other:?}", out.display()),
        }
    };
    // A directory of the user's, the input log in it.
    let data = dir.join("mydata");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("access.log"), "a log").unwrap();
    let e = refused(&data);
    assert!(e.contains("not empty and not a crawlaudit report"), "{e}");
    assert_eq!(listing(&data), ["access.log"]);
    // A file (`--out precious.html`), not hidden, not replaced.
    let precious = dir.join("precious.html");
    std::fs::write(&precious, "mine").unwrap();
    let e = refused(&precious);
    assert!(e.contains("a file, not a report directory"), "{e}");
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "mine");
    // A report the user added a file to (a state file, say).
    let reports = dir.join("reports");
    report.write(&reports, OutputFormats::default()).unwrap();
    std::fs::write(reports.join("state.parquet"), "state").unwrap();
    let e = refused(&reports);
    assert!(e.contains("\"state.parquet\""), "{e}");
    assert_eq!(
        std::fs::read_to_string(reports.join("state.parquet")).unwrap(),
        "state"
    );
    // A marker alone does not make a directory the report's to delete.
    let marked = dir.join("marked");
    std::fs::create_dir_all(&marked).unwrap();
    std::fs::write(marked.join(MARKER), "").unwrap();
    std::fs::write(marked.join("notes.txt"), "mine").unwrap();
    refused(&marked);
    assert_eq!(listing(&marked), [MARKER, "notes.txt"]);
    // Nothing was left beside them.
    assert_eq!(
        listing(&dir),
        ["marked", "mydata", "precious.html", "reports"]
    );
    // An empty directory is taken.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    report.write(&empty, OutputFormats::default()).unwrap();
    assert!(empty.join("report.html").exists());
}

#[cfg(unix)]
#[test]
fn out_through_a_link_writes_where_it_points() {
    let dir = temp("link");
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let real = dir.join("real");
    report.write(&real, OutputFormats::default()).unwrap();
    let link = dir.join("latest");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    report.write(&link, OutputFormats::default()).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(real.join(MARKER).exists());
    // A link to nothing is refused.
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
    let e = report
        .write(&dangling, OutputFormats::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot be followed"), "{e}");
    assert!(!dir.join("nowhere").exists());
}

#[cfg(unix)]
#[test]
fn temporary_directories_cannot_be_planted() {
    let dir = temp("plant");
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let victim = dir.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("profile"), "mine").unwrap();
    // The names a run used to take (`.NAME.tmp-PID`, `.NAME.old-PID`),
    // planted as links to the victim, and a dead process's stale
    // directory that is not a report.
    let pid = std::process::id();
    for name in [
        format!(".reports.tmp-{pid}"),
        format!(".reports.old-{pid}"),
        ".reports.tmp-999999999".to_string(),
    ] {
        std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
    }
    let stale = dir.join(".reports.tmp-999999998");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("notes"), "not a report").unwrap();
    report
        .write(&dir.join("reports"), OutputFormats::default())
        .unwrap();
    report
        .write(&dir.join("reports"), OutputFormats::default())
        .unwrap();
    assert_eq!(listing(&victim), ["profile"]);
    assert_eq!(
        std::fs::read_to_string(victim.join("profile")).unwrap(),
        "mine"
    );
    assert!(stale.join("notes").exists(), "only reports are cleaned up");
    // A killed run's stale report directory is cleaned up.
    let killed = dir.join(".reports.tmp-999999997-xyz");
    std::fs::create_dir_all(&killed).unwrap();
    std::fs::write(killed.join(MARKER), "").unwrap();
    report
        .write(&dir.join("reports"), OutputFormats::default())
        .unwrap();
    assert!(!killed.exists());
}

#[test]
fn csv_cells_that_look_like_formulas_are_neutralised() {
    let mut o = outcome();
    let mut rows = o.violations.to_rows();
    rows[0].url = "=HYPERLINK(\"http://evil.example\",\"x\")".into();
    rows[1].crawler = "@SUM(1+1)".into();
    rows[2].detail = "-2+3".into();
    o.violations = rows.into_iter().collect();
    let report = Report::build(&o, &RunInfo::default()).unwrap();
    let dir = temp("formulas");
    let out = dir.join("reports");
    report.write(&out, OutputFormats::default()).unwrap();
    let csv = std::fs::read_to_string(out.join("violations.csv")).unwrap();
    assert!(
        csv.contains("\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\""),
        "{csv}"
    );
    assert!(
        csv.contains(",'@SUM(1+1),") && csv.contains(",'-2+3"),
        "{csv}"
    );
    for line in csv.lines() {
        for cell in line.split(',') {
            assert!(!cell.starts_with(['=', '+', '-', '@']), "{cell} in {line}");
        }
    }
    // Parquet and NDJSON keep the exact values.
    let ndjson = std::fs::read_to_string(out.join("violations.ndjson")).unwrap();
    assert!(ndjson.contains("\"url\":\"=HYPERLINK("), "{ndjson}");
    let parquet = ParquetReader::new(File::open(out.join("violations.parquet")).unwrap())
        .finish()
        .unwrap();
    let crawlers: Vec<&str> = parquet
        .column("crawler")
        .unwrap()
        .str()
        .unwrap()
        .iter()
        .flatten()
        .collect();
    assert!(crawlers.contains(&"@SUM(1+1)"), "{crawlers:?}");
}

#[test]
fn the_page_shows_evidence_first_and_is_self_contained() {
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let html = report.html(OutputFormats::default());
    assert!(html.starts_with("<!doctype html>") && html.ends_with("</html>\n"));
    // Nothing is fetched from the network: no external scripts, styles,
    // images or fonts.
    for external in [
        "<script src",
        "<link rel=\"stylesheet",
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
    ] {
        assert!(!html.contains(external), "{external}");
    }
    let p = &report.page;
    // A sentence per violating crawler, most violations first.
    let stories: Vec<&str> = p["stories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["crawler"].as_str().unwrap())
        .collect();
    assert_eq!(stories, ["AhrefsBot", "Googlebot (unverified)"]);
    assert_eq!(
        p["stories"][0]["kinds"],
        serde_json::json!({"disallow": 1, "crawl-delay": 1})
    );
    assert_eq!(p["stories"][1]["verified"], serde_json::json!(false));
    // Evidence: crawler, rule, line, version, count, times, examples.
    let e = &p["evidence"]["rows"][1];
    assert_eq!(p["evidence"]["rows"][0]["kind"], "crawl-delay");
    assert_eq!(e["crawler"], "AhrefsBot");
    assert_eq!(e["rule"], "Disallow: /private/");
    assert_eq!(e["line"], 2);
    assert_eq!(e["version"], "robots.txt");
    assert_eq!(e["examples"][0]["url"], "/private/a");
    assert_eq!(e["examples"][0]["user_agent"], "AhrefsBot/1.0");
    assert_eq!(p["violations"]["total"], 3);
    assert_eq!(p["violations"]["rows"].as_array().unwrap().len(), 3);
    // Crawlers: all, with categories and the left-out flag.
    assert_eq!(p["crawlers"]["rows"].as_array().unwrap().len(), 3);
    assert_eq!(p["crawlers"]["rows"][0]["category"], "seo");
    assert_eq!(p["findings"]["rows"][0]["kind"], "spoofed-agent");
    assert_eq!(p["daily"]["days"], serde_json::json!(["2026-11-01"]));
    assert_eq!(p["totals"]["violations"], 3);
}

/// The violations files, written from the compact table a block (a row
/// group) at a time, are the files the frame writers write of the whole
/// table's frame; the audit's build, which takes the table, writes the
/// same files as the build that copies it.
#[test]
fn violations_files_from_the_table_are_the_frames_files() {
    let base = outcome().violations.to_rows();
    let mut big = outcome();
    big.violations = (0..10_000)
        .map(|i| {
            let mut v = base[i % base.len()].clone();
            v.time += (i as i64 / 3) * 1_000_000_000;
            v.url = format!("/page/{i}?ref={}", i % 97);
            // Cells that CSV quotes or defuses and JSON escapes, shared
            // and not (a text cell's bytes are written once per block).
            match i % 13 {
                1 => v.url = format!("/q?a=\"{i}\",b\n\r\t\u{1}é"),
                2 => v.crawler = "=HYPERLINK(\"x\")".into(),
                3 => v.detail = "".into(),
                4 => v.client_ip = format!("-{}", i % 3).into(),
                5 => v.rule = format!("Disallow: /a,b\\{}", i % 2).into(),
                6 => v.url = String::new(),
                _ => {}
            }
            if i % 5 == 0 {
                v.robots_version = None;
                v.rule_line = None;
                v.verified = Some(i % 2 == 0);
            }
            v
        })
        .collect();
    let copied = Report::build(&big, &RunInfo::default()).unwrap();
    let mut taken = big.clone();
    let report = Report::build_taking_rows(&mut taken, &RunInfo::default()).unwrap();
    assert!(taken.violations.is_empty());
    let dir = temp("table-files");
    let (a, b) = (dir.join("a"), dir.join("b"));
    report.write(&a, OutputFormats::default()).unwrap();
    copied.write(&b, OutputFormats::default()).unwrap();
    for file in OutputFormats::default().files() {
        assert!(
            std::fs::read(a.join(&file)).unwrap() == std::fs::read(b.join(&file)).unwrap(),
            "{file} differs"
        );
    }
    let mut frame = violations_frame(&report.violations, &report.who).unwrap();
    let text = rfc3339_times(&frame).unwrap();
    let (mut csv, mut ndjson, mut parquet) = (Vec::new(), Vec::new(), Vec::new());
    csv_text::write_csv(&mut csv, &text).unwrap();
    ndjson::write_ndjson(&mut ndjson, &text).unwrap();
    ParquetWriter::new(&mut parquet).finish(&mut frame).unwrap();
    for (file, want) in [
        ("violations.csv", csv),
        ("violations.ndjson", ndjson),
        ("violations.parquet", parquet),
    ] {
        assert!(
            std::fs::read(a.join(file)).unwrap() == want,
            "{file} differs"
        );
    }
}

#[test]
fn a_request_that_broke_two_rules_counts_once_in_the_rate() {
    let mut o = outcome();
    // AhrefsBot's request at 10:00:05 broke Disallow as well as
    // Crawl-delay (two rows, one request), and a noindex row is a
    // referral's evidence, not one of its requests.
    let mut rows = o.violations.to_rows();
    rows.push(violation(
        "2026-11-01T10:00:05Z",
        "AhrefsBot",
        "disallow",
        "/b",
    ));
    rows.push(violation(
        "2026-11-01T10:30:00Z",
        "AhrefsBot",
        "noindex",
        "/c",
    ));
    o.violations = rows.into_iter().collect();
    let mut findings = Vec::new();
    crate::replay::sort_rows(&mut o.violations, &mut findings);
    let report = Report::build(&o, &RunInfo::default()).unwrap();
    let c = &report.crawlers;
    let rate = |name: &str| {
        let i = c
            .column("crawler")
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .position(|v| v == Some(name))
            .unwrap();
        c.column("violation_rate")
            .unwrap()
            .f64()
            .unwrap()
            .get(i)
            .unwrap()
    };
    // 4 requests, 2 of them violating (the rows: 2 disallow, 1 crawl-delay,
    // 1 noindex).
    assert_eq!(rate("AhrefsBot"), 0.5);
    assert_eq!(rate("Googlebot (unverified)"), 1.0);
}

#[test]
fn range_files_made_far_from_the_log_are_a_warning() {
    let run = |created: &str| {
        let info = RunInfo {
            ip_ranges: vec![
                RangeFile {
                    file: "googlebot.json".into(),
                    created: Some(created.into()),
                },
                RangeFile {
                    file: "old.txt".into(),
                    created: None,
                },
            ],
            ..RunInfo::default()
        };
        Report::build(&outcome(), &info).unwrap().summary
    };
    // The outcome's crawler requests run from 2026-11-01T09:59:00Z to
    // 12:00:00Z.
    assert!(run("2026-11-20T00:00:00Z").warnings.is_empty());
    assert!(run("2026-10-02T12:00:00Z").warnings.is_empty());
    let late = run("2026-12-02T00:00:00Z");
    assert_eq!(late.warnings.len(), 1, "{:?}", late.warnings);
    assert!(
        late.warnings[0].starts_with("IP range file googlebot.json was made 2026-12-02T00:00:00Z, but the log's crawler requests run from 2026-11-01T09:59:00Z to 2026-11-01T12:00:00Z: it tells impersonators only from 2026-11-02T00:00:00Z to 2027-01-01T00:00:00Z"),
        "{}",
        late.warnings[0]
    );
    assert_eq!(run("2026-09-01T00:00:00Z").warnings.len(), 1);
    assert!(late.inputs.ip_ranges.len() == 2);
    let html = Report::build(
        &outcome(),
        &RunInfo {
            ip_ranges: late.inputs.ip_ranges.clone(),
            ..RunInfo::default()
        },
    )
    .unwrap()
    .html(OutputFormats::default());
    assert!(html.contains(r#""warnings":["IP range file googlebot.json"#));
}

/// Every list the page holds at its cap, with URLs and User-Agents far
/// longer than the page shows: the page stays under 1 MB (SPEC section 9).
#[test]
fn the_page_stays_under_a_megabyte_at_every_cap() {
    let day = crate::time::DAY;
    let start = t("2026-01-01T00:00:00Z");
    let long = |i: usize| format!("/{}/{i}", "segment-".repeat(40));
    let agent = |i: usize| format!("Mozilla/5.0 (compatible; Bot{i}/1.0; {})", "x".repeat(300));
    let crawlers: Vec<String> = (0..1_000)
        .map(|i| format!("Crawler number {i:04}"))
        .collect();
    let violations: Violations = (0..150_000usize)
        .map(|i| Violation {
            time: start + (i as i64 % 400) * day + i as i64,
            host: format!("host{}.example", i % 7).into(),
            crawler: crawlers[i % crawlers.len()].as_str().into(),
            verified: None,
            client_ip: format!("2001:db8::{:x}", i).into(),
            kind: ViolationKind::ALL[i % 2],
            method: "GET".into(),
            url: long(i),
            status: 200,
            rule: format!("Disallow: /{}{}", "r".repeat(150), i % 13).into(),
            rule_line: Some((i % 13) as u32),
            robots_version: Some("2026-01-01T00-00-00Z.txt".into()),
            detail: format!("gap {}s < 10s {}", i % 9, "d".repeat(200)).into(),
            user_agent: Some(agent(i).into()),
        })
        .collect();
    let findings: Vec<Finding> = (0..100_000usize)
        .map(|i| Finding {
            kind: FindingKind::ALL[i % FindingKind::ALL.len()],
            host: format!("host{}.example", i % 7).into(),
            crawler: crawlers[i % 400].as_str().into(),
            url: long(i),
            user_agent: agent(i).into(),
            count: 1,
            detail: "why ".repeat(100),
        })
        .collect();
    let activity = crawlers
        .iter()
        .map(|c| {
            activity(
                "host0.example",
                c,
                (500, 0),
                "2026-01-01T00:00:00Z",
                "2027-02-01T00:00:00Z",
            )
        })
        .collect();
    let outcome = Outcome {
        violations,
        findings,
        activity,
        ..Outcome::default()
    };
    let report = Report::build(&outcome, &RunInfo::default()).unwrap();
    let html = report.html(OutputFormats::default());
    // Under 1 MB with room to spare (about 730 KB here).
    assert!(html.len() < 900_000, "report.html is {} bytes", html.len());
    let p = &report.page;
    assert_eq!(p["stories"].as_array().unwrap().len(), html::MAX_STORIES);
    assert_eq!(
        p["evidence"]["rows"].as_array().unwrap().len(),
        html::MAX_EVIDENCE
    );
    assert_eq!(
        p["violations"]["rows"].as_array().unwrap().len(),
        html::MAX_SAMPLE
    );
    assert_eq!(
        p["crawlers"]["rows"].as_array().unwrap().len(),
        html::MAX_CRAWLERS
    );
    assert_eq!(p["crawlers"]["more"], 1_000 - html::MAX_CRAWLERS);
    assert!(p["daily"]["days"].as_array().unwrap().len() as i64 <= html::MAX_DAYS);
    assert!(
        p["violations"]["rows"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with('…')
    );
}

/// The daily table adds up the violations of a table of many blocks (its
/// blocks summed in parallel) as those of the same rows in one block.
#[test]
fn the_daily_table_adds_up_many_blocks_as_one() {
    let rows: Vec<Violation> = (0..3_000usize)
        .map(|i| {
            let mut v = violation(
                &format!("2026-11-0{}T{:02}:00:00Z", 1 + i % 3, i % 24),
                ["AhrefsBot", "GPTBot"][i % 2],
                ["disallow", "crawl-delay"][i / 2 % 2],
                "/x",
            );
            v.host = format!("h{}.example", i % 7).into();
            v
        })
        .collect();
    let one: Violations = rows.iter().cloned().collect();
    let mut many = Violations::default();
    for part in rows.chunks(100) {
        many.append(part.iter().cloned().collect());
    }
    let activity = vec![activity(
        "h0.example",
        "AhrefsBot",
        (40, 1),
        "2026-11-02T00:00:00Z",
        "2026-11-02T10:00:00Z",
    )];
    let (a, b) = (
        tables::daily_frame(&activity, &one).unwrap(),
        tables::daily_frame(&activity, &many).unwrap(),
    );
    assert!(a.equals_missing(&b), "{a}\n{b}");
    let total: i64 = b
        .column("violations")
        .unwrap()
        .i64()
        .unwrap()
        .sum()
        .unwrap();
    assert_eq!(total, 3_000);
    let asked: i64 = b.column("requests").unwrap().i64().unwrap().sum().unwrap();
    // The activity's day: 40 requests on each of its four kinds' rows.
    assert_eq!(asked, 4 * 40);
}

/// The page's evidence and sample list the groups with the most violations first,
/// ties by crawler, kind, host and rule, when there are many more groups
/// than it shows (only those it shows are put in order).
#[test]
fn evidence_lists_the_most_violated_groups_first_of_many() {
    // 1,000 groups (hosts), group i with 1 + (i * 7919) % 401 violations:
    // many ties, in no order of their hosts' names.
    let count = |i: usize| 1 + (i * 7919) % 401;
    let mut violations = Vec::new();
    for i in 0..1_000usize {
        for j in 0..count(i) {
            let mut v = violation(
                &format!("2026-11-01T{:02}:{:02}:00Z", j / 60 % 24, j % 60),
                "AhrefsBot",
                "disallow",
                &format!("/p/{j}"),
            );
            v.host = format!("h{i:04}.example").into();
            violations.push(v);
        }
    }
    let outcome = Outcome {
        violations: violations.into_iter().collect(),
        ..Outcome::default()
    };
    let report = Report::build(&outcome, &RunInfo::default()).unwrap();
    let rows = report.page["evidence"]["rows"].as_array().unwrap();
    let shown: Vec<(u64, &str)> = rows
        .iter()
        .map(|r| (r["count"].as_u64().unwrap(), r["host"].as_str().unwrap()))
        .collect();
    let mut all: Vec<(u64, String)> = (0..1_000)
        .map(|i| (count(i) as u64, format!("h{i:04}.example")))
        .collect();
    all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let want: Vec<(u64, &str)> = all
        .iter()
        .take(html::MAX_EVIDENCE)
        .map(|(n, h)| (*n, h.as_str()))
        .collect();
    assert_eq!(shown, want);
    assert_eq!(
        report.page["evidence"]["more"],
        1_000 - html::MAX_EVIDENCE as u64
    );
    // The sample takes a row of each shown group in turn, most first.
    let sampled: Vec<&str> = report.page["violations"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["host"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = all
        .iter()
        .take(html::MAX_SAMPLE)
        .map(|(_, h)| h.as_str())
        .collect();
    assert_eq!(sampled, want);
}

/// A group's rows on the page are its first in the table's order (time,
/// then URL, then the order the rows were added), however its rows lie in
/// the table's blocks: here six blocks, the earliest rows in the later
/// ones, many rows of one time and URL.
#[test]
fn a_groups_rows_are_its_first_in_the_tables_order_across_blocks() {
    let mut all = Vec::new();
    let mut violations = Violations::default();
    for b in 0..6usize {
        let mut block = Vec::new();
        for k in 0..12usize {
            // Block b's rows at minutes 5 - b to 7 - b, two URLs each:
            // minute 0 in the last block only, minute 1 in the last two,
            // minutes 2 to 5 in three blocks each.
            let minute = 5 - b + k % 3;
            let mut v = violation(
                &format!("2026-11-01T00:{minute:02}:00Z"),
                "AhrefsBot",
                "disallow",
                &format!("/u{}", k % 2),
            );
            v.client_ip = format!("198.51.100.{}", b * 40 + k).into();
            block.push(v);
        }
        all.extend(block.iter().cloned());
        violations.append(block.into_iter().collect());
    }
    let outcome = Outcome {
        violations,
        ..Outcome::default()
    };
    let report = Report::build(&outcome, &RunInfo::default()).unwrap();
    // The one group's rows, as the sample shows them all.
    let shown: Vec<String> = report.page["violations"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["client_ip"].as_str().unwrap().to_string())
        .collect();
    // A stable sort of the rows in the order added.
    all.sort_by(|a, b| (a.time, &a.url).cmp(&(b.time, &b.url)));
    let want: Vec<String> = all
        .iter()
        .take(shown.len())
        .map(|v| v.client_ip.to_string())
        .collect();
    assert!(
        shown.len() >= html::EXAMPLES * 2,
        "{} rows shown",
        shown.len()
    );
    assert_eq!(shown, want);
    // The earliest rows are in the last block, the next in the last two.
    assert!(shown[0].starts_with("198.51.100.2"), "{}", shown[0]);
    assert!(shown.iter().any(|c| c.starts_with("198.51.100.1")));
}

/// A crawler's sentence names its most violated rule over all hosts: one
/// rule broken on two hosts is one rule, "on 2 hosts", not a host's share
/// and "1 other rule".
#[test]
fn a_sentence_adds_up_a_rule_over_hosts() {
    let mut o = outcome();
    let mut other_host = violation(
        "2026-11-01T12:00:00Z",
        "AhrefsBot",
        "disallow",
        "/private/z",
    );
    other_host.host = "blog.example".into();
    o.violations = vec![
        violation(
            "2026-11-01T10:00:00Z",
            "AhrefsBot",
            "disallow",
            "/private/a",
        ),
        other_host,
        violation("2026-11-01T10:00:05Z", "AhrefsBot", "crawl-delay", "/b"),
    ]
    .into_iter()
    .collect();
    let report = Report::build(&o, &RunInfo::default()).unwrap();
    let story = &report.page["stories"][0];
    assert_eq!(story["crawler"], "AhrefsBot");
    assert_eq!(story["rule"]["rule"], "Disallow: /private/");
    assert_eq!(story["rule"]["count"], 2);
    assert_eq!(story["rule"]["hosts"], 2);
    assert!(story["rule"]["host"].is_null());
    assert_eq!(
        story["rules"], 2,
        "Disallow: /private/ and the crawl-delay row's rule"
    );
}

#[test]
fn shard_files_are_the_files_a_report_directory_holds() {
    let report = Report::build(&outcome(), &RunInfo::default()).unwrap();
    let dir = temp("shard-files");
    let formats = OutputFormats {
        csv: false,
        parquet: true,
        json: true,
        html: false,
    };
    report.write(&dir, formats).unwrap();
    let files = report.shard_files().unwrap();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "violations.parquet",
            "crawlers.parquet",
            "findings.parquet",
            "daily.parquet",
            "summary.json"
        ]
    );
    for (name, bytes) in &files {
        assert!(
            std::fs::read(dir.join(name)).unwrap() == *bytes,
            "{name} differs from the written file"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
