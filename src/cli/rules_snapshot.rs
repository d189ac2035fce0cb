//! `crawlaudit rules --snapshot PATH --agent UA URL... [--at TIME] [--json]`:
//! everything the audit would use for one crawler and URL at one moment.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crawlaudit::bots::Crawler;
use crawlaudit::host::{normalize_host, split_authority};
use crawlaudit::robots::{Selection, target_path};
use crawlaudit::snapshot::{Policy, Snapshot};
use crawlaudit::time::format_time;

/// Parses `--at`: RFC 3339, or a date (midnight UTC).
fn parse_at(text: &str) -> anyhow::Result<i64> {
    let ts: jiff::Timestamp = match text.parse() {
        Ok(ts) => ts,
        Err(_) => {
            let date: jiff::civil::Date = text.parse().with_context(|| {
                format!("--at {text:?} is not a time: write 2026-11-01T12:00:00Z or 2026-11-01")
            })?;
            date.to_zoned(jiff::tz::TimeZone::UTC)?.timestamp()
        }
    };
    Ok(i64::try_from(ts.as_nanosecond())?)
}

/// Splits a URL argument into (host, path and query).
fn split(url: &str, snapshot: &Snapshot) -> anyhow::Result<(String, String)> {
    if let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    {
        let (authority, rest) = split_authority(rest);
        let path = if rest.is_empty() {
            "/".to_string()
        } else {
            String::from_utf8_lossy(&target_path(rest.as_bytes())).into_owned()
        };
        let path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        return Ok((normalize_host(authority), path));
    }
    let hosts: Vec<&str> = snapshot.hosts().map(|(h, _)| h).collect();
    match hosts.as_slice() {
        [one] => Ok((
            one.to_string(),
            String::from_utf8_lossy(&target_path(url.as_bytes())).into_owned(),
        )),
        _ => bail!(
            "give {url:?} as a full URL: the snapshot describes {} hosts ({})",
            hosts.len(),
            hosts.join(", ")
        ),
    }
}

/// Explains one URL as a JSON value (also the source of the text output).
fn explain(snapshot: &Snapshot, crawler: &Crawler, host: &str, path: &str, at: i64) -> Value {
    let tokens: Vec<&str> = crawler.tokens().iter().map(String::as_str).collect();
    let mut robots = json!(null);
    let mut disallowed = false;
    if let Some(policy) = snapshot.policy_at(host, at) {
        let v = policy.version();
        let mut obj = json!({
            "version": v.name(),
            "status": v.status(),
            "since": format_time(v.from()),
            "policy": policy.to_string(),
        });
        // What the host itself answered, when another version decides (a
        // redirect to another host, or the last good version after 30 days
        // of 5xx).
        let own = snapshot
            .host(host)
            .and_then(|t| t.robots_versions().iter().rev().find(|o| o.from() <= at));
        if let Some(own) = own.filter(|o| !std::ptr::eq(*o, v)) {
            obj["answered"] = json!(format!(
                "{} (status {}, since {})",
                own.name(),
                own.status(),
                format_time(own.from())
            ));
        }
        // The audit's decision (`Policy::group_for`, `Policy::decide`), so
        // that `rules` and `audit` cannot disagree.
        let group = policy.group_for(&tokens, crawler.obeys_global());
        if let Policy::Rules { robots, .. } = &policy {
            super::check::warn_agents_read_differently(
                robots,
                &format!("{host} robots.txt version {}", v.name()),
            );
        }
        let decision = policy.decide(group.as_ref(), path.as_bytes());
        disallowed = !decision.allowed;
        obj["allowed"] = json!(decision.allowed);
        match (&policy, &group) {
            (Policy::Rules { .. }, Some(group)) => {
                let agents: Vec<String> = group
                    .agent_lines()
                    .map(|a| format!("{}: User-agent: {}", a.line(), a.value()))
                    .collect();
                obj["group"] = match group.selection() {
                    Selection::Specific(t) => {
                        json!(format!("the group for {t} ({})", agents.join("; ")))
                    }
                    Selection::Global => json!(format!("the * group ({})", agents.join("; "))),
                    Selection::None => json!("no group applies"),
                };
                obj["rule"] = json!(decision.rule);
                obj["rule_line"] = json!(decision.line);
                obj["crawl_delay"] = group
                    .crawl_delay()
                    .map_or(json!(null), |d| json!(d.seconds()));
                obj["crawl_delay_rule"] = group.crawl_delay().map_or(json!(null), |d| {
                    json!(format!("{}: {}", d.line(), d.rule()))
                });
                if group.crawl_delay().is_some() && crawler.ignores_crawl_delay() {
                    obj["crawl_delay_note"] = json!(format!(
                        "{}'s operator documents that it does not support Crawl-delay ({}): the audit does not hold it to one",
                        crawler.name(),
                        crawler.policy_source().unwrap_or("no source cited")
                    ));
                }
            }
            (Policy::DisallowAll { .. }, _) => obj["rule"] = json!(decision.rule),
            _ => {}
        }
        robots = obj;
    }
    let page = match snapshot.page_at(host, path, at) {
        Some(p) => {
            let mut names: Vec<&str> = crawler.meta_names().iter().map(String::as_str).collect();
            names.retain(|n| *n != "robots");
            let eff = p.rules().effective(&names);
            let ignored = p.rules().ignored(&names);
            let provenance: serde_json::Map<String, Value> = eff
                .rules()
                .iter()
                .map(|r| (r.name.clone(), json!(r.source.to_string())))
                .collect();
            let mut obj = json!({
                "status": p.status(),
                "since": format_time(p.from()),
                "source": p.source(),
                "rules": eff.to_json(),
                "from": provenance,
            });
            if disallowed && eff.noindex() {
                obj["noindex_unseen"] = json!(true);
            }
            if !ignored.is_empty() {
                obj["ignored"] = super::rules::ignored_json(&ignored);
            }
            obj
        }
        None => json!(null),
    };
    json!({
        "url": path,
        "host": host,
        "at": format_time(at),
        "crawler": crawler.name(),
        "tokens": crawler.tokens(),
        "judged": snapshot.is_judged(host),
        "robots": robots,
        "page": page,
    })
}

