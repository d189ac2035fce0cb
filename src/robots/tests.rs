//! Behaviour tests for the evaluator. `rfc9309_*` tests pin what RFC 9309
//! requires (the section is cited); `google_*` tests pin where Google's
//! reference parser and matcher go beyond or against it.

use super::*;

fn allowed(robots: &str, token: &str, url: &str) -> bool {
    let robots = Robots::parse(robots.as_bytes());
    robots
        .check(&[token], &path_params_query(url.as_bytes()))
        .allowed()
}

fn decided_by(robots: &str, token: &str, url: &str) -> Option<String> {
    let robots = Robots::parse(robots.as_bytes());
    robots
        .check(&[token], &path_params_query(url.as_bytes()))
        .rule()
        .map(|r| r.to_string())
}

#[test]
fn google_system_test_empty_inputs() {
    let robots = "user-agent: FooBot\ndisallow: /\n";
    assert!(allowed("", "FooBot", ""));
    assert!(allowed(robots, "", ""));
    // An empty URL is "/", which `disallow: /` covers.
    assert!(!allowed(robots, "FooBot", ""));
    assert!(allowed("", "", ""));
}

/// RFC 9309 section 2.1: rules are `name: value` lines.
#[test]
fn rfc9309_2_1_line_syntax() {
    let url = "http://foo.bar/x/y";
    assert!(!allowed("user-agent: FooBot\ndisallow: /\n", "FooBot", url));
    assert!(allowed("foo: FooBot\nbar: /\n", "FooBot", url));
}

#[test]
fn google_missing_colon_accepted() {
    assert!(!allowed(
        "user-agent FooBot\ndisallow /\n",
        "FooBot",
        "http://foo.bar/x/y"
    ));
}

/// RFC 9309 section 2.1: groups, merged when they name the same agent;
/// rules outside any group are ignored.
#[test]
fn rfc9309_2_1_groups() {
    let robots = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\n\
                  user-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\n\
                  user-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n";
    assert!(allowed(robots, "FooBot", "http://foo.bar/x/b"));
    assert!(allowed(robots, "FooBot", "http://foo.bar/z/d"));
    assert!(!allowed(robots, "FooBot", "http://foo.bar/y/c"));
    assert!(allowed(robots, "BarBot", "http://foo.bar/y/c"));
    assert!(allowed(robots, "BarBot", "http://foo.bar/w/a"));
    assert!(!allowed(robots, "BarBot", "http://foo.bar/z/d"));
    assert!(allowed(robots, "BazBot", "http://foo.bar/z/d"));
    for bot in ["FooBot", "BarBot", "BazBot"] {
        assert!(!allowed(robots, bot, "http://foo.bar/foo/bar/"), "{bot}");
    }
}

/// Lines the matcher does not know (sitemap, crawl-delay, anything) do not
/// start a new group: the reference keeps collecting user-agent lines.
#[test]
fn google_other_lines_do_not_close_a_group() {
    let robots =
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n";
    assert!(!allowed(robots, "BarBot", "http://foo.bar/"));
    assert!(!allowed(robots, "FooBot", "http://foo.bar/"));
    let robots = "User-agent: FooBot\nCrawl-delay: 5\nUser-agent: BarBot\nDisallow: /\n";
    assert!(!allowed(robots, "FooBot", "http://foo.bar/"));
    let r = Robots::parse(robots.as_bytes());
    assert_eq!(r.group(&["BarBot"]).crawl_delay().unwrap().seconds(), 5.0);
}

/// RFC 9309 section 2.1: field names are case-insensitive.
#[test]
fn rfc9309_2_1_field_names_case_insensitive() {
    for robots in [
        "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
        "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
        "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
    ] {
        assert!(allowed(robots, "FooBot", "http://foo.bar/x/y"));
        assert!(!allowed(robots, "FooBot", "http://foo.bar/a/b"));
    }
}

/// RFC 9309 section 2.2.1: user-agent values are case-insensitive.
#[test]
fn rfc9309_2_2_1_user_agent_case_insensitive() {
    for robots in [
        "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
        "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
        "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
    ] {
        for token in ["Foo", "foo"] {
            assert!(allowed(robots, token, "http://foo.bar/x/y"));
            assert!(!allowed(robots, token, "http://foo.bar/a/b"));
        }
    }
}

/// Google takes the user-agent value up to its first character outside
/// `[A-Za-z_-]`, so "Foo Bar" is a group for "Foo".
#[test]
fn google_user_agent_up_to_first_space() {
    let robots = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n";
    assert!(allowed(robots, "Foo", "http://foo.bar/x/y"));
    assert!(!allowed(robots, "Foo Bar", "http://foo.bar/x/y"));
    assert!(!allowed(
        "User-agent: Googlebot/2.1\nDisallow: /\n",
        "googlebot",
        "/x"
    ));
}

