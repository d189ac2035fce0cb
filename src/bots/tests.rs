//! Catalogue tests: real User-Agents (the most frequent ones of public access
//! logs, written out here), verification, `--bots` files and their errors.

use std::net::IpAddr;
use std::sync::LazyLock;

use super::*;

static BUILTIN: LazyLock<Catalogue> = LazyLock::new(Catalogue::builtin);

fn ident(ua: &str) -> Option<(String, Category, String)> {
    BUILTIN.identify(ua.as_bytes()).map(|c| {
        (
            c.name().to_string(),
            c.category(),
            c.tokens().first().cloned().unwrap_or_default(),
        )
    })
}

/// (User-Agent, name, category, first robots token); name "" = a human.
const REAL: &[(&str, &str, Category, &str)] = &[
    (
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Googlebot",
        Category::Search,
        "Googlebot",
    ),
    (
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/134.0.6998.165 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Googlebot",
        Category::Search,
        "Googlebot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/85.0.4183.140 Safari/537.36",
        "Googlebot",
        Category::Search,
        "Googlebot",
    ),
    (
        "Googlebot-Image/1.0",
        "Googlebot-Image",
        Category::Search,
        "Googlebot-Image",
    ),
    (
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "bingbot",
        Category::Search,
        "bingbot",
    ),
    (
        "msnbot/2.0b (+http://search.msn.com/msnbot.htm)",
        "msnbot",
        Category::Search,
        "msnbot",
    ),
    (
        "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
        "YandexBot",
        Category::Search,
        "YandexBot",
    ),
    (
        "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
        "Baiduspider",
        Category::Search,
        "Baiduspider",
    ),
    (
        "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
        "Slurp",
        Category::Search,
        "Slurp",
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
        "Applebot",
        Category::Search,
        "Applebot",
    ),
    (
        "Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)",
        "SeznamBot",
        Category::Search,
        "SeznamBot",
    ),
    (
        "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
        "PetalBot",
        Category::Search,
        "PetalBot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        "GPTBot",
        Category::AiCrawler,
        "GPTBot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
        "ClaudeBot",
        Category::AiCrawler,
        "ClaudeBot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36",
        "Amazonbot",
        Category::AiCrawler,
        "Amazonbot",
    ),
    (
        "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
        "Bytespider",
        Category::AiCrawler,
        "Bytespider",
    ),
    (
        "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
        "meta-externalagent",
        Category::AiCrawler,
        "meta-externalagent",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
        "ChatGPT-User",
        Category::AiAssistant,
        "ChatGPT-User",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)",
        "OAI-SearchBot",
        Category::AiAssistant,
        "OAI-SearchBot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
        "PerplexityBot",
        Category::AiAssistant,
        "PerplexityBot",
    ),
    (
        "CCBot/2.0 (https://commoncrawl.org/faq/)",
        "CCBot",
        Category::AiCrawler,
        "CCBot",
    ),
    (
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
        "AhrefsBot",
        Category::Seo,
        "AhrefsBot",
    ),
    (
        "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
        "SemrushBot",
        Category::Seo,
        "SemrushBot",
    ),
    (
        "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)",
        "MJ12bot",
        Category::Seo,
        "MJ12bot",
    ),
    (
        "Mozilla/5.0 (compatible; DotBot/1.1; http://www.opensiteexplorer.org/dotbot, help@moz.com)",
        "DotBot",
        Category::Seo,
        "DotBot",
    ),
    (
        "Mozilla/5.0 (compatible; linkdexbot/2.0; +http://www.linkdex.com/bots/)",
        "linkdexbot",
        Category::Seo,
        "linkdexbot",
    ),
    (
        "Mozilla/5.0 (compatible; Barkrowler/0.9; +https://babbar.tech/crawler)",
        "Barkrowler",
        Category::Seo,
        "Barkrowler",
    ),
    (
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "facebookexternalhit",
        Category::Social,
        "facebookexternalhit",
    ),
    (
        "Twitterbot/1.0",
        "Twitterbot",
        Category::Social,
        "Twitterbot",
    ),
    (
        "Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
        "UptimeRobot",
        Category::Monitor,
        "UptimeRobot",
    ),
    (
        "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)",
        "Pingdom",
        Category::Monitor,
        "Pingdom",
    ),
    (
        "FreeWebMonitoring SiteChecker/0.2 (+http://www.freewebmonitoring.com/bot.html)",
        "FreeWebMonitoring SiteChecker",
        Category::Monitor,
        "FreeWebMonitoring",
    ),
    (
        "Mozilla/5.0 (compatible; CensysInspect/1.1; +https://about.censys.io/)",
        "CensysInspect",
        Category::Scanner,
        "CensysInspect",
    ),
    ("Mozilla/5.0 zgrab/0.x", "zgrab", Category::Scanner, "zgrab"),
    (
        "masscan/1.0 (https://github.com/robertdavidgraham/masscan)",
        "masscan",
        Category::Scanner,
        "masscan",
    ),
    (
        "Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)",
        "Nmap",
        Category::Scanner,
        "Nmap",
    ),
    (
        "Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 5.1; SV1; .NET CLR 2.0.50727) Havij",
        "Havij",
        Category::Scanner,
        "Havij",
    ),
    (
        "python-requests/2.26.0",
        "python-requests",
        Category::Library,
        "python-requests",
    ),
    (
        "Go-http-client/1.1",
        "Go-http-client",
        Category::Library,
        "Go-http-client",
    ),
    ("Wget(linux)", "Wget", Category::Library, "Wget"),
    ("curl/7.68.0", "curl", Category::Library, "curl"),
    (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/85.0.4182.0 Safari/537.36",
        "HeadlessChrome",
        Category::Automation,
        "HeadlessChrome",
    ),
    (
        "Apache/2.4.29 (Ubuntu) OpenSSL/1.1.1 (internal dummy connection)",
        "Apache (internal dummy connection)",
        Category::SelfTraffic,
        "Apache",
    ),
    ("-", "(no user agent)", Category::Other, ""),
    ("", "(no user agent)", Category::Other, ""),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        "",
        Category::Other,
        "",
    ),
    (
        "Mozilla/5.0 (X11; Ubuntu; Linux i686; rv:47.0) Gecko/20100101 Firefox/47.0",
        "",
        Category::Other,
        "",
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 9_0 like Mac OS X) AppleWebKit/601.1.46 (KHTML, like Gecko) Version/9.0 Mobile/13A344 Safari/601.1",
        "",
        Category::Other,
        "",
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
        "",
        Category::Other,
        "",
    ),
    (
        "Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko",
        "",
        Category::Other,
        "",
    ),
];

