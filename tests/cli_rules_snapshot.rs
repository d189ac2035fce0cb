//! `crawlaudit rules --snapshot`: the fixture's URLs explained at several
//! times: in, just after and 24 h after each robots.txt change, inside and
//! after a 5xx period.

use std::process::Command;

use serde_json::Value;

const SNAPSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/snapshots/history");

fn explain(agent: &str, at: &str, urls: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args([
            "rules",
            "--snapshot",
            SNAPSHOT,
            "--agent",
            agent,
            "--at",
            at,
            "--json",
        ])
        .args(urls)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (version, allowed, rule, crawl delay) for Googlebot on /cart/x at `at`.
fn cart(at: &str) -> (String, bool, Value, Value) {
    let e = &explain("Googlebot", at, &["https://shop.example/cart/x"])[0];
    let r = &e["robots"];
    (
        r["version"].as_str().unwrap().to_string(),
        r["allowed"].as_bool().unwrap(),
        r["rule"].clone(),
        r["crawl_delay"].clone(),
    )
}

#[test]
fn each_change_in_just_after_and_a_day_later() {
    let v1 = "2026-10-01T00-00-00Z.txt";
    let v2 = "2026-10-10T12-00-00Z.txt";
    // No Googlebot group in the first version: the * group and its Crawl-delay apply.
    for at in [
        "2026-10-01T00:00:00Z",
        "2026-10-01T00:00:01Z",
        "2026-10-02T00:00:00Z",
        "2026-10-10T11:59:59Z",
    ] {
        assert_eq!(cart(at), (v1.into(), true, Value::Null, 5.0.into()), "{at}");
    }
    for at in [
        "2026-10-10T12:00:00Z",
        "2026-10-10T12:00:01Z",
        "2026-10-11T12:00:00Z",
    ] {
        assert_eq!(
            cart(at),
            (v2.into(), false, "Disallow: /cart/".into(), Value::Null),
            "{at}"
        );
    }
    // Inside the 5xx period: everything disallowed, reported as robots.txt 5xx.
    for at in [
        "2026-10-20T00:00:00Z",
        "2026-10-20T00:00:01Z",
        "2026-10-21T00:00:00Z",
        "2026-11-18T23:59:59Z",
    ] {
        let (version, allowed, rule, _) = cart(at);
        assert!(
            version.ends_with(".503") && !allowed && rule == "robots.txt 5xx",
            "{at}: {version}"
        );
    }
    // After 30 days of 5xx the 2026-10-10 version applies again, and the
    // output says what the host answered.
    let e = &explain(
        "Googlebot",
        "2026-11-20T00:00:00Z",
        &["https://shop.example/cart/x"],
    )[0];
    assert_eq!(e["robots"]["version"], v2);
    assert!(
        e["robots"]["answered"]
            .as_str()
            .unwrap()
            .starts_with("2026-10-25T00-00-00Z.503 (status 503")
    );
    for at in ["2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z"] {
        assert_eq!(
            cart(at),
            (
                "2026-12-01T00-00-00Z.404".into(),
                true,
                Value::Null,
                Value::Null
            ),
            "{at}"
        );
    }
}

#[test]
fn groups_delays_pages_and_unseen_noindex() {
    // The * group's crawl-delay for an unknown bot, the GPTBot group.
    let e = &explain(
        "SomeBot/1.0",
        "2026-10-12T00:00:00Z",
        &["https://shop.example/about"],
    )[0];
    assert_eq!(e["robots"]["crawl_delay"], 10.0);
    assert_eq!(e["robots"]["crawl_delay_rule"], "4: Crawl-delay: 10");
    let e = &explain(
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        "2026-10-12T00:00:00Z",
        &["https://shop.example/about"],
    )[0];
    assert_eq!(
        (
            e["crawler"].as_str(),
            e["robots"]["allowed"].as_bool(),
            e["robots"]["rule_line"].as_u64()
        ),
        (Some("GPTBot"), Some(false), Some(12))
    );
    // A noindex page that robots.txt forbids: the crawler can never see it.
    let e = &explain(
        "bingbot",
        "2026-10-12T00:00:00Z",
        &["https://shop.example/private/secret"],
    )[0];
    assert_eq!(e["page"]["rules"]["noindex"], true);
    assert_eq!(e["page"]["from"]["noindex"], "X-Robots-Tag: noindex");
    assert_eq!(e["page"]["noindex_unseen"], true);
    // Googlebot is allowed /private/press/ and sees its own noindex.
    let e = &explain(
        "Googlebot",
        "2026-10-12T00:00:00Z",
        &["https://shop.example/private/press/release"],
    )[0];
    assert_eq!(
        (
            e["robots"]["allowed"].as_bool(),
            e["page"]["noindex_unseen"].is_null()
        ),
        (Some(true), true)
    );
    assert_eq!(e["page"]["rules"]["nofollow"], true);
    // Page versions over time.
    let page = |at| explain("Googlebot", at, &["https://shop.example/changing"])[0]["page"].clone();
    assert_eq!(page("2026-10-15T00:00:00Z")["rules"], serde_json::json!({}));
    assert_eq!(page("2026-11-02T00:00:00Z")["rules"]["noindex"], true);
    assert_eq!(page("2026-11-16T00:00:00Z")["status"], 404);
    // A redirected robots.txt, and a host without robots information.
    let e = &explain(
        "Googlebot",
        "2026-11-01",
        &[
            "https://redirect.example/drafts/x",
            "https://unknown.example/",
        ],
    );
    assert_eq!(e[0]["robots"]["allowed"], false);
    assert!(
        e[0]["robots"]["answered"]
            .as_str()
            .unwrap()
            .contains(".301")
    );
    assert!(e[1]["robots"].is_null() && e[1]["judged"] == false);
}

#[test]
fn text_output_and_errors() {
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args([
            "rules",
            "--snapshot",
            SNAPSHOT,
            "--agent",
            "Googlebot",
            "--at",
            "2026-10-15T00:00:00Z",
            "https://shop.example/cart/x",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("decision: disallowed by line 7: Disallow: /cart/"),
        "{text}"
    );
    assert!(
        text.contains("group: the group for Googlebot (6: User-agent: Googlebot)"),
        "{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args([
            "rules",
            "--snapshot",
            SNAPSHOT,
            "--agent",
            "Googlebot",
            "/cart/x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("as a full URL: the snapshot describes 4 hosts")
    );
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args([
            "rules",
            "--snapshot",
            SNAPSHOT,
            "--agent",
            "Googlebot",
            "--at",
            "soon",
            "https://shop.example/",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--at \"soon\" is not a time"));
}