#[test]
fn google_star_followed_by_text_is_global() {
    assert!(!allowed("User-agent: * foo\nDisallow: /\n", "BarBot", "/x"));
    assert!(allowed("User-agent: *foo\nDisallow: /\n", "BarBot", "/x"));
}

/// RFC 9309 section 2.2.1: no matching group means the `*` group; no `*`
/// group means no rules.
#[test]
fn rfc9309_2_2_1_global_group_is_secondary() {
    let url = "http://foo.bar/x/y";
    assert!(allowed("", "FooBot", url));
    let global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
    assert!(!allowed(global, "FooBot", url));
    assert!(allowed(global, "BarBot", url));
    let only_specific = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n";
    assert!(allowed(only_specific, "QuxBot", url));
}

/// A group that names the crawler but has no rules still takes precedence
/// over `*`: everything is allowed.
#[test]
fn rfc9309_2_2_1_specific_group_without_rules() {
    let robots = "User-agent: *\nDisallow: /\nUser-agent: FooBot\n";
    assert!(allowed(robots, "FooBot", "/x"));
    let r = Robots::parse(robots.as_bytes());
    assert_eq!(r.check(&["FooBot"], b"/x").reason(), Reason::NoMatchingRule);
}

/// Several tokens in order of preference: the first that has a group wins.
#[test]
fn tokens_in_preference_order() {
    let robots = "User-agent: Googlebot\nDisallow: /a\nUser-agent: *\nDisallow: /\n";
    let r = Robots::parse(robots.as_bytes());
    let group = r.group(&["Googlebot-Image", "Googlebot"]);
    assert_eq!(group.selection(), &Selection::Specific("Googlebot".into()));
    assert!(group.check(b"/b").allowed());
    assert!(!group.check(b"/a").allowed());
    assert_eq!(r.group(&["Other"]).selection(), &Selection::Global);
    assert_eq!(
        Robots::parse(b"User-agent: x\n").group(&["y"]).selection(),
        &Selection::None
    );
    // A crawler that ignores `*` (AdsBot) is bound only by groups naming it.
    assert!(
        r.group_for(&["AdsBot-Google"], false)
            .check(b"/x")
            .allowed()
    );
    assert!(!r.group_for(&["Googlebot"], false).check(b"/a").allowed());
}

/// RFC 9309 section 2.2.2: paths are matched case-sensitively.
#[test]
fn rfc9309_2_2_2_values_case_sensitive() {
    assert!(!allowed(
        "user-agent: FooBot\ndisallow: /x/\n",
        "FooBot",
        "http://foo.bar/x/y"
    ));
    assert!(allowed(
        "user-agent: FooBot\ndisallow: /X/\n",
        "FooBot",
        "http://foo.bar/x/y"
    ));
}

/// RFC 9309 section 2.2.2: the longest match wins; on equal length, allow.
#[test]
fn rfc9309_2_2_2_longest_match() {
    let url = "http://foo.bar/x/page.html";
    assert!(!allowed(
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n",
        "FooBot",
        url
    ));
    let r = "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n";
    assert!(allowed(r, "FooBot", url));
    assert!(!allowed(r, "FooBot", "http://foo.bar/x/"));
    assert!(allowed(
        "user-agent: FooBot\ndisallow: \nallow: \n",
        "FooBot",
        url
    ));
    assert!(allowed(
        "user-agent: FooBot\ndisallow: /\nallow: /\n",
        "FooBot",
        url
    ));
    let r = "user-agent: FooBot\ndisallow: /x\nallow: /x/\n";
    assert!(!allowed(r, "FooBot", "http://foo.bar/x"));
    assert!(allowed(r, "FooBot", "http://foo.bar/x/"));
    assert!(allowed(
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
        "FooBot",
        url
    ));
    let r = "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n";
    assert!(!allowed(r, "FooBot", "http://foo.bar/page.html"));
    assert!(allowed(r, "FooBot", "http://foo.bar/page"));
    let r = "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n";
    assert!(allowed(r, "FooBot", url));
    assert!(!allowed(r, "FooBot", "http://foo.bar/x/y.html"));
    let r = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n";
    assert!(allowed(r, "FooBot", "http://foo.bar/x/page"));
    assert!(!allowed(r, "FooBot", "http://foo.bar/y/page"));
}

