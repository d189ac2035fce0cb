//! `crawlaudit rules --agent NAME [--header VALUE]... [--html FILE] [--json]`

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crawlaudit::bots::Catalogue;
use crawlaudit::indexing::{Origin, PageRules, Source};

/// Arguments of `rules`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Explains the effective indexing rules one crawler takes from one response:
each rule with the X-Robots-Tag line or meta tag it came from, the rules it
does not obey with the reason (an unknown directive, an invalid value, a
crawler prefix with a version), and rules addressed to other crawlers.

With --json, prints exactly one JSON object of the effective rules (and, under
`ignored`, the rules this crawler does not obey, each with the reason): rule name
to value (true for plain rules, numbers for max-snippet/max-video-preview, the
setting for max-image-preview, an RFC 3339 UTC time for unavailable_after);
rules without effect are left out ({} for none).")]
pub struct Args {
    /// The crawler: a name (`Googlebot`) or a full User-Agent header.
    #[arg(long, value_name = "USER_AGENT")]
    agent: String,
    /// One X-Robots-Tag header value; repeat for several header lines.
    #[arg(long = "header", value_name = "VALUE")]
    headers: Vec<String>,
    /// An HTML page whose robots <meta> tags count (`-` reads stdin).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Print one JSON object of the effective rules.
    #[arg(long)]
    json: bool,
    /// A TOML crawler catalogue merged over the built-in one.
    #[arg(long, value_name = "FILE")]
    bots: Option<PathBuf>,
    /// A site snapshot (directory or WARC file; repeatable): explain URLs
    /// against it instead of a response given on the command line.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["headers", "html"])]
    snapshot: Vec<PathBuf>,
    /// With --snapshot: the moment to explain (RFC 3339, or a date), default now.
    #[arg(long, value_name = "TIME", requires = "snapshot")]
    at: Option<String>,
    /// With --snapshot: the URLs to explain (full URLs, or paths when the
    /// snapshot describes one host).
    #[arg(value_name = "URL", requires = "snapshot")]
    urls: Vec<String>,
}

/// The crawler's display name and the names it answers to in meta tags and
/// X-Robots-Tag prefixes (lower case), from the catalogue: a known crawler's
/// meta names, or an unknown bot's token.
fn agent_names(agent: &str, catalogue: &Catalogue) -> Option<(String, Vec<String>)> {
    let crawler = catalogue.resolve(agent)?;
    let names = crawler.meta_names().to_vec();
    (!names.is_empty()).then(|| (crawler.name().to_string(), names))
}

fn origin_text(source: &Source) -> String {
    match source.origin() {
        Origin::Header { index } => format!("X-Robots-Tag line {index}"),
        Origin::Meta {
            name,
            offset: Some(offset),
        } => format!("<meta name={name}> at byte {offset}"),
        Origin::Meta { name, offset: None } => format!("<meta name={name}>"),
    }
}

/// Runs `rules`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if !args.snapshot.is_empty() {
        return super::rules_snapshot::run(
            &args.agent,
            &args.snapshot,
            args.at.as_deref(),
            &args.urls,
            args.json,
            args.bots.as_deref(),
        );
    }
    let catalogue = super::catalogue(args.bots.as_deref())?;
    let Some((crawler, names)) = agent_names(&args.agent, &catalogue) else {
        bail!(
            "--agent {:?} is not a crawler (a browser's User-Agent, or no name): give a crawler name such as \
             `Googlebot` or a crawler's User-Agent header",
            args.agent
        );
    };
    let mut page = PageRules::default();
    for header in &args.headers {
        page.add_header(header);
    }
    if let Some(path) = &args.html {
        let html = if path.as_os_str() == "-" {
            let mut buf = Vec::new();
            io::stdin()
                .take((16 << 20) + 1)
                .read_to_end(&mut buf)
                .context("cannot read HTML from standard input")?;
            if buf.len() > 16 << 20 {
                bail!("the HTML on standard input is larger than 16 MiB: keep the page's <head>");
            }
            buf
        } else {
            // Googlebot reads the first 15 MB of a page.
            crawlaudit::bounded_read::read_at_most(path, 16 << 20)
                .with_context(|| format!("cannot read HTML file {}", path.display()))?
        };
        page.add_html(&html);
    }
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let effective = page.effective(&name_refs);
    let ignored = page.ignored(&name_refs);
    let mut out = super::term::Escaped(BufWriter::new(io::stdout().lock()));
    if args.json {
        let mut json = effective.to_json();
        if !ignored.is_empty() {
            json["ignored"] = ignored_json(&ignored);
        }
        writeln!(out, "{json}")?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "crawler: {crawler} (obeys meta names: robots, {})",
        names.join(", ")
    )?;
    if effective.is_empty() {
        writeln!(
            out,
            "effective rules: none (the page may be indexed and shown without restriction)"
        )?;
    } else {
        writeln!(out, "effective rules:")?;
        let width = effective
            .rules()
            .iter()
            .map(|r| r.name.len())
            .max()
            .unwrap_or(0);
        for rule in effective.rules() {
            let value = match effective.to_json().get(&rule.name) {
                Some(serde_json::Value::Bool(true)) | None => String::new(),
                Some(v) => format!(" = {v}"),
            };
            writeln!(
                out,
                "  {:width$}{value}  from {} ({})",
                rule.name,
                rule.source,
                origin_text(rule.source)
            )?;
        }
    }
    if !ignored.is_empty() {
        writeln!(out, "ignored (no effect for this crawler):")?;
        for i in &ignored {
            writeln!(
                out,
                "  {} ({}): {}",
                i.source,
                origin_text(i.source),
                i.reason
            )?;
        }
    }
    let others: Vec<&Source> = page
        .sources()
        .iter()
        .filter(|s| {
            s.scope().is_some_and(|sc| {
                !names.iter().any(|n| n == sc) && !crawlaudit::indexing::is_unknown_prefix(sc)
            })
        })
        .collect();
    if !others.is_empty() {
        writeln!(out, "addressed to other crawlers (ignored):")?;
        for s in others {
            writeln!(out, "  {s} ({})", origin_text(s))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The `ignored` list of `--json`: each rule as found, and why it has no
/// effect.
pub(super) fn ignored_json(ignored: &[crawlaudit::indexing::Ignored<'_>]) -> serde_json::Value {
    serde_json::Value::Array(
        ignored
            .iter()
            .map(|i| serde_json::json!({"rule": i.source.to_string(), "reason": i.reason}))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::agent_names;
    use crawlaudit::bots::Catalogue;

    #[test]
    fn names_from_the_catalogue() {
        let cat = Catalogue::builtin();
        let names = |a: &str| agent_names(a, &cat).map(|(_, n)| n);
        assert_eq!(names("Googlebot").unwrap(), ["googlebot"]);
        assert_eq!(
            names("googlebot-news").unwrap(),
            ["googlebot-news", "googlebot"]
        );
        assert_eq!(names("bingbot").unwrap(), ["bingbot", "msnbot"]);
        assert_eq!(
            names("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
                .unwrap(),
            ["googlebot"]
        );
        assert_eq!(names("Zorkbot/1.0").unwrap(), ["zorkbot"]);
        assert!(names("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36").is_none());
    }
}
