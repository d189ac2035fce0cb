//! The distributed audit's tasks over `crawlaudit audit`'s own flags, for the
//! Python package (`python/`, `crawlaudit-spark`): the driver and every task
//! parse the same command line with the CLI's parser and prepare the same
//! context, so a flag means on a cluster what it means on one machine.
//!
//! - [`Job::ingest`]: one log file, read once, split by shard
//!   ([`crawlaudit::distributed::ingest`]).
//! - [`Job::judge`]: one shard's parts in file order, and its hosts' part of
//!   the previous night's state; returns the files of the shard report that
//!   `crawlaudit audit --shard K/N` would write (its Parquet tables and
//!   `summary.json`) and the shard's next state, all encoded in memory. No
//!   task writes a file: a retried or speculative task only returns the
//!   same bytes again.
//! - [`Job::assemble`]: on the driver, the shard reports merged
//!   ([`Report::merge`]) and written as `crawlaudit audit` writes its
//!   report, the next state written, and the CLI's exit code.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, bail};
use clap::Parser;

use crawlaudit::distributed::{self, Part};
use crawlaudit::logs::{FileReport, Input};
use crawlaudit::replay::State;
use crawlaudit::report::{Report, read_state_bytes, state_bytes};
use crawlaudit::shard::Shard;

use super::audit::{Args, Prepared, is_uri, prepare, print_timings, refuse_nothing_read};

/// `crawlaudit audit`'s flags, parsed alone.
#[derive(Debug, Parser)]
#[command(
    name = "crawlaudit-spark audit",
    about = "crawlaudit audit on Apache Spark: every log file read once, by one task; the report crawlaudit audit writes",
    long_about = None
)]
struct AuditFlags {
    #[command(flatten)]
    args: Args,
}

/// The name the next state of a shard goes by among its report's files.
pub const STATE_FILE: &str = "state.parquet";

/// One audit's flags and what they load, in the driver or in a task.
pub struct Job {
    args: Args,
    prepared: Prepared,
    started: Instant,
    /// When [`Job::new`] was done: on the driver, the cluster's work
    /// begins (`--timings`).
    ready: Instant,
}

/// A shard report's files, by name.
pub type Files = Vec<(String, Vec<u8>)>;

impl Job {
    /// Parses `argv` (the flags of `crawlaudit audit`, without the command's
    /// name) as the CLI does and prepares the audit: checks the flags,
    /// loads the catalogue, ranges and snapshot. `driver`: the driver also
    /// checks `--out` and `--state`, where only it writes, and lists the
    /// inputs: the local ones as the CLI does, then `remote`, the files it
    /// listed under the URI arguments ([`Job::remote_logs`]).
    ///
    /// # Errors
    /// What the CLI refuses, in its words: a bad flag in one line, a
    /// snapshot or catalogue that cannot be read, `--shard` (a cluster run
    /// splits by host itself), standard input (no task can read it).
    pub fn new(argv: &[String], driver: bool, remote: &[String]) -> anyhow::Result<Job> {
        let started = Instant::now();
        let args = parse(argv)?;
        if args.shard.is_some() {
            bail!(
                "--shard is for one machine per shard (an Indexed Job); on Spark, give --shards N and every log is read once"
            );
        }
        if args.logs.iter().any(|l| l == "-") {
            bail!("standard input (-) cannot be read by a cluster's tasks: give log files");
        }
        // The driver checks --out and --state, and reads the state; a
        // task writes nothing.
        let prepared = prepare(&args, driver, Some(remote))?;
        Ok(Job {
            args,
            prepared,
            started,
            ready: Instant::now(),
        })
    }

    /// The log arguments of `argv` that are URIs of object storage
    /// (`s3://`, `gs://`, `abfs://`, `hdfs://`, `file://`, ...), which the
    /// driver lists through `pyarrow.fs` and hands to [`Job::new`] as
    /// files.
    ///
    /// # Errors
    /// A bad flag, in the CLI's words.
    pub fn remote_logs(argv: &[String]) -> anyhow::Result<Vec<String>> {
        Ok(parse(argv)?
            .logs
            .into_iter()
            .filter(|l| is_uri(l))
            .collect())
    }