#[test]
fn real_user_agents() {
    for (ua, name, category, token) in REAL {
        let got = ident(ua);
        if name.is_empty() {
            assert_eq!(got, None, "{ua}");
        } else {
            assert_eq!(
                got,
                Some((name.to_string(), *category, token.to_string())),
                "{ua}"
            );
        }
    }
}

#[test]
fn unknown_bot_is_named_by_its_token() {
    let got = ident("Mozilla/5.0 (compatible; Zorkbot/0.3; +https://zork.example/bot)").unwrap();
    assert_eq!(
        got,
        (
            "Zorkbot".to_string(),
            Category::Other,
            "Zorkbot".to_string()
        )
    );
    let c = BUILTIN.identify(b"Zorkbot/0.3").unwrap();
    assert_eq!(c.origin(), Origin::Heuristic);
    assert_eq!(c.meta_names(), ["zorkbot"]);
}

/// The dataset's patterns are kept by a parse (their regexes compiled on
/// first use): the parse keeps exactly the patterns the compiler accepts,
/// and each kept regex is the set's pattern of the same number.
#[test]
fn dataset_patterns_kept_are_those_that_compile() {
    let dataset: DatasetFile = serde_json::from_str(BUILTIN_DATASET).unwrap();
    let mut refused = 0;
    for p in &dataset.patterns {
        let compiled = build_regex(&p.pattern, false).is_ok();
        assert_eq!(compiles(&p.pattern), compiled, "{}", p.pattern);
        refused += usize::from(!compiled);
    }
    // What the compiler refuses, the parse refuses: look-around (which a
    // dataset release may bring), and what is no regex; a byte class a
    // `bytes::Regex` accepts, it accepts.
    for (pattern, ok) in [
        ("(?=bot)b", false),
        ("(?<!x)bot", false),
        ("bot[", false),
        (r"(?-u:\xFF)bot", true),
    ] {
        assert_eq!(build_regex(pattern, false).is_ok(), ok, "{pattern}");
        assert_eq!(compiles(pattern), ok, "{pattern}");
    }
    let cat = &*BUILTIN;
    assert_eq!(cat.dataset.len(), dataset.patterns.len() - refused);
    assert_eq!(cat.dataset.len(), cat.dataset_set.len());
    for (i, p) in cat.dataset.iter().enumerate() {
        assert_eq!(cat.dataset_set.patterns()[i], p.pattern);
        assert_eq!(p.regex().as_str(), p.pattern);
    }
    // Unlike the compiler, the parse refuses no pattern for its size.
    assert!(compiles(&"a".repeat(1 << 20)));
}

