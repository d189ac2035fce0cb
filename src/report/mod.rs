//! The report (SPEC section 9), the only module that uses polars: the
//! replay's rows become frames (`violations`, `crawlers`, `findings`),
//! polars aggregates the per-crawler table, and the writers produce CSV
//! (times in RFC 3339), Parquet (UTC timestamps), NDJSON and `summary.json`,
//! and a self-contained `report.html`, into a temporary directory swapped
//! into place when complete. Also the Parquet files that are not reports:
//! shard reports read back by `merge` ([`Report::merge`]) and the
//! `--state` file ([`read_state`], [`write_state`]).

mod csv_text;
mod html;
mod merge;
mod ndjson;
mod out_dir;
mod parquet_groups;
mod rows;
mod state;
mod summary;
mod tables;
mod violations;
mod writeback;

pub use merge::MergeError;
pub use out_dir::{MARKER, check_out};
pub use state::{
    StagedState, StateFile, open_state, read_state, read_state_bytes, stage_state, state_bytes,
    write_state,
};
pub use summary::{
    Fault, Inputs, RangeFile, RuleGroup, RunTime, ShardPart, Summary, Tool, TopCrawler,
    ViolationTotals, Window,
};
pub use tables::{
    CRAWLER_COLUMNS, CrawlerRow, DAILY_COLUMNS, FINDING_COLUMNS, VIOLATION_COLUMNS, Who,
};
use tables::{
    CrawlerCounts, activity_frame, crawler_rows, crawlers_frame, daily_frame, findings_frame,
    partials_frame, rfc3339_times, utc, violations_by_crawler,
};
pub use violations::frame as violations_frame;
use writeback::Writeback;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use crate::logs::FileReport;
use crate::replay::{Counts, Finding, Outcome, ViolationKind, Violations};
use crate::shard::Shard;
use crate::time::format_time;

/// An error writing a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// polars could not build or write a frame.
    #[error("cannot build the report: {0}")]
    Polars(#[from] PolarsError),
    /// A file or directory could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A `--state` file could not be read or written.
    #[error("state file {}: {message}", path.display())]
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong, and what to do.
        message: String,
    },
    /// `--out` names something the report may not replace (a file, a
    /// directory of the user's): nothing was written.
    #[error("--out {}: {message}", path.display())]
    Out {
        /// The `--out` given.
        path: PathBuf,
        /// Why, and what to do.
        message: String,
    },
    /// A report file could not be written; the previous report is intact.
    #[error("cannot write {}: {message} (the previous report, if any, is unchanged)", path.display())]
    Write {
        /// The report file, as it would have been named.
        path: PathBuf,
        /// The cause.
        message: String,
    },
}

/// Which files to write (`--output-formats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputFormats {
    /// `violations.csv`, `crawlers.csv`, `findings.csv`.
    pub csv: bool,
    /// The same tables as Parquet.
    pub parquet: bool,
    /// `summary.json`, and the tables as NDJSON.
    pub json: bool,
    /// `report.html`.
    pub html: bool,
}

impl Default for OutputFormats {
    fn default() -> Self {
        OutputFormats {
            csv: true,
            parquet: true,
            json: true,
            html: true,
        }
    }
}

impl OutputFormats {
    /// The files a report in these formats holds.
    pub fn files(&self) -> Vec<String> {
        let mut files = Vec::new();
        for table in ["violations", "crawlers", "findings", "daily"] {
            for (on, ext) in [
                (self.csv, "csv"),
                (self.parquet, "parquet"),
                (self.json, "ndjson"),
            ] {
                if on {
                    files.push(format!("{table}.{ext}"));
                }
            }
        }
        if self.json {
            files.push("summary.json".into());
        }
        if self.html {
            files.push("report.html".into());
        }
        files
    }

    /// The files a report in these formats holds, with the marker
    /// ([`MARKER`]) that every report carries.
    pub fn files_with_marker(&self) -> Vec<String> {
        let mut files = self.files();
        files.push(MARKER.into());
        files
    }
}

