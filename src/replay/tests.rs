//! Replay tests: every rule of SPEC section 8 and its near misses, on
//! snapshots and log lines written here.

use std::path::PathBuf;

use super::*;
use crate::bots::{RangeSet, parse_prefix};
use crate::logs::{Format, parse_line};

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const BINGBOT: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const AHREFS: &str = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
const BROWSER: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

fn snapshot(name: &str, files: &[(&str, &str)]) -> Snapshot {
    let dir: PathBuf = crate::test_dirs::process_dir().join(format!("replay-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, content) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    Snapshot::load(&[dir]).unwrap()
}

fn google_ranges() -> IpRanges {
    let mut r = IpRanges::default();
    r.insert(
        "googlebot.json",
        RangeSet::from_prefixes([parse_prefix("66.249.64.0/19").unwrap()]),
    );
    r
}

/// A combined log line on `day` (November 2026) at `hms`.
fn line(
    ip: &str,
    day: u32,
    hms: &str,
    target: &str,
    status: u16,
    referer: &str,
    ua: &str,
) -> String {
    format!(
        "{ip} - - [{day:02}/Nov/2026:{hms} +0000] \"GET {target} HTTP/1.1\" {status} 100 \"{referer}\" \"{ua}\""
    )
}

fn run(ctx: &Context, lines: &[String]) -> Outcome {
    let format = Format::Combined.compile().unwrap();
    let mut collector = Collector::new(ctx);
    for l in lines {
        collector.record(&parse_line(&format, l.as_bytes()).unwrap());
    }
    replay(ctx, vec![collector])
}

fn kinds(o: &Outcome) -> Vec<(String, &'static str, String, String)> {
    o.violations
        .iter()
        .map(|v| {
            (
                crate::time::format_time(v.time()),
                v.kind().as_str(),
                v.crawler().to_string(),
                v.url().to_string(),
            )
        })
        .collect()
}

fn ctx(snap: Snapshot) -> Context {
    Context::new(
        snap,
        Catalogue::builtin(),
        google_ranges(),
        Settings::default(),
    )
}

#[test]
fn disallow_with_rule_line_and_version() {
    let c = ctx(snapshot(
        "disallow",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nAllow: /private/ok\nDisallow: /private/\n",
        )],
    ));
    let o = run(
        &c,
        &[
            line("192.0.2.1", 1, "10:00:00", "/robots.txt", 200, "-", AHREFS),
            line(
                "192.0.2.1",
                1,
                "10:00:30",
                "/private/secret?x=1",
                200,
                "-",
                AHREFS,
            ),
            line("192.0.2.1", 1, "10:01:00", "/private/ok", 200, "-", AHREFS),
            line("192.0.2.1", 1, "10:01:30", "/public", 200, "-", AHREFS),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T10:00:30Z".into(),
            "disallow",
            "AhrefsBot".into(),
            "/private/secret?x=1".into()
        )]
    );
    let v = &o.violations.owned(0).unwrap();
    assert_eq!(
        (&*v.rule, v.rule_line, v.robots_version.as_deref()),
        ("Disallow: /private/", Some(3), Some("robots.txt"))
    );
    assert_eq!(
        (v.verified, &*v.client_ip, v.status),
        (None, "192.0.2.1", 200)
    );
    assert_eq!((o.counts.crawler, o.counts.unjudged), (4, 0));
    // One crawler on one host: its 4 requests, 1 of them for robots.txt.
    assert_eq!(o.activity.len(), 1);
    let a = &o.activity[0];
    assert_eq!(
        (&*a.host, a.requests, a.robots_txt_fetches),
        ("shop.example", 4, 1)
    );
    assert!(a.first_seen < a.last_seen);
    assert!(o.findings.is_empty(), "{:?}", o.findings);
}

#[test]
fn a_change_inside_the_cache_grace_is_not_a_violation() {
    // /new/ becomes disallowed on 2026-11-05 at noon.
    let c = ctx(snapshot(
        "grace",
        &[
            (
                "shop.example/robots/2026-11-01T00-00-00Z.txt",
                "User-agent: *\nDisallow: /old/\n",
            ),
            (
                "shop.example/robots/2026-11-05T12-00-00Z.txt",
                "User-agent: *\nDisallow: /old/\nDisallow: /new/\n",
            ),
        ],
    ));
    let o = run(
        &c,
        &[
            line("192.0.2.1", 5, "13:00:00", "/new/a", 200, "-", AHREFS),
            line("192.0.2.1", 6, "11:59:59", "/new/b", 200, "-", AHREFS),
            line("192.0.2.1", 6, "12:00:00", "/new/c", 200, "-", AHREFS),
            line("192.0.2.1", 6, "12:00:01", "/new/d", 200, "-", AHREFS),
        ],
    );
    // Within 24 h of the change the old version may still be cached. At
    // exactly 24 h the window [t - 24 h, t] starts at the change itself,
    // when the new version was already in force: a violation.
    assert_eq!(
        kinds(&o),
        [
            (
                "2026-11-06T12:00:00Z".into(),
                "disallow",
                "AhrefsBot".into(),
                "/new/c".into()
            ),
            (
                "2026-11-06T12:00:01Z".into(),
                "disallow",
                "AhrefsBot".into(),
                "/new/d".into()
            ),
        ]
    );
    assert_eq!(
        o.violations.owned(0).unwrap().robots_version.as_deref(),
        Some("2026-11-05T12-00-00Z.txt")
    );
    // While the cache window reaches before the first version the snapshot
    // knows, an unknown version may have been cached: no blame. A day later
    // the first version is all there is.
    let o = run(
        &c,
        &[
            line("192.0.2.1", 1, "00:00:00", "/old/x", 200, "-", AHREFS),
            line("192.0.2.1", 1, "23:59:59", "/old/x", 200, "-", AHREFS),
            line("192.0.2.1", 2, "00:00:00", "/old/y", 200, "-", AHREFS),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-02T00:00:00Z".into(),
            "disallow",
            "AhrefsBot".into(),
            "/old/y".into()
        )]
    );
    assert_eq!(o.counts.unjudged, 0);
}

#[test]
fn robots_5xx_disallows_everything() {
    let c = ctx(snapshot(
        "5xx",
        &[
            (
                "shop.example/robots/2026-10-01T00-00-00Z.txt",
                "User-agent: *\nDisallow: /x/\n",
            ),
            ("shop.example/robots/2026-11-01T00-00-00Z.503", ""),
        ],
    ));
    let o = run(
        &c,
        &[line(
            "192.0.2.1",
            3,
            "00:00:00",
            "/anything",
            200,
            "-",
            AHREFS,
        )],
    );
    assert_eq!(o.violations.len(), 1);
    assert_eq!(
        (
            &*o.violations.owned(0).unwrap().rule,
            o.violations.owned(0).unwrap().rule_line
        ),
        ("robots.txt 5xx", None)
    );
    assert!(
        o.violations
            .owned(0)
            .unwrap()
            .detail
            .contains("503 since 2026-11-01T00:00:00Z")
    );
}

#[test]
fn crawl_delay_gaps_with_resolution() {
    let c = ctx(snapshot(
        "delay",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nCrawl-delay: 10\n",
        )],
    ));
    let o = run(
        &c,
        &[
            line("192.0.2.1", 1, "10:00:00", "/robots.txt", 200, "-", AHREFS),
            line("192.0.2.1", 1, "10:00:09", "/a", 200, "-", AHREFS), // 9 s + 1 s resolution = 10: at the limit, allowed
            line("192.0.2.1", 1, "10:00:17", "/b", 200, "-", AHREFS), // 8 s + 1 = 9 < 10: a violation
            line("192.0.2.1", 1, "10:00:27", "/c", 200, "-", AHREFS), // 10 s: fine
            line("192.0.2.9", 1, "10:00:28", "/c", 200, "-", BINGBOT), // another crawler: its own gaps
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T10:00:17Z".into(),
            "crawl-delay",
            "AhrefsBot".into(),
            "/b".into()
        )]
    );
    let v = &o.violations.owned(0).unwrap();
    assert_eq!(
        (&*v.rule, v.rule_line, &*v.detail),
        ("Crawl-delay: 10", Some(2), "gap 8s < 10s")
    );
}

