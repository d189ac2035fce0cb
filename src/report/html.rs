//! `report.html`: one self-contained page (inline CSS and SVG, no network)
//! with the headline numbers, crawlers ranked by violations, violations over
//! time per crawler, the most violated rules, findings and bad input.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use foldhash::{HashMap, HashMapExt, HashSet};

use polars::prelude::*;

use super::{Report, ReportError};
use crate::replay::{FindingKind, Violations};
use crate::time::{self, format_time};

fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A value in `<code>`, or nothing when empty.
fn code(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("<code>{}</code>", esc(text))
    }
}

fn cell(df: &DataFrame, column: &str, row: usize) -> String {
    match df.column(column).and_then(|c| c.get(row)) {
        Ok(AnyValue::Null) | Err(_) => String::new(),
        Ok(AnyValue::String(s)) => s.to_string(),
        Ok(AnyValue::StringOwned(s)) => s.to_string(),
        Ok(AnyValue::Boolean(b)) => if b { "yes" } else { "no" }.to_string(),
        Ok(AnyValue::Float64(f)) => format!("{:.1}%", f * 100.0),
        // Tables show times to the second, without the `T` and `Z` noise.
        Ok(AnyValue::Datetime(ns, _, _)) => format_time(ns)
            .replace('T', " ")
            .trim_end_matches('Z')
            .to_string(),
        Ok(v) => v.to_string(),
    }
}