/// The report's tables and summary.
#[derive(Clone, Debug)]
pub struct Report {
    /// One row per violation, columns [`VIOLATION_COLUMNS`]
    /// ([`violations_frame`] makes a frame of it).
    pub violations: Violations,
    /// One row per crawler identity, columns [`CRAWLER_COLUMNS`].
    pub crawlers: DataFrame,
    /// One row per finding, columns [`FINDING_COLUMNS`].
    pub findings: DataFrame,
    /// Per day, host, crawler and kind, requests and violations, columns
    /// [`DAILY_COLUMNS`].
    pub daily: DataFrame,
    /// Each crawler identity's category and operator.
    pub who: Who,
    /// `summary.json`.
    pub summary: Summary,
    /// The data `report.html` shows ([`Report::html`] writes the page).
    pub page: Value,
}

/// What `summary.json` reports besides the outcome.
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    /// Per-input accounting.
    pub inputs: Vec<FileReport>,
    /// Snapshot paths.
    pub snapshots: Vec<String>,
    /// Settings, as the user gave them (`{"robots_cache_grace": "24h", ...}`).
    pub settings: BTreeMap<String, Value>,
    /// Seconds the run took (volatile: the one value that differs between
    /// two runs over the same input).
    pub seconds: f64,
    /// The shard this run audited (`--shard K/N`), if any.
    pub shard: Option<Shard>,
    /// The `--ip-ranges` files loaded, with when each was made.
    pub ip_ranges: Vec<RangeFile>,
    /// What the run found the reader should know (no `--ip-ranges`, a
    /// `--site` the snapshot lacks, ...): `summary.json`'s `warnings`,
    /// before the report's own.
    pub warnings: Vec<String>,
}

/// The categories whose violations the headline leaves out: those left
/// out by default ([`crate::bots::Category::LEFT_OUT_BY_DEFAULT`]) that the
/// run's `include` setting does not name.
fn left_out_categories(settings: &BTreeMap<String, Value>) -> Vec<&'static str> {
    let included: Vec<&str> = settings
        .get("include")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    crate::bots::Category::LEFT_OUT_BY_DEFAULT
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !included.contains(c))
        .collect()
}

/// How a range file's warning starts.
const RANGE_WARNING: &str = "IP range file";

/// A warning for each range file made more than
/// [`crate::bots::RANGES_VALID_FOR`] before the first crawler request or
/// after the last (`span`): outside it, a claimed crawler from outside the
/// file's ranges is unverified, not an impersonator.
fn range_warnings(files: &[RangeFile], (first, last): (i64, i64)) -> Vec<String> {
    let valid = crate::bots::RANGES_VALID_FOR;
    files
        .iter()
        .filter_map(|f| {
            let created = f.created.as_deref()?;
            let made = i64::try_from(created.parse::<jiff::Timestamp>().ok()?.as_nanosecond()).ok()?;
            let (from, until) = (made.saturating_sub(valid), made.saturating_add(valid));
            (first < from || last > until).then(|| {
                format!(
                    "{RANGE_WARNING} {} was made {created}, but the log's crawler requests run from {} to {}: it tells impersonators only from {} to {} (30 days either side); a claimed crawler from outside its ranges at other times is reported unverified (verified null), not as an impersonator",
                    f.file,
                    format_time(first),
                    format_time(last),
                    format_time(from),
                    format_time(until)
                )
            })
        })
        .collect()
}

/// Each crawler identity's category (from `categories`) and operator
/// (from the per-crawler aggregates' `operator`, else from
/// `charged_operators`:
/// those of crawlers charged without a request, which have no aggregate).
fn who_of(
    categories: &BTreeMap<String, String>,
    partials: &DataFrame,
    charged_operators: &BTreeMap<String, String>,
) -> PolarsResult<Who> {
    let mut who: Who = categories
        .iter()
        .map(|(c, category)| (c.clone(), (category.clone(), None)))
        .collect();
    let names = partials.column("crawler")?.str()?;
    let operators = partials.column("operator")?.str()?;
    for (name, operator) in names.iter().zip(operators.iter()) {
        if let (Some(name), Some(operator)) = (name, operator) {
            if let Some((_, o)) = who.get_mut(name) {
                *o = Some(operator.to_string());
            }
        }
    }
    for (crawler, operator) in charged_operators {
        if let Some((_, o)) = who.get_mut(crawler) {
            o.get_or_insert_with(|| operator.clone());
        }
    }
    Ok(who)
}