#[test]
fn builtin_catalogue_is_complete() {
    let cat = &*BUILTIN;
    assert_eq!(cat.dataset_version(), "1.67.0");
    // Patterns the regex crate cannot compile (look-around) are skipped.
    assert!(
        cat.dataset.len() >= 1490,
        "{} dataset patterns compiled",
        cat.dataset.len()
    );
    for name in [
        "Googlebot",
        "Googlebot-Image",
        "Googlebot-Video",
        "Googlebot-News",
        "Storebot-Google",
        "Google-InspectionTool",
        "AdsBot-Google",
        "Google-Extended",
        "bingbot",
        "msnbot",
        "DuckDuckBot",
        "DuckAssistBot",
        "YandexBot",
        "Baiduspider",
        "Applebot",
        "Applebot-Extended",
        "GPTBot",
        "OAI-SearchBot",
        "ChatGPT-User",
        "ClaudeBot",
        "Claude-SearchBot",
        "Claude-User",
        "PerplexityBot",
        "Perplexity-User",
        "CCBot",
        "Bytespider",
        "meta-externalagent",
        "facebookexternalhit",
        "Amazonbot",
        "AhrefsBot",
        "SemrushBot",
        "MJ12bot",
        "DotBot",
        "PetalBot",
        "SeznamBot",
        "Yeti",
        "Twitterbot",
        "LinkedInBot",
        "Slurp",
        "Sogou",
        "UptimeRobot",
    ] {
        assert!(cat.by_name(name).is_some(), "{name} is in the catalogue");
    }
    let ads = cat.by_name("AdsBot-Google").unwrap();
    assert!(!ads.obeys_global());
    assert_eq!(
        cat.by_name("googlebot-news").unwrap().meta_names(),
        ["googlebot-news", "googlebot"]
    );
    assert_eq!(
        cat.by_name("Google-Extended").unwrap().tokens(),
        ["Google-Extended"]
    );
    assert_eq!(cat.engine("duckduckgo").unwrap().index(), "bing");
    assert_eq!(cat.engine("google").unwrap().index(), "google");
    assert_eq!(
        cat.engine("chatgpt").unwrap().landing_markers(),
        ["utm_source=chatgpt.com"]
    );
}

fn google_ranges() -> IpRanges {
    let mut ranges = IpRanges::default();
    ranges.insert(
        "googlebot.json",
        RangeSet::from_prefixes([parse_prefix("66.249.64.0/19").unwrap()]),
    );
    ranges
}