const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
main{max-width:1240px;margin:0 auto;padding:24px}
.wide{overflow-x:auto}td.t{white-space:nowrap;font-size:12px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}
.sub{color:#5b6474}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin-top:18px}
.card{background:#fff;border:1px solid #e3e6eb;border-radius:8px;padding:12px 14px}
.card b{display:block;font-size:22px}.card span{color:#5b6474;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #e3e6eb;border-radius:8px;overflow:hidden}
th,td{text-align:left;padding:5px 7px;border-bottom:1px solid #eef0f3;vertical-align:top}
th{background:#f0f2f5;font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:#4a5261}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.bad{color:#b42318;font-weight:600}.ok{color:#067647}.muted{color:#8a93a3}
.warn{background:#fffaeb;border:1px solid #fedf89;border-radius:6px;padding:8px 12px}
.chart{background:#fff;border:1px solid #e3e6eb;border-radius:8px;padding:8px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f0f2f5;padding:1px 4px;border-radius:4px;word-break:break-all}
";

const COLORS: [&str; 8] = [
    "#d92d20", "#1570ef", "#dc6803", "#039855", "#7a5af8", "#e31b54", "#0e9384", "#475467",
];

/// The most rows of the crawlers table the page shows (all are in
/// `crawlers.csv`).
const MAX_CRAWLER_ROWS: usize = 200;

/// The most findings of one kind the page shows (all are in
/// `findings.csv`).
const MAX_FINDING_ROWS: usize = 100;

/// The most buckets the chart draws: violations spread over more days than
/// this are counted in buckets of several days.
const MAX_BUCKETS: i128 = 1000;

/// The `limit` (kind, rule) pairs with the most violations: their
/// violations and how many hosts they were found on; most first, then by
/// kind and rule.
fn most_violated_rules(
    violations: &Violations,
    limit: usize,
) -> PolarsResult<Vec<(String, String, u64, usize)>> {
    let mut by_rule: HashMap<(&str, &str), (u64, HashSet<&str>)> = HashMap::new();
    for v in violations.iter() {
        let (count, hosts) = by_rule.entry((v.kind().as_str(), v.rule())).or_default();
        *count += 1;
        hosts.insert(v.host());
    }
    let mut rules: Vec<(&str, &str, u64, usize)> = by_rule
        .into_iter()
        .map(|((kind, rule), (count, hosts))| (kind, rule, count, hosts.len()))
        .collect();
    rules.sort_unstable_by(|a, b| b.2.cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    rules.truncate(limit);
    Ok(rules
        .into_iter()
        .map(|(kind, rule, count, hosts)| (kind.to_string(), rule.to_string(), count, hosts))
        .collect())
}

/// Violations over time for the crawlers with the most, as an SVG line
/// chart: hourly buckets when the violations span under four days, else
/// daily, or of several days when they span over [`MAX_BUCKETS`] days.
/// Times are subtracted in i128: two violations centuries apart (1700 and
/// 2026) do not fit an i64 difference.
fn chart(violations: &Violations, crawlers: &[String]) -> PolarsResult<String> {
    let times = || violations.iter().map(|v| v.time());
    let (Some(min), Some(max)) = (times().min(), times().max()) else {
        return Ok("<p class=muted>No violations.</p>".to_string());
    };
    const HOUR: i128 = time::HOUR as i128;
    const DAY: i128 = time::DAY as i128;
    let (min, max) = (i128::from(min), i128::from(max));
    let bucket = if max - min < 96 * HOUR {
        HOUR
    } else {
        let days = (max - min) / DAY + 1;
        DAY * ((days + MAX_BUCKETS - 1) / MAX_BUCKETS)
    };
    let start = min - min.rem_euclid(bucket);
    let n = ((max - start) / bucket + 1) as usize;
    // Counted by crawler index (a hash per violation, not comparisons
    // along a tree), then named.
    let index: HashMap<&str, usize> = crawlers
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i))
        .collect();
    let mut counts = vec![vec![0u64; n]; crawlers.len()];
    for v in violations.iter() {
        if let Some(&i) = index.get(v.crawler()) {
            counts[i][((i128::from(v.time()) - start) / bucket) as usize] += 1;
        }
    }
    let series: BTreeMap<&str, Vec<u64>> =
        crawlers.iter().map(String::as_str).zip(counts).collect();
    let peak = series
        .values()
        .flat_map(|s| s.iter().copied())
        .max()
        .unwrap_or(1)
        .max(1);
    let (w, h, left, bottom, top) = (1100.0, 260.0, 44.0, 28.0, 10.0);
    let x = |i: usize| {
        left + (w - left - 10.0)
            * if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.5
            }
    };
    let y = |v: u64| top + (h - top - bottom) * (1.0 - v as f64 / peak as f64);
    let mut svg = format!(
        "<svg viewBox=\"0 0 {w} {h}\" width=\"100%\" role=\"img\" aria-label=\"violations over time per crawler\">"
    );
    for k in 0..=4 {
        let v = peak * k / 4;
        let _ = write!(
            svg,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y0:.1}\" y2=\"{y0:.1}\" stroke=\"#eef0f3\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\" fill=\"#8a93a3\">{v}</text>",
            w - 10.0,
            left - 6.0,
            y(v) + 4.0,
            y0 = y(v)
        );
    }
    let label = |t: i128| {
        let s =
            jiff::Timestamp::from_nanosecond(t).map_or_else(|_| t.to_string(), |ts| ts.to_string());
        if bucket == HOUR {
            s.get(5..16).unwrap_or(&s).replace('T', " ")
        } else {
            s.get(..10).unwrap_or(&s).to_string()
        }
    };
    // The first label starts at the axis, the last ends at the edge.
    let mut ticks = vec![(0, "start"), (n - 1, "end")];
    if n > 2 {
        ticks.insert(1, (n / 2, "middle"));
    }
    for (i, anchor) in ticks {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"{anchor}\" fill=\"#8a93a3\">{}</text>",
            x(i),
            h - 8.0,
            esc(&label(start + i as i128 * bucket))
        );
    }
    for (k, name) in crawlers.iter().enumerate() {
        let points: Vec<String> = series[name.as_str()]
            .iter()
            .enumerate()
            .map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v)))
            .collect();
        let color = COLORS[k % COLORS.len()];
        let _ = write!(
            svg,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"><title>{}</title></polyline>",
            points.join(" "),
            esc(name)
        );
    }
    svg.push_str("</svg><p>");
    for (k, name) in crawlers.iter().enumerate() {
        let _ = write!(
            svg,
            "<span style=\"color:{}\">&#9632;</span> {} &nbsp; ",
            COLORS[k % COLORS.len()],
            esc(name)
        );
    }
    let per = match bucket / DAY {
        _ if bucket == HOUR => "hour".to_string(),
        1 => "day".to_string(),
        days => format!("{days} days"),
    };
    let _ = write!(svg, "<span class=muted>per {per}</span></p>");
    Ok(svg)
}