/// The `daily` table of [`Parts`]: a shard's, or counted from one run's
/// activity and its violations while the other tables are built.
enum Daily<'a> {
    /// The table itself.
    Frame(DataFrame),
    /// Counted from this activity and the violations.
    Of(&'a [crate::replay::CrawlerActivity]),
}

/// What a report is made of: one run's outcome, or shards' reports read
/// back by `merge`.
struct Parts<'a> {
    /// The violations table, sorted.
    violations: Violations,
    findings: &'a [Finding],
    /// Per-crawler request aggregates ([`partials_frame`]).
    partials: LazyFrame,
    /// The `daily` table.
    daily: Daily<'a>,
    /// Operators of crawlers the partials do not name (charged without a
    /// request in the run).
    operators: &'a BTreeMap<String, String>,
    /// Crawler identity to its category (`search`, `ai`, ...).
    categories: &'a BTreeMap<String, String>,
    counts: &'a Counts,
    /// `summary.json`'s `inputs`.
    inputs: Inputs,
    settings: &'a BTreeMap<String, Value>,
    /// The run's warnings.
    warnings: &'a [String],
    seconds: f64,
    shard: Option<Shard>,
}

impl Report {
    /// Builds the frames and the summary (with a copy of the violations
    /// table: [`Report::build_taking_rows`] takes it instead).
    ///
    /// # Errors
    /// polars failing to build a frame (which would be a bug).
    pub fn build(outcome: &Outcome, run: &RunInfo) -> Result<Report, ReportError> {
        Report::of_outcome(outcome, outcome.violations.clone(), run)
    }

    /// As [`Report::build`], and takes the outcome's violations instead
    /// of a copy of them (the table is the audit's largest memory).
    /// `outcome.violations` is empty afterwards.
    ///
    /// # Errors
    /// As [`Report::build`].
    pub fn build_taking_rows(outcome: &mut Outcome, run: &RunInfo) -> Result<Report, ReportError> {
        let violations = std::mem::take(&mut outcome.violations);
        // The replay's working memory is freed by now: back to the system.
        crate::memory::give_back_freed();
        Report::of_outcome(outcome, violations, run)
    }

    fn of_outcome(
        outcome: &Outcome,
        violations: Violations,
        run: &RunInfo,
    ) -> Result<Report, ReportError> {
        let mut categories = BTreeMap::new();
        for r in &outcome.activity {
            // A crawler's rows are one per host: its name copied once.
            if !categories.contains_key(&*r.crawler) {
                categories.insert(r.crawler.to_string(), r.category.to_string());
            }
        }
        for (crawler, (category, _)) in &outcome.charged_without_requests {
            categories
                .entry(crawler.clone())
                .or_insert_with(|| category.to_string());
        }
        let inputs = Inputs::of(&run.inputs, &run.snapshots).with_ip_ranges(run.ip_ranges.clone());
        let operators: BTreeMap<String, String> = outcome
            .charged_without_requests
            .iter()
            .filter_map(|(c, (_, o))| Some((c.clone(), o.clone()?)))
            .collect();
        Report::assemble(Parts {
            violations,
            findings: &outcome.findings,
            partials: partials_frame(&activity_frame(&outcome.activity)?),
            daily: Daily::Of(&outcome.activity),
            operators: &operators,
            categories: &categories,
            counts: &outcome.counts,
            inputs,
            settings: &run.settings,
            warnings: &run.warnings,
            seconds: run.seconds,
            shard: run.shard,
        })
    }