#[test]
fn crawl_delay_runs_join_at_their_edges() {
    // More requests than one parallel run walks: each run's first request
    // is judged against the last one of the run before it. AhrefsBot asks
    // every 5 s, then every 20 s; with a delay of 10 s exactly the first
    // kind of gap is a violation, whichever run it falls in.
    let c = ctx(snapshot(
        "delay-runs",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nCrawl-delay: 10\n",
        )],
    ));
    let n = 2 * super::crawl_delay::STEPS_PER_TASK + 7;
    let mut lines = Vec::with_capacity(n);
    let mut t = 0u32;
    let mut want = 0;
    for i in 0..n {
        // A slow request, then three quick ones; the first request of each
        // run (a multiple of 4) is a quick one.
        let quick = i % 4 != 1;
        t += if quick { 5 } else { 20 };
        if quick && i > 0 {
            want += 1;
        }
        let (d, h, m, sec) = (1 + t / 86_400, t / 3600 % 24, t / 60 % 60, t % 60);
        lines.push(line(
            "192.0.2.1",
            d,
            &format!("{h:02}:{m:02}:{sec:02}"),
            &format!("/p{i}"),
            200,
            "-",
            AHREFS,
        ));
    }
    let o = run(&c, &lines);
    assert_eq!(o.violations.len(), want);
    assert!(o.violations.iter().all(|v| v.detail() == "gap 5s < 10s"));
    // Sorted by time: every quick request, none of the slow ones.
    let quick: Vec<String> = (1..n)
        .filter(|i| i % 4 != 1)
        .map(|i| format!("/p{i}"))
        .collect();
    let got: Vec<&str> = o.violations.iter().map(|v| v.url()).collect();
    assert_eq!(got, quick);
}

/// Issue 13: a gap of 326 years overflowed the crawl-delay arithmetic
/// (`gap -8132916873.71s < 10s`), and a request near the earliest time
/// overflowed `t - grace`.
#[test]
fn times_centuries_apart_or_at_the_earliest_do_not_overflow() {
    let c = ctx(snapshot(
        "centuries",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nCrawl-delay: 10\nDisallow: /x\n",
        )],
    ));
    let at = |date: &str, target: &str, ua: &str, referer: &str| {
        format!(
            "192.0.2.1 - - [{date} +0000] \"GET {target} HTTP/1.1\" 200 100 \"{referer}\" \"{ua}\""
        )
    };
    let o = run(
        &c,
        &[
            at("21/Sep/1677:00:13:00", "/x", AHREFS, "-"),
            at("01/Jan/1700:00:00:00", "/a", AHREFS, "-"),
            at("01/Nov/2026:10:00:00", "/b", AHREFS, "-"),
            at("01/Nov/2026:10:00:05", "/c", AHREFS, "-"),
            at(
                "21/Sep/1677:00:13:00",
                "/a",
                BROWSER,
                "https://www.google.com/",
            ),
        ],
    );
    assert_eq!(
        kinds(&o),
        [
            (
                "1677-09-21T00:13:00Z".into(),
                "disallow",
                "AhrefsBot".into(),
                "/x".into()
            ),
            (
                "2026-11-01T10:00:05Z".into(),
                "crawl-delay",
                "AhrefsBot".into(),
                "/c".into()
            )
        ]
    );
    assert_eq!(&*o.violations.owned(1).unwrap().detail, "gap 5s < 10s");
}

#[test]
fn user_agents_of_one_identity_are_one_crawler() {
    // Two python-requests versions: two User-Agent strings, two heuristic
    // crawlers, one identity. Their requests make one sequence of gaps,
    // one activity row and one finding.
    let snap = snapshot(
        "one-identity",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nCrawl-delay: 10\n",
        )],
    );
    let c = ctx(snap);
    let lines = [
        line(
            "192.0.2.7",
            1,
            "10:00:00",
            "/a",
            200,
            "-",
            "python-requests/2.31.0",
        ),
        line(
            "192.0.2.7",
            1,
            "10:00:03",
            "/b",
            200,
            "-",
            "python-requests/2.28.1",
        ),
    ];
    let o = run(&c, &lines);
    let gaps: Vec<_> = o
        .violations
        .iter()
        .filter(|v| v.kind() == ViolationKind::CrawlDelay)
        .map(|v| (v.crawler(), v.url()))
        .collect();
    assert_eq!(gaps, [("python-requests", "/b")]);
    assert_eq!(o.activity.len(), 1);
    assert_eq!(o.activity[0].requests, 2);
    let no_robots: Vec<_> = o
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::NoRobotsFetch)
        .map(|f| (&*f.crawler, f.count))
        .collect();
    assert_eq!(no_robots, [("python-requests", 2)]);
}

#[test]
fn crawl_delay_needs_a_delay_in_every_cached_version() {
    let c = ctx(snapshot(
        "delay2",
        &[
            (
                "shop.example/robots/2026-11-01T00-00-00Z.txt",
                "User-agent: *\nDisallow:\n",
            ),
            (
                "shop.example/robots/2026-11-02T00-00-00Z.txt",
                "User-agent: *\nCrawl-delay: 30\n",
            ),
            (
                "shop.example/robots/2026-11-04T00-00-00Z.txt",
                "User-agent: *\nCrawl-delay: 20\n",
            ),
        ],
    ));
    let o = run(
        &c,
        &[
            // Within a day of the delay's introduction: a version without one may be cached.
            line("192.0.2.1", 2, "01:00:00", "/a", 200, "-", AHREFS),
            line("192.0.2.1", 2, "01:00:01", "/b", 200, "-", AHREFS),
            // Later, both 30 and 20 may be cached: the smaller, 20, counts.
            line("192.0.2.1", 4, "01:00:00", "/c", 200, "-", AHREFS),
            line("192.0.2.1", 4, "01:00:18", "/d", 200, "-", AHREFS),
            line("192.0.2.1", 4, "01:00:40", "/e", 200, "-", AHREFS),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-04T01:00:18Z".into(),
            "crawl-delay",
            "AhrefsBot".into(),
            "/d".into()
        )]
    );
    assert_eq!(&*o.violations.owned(0).unwrap().detail, "gap 18s < 20s");
}

fn noindex_snapshot(name: &str) -> Snapshot {
    snapshot(
        name,
        &[
            (
                "shop.example/robots.txt",
                "User-agent: *\nDisallow: /private/\n",
            ),
            (
                "shop.example/pages.jsonl",
                concat!(
                    "{\"url\": \"/gone\", \"x_robots_tag\": [\"noindex\"]}\n",
                    "{\"url\": \"/g-only\", \"x_robots_tag\": [\"googlebot: noindex\"]}\n",
                    "{\"url\": \"/expired\", \"meta\": [{\"name\": \"robots\", \"content\": \"unavailable_after: 2026-11-02\"}]}\n",
                    "{\"url\": \"/private/hidden\", \"x_robots_tag\": [\"noindex\"]}\n",
                    "{\"url\": \"/later\", \"x_robots_tag\": [\"index\"]}\n",
                    "{\"url\": \"/later\", \"x_robots_tag\": [\"noindex\"], \"from\": \"2026-11-03T00:00:00Z\"}\n"
                ),
            ),
        ],
    )
}

