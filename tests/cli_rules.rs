//! `crawlaudit rules` without a snapshot, as a user runs it.

use std::process::Command;

fn rules(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .arg("rules")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn json_is_one_object_of_effective_rules() {
    let (code, out, _) = rules(&[
        "--agent",
        "Googlebot",
        "--header",
        "BadBot: noindex, nofollow, googlebot: nofollow",
        "--header",
        "unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "{\"nofollow\":true,\"unavailable_after\":\"2025-12-03T13:09:53Z\"}\n"
    );
}

#[test]
fn json_for_no_rules_is_empty_object() {
    let (code, out, _) = rules(&[
        "--agent",
        "bingbot",
        "--header",
        "googlebot: noindex",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(out, "{}\n");
}

#[test]
fn full_user_agent_and_html_file() {
    let dir = std::env::temp_dir().join(format!("crawlaudit-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("page.html");
    std::fs::write(
        &page,
        "<head><meta name=googlebot content='noindex&#44; max-snippet: 20'></head>",
    )
    .unwrap();
    let ua = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    let (code, out, _) = rules(&["--agent", ua, "--html", page.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0));
    assert_eq!(out, "{\"max-snippet\":20,\"noindex\":true}\n");
    let (_, text, _) = rules(&[
        "--agent",
        ua,
        "--html",
        page.to_str().unwrap(),
        "--header",
        "max-snippet: x",
    ]);
    assert!(
        text.contains(
            "noindex      from meta googlebot: noindex (<meta name=googlebot> at byte 6)"
        ),
        "{text}"
    );
    assert!(
        text.contains("ignored (no effect for this crawler):\n  X-Robots-Tag: max-snippet: x (X-Robots-Tag line 1): bad number `x` (-1 or more): the rule is void"),
        "{text}"
    );
    // What Googlebot does not obey is listed with the reason, never as a
    // rule (an unknown word, a prefix with a version, a date that is none).
    let (_, json, _) = rules(&[
        "--agent",
        "Googlebot",
        "--header",
        "noindex nofollow, max-snippet: -1",
        "--header",
        "googlebot/2.1: noindex",
        "--header",
        "unavailable_after: 32 Foo 2025, 10:00",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["max-snippet"], -1);
    assert_eq!(v.as_object().unwrap().len(), 2, "{v}");
    let reasons: Vec<&str> = v["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 3, "{v}");
    assert!(
        reasons[0]
            .starts_with("unknown directive `noindex nofollow`: rules are separated by commas")
    );
    assert!(reasons[1].starts_with("unknown crawler prefix `googlebot/2.1`"));
    assert_eq!(
        reasons[2],
        "bad date `32 Foo 2025, 10:00`: the rule is void"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreadable_html_is_an_input_error() {
    let (code, _, err) = rules(&["--agent", "Googlebot", "--html", "/nonexistent/page.html"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("/nonexistent/page.html"), "{err}");
}
