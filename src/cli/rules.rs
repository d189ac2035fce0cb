//! `crawlaudit rules --agent NAME [--header VALUE]... [--html FILE] [--json]`

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crawlaudit::indexing::{Origin, PageRules, Source};

/// Arguments of `rules`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Explains the effective indexing rules one crawler takes from one response:
each rule with the X-Robots-Tag line or meta tag it came from, rules whose
value is invalid (void), and rules addressed to other crawlers.

With --json, prints exactly one JSON object of the effective rules: rule name
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
}

/// The names a crawler answers to in meta tags and X-Robots-Tag prefixes,
/// lower-cased: the name itself, or, for a full User-Agent header, every
/// product token in it (`Mozilla/5.0 (compatible; Googlebot/2.1; ...)` gives
/// `mozilla`, `compatible`, `googlebot`). Extra tokens are harmless: rules
/// match crawler names exactly and no page addresses "mozilla".
fn agent_names(agent: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for word in agent.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ';' | ',')) {
        let token = word
            .split('/')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let plausible = token.starts_with(|c: char| c.is_ascii_alphabetic())
            && token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if plausible && !names.contains(&token) {
            names.push(token);
        }
    }
    names
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

/// Runs `rules` without a snapshot.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let names = agent_names(&args.agent);
    if names.is_empty() {
        bail!(
            "--agent {:?} names no crawler: give a name such as `Googlebot` or a User-Agent header",
            args.agent
        );
    }
    let mut page = PageRules::default();
    for header in &args.headers {
        page.add_header(header);
    }
    if let Some(path) = &args.html {
        let html = if path.as_os_str() == "-" {
            let mut buf = Vec::new();
            io::stdin()
                .read_to_end(&mut buf)
                .context("cannot read HTML from standard input")?;
            buf
        } else {
            std::fs::read(path)
                .with_context(|| format!("cannot read HTML file {}", path.display()))?
        };
        page.add_html(&html);
    }
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let effective = page.effective(&name_refs);
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        writeln!(out, "{}", effective.to_json())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "crawler names: {}", names.join(", "))?;
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
    let void: Vec<&Source> = page.invalid().collect();
    if !void.is_empty() {
        writeln!(out, "void rules (invalid value, no effect):")?;
        for s in void {
            writeln!(out, "  {s} ({})", origin_text(s))?;
        }
    }
    let others: Vec<&Source> = page
        .sources()
        .iter()
        .filter(|s| s.scope().is_some_and(|sc| !names.iter().any(|n| n == sc)))
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

#[cfg(test)]
mod tests {
    use super::agent_names;

    #[test]
    fn names_from_tokens_and_headers() {
        assert_eq!(agent_names("Googlebot"), ["googlebot"]);
        assert_eq!(
            agent_names("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
            ["mozilla", "compatible", "googlebot"]
        );
        assert_eq!(agent_names("msnbot-media/1.1"), ["msnbot-media"]);
        assert!(agent_names("/// 123").is_empty());
    }
}