#[test]
fn noindex_evidence_after_the_index_grace() {
    let c = ctx(noindex_snapshot("noindex"));
    let google = "https://www.google.com/";
    let o = run(
        &c,
        &[
            line(
                "66.249.66.1",
                1,
                "00:00:00",
                "/robots.txt",
                200,
                "-",
                GOOGLEBOT,
            ),
            line("66.249.66.1", 1, "03:00:00", "/gone", 200, "-", GOOGLEBOT),
            line("66.249.66.1", 1, "03:00:10", "/g-only", 200, "-", GOOGLEBOT),
            line(
                "66.249.66.1",
                1,
                "03:00:20",
                "/expired",
                200,
                "-",
                GOOGLEBOT,
            ),
            line("66.249.66.1", 1, "03:00:30", "/later", 200, "-", GOOGLEBOT),
            // Inside the 72 h grace: not yet evidence.
            line("198.51.100.1", 4, "02:59:59", "/gone", 200, google, BROWSER),
            // After it: a violation, charged to Googlebot.
            line("198.51.100.1", 4, "03:00:00", "/gone", 200, google, BROWSER),
            line(
                "198.51.100.1",
                5,
                "00:00:00",
                "/g-only",
                200,
                google,
                BROWSER,
            ),
            // unavailable_after 2026-11-02T00:00 is not earlier than t_h - 72 h
            // at exactly 2026-11-05T00:00; a second later it is.
            line(
                "198.51.100.1",
                5,
                "00:00:00",
                "/expired",
                200,
                google,
                BROWSER,
            ),
            line(
                "198.51.100.1",
                5,
                "00:00:01",
                "/expired",
                200,
                google,
                BROWSER,
            ),
            // /later was indexable when fetched: no evidence.
            line(
                "198.51.100.1",
                6,
                "00:00:00",
                "/later",
                200,
                google,
                BROWSER,
            ),
            // Bing never fetched these: nothing to charge.
            line(
                "198.51.100.1",
                6,
                "00:00:00",
                "/gone",
                200,
                "https://www.bing.com/",
                BROWSER,
            ),
        ],
    );
    assert_eq!(
        kinds(&o),
        [
            (
                "2026-11-04T03:00:00Z".into(),
                "noindex",
                "Googlebot".into(),
                "/gone".into()
            ),
            (
                "2026-11-05T00:00:00Z".into(),
                "noindex",
                "Googlebot".into(),
                "/g-only".into()
            ),
            (
                "2026-11-05T00:00:01Z".into(),
                "unavailable-after",
                "Googlebot".into(),
                "/expired".into()
            ),
        ]
    );
    let v = &o.violations.owned(0).unwrap();
    assert_eq!(
        (&*v.rule, v.verified, &*v.client_ip),
        ("X-Robots-Tag: noindex", Some(true), "66.249.66.1")
    );
    assert_eq!(
        &*v.detail,
        "referrer www.google.com; crawler fetched 2026-11-01T03:00:00Z"
    );
    assert_eq!(
        &*o.violations.owned(1).unwrap().rule,
        "X-Robots-Tag: googlebot: noindex"
    );
    assert_eq!(
        &*o.violations.owned(2).unwrap().rule,
        "meta robots: unavailable_after: 2026-11-02"
    );
    assert_eq!((o.counts.human, o.counts.referred), (7, 7));
}

#[test]
fn rules_for_another_crawler_meta_search_and_markers() {
    let c = ctx(noindex_snapshot("meta"));
    let o = run(
        &c,
        &[
            line("157.55.39.1", 1, "03:00:00", "/g-only", 200, "-", BINGBOT),
            line("157.55.39.1", 1, "03:00:01", "/gone", 200, "-", BINGBOT),
            // A googlebot-only noindex does not bind bingbot.
            line(
                "198.51.100.1",
                5,
                "00:00:00",
                "/g-only",
                200,
                "https://www.bing.com/search?q=x",
                BROWSER,
            ),
            // DuckDuckGo shows Bing's index: charged to bingbot.
            line(
                "198.51.100.1",
                5,
                "00:00:01",
                "/gone",
                200,
                "https://duckduckgo.com/",
                BROWSER,
            ),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-05T00:00:01Z".into(),
            "noindex",
            "bingbot".into(),
            "/gone".into()
        )]
    );
    assert_eq!(
        &*o.violations.owned(0).unwrap().detail,
        "referrer duckduckgo.com; crawler fetched 2026-11-01T03:00:01Z"
    );
    // An assistant click with a landing marker and no Referer.
    let o = run(
        &c,
        &[
            line(
                "20.171.207.1",
                1,
                "03:00:00",
                "/gone",
                200,
                "-",
                "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)",
            ),
            line(
                "198.51.100.1",
                5,
                "00:00:00",
                "/gone?utm_source=chatgpt.com",
                200,
                "-",
                BROWSER,
            ),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-05T00:00:00Z".into(),
            "noindex",
            "OAI-SearchBot".into(),
            "/gone".into()
        )]
    );
    assert!(
        o.violations
            .owned(0)
            .unwrap()
            .detail
            .starts_with("referrer landing marker utm_source=chatgpt.com")
    );
}

#[test]
fn impersonators_are_charged_separately_and_are_no_evidence() {
    let c = ctx(noindex_snapshot("spoof"));
    let o = run(
        &c,
        &[
            line(
                "203.0.113.66",
                1,
                "03:00:00",
                "/private/a",
                200,
                "-",
                GOOGLEBOT,
            ),
            line("203.0.113.66", 1, "03:00:05", "/gone", 200, "-", GOOGLEBOT),
            line(
                "66.249.66.1",
                1,
                "03:00:10",
                "/robots.txt",
                200,
                "-",
                GOOGLEBOT,
            ),
            line(
                "198.51.100.1",
                5,
                "00:00:00",
                "/gone",
                200,
                "https://www.google.com/",
                BROWSER,
            ),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T03:00:00Z".into(),
            "disallow",
            "Googlebot (unverified)".into(),
            "/private/a".into()
        )]
    );
    assert_eq!(o.violations.owned(0).unwrap().verified, Some(false));
    let spoofed: Vec<_> = o
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::SpoofedAgent)
        .collect();
    assert_eq!(spoofed.len(), 1);
    assert_eq!(
        (&*spoofed[0].crawler, spoofed[0].count),
        ("Googlebot (unverified)", 2)
    );
    assert!(
        spoofed[0].detail.contains("googlebot.json") && spoofed[0].detail.contains("203.0.113.66")
    );
}

/// Referrals of one second to one page, from Google's result pages in
/// seven countries: their rows tie on every key of the table's order, so
/// they come in the referrals' order. The unit tests judge a host's
/// referrals two at a time in parallel (`noindex::REFERRALS_PART`), so
/// this also holds the parts' rows to the referrals' order.
#[test]
fn noindex_rows_of_one_second_keep_the_referrals_order() {
    let c = ctx(noindex_snapshot("noindex-order"));
    let countries = ["de", "fr", "it", "es", "nl", "pl", "se"];
    let mut lines = vec![line(
        "66.249.66.1",
        1,
        "03:00:00",
        "/gone",
        200,
        "-",
        GOOGLEBOT,
    )];
    for country in countries {
        lines.push(line(
            "198.51.100.1",
            5,
            "00:00:00",
            "/gone",
            200,
            &format!("https://www.google.{country}/"),
            BROWSER,
        ));
    }
    let o = run(&c, &lines);
    let details: Vec<String> = o
        .violations
        .iter()
        .map(|v| v.detail().to_string())
        .collect();
    let want: Vec<String> = countries
        .iter()
        .map(|country| {
            format!("referrer www.google.{country}; crawler fetched 2026-11-01T03:00:00Z")
        })
        .collect();
    assert_eq!(details, want);
}