fn print_text(out: &mut impl Write, e: &Value) -> io::Result<()> {
    let s = |v: &Value| {
        v.as_str()
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string())
    };
    writeln!(
        out,
        "{}{} at {}, as {} (tokens: {})",
        e["host"].as_str().unwrap_or(""),
        s(&e["url"]),
        s(&e["at"]),
        s(&e["crawler"]),
        e["tokens"]
            .as_array()
            .map(|t| t.iter().map(s).collect::<Vec<_>>().join(", "))
            .unwrap_or_default()
    )?;
    let r = &e["robots"];
    if r.is_null() {
        if e["judged"].as_bool() == Some(true) {
            writeln!(
                out,
                "  robots.txt: no version in force yet at this time: unjudged"
            )?;
        } else {
            writeln!(
                out,
                "  robots.txt: the snapshot has no robots information for this host: unjudged"
            )?;
        }
    } else {
        if !r["answered"].is_null() {
            writeln!(out, "  robots.txt answered: {}", s(&r["answered"]))?;
        }
        let since = |v: &Value| {
            if v == "-" {
                "for the whole window".to_string()
            } else {
                format!("in force since {}", s(v))
            }
        };
        writeln!(
            out,
            "  robots.txt: {} (status {}, {})",
            s(&r["version"]),
            s(&r["status"]),
            since(&r["since"])
        )?;
        writeln!(out, "  policy: {}", s(&r["policy"]))?;
        if !r["group"].is_null() {
            writeln!(out, "  group: {}", s(&r["group"]))?;
        }
        let decision = if r["allowed"].as_bool() == Some(false) {
            "disallowed"
        } else {
            "allowed"
        };
        match (&r["rule"], &r["rule_line"]) {
            (Value::Null, _) => writeln!(out, "  decision: {decision} (no rule matched)")?,
            (rule, Value::Null) => writeln!(out, "  decision: {decision} by {}", s(rule))?,
            (rule, line) => writeln!(
                out,
                "  decision: {decision} by line {}: {}",
                s(line),
                s(rule)
            )?,
        }
        if !r["crawl_delay"].is_null() {
            writeln!(
                out,
                "  crawl-delay: {} s (line {})",
                s(&r["crawl_delay"]),
                s(&r["crawl_delay_rule"])
            )?;
            if !r["crawl_delay_note"].is_null() {
                writeln!(out, "    ({})", s(&r["crawl_delay_note"]))?;
            }
        } else {
            writeln!(out, "  crawl-delay: none")?;
        }
    }
    let p = &e["page"];
    if p.is_null() {
        writeln!(out, "  page: not in the snapshot")?;
    } else {
        let since = if p["since"] == "-" {
            "for the whole window".to_string()
        } else {
            format!("in force since {}", s(&p["since"]))
        };
        writeln!(
            out,
            "  page: status {} ({}, {since})",
            s(&p["status"]),
            s(&p["source"])
        )?;
        let rules = p["rules"].as_object().cloned().unwrap_or_default();
        if rules.is_empty() {
            writeln!(out, "  indexing: no restrictions")?;
        }
        for (name, value) in &rules {
            let shown = if value == &Value::Bool(true) {
                name.clone()
            } else {
                format!("{name} = {value}")
            };
            writeln!(out, "  indexing: {shown}  (from {})", s(&p["from"][name]))?;
        }
        if p["noindex_unseen"].as_bool() == Some(true) {
            writeln!(
                out,
                "  note: robots.txt forbids this crawler to fetch the page, so it can never see its noindex"
            )?;
        }
    }
    Ok(())
}

/// Runs `rules --snapshot`.
pub fn run(
    agent: &str,
    paths: &[PathBuf],
    at: Option<&str>,
    urls: &[String],
    as_json: bool,
    bots: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    if urls.is_empty() {
        bail!(
            "give the URLs to explain after the options (full URLs, or paths for a one-host snapshot)"
        );
    }
    let catalogue = super::catalogue(bots)?;
    let Some(crawler) = catalogue.resolve(agent).filter(|c| !c.tokens().is_empty()) else {
        bail!(
            "--agent {agent:?} is not a crawler with a robots.txt token: give a name such as `Googlebot` or a crawler's User-Agent header"
        );
    };
    let snapshot = Snapshot::load(paths)?;
    let at = match at {
        Some(text) => parse_at(text)?,
        None => i64::try_from(jiff::Timestamp::now().as_nanosecond())?,
    };
    let mut explained = Vec::new();
    for url in urls {
        let (host, path) = split(url, &snapshot)?;
        explained.push(explain(&snapshot, &crawler, &host, &path, at));
    }
    let mut out = super::term::Escaped(BufWriter::new(io::stdout().lock()));
    if as_json {
        serde_json::to_writer_pretty(&mut out, &explained)?;
        writeln!(out)?;
    } else {
        for e in &explained {
            print_text(&mut out, e)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