    /// The report of its parts: one run's, or the sum of shards'.
    fn assemble(parts: Parts<'_>) -> Result<Report, ReportError> {
        let violations = parts.violations;
        let (findings, partials) = rayon::join(
            || findings_frame(parts.findings),
            || parts.partials.collect(),
        );
        let (findings, partials) = (findings?, partials?);
        let who = who_of(parts.categories, &partials, parts.operators)?;
        // Monitors' violations (the site's own configuration) are left out
        // of the headline unless `--include` named their category.
        let left_out = left_out_categories(parts.settings);
        // The identities left out, with their category (few: usually none).
        let left_out_identities: std::collections::HashMap<&str, &str> = parts
            .categories
            .iter()
            .filter(|(_, c)| left_out.contains(&c.as_str()))
            .map(|(i, c)| (i.as_str(), c.as_str()))
            .collect();
        let is_left_out = |crawler: &str| left_out_identities.contains_key(crawler);
        // Two passes over the rows side by side: the daily table's, and
        // the per-crawler counts (in the table's order, in parallel parts),
        // of which the crawlers table and the summary's totals are made,
        // and which the page's passes follow (the page does not read the
        // daily table).
        let daily = parts.daily;
        let (daily, rest) = rayon::join(
            || match daily {
                Daily::Frame(frame) => Ok(frame),
                Daily::Of(activity) => daily_frame(activity, &violations),
            },
            || -> Result<_, ReportError> {
                // One pass over the rows counts them per crawler; the
                // crawlers table and the totals are made of those counts.
                let by_crawler = violations_by_crawler(&violations);
                let crawlers = crawlers_frame(partials.lazy(), &by_crawler, &who)?;
                let (totals, not_counted) = violation_totals(&by_crawler, &left_out_identities);
                let mut finding_totals: BTreeMap<String, u64> = BTreeMap::new();
                for f in parts.findings {
                    let total = finding_totals
                        .entry(f.kind.as_str().to_string())
                        .or_insert(0);
                    *total = total.saturating_add(f.count);
                }
                let first = crawlers.column("first_seen")?.cast(&DataType::Int64)?;
                let last = crawlers.column("last_seen")?.cast(&DataType::Int64)?;
                // The tables' times are microseconds.
                let span = match (first.i64()?.min(), last.i64()?.max()) {
                    (Some(a), Some(b)) => {
                        Some((tables::nanos_of_micros(a), tables::nanos_of_micros(b)))
                    }
                    _ => None,
                };
                let window = span.map(|(a, b)| Window {
                    first: format_time(a),
                    last: format_time(b),
                });
                let mut warnings = parts.warnings.to_vec();
                if let Some(span) = span {
                    warnings.extend(range_warnings(&parts.inputs.ip_ranges, span));
                }
                let top_crawlers = crawler_rows(&crawlers)?
                    .iter()
                    .filter(|r| !is_left_out(&r.crawler))
                    .take(10)
                    .map(|r| TopCrawler {
                        crawler: r.crawler.clone(),
                        requests: r.requests,
                        violations: r.total(),
                    })
                    .collect();
                let summary = Summary {
                    tool: Tool {
                        name: "crawlaudit".into(),
                        version: env!("CARGO_PKG_VERSION").into(),
                    },
                    inputs: parts.inputs,
                    window,
                    warnings,
                    not_counted,
                    requests: parts.counts.clone(),
                    violations: totals,
                    findings: finding_totals,
                    top_crawlers,
                    settings: parts.settings.clone(),
                    run: RunTime {
                        seconds: (parts.seconds * 1000.0).round() / 1000.0,
                    },
                    // What merge needs that the tables do not hold.
                    shard: parts.shard.map(|shard| ShardPart {
                        index: u64::from(shard.index),
                        count: u64::from(shard.count),
                        categories: parts.categories.clone(),
                        // Named with the page's evidence ([`Report::name_rule_groups`]).
                        rule_groups: Vec::new(),
                    }),
                };
                let page = html::data(
                    &html::PageParts {
                        summary: &summary,
                        who: &who,
                        violations: &violations,
                        crawlers: &crawlers,
                        findings: parts.findings,
                    },
                    &left_out,
                )?;
                Ok((crawlers, summary, page))
            },
        );
        let (daily, (crawlers, summary, page)) = (daily?, rest?);
        Ok(Report {
            violations,
            crawlers,
            findings,
            daily,
            who,
            summary,
            page,
        })
    }