/// Renders the page.
///
/// # Errors
/// polars failing to aggregate the most violated rules.
pub fn render(
    report: &Report,
    categories: &BTreeMap<String, String>,
) -> Result<String, ReportError> {
    let s = &report.summary;
    let mut h = String::with_capacity(64 << 10);
    h.push_str("<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content=\"width=device-width,initial-scale=1\">");
    h.push_str(
        "<meta name=robots content=\"noindex, nofollow\"><title>crawlaudit report</title><style>",
    );
    h.push_str(STYLE);
    h.push_str("</style></head><body><main>");
    let window = match &s.window {
        Some(w) => format!("{} to {}", w.first, w.last),
        None => "no crawler requests".into(),
    };
    let _ = write!(
        h,
        "<h1>Crawler compliance report</h1><p class=sub>{} &middot; crawlaudit {}</p>",
        esc(&window),
        esc(&s.tool.version)
    );
    for w in &s.warnings {
        let _ = write!(h, "<p class=warn><b>Warning:</b> {}</p>", esc(w));
    }
    for (category, n) in &s.not_counted {
        let _ = write!(
            h,
            "<p class=sub>Not counted below: {n} violations of {} crawlers, which the site configures itself (<code>--include {}</code> counts them; they are in the tables).</p>",
            esc(category),
            esc(category)
        );
    }
    let v = &s.violations;
    let cards = [
        ("requests", s.requests.requests),
        ("crawler requests", s.requests.crawler),
        ("violations", v.total()),
        ("disallow", v.disallow),
        ("crawl-delay", v.crawl_delay),
        ("noindex + unavail.", v.noindex + v.unavailable_after),
        ("spoofed requests", s.finding(FindingKind::SpoofedAgent)),
        ("bad log lines", s.inputs.bad_lines),
    ];
    h.push_str("<div class=cards>");
    for (label, value) in cards {
        let class = if value > 0
            && matches!(
                label,
                "violations"
                    | "disallow"
                    | "crawl-delay"
                    | "noindex + unavail."
                    | "spoofed requests"
            ) {
            " class=bad"
        } else {
            ""
        };
        let _ = write!(
            h,
            "<div class=card><b{class}>{value}</b><span>{label}</span></div>"
        );
    }
    h.push_str("</div>");

    let c = &report.crawlers;
    // The numeric columns of the crawlers table shown, with their headings.
    const NUMBERS: [(&str, &str); 8] = [
        ("requests", "requests"),
        ("robots_txt_fetches", "robots.txt"),
        ("disallow", "disallow"),
        ("crawl_delay", "crawl-delay"),
        ("noindex", "noindex"),
        ("unavailable_after", "unavail."),
        ("violation_rate", "rate"),
        ("hosts", "hosts"),
    ];
    h.push_str("<h2>Crawlers, most violations first</h2><div class=wide><table><tr><th>crawler</th><th>category</th><th>verified</th>");
    for (_, heading) in NUMBERS {
        let _ = write!(h, "<th>{heading}</th>");
    }
    h.push_str("<th>first seen</th><th>last seen</th></tr>");
    for i in 0..c.height().min(MAX_CRAWLER_ROWS) {
        let name = cell(c, "crawler", i);
        let verified = match cell(c, "verified", i).as_str() {
            "yes" => "<span class=ok>verified</span>".to_string(),
            // The tables' word: `NAME (unverified)`, verified false.
            "no" => "<span class=bad>unverified</span>".to_string(),
            _ => "<span class=muted>unknown</span>".to_string(),
        };
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{verified}</td>",
            esc(&name),
            esc(categories.get(name.as_str()).map_or("", String::as_str))
        );
        for (col, _) in NUMBERS {
            let _ = write!(h, "<td class=n>{}</td>", esc(&cell(c, col, i)));
        }
        let _ = write!(
            h,
            "<td class=t>{}</td><td class=t>{}</td></tr>",
            esc(&cell(c, "first_seen", i)),
            esc(&cell(c, "last_seen", i))
        );
    }
    if c.height() > MAX_CRAWLER_ROWS {
        let _ = write!(
            h,
            "<tr><td colspan={} class=muted>and {} more crawlers: see crawlers.csv</td></tr>",
            NUMBERS.len() + 5,
            c.height() - MAX_CRAWLER_ROWS
        );
    }
    h.push_str("</table></div>");

    let top: Vec<String> = report
        .crawler_rows()?
        .into_iter()
        .take(COLORS.len())
        .filter(|r| r.total() > 0)
        .map(|r| r.crawler)
        .collect();
    h.push_str("<h2>Violations over time</h2><div class=chart>");
    h.push_str(&chart(&report.violations, &top)?);
    h.push_str("</div>");

    h.push_str("<h2>Most violated rules</h2><table><tr><th>kind</th><th>rule</th><th>violations</th><th>hosts</th></tr>");
    let rules = most_violated_rules(&report.violations, 15)?;
    for (kind, rule, count, hosts) in &rules {
        let _ = write!(
            h,
            "<tr><td>{}</td><td><code>{}</code></td><td class=n>{count}</td><td class=n>{hosts}</td></tr>",
            esc(kind),
            esc(rule),
        );
    }
    if rules.is_empty() {
        h.push_str("<tr><td colspan=4 class=muted>none</td></tr>");
    }
    h.push_str("</table>");

    let f = &report.findings;
    h.push_str("<h2>Findings</h2><table><tr><th>kind</th><th>host</th><th>crawler</th><th>url</th><th>count</th><th>detail</th></tr>");
    // Rows are sorted by kind: each kind shows its first rows, then how
    // many more there are.
    let mut shown = 0;
    for i in 0..f.height() {
        let kind = cell(f, "kind", i);
        shown = if i > 0 && cell(f, "kind", i - 1) == kind {
            shown + 1
        } else {
            1
        };
        if shown > MAX_FINDING_ROWS {
            let last = i + 1 == f.height() || cell(f, "kind", i + 1) != kind;
            if last {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td colspan=5 class=muted>and {} more: see findings.csv</td></tr>",
                    esc(&kind),
                    shown - MAX_FINDING_ROWS
                );
            }
            continue;
        }
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=n>{}</td><td>{}</td></tr>",
            esc(&kind),
            esc(&cell(f, "host", i)),
            esc(&cell(f, "crawler", i)),
            code(&cell(f, "url", i)),
            cell(f, "count", i),
            esc(&cell(f, "detail", i))
        );
    }
    if f.height() == 0 {
        h.push_str("<tr><td colspan=6 class=muted>none</td></tr>");
    }
    h.push_str("</table>");

    h.push_str("<h2>Input</h2><table><tr><th>file</th><th>format</th><th>lines</th><th>parsed</th><th>bad</th><th>samples and faults</th></tr>");
    for file in &s.inputs.files {
        let mut notes = String::new();
        for sample in &file.samples {
            let _ = write!(
                notes,
                "line {} ({}): <code>{}</code><br>",
                sample.line,
                esc(&sample.reason),
                esc(&sample.text)
            );
        }
        if let Some(fault) = &file.fault {
            let _ = write!(notes, "<span class=bad>{}</span>", esc(fault));
        }
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td>{notes}</td></tr>",
            esc(&file.path),
            esc(&file.format),
            file.lines,
            file.parsed,
            file.bad
        );
    }
    h.push_str("</table></main></body></html>\n");
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::{chart, esc};
    use crate::replay::{Violation, ViolationKind, Violations};

    fn drawn(rows: &[Violation], crawlers: &[String]) -> String {
        let table: Violations = rows.iter().cloned().collect();
        chart(&table, crawlers).unwrap()
    }

    fn violation(time: &str) -> Violation {
        let ts: jiff::Timestamp = time.parse().unwrap();
        Violation {
            time: i64::try_from(ts.as_nanosecond()).unwrap(),
            host: "shop.example".into(),
            crawler: "AhrefsBot".into(),
            verified: None,
            client_ip: "192.0.2.1".into(),
            kind: ViolationKind::Disallow,
            method: "GET".into(),
            url: "/x".into(),
            status: 200,
            rule: "Disallow: /x".into(),
            rule_line: Some(2),
            robots_version: None,
            detail: "".into(),
        }
    }

    /// Issue 13: violations dated 1700 and 2026 overflowed the chart's
    /// span (`capacity overflow`); centuries are drawn in buckets of
    /// several days, never more than a thousand or so.
    #[test]
    fn a_chart_over_centuries_has_a_bounded_number_of_buckets() {
        let crawlers = ["AhrefsBot".to_string()];
        let v = [
            violation("1700-01-01T00:00:00Z"),
            violation("2026-11-01T10:00:00Z"),
            violation("2026-11-01T11:00:00Z"),
        ];
        let svg = drawn(&v, &crawlers);
        assert!(svg.contains("per 120 days"), "{svg}");
        assert!(
            svg.contains(">1700-01-01<") || svg.contains(">1699-"),
            "{svg}"
        );
        let points = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let n = points.split(' ').count();
        assert!((900..=1001).contains(&n), "{n} buckets");
        assert!(svg.len() < 100_000, "{} bytes", svg.len());
        // A week is still drawn per day, a day per hour.
        let week = [
            violation("2026-11-01T00:00:00Z"),
            violation("2026-11-08T00:00:00Z"),
        ];
        assert!(drawn(&week, &crawlers).contains("per day"));
        let day = [
            violation("2026-11-01T00:00:00Z"),
            violation("2026-11-01T23:00:00Z"),
        ];
        assert!(drawn(&day, &crawlers).contains("per hour"));
    }

    #[test]
    fn escaping() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
