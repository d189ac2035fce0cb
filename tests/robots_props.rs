//! Property tests for the robots.txt evaluator.
//!
//! The oracle is a deliberately naive port of the reference matcher's
//! line-by-line state machine (google/robotstxt `RobotsMatcher`), with its
//! quadratic position-set pattern matcher. crawlaudit's evaluator is built
//! differently (groups parsed once, rules sorted, segment search), so
//! agreement here is evidence, not tautology.

use crawlaudit::robots::{Robots, RuleKind};
use proptest::prelude::*;

/// The reference's `Matches`: the set of path positions that the pattern
/// prefix can reach, advanced one pattern byte at a time.
fn naive_matches(path: &[u8], pattern: &[u8]) -> bool {
    let mut pos: Vec<usize> = vec![0];
    for (i, &c) in pattern.iter().enumerate() {
        if c == b'$' && i + 1 == pattern.len() {
            return pos.last() == Some(&path.len());
        }
        if c == b'*' {
            pos = (pos[0]..=path.len()).collect();
        } else {
            pos = pos
                .iter()
                .filter(|&&p| p < path.len() && path[p] == c)
                .map(|p| p + 1)
                .collect();
            if pos.is_empty() {
                return false;
            }
        }
    }
    true
}

fn naive_escape(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < value.len() {
        let hex = |j: usize| value.get(j).is_some_and(u8::is_ascii_hexdigit);
        if value[i] == b'%' && hex(i + 1) && hex(i + 2) {
            out.push(b'%');
            out.push(value[i + 1].to_ascii_uppercase());
            out.push(value[i + 2].to_ascii_uppercase());
            i += 3;
        } else if value[i] >= 0x80 {
            out.extend_from_slice(format!("%{:02X}", value[i]).as_bytes());
            i += 1;
        } else {
            out.push(value[i]);
            i += 1;
        }
    }
    out
}