/// The verdict names the rule that decided, with its line.
#[test]
fn rfc9309_2_2_2_deciding_rule_and_line() {
    let r = "User-agent: *\nDisallow: /x\nAllow: /x\nDisallow: /x/longer\n";
    assert_eq!(decided_by(r, "a", "/x/y").as_deref(), Some("3: Allow: /x"));
    assert_eq!(
        decided_by(r, "a", "/x/longer").as_deref(),
        Some("4: Disallow: /x/longer")
    );
    assert_eq!(decided_by(r, "a", "/other"), None);
    // Two groups for the same agent are merged; the first line of the best
    // priority is reported.
    let r =
        "User-agent: a\nDisallow: /p\nUser-agent: b\nDisallow: /q\nUser-agent: a\nDisallow: /p\n";
    assert_eq!(decided_by(r, "a", "/p").as_deref(), Some("2: Disallow: /p"));
}

/// RFC 9309 section 2.2.2: non-ASCII bytes in rules are percent-encoded,
/// `%xx` normalised to upper case; the URL is compared as given.
#[test]
fn rfc9309_2_2_2_encoding() {
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n";
    assert!(allowed(
        r,
        "FooBot",
        "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par"
    ));
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n";
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bar/%E3%83%84"));
    assert!(!allowed(r, "FooBot", "http://foo.bar/foo/bar/ツ"));
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n";
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bar/%E3%83%84"));
    assert!(!allowed(r, "FooBot", "http://foo.bar/foo/bar/ツ"));
    let r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n";
    assert!(!allowed(r, "FooBot", "http://foo.bar/foo/bar/baz"));
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bar/%62%61%7A"));
    // Lower-case escapes in the rule match upper-case ones in the URL only.
    let r = "User-agent: FooBot\nDisallow: /a%3cb\n";
    assert!(!allowed(r, "FooBot", "/a%3Cb"));
    assert!(allowed(r, "FooBot", "/a%3cb"));
}

/// The priority is counted on the escaped pattern.
#[test]
fn google_priority_counts_escaped_bytes() {
    // "/ä" escapes to "/%C3%A4" (7 bytes) and beats the 6-byte "/%C3%A".
    let r = "User-agent: *\nAllow: /%C3%A\nDisallow: /ä\n";
    assert!(!allowed(r, "x", "/%C3%A4"));
    let robots = Robots::parse(r.as_bytes());
    let rule = robots.check(&["x"], b"/%C3%A4").rule().unwrap();
    assert_eq!(rule.priority(), 7);
    assert_eq!(rule.pattern(), "/ä".as_bytes());
    assert_eq!(rule.escaped_pattern(), b"/%C3%A4");
}

/// RFC 9309 section 2.2.3: `#` comments, `$` end anchor, `*` wildcard.
#[test]
fn rfc9309_2_2_3_special_characters() {
    let r = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
    assert!(!allowed(r, "FooBot", "http://foo.bar/foo/bar/quz"));
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/quz"));
    assert!(allowed(r, "FooBot", "http://foo.bar/foo//quz"));
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bax/quz"));
    let r = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
    assert!(!allowed(r, "FooBot", "http://foo.bar/foo/bar"));
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bar/qux"));
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bar/"));
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bar/baz"));
    let r = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
    assert!(allowed(r, "FooBot", "http://foo.bar/foo/bar"));
    assert!(!allowed(r, "FooBot", "http://foo.bar/foo/quz"));
}

/// Google: `Allow: .../index.html` also allows the directory itself.
#[test]
fn google_index_html_is_directory() {
    let r = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n";
    assert!(allowed(r, "foobot", "http://foo.com/allowed-slash/"));
    assert!(!allowed(
        r,
        "foobot",
        "http://foo.com/allowed-slash/index.htm"
    ));
    assert!(allowed(
        r,
        "foobot",
        "http://foo.com/allowed-slash/index.html"
    ));
    assert!(!allowed(r, "foobot", "http://foo.com/anyother-url"));
    assert_eq!(
        decided_by(r, "foobot", "http://foo.com/allowed-slash/").as_deref(),
        Some("2: Allow: /allowed-slash/index.html")
    );
}

/// Google: a line is cut after 2083 * 8 - 1 bytes.
#[test]
fn google_line_too_long() {
    let disallow = "disallow: ";
    let mut long = String::from("/x/");
    let max = MAX_LINE_BYTES + 1 - long.len() - disallow.len() + 1;
    while long.len() < max {
        long.push('a');
    }
    let r = format!("user-agent: FooBot\n{disallow}{long}/qux\n");
    assert!(allowed(&r, "FooBot", "http://foo.bar/fux"));
    assert!(!allowed(&r, "FooBot", &format!("http://foo.bar{long}/fux")));

    let allow = "allow: ";
    let mut a = String::from("/x/");
    let mut b = String::from("/x/");
    let max = MAX_LINE_BYTES + 1 - a.len() - allow.len() + 1;
    while a.len() < max {
        a.push('a');
        b.push('b');
    }
    let r = format!("user-agent: FooBot\ndisallow: /\n{allow}{a}/qux\n{allow}{b}/qux\n");
    assert!(!allowed(&r, "FooBot", "http://foo.bar/"));
    assert!(allowed(&r, "FooBot", &format!("http://foo.bar{a}/qux")));
    assert!(allowed(&r, "FooBot", &format!("http://foo.bar{b}/fux")));
}

