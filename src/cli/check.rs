//! `crawlaudit check ROBOTS_FILE USER_AGENT URL...`

use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crawlaudit::robots::{Robots, path_params_query, product_token};

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Prints one line per URL, tab-separated: `allowed` or `disallowed`, the URL, and
the deciding rule as `LINE: Directive: pattern` (`-` when no rule matched).
/robots.txt itself is always allowed (RFC 9309 section 2.2.2).")]
pub struct Args {
    /// The robots.txt file to test against.
    robots_file: PathBuf,
    /// The crawler's robots.txt product token (`Googlebot`), compared as
    /// Google's matcher does; or a full User-Agent header, resolved through
    /// the crawler catalogue to its tokens in order of preference (else its
    /// leading run of letters, `-` and `_`: `Googlebot/2.1` -> `Googlebot`).
    user_agent: String,
    /// URLs to test: full URLs or paths (`/a/b?q`), compared as given (no
    /// percent-decoding).
    #[arg(required = true)]
    urls: Vec<OsString>,
    /// A TOML crawler catalogue merged over the built-in one.
    #[arg(long, value_name = "FILE")]
    bots: Option<PathBuf>,
}

/// Runs `check`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let agent = args.user_agent.trim();
    let is_token = !agent.is_empty()
        && agent
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_');
    // A bare token is compared as given, like Google's tester; a User-Agent
    // header is resolved through the catalogue.
    let (tokens, obeys_global) = if is_token {
        (vec![agent.to_string()], true)
    } else {
        let catalogue = super::catalogue(args.bots.as_deref())?;
        match catalogue.resolve(agent).filter(|c| !c.tokens().is_empty()) {
            Some(c) => (c.tokens().to_vec(), c.obeys_global()),
            None => (vec![product_token(agent).to_string()], true),
        }
    };
    if tokens.iter().all(String::is_empty) {
        bail!(
            "user agent {:?} has no robots.txt product token: give a name such as `Googlebot` \
             (letters, `-` and `_`) or a full User-Agent header",
            args.user_agent
        );
    }
    // Google reads the first 500 KiB; the byte after tells that it was cut.
    let limit = crawlaudit::robots::MAX_ROBOTS_BYTES as u64 + 1;
    let body = crawlaudit::bounded_read::read_prefix(&args.robots_file, limit)
        .with_context(|| format!("cannot read robots.txt file {}", args.robots_file.display()))?;
    let robots = Robots::parse(&body);
    let token_refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
    // `check` answers exactly as Google's matcher does.
    let group = robots.group_google(&token_refs, obeys_global);
    warn_agents_read_differently(&robots, &args.robots_file.display().to_string());
    let mut out = super::term::Escaped(BufWriter::new(io::stdout().lock()));
    for url in &args.urls {
        let url = os_bytes(url);
        let path = path_params_query(&url);
        let verdict = group.check(&path);
        let decision = if verdict.allowed() {
            "allowed"
        } else {
            "disallowed"
        };
        write!(out, "{decision}\t")?;
        out.write_all(&url)?;
        match verdict.rule() {
            Some(rule) => writeln!(out, "\t{rule}")?,
            None => writeln!(out, "\t-")?,
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The bytes of a command-line argument: exact on Unix, where arguments need
/// not be UTF-8; elsewhere the argument's UTF-8 form.
fn os_bytes(arg: &OsString) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(arg.as_bytes())
    }
    #[cfg(not(unix))]
    {
        match arg.to_string_lossy() {
            std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
            std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
        }
    }
}

/// Warns, on stderr, of each `User-agent` value of `robots` (the file
/// `name`) that Google's parser reads as another name than its author
/// wrote (`MJ12bot` is `MJ` to it): `check` answers as Google does, the
/// audit as written.
pub(super) fn warn_agents_read_differently(robots: &Robots, name: &str) {
    for (line, value, google) in robots.agents_read_differently() {
        let _ = writeln!(
            super::term::stderr(),
            "crawlaudit: warning: {name} line {line}: `User-agent: {value}` reads as {google:?} under Google's parser (it stops at the first character outside letters, `-` and `_`); `check` answers as Google does, the audit matches the name as written"
        );
    }
}