#[test]
fn verification_against_published_ranges() {
    let cat = &*BUILTIN;
    let googlebot = cat
        .identify(b"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
        .unwrap();
    let ranges = google_ranges();
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    assert_eq!(
        cat.verify(&googlebot, &ranges, ip("66.249.66.1")),
        Some(true)
    );
    assert_eq!(
        cat.verify(&googlebot, &ranges, ip("203.0.113.9")),
        Some(false),
        "spoofed Googlebot"
    );
    // No range file for bingbot: unknown, never false.
    let bingbot = cat
        .identify(b"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)")
        .unwrap();
    assert_eq!(cat.verify(&bingbot, &ranges, ip("203.0.113.9")), None);
    // Crawlers without published ranges are never verified.
    let ahrefs = cat
        .identify(b"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)")
        .unwrap();
    assert_eq!(cat.verify(&ahrefs, &ranges, ip("66.249.66.1")), None);
}

#[test]
fn identifier_caches_and_interns() {
    let mut id = Identifier::new(&BUILTIN);
    let a = id.identify(b"Zorkbot/0.3").unwrap();
    let b = id.identify(b"Zorkbot/0.4").unwrap();
    assert!(Arc::ptr_eq(&a, &b), "one unknown bot, one identity");
    let again = id.identify(b"Zorkbot/0.3").unwrap();
    assert!(Arc::ptr_eq(&a, &again));
    assert!(id.identify(b"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36").is_none());
    assert_eq!(id.distinct(), 3);
}

#[test]
fn bots_file_overrides_and_adds() {
    let cat = Catalogue::from_toml(
        r#"
[[crawler]]
name = "InternalBot"
operator = "Us"
category = "monitor"
pattern = 'InternalBot/\d'
tokens = ["InternalBot"]

[[crawler]]
name = "googlebot"
category = "search"
pattern = 'Googlebot'
tokens = ["Googlebot"]
meta_names = ["GoogleBot"]
engine = "google"
ip_ranges = ["my-google.txt"]

[[engine]]
id = "intranet"
name = "Intranet search"
kind = "search"
referrer_hosts = ['^search\.intranet\.example$']
"#,
        "test.toml",
    )
    .unwrap();
    let c = cat.identify(b"InternalBot/2 (checks)").unwrap();
    assert_eq!(
        (c.name(), c.category(), c.origin()),
        ("InternalBot", Category::Monitor, Origin::User)
    );
    let g = cat.identify(b"Googlebot/2.1").unwrap();
    assert_eq!(g.ip_range_files(), ["my-google.txt"]);
    assert_eq!(g.meta_names(), ["googlebot"]);
    assert_eq!(cat.engine("intranet").unwrap().index(), "intranet");
    // The replaced entry keeps its place: Googlebot-Image still wins first.
    assert_eq!(
        cat.identify(b"Googlebot-Image/1.0").unwrap().name(),
        "Googlebot-Image"
    );
}

#[test]
fn bots_file_errors_are_clear() {
    let err = |text: &str| {
        Catalogue::from_toml(text, "bots.toml")
            .unwrap_err()
            .to_string()
    };
    let e = err("[[crawler]]\nname = \"X\"\ncategory = \"seo\"\npatern = 'x'\n");
    assert!(
        e.contains("bots.toml") && e.contains("unknown field `patern`") && e.contains("line 4"),
        "{e}"
    );
    let e = err("[[crawler]]\nname = \"X\"\ncategory = \"seo\"\npattern = 'ab(c'\n");
    assert!(
        e.contains("crawler \"X\": invalid pattern") && e.contains("ab(c") && e.contains('^'),
        "{e}"
    );
    let e = err("[[crawler]]\nname = \"X\"\ncategory = \"spam\"\n");
    assert!(
        e.contains("unknown variant `spam`") && e.contains("line 3"),
        "{e}"
    );
    let e = err("[[crawler]]\nname = \"X\"\ncategory = \"seo\"\nengine = \"altavista\"\n");
    assert!(
        e.contains("engine \"altavista\" is not an engine") && e.contains("google"),
        "{e}"
    );
    let e =
        err("[[engine]]\nid = \"e\"\nname = \"E\"\nkind = \"search\"\nreferrer_hosts = ['(']\n");
    assert!(
        e.contains("engine \"e\": invalid referrer host pattern"),
        "{e}"
    );
    let e = err("not toml [");
    assert_eq!(
        e,
        "crawler catalogue bots.toml, line 1, column 5: key with no value, expected `=`"
    );
    let missing = Catalogue::load(Path::new("/nonexistent/bots.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("cannot read crawler catalogue /nonexistent/bots.toml"),
        "{missing}"
    );
}

#[test]
fn payloads_pasted_headers_and_quotes_are_read_past() {
    let cat = Catalogue::builtin();
    let name = |ua: &str| cat.identify(ua.as_bytes()).map(|c| c.name().to_string());
    let payload = Some(heuristic::PAYLOAD.to_string());
    // A payload that quotes a crawler's name is still a payload.
    assert_eq!(name("() { :; }; echo Googlebot; /bin/sh -c id"), payload);
    assert_eq!(name("1\""), payload);
    assert_eq!(name("User-Agent: SEOlyt/1.0").as_deref(), Some("SEOlyt"));
    assert_eq!(
        name("user-agent:Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
            .as_deref(),
        Some("Googlebot")
    );
    // No browser pastes its header name or quotes its value.
    assert_eq!(
        name(
            "User-Agent: Mozilla/5.0 (Windows NT 6.1; WOW64; rv:14.0) Gecko/20100101 Firefox/14.0.1"
        )
        .as_deref(),
        Some(heuristic::IMITATION)
    );
    assert_eq!(
        name("\"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36\"")
            .as_deref(),
        Some(heuristic::IMITATION)
    );
    assert_eq!(name("User-Agent:").as_deref(), Some("(no user agent)"));
}

#[test]
fn the_sites_own_traffic_is_its_own_category() {
    let cat = Catalogue::builtin();
    for ua in [
        "Apache/2.4.12 (Ubuntu) (internal dummy connection)",
        "ELB-HealthChecker/2.0",
        "GoogleHC/1.0",
        "kube-probe/1.29",
    ] {
        let c = cat.identify(ua.as_bytes()).unwrap();
        assert_eq!(c.category(), Category::SelfTraffic, "{ua}");
        assert_eq!(c.category().as_str(), "self");
    }
}

/// The built-in catalogue's patterns are not compiled one by one at run
/// time (only a `--bots` file's are): each must compile on its own, as a
/// `--bots` file's pattern must.
#[test]
fn every_builtin_pattern_compiles_on_its_own() {
    let builtin = parse_catalog(BUILTIN_CATALOG, "(built-in)").unwrap();
    let mut patterns = 0;
    for def in &builtin.crawler {
        if let Some(pattern) = &def.pattern {
            patterns += 1;
            assert!(
                build_regex(pattern, true).is_ok(),
                "{}: {pattern:?}",
                def.name
            );
        }
    }
    assert!(patterns > 100, "{patterns} patterns");
}
