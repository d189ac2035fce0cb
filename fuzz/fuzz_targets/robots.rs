//! Fuzz the robots.txt parser and matcher: any bytes as robots.txt, any
//! bytes as the path, several tokens. Checks that nothing panics and that
//! every verdict is consistent with the rule it names.
#![no_main]

use crawlaudit::robots::{Robots, RuleKind, path_params_query};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte says where the robots.txt ends and the URL begins.
    let Some((&split, rest)) = data.split_first() else { return };
    let split = usize::from(split) * rest.len() / 256;
    let (body, url) = rest.split_at(split);
    let robots = Robots::parse(body);
    let path = path_params_query(url);
    assert_eq!(path.first(), Some(&b'/'));
    for token in ["FooBot", "googlebot", "a", ""] {
        let group = robots.group(&[token]);
        let verdict = group.check(&path);
        if let Some(rule) = verdict.rule() {
            assert_eq!(rule.kind() == RuleKind::Allow, verdict.allowed());
            assert!(rule.line() >= 1 && rule.line() <= robots.stats().lines);
        }
        assert!(group.check(b"/robots.txt").allowed());
        let _ = group.crawl_delay();
    }
});
