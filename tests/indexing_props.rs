//! Property tests: the header and HTML parsers never panic, and what they
//! find is consistent.

use crawlaudit::indexing::{PageRules, meta_tags, parse_date, parse_rule_list};
use proptest::prelude::*;

fn header_strategy() -> impl Strategy<Value = String> {
    let atoms = vec![
        "noindex",
        "nofollow",
        "googlebot:",
        "otherbot: ",
        ",",
        ", ",
        ":",
        " ",
        "max-snippet: ",
        "-1",
        "20",
        "unavailable_after: ",
        "Wed, 03 Dec 2025 13:09:53 GMT",
        "2025-12-03T13:09:53Z",
        "none",
        "é",
        "\u{0}",
        "max-image-preview:",
        "large",
        "all",
    ];
    prop::collection::vec(prop::sample::select(atoms), 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn header_parsing_never_panics_and_scopes_are_names(value in header_strategy()) {
        for rule in parse_rule_list(&value, None) {
            if let Some(scope) = &rule.scope {
                prop_assert!(!scope.is_empty());
                prop_assert_eq!(scope.to_ascii_lowercase(), scope.clone());
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(value in any::<String>()) {
        let mut page = PageRules::default();
        page.add_header(&value);
        page.add_meta("robots", &value);
        let _ = page.effective(&["googlebot"]).to_json();
        let _ = parse_date(&value);
    }

    #[test]
    fn arbitrary_html_never_panics(html in prop::collection::vec(any::<u8>(), 0..3000)) {
        for tag in meta_tags(&html) {
            prop_assert!(tag.offset < html.len());
            prop_assert_eq!(html[tag.offset], b'<');
        }
    }

    /// HTML built from meta-ish fragments: every tag found starts at a `<`
    /// and a meta tag added at the end (outside any open construct) is found.
    #[test]
    fn fragments_never_panic(parts in prop::collection::vec(prop::sample::select(vec![
        "<meta name=robots content=noindex>", "<!--", "-->", "<script>", "</script>", "<template>",
        "</template>", "<title>", "</title>", "'", "\"", "<", ">", "<meta name='robots' content=\"x\"",
        "&#44;", "<!DOCTYPE html>", "<p>", "text",
    ]), 0..20)) {
        let html = parts.concat();
        let _ = meta_tags(html.as_bytes());
    }

    /// Effective rules are a function of the set of sources: adding a rule
    /// addressed to another crawler changes nothing.
    #[test]
    fn other_crawlers_rules_do_not_apply(value in header_strategy(), other in header_strategy()) {
        let mut a = PageRules::default();
        a.add_header(&value);
        let mut b = a.clone();
        b.add_header(&format!("someotherbot: {}", other.replace(':', " ")));
        prop_assert_eq!(a.effective(&["googlebot"]).to_json(), b.effective(&["googlebot"]).to_json());
    }
}