#[test]
fn findings_no_robots_fetch_unseen_noindex_noindex_lines_unknown_hosts() {
    let c = ctx(snapshot(
        "findings",
        &[
            (
                "shop.example/robots.txt",
                "User-agent: *\nDisallow: /private/\nNoindex: /old/\n",
            ),
            (
                "shop.example/pages.jsonl",
                "{\"url\": \"/private/hidden\", \"x_robots_tag\": [\"noindex\"]}\n",
            ),
        ],
    ));
    let o = run(
        &c,
        &[
            format!(
                "192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET http://shop.example/a HTTP/1.1\" 200 1 \"-\" \"{AHREFS}\""
            ),
            format!(
                "192.0.2.1 - - [01/Nov/2026:10:00:00 +0000] \"GET http://other.example/a HTTP/1.1\" 200 1 \"-\" \"{AHREFS}\""
            ),
            format!(
                "192.0.2.2 - - [01/Nov/2026:10:00:00 +0000] \"GET http://other.example/b HTTP/1.1\" 200 1 \"-\" \"{BROWSER}\""
            ),
            format!(
                "66.249.66.1 - - [01/Nov/2026:10:00:00 +0000] \"GET http://shop.example/robots.txt HTTP/1.1\" 200 1 \"-\" \"{GOOGLEBOT}\""
            ),
        ],
    );
    let found: Vec<(&str, &str, &str, &str, u64)> = o
        .findings
        .iter()
        .map(|f| {
            (
                f.kind.as_str(),
                &*f.host,
                &*f.crawler,
                f.url.as_str(),
                f.count,
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("no-robots-fetch", "other.example", "AhrefsBot", "", 1),
            ("no-robots-fetch", "shop.example", "AhrefsBot", "", 1),
            (
                "noindex-unseen",
                "shop.example",
                "Googlebot",
                "/private/hidden",
                1
            ),
            ("robots-noindex-line", "shop.example", "", "/robots.txt", 1),
            ("unknown-host", "other.example", "", "", 2),
        ]
    );
    assert!(
        o.findings[2]
            .detail
            .contains("X-Robots-Tag: noindex cannot be seen")
            && o.findings[2].detail.contains("2: Disallow: /private/")
    );
    // AhrefsBot feeds no search index: its not seeing noindex is no finding.
    assert_eq!(o.counts.unjudged, 1, "the other.example crawler request");
}

/// Issue 13: one `noindex-unseen` row per crawler and page let a log of
/// invented User-Agents write millions of rows. Now one row per URL and
/// (directive, rule), with the crawlers named (five, then `and N more`)
/// and counted.
#[test]
fn noindex_unseen_is_one_row_per_url_and_rule_whatever_the_user_agents() {
    let c = ctx(snapshot(
        "unseen-rows",
        &[
            (
                "shop.example/robots.txt",
                "User-agent: *\nDisallow: /private/\n\nUser-agent: AhrefsBot\nDisallow: /private/\n",
            ),
            (
                "shop.example/pages.jsonl",
                concat!(
                    "{\"url\": \"/private/a\", \"x_robots_tag\": [\"noindex\"]}\n",
                    "{\"url\": \"/private/b\", \"meta\": [{\"name\": \"fakebot\", \"content\": \"noindex\"}]}\n",
                    "{\"url\": \"/public\", \"x_robots_tag\": [\"noindex\"]}\n",
                ),
            ),
        ],
    ));
    // Seven bots of a `--bots` catalogue that feed a search engine's index,
    // each its own identity (`FakeBot0`...), whose robots token and meta
    // name are `fakebot`; and AhrefsBot, with a group of its own, made one
    // too (it feeds no index in the built-in catalogue).
    let mut bots: String = (0..7)
        .map(|i| {
            format!(
                "[[crawler]]\nname = \"FakeBot{i}\"\ncategory = \"search\"\npattern = 'FakeBot{i}/'\ntokens = [\"FakeBot\"]\nengine = \"google\"\n\n"
            )
        })
        .collect();
    bots.push_str(
        "[[crawler]]\nname = \"AhrefsBot\"\ncategory = \"seo\"\npattern = 'AhrefsBot'\ntokens = [\"AhrefsBot\"]\nengine = \"google\"\n",
    );
    let c = Context::new(
        c.snapshot().clone(),
        Catalogue::from_toml(&bots, "bots.toml").unwrap(),
        google_ranges(),
        Settings::default(),
    );
    let mut lines: Vec<String> = (0..7)
        .map(|i| {
            line(
                "192.0.2.1",
                1,
                "10:00:00",
                "/x",
                200,
                "-",
                &format!("Mozilla/5.0 (compatible; FakeBot{i}/1.0)"),
            )
        })
        .collect();
    lines.push(line("192.0.2.1", 1, "10:00:00", "/x", 200, "-", AHREFS));
    let o = run(&c, &lines);
    let unseen: Vec<(&str, &str, u64, &str)> = o
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::NoindexUnseen)
        .map(|f| (&*f.crawler, f.url.as_str(), f.count, f.detail.as_str()))
        .collect();
    let why = |rule: &str| {
        format!(
            "X-Robots-Tag: noindex cannot be seen: robots.txt forbids fetching the page ({rule})"
        )
    };
    assert_eq!(
        unseen,
        [
            (
                "AhrefsBot",
                "/private/a",
                1,
                why("5: Disallow: /private/").as_str()
            ),
            (
                "FakeBot0, FakeBot1, FakeBot2, FakeBot3, FakeBot4 and 2 more",
                "/private/a",
                7,
                why("2: Disallow: /private/").as_str()
            ),
            (
                "FakeBot0, FakeBot1, FakeBot2, FakeBot3, FakeBot4 and 2 more",
                "/private/b",
                7,
                "meta fakebot: noindex cannot be seen: robots.txt forbids fetching the page (2: Disallow: /private/)"
            ),
        ]
    );
    // The total is still one per crawler and page.
    let total: u64 = o
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::NoindexUnseen)
        .map(|f| f.count)
        .sum();
    assert_eq!(total, 15);
}

#[test]
fn window_site_and_counts() {
    let snap = snapshot(
        "window",
        &[("shop.example/robots.txt", "User-agent: *\nDisallow: /x\n")],
    );
    let t = |s: &str| i64::try_from(s.parse::<jiff::Timestamp>().unwrap().as_nanosecond()).unwrap();
    let settings = Settings {
        since: Some(t("2026-11-02T00:00:00Z")),
        until: Some(t("2026-11-03T00:00:00Z")),
        ..Settings::default()
    };
    let c = Context::new(snap, Catalogue::builtin(), IpRanges::default(), settings);
    assert_eq!(
        c.default_host(),
        Some("shop.example"),
        "a one-host snapshot is the default site"
    );
    let o = run(
        &c,
        &[
            line("192.0.2.1", 1, "23:59:59", "/x", 200, "-", AHREFS),
            line("192.0.2.1", 2, "00:00:00", "/x", 200, "-", AHREFS),
            line("192.0.2.1", 3, "00:00:00", "/x", 200, "-", AHREFS),
            "192.0.2.1 - - [02/Nov/2026:00:00:00 +0000] \"-\" 408 0 \"-\" \"-\"".to_string(),
        ],
    );
    assert_eq!(o.violations.len(), 1);
    assert_eq!(
        (
            o.counts.requests,
            o.counts.outside_window,
            o.counts.not_requests,
            o.counts.crawler
        ),
        (4, 2, 1, 1)
    );
}

/// Issue 13: the identification caches grew with every distinct
/// User-Agent, people's too, and each chunk kept its own copy until the
/// replay.
#[test]
fn identification_caches_are_bounded_and_freed_when_a_chunk_is_done() {
    let c = ctx(snapshot(
        "caches",
        &[("shop.example/robots.txt", "User-agent: *\nDisallow: /x\n")],
    ));
    let format = Format::Combined.compile().unwrap();
    let mut collector = Collector::new(&c);
    let n = MAX_CACHED_USER_AGENTS + 1_000;
    for i in 0..n {
        let l = line(
            "192.0.2.1",
            1,
            "10:00:00",
            "/a",
            200,
            "-",
            &format!("{BROWSER} Visitor/{i}"),
        );
        collector.record(&parse_line(&format, l.as_bytes()).unwrap());
    }
    let l = line("192.0.2.1", 1, "10:00:00", "/x", 200, "-", AHREFS);
    collector.record(&parse_line(&format, l.as_bytes()).unwrap());
    assert_eq!(c.identified.read().unwrap().len(), MAX_CACHED_USER_AGENTS);
    assert!(collector.agents.len() <= CHUNK_CACHE);
    collector.finish();
    assert!(collector.agents.is_empty() && collector.hosts.is_empty() && collector.met.is_empty());
    let o = replay(&c, vec![collector]);
    assert_eq!(o.counts.human, n as u64);
    // Past the cap, crawlers are still identified (and judged).
    assert_eq!(kinds(&o).len(), 1);
}

