//! Indexing-rules tests. `mdn_*` are the examples of MDN's X-Robots-Tag
//! page, `google_*` those of Google's robots meta tag and X-Robots-Tag
//! specification, `wikipedia_*` those of the Robots Exclusion Standard
//! article (the source documents in `shared/seeds/`); `tricky_cases` is a
//! table of our own edge cases.

use super::*;

/// The effective rules as compact JSON, for a response with `headers`
/// (one entry per header line) and optional `html`, for a crawler `names`.
fn eval(headers: &[&str], html: &str, names: &[&str]) -> String {
    let mut page = PageRules::default();
    for h in headers {
        page.add_header(h);
    }
    page.add_html(html.as_bytes());
    page.effective(names).to_json().to_string()
}

const GOOGLE: &[&str] = &["googlebot"];
const OTHER: &[&str] = &["otherbot"];

#[test]
fn mdn_single_noindex() {
    assert_eq!(eval(&["noindex"], "", GOOGLE), r#"{"noindex":true}"#);
    assert_eq!(eval(&["noindex"], "", OTHER), r#"{"noindex":true}"#);
}

#[test]
fn mdn_multiple_headers() {
    assert_eq!(
        eval(
            &[
                "noimageindex",
                "unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT"
            ],
            "",
            GOOGLE
        ),
        r#"{"noimageindex":true,"unavailable_after":"2025-12-03T13:09:53Z"}"#
    );
}

#[test]
fn mdn_user_agents_in_two_headers_and_in_one() {
    for headers in [
        &["BadBot: noindex, nofollow", "googlebot: nofollow"][..],
        &["BadBot: noindex, nofollow, googlebot: nofollow"],
    ] {
        assert_eq!(eval(headers, "", GOOGLE), r#"{"nofollow":true}"#);
        assert_eq!(
            eval(headers, "", &["badbot"]),
            r#"{"nofollow":true,"noindex":true}"#
        );
        assert_eq!(eval(headers, "", OTHER), "{}");
    }
}

#[test]
fn mdn_sum_of_negative_rules() {
    let headers = ["nofollow", "googlebot: noindex"];
    assert_eq!(
        eval(&headers, "", GOOGLE),
        r#"{"nofollow":true,"noindex":true}"#
    );
    assert_eq!(eval(&headers, "", OTHER), r#"{"nofollow":true}"#);
}

#[test]
fn mdn_conflicting_rules_most_restrictive() {
    assert_eq!(
        eval(&["max-snippet:50", "nosnippet"], "", GOOGLE),
        r#"{"nosnippet":true}"#
    );
    assert_eq!(
        eval(
            &["max-snippet:50"],
            r#"<meta name="robots" content="nosnippet">"#,
            GOOGLE
        ),
        r#"{"nosnippet":true}"#
    );
}

#[test]
fn mdn_directives() {
    let cases = [
        ("all", "{}"),
        ("noindex", r#"{"noindex":true}"#),
        ("nofollow", r#"{"nofollow":true}"#),
        ("none", r#"{"nofollow":true,"noindex":true}"#),
        ("nosnippet", r#"{"nosnippet":true}"#),
        ("indexifembedded", r#"{"indexifembedded":true}"#),
        (
            "noindex, indexifembedded",
            r#"{"indexifembedded":true,"noindex":true}"#,
        ),
        ("max-snippet: 20", r#"{"max-snippet":20}"#),
        ("max-snippet: nope", "{}"),
        ("max-image-preview: none", r#"{"max-image-preview":"none"}"#),
        (
            "max-image-preview: standard",
            r#"{"max-image-preview":"standard"}"#,
        ),
        (
            "max-image-preview: large",
            r#"{"max-image-preview":"large"}"#,
        ),
        ("max-video-preview: 0", r#"{"max-video-preview":0}"#),
        // An explicit "no limit" is kept.
        ("max-video-preview: -1", r#"{"max-video-preview":-1}"#),
        ("max-video-preview: 15", r#"{"max-video-preview":15}"#),
        ("notranslate", r#"{"notranslate":true}"#),
        ("noimageindex", r#"{"noimageindex":true}"#),
        (
            "unavailable_after: 2025-12-03",
            r#"{"unavailable_after":"2025-12-03T00:00:00Z"}"#,
        ),
        ("unavailable_after: not a date", "{}"),
    ];
    for (header, expected) in cases {
        assert_eq!(
            eval(&[header], "", GOOGLE),
            expected,
            "X-Robots-Tag: {header}"
        );
        let meta = format!(r#"<meta name="robots" content="{header}">"#);
        assert_eq!(eval(&[], &meta, GOOGLE), expected, "meta: {header}");
    }
}

#[test]
fn google_meta_robots_in_head() {
    let html = "<!DOCTYPE html>\n<html><head>\n<meta name=\"robots\" content=\"noindex\" />\n(…)\n</head>\n<body>(…)</body>\n</html>";
    assert_eq!(eval(&[], html, GOOGLE), r#"{"noindex":true}"#);
    assert_eq!(
        eval(&[], html, &["bingbot", "msnbot"]),
        r#"{"noindex":true}"#
    );
}

#[test]
fn google_meta_for_googlebot_only() {
    let html = r#"<meta name="googlebot" content="noindex" />"#;
    assert_eq!(eval(&[], html, GOOGLE), r#"{"noindex":true}"#);
    assert_eq!(eval(&[], html, &["bingbot", "msnbot"]), "{}");
}

#[test]
fn google_news_is_its_own_name() {
    let html = r#"<meta name="googlebot-news" content="noindex" />"#;
    assert_eq!(eval(&[], html, GOOGLE), "{}");
    assert_eq!(
        eval(&[], html, &["googlebot-news", "googlebot"]),
        r#"{"noindex":true}"#
    );
}

#[test]
fn google_several_meta_tags() {
    let html = "<meta name=\"googlebot\" content=\"noindex\">\n<meta name=\"googlebot-news\" content=\"nosnippet\">";
    assert_eq!(eval(&[], html, GOOGLE), r#"{"noindex":true}"#);
    assert_eq!(
        eval(&[], html, &["googlebot-news"]),
        r#"{"nosnippet":true}"#
    );
    assert_eq!(
        eval(&[], html, &["googlebot-news", "googlebot"]),
        r#"{"noindex":true,"nosnippet":true}"#
    );
}

#[test]
fn google_header_noindex() {
    assert_eq!(eval(&["noindex"], "", GOOGLE), r#"{"noindex":true}"#);
}

#[test]
fn google_noarchive_and_unavailable_after_pst() {
    assert_eq!(
        eval(
            &["noarchive", "unavailable_after: 25 Jun 2010 15:00:00 PST"],
            "",
            GOOGLE
        ),
        r#"{"noarchive":true,"unavailable_after":"2010-06-25T23:00:00Z"}"#
    );
}

#[test]
fn google_header_user_agents() {
    let headers = ["googlebot: nofollow", "otherbot: noindex, nofollow"];
    assert_eq!(eval(&headers, "", GOOGLE), r#"{"nofollow":true}"#);
    assert_eq!(
        eval(&headers, "", OTHER),
        r#"{"nofollow":true,"noindex":true}"#
    );
    assert_eq!(eval(&headers, "", &["bingbot"]), "{}");
}

#[test]
fn google_directive_table() {
    for (rule, expected) in [
        ("all", "{}"),
        ("noindex", r#"{"noindex":true}"#),
        ("nofollow", r#"{"nofollow":true}"#),
        ("none", r#"{"nofollow":true,"noindex":true}"#),
        ("noarchive", r#"{"noarchive":true}"#),
        ("nosnippet", r#"{"nosnippet":true}"#),
        ("noodp", r#"{"noodp":true}"#),
        ("notranslate", r#"{"notranslate":true}"#),
        ("noimageindex", r#"{"noimageindex":true}"#),
        (
            "unavailable_after: Friday, 25-Jun-10 15:00:00 PST",
            r#"{"unavailable_after":"2010-06-25T23:00:00Z"}"#,
        ),
    ] {
        assert_eq!(eval(&[rule], "", GOOGLE), expected, "{rule}");
    }
}

#[test]
fn google_combined_meta() {
    assert_eq!(
        eval(
            &[],
            r#"<meta name="robots" content="noindex, nofollow">"#,
            GOOGLE
        ),
        r#"{"nofollow":true,"noindex":true}"#
    );
    let html = "<meta name=\"robots\" content=\"nofollow\">\n<meta name=\"googlebot\" content=\"noindex\">";
    assert_eq!(
        eval(&[], html, GOOGLE),
        r#"{"nofollow":true,"noindex":true}"#
    );
    assert_eq!(eval(&[], html, OTHER), r#"{"nofollow":true}"#);
}

#[test]
fn google_apache_examples() {
    assert_eq!(
        eval(&["noindex, nofollow"], "", GOOGLE),
        r#"{"nofollow":true,"noindex":true}"#
    );
    assert_eq!(eval(&["noindex"], "", OTHER), r#"{"noindex":true}"#);
}

#[test]
fn google_names_and_values_case_insensitive() {
    assert_eq!(
        eval(&[], r#"<META NAME="GOOGLEBOT" CONTENT="NOINDEX">"#, GOOGLE),
        r#"{"noindex":true}"#
    );
    assert_eq!(
        eval(&["GoogleBot: NoFollow"], "", &["GOOGLEBOT"]),
        r#"{"nofollow":true}"#
    );
}

#[test]
fn wikipedia_examples() {
    assert_eq!(
        eval(
            &[],
            r#"<meta name="robots" content="noindex,nofollow" />"#,
            GOOGLE
        ),
        r#"{"nofollow":true,"noindex":true}"#
    );
    assert_eq!(
        eval(&[], r#"<meta name="robots" content="all" />"#, GOOGLE),
        "{}"
    );
    let html = "<meta name=\"msnbot\" content=\"nofollow\" /> <!-- Microsoft -->\n\
                <meta name=\"GoogleBot\" content=\"noindex\" /> <!-- Google -->\n\
                <meta name=\"Slurp\" content=\"noydir\" /> <!-- Yahoo -->";
    assert_eq!(
        eval(&[], html, &["bingbot", "msnbot"]),
        r#"{"nofollow":true}"#
    );
    assert_eq!(eval(&[], html, GOOGLE), r#"{"noindex":true}"#);
    assert_eq!(eval(&[], html, &["slurp"]), r#"{"noydir":true}"#);
    // "archive" and the article's "noopd" are not rules any engine knows:
    // no crawler obeys them (`PageRules::ignored` lists them).
    assert_eq!(eval(&["archive, noopd"], "", GOOGLE), "{}");
}

/// (headers, html, crawler names, expected JSON)
type Case = (
    &'static [&'static str],
    &'static str,
    &'static [&'static str],
    &'static str,
);

const TRICKY: &[Case] = &[
    // Scoping.
    (
        &["googlebot: noindex", "nofollow"],
        "",
        GOOGLE,
        r#"{"nofollow":true,"noindex":true}"#,
    ),
    (
        &["googlebot: noindex", "nofollow"],
        "",
        OTHER,
        r#"{"nofollow":true}"#,
    ),
    (&["googlebot: noindex"], "", &["googlebot-image"], "{}"),
    (&["googlebot-image: noindex"], "", GOOGLE, "{}"),
    (
        &["googlebot-image: noindex"],
        "",
        &["googlebot-image", "googlebot"],
        r#"{"noindex":true}"#,
    ),
    (
        &["noarchive, googlebot: noindex, otherbot: nofollow"],
        "",
        GOOGLE,
        r#"{"noarchive":true,"noindex":true}"#,
    ),
    (
        &["noarchive, googlebot: noindex, otherbot: nofollow"],
        "",
        OTHER,
        r#"{"noarchive":true,"nofollow":true}"#,
    ),
    (
        &["otherbot: noindex", "nosnippet"],
        "",
        GOOGLE,
        r#"{"nosnippet":true}"#,
    ),
    (&["googlebot:noindex"], "", GOOGLE, r#"{"noindex":true}"#),
    (
        &["  googlebot  :  noindex  "],
        "",
        GOOGLE,
        r#"{"noindex":true}"#,
    ),
    (
        &["googlebot: noindex", "googlebot: index"],
        "",
        GOOGLE,
        r#"{"noindex":true}"#,
    ),
    (
        &["bingbot: noindex"],
        "",
        &["bingbot", "msnbot"],
        r#"{"noindex":true}"#,
    ),
    (
        &["msnbot: noindex"],
        "",
        &["bingbot", "msnbot"],
        r#"{"noindex":true}"#,
    ),
    (
        &["googlebot: none"],
        "",
        GOOGLE,
        r#"{"nofollow":true,"noindex":true}"#,
    ),
    (&["googlebot:"], "", GOOGLE, "{}"),
    (&["googlebot: , noindex"], "", OTHER, "{}"),
    (
        &["a.b-c_d: noindex"],
        "",
        &["a.b-c_d"],
        r#"{"noindex":true}"#,
    ),
    // Value rules and prefixes.
    (&["max-snippet: 20"], "", GOOGLE, r#"{"max-snippet":20}"#),
    (
        &["max-snippet:20, max-snippet: 10"],
        "",
        GOOGLE,
        r#"{"max-snippet":10}"#,
    ),
    (
        &["max-snippet: 10", "max-snippet: -1"],
        "",
        GOOGLE,
        r#"{"max-snippet":10}"#,
    ),
    (&["max-snippet: -1"], "", GOOGLE, r#"{"max-snippet":-1}"#),
    (&["max-snippet: 0"], "", GOOGLE, r#"{"nosnippet":true}"#),
    (&["max-snippet: +5"], "", GOOGLE, r#"{"max-snippet":5}"#),
    (&["max-snippet: 5.5"], "", GOOGLE, "{}"),
    (&["max-snippet: -2"], "", GOOGLE, "{}"),
    (&["max-snippet: 99999999999999999999"], "", GOOGLE, "{}"),
    (
        &["googlebot: max-snippet: 30, noarchive"],
        "",
        GOOGLE,
        r#"{"max-snippet":30,"noarchive":true}"#,
    ),
    (&["googlebot: max-snippet: 30, noarchive"], "", OTHER, "{}"),
    (
        &["max-image-preview: large", "max-image-preview: standard"],
        "",
        GOOGLE,
        r#"{"max-image-preview":"standard"}"#,
    ),
    (
        &["max-image-preview: LARGE"],
        "",
        GOOGLE,
        r#"{"max-image-preview":"large"}"#,
    ),
    (
        &["max-image-preview: huge, noindex"],
        "",
        GOOGLE,
        r#"{"noindex":true}"#,
    ),
    (
        &["max-image-preview:none", "max-image-preview: large"],
        "",
        GOOGLE,
        r#"{"max-image-preview":"none"}"#,
    ),
    (
        &["max-video-preview: 30, max-video-preview: 10"],
        "",
        GOOGLE,
        r#"{"max-video-preview":10}"#,
    ),
    (
        &["nosnippet, max-snippet: 10"],
        "",
        GOOGLE,
        r#"{"nosnippet":true}"#,
    ),
    // Dates.
    (
        &["unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T13:09:53Z"}"#,
    ),
    (
        &["unavailable_after: Wednesday, 03-Dec-25 13:09:53 GMT"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T13:09:53Z"}"#,
    ),
    (
        &["unavailable_after: Wed Dec  3 13:09:53 2025"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T13:09:53Z"}"#,
    ),
    (
        &["unavailable_after: 2025-12-03T13:09:53+02:00"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T11:09:53Z"}"#,
    ),
    (
        &["unavailable_after: 2025-12-03T13:09:53"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T13:09:53Z"}"#,
    ),
    (
        &["unavailable_after: 03 Dec 2025 13:09:53 -0500"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T18:09:53Z"}"#,
    ),
    (
        &[
            "unavailable_after: 2026-01-01",
            "unavailable_after: 2025-06-01",
        ],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-06-01T00:00:00Z"}"#,
    ),
    (
        &["unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT, googlebot: noindex"],
        "",
        GOOGLE,
        r#"{"noindex":true,"unavailable_after":"2025-12-03T13:09:53Z"}"#,
    ),
    (
        &["googlebot: unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT, nofollow"],
        "",
        OTHER,
        "{}",
    ),
    (
        &["unavailable_after: 31 Feb 2025, noindex"],
        "",
        GOOGLE,
        r#"{"noindex":true}"#,
    ),
    (&["unavailable_after:"], "", GOOGLE, "{}"),
    (
        &["UNAVAILABLE_AFTER: 2025-12-03"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T00:00:00Z"}"#,
    ),
    (
        &["unavailable-after: 2025-12-03"],
        "",
        GOOGLE,
        r#"{"unavailable_after":"2025-12-03T00:00:00Z"}"#,
    ),
    // Unknown and legacy rules, spacing, case.
    (&["NOINDEX"], "", GOOGLE, r#"{"noindex":true}"#),
    (
        &["noindex,nofollow,noarchive"],
        "",
        GOOGLE,
        r#"{"noarchive":true,"nofollow":true,"noindex":true}"#,
    ),
    (&[" , , noindex , "], "", GOOGLE, r#"{"noindex":true}"#),
    (
        &["noai, noimageai"],
        "",
        GOOGLE,
        r#"{"noai":true,"noimageai":true}"#,
    ),
    (&["nocache"], "", GOOGLE, r#"{"nocache":true}"#),
    (
        &["noydir, noodp"],
        "",
        GOOGLE,
        r#"{"noodp":true,"noydir":true}"#,
    ),
    (&["index, follow, all"], "", GOOGLE, "{}"),
    (&["index", "noindex"], "", GOOGLE, r#"{"noindex":true}"#),
    (&["noindex", "index"], "", GOOGLE, r#"{"noindex":true}"#),
    // An unknown rule: no crawler obeys it.
    (&["foo-rule"], "", GOOGLE, "{}"),
    (&["some rule: with value"], "", GOOGLE, "{}"),
    (&[""], "", GOOGLE, "{}"),
    // Headers vs meta.
    (
        &["googlebot: nofollow"],
        "<meta name=robots content=noindex>",
        GOOGLE,
        r#"{"nofollow":true,"noindex":true}"#,
    ),
    (
        &["nofollow"],
        "<meta name=googlebot content=noindex>",
        OTHER,
        r#"{"nofollow":true}"#,
    ),
    (
        &[],
        "<meta name=robots content='googlebot: noindex'>",
        GOOGLE,
        r#"{"noindex":true}"#,
    ),
    (
        &[],
        "<meta name=robots content='googlebot: noindex'>",
        OTHER,
        "{}",
    ),
    (
        &[],
        "<meta name=googlebot content='max-snippet: 10, noarchive'>",
        GOOGLE,
        r#"{"max-snippet":10,"noarchive":true}"#,
    ),
    // Odd HTML.
    (
        &[],
        "<meta name=robots content=\"noindex&#44; nofollow\">",
        GOOGLE,
        r#"{"nofollow":true,"noindex":true}"#,
    ),
    (
        &[],
        "<meta name=robots content=noindex,nofollow>",
        GOOGLE,
        r#"{"nofollow":true,"noindex":true}"#,
    ),
    (
        &[],
        "<body><p>hi</p><meta name=ROBOTS content=NOINDEX></body>",
        GOOGLE,
        r#"{"noindex":true}"#,
    ),
    (
        &[],
        "<!-- <meta name=robots content=noindex> -->",
        GOOGLE,
        "{}",
    ),
    (
        &[],
        "<script>'<meta name=robots content=noindex>'</script>",
        GOOGLE,
        "{}",
    ),
    (
        &[],
        "<template><meta name=robots content=noindex></template>",
        GOOGLE,
        "{}",
    ),
    (
        &[],
        "<title><meta name=robots content=noindex></title><meta name=robots content=nofollow>",
        GOOGLE,
        r#"{"nofollow":true}"#,
    ),
    (&[], "<meta name=robots content=\"noindex", GOOGLE, "{}"),
    (
        &[],
        "<meta http-equiv=X-Robots-Tag content=noindex>",
        GOOGLE,
        "{}",
    ),
    (
        &[],
        "<meta name=description content=\"noindex is a word\">",
        GOOGLE,
        "{}",
    ),
];

#[test]
fn tricky_cases() {
    assert!(TRICKY.len() >= 60, "{} cases", TRICKY.len());
    for (headers, html, names, expected) in TRICKY {
        assert_eq!(
            eval(headers, html, names),
            *expected,
            "headers {headers:?} html {html:?} names {names:?}"
        );
    }
}

#[test]
fn description_meta_does_not_apply() {
    // `<meta name=description>` is a meta tag of another name: it addresses
    // a "crawler" called description, which no crawler is.
    assert_eq!(
        eval(&[], "<meta name=description content=noindex>", GOOGLE),
        "{}"
    );
}

#[test]
fn provenance_of_each_rule() {
    let mut page = PageRules::default();
    page.add_header("noarchive");
    page.add_header("googlebot: noindex, max-snippet: 20");
    page.add_html(
        b"<meta name=robots content=nofollow><meta name=googlebot content='max-snippet: 5'>",
    );
    let eff = page.effective(GOOGLE);
    let shown: Vec<(String, String)> = eff
        .rules()
        .iter()
        .map(|r| (r.name.clone(), r.to_string()))
        .collect();
    assert_eq!(
        shown,
        [
            (
                "noindex".to_string(),
                "X-Robots-Tag: googlebot: noindex".to_string()
            ),
            ("nofollow".to_string(), "meta robots: nofollow".to_string()),
            (
                "noarchive".to_string(),
                "X-Robots-Tag: noarchive".to_string()
            ),
            (
                "max-snippet".to_string(),
                "meta googlebot: max-snippet: 5".to_string()
            ),
        ]
    );
    assert_eq!(
        eff.get("noindex").unwrap().source.origin(),
        &Origin::Header { index: 2 }
    );
    assert!(
        matches!(eff.get("max-snippet").unwrap().source.origin(), Origin::Meta { name, offset: Some(35) } if name == "googlebot")
    );
}

#[test]
fn a_prefix_never_leaks_into_the_next_header_line() {
    let mut page = PageRules::default();
    page.add_header("googlebot: nofollow");
    page.add_header("noindex");
    assert_eq!(
        page.effective(OTHER).to_json().to_string(),
        r#"{"noindex":true}"#
    );
}

#[test]
fn invalid_rules_are_reported() {
    let mut page = PageRules::default();
    page.add_header("max-snippet: many, noindex, unavailable_after: soon");
    let invalid: Vec<String> = page.invalid().map(|s| s.text().to_string()).collect();
    assert_eq!(invalid, ["max-snippet: many", "unavailable_after: soon"]);
    assert!(page.effective(GOOGLE).noindex());
}

#[test]
fn unavailable_after_accessor() {
    let mut page = PageRules::default();
    page.add_header("unavailable_after: 2025-12-03");
    assert_eq!(
        page.effective(GOOGLE)
            .unavailable_after()
            .unwrap()
            .to_string(),
        "2025-12-03T00:00:00Z"
    );
    assert!(PageRules::default().effective(GOOGLE).is_empty());
}
