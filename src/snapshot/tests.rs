//! Snapshot timeline tests on `fixtures/snapshots/history` (see its README).

use std::path::PathBuf;

use super::*;
use crate::time::{ALWAYS, format_time};

fn fixture() -> Snapshot {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/snapshots/history");
    Snapshot::load(&[dir]).unwrap()
}

fn t(text: &str) -> i64 {
    i64::try_from(text.parse::<jiff::Timestamp>().unwrap().as_nanosecond()).unwrap()
}

/// What the policy at `at` says, in short: the version name and whether
/// Googlebot may fetch `/cart/x`.
fn at(s: &Snapshot, host: &str, at: i64) -> Option<(String, &'static str, bool)> {
    let p = s.policy_at(host, at)?;
    let kind = match p {
        Policy::Rules { .. } => "rules",
        Policy::AllowAll { .. } => "allow-all",
        Policy::DisallowAll { .. } => "disallow-all",
    };
    // The audit's own decision.
    let allowed = p.allows(p.group_for(&["Googlebot"], true).as_ref(), b"/cart/x");
    let decision = p.decide(p.group_for(&["Googlebot"], true).as_ref(), b"/cart/x");
    assert_eq!(decision.allowed, allowed);
    if matches!(p, Policy::DisallowAll { .. }) {
        assert_eq!(decision.rule.as_deref(), Some("robots.txt 5xx"));
    }
    Some((p.version().name().to_string(), kind, allowed))
}

fn v(name: &str, kind: &'static str, allowed: bool) -> Option<(String, &'static str, bool)> {
    Some((name.to_string(), kind, allowed))
}

#[test]
fn robots_history_at_every_change() {
    let s = fixture();
    let host = "shop.example";
    assert_eq!(
        at(&s, host, t("2026-09-30T23:59:59Z")),
        None,
        "before the first version nothing is known"
    );
    // First version: in force, just after, a day after.
    for when in [
        "2026-10-01T00:00:00Z",
        "2026-10-01T00:00:01Z",
        "2026-10-02T00:00:00Z",
    ] {
        assert_eq!(
            at(&s, host, t(when)),
            v("2026-10-01T00-00-00Z.txt", "rules", true),
            "{when}"
        );
    }
    assert_eq!(
        at(&s, host, t("2026-10-10T11:59:59Z")),
        v("2026-10-01T00-00-00Z.txt", "rules", true)
    );
    for when in [
        "2026-10-10T12:00:00Z",
        "2026-10-10T12:00:01Z",
        "2026-10-11T12:00:00Z",
    ] {
        assert_eq!(
            at(&s, host, t(when)),
            v("2026-10-10T12-00-00Z.txt", "rules", false),
            "{when}"
        );
    }
    // The 503 run starts 2026-10-20; a second 503 does not restart it.
    for when in [
        "2026-10-20T00:00:00Z",
        "2026-10-21T00:00:00Z",
        "2026-10-25T00:00:00Z",
        "2026-11-18T23:59:59Z",
    ] {
        let name = if when < "2026-10-25" {
            "2026-10-20T00-00-00Z.503"
        } else {
            "2026-10-25T00-00-00Z.503"
        };
        assert_eq!(
            at(&s, host, t(when)),
            v(name, "disallow-all", false),
            "{when}"
        );
    }
    // 30 days after 2026-10-20 the last 2xx version applies again.
    for when in [
        "2026-11-19T00:00:00Z",
        "2026-11-20T00:00:00Z",
        "2026-11-30T23:59:59Z",
    ] {
        assert_eq!(
            at(&s, host, t(when)),
            v("2026-10-10T12-00-00Z.txt", "rules", false),
            "{when}"
        );
    }
    for when in ["2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z"] {
        assert_eq!(
            at(&s, host, t(when)),
            v("2026-12-01T00-00-00Z.404", "allow-all", true),
            "{when}"
        );
    }
    let statuses: Vec<u16> = s
        .host(host)
        .unwrap()
        .robots_versions()
        .iter()
        .map(RobotsVersion::status)
        .collect();
    assert_eq!(statuses, [200, 200, 503, 503, 404]);
}