/// Issue 13: one `unknown-host` entry per invented Host header. The first
/// [`MAX_UNKNOWN_HOSTS`] names in byte order are kept with exact counts,
/// whatever order the parts come in, and the rest are added up.
#[test]
fn unknown_hosts_keep_the_first_names_in_byte_order_with_exact_counts() {
    let hosts: Vec<Arc<str>> = (0..MAX_UNKNOWN_HOSTS + 500)
        .map(|i| format!("h{i:06}.example").into())
        .collect();
    let mut forward = UnknownHosts::default();
    for h in &hosts {
        forward.add(h, 2);
    }
    // The same requests in another order, in three parts.
    let mut parts = [
        UnknownHosts::default(),
        UnknownHosts::default(),
        UnknownHosts::default(),
    ];
    for (i, h) in hosts.iter().enumerate().rev() {
        parts[i % 3].add(h, 1);
        parts[(i + 1) % 3].add(h, 1);
    }
    let mut merged = UnknownHosts::default();
    for p in parts.into_iter().rev() {
        merged.merge(p);
    }
    assert_eq!(forward, merged);
    assert_eq!(forward.named.len(), MAX_UNKNOWN_HOSTS);
    assert_eq!(
        forward.named.keys().last().unwrap().as_ref(),
        "h009999.example"
    );
    assert!(forward.named.values().all(|&n| n == 2));
    assert_eq!(forward.other, 1_000);
}

/// A Host header `shop.example.:443` is shop.example, judged under its
/// rules in the collector (the log reader drops the default port, the
/// host's normalization the trailing dot).
#[test]
fn a_host_normalized_twice_is_judged_as_the_snapshot_finds_it() {
    let c = ctx(snapshot(
        "twice",
        &[
            ("shop.example/robots.txt", "User-agent: *\nDisallow: /x\n"),
            ("other.example/robots.txt", "User-agent: *\nDisallow:\n"),
        ],
    ));
    let format = Format::VhostCombined.compile().unwrap();
    let mut collector = Collector::new(&c);
    let l = format!(
        "shop.example.:443 {}",
        line("192.0.2.1", 1, "10:00:00", "/x/1", 200, "-", AHREFS)
    );
    collector.record(&parse_line(&format, l.as_bytes()).unwrap());
    let o = replay(&c, vec![collector]);
    assert_eq!(o.counts.unjudged, 0);
    assert_eq!(o.violations.len(), 1);
    assert_eq!(&*o.violations.owned(0).unwrap().host, "shop.example");
    assert_eq!(&*o.violations.owned(0).unwrap().rule, "Disallow: /x");
    assert!(
        o.findings
            .iter()
            .all(|f| f.kind != FindingKind::UnknownHost),
        "{:?}",
        o.findings
    );
}

/// A vhost_combined line for `host` (as logged) on 1 November 2026.
fn vhost_line(host: &str, hms: &str, target: &str, ua: &str) -> String {
    format!(
        "{host} 192.0.2.9 - - [01/Nov/2026:{hms} +0000] \"GET {target} HTTP/1.1\" 200 100 \"-\" \"{ua}\""
    )
}

fn two_hosts() -> Snapshot {
    snapshot(
        "two-hosts",
        &[
            (
                "a.example/robots.txt",
                "User-agent: *\nDisallow: /private/\n",
            ),
            ("b.example/robots.txt", "User-agent: *\nDisallow: /\n"),
        ],
    )
}

/// Host values that differ in case or port are one host, numbered as the
/// snapshot numbers it; a name the snapshot writes otherwise (a trailing
/// dot before a port) is a host of its own, judged by the same rules but not numbered.
#[test]
fn host_values_name_one_host_and_carry_the_snapshot_number() {
    let c = ctx(two_hosts());
    let mut hosts = hosts::Hosts::default();
    let (a, _) = hosts.get(&c, b"a.example", None);
    let (a_port, _) = hosts.get(&c, b"A.Example:443", None);
    let (b, _) = hosts.get(&c, b"b.example:80", None);
    let (dot, _) = hosts.get(&c, b"a.example.:443", None);
    let (other, _) = hosts.get(&c, b"c.example", None);
    assert_eq!(a, a_port);
    assert_ne!(a, b);
    assert_eq!(&**c.host_name(hosts.slot(a).id.unwrap()), "a.example");
    assert_eq!(&**c.host_name(hosts.slot(b).id.unwrap()), "b.example");
    assert_eq!(&*hosts.slot(dot).name, "a.example.");
    assert!(hosts.slot(dot).rules.is_some() && hosts.slot(dot).id.is_none());
    assert!(hosts.slot(other).rules.is_none() && hosts.slot(other).id.is_none());
    // Lines without a host take the default, numbered like any other.
    let (none, _) = hosts.get(&c, b"", Some("b.example"));
    assert_eq!(hosts.slot(none).id, hosts.slot(b).id);
}

/// A table full of host values is emptied and says so; the numbers it
/// gave are void (a crawler's requests on another host must not be
/// charged to the host that held the number before), and the requests of
/// one crawler on one host before and after still add up to one row.
#[test]
fn a_full_host_table_is_emptied_and_nothing_is_lost() {
    let c = ctx(two_hosts());
    let format = Format::VhostCombined.compile().unwrap();
    let mut collector = Collector::new(&c);
    let record = |collector: &mut Collector<'_>, l: String| {
        collector.record(&parse_line(&format, l.as_bytes()).unwrap());
    };
    // a.example is the table's first value (number 0); human requests for
    // hosts the snapshot does not describe fill it.
    record(
        &mut collector,
        vhost_line("a.example", "10:00:00", "/private/1", AHREFS),
    );
    let humans = (1 << 16) - 1;
    for i in 0..humans {
        record(
            &mut collector,
            vhost_line(&format!("h{i}.test"), "10:00:01", "/", BROWSER),
        );
    }
    // The next value empties the table and is numbered 0 again.
    record(
        &mut collector,
        vhost_line("b.example", "10:00:02", "/x", AHREFS),
    );
    record(
        &mut collector,
        vhost_line("a.example", "10:00:03", "/private/2", AHREFS),
    );
    // A host the snapshot does not describe, met before the table was
    // emptied and again after: its requests are counted by its number in
    // each table, and add up.
    record(
        &mut collector,
        vhost_line("h0.test", "10:00:04", "/", BROWSER),
    );
    collector.finish();
    let o = replay(&c, vec![collector]);
    let unknown: HashMap<&str, u64> = o
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::UnknownHost)
        .map(|f| (&*f.host, f.count))
        .collect();
    assert_eq!(unknown.len(), MAX_UNKNOWN_HOSTS + 1);
    assert_eq!(unknown.get("h0.test"), Some(&2));
    assert_eq!(unknown.get("h1.test"), Some(&1));
    assert!(unknown.contains_key(OTHER_HOSTS));
    assert_eq!(unknown.values().sum::<u64>(), humans as u64 + 1);
    let rows: Vec<(&str, &str, u64)> = o
        .activity
        .iter()
        .map(|a| (&*a.host, &*a.crawler, a.requests))
        .collect();
    assert_eq!(
        rows,
        [("a.example", "AhrefsBot", 2), ("b.example", "AhrefsBot", 1)]
    );
    assert_eq!(o.violations.len(), 3);
    assert_eq!(o.counts.human, humans as u64 + 1);
}

