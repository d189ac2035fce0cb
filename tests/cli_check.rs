//! `crawlaudit check`, run as a user runs it, against the example robots.txt.

use std::process::Command;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/examples/robots.txt");

fn crawlaudit(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(args)
        .output()
        .expect("run crawlaudit")
}

#[test]
fn check_prints_decision_url_and_rule() {
    let out = crawlaudit(&[
        "check",
        EXAMPLE,
        "Googlebot",
        "https://shop.example/search?q=shoes",
        "https://shop.example/search/help",
        "/products/42",
        "/cart/",
        "/manual.pdf",
        "/robots.txt",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "disallowed\thttps://shop.example/search?q=shoes\t19: Disallow: /search\n\
         allowed\thttps://shop.example/search/help\t18: Allow: /search/help\n\
         allowed\t/products/42\t-\n\
         disallowed\t/cart/\t15: Disallow: /cart/\n\
         allowed\t/manual.pdf\t-\n\
         allowed\t/robots.txt\t-\n"
    );
}

#[test]
fn check_uses_the_global_group_and_leading_token() {
    let out = crawlaudit(&[
        "check",
        EXAMPLE,
        "SomeBot/1.0",
        "/manual.pdf",
        "/manual.pdf?x",
        "/p?sessionid=1",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "disallowed\t/manual.pdf\t10: Disallow: /*.pdf$\n\
         allowed\t/manual.pdf?x\t-\n\
         disallowed\t/p?sessionid=1\t7: Disallow: /*?sessionid=\n"
    );
    let out = crawlaudit(&["check", EXAMPLE, "gptbot", "/"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "disallowed\t/\t26: Disallow: /\n"
    );
}

#[test]
fn missing_file_is_an_input_error_naming_it() {
    let out = crawlaudit(&["check", "/nonexistent/robots.txt", "Googlebot", "/"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("/nonexistent/robots.txt"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn user_agent_without_token_is_a_usage_error() {
    let out = crawlaudit(&["check", EXAMPLE, "/2.1", "/"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("no robots.txt product token")
    );
}

#[test]
fn missing_urls_is_a_usage_error() {
    let out = crawlaudit(&["check", EXAMPLE, "Googlebot"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn full_user_agent_resolves_through_the_catalogue() {
    // Googlebot-Image has a group of its own here, which allows /search.
    let ua = "Googlebot-Image/1.0";
    let out = crawlaudit(&["check", EXAMPLE, ua, "/search?q=x", "/images/private/a.jpg"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "allowed\t/search?q=x\t-\n\
         disallowed\t/images/private/a.jpg\t22: Disallow: /images/private/\n"
    );
    // Googlebot-Video has none, so it falls back to its second token,
    // Googlebot, as Google documents.
    let ua = "Googlebot-Video/1.0";
    let out = crawlaudit(&["check", EXAMPLE, ua, "/search?q=x"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "disallowed\t/search?q=x\t19: Disallow: /search\n"
    );
    let ua = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)";
    let out = crawlaudit(&["check", EXAMPLE, ua, "/"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "disallowed\t/\t26: Disallow: /\n"
    );
    // AdsBot ignores `*` groups: no group names it, so everything is allowed.
    let ua = "AdsBot-Google (+http://www.google.com/adsbot.html)";
    let out = crawlaudit(&["check", EXAMPLE, ua, "/cart/"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "allowed\t/cart/\t-\n"
    );
}