#[test]
fn versions_a_crawler_may_have_cached() {
    let s = fixture();
    let names = |a: &str, b: &str| -> Vec<String> {
        s.policies_during("shop.example", t(a), t(b))
            .iter()
            .map(|p| {
                format!(
                    "{}:{}",
                    p.version().name(),
                    matches!(p, Policy::DisallowAll { .. })
                )
            })
            .collect()
    };
    assert_eq!(
        names("2026-10-10T00:00:00Z", "2026-10-11T00:00:00Z"),
        [
            "2026-10-01T00-00-00Z.txt:false",
            "2026-10-10T12-00-00Z.txt:false"
        ]
    );
    assert_eq!(
        names("2026-10-12T00:00:00Z", "2026-10-13T00:00:00Z"),
        ["2026-10-10T12-00-00Z.txt:false"]
    );
    assert_eq!(
        names("2026-10-19T12:00:00Z", "2026-10-25T12:00:00Z"),
        [
            "2026-10-10T12-00-00Z.txt:false",
            "2026-10-20T00-00-00Z.503:true",
            "2026-10-25T00-00-00Z.503:true"
        ]
    );
    // The 30-day reversion is a change too.
    assert_eq!(
        names("2026-11-18T12:00:00Z", "2026-11-19T12:00:00Z"),
        [
            "2026-10-25T00-00-00Z.503:true",
            "2026-10-10T12-00-00Z.txt:false"
        ]
    );
    // An interval that starts before the first version holds what is known.
    assert_eq!(
        names("2026-09-30T00:00:00Z", "2026-10-01T01:00:00Z"),
        ["2026-10-01T00-00-00Z.txt:false"]
    );
}

#[test]
fn redirects_and_loops() {
    let s = fixture();
    let p = s
        .policy_at("redirect.example", t("2026-11-01T00:00:00Z"))
        .unwrap();
    assert_eq!(
        p.version().name(),
        "robots.txt",
        "the redirect leads to blog.example's file"
    );
    match p {
        Policy::Rules { robots, .. } => assert!(!robots.check(&["x"], b"/drafts/a").allowed()),
        other => panic!("{other}"),
    }
    assert!(matches!(
        s.policy_at("loop.example", t("2026-11-01T00:00:00Z")),
        Some(Policy::AllowAll {
            reason: AllowReason::Redirects,
            ..
        })
    ));
    // A whole-window robots.txt holds at any time.
    assert_eq!(
        at(&s, "blog.example", t("1999-01-01T00:00:00Z")).unwrap().0,
        "robots.txt"
    );
    assert!(s.is_judged("BLOG.example:443"));
    assert!(!s.is_judged("unknown.example"));
    assert_eq!(
        s.hosts().map(|(h, _)| h).collect::<Vec<_>>(),
        [
            "blog.example",
            "loop.example",
            "redirect.example",
            "shop.example"
        ]
    );
}

#[test]
fn pages_and_their_versions() {
    let s = fixture();
    let host = "shop.example";
    let rules = |url: &str, when: &str, names: &[&str]| {
        s.page_at(host, url, t(when))
            .map(|p| p.rules().effective(names).to_json().to_string())
    };
    assert_eq!(
        rules("/private/secret", "2026-11-01T00:00:00Z", &["googlebot"]).unwrap(),
        r#"{"noindex":true}"#
    );
    assert_eq!(
        rules(
            "/private/press/release",
            "2026-11-01T00:00:00Z",
            &["googlebot"]
        )
        .unwrap(),
        r#"{"nofollow":true,"noindex":true}"#
    );
    assert_eq!(
        rules(
            "/private/press/release",
            "2026-11-01T00:00:00Z",
            &["bingbot"]
        )
        .unwrap(),
        "{}"
    );
    assert_eq!(
        rules("/blog/post?id=7", "2026-11-01T00:00:00Z", &["googlebot"]).unwrap(),
        r#"{"max-snippet":20,"noindex":true}"#
    );
    assert_eq!(
        rules("/offer", "2026-11-01T00:00:00Z", &["googlebot"]).unwrap(),
        r#"{"unavailable_after":"2026-11-05T00:00:00Z"}"#
    );
    assert_eq!(
        rules("/changing", "2026-09-01T00:00:00Z", &["googlebot"]),
        None
    );
    assert_eq!(
        rules("/changing", "2026-10-15T00:00:00Z", &["googlebot"]).unwrap(),
        "{}"
    );
    assert_eq!(
        rules("/changing", "2026-11-02T00:00:00Z", &["googlebot"]).unwrap(),
        r#"{"noindex":true}"#
    );
    let during: Vec<u16> = s
        .page_versions_during(
            host,
            "/changing",
            t("2026-10-20T00:00:00Z"),
            t("2026-11-20T00:00:00Z"),
        )
        .iter()
        .map(|p| p.status())
        .collect();
    assert_eq!(during, [200, 200, 404]);
    let during = s.page_versions_during(
        host,
        "/changing",
        t("2026-11-02T00:00:00Z"),
        t("2026-11-03T00:00:00Z"),
    );
    assert_eq!(during.len(), 1);
    assert!(during[0].source().ends_with("pages.jsonl line 6"));
    assert!(
        s.page_at(host, "/nowhere", t("2026-11-02T00:00:00Z"))
            .is_none()
    );
}