/// Chunks whose collectors hand their lookups on (a worker's chunks) find
/// what one collector over all the lines finds.
#[test]
fn chunks_handing_on_their_lookups_find_what_one_collector_finds() {
    let c = ctx(two_hosts());
    let format = Format::VhostCombined.compile().unwrap();
    let lines: Vec<String> = (0..60)
        .map(|i| {
            let host = ["a.example", "B.example:443", "c.example", "a.example.:443"][i % 4];
            let ua = [AHREFS, GOOGLEBOT, BROWSER][i % 3];
            vhost_line(
                host,
                &format!("10:{:02}:00", i % 60),
                &format!("/private/{i}"),
                ua,
            )
        })
        .collect();
    let one = run_with(&c, &format, &lines, None);
    let lookups = Lookups::default();
    let chunked = run_with(&c, &format, &lines, Some(&lookups));
    assert_eq!(kinds(&one), kinds(&chunked));
    assert_eq!(one.activity, chunked.activity);
    assert_eq!(one.findings, chunked.findings);
    assert_eq!(one.counts, chunked.counts);
    // `a.example.:443` is `a.example` once the reader drops the port.
    let rows: Vec<(&str, &str)> = one
        .activity
        .iter()
        .map(|a| (&*a.host, &*a.crawler))
        .collect();
    let mut expected = Vec::new();
    for host in ["a.example", "b.example", "c.example"] {
        expected.extend([(host, "AhrefsBot"), (host, "Googlebot (unverified)")]);
    }
    assert_eq!(rows, expected);
}

/// Replays `lines` with one collector, or, given lookups, with a collector
/// per seven lines handing its lookups on.
fn run_with<'c>(
    c: &'c Context,
    format: &crate::logs::Compiled,
    lines: &[String],
    lookups: Option<&'c Lookups<'c>>,
) -> Outcome {
    let mut collectors = Vec::new();
    match lookups {
        None => {
            let mut collector = Collector::new(c);
            for l in lines {
                collector.record(&parse_line(format, l.as_bytes()).unwrap());
            }
            collector.finish();
            collectors.push(collector);
        }
        Some(lookups) => collectors = chunks_of_seven(c, format, lookups, lines),
    }
    replay(c, collectors)
}

/// Collectors of seven lines each, handing their lookups on, finished.
fn chunks_of_seven<'c>(
    c: &'c Context,
    format: &crate::logs::Compiled,
    lookups: &'c Lookups<'c>,
    lines: &[String],
) -> Vec<Collector<'c>> {
    let mut collectors = Vec::new();
    for chunk in lines.chunks(7) {
        let mut collector = Collector::with_lookups(c, lookups);
        for l in chunk {
            collector.record(&parse_line(format, l.as_bytes()).unwrap());
        }
        collector.finish();
        collectors.push(collector);
    }
    collectors
}

#[test]
fn the_sites_own_traffic_is_counted_and_never_judged() {
    let c = ctx(snapshot(
        "self-traffic",
        &[("shop.example/robots.txt", "User-agent: *\nDisallow: /\n")],
    ));
    let own = "WordPress/6.8; https://www.shop.example";
    let other = "WordPress/6.8; https://blog.example";
    let o = run(
        &c,
        &[
            line(
                "127.0.0.1",
                1,
                "10:00:00",
                "/",
                200,
                "-",
                "Apache/2.4.29 (Ubuntu) OpenSSL/1.1.1 (internal dummy connection)",
            ),
            line(
                "10.0.0.5",
                1,
                "10:00:01",
                "/healthz",
                200,
                "-",
                "kube-probe/1.29",
            ),
            line(
                "192.0.2.7",
                1,
                "10:00:02",
                "/wp-cron.php?doing_wp_cron",
                200,
                "-",
                own,
            ),
            line(
                "198.51.100.9",
                1,
                "10:00:03",
                "/xmlrpc.php",
                200,
                "-",
                other,
            ),
            // The site's cron, whatever URL its WordPress calls itself by.
            line(
                "192.0.2.7",
                1,
                "10:00:04",
                "/wp-cron.php?doing_wp_cron=1",
                200,
                "-",
                "WordPress/6.8; https://website.local.lan",
            ),
        ],
    );
    assert_eq!(o.counts.self_traffic, 4);
    assert_eq!(o.counts.crawler, 1);
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T10:00:03Z".into(),
            "disallow",
            "WordPress".into(),
            "/xmlrpc.php".into()
        )],
        "only the other site's WordPress is judged"
    );
    assert!(
        o.activity.iter().all(|a| &*a.crawler == "WordPress"),
        "the site's own traffic is no crawler's activity"
    );
}

#[test]
fn a_url_names_its_host_with_or_without_www_and_port() {
    assert!(names_host(b"www.shop.example/x", "shop.example"));
    assert!(names_host(b"SHOP.example", "www.shop.example"));
    assert!(names_host(b"shop.example:8080/", "shop.example:8080"));
    assert!(!names_host(b"shop.example.evil/", "shop.example"));
    assert!(!names_host(b"blog.example", "shop.example"));
    assert!(!names_host(b"", "shop.example"));
}

#[test]
fn majestic_is_held_to_the_group_written_for_it() {
    // Google's parser reads `User-agent: MJ12bot` as `MJ`; the audit asks
    // whether MJ12bot obeyed the rules written for it.
    let c = ctx(snapshot(
        "mj12bot",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nDisallow: /cart/\n\nUser-agent: MJ12bot\nDisallow: /blog/\n",
        )],
    ));
    let mj = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";
    let o = run(
        &c,
        &[
            line("192.0.2.9", 1, "10:00:00", "/robots.txt", 200, "-", mj),
            line("192.0.2.9", 1, "10:01:00", "/blog/post", 200, "-", mj),
            line("192.0.2.9", 1, "10:02:00", "/cart/1", 200, "-", mj),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T10:01:00Z".into(),
            "disallow",
            "MJ12bot".into(),
            "/blog/post".into()
        )]
    );
    let v = o.violations.owned(0).unwrap();
    assert_eq!((&*v.rule, v.rule_line), ("Disallow: /blog/", Some(5)));
}

#[test]
fn crawlers_whose_operators_document_no_crawl_delay_are_not_held_to_it() {
    let c = ctx(snapshot(
        "delay-unsupported",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nCrawl-delay: 10\n",
        )],
    ));
    let gbot = "66.249.66.1";
    let o = run(
        &c,
        &[
            line(gbot, 1, "10:00:00", "/robots.txt", 200, "-", GOOGLEBOT),
            line(gbot, 1, "10:00:01", "/a", 200, "-", GOOGLEBOT),
            line(gbot, 1, "10:00:02", "/b", 200, "-", GOOGLEBOT),
            line("192.0.2.9", 1, "10:00:00", "/robots.txt", 200, "-", BINGBOT),
            line("192.0.2.9", 1, "10:00:01", "/a", 200, "-", BINGBOT),
        ],
    );
    // Google documents that it does not support Crawl-delay; Bing does.
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T10:00:01Z".into(),
            "crawl-delay",
            "bingbot".into(),
            "/a".into()
        )]
    );
    let googlebot = c.catalogue().by_name("Googlebot").unwrap();
    assert!(googlebot.ignores_crawl_delay());
    assert!(
        googlebot
            .policy_source()
            .is_some_and(|u| u.starts_with("https://developers.google.com/"))
    );
}