    /// Names the robots.txt group of each rule the page's evidence shows
    /// (`User-agent: GPTBot, CCBot`), as `lookup` finds it by host,
    /// robots.txt version and line: looked up for the few rules shown, not
    /// for every violation. A shard's summary keeps them for `merge`.
    pub fn name_rule_groups(&mut self, lookup: impl Fn(&str, &str, u32) -> Option<String>) {
        let mut named = Vec::new();
        for e in self.page["evidence"]["rows"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            let (Some(host), Some(version), Some(line)) = (
                e["host"].as_str(),
                e["version"].as_str(),
                e["line"].as_u64().and_then(|l| u32::try_from(l).ok()),
            ) else {
                continue;
            };
            if let Some(group) = lookup(host, version, line) {
                named.push(RuleGroup {
                    host: host.to_string(),
                    version: version.to_string(),
                    line,
                    group: group.clone(),
                });
                e["group"] = Value::String(html::clip(&group));
            }
        }
        if let Some(shard) = &mut self.summary.shard {
            named.sort_by(|a, b| (&a.host, &a.version, a.line).cmp(&(&b.host, &b.version, b.line)));
            named.dedup();
            shard.rule_groups = named;
        }
    }

    /// `report.html`: the page, linking the files `formats` writes.
    pub fn html(&self, formats: OutputFormats) -> String {
        html::page(&self.page, formats)
    }

    /// How many rows of the findings table each kind has.
    ///
    /// # Errors
    /// The `kind` column missing or not strings (which would be a bug).
    pub fn finding_rows_by_kind(&self) -> Result<BTreeMap<String, u64>, ReportError> {
        let mut rows = BTreeMap::new();
        for kind in self.findings.column("kind")?.str()?.iter().flatten() {
            *rows.entry(kind.to_string()).or_insert(0) += 1;
        }
        Ok(rows)
    }

    /// The crawlers table's rows, in its order (most violations first).
    ///
    /// # Errors
    /// A column missing or of another type (which would be a bug).
    pub fn crawler_rows(&self) -> Result<Vec<CrawlerRow>, ReportError> {
        Ok(crawler_rows(&self.crawlers)?)
    }