    /// `crawlaudit audit --help`'s text, as `crawlaudit-spark audit`
    /// shows it.
    pub fn help() -> String {
        use clap::CommandFactory;
        AuditFlags::command().render_help().to_string()
    }

    /// The log files, in the order the CLI audits them (directories and
    /// patterns expanded).
    pub fn inputs(&self) -> Vec<String> {
        self.prepared
            .inputs
            .iter()
            .map(|i| match i {
                Input::File(p) => p.display().to_string(),
                Input::Stdin => "-".to_string(),
            })
            .collect()
    }

    /// Whether the job carries a state from night to night (`--state`).
    pub fn has_state(&self) -> bool {
        self.args.state.is_some()
    }

    /// Reads log file `path`, the `file`-th input, and splits it among
    /// `shards` shards: its accounting (as JSON, the report's own form) and
    /// its parts. `name`: what the report calls the file, when `path` is a
    /// local copy (of an object in storage, named by its URI).
    ///
    /// # Errors
    /// A shard count of 0.
    pub fn ingest(
        &self,
        file: u32,
        path: &str,
        shards: u32,
        name: Option<&str>,
    ) -> anyhow::Result<(String, Vec<Part>)> {
        if shards == 0 {
            bail!("--shards must be at least 1");
        }
        let ingested = distributed::ingest(
            &self.prepared.ctx,
            &Input::File(PathBuf::from(path)),
            &self.prepared.read,
            file,
            shards,
        );
        let mut files = self.prepared.named_files(vec![ingested.file]);
        let mut file = files.pop().expect("one file");
        if let Some(name) = name {
            // The copy's path, wherever the report or a message names it.
            file.path = name.to_string();
            file.fault = file.fault.map(|f| f.replace(path, name));
        }
        Ok((serde_json::to_string(&file)?, ingested.parts))
    }

    /// On the driver: the previous night's state (the `--state` file, which
    /// the driver's [`Job::new`] opened and checked as the CLI does, its
    /// rows read since), split among `shards` shards: per shard with
    /// entries, its state as a state file's bytes.
    ///
    /// # Errors
    /// A row of the state file that is not a state's, or a state that
    /// cannot be encoded.
    pub fn states(&self, shards: u32) -> anyhow::Result<Vec<(u32, Vec<u8>)>> {
        let parts = self.prepared.ctx.with_prior_state(|state| {
            (0..shards)
                .map(|index| {
                    (
                        index,
                        distributed::state_of_shard(
                            state,
                            Shard {
                                index,
                                count: shards,
                            },
                        ),
                    )
                })
                .filter(|(_, part)| !part.is_empty())
                .collect::<Vec<_>>()
        });
        self.prepared.state_failure()?;
        let mut out = Vec::new();
        for (index, part) in parts.unwrap_or_default() {
            out.push((index, state_bytes(&part)?));
        }
        Ok(out)
    }