#[test]
fn user_triggered_fetches_are_a_finding_not_violations() {
    let c = ctx(snapshot(
        "user-triggered",
        &[(
            "shop.example/robots.txt",
            "User-agent: *\nDisallow: /private/\n",
        )],
    ));
    let chatgpt = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot";
    let o = run(
        &c,
        &[
            line("192.0.2.5", 1, "10:00:05", "/private/b", 200, "-", chatgpt),
            line("192.0.2.5", 1, "10:00:00", "/private/a", 200, "-", chatgpt),
            line("192.0.2.5", 1, "10:01:00", "/public", 200, "-", chatgpt),
            line("192.0.2.6", 1, "10:02:00", "/private/c", 200, "-", AHREFS),
        ],
    );
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T10:02:00Z".into(),
            "disallow",
            "AhrefsBot".into(),
            "/private/c".into()
        )]
    );
    let f: Vec<&Finding> = o
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::UserTriggeredFetch)
        .collect();
    assert_eq!(f.len(), 1, "{:?}", o.findings);
    assert_eq!(
        (&*f[0].host, &*f[0].crawler, f[0].url.as_str(), f[0].count),
        ("shop.example", "ChatGPT-User", "/private/a", 2)
    );
    assert!(
        f[0].detail.starts_with(
            "2 requests to paths that Disallow: /private/ (line 2 of robots.txt) disallows, from 2026-11-01T10:00:00Z to 2026-11-01T10:00:05Z;"
        ),
        "{}",
        f[0].detail
    );
    assert!(
        f[0].detail
            .contains("https://platform.openai.com/docs/bots")
    );
}

#[test]
fn a_fetcher_for_a_person_from_outside_its_ranges_is_no_excuse() {
    let mut ranges = google_ranges();
    ranges.insert(
        "chatgpt-user.json",
        RangeSet::from_prefixes([parse_prefix("23.98.142.176/28").unwrap()]),
    );
    let c = Context::new(
        snapshot(
            "user-triggered-outside",
            &[(
                "shop.example/robots.txt",
                "User-agent: *\nDisallow: /private/\n",
            )],
        ),
        Catalogue::builtin(),
        ranges,
        Settings::default(),
    );
    let chatgpt = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot";
    let o = run(
        &c,
        &[
            line(
                "23.98.142.180",
                1,
                "10:00:00",
                "/private/a",
                200,
                "-",
                chatgpt,
            ),
            line(
                "203.0.113.9",
                1,
                "10:00:01",
                "/private/b",
                200,
                "-",
                chatgpt,
            ),
        ],
    );
    // The real one is excused; the impersonator is judged.
    assert_eq!(
        kinds(&o),
        [(
            "2026-11-01T10:00:01Z".into(),
            "disallow",
            "ChatGPT-User (unverified)".into(),
            "/private/b".into()
        )]
    );
    let excused: Vec<(&str, u64)> = o
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::UserTriggeredFetch)
        .map(|f| (&*f.crawler, f.count))
        .collect();
    assert_eq!(excused, [("ChatGPT-User", 1)]);
}

/// `Collector::referred` does not look up a Referer of three bytes or
/// fewer (`-`, the common value): none of them names a host, whatever its
/// bytes (every value of up to three bytes over the bytes that shape a
/// URL, and some that are not text).
#[test]
fn no_referer_of_three_bytes_or_fewer_names_a_host() {
    let alphabet: &[u8] = b":/-@a.G \t\xff";
    let mut values: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..3 {
        let longer: Vec<Vec<u8>> = values
            .iter()
            .filter(|v| v.len() == values.last().map_or(0, Vec::len))
            .flat_map(|v| {
                alphabet.iter().map(move |&b| {
                    let mut w = v.clone();
                    w.push(b);
                    w
                })
            })
            .collect();
        values.extend(longer);
    }
    assert_eq!(values.len(), 1 + 10 + 100 + 1000);
    for v in &values {
        assert_eq!(referer_host(v), None, "{:?}", String::from_utf8_lossy(v));
    }
    // Four bytes may: the shortcut's bound is tight.
    assert_eq!(referer_host(b"://a").as_deref(), Some("a"));
}

/// `lossy` reads a field as `String::from_utf8_lossy` does, borrowing
/// ASCII and UTF-8 alike: every byte string of up to two bytes over ASCII,
/// a UTF-8 lead and continuation byte and a byte that is never UTF-8, and
/// longer ones with the odd byte at each place.
#[test]
fn fields_are_read_as_lossy_utf8() {
    let alphabet: &[u8] = &[b'a', b'/', 0x7f, 0x00, 0xc3, 0xa9, 0xff];
    let mut values: Vec<Vec<u8>> = vec![Vec::new()];
    values.extend(alphabet.iter().map(|&a| vec![a]));
    values.extend(
        alphabet
            .iter()
            .flat_map(|&a| alphabet.iter().map(move |&b| vec![a, b])),
    );
    let long = b"/caf\xc3\xa9/0123456789abcdef0123456789".to_vec();
    for at in 0..long.len() {
        for odd in [0xffu8, 0xc3, 0x80] {
            let mut v = long.clone();
            v[at] = odd;
            values.push(v);
        }
    }
    for v in &values {
        let read = lossy(v);
        assert_eq!(read, String::from_utf8_lossy(v), "{v:?}");
        assert_eq!(
            matches!(read, std::borrow::Cow::Borrowed(_)),
            std::str::from_utf8(v).is_ok(),
            "{v:?}"
        );
    }
}

/// The audit's lookups gather each accepted chunk's activities as the
/// reader accepts them (`Lookups::gathering`): the outcome is the one the
/// chunks' own activities give, ties of one second across chunks
/// included (the sample and the crawl-delay steps keep file order), and
/// a chunk read but never accepted (one past a fault) adds nothing.
#[test]
fn activities_gathered_as_chunks_are_accepted_are_the_chunks_own() {
    let c = ctx(snapshot(
        "gathered",
        &[
            (
                "a.example/robots.txt",
                "User-agent: AhrefsBot\nCrawl-delay: 5\nDisallow: /private/\n\nUser-agent: *\nDisallow: /private/\n",
            ),
            ("b.example/robots.txt", "User-agent: *\nDisallow: /\n"),
        ],
    ));
    let format = Format::VhostCombined.compile().unwrap();
    // 24 requests a second: each (host, crawler) pair comes every 12 lines,
    // twice a second, in two chunks of seven lines; versions in the
    // User-Agents tell the requests apart.
    let lines: Vec<String> = (0..84)
        .map(|i| {
            let host = ["a.example", "b.example", "c.example"][i % 3];
            let ua = match i % 4 {
                0 => format!("Mozilla/5.0 (compatible; AhrefsBot/7.{}; +http://ahrefs.com/robot/)", i % 5),
                1 => format!("Mozilla/5.0 (compatible; Googlebot/2.{}; +http://www.google.com/bot.html)", i % 5),
                2 => format!("Mozilla/5.0 (compatible; bingbot/2.{}; +http://www.bing.com/bingbot.htm)", i % 5),
                _ => BROWSER.to_string(),
            };
            format!(
                "{host} 192.0.2.{} - - [01/Nov/2026:10:00:{:02} +0000] \"GET /private/{i} HTTP/1.1\" 200 100 \"-\" \"{ua}\"",
                i % 7,
                i / 24 % 60,
            )
        })
        .collect();
    let compare = |a: &Outcome, b: &Outcome| {
        assert_eq!(kinds(a), kinds(b));
        assert_eq!(a.activity, b.activity);
        assert_eq!(a.findings, b.findings);
        assert_eq!(a.counts, b.counts);
    };
    let one = run_with(&c, &format, &lines, None);
    assert!(
        kinds(&one).iter().any(|k| k.1 == "crawl-delay"),
        "the steps are walked"
    );

    // Every chunk accepted in file order.
    let plain = Lookups::default();
    let chunked = replay(&c, chunks_of_seven(&c, &format, &plain, &lines));
    compare(&one, &chunked);
    let gathering = Lookups::gathering();
    let mut collectors = chunks_of_seven(&c, &format, &gathering, &lines);
    for collector in &mut collectors {
        collector.accept();
        // Accepted twice, gathered once.
        collector.accept();
    }
    let gathered = replay_gathered(&c, collectors, &gathering);
    compare(&one, &gathered);

    // Five chunks accepted; the rest read, never accepted, and dropped.
    let kept = &lines[..35];
    let plain = Lookups::default();
    let expected = replay(&c, chunks_of_seven(&c, &format, &plain, kept));
    let gathering = Lookups::gathering();
    let mut collectors = chunks_of_seven(&c, &format, &gathering, &lines);
    let dropped = collectors.split_off(5);
    for collector in &mut collectors {
        collector.accept();
    }
    drop(dropped);
    let gathered = replay_gathered(&c, collectors, &gathering);
    compare(&expected, &gathered);
    assert_ne!(
        one.activity, gathered.activity,
        "the dropped chunks counted"
    );
}