    /// Writes the report into `out`, atomically: everything goes into a
    /// temporary directory beside it, which replaces `out` only when
    /// complete, so a failed run leaves the previous report (or none).
    /// `out` must be new, empty, or a previous report ([`check_out`]): the
    /// report never replaces what it did not write.
    ///
    /// # Errors
    /// An `out` that may not be replaced ([`ReportError::Out`]), or a file
    /// or directory that cannot be written (the temporary directory is
    /// removed).
    pub fn write(&self, out: &Path, formats: OutputFormats) -> Result<(), ReportError> {
        let target = check_out(out)?;
        let parent = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|source| ReportError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "reports".into());
        out_dir::remove_stale(parent, &name);
        let tmp =
            out_dir::temp_dir_beside(parent, &name, "tmp").map_err(|e| ReportError::Write {
                path: out.to_path_buf(),
                message: e.to_string(),
            })?;
        // Dropped on an error: the temporary directory is removed.
        self.write_files(tmp.path(), out, formats)?;
        out_dir::swap_in(tmp, &target, parent, &name)
    }

    /// The files of this report that `merge` reads (its Parquet tables and
    /// `summary.json`), in memory, each as written to a report directory:
    /// what a distributed run's shard task hands to the driver instead of a
    /// directory (`distributed`, `cli::spark`). The tables are encoded in
    /// parallel.
    ///
    /// # Errors
    /// A table polars cannot encode.
    pub fn shard_files(&self) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        use rayon::prelude::*;
        let tables = [
            ("crawlers", &self.crawlers),
            ("findings", &self.findings),
            ("daily", &self.daily),
        ];
        let (violations, others) = rayon::join(
            || -> PolarsResult<Vec<u8>> {
                let mut bytes = Vec::new();
                violations::write_parquet(&mut bytes, &self.violations, &self.who)?;
                Ok(bytes)
            },
            || -> PolarsResult<Vec<(String, Vec<u8>)>> {
                tables
                    .par_iter()
                    .map(|(name, df)| {
                        let mut bytes = Vec::new();
                        ParquetWriter::new(&mut bytes).finish(&mut (*df).clone())?;
                        Ok((format!("{name}.parquet"), bytes))
                    })
                    .collect()
            },
        );
        let mut files = vec![("violations.parquet".to_string(), violations?)];
        files.extend(others?);
        files.push((
            "summary.json".to_string(),
            self.summary.to_json().into_bytes(),
        ));
        Ok(files)
    }

    fn write_files(
        &self,
        dir: &Path,
        out: &Path,
        formats: OutputFormats,
    ) -> Result<(), ReportError> {
        // The marker first: a directory a killed run left is then either
        // empty or marked, and the next run may remove it.
        write_file(&dir.join(MARKER), &out.join(MARKER), |w| {
            w.write_all(out_dir::MARKER_TEXT.as_bytes())
                .map_err(|e| e.to_string())
        })?;
        type Job<'a> = Box<dyn FnOnce(&mut BufWriter<Writeback>) -> Result<(), String> + Send + 'a>;
        let tables = [
            ("crawlers", &self.crawlers),
            ("findings", &self.findings),
            ("daily", &self.daily),
        ];
        // CSV and NDJSON show times as RFC 3339 text.
        let texts = if formats.csv || formats.json {
            tables
                .iter()
                .map(|(_, df)| rfc3339_times(df))
                .collect::<PolarsResult<Vec<_>>>()?
        } else {
            Vec::new()
        };
        let mut jobs: Vec<(String, Job<'_>)> = Vec::new();
        // The violations table is written from its rows, never as one frame.
        let violations = &self.violations;
        let who = &self.who;
        if formats.csv {
            jobs.push((
                "violations.csv".into(),
                Box::new(move |w| {
                    csv_text::write_header(w, &VIOLATION_COLUMNS)?;
                    violations::write_text(w, violations, &violations::TextStyle::csv(), who)
                }),
            ));
        }
        if formats.parquet {
            let beside_text = formats.csv || formats.json;
            jobs.push((
                "violations.parquet".into(),
                Box::new(move |w| {
                    let encode = |w: &mut BufWriter<Writeback>| {
                        violations::write_parquet(w, violations, who).map_err(|e| e.to_string())
                    };
                    match parquet_pool(beside_text) {
                        Some(pool) => pool.install(|| encode(w)),
                        None => encode(w),
                    }
                }),
            ));
        }
        if formats.json {
            jobs.push((
                "violations.ndjson".into(),
                Box::new(move |w| {
                    violations::write_text(w, violations, &violations::TextStyle::ndjson(), who)
                }),
            ));
        }
        for (i, (name, df)) in tables.iter().enumerate() {
            if formats.csv {
                let frame = &texts[i];
                jobs.push((
                    format!("{name}.csv"),
                    Box::new(move |w| csv_text::write_csv(w, frame)),
                ));
            }
            if formats.parquet {
                let mut frame = (*df).clone();
                jobs.push((
                    format!("{name}.parquet"),
                    Box::new(move |w| {
                        ParquetWriter::new(w)
                            .finish(&mut frame)
                            .map(|_| ())
                            .map_err(|e| e.to_string())
                    }),
                ));
            }
            if formats.json {
                let frame = &texts[i];
                jobs.push((
                    format!("{name}.ndjson"),
                    Box::new(move |w| ndjson::write_ndjson(w, frame)),
                ));
            }
        }
        if formats.html {
            // The page is built by its own writer, beside the others.
            jobs.push((
                "report.html".into(),
                Box::new(move |w| {
                    let page = self.html(formats);
                    w.write_all(page.as_bytes()).map_err(|e| e.to_string())
                }),
            ));
        }
        if formats.json {
            let text = self.summary.to_json();
            jobs.push((
                "summary.json".into(),
                Box::new(move |w| w.write_all(text.as_bytes()).map_err(|e| e.to_string())),
            ));
        }
        // The files are independent: written at once, each by a thread of
        // its own that hands its rows to the worker pool in blocks
        // (a pool worker waiting for its blocks could otherwise take up
        // another whole file and keep its own blocks waiting).
        std::thread::scope(|scope| {
            let writers: Vec<_> = jobs
                .into_iter()
                .map(|(name, job)| {
                    scope.spawn(move || write_file(&dir.join(&name), &out.join(&name), job))
                })
                .collect();
            writers
                .into_iter()
                .map(|w| {
                    w.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect::<Result<Vec<()>, ReportError>>()
        })?;
        Ok(())
    }
}

/// How many workers encode the violations' Parquet file in a pool of
/// their own, given the worker pool's `threads`, the processor's `cores`,
/// and whether text files are written beside it; `None`: in the worker
/// pool, as the rest of the report.
///
/// The text files' blocks are formatted by the worker pool, a wave at a
/// time, and reach the disk only as fast as they are formatted; in the
/// same pool, the Parquet file's column jobs kept both workers busy while
/// the text files' waves waited in the pool's queue (the disk idle), and
/// the text files then ended the run alone, at the disk's pace. In a pool
/// of their own the two share the cores, and the disk is kept busy from
/// the start. A run held to fewer threads than the processor has cores
/// (`--threads`) keeps to its threads: no second pool.
fn parquet_workers(threads: usize, cores: usize, beside_text: bool) -> Option<usize> {
    (beside_text && threads >= cores).then_some(threads)
}

/// The pool of [`parquet_workers`], when there is one (and the system
/// gives it threads).
fn parquet_pool(beside_text: bool) -> Option<rayon::ThreadPool> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let workers = parquet_workers(rayon::current_num_threads(), cores, beside_text)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|i| format!("crawlaudit-parquet-{i}"))
        .build()
        .ok()
}

