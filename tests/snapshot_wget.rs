//! A real `wget --warc-file` crawl (fixtures/warc/wget-site.warc.gz, made by
//! scripts/make_warc_fixture.py from a local site whose pages carry
//! X-Robots-Tag headers and robots meta tags) loads with the right rules
//! for every page.

use std::path::PathBuf;

use crawlaudit::snapshot::{Policy, Snapshot};

#[test]
fn every_page_of_the_wget_crawl_has_its_rules() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/warc/wget-site.warc.gz");
    let s = Snapshot::load(&[path]).unwrap();
    let host = "127.0.0.1:18931";
    let stats = &s.warc_stats()[0].1;
    assert_eq!((stats.responses, stats.robots, stats.pages), (8, 1, 7));
    let later = i64::MAX;
    match s.policy_at(host, later).unwrap() {
        Policy::Rules { robots, .. } => {
            assert!(!robots.check(&["wget"], b"/private/x.html").allowed());
            assert!(robots.check(&["wget"], b"/a.html").allowed());
        }
        other => panic!("{other}"),
    }
    let rules = |url: &str, names: &[&str]| {
        s.page_at(host, url, later)
            .unwrap()
            .rules()
            .effective(names)
            .to_json()
            .to_string()
    };
    let g = &["googlebot"][..];
    let other = &["otherbot"][..];
    assert_eq!(rules("/", g), "{}");
    assert_eq!(rules("/a.html", g), r#"{"noindex":true}"#);
    assert_eq!(rules("/a.html", other), r#"{"noindex":true}"#);
    assert_eq!(rules("/b.html", g), r#"{"nofollow":true}"#);
    assert_eq!(rules("/b.html", other), r#"{"noindex":true}"#);
    assert_eq!(
        rules("/c.html", g),
        r#"{"noarchive":true,"noindex":true,"unavailable_after":"2025-12-03T13:09:53Z"}"#
    );
    assert_eq!(
        rules("/c.html", other),
        r#"{"unavailable_after":"2025-12-03T13:09:53Z"}"#
    );
    assert_eq!(
        rules("/d.html", g),
        "{}",
        "a meta tag inside a comment does not count"
    );
    assert_eq!(rules("/doc.pdf", g), r#"{"nofollow":true,"noindex":true}"#);
    assert_eq!(
        rules("/e.html", g),
        r#"{"max-snippet":20,"noimageindex":true}"#
    );
    assert!(
        s.page_at(host, "/private/x.html", later).is_none(),
        "wget obeyed robots.txt"
    );
}