/// A snapshot of many hosts makes the collectors look up each line's host
/// a line ahead ([`Sink::prefetch`]); a collector shown each request
/// before the one it records finds what one shown none finds, over
/// hosts written with ports and in capitals, hosts the snapshot does not
/// describe, and crawlers and people alike.
#[test]
fn hosts_looked_up_a_line_ahead_are_judged_as_without() {
    let n = PREFETCH_HOSTS + 44;
    let files: Vec<(String, String)> = (0..n)
        .map(|i| {
            (
                format!("host{i}.example/robots.txt"),
                format!("User-agent: *\nDisallow: /private/{}/\n", i % 5),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let c = ctx(snapshot("many-hosts", &files));
    assert!(!Collector::new(&ctx(two_hosts())).prefetches());
    let format = Format::VhostCombined.compile().unwrap();
    let lines: Vec<String> = (0..3_000)
        .map(|i| {
            let h = (i * 7919) % (n + 20);
            let host = match i % 3 {
                0 => format!("host{h}.example"),
                1 => format!("HOST{h}.example:443"),
                _ => format!("host{h}.example:80"),
            };
            let ua = [AHREFS, GOOGLEBOT, BROWSER, BINGBOT][i % 4];
            vhost_line(
                &host,
                &format!("10:{:02}:{:02}", (i / 60) % 60, i % 60),
                &format!("/private/{}/{i}", i % 5),
                ua,
            )
        })
        .collect();
    let requests: Vec<_> = lines
        .iter()
        .map(|l| parse_line(&format, l.as_bytes()).unwrap())
        .collect();
    let plain = run_with(&c, &format, &lines, None);
    let mut collector = Collector::new(&c);
    assert!(collector.prefetches());
    for (i, request) in requests.iter().enumerate() {
        if let Some(next) = requests.get(i + 1) {
            collector.prefetch(next);
        }
        collector.record(request);
    }
    collector.finish();
    let ahead = replay(&c, vec![collector]);
    assert!(kinds(&plain).len() > 100, "{}", kinds(&plain).len());
    assert_eq!(kinds(&plain), kinds(&ahead));
    assert_eq!(plain.activity, ahead.activity);
    assert_eq!(plain.findings, ahead.findings);
    assert_eq!(plain.counts, ahead.counts);
}

/// A host whose robots.txt never changes (its groups and delays made once
/// per crawler, outside the lookups' maps) is judged as a host whose
/// versions, each alike, change at times before the requests (the maps'
/// way): the same violations, rules, lines and gaps.
#[test]
fn a_host_whose_policy_never_changes_is_judged_as_one_whose_does() {
    let robots = "User-agent: AhrefsBot\nCrawl-delay: 10\nDisallow: /x/\n\nUser-agent: *\nDisallow: /cart/\nCrawl-delay: 5\n";
    let constant = ctx(snapshot(
        "constant-policy",
        &[("shop.example/robots.txt", robots)],
    ));
    let changing = ctx(snapshot(
        "changing-policy",
        &[
            ("shop.example/robots/2026-10-01T00-00-00Z.txt", robots),
            ("shop.example/robots/2026-10-15T00-00-00Z.txt", robots),
        ],
    ));
    let gbot = "66.249.66.1";
    let lines = [
        line("192.0.2.1", 1, "10:00:00", "/a", 200, "-", AHREFS),
        line("192.0.2.1", 1, "10:00:03", "/x/1", 200, "-", AHREFS),
        line("192.0.2.1", 1, "10:00:20", "/b", 200, "-", AHREFS),
        line("192.0.2.9", 1, "10:00:00", "/cart/1", 200, "-", BINGBOT),
        line("192.0.2.9", 1, "10:00:02", "/c", 200, "-", BINGBOT),
        line("192.0.2.9", 1, "10:00:09", "/d", 200, "-", BINGBOT),
        line(gbot, 1, "10:00:00", "/cart/2", 200, "-", GOOGLEBOT),
        line(gbot, 1, "10:00:01", "/e", 200, "-", GOOGLEBOT),
    ];
    let rows = |c: &Context| {
        let o = run(c, &lines);
        (0..o.violations.len())
            .map(|i| {
                let v = o.violations.owned(i).unwrap();
                (
                    crate::time::format_time(v.time),
                    v.kind.as_str(),
                    v.crawler.to_string(),
                    v.url.to_string(),
                    v.rule.to_string(),
                    v.rule_line,
                    v.detail.to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (a, b) = (rows(&constant), rows(&changing));
    assert_eq!(a, b);
    let kinds: Vec<(&str, &str, &str)> = a
        .iter()
        .map(|r| (r.1, r.2.as_str(), r.3.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("disallow", "Googlebot", "/cart/2"),
            ("disallow", "bingbot", "/cart/1"),
            ("crawl-delay", "bingbot", "/c"),
            ("crawl-delay", "AhrefsBot", "/x/1"),
            ("disallow", "AhrefsBot", "/x/1"),
        ]
    );
}

/// A worker's slot for a host holds what every request reads of the
/// host's rules (their change points, the first known version), and the
/// host table's flags whether the snapshot describes the host and whether
/// any page has rules, the same as the rules themselves; a host the
/// snapshot does not describe has none.
#[test]
fn a_hosts_slot_holds_what_every_request_reads_of_its_rules() {
    let c = ctx(snapshot(
        "slot-head",
        &[
            (
                "shop.example/robots/2026-11-01T00-00-00Z.txt",
                "User-agent: *\nDisallow: /a/\n",
            ),
            (
                "shop.example/robots/2026-11-05T12-00-00Z.txt",
                "User-agent: *\nDisallow: /b/\n",
            ),
            (
                "shop.example/pages.jsonl",
                "{\"url\": \"/gone\", \"x_robots_tag\": [\"noindex\"]}\n",
            ),
            ("plain.example/robots.txt", "User-agent: *\nDisallow: /\n"),
        ],
    ));
    let mut hosts = hosts::Hosts::default();
    let snap = c.snapshot();
    for (host, pages) in [("shop.example", true), ("plain.example", false)] {
        let (h, _) = hosts.get(&c, host.as_bytes(), None);
        let slot = hosts.slot(h);
        let rules = slot.rules.expect("the snapshot describes the host");
        assert_eq!(slot.head.points, snap.policy_change_points(host), "{host}");
        assert_eq!(
            slot.head.first_known,
            snap.first_known(host).unwrap(),
            "{host}"
        );
        assert_eq!(rules.has_pages(), pages, "{host}");
        assert_eq!(rules.has_page("/gone"), pages, "{host}");
        assert_eq!(hosts.has_pages(h), pages, "{host}");
        assert!(hosts.described(h), "{host}");
    }
    // Two versions: the policy changes at the second one's time.
    let (h, _) = hosts.get(&c, b"shop.example", None);
    assert!(!hosts.slot(h).head.points.is_empty());
    let (h, _) = hosts.get(&c, b"elsewhere.example", None);
    let slot = hosts.slot(h);
    assert!(slot.rules.is_none());
    assert!(slot.head.points.is_empty());
    assert!(!hosts.described(h) && !hosts.has_pages(h));
}