fn write_snapshot(files: &[(&str, &str)]) -> PathBuf {
    let dir = crate::test_dirs::process_dir().join(format!("snap-{}", files.len()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, content) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

#[test]
fn validation_errors_name_the_file_and_line() {
    let err = |files: &[(&str, &str)]| {
        Snapshot::load(&[write_snapshot(files)])
            .unwrap_err()
            .to_string()
    };
    let e = err(&[("a.example/robots/yesterday.txt", "")]);
    assert!(
        e.contains("yesterday.txt") && e.contains("is not a UTC time"),
        "{e}"
    );
    let e = err(&[("a.example/robots/2026-10-01T00-00-00Z.html", "")]);
    assert!(e.contains("unknown status \"html\""), "{e}");
    let e = err(&[("a.example/robots/2026-10-01T00-00-00Z.301", "")]);
    assert!(e.contains("Location"), "{e}");
    let e = err(&[
        ("a.example/robots.txt", ""),
        (
            "a.example/pages.jsonl",
            "{\"url\": \"/a\"}\n\n{\"url\": \"/b\", \"xrobots\": 1}\n",
        ),
    ]);
    assert!(
        e.contains("pages.jsonl, line 3") && e.contains("unknown field `xrobots`"),
        "{e}"
    );
    let e = err(&[
        ("a.example/robots.txt", ""),
        (
            "a.example/pages.jsonl",
            "{\"url\": \"/a\", \"from\": \"soon\"}\n",
        ),
    ]);
    assert!(
        e.contains("line 1") && e.contains("is not an RFC 3339 time"),
        "{e}"
    );
    let e = err(&[("Shop.Example/robots.txt", "")]);
    assert!(
        e.contains("Shop.Example") && e.contains("lower case"),
        "{e}"
    );
    let e = err(&[("shop.example:443/robots.txt", "")]);
    assert!(e.contains("default port"), "{e}");
    let missing = Snapshot::load(&[PathBuf::from("/nonexistent/snapshot")])
        .unwrap_err()
        .to_string();
    assert!(missing.contains("/nonexistent/snapshot"), "{missing}");
}

#[test]
fn file_times() {
    assert_eq!(
        parse_file_time("2026-11-01T00-00-00Z"),
        Some(t("2026-11-01T00:00:00Z"))
    );
    assert_eq!(
        parse_file_time("2026-11-01T00:00:00Z"),
        Some(t("2026-11-01T00:00:00Z"))
    );
    assert_eq!(parse_file_time("2026-13-01T00-00-00Z"), None);
    assert_eq!(parse_file_time("2026-11-01"), None);
}

/// Issue 13: a page version from exactly `i64::MIN` nanoseconds would have
/// been read as one without a time ("always").
#[test]
fn a_time_at_the_always_marker_is_out_of_range() {
    let mut s = Snapshot::default();
    let e = s
        .read_pages(
            "a.example",
            Path::new("pages.jsonl"),
            &b"{\"url\": \"/a\", \"from\": \"1677-09-21T00:12:43.145224192Z\"}\n"[..],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1") && e.contains("out of range"), "{e}");
    s.read_pages(
        "a.example",
        Path::new("pages.jsonl"),
        &b"{\"url\": \"/a\", \"from\": \"1677-09-21T00:12:43.145224193Z\"}\n"[..],
    )
    .unwrap();
    let from = s.host("a.example").unwrap().pages()["/a"][0].from();
    assert_eq!(from, ALWAYS + 1);
    assert_eq!(format_time(from), "1677-09-21T00:12:43.145224193Z");
}

/// The audit looks the policies of a request's cache window up once per
/// pair of counts (change points at or before its start, at or before its
/// end): that holds only if those counts decide `policies_during`.
#[test]
fn the_policies_of_a_window_depend_only_on_the_change_points_it_spans() {
    let s = fixture();
    let hosts: Vec<String> = s.hosts().map(|(h, _)| h.to_string()).collect();
    assert!(hosts.len() > 1);
    let mut windows = 0;
    for host in &hosts {
        let points = s.policy_change_points(host);
        let mut instants = vec![
            i64::MIN + 1,
            t("2020-01-01T00:00:00Z"),
            t("2030-01-01T00:00:00Z"),
            i64::MAX,
        ];
        for &p in &points {
            instants.extend([p.saturating_sub(1), p, p.saturating_add(1)]);
        }
        for w in points.windows(2) {
            instants.push(w[0] / 2 + w[1] / 2);
        }
        let count = |x: i64| points.partition_point(|&p| p <= x);
        let mut seen: std::collections::HashMap<
            (usize, usize),
            Vec<(usize, *const RobotsVersion)>,
        > = std::collections::HashMap::new();
        for &a in &instants {
            for &b in &instants {
                if a > b {
                    continue;
                }
                let got: Vec<_> = s
                    .policies_during(host, a, b)
                    .iter()
                    .map(Policy::key)
                    .collect();
                let expected = seen
                    .entry((count(a), count(b)))
                    .or_insert_with(|| got.clone());
                assert_eq!(*expected, got, "{host}: [{a}, {b}]");
                windows += 1;
            }
        }
    }
    assert!(windows > 100, "{windows}");
}