#[derive(Clone, Debug)]
enum Line {
    Agent(&'static str),
    Allow(String),
    Disallow(String),
    Other,
}

#[derive(Default)]
struct Best {
    priority: i64,
    line: u32,
}

/// The reference matcher, one line at a time. Returns (allowed, matching line).
fn naive_decide(lines: &[Line], token: &str, path: &[u8]) -> (bool, u32) {
    let (mut seen_global, mut seen_specific, mut ever_specific, mut separator) =
        (false, false, false, false);
    let none = || Best {
        priority: -1,
        line: 0,
    };
    let (mut allow_s, mut allow_g, mut dis_s, mut dis_g) = (none(), none(), none(), none());
    for (n, line) in lines.iter().enumerate() {
        let number = n as u32 + 1;
        let (kind, pattern) = match line {
            Line::Agent(agent) => {
                if separator {
                    seen_global = false;
                    seen_specific = false;
                    separator = false;
                }
                let a = agent.as_bytes();
                if a.first() == Some(&b'*') && (a.len() == 1 || a[1] == b' ') {
                    seen_global = true;
                } else {
                    let end = a
                        .iter()
                        .position(|b| !(b.is_ascii_alphabetic() || *b == b'-' || *b == b'_'));
                    if a[..end.unwrap_or(a.len())].eq_ignore_ascii_case(token.as_bytes()) {
                        seen_specific = true;
                        ever_specific = true;
                    }
                }
                continue;
            }
            Line::Other => continue,
            Line::Allow(p) => (RuleKind::Allow, p),
            Line::Disallow(p) => (RuleKind::Disallow, p),
        };
        if !(seen_global || seen_specific) {
            continue;
        }
        separator = true;
        let escaped = naive_escape(pattern.as_bytes());
        let mut candidates = vec![escaped.clone()];
        if kind == RuleKind::Allow && !naive_matches(path, &escaped) {
            if let Some(slash) = escaped.iter().rposition(|&b| b == b'/') {
                if escaped[slash..].starts_with(b"/index.htm") {
                    let mut dir = escaped[..=slash].to_vec();
                    dir.push(b'$');
                    candidates.push(dir);
                }
            }
        }
        for cand in candidates {
            if !naive_matches(path, &cand) {
                continue;
            }
            let priority = cand.len() as i64;
            let slot = match (kind, seen_specific) {
                (RuleKind::Allow, true) => &mut allow_s,
                (RuleKind::Allow, false) => &mut allow_g,
                (RuleKind::Disallow, true) => &mut dis_s,
                (RuleKind::Disallow, false) => &mut dis_g,
            };
            if slot.priority < priority {
                *slot = Best {
                    priority,
                    line: number,
                };
            }
        }
    }
    let pick = |d: &Best, a: &Best| {
        if d.priority > a.priority {
            d.line
        } else {
            a.line
        }
    };
    if allow_s.priority > 0 || dis_s.priority > 0 {
        return (dis_s.priority <= allow_s.priority, pick(&dis_s, &allow_s));
    }
    if ever_specific {
        return (true, pick(&dis_s, &allow_s));
    }
    if allow_g.priority > 0 || dis_g.priority > 0 {
        return (dis_g.priority <= allow_g.priority, pick(&dis_g, &allow_g));
    }
    (true, pick(&dis_g, &allow_g))
}

fn pattern_strategy() -> impl Strategy<Value = String> {
    let atoms = vec![
        "/",
        "/",
        "a",
        "b",
        "*",
        "$",
        "%2f",
        "%aa",
        "ä",
        ".",
        "index.html",
        "?",
    ];
    prop::collection::vec(prop::sample::select(atoms), 0..7).prop_map(|v| v.concat())
}

fn path_strategy() -> impl Strategy<Value = String> {
    let atoms = vec![
        "/",
        "a",
        "b",
        "%2F",
        "%2f",
        "%AA",
        "%C3%A4",
        ".",
        "$",
        "*",
        "index.html",
        "?",
    ];
    prop::collection::vec(prop::sample::select(atoms), 0..8)
        .prop_map(|v| format!("/{}", v.concat()))
}

fn line_strategy() -> impl Strategy<Value = Line> {
    prop_oneof![
        2 => prop::sample::select(vec!["*", "FooBot", "foobot", "BarBot", "Foo Bar", "*x", "* x", "Foo/1"]).prop_map(Line::Agent),
        3 => pattern_strategy().prop_map(Line::Allow),
        3 => pattern_strategy().prop_map(Line::Disallow),
        1 => Just(Line::Other),
    ]
}

fn render(lines: &[Line]) -> String {
    lines
        .iter()
        .map(|l| match l {
            Line::Agent(a) => format!("User-agent: {a}\n"),
            Line::Allow(p) => format!("Allow: {p}\n"),
            Line::Disallow(p) => format!("Disallow: {p}\n"),
            Line::Other => "Crawl-delay: 3\n".to_string(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The evaluator decides as the naive reference state machine does, and
    /// names the same line.
    #[test]
    fn evaluator_agrees_with_naive_reference(
        lines in prop::collection::vec(line_strategy(), 0..14),
        paths in prop::collection::vec(path_strategy(), 1..6),
    ) {
        let robots = Robots::parse(render(&lines).as_bytes());
        for token in ["FooBot", "BarBot", "Foo", "Other"] {
            let group = robots.group(&[token]);
            for path in &paths {
                if path == "/robots.txt" {
                    continue;
                }
                let verdict = group.check(path.as_bytes());
                let (allowed, line) = naive_decide(&lines, token, path.as_bytes());
                prop_assert_eq!(verdict.allowed(), allowed, "token {} path {}", token, path);
                if let Some(rule) = verdict.rule() {
                    prop_assert_eq!(rule.line(), line, "token {} path {}", token, path);
                    prop_assert_eq!(rule.kind() == RuleKind::Allow, allowed);
                }
            }
        }
    }

    /// One pattern against many paths: the segment matcher equals the
    /// position-set matcher, including with many `*`.
    #[test]
    fn pattern_matcher_agrees_with_naive(
        pattern in "[ab/*$]{1,24}",
        path in "/[ab/$*]{0,24}",
    ) {
        let robots = Robots::parse(format!("User-agent: *\nDisallow: {pattern}\n").as_bytes());
        let disallowed = !robots.check(&["x"], path.as_bytes()).allowed();
        prop_assert_eq!(disallowed, naive_matches(path.as_bytes(), pattern.as_bytes()) && path != "/robots.txt");
    }

    /// Arbitrary bytes never panic, and a verdict is consistent with its rule.
    #[test]
    fn arbitrary_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..2000), path in prop::collection::vec(any::<u8>(), 0..64)) {
        let robots = Robots::parse(&body);
        for token in ["a", "FooBot", ""] {
            let verdict = robots.check(&[token], &path);
            if let Some(rule) = verdict.rule() {
                prop_assert_eq!(rule.kind() == RuleKind::Allow, verdict.allowed());
                prop_assert!(rule.line() >= 1 && rule.line() <= robots.stats().lines);
            }
        }
    }

    /// Line numbers survive any mix of line ends: `\n`, `\r\n`, `\r`.
    #[test]
    fn line_numbers_survive_line_end_styles(ends in prop::collection::vec(prop::sample::select(vec!["\n", "\r\n", "\r"]), 4)) {
        // (An empty line ended by "\n" after a "\r" would be a CRLF, so line 3 is a comment.)
        let lines = ["User-agent: *", "Allow: /a", "# c", "Disallow: /"];
        let body: String = lines.iter().zip(&ends).map(|(l, e)| format!("{l}{e}")).collect();
        let robots = Robots::parse(body.as_bytes());
        let verdict = robots.check(&["x"], b"/b");
        prop_assert_eq!(verdict.rule().map(|r| r.line()), Some(4));
    }
}