    /// Judges shard `shard` from its parts in file order, with `files` (the
    /// inputs' accounting from [`Job::ingest`], in order) and its part of
    /// the state: the files of its shard report, and with `--state` its
    /// next state under [`STATE_FILE`].
    ///
    /// # Errors
    /// A part or state that is not this version's, or a table that cannot
    /// be encoded.
    pub fn judge<'b>(
        &mut self,
        shard: Shard,
        files: &[String],
        state: Option<&[u8]>,
        parts: impl IntoIterator<Item = &'b [u8]>,
    ) -> anyhow::Result<Files> {
        // A shard's run time is its judgement's (the driver's report says
        // the whole run's).
        let started = Instant::now();
        let files = parse_files(files)?;
        let prior = match (self.has_state(), state) {
            (false, _) => None,
            (true, None) => Some(State::default()),
            (true, Some(bytes)) => Some(read_state_bytes(
                bytes.to_vec(),
                Path::new(&format!("the state of shard {shard}")),
            )?),
        };
        let mut outcome = distributed::judge(&mut self.prepared.ctx, shard, prior, parts)
            .context("a shard's parts could not be read")?;
        let run_info =
            self.prepared
                .run_info(&self.args, &outcome.counts, &files, started, Some(shard));
        let mut report = Report::build_taking_rows(&mut outcome, &run_info)?;
        let ctx = &self.prepared.ctx;
        report.name_rule_groups(|host, version, line| ctx.rule_group(host, version, line));
        let mut shard_files = report.shard_files()?;
        if self.has_state() {
            shard_files.push((STATE_FILE.to_string(), state_bytes(&outcome.state)?));
        }
        Ok(shard_files)
    }

    /// On the driver: the shard reports (every shard `0..count`, each
    /// once) merged and written to `--out` as `crawlaudit audit` writes its
    /// report, the next state written, the summary printed; returns the
    /// CLI's exit code (2 after a fault unless `--allow-partial`, 3 when
    /// `--fail-on` matched, else 0).
    ///
    /// # Errors
    /// What the CLI refuses: no log could be read (the report is left as
    /// it was), a report that cannot be written.
    pub fn assemble(&self, files: &[String], shards: Vec<(u32, Files)>) -> anyhow::Result<u8> {
        let assembling = Instant::now();
        let files = parse_files(files)?;
        refuse_nothing_read(&self.args, &files)?;
        let dir = tempfile::Builder::new()
            .prefix("crawlaudit-shards-")
            .tempdir()
            .context("a temporary directory for the shard reports")?;
        let mut dirs = Vec::new();
        let mut states = Vec::new();
        for (shard, shard_files) in shards {
            let shard_dir = dir.path().join(format!("shard-{shard}"));
            std::fs::create_dir(&shard_dir)
                .with_context(|| format!("shard {shard} given twice"))?;
            for (name, bytes) in shard_files {
                if name == STATE_FILE {
                    states.push(read_state_bytes(
                        bytes,
                        Path::new(&format!("the next state of shard {shard}")),
                    )?);
                    continue;
                }
                if name.contains('/') || name.starts_with('.') {
                    bail!("a shard report file named {name:?}");
                }
                std::fs::write(shard_dir.join(&name), bytes)
                    .with_context(|| format!("writing {name} of shard {shard}"))?;
            }
            dirs.push(shard_dir);
        }
        dirs.sort_by_key(|d| shard_number(d));
        let mut report = Report::merge(&dirs)?;
        let merged = Instant::now();
        // The run's time: the driver's, from the flags to the report.
        report.summary.run.seconds =
            (self.started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        let staged = if self.has_state() {
            self.prepared
                .stage_state(&self.args, &files, &distributed::join_states(states))
        } else {
            Ok(None)
        };
        let code = self
            .prepared
            .conclude(&self.args, &report, &files, staged)?;
        if self.args.timings {
            // The driver's view: the cluster's tasks read and judged
            // between the set-up and the assembly.
            let stages = [
                ("set-up", self.ready - self.started, String::new()),
                (
                    "reading and judging",
                    assembling - self.ready,
                    "the cluster's tasks".to_string(),
                ),
                (
                    "merging the shard reports",
                    merged - assembling,
                    String::new(),
                ),
                ("writing the report", merged.elapsed(), String::new()),
            ];
            print_timings(&stages, self.started.elapsed());
        }
        Ok(code)
    }
}

/// `argv` parsed as `crawlaudit audit`'s flags; a refusal in the CLI's one
/// line.
fn parse(argv: &[String]) -> anyhow::Result<Args> {
    let flags = AuditFlags::try_parse_from(
        std::iter::once("crawlaudit-spark audit".to_string()).chain(argv.iter().cloned()),
    )
    .map_err(|e| {
        let line = super::argument_error_line(&e);
        let line = line.strip_prefix("crawlaudit: error: ").unwrap_or(&line);
        anyhow::anyhow!(
            "{}",
            line.replace("(see crawlaudit --help)", "(see crawlaudit audit --help)")
        )
    })?;
    Ok(flags.args)
}

/// The shard number of a `shard-K` directory.
fn shard_number(dir: &Path) -> u32 {
    dir.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("shard-"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(u32::MAX)
}

/// The inputs' accounting, from [`Job::ingest`]'s JSON.
fn parse_files(files: &[String]) -> anyhow::Result<Vec<FileReport>> {
    files
        .iter()
        .map(|f| serde_json::from_str(f).context("an input's accounting that ingest did not write"))
        .collect()
}