/// Google's documented examples of path matching.
#[test]
fn google_documentation_examples() {
    let r = "user-agent: FooBot\ndisallow: /\nallow: /fish\n";
    for ok in [
        "/fish",
        "/fish.html",
        "/fish/salmon.html",
        "/fishheads",
        "/fishheads/yummy.html",
        "/fish.html?id=anything",
    ] {
        assert!(allowed(r, "FooBot", ok), "{ok}");
    }
    for no in ["/bar", "/Fish.asp", "/catfish", "/?id=fish"] {
        assert!(!allowed(r, "FooBot", no), "{no}");
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n";
    for ok in [
        "/fish",
        "/fish.html",
        "/fishheads/yummy.html",
        "/fish.html?id=anything",
    ] {
        assert!(allowed(r, "FooBot", ok), "{ok}");
    }
    for no in ["/bar", "/Fish.bar", "/catfish", "/?id=fish"] {
        assert!(!allowed(r, "FooBot", no), "{no}");
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n";
    for ok in [
        "/fish/",
        "/fish/salmon",
        "/fish/?salmon",
        "/fish/salmon.html",
        "/fish/?id=anything",
    ] {
        assert!(allowed(r, "FooBot", ok), "{ok}");
    }
    for no in ["/bar", "/fish", "/fish.html", "/Fish/Salmon.html"] {
        assert!(!allowed(r, "FooBot", no), "{no}");
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n";
    for ok in [
        "/filename.php",
        "/folder/filename.php",
        "/folder/filename.php?parameters",
        "//folder/any.php.file.html",
        "/filename.php/",
        "/index?f=filename.php/",
    ] {
        assert!(allowed(r, "FooBot", &format!("http://foo.bar{ok}")), "{ok}");
    }
    for no in ["/bar", "/php/", "/index?php", "/windows.PHP"] {
        assert!(!allowed(r, "FooBot", no), "{no}");
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n";
    for ok in ["/filename.php", "/folder/filename.php"] {
        assert!(allowed(r, "FooBot", ok), "{ok}");
    }
    for no in [
        "/bar",
        "/filename.php?parameters",
        "/filename.php/",
        "/filename.php5",
        "/php/",
        "/filename?php",
        "/aaaphpaaa",
        "//windows.PHP",
    ] {
        assert!(
            !allowed(r, "FooBot", &format!("http://foo.bar{no}")),
            "{no}"
        );
    }
    let r = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n";
    assert!(!allowed(r, "FooBot", "/bar"));
    assert!(allowed(r, "FooBot", "/fish.php"));
    assert!(allowed(r, "FooBot", "/fishheads/catfish.php?parameters"));
    assert!(!allowed(r, "FooBot", "/Fish.PHP"));
    // Order of precedence for rules.
    assert!(allowed(
        "user-agent: FooBot\nallow: /p\ndisallow: /\n",
        "FooBot",
        "http://example.com/page"
    ));
    assert!(allowed(
        "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n",
        "FooBot",
        "/folder/page"
    ));
    assert!(!allowed(
        "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
        "FooBot",
        "/page.htm"
    ));
    let r = "user-agent: FooBot\nallow: /$\ndisallow: /\n";
    assert!(allowed(r, "FooBot", "http://example.com/"));
    assert!(!allowed(r, "FooBot", "http://example.com/page.html"));
}

/// RFC 9309 section 2.2.2: `/robots.txt` is implicitly allowed.
#[test]
fn rfc9309_2_2_2_robots_txt_always_allowed() {
    let robots = Robots::parse(b"User-agent: *\nDisallow: /\n");
    let verdict = robots.check(&["x"], b"/robots.txt");
    assert!(verdict.allowed());
    assert_eq!(verdict.reason(), Reason::RobotsTxt);
    assert!(!robots.check(&["x"], b"/robots.txt.bak").allowed());
}

/// RFC 9309 section 2.2.2: an empty `Disallow` is no rule.
#[test]
fn rfc9309_2_2_2_empty_disallow_is_no_rule() {
    let robots = Robots::parse(b"User-agent: *\nDisallow:\n");
    let verdict = robots.check(&["x"], b"/anything");
    assert!(verdict.allowed());
    assert!(verdict.rule().is_none());
}

/// RFC 9309 section 2.4: a BOM is skipped (whole or in part).
#[test]
fn google_bom_before_rules() {
    assert!(!allowed("\u{FEFF}User-agent: *\nDisallow: /\n", "x", "/a"));
    let mut body = b"\xEF\xBBUser-agent: *\nDisallow: /\n".to_vec();
    assert!(!Robots::parse(&body).check(&["x"], b"/a").allowed());
    body.insert(0, b'x');
    assert!(Robots::parse(&body).check(&["x"], b"/a").allowed());
}

#[test]
fn extensions_are_kept_per_group() {
    let r = Robots::parse(
        b"Sitemap: https://e.example/s.xml\nCrawl-delay: 99\nUser-agent: slow\nCrawl-delay: 10\n\
          Request-rate: 1/20s\nDisallow: /x\nUser-agent: *\nCrawl-delay: bogus\nNoindex: /old/\n",
    );
    let slow = r.group(&["slow"]);
    let delay = slow.crawl_delay().unwrap();
    assert_eq!(delay.seconds(), 20.0);
    assert_eq!(delay.rule(), "Request-rate: 1/20s");
    assert_eq!(delay.line(), 5);
    assert!(r.group(&["other"]).crawl_delay().is_none());
    assert_eq!(r.sitemaps(), &[(1, "https://e.example/s.xml".to_string())]);
    assert_eq!(
        r.noindex_lines(),
        &[NoindexLine {
            line: 9,
            value: "/old/".into()
        }]
    );
    assert_eq!(r.stats().rules_outside_groups, 1);
}

#[test]
fn group_lists_its_agents_and_rules() {
    let r = Robots::parse(b"User-agent: a\nUser-agent: *\nDisallow: /x\nAllow: /x/y\n");
    let g = r.group(&["a"]);
    let agents: Vec<&str> = g.agent_lines().map(AgentLine::value).collect();
    assert_eq!(agents, ["a", "*"]);
    let rules: Vec<String> = g.rules().map(|r| r.to_string()).collect();
    assert_eq!(rules, ["4: Allow: /x/y", "3: Disallow: /x"]);
}

#[test]
fn invalid_utf8_never_panics() {
    let r = Robots::parse(b"User-agent: \xff\xfe\nDisallow: /\xc3\n");
    assert!(!r.check(&[""], b"/%C3").allowed());
}

/// A block of many rules is indexed by its patterns (`RuleIndex`): the
/// verdict, rule and line must be those of the whole scan, for every path.
mod indexed_blocks {
    use super::super::*;
    use proptest::prelude::*;

    fn unindexed(robots: &Robots) -> Robots {
        let mut plain = robots.clone();
        for block in &mut plain.blocks {
            Arc::make_mut(block).index = None;
        }
        plain
    }

    fn pattern() -> impl Strategy<Value = String> {
        // Few letters, so that many patterns share a second byte; `*`, `$`
        // and an empty or one-byte pattern among them.
        proptest::string::string_regex("/?[abc*$]{0,6}\\$?").unwrap()
    }

    /// Forty rules under one directory (one second byte), an `Allow` and
    /// a `Disallow` of one literal, an exact pattern that outranks a
    /// prefix, a glob that outranks both, and an empty rule.
    #[test]
    fn many_rules_under_one_directory_decide_as_the_whole_scan() {
        let mut text = String::from("User-agent: *\nDisallow:\n");
        for n in 0..40 {
            text.push_str(&format!("Disallow: /docs/{n}/\n"));
        }
        text.push_str(
            "Allow: /docs/7/\nDisallow: /docs/7/x$\nAllow: /docs/7/x\nDisallow: /docs/*.pdf\nAllow: /docs/1\n",
        );
        let robots = Robots::parse(text.as_bytes());
        assert!(robots.blocks.iter().any(|b| b.index.is_some()));
        let plain = unindexed(&robots);
        for (path, allowed, line) in [
            // One literal allowed and disallowed: `Allow` wins.
            ("/docs/7/page", true, Some(43)),
            // The exact pattern (10 bytes with its `$`) outranks the prefix.
            ("/docs/7/x", false, Some(44)),
            ("/docs/7/xy", true, Some(45)),
            // The glob outranks the directory's prefix and `/docs/1`.
            ("/docs/12/a.pdf", false, Some(46)),
            ("/docs/12/a", false, Some(15)),
            ("/docs/1x", true, Some(47)),
            ("/docs/39/z", false, Some(42)),
            ("/docs/4", true, None),
            ("/docs/", true, None),
            ("/other", true, None),
            ("/", true, None),
        ] {
            for r in [&robots, &plain] {
                let verdict = r.check(&["bot"], path.as_bytes());
                assert_eq!(
                    (verdict.allowed(), verdict.rule().map(|r| r.line())),
                    (allowed, line),
                    "{path}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn same_verdicts_as_the_whole_scan(
            rules in proptest::collection::vec((any::<bool>(), pattern()), 16..60),
            paths in proptest::collection::vec("/[abc/?=$]{0,8}", 1..40),
        ) {
            let mut text = String::from("User-agent: *\n");
            for (allow, p) in &rules {
                text.push_str(if *allow { "Allow: " } else { "Disallow: " });
                text.push_str(p);
                text.push('\n');
            }
            let robots = Robots::parse(text.as_bytes());
            prop_assert!(robots.blocks.iter().any(|b| b.index.is_some()));
            let plain = unindexed(&robots);
            for path in &paths {
                let a = robots.check(&["bot"], path.as_bytes());
                let b = plain.check(&["bot"], path.as_bytes());
                prop_assert_eq!(a.allowed(), b.allowed());
                prop_assert_eq!(a.rule().map(|r| r.line()), b.rule().map(|r| r.line()));
            }
        }
    }
}

#[test]
fn a_token_with_digits_selects_the_group_written_for_it() {
    let robots = Robots::parse(
        b"User-agent: MJ12bot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n\nUser-agent: mj12bot/1.4\nDisallow: /old/\n",
    );
    // Google's parser reads both values as `MJ`: the token never matches.
    let google = robots.group(&["MJ12bot"]);
    assert_eq!(google.selection(), &Selection::Global);
    assert!(!google.check(b"/public").allowed());
    // As written, both groups are Majestic's, merged.
    let written = robots.group_for(&["MJ12bot"], true);
    assert_eq!(written.selection(), &Selection::Specific("MJ12bot".into()));
    assert!(written.check(b"/public").allowed());
    assert!(!written.check(b"/private/x").allowed());
    assert!(!written.check(b"/old/x").allowed());
    // A crawler that Google calls `MJ` still finds them, as Google does.
    assert!(
        !robots
            .group_for(&["MJ"], true)
            .check(b"/private/x")
            .allowed()
    );
    assert_eq!(
        robots.agents_read_differently(),
        [(1, "MJ12bot", "MJ"), (7, "mj12bot/1.4", "mj")]
    );
    // Letters and hyphens read the same both ways: no warning, no change.
    let g =
        Robots::parse(b"User-agent: Googlebot/2.1\nUser-agent: Googlebot-News2\nDisallow: /n/\n");
    assert!(
        g.agents_read_differently()
            .iter()
            .all(|a| a.1 == "Googlebot-News2")
    );
    assert!(
        !g.group_for(&["Googlebot-News"], true)
            .check(b"/n/")
            .allowed()
    );
    assert!(!g.group(&["Googlebot-News"]).check(b"/n/").allowed());
}

#[test]
fn a_rules_line_names_its_group() {
    let r = Robots::parse(
        b"User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nCrawl-delay: 5\nDisallow: /x\n",
    );
    assert_eq!(r.agents_of_line(3), Some(vec!["GPTBot", "CCBot"]));
    assert_eq!(r.agents_of_line(6), Some(vec!["*"]), "a Crawl-delay line");
    assert_eq!(r.agents_of_line(7), Some(vec!["*"]));
    assert_eq!(r.agents_of_line(1), None, "a User-agent line is no rule");
    assert_eq!(r.agents_of_line(99), None);
}

#[test]
fn files_read_with_one_pattern_set_share_their_equal_patterns() {
    let mut patterns = Patterns::default();
    let first = b"User-agent: *\nDisallow: /private/\n";
    let second = b"User-agent: x\nAllow: /x\nDisallow: /private/\n";
    let a = Robots::parse_with(first, &mut patterns);
    let b = Robots::parse_with(second, &mut patterns);
    let of = |robots: &Robots| {
        robots.blocks[0]
            .rules
            .iter()
            .find(|r| r.escaped_pattern() == b"/private/")
            .map(|r| r.escaped_pattern().as_ptr())
            .unwrap()
    };
    assert!(std::ptr::eq(of(&a), of(&b)), "one copy of /private/");
    // Read on its own, a file keeps its own copy, and decides alike.
    let alone = Robots::parse(second);
    assert!(!std::ptr::eq(of(&alone), of(&b)));
    for path in [&b"/private/a"[..], b"/x", b"/other"] {
        let (x, y) = (b.check(&["x"], path), alone.check(&["x"], path));
        assert_eq!(x.allowed(), y.allowed());
        assert_eq!(x.rule().map(Rule::line), y.rule().map(Rule::line));
    }
}

/// Blocks written alike in two files (the same lines on the same line
/// numbers) are one block in memory when the files are read with one
/// `Patterns`, and answer alike; a block that differs in a line number,
/// a rule or a delay is a block of its own.
#[test]
fn blocks_written_alike_are_kept_once() {
    let shared = "User-agent: Googlebot\nDisallow: /private/\nAllow: /private/ok\n\n";
    let mut patterns = Patterns::default();
    let a = Robots::parse_with(
        format!("{shared}User-agent: *\nDisallow: /a/\n").as_bytes(),
        &mut patterns,
    );
    let b = Robots::parse_with(
        format!("{shared}User-agent: *\nDisallow: /b/\n").as_bytes(),
        &mut patterns,
    );
    // The same lines one line lower, a delay added, a rule changed.
    let lower = Robots::parse_with(format!("\n{shared}").as_bytes(), &mut patterns);
    let delayed = Robots::parse_with(
        format!("{}Crawl-delay: 5\n", shared.trim_end()).as_bytes(),
        &mut patterns,
    );
    let changed = Robots::parse_with(
        shared.replace("/private/ok", "/private/no").as_bytes(),
        &mut patterns,
    );
    assert!(Arc::ptr_eq(&a.blocks[0], &b.blocks[0]));
    assert!(!Arc::ptr_eq(&a.blocks[1], &b.blocks[1]));
    for other in [&lower, &delayed, &changed] {
        assert!(!Arc::ptr_eq(&a.blocks[0], &other.blocks[0]));
    }
    for path in ["/private/x", "/private/ok", "/a/1", "/b/1"] {
        let (va, vb) = (
            a.check(&["Googlebot"], path.as_bytes()),
            b.check(&["Googlebot"], path.as_bytes()),
        );
        assert_eq!(va.allowed(), vb.allowed(), "{path}");
        assert_eq!(
            va.rule().map(|r| (r.line(), r.directive())),
            vb.rule().map(|r| (r.line(), r.directive())),
            "{path}"
        );
    }
    assert!(!a.check(&["bot"], b"/a/1").allowed());
    assert!(b.check(&["bot"], b"/a/1").allowed());
    assert_eq!(
        lower
            .check(&["Googlebot"], b"/private/x")
            .rule()
            .map(|r| r.line()),
        Some(3)
    );
}

/// A block of many rules is indexed once, when it is first met: the copy
/// later files share has its index, a block of few rules none, and the
/// shared block decides every path as the file read on its own does.
#[test]
fn shared_blocks_of_many_rules_keep_their_index() {
    let many: String = (0..INDEXED_RULES + 5)
        .map(|i| format!("Disallow: /archive/{i}/\n"))
        .collect();
    let body = format!(
        "User-agent: Googlebot\nAllow: /archive/3/ok\n{many}\nUser-agent: *\nDisallow: /few/\n"
    );
    let mut patterns = Patterns::default();
    let first = Robots::parse_with(body.as_bytes(), &mut patterns);
    let second = Robots::parse_with(body.as_bytes(), &mut patterns);
    let alone = Robots::parse(body.as_bytes());
    assert!(Arc::ptr_eq(&first.blocks[0], &second.blocks[0]));
    for robots in [&first, &second, &alone] {
        assert!(robots.blocks[0].index.is_some(), "many rules: indexed");
        assert!(robots.blocks[1].index.is_none(), "few rules: not");
    }
    for path in [
        "/archive/3/ok",
        "/archive/3/no",
        "/archive/20/x",
        "/few/1",
        "/other",
    ] {
        for agent in ["Googlebot", "other"] {
            let (s, a) = (
                second.check(&[agent], path.as_bytes()),
                alone.check(&[agent], path.as_bytes()),
            );
            assert_eq!(
                (s.allowed(), s.rule().map(Rule::line)),
                (a.allowed(), a.rule().map(Rule::line)),
                "{agent} {path}"
            );
        }
    }
}

/// Everything a file's reading holds, compared: its blocks by what they
/// are made of, the agents' lists, sitemaps, `Noindex` lines and counts.
fn read_alike(a: &Robots, b: &Robots) -> bool {
    a.blocks.len() == b.blocks.len()
        && a.blocks
            .iter()
            .zip(&b.blocks)
            .all(|(x, y)| x.same_content(y) && x.index.is_some() == y.index.is_some())
        && a.by_agent == b.by_agent
        && a.by_written == b.by_written
        && a.global == b.global
        && a.sitemaps == b.sitemaps
        && a.noindex == b.noindex
        && a.stats == b.stats
}

/// A block met in two files is, from the third on, found by its text and
/// not compiled again; the block found is the one the file read on its
/// own makes. Text alike on other line numbers, or whose first value is
/// cut at another length (a line longer than the reference keeps, its
/// key written with more spaces), is compiled as its own.
#[test]
fn blocks_met_again_are_found_by_their_text() {
    let shared = "User-agent: Googlebot\nDisallow: /private/\nCrawl-delay: 3\nSitemap: https://a.example/s.xml\nAllow: /private/ok\n";
    let mut patterns = Patterns::default();
    let files: Vec<Robots> = (0..4)
        .map(|i| {
            Robots::parse_with(
                format!("{shared}\nUser-agent: *\nDisallow: /host-{i}/\n").as_bytes(),
                &mut patterns,
            )
        })
        .collect();
    for (i, file) in files.iter().enumerate() {
        assert!(Arc::ptr_eq(&files[0].blocks[0], &file.blocks[0]), "{i}");
        let alone =
            Robots::parse(format!("{shared}\nUser-agent: *\nDisallow: /host-{i}/\n").as_bytes());
        assert!(read_alike(file, &alone), "{i}");
    }
    // Found by its text (from its first value on): the third file's block
    // is not built again.
    let text = shared.trim_end().strip_prefix("User-agent: ").unwrap();
    assert!(
        patterns
            .block_written((1, "Googlebot".len()), text.as_bytes())
            .is_some_and(|b| Arc::ptr_eq(&b, &files[0].blocks[0]))
    );
    // One line lower: not the same lines.
    let lower = Robots::parse_with(format!("\n{shared}").as_bytes(), &mut patterns);
    assert!(!Arc::ptr_eq(&files[0].blocks[0], &lower.blocks[0]));
    assert!(read_alike(
        &lower,
        &Robots::parse(format!("\n{shared}").as_bytes())
    ));

    // A first line longer than the reference keeps: the same bytes from the
    // value on, but the key written with one more space cuts the value one
    // byte earlier.
    let long = "x".repeat(parse::MAX_LINE_BYTES + 10);
    let body = |key: &str| format!("{key}{long}\nDisallow: /p/\n");
    let mut patterns = Patterns::default();
    let one = body("User-agent: ");
    let two = body("User-agent:  ");
    for text in [&one, &one, &one, &two, &two] {
        let read = Robots::parse_with(text.as_bytes(), &mut patterns);
        assert!(read_alike(&read, &Robots::parse(text.as_bytes())));
    }
}

mod blocks_found_by_text {
    use super::super::*;
    use super::read_alike;
    use proptest::prelude::*;

    /// A line of a small alphabet of keys, values and line ends, so that
    /// files share blocks, or nearly.
    fn line() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("User-agent:"),
            Just("user-agent :"),
            Just("Disallow:"),
            Just("Allow:"),
            Just("Crawl-delay:"),
            Just("Sitemap:"),
            Just("Noindex:"),
            Just("# comment"),
            Just(""),
        ];
        let value = prop_oneof![
            Just("*"),
            Just("bot"),
            Just("Bot/1.0"),
            Just("/a"),
            Just("/a/index.html"),
            Just("/b*c$"),
            Just("/%7e"),
            Just("2"),
            Just(" "),
            Just(""),
        ];
        let end = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
        (key, value, end).prop_map(|(k, v, e)| format!("{k} {v}{e}"))
    }

    fn file() -> impl Strategy<Value = String> {
        proptest::collection::vec(line(), 0..12).prop_map(|lines| lines.concat())
    }

    proptest! {
        /// Files read one after another with one `Patterns` (some blocks
        /// then found by their text) read as each file read on its own.
        #[test]
        fn files_read_together_read_as_alone(files in proptest::collection::vec(file(), 1..8)) {
            let mut patterns = Patterns::default();
            for _ in 0..2 {
                for text in &files {
                    let together = Robots::parse_with(text.as_bytes(), &mut patterns);
                    prop_assert!(read_alike(&together, &Robots::parse(text.as_bytes())), "{:?}", text);
                }
            }
        }
    }
}

/// A file says whether any group asks for a crawl delay: a `Crawl-delay`
/// or `Request-rate` line in a group, not one outside every group.
#[test]
fn files_say_whether_a_group_asks_for_a_delay() {
    for (body, delays) in [
        ("User-agent: *\nDisallow: /a\n", false),
        ("Crawl-delay: 5\nUser-agent: *\nDisallow: /a\n", false),
        (
            "User-agent: a\nDisallow: /a\n\nUser-agent: b\nCrawl-delay: 5\n",
            true,
        ),
        ("User-agent: *\nRequest-rate: 1/10\n", true),
        ("", false),
    ] {
        let robots = Robots::parse(body.as_bytes());
        assert_eq!(robots.has_crawl_delays(), delays, "{body:?}");
        // As every group's own delay says.
        let any = ["a", "b", "c"]
            .iter()
            .any(|t| robots.group(&[t]).crawl_delay().is_some());
        assert_eq!(any, delays, "{body:?}");
    }
}