/// Creates `path`, lets `fill` write it, then flushes it and syncs it to
/// disk (a full disk shows here at the latest). Errors name `shown`, the
/// file as the finished report calls it.
fn write_file(
    path: &Path,
    shown: &Path,
    fill: impl FnOnce(&mut BufWriter<Writeback>) -> Result<(), String>,
) -> Result<(), ReportError> {
    let fail = |message: String| ReportError::Write {
        path: shown.to_path_buf(),
        message,
    };
    let file = File::create(path).map_err(|e| fail(e.to_string()))?;
    let mut w = BufWriter::new(Writeback::new(file));
    if let Err(message) = fill(&mut w) {
        // The disk's own words when a write failed (a full disk), not a
        // writer's paraphrase of them.
        return Err(fail(match w.get_ref().error() {
            Some(cause) if !message.contains(cause) => format!("{cause} ({message})"),
            _ => message,
        }));
    }
    let file = w.into_inner().map_err(|e| fail(e.error().to_string()))?;
    file.sync().map_err(|e| fail(e.to_string()))
}

/// The violations added up by kind (from their counts per crawler
/// identity), those of the identities left out of the headline
/// (`left_out`, identity to category) apart, by category.
fn violation_totals(
    by_crawler: &CrawlerCounts<'_>,
    left_out: &std::collections::HashMap<&str, &str>,
) -> (ViolationTotals, BTreeMap<String, u64>) {
    let mut totals = ViolationTotals::default();
    let mut not_counted: BTreeMap<String, u64> = BTreeMap::new();
    for (crawler, (kinds, _)) in by_crawler {
        match left_out.get(crawler) {
            Some(category) => {
                *not_counted.entry((*category).to_string()).or_default() +=
                    kinds.iter().sum::<u64>()
            }
            None => {
                for kind in ViolationKind::ALL {
                    totals.add_rows(kind, kinds[kind.index()]);
                }
            }
        }
    }
    (totals, not_counted)
}

#[cfg(test)]
mod tests;
