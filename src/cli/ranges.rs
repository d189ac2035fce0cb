//! `crawlaudit ranges update DIR`: download the operators' published crawler
//! IP ranges. The one command that uses the network.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};

use crawlaudit::bots::{PUBLISHED, RangeSet};

/// Arguments of `ranges`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Download the operators' published crawler IP range files into DIR.
    #[command(after_help = "\
Each file is checked (valid JSON holding IP prefixes) before it replaces the
old one, which is renamed over atomically; a file that fails to download or
check is reported and the old copy is kept. Exit code 2 when any failed.")]
    Update(UpdateArgs),
}

#[derive(Debug, clap::Args)]
struct UpdateArgs {
    /// The directory to write (created if missing); pass it to `audit --ip-ranges`.
    dir: PathBuf,
    /// Only these files (e.g. `googlebot.json`); repeatable.
    #[arg(long = "only", value_name = "FILE")]
    only: Vec<String>,
    /// Fetch every file as URL/FILE from this mirror instead of from the operators.
    #[arg(long, value_name = "URL")]
    mirror: Option<String>,
    /// Seconds to wait for each download.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    timeout: u64,
}

/// Runs `ranges`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Update(update) => run_update(update),
    }
}

fn run_update(args: &UpdateArgs) -> anyhow::Result<ExitCode> {
    for name in &args.only {
        if !PUBLISHED.iter().any(|(file, _)| file == name) {
            let known: Vec<&str> = PUBLISHED.iter().map(|(f, _)| *f).collect();
            bail!(
                "--only {name:?} is not a published range file (known: {})",
                known.join(", ")
            );
        }
    }
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(args.timeout)))
        .user_agent(concat!(
            "crawlaudit/",
            env!("CARGO_PKG_VERSION"),
            " (ranges update)"
        ))
        .build()
        .into();
    let mut out = super::term::stdout();
    let mut failed = 0;
    for (file, url) in PUBLISHED {
        if !args.only.is_empty() && !args.only.iter().any(|o| o == file) {
            continue;
        }
        let url = match &args.mirror {
            Some(mirror) => format!("{}/{file}", mirror.trim_end_matches('/')),
            None => url.to_string(),
        };
        match fetch(&agent, &url, &args.dir, file) {
            Ok(set) => writeln!(out, "{file}\tupdated\t{set}\t{url}")?,
            Err(err) => {
                failed += 1;
                writeln!(out, "{file}\tFAILED\t{err:#}\t{url}")?;
            }
        }
    }
    if failed > 0 {
        let _ = writeln!(
            super::term::stderr(),
            "crawlaudit: error: {failed} range file(s) could not be updated; the old copies were kept"
        );
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

/// Downloads one file, checks it, and renames it into place.
fn fetch(agent: &ureq::Agent, url: &str, dir: &Path, file: &str) -> anyhow::Result<RangeSet> {
    let mut response = agent
        .get(url)
        .call()
        .with_context(|| format!("download of {url} failed"))?;
    let body = response
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_vec()
        .with_context(|| format!("reading {url} failed"))?;
    let target = dir.join(file);
    let set = RangeSet::parse(&target, &body)?;
    let tmp = dir.join(format!(".{file}.download"));
    std::fs::write(&tmp, &body).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &target)
        .with_context(|| format!("cannot replace {}", target.display()))?;
    Ok(set)
}
