//! `--state FILE`: the replay's carried-over [`State`] as one Parquet table,
//! read before a run and rewritten atomically after it.
//!
//! One row per entry: `kind` is `last` (a crawler identity's last request
//! on a host: `time`, `resolution`, `robots_fetch`) or `fetch` (an engine
//! crawler's 2xx fetch of `url`: `time`, `verified`, `client`, `method`,
//! `status`). Times are UTC nanoseconds.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use polars::prelude::*;
use polars_arrow::array::{ArrayRef, BooleanArray, PrimitiveArray};

use super::{ReportError, parquet_groups};
use crate::replay::{Fetch, FetchRow, HostState, LastRequest, State};
use crate::text::Interner;
use crate::time::{ALWAYS, DAY};

const COLUMNS: [&str; 11] = [
    "kind",
    "host",
    "crawler",
    "url",
    "time",
    "resolution",
    "robots_fetch",
    "verified",
    "client",
    "method",
    "status",
];

fn bad(path: &Path, message: impl std::fmt::Display) -> ReportError {
    ReportError::State {
        path: path.to_path_buf(),
        message: format!("cannot write: {message}"),
    }
}

/// The longest timestamp resolution a state row may carry (a day).
const MAX_RESOLUTION: i64 = DAY;

/// Reads a state file; a file that does not exist yet is the empty state
/// (the first night).
///
/// Everything in it is checked (it may be corrupt, or written by someone
/// else): column types, no missing values where a value is needed, times
/// that are real instants, resolutions from a nanosecond to a day, fetch
/// statuses that are 2xx. A fault of the Parquet reader on corrupt bytes is
/// an error naming the file, never a crash.
///
/// # Errors
/// A file that cannot be read or is not a valid state file.
pub fn read_state(path: &Path) -> Result<State, ReportError> {
    open_state(path)?.into_state()
}

/// A state file read and its columns checked ([`open_state`]), its rows
/// not yet turned into a [`State`] ([`StateFile::into_state`]: a run does
/// that while it reads its logs).
#[derive(Debug)]
pub struct StateFile {
    /// Its columns; `None` when there is no file yet (the first night).
    columns: Option<Columns>,
    path: std::path::PathBuf,
}

/// Reads a state file and checks its columns: what [`read_state`] does but
/// for the rows, whose checks come with [`StateFile::into_state`].
///
/// # Errors
/// A file that cannot be read, is not Parquet, or lacks a state's columns.
pub fn open_state(path: &Path) -> Result<StateFile, ReportError> {
    let invalid = |e: &dyn std::fmt::Display| invalid_state(path, e);
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(StateFile {
                columns: None,
                path: path.to_path_buf(),
            });
        }
        Err(e) => {
            return Err(ReportError::State {
                path: path.to_path_buf(),
                message: format!("cannot read: {e}"),
            });
        }
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(invalid(&"not a regular file"));
    }
    let df = crate::contain::read_parquet(file).map_err(|e| invalid(&e))?;
    let columns = Columns::of(&df).map_err(|e| invalid(&e))?;
    Ok(StateFile {
        columns: Some(columns),
        path: path.to_path_buf(),
    })
}

impl StateFile {
    /// The state its rows hold, each row checked.
    ///
    /// # Errors
    /// A row that is not a valid state entry.
    pub fn into_state(self) -> Result<State, ReportError> {
        match self.columns {
            None => Ok(State::default()),
            Some(columns) => state_of(columns).map_err(|e| invalid_state(&self.path, &e)),
        }
    }
}

fn invalid_state(path: &Path, e: &dyn std::fmt::Display) -> ReportError {
    ReportError::State {
        path: path.to_path_buf(),
        message: format!("not a crawlaudit state file ({e}): remove it to start afresh"),
    }
}

/// A state file's columns, of their types.
#[derive(Debug)]
struct Columns {
    kind: StringChunked,
    host: StringChunked,
    crawler: StringChunked,
    url: StringChunked,
    client: StringChunked,
    method: StringChunked,
    time: Int64Chunked,
    resolution: Int64Chunked,
    robots: Int64Chunked,
    status: Int64Chunked,
    verified: BooleanChunked,
}

impl Columns {
    /// The columns of `df`; the error says which is missing or of another
    /// type.
    fn of(df: &DataFrame) -> Result<Columns, String> {
        let column = |name: &str| df.column(name).map_err(|e| e.to_string());
        let text = |name: &str| -> Result<StringChunked, String> {
            Ok(column(name)?.str().map_err(|e| e.to_string())?.clone())
        };
        let int = |name: &str| -> Result<Int64Chunked, String> {
            Ok(column(name)?.i64().map_err(|e| e.to_string())?.clone())
        };
        Ok(Columns {
            kind: text("kind")?,
            host: text("host")?,
            crawler: text("crawler")?,
            url: text("url")?,
            client: text("client")?,
            method: text("method")?,
            time: int("time")?,
            resolution: int("resolution")?,
            robots: int("robots_fetch")?,
            status: int("status")?,
            verified: column("verified")?
                .bool()
                .map_err(|e| e.to_string())?
                .clone(),
        })
    }
}

/// Whether a value is there and not empty; the error names the row and
/// the column.
fn need<'a>(v: Option<&'a str>, row: usize, name: &str) -> Result<&'a str, String> {
    v.filter(|v| !v.is_empty())
        .ok_or_else(|| format!("row {row} has no {name}"))
}

/// The state in a state file's columns; the error says what is wrong.
fn state_of(columns: Columns) -> Result<State, String> {
    let Columns {
        kind,
        host,
        crawler,
        url,
        client,
        method,
        time,
        resolution,
        robots,
        status,
        verified,
    } = columns;
    // Rows grouped by host as they come. A state file lists its hosts in
    // order twice (their last requests, then their fetches): the first
    // run's hosts are `parts`, in order, and a later row of a host in it
    // joins its part, found by a cursor that only moves forward (100,000
    // hosts: no second copy of each name, and no merge of two lists).
    // Rows that cannot join so (a host not in the first run, met among
    // them, or a later run out of order) start parts of their own,
    // `extra`, merged by host afterwards. A part's fetches are added to it
    // at its end (in a state file's order: nothing to sort).
    let mut parts: Vec<(Arc<str>, HostState)> = Vec::new();
    let mut extra: Vec<(Arc<str>, HostState)> = Vec::new();
    // The part the rows go to: `parts`' (by index) or `extra`'s last.
    let mut current: Option<Part> = None;
    let mut cursor = 0;
    let mut fetches: Vec<FetchRow> = Vec::new();
    // Crawler names, clients and methods shared, as a night's rows share
    // them: one copy per distinct text, the previous row's looked at
    // first (a crawler's fetches follow each other). A dictionary-encoded
    // column's cells of one text are one copy of it: the previous row's
    // cell is known again by its address, without comparing bytes.
    let mut texts = Interner::default();
    let [
        mut last_identity,
        mut crawler_name,
        mut last_client,
        mut last_method,
    ]: [Option<(*const u8, Arc<str>)>; 4] = Default::default();
    let mut shared = |last: &mut Option<(*const u8, Arc<str>)>, text: &str| -> Arc<str> {
        match last {
            Some((at, t)) if std::ptr::eq(*at, text.as_ptr()) && t.len() == text.len() => t.clone(),
            Some((at, t)) if **t == *text => {
                *at = text.as_ptr();
                t.clone()
            }
            _ => {
                let t = texts.get(text);
                *last = Some((text.as_ptr(), t.clone()));
                t
            }
        }
    };
    // The previous row's host cell: the same copy, the same part.
    let mut last_host: Option<&str> = None;
    // Each column as one array, read by row number: a cell is read only
    // for the rows of the kind that has it.
    let (kind, host, crawler, url, client, method) = (
        kind.rechunk(),
        host.rechunk(),
        crawler.rechunk(),
        url.rechunk(),
        client.rechunk(),
        method.rechunk(),
    );
    let (time, resolution, robots, status, verified) = (
        time.rechunk(),
        resolution.rechunk(),
        robots.rechunk(),
        status.rechunk(),
        verified.rechunk(),
    );
    let rows = kind.len();
    if rows == 0 {
        return Ok(State::default());
    }
    let (kind, host, crawler, url, client, method) = (
        kind.downcast_as_array(),
        host.downcast_as_array(),
        crawler.downcast_as_array(),
        url.downcast_as_array(),
        client.downcast_as_array(),
        method.downcast_as_array(),
    );
    let (time, resolution, robots, status, verified) = (
        time.downcast_as_array(),
        resolution.downcast_as_array(),
        robots.downcast_as_array(),
        status.downcast_as_array(),
        verified.downcast_as_array(),
    );
    for i in 0..rows {
        let row = i + 1;
        let instant = |v: Option<i64>, name: &str| -> Result<Option<i64>, String> {
            match v {
                // The earliest i64 means "always" in the snapshot.
                Some(ALWAYS) => Err(format!("row {row}: {name} is not an instant")),
                other => Ok(other),
            }
        };
        let (host, crawler) = (
            need(host.get(i), row, "host")?,
            need(crawler.get(i), row, "crawler")?,
        );
        let t = instant(time.get(i), "time")?.ok_or_else(|| format!("row {row} has no time"))?;
        let same_cell = last_host.is_some_and(|h| std::ptr::eq(h, host));
        last_host = Some(host);
        if !same_cell && current.is_none_or(|part| *part.of(&mut parts, &mut extra).0 != *host) {
            if let Some(part) = current {
                part.of(&mut parts, &mut extra)
                    .1
                    .extend_fetches(fetches.drain(..));
            }
            current = Some(if parts.last().is_none_or(|(h, _)| **h < *host) {
                // In order after every part so far.
                parts.push((host.into(), HostState::default()));
                cursor = parts.len() - 1;
                Part::First(cursor)
            } else {
                cursor = seek(&parts, cursor, host);
                if cursor < parts.len() && *parts[cursor].0 == *host {
                    Part::First(cursor)
                } else {
                    extra.push((host.into(), HostState::default()));
                    Part::Extra
                }
            });
        }
        let entries = &mut current
            .expect("a part for this host")
            .of(&mut parts, &mut extra)
            .1;
        match kind.get(i) {
            Some("last") => {
                let resolution = resolution
                    .get(i)
                    .filter(|r| (1..=MAX_RESOLUTION).contains(r))
                    .ok_or_else(|| {
                        format!("row {row}: the resolution is missing or not from 1 ns to a day")
                    })?;
                let last = LastRequest {
                    time: t,
                    resolution,
                    robots_fetch: instant(robots.get(i), "robots_fetch")?,
                };
                entries.set_last(shared(&mut last_identity, crawler), last);
            }
            Some("fetch") => {
                let status = status
                    .get(i)
                    .filter(|s| (200..300).contains(s))
                    .ok_or_else(|| format!("row {row}: a fetch's status must be 2xx"))?;
                let url = need(url.get(i), row, "url")?;
                let crawler = shared(&mut crawler_name, crawler);
                fetches.push(FetchRow {
                    crawler,
                    url: url.to_string(),
                    fetch: Fetch {
                        time: t,
                        verified: verified.get(i),
                        client: shared(&mut last_client, client.get(i).unwrap_or_default()),
                        method: shared(&mut last_method, method.get(i).unwrap_or_default()),
                        status: status as u16,
                    },
                });
            }
            other => return Err(format!("row {row}: unknown row kind {other:?}")),
        }
    }
    if let Some(part) = current {
        part.of(&mut parts, &mut extra).1.extend_fetches(fetches);
    }
    parts.append(&mut extra);
    Ok(State::from_parts(parts))
}

/// The first of `parts` (in order of host) whose host is not before
/// `host`, looked for from `from`: a few steps forward (a state file's
/// second run of hosts meets the first run's in order), else by halves
/// (a file in another order).
fn seek(parts: &[(Arc<str>, HostState)], from: usize, host: &str) -> usize {
    let before = |p: &(Arc<str>, HostState)| *p.0 < *host;
    if from > 0 && !before(&parts[from - 1]) {
        return parts[..from].partition_point(before);
    }
    let mut at = from;
    for _ in 0..8 {
        if at == parts.len() || !before(&parts[at]) {
            return at;
        }
        at += 1;
    }
    at + parts[at..].partition_point(before)
}

/// Where [`state_of`] puts a row: the part of a host of the file's first
/// run of hosts, or the last of the parts that could not join one.
#[derive(Clone, Copy)]
enum Part {
    First(usize),
    Extra,
}

impl Part {
    /// The part: its host and its entries.
    fn of<'p>(
        self,
        parts: &'p mut [(Arc<str>, HostState)],
        extra: &'p mut [(Arc<str>, HostState)],
    ) -> &'p mut (Arc<str>, HostState) {
        match self {
            Part::First(i) => &mut parts[i],
            Part::Extra => extra.last_mut().expect("an extra part"),
        }
    }
}

/// One row of a state file, with its host.
#[derive(Clone, Copy)]
enum Row<'s> {
    /// A crawler identity's last request: the identity and the request.
    Last(&'s str, &'s (Arc<str>, LastRequest)),
    /// An engine crawler's fetch.
    Fetch(&'s str, &'s FetchRow),
}

impl<'s> Row<'s> {
    fn host(self) -> &'s str {
        match self {
            Row::Last(h, _) | Row::Fetch(h, _) => h,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Row::Last(..) => "last",
            Row::Fetch(..) => "fetch",
        }
    }

    fn crawler(self) -> &'s str {
        match self {
            Row::Last(_, (identity, _)) => identity,
            Row::Fetch(_, r) => &r.crawler,
        }
    }

    fn fetch(self) -> Option<&'s FetchRow> {
        match self {
            Row::Last(..) => None,
            Row::Fetch(_, r) => Some(r),
        }
    }

    fn last(self) -> Option<&'s LastRequest> {
        match self {
            Row::Last(_, (_, l)) => Some(l),
            Row::Fetch(..) => None,
        }
    }

    fn time(self) -> i64 {
        match self {
            Row::Last(_, (_, l)) => l.time,
            Row::Fetch(_, r) => r.fetch.time,
        }
    }
}

/// A state's rows in a state file's order: each host's last requests by
/// identity, host by host, then each host's fetches by crawler and URL;
/// and each row's host by its number in the state's order (the hosts are
/// distinct, and [`group_arrays`] keys the host column by number, not by
/// the name's bytes).
fn rows(state: &State) -> (Vec<Row<'_>>, Vec<u32>) {
    let len = state
        .iter()
        .map(|(_, entries)| entries.lasts().len() + entries.fetches().len())
        .sum();
    let mut rows = Vec::with_capacity(len);
    let mut hosts = Vec::with_capacity(len);
    let numbered = || {
        state
            .iter()
            .enumerate()
            .map(|(n, (h, entries))| (u32::try_from(n).expect("fewer than 2^32 hosts"), h, entries))
    };
    for (n, h, entries) in numbered() {
        rows.extend(entries.lasts().iter().map(|l| Row::Last(h, l)));
        hosts.resize(rows.len(), n);
    }
    for (n, h, entries) in numbered() {
        rows.extend(entries.fetches().iter().map(|r| Row::Fetch(h, r)));
        hosts.resize(rows.len(), n);
    }
    (rows, hosts)
}

/// How a text cell of the state file is read from a row.
type TextCell<'s> = fn(Row<'s>) -> Option<&'s str>;

/// How a text column of the state file is read from a row, and whether
/// it may be null; `None` for the columns that are not text. The one
/// definition of each text column, which [`state_frame`] and the Parquet
/// writer's arrays ([`group_arrays`]) both read.
fn text_cell<'s>(column: &str) -> Option<(TextCell<'s>, bool)> {
    let (cell, nullable): (TextCell<'s>, bool) = match column {
        "kind" => (|r| Some(r.kind()), false),
        "host" => (|r| Some(r.host()), false),
        "crawler" => (|r| Some(r.crawler()), false),
        "url" => (|r| r.fetch().map(|f| f.url.as_str()), true),
        "client" => (|r| r.fetch().map(|f| &*f.fetch.client), true),
        "method" => (|r| r.fetch().map(|f| &*f.fetch.method), true),
        _ => return None,
    };
    Some((cell, nullable))
}

/// How an integer column of the state file other than `time` (never
/// null) is read from a row; `None` for the other columns.
fn int_cell<'s>(column: &str) -> Option<fn(Row<'s>) -> Option<i64>> {
    Some(match column {
        "resolution" => |r| r.last().map(|l| l.resolution),
        "robots_fetch" => |r| r.last().and_then(|l| l.robots_fetch),
        "status" => |r| r.fetch().map(|f| i64::from(f.fetch.status)),
        _ => return None,
    })
}

/// Whether a row's fetch was verified (null for a last request, or when
/// not known).
fn verified(r: Row<'_>) -> Option<bool> {
    r.fetch().and_then(|f| f.fetch.verified)
}

/// The state file's columns of `rows` as a frame holds them.
fn state_columns(rows: &[Row<'_>]) -> Vec<Column> {
    COLUMNS
        .iter()
        .map(|&name| {
            let name_ = name.into();
            if let Some((cell, nullable)) = text_cell(name) {
                let cells = rows.iter().map(|&r| cell(r));
                if nullable {
                    Column::new(name_, cells.collect::<Vec<_>>())
                } else {
                    Column::new(
                        name_,
                        cells.map(Option::unwrap_or_default).collect::<Vec<&str>>(),
                    )
                }
            } else if let Some(cell) = int_cell(name) {
                Column::new(name_, rows.iter().map(|&r| cell(r)).collect::<Vec<_>>())
            } else if name == "time" {
                Column::new(name_, rows.iter().map(|r| r.time()).collect::<Vec<_>>())
            } else {
                Column::new(name_, rows.iter().map(|&r| verified(r)).collect::<Vec<_>>())
            }
        })
        .collect()
}

/// A state as the state file's table (for its schema, and for tests: a
/// run writes the file from the rows, [`write_parquet`]).
fn state_frame(state: &State) -> PolarsResult<DataFrame> {
    DataFrame::new_infer_height(state_columns(&rows(state).0))
}

/// The arrays of a row group of `rows` (`hosts`: each row's host's number,
/// of `host_count`), as polars' writer would encode a frame of them: the
/// host column through [`parquet_groups::numbered_text_array`], the other
/// text columns through [`parquet_groups::text_array`], the others as the frame's columns hold
/// them (a validity mask only where a value is missing). The columns are
/// built in parallel.
fn group_arrays(rows: &[Row<'_>], hosts: &[u32], host_count: usize) -> Vec<ArrayRef> {
    use rayon::prelude::*;
    COLUMNS
        .par_iter()
        .map(|&name| {
            if name == "host" {
                // By the host's number: no lookup of a name's address or
                // bytes (100,000 hosts: 200,000 lookups in a map of
                // 100,000 addresses, and 100,000 names hashed).
                parquet_groups::numbered_text_array(
                    rows.len(),
                    host_count,
                    hosts.iter().zip(rows).map(|(&n, r)| (n, r.host())),
                )
            } else if let Some((cell, _)) = text_cell(name) {
                // All but the URLs are shared texts: one per host, two
                // kinds, and crawler names, clients and methods shared
                // by the state's rows (mostly: a text met at a new address
                // is looked up by its bytes).
                parquet_groups::text_array(rows.len(), name != "url", || {
                    rows.iter().map(|&r| cell(r))
                })
            } else if let Some(cell) = int_cell(name) {
                rows.iter()
                    .map(|&r| cell(r))
                    .collect::<PrimitiveArray<i64>>()
                    .boxed()
            } else if name == "time" {
                PrimitiveArray::from_vec(rows.iter().map(|r| r.time()).collect()).boxed()
            } else {
                rows.iter()
                    .map(|&r| verified(r))
                    .collect::<BooleanArray>()
                    .boxed()
            }
        })
        .collect()
}

/// Writes `state` as a state file's Parquet, in row groups of about
/// `group_rows`: byte for byte what polars' writer writes of
/// [`state_frame`], without the frame (the 100,000-host night's 433,000
/// rows: the frame's columns took 0.13–0.15 s, polars' dictionary
/// encoding of them 0.1 s more).
fn write_parquet_grouped(
    w: &mut impl std::io::Write,
    state: &State,
    group_rows: usize,
) -> PolarsResult<()> {
    let (rows, hosts) = rows(state);
    let host_count = state.iter().count();
    let schema = state_frame(&State::default())?.schema().as_ref().clone();
    parquet_groups::write(w, &schema, rows.len(), group_rows, |range| {
        Ok(group_arrays(
            &rows[range.clone()],
            &hosts[range],
            host_count,
        ))
    })
}

/// Writes `state` as a state file's Parquet.
fn write_parquet(w: &mut impl std::io::Write, state: &State) -> PolarsResult<()> {
    write_parquet_grouped(w, state, parquet_groups::ROW_GROUP_ROWS)
}

/// A state's bytes in another process (a distributed run's shard), read
/// and checked as [`read_state`] reads a file; `what` names it in errors.
///
/// # Errors
/// Bytes that are not a valid state file's.
pub fn read_state_bytes(bytes: Vec<u8>, what: &Path) -> Result<State, ReportError> {
    let df = crate::contain::read_parquet_bytes(bytes).map_err(|e| ReportError::State {
        path: what.to_path_buf(),
        message: format!("not a crawlaudit state ({e})"),
    })?;
    Columns::of(&df)
        .and_then(state_of)
        .map_err(|e| ReportError::State {
            path: what.to_path_buf(),
            message: format!("not a crawlaudit state ({e})"),
        })
}

/// `state` as the bytes of a state file (for a distributed run's shuffle).
///
/// # Errors
/// A table polars cannot encode (which would be a bug).
pub fn state_bytes(state: &State) -> Result<Vec<u8>, ReportError> {
    let mut bytes = Vec::new();
    write_parquet(&mut bytes, state)?;
    Ok(bytes)
}

/// Writes `state` to `path` atomically (a temporary file beside it, synced,
/// then renamed over it).
///
/// # Errors
/// The file cannot be written.
pub fn write_state(path: &Path, state: &State) -> Result<(), ReportError> {
    stage_state(path, state)?.commit()
}

/// A state written and synced beside its file, not yet in its place
/// ([`StagedState::commit`]); dropped, it is removed and the previous
/// state stays.
#[derive(Debug)]
pub struct StagedState {
    tmp: tempfile::NamedTempFile,
    path: std::path::PathBuf,
}

/// Writes `state` to a temporary file beside `path` and syncs it: the
/// state's work done ahead (a run stages it while its report is built),
/// its place taken only when the run is sure of it.
///
/// # Errors
/// The file cannot be written.
pub fn stage_state(path: &Path, state: &State) -> Result<StagedState, ReportError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "state".into());
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| bad(path, e))?;
    // Exclusively created, unpredictably named: no one can plant a link
    // under its name. Removed when dropped, unless persisted.
    let staged = (|| -> Result<tempfile::NamedTempFile, String> {
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}.tmp-"))
            .tempfile_in(parent)
            .map_err(|e| e.to_string())?;
        {
            let mut w = std::io::BufWriter::new(tmp.as_file());
            write_parquet(&mut w, state).map_err(|e| e.to_string())?;
            w.flush().map_err(|e| e.to_string())?;
        }
        tmp.as_file().sync_all().map_err(|e| e.to_string())?;
        Ok(tmp)
    })();
    match staged {
        Ok(tmp) => Ok(StagedState {
            tmp,
            path: path.to_path_buf(),
        }),
        Err(message) => Err(bad(
            path,
            format!("{message} (the previous state, if any, is unchanged)"),
        )),
    }
}

impl StagedState {
    /// Puts the state in its place (a rename over the previous one).
    ///
    /// # Errors
    /// The rename failed: the previous state, if any, is unchanged.
    pub fn commit(self) -> Result<(), ReportError> {
        let path = self.path;
        self.tmp.persist(&path).map(|_| ()).map_err(|e| {
            bad(
                &path,
                format!("{} (the previous state, if any, is unchanged)", e.error),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    #[test]
    fn a_state_survives_the_round_trip() {
        let mut state = State::default();
        state.insert_last(
            "shop.example",
            "AhrefsBot",
            LastRequest {
                time: 1_790_000_000_000_000_000,
                resolution: SECOND,
                robots_fetch: Some(1_789_999_000_000_000_000),
            },
        );
        state.insert_last(
            "shop.example",
            "Googlebot (unverified)",
            LastRequest {
                time: 5,
                resolution: 1_000,
                robots_fetch: None,
            },
        );
        for fetch in [
            Fetch {
                time: 1,
                verified: Some(true),
                client: "66.249.66.1".into(),
                method: "GET".into(),
                status: 200,
            },
            Fetch {
                time: 2,
                verified: None,
                client: "2001:db8::1".into(),
                method: "HEAD".into(),
                status: 204,
            },
        ] {
            state.push_fetch("shop.example", "Googlebot", "/a?b=1", fetch);
        }
        let dir = std::env::temp_dir().join(format!("crawlaudit-state-{}", std::process::id()));
        let path = dir.join("state.parquet");
        assert_eq!(read_state(&path).unwrap(), State::default());
        write_state(&path, &state).unwrap();
        assert_eq!(read_state(&path).unwrap(), state);
        write_state(&path, &State::default()).unwrap();
        assert_eq!(read_state(&path).unwrap(), State::default());
        std::fs::write(&path, b"not parquet").unwrap();
        let e = read_state(&path).unwrap_err().to_string();
        assert!(e.contains("not a crawlaudit state file"), "{e}");
        // In memory: the bytes of the file write_state writes, read back
        // with the same checks.
        write_state(&path, &state).unwrap();
        let bytes = state_bytes(&state).unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes);
        let shard = Path::new("the state of shard 1");
        assert_eq!(read_state_bytes(bytes, shard).unwrap(), state);
        let e = read_state_bytes(b"not parquet".to_vec(), shard)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the state of shard 1") && e.contains("not a crawlaudit state"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A state of `hosts` hosts: each with last requests of a few
    /// identities (some with a robots.txt fetch), and fetches of `urls`
    /// URLs in turn (none where `urls` is 0) from `clients` clients, by two
    /// crawlers, verified, not, or unknown, by GET or HEAD.
    fn state_of_hosts(hosts: usize, urls: usize, clients: usize) -> State {
        let mut state = State::default();
        for h in 0..hosts {
            let host = format!("h{h:04}.example");
            for (i, id) in ["AhrefsBot", "Googlebot", "Googlebot (unverified)"]
                .iter()
                .enumerate()
                .take(1 + h % 3)
            {
                state.insert_last(
                    &host,
                    id,
                    LastRequest {
                        time: (h * 10 + i) as i64,
                        resolution: [SECOND, 1, 1_000][(h + i) % 3],
                        robots_fetch: (h % 4 != 0).then_some(h as i64),
                    },
                );
            }
            for f in 0..if urls == 0 { 0 } else { h % 4 } {
                let n = h * 3 + f;
                state.push_fetch(
                    &host,
                    ["Googlebot", "bingbot"][n % 2],
                    &format!("/p/{}", n % urls),
                    Fetch {
                        time: n as i64,
                        verified: [Some(true), None, Some(false)][n % 3],
                        client: format!("192.0.2.{}", n % clients).into(),
                        method: ["GET", "HEAD"][usize::from(n % 7 == 0)].into(),
                        status: [200, 204][n % 2],
                    },
                );
            }
        }
        state
    }

    /// The state file written from the state's rows is byte for byte the
    /// one polars' writer writes of the state's frame: with no rows, only
    /// last requests, few and many distinct texts (a text column on
    /// either side of polars' choice between a dictionary and plain
    /// text), one row group and several.
    #[test]
    fn the_state_file_is_polars_file_of_the_frame() {
        let only_lasts = state_of_hosts(30, 0, 1);
        assert_eq!(only_lasts.len().1, 0);
        // Hosts with fetches and no last request, before, among and after
        // the others: their names first met among the fetches.
        let mut fetches_only = state_of_hosts(40, 3, 2);
        for host in ["a.example", "h0007x.example", "zz.example"] {
            fetches_only.push_fetch(
                host,
                "Googlebot",
                "/only",
                Fetch {
                    time: 1,
                    verified: None,
                    client: "192.0.2.9".into(),
                    method: "GET".into(),
                    status: 200,
                },
            );
        }
        for (state, group) in [
            (State::default(), 1000),
            (only_lasts, 1000),
            (fetches_only.clone(), 1000),
            (fetches_only, 50),
            (state_of_hosts(40, 3, 2), 1000),
            (state_of_hosts(400, 5, 50), 1000),
            (state_of_hosts(400, 10_000, 10_000), 1000),
            (state_of_hosts(400, 10_000, 10_000), 150),
            (state_of_hosts(60, 10_000, 3), 40),
        ] {
            let mut ours = Vec::new();
            write_parquet_grouped(&mut ours, &state, group).unwrap();
            let mut theirs = Vec::new();
            ParquetWriter::new(&mut theirs)
                .with_row_group_size(Some(group))
                .finish(&mut state_frame(&state).unwrap())
                .unwrap();
            let (lasts, lists) = state.len();
            assert!(
                ours == theirs,
                "{lasts} last requests, {lists} fetch lists in groups of {group}: the files differ"
            );
            assert_eq!(
                read_state_bytes(ours, Path::new("ours")).unwrap(),
                state,
                "{lasts} last requests, {lists} fetch lists"
            );
        }
    }

    /// A file's rows in any order (a file written by other means) are
    /// read as if each entry was added in turn: rows of a host joined to
    /// its part of the first run of hosts, or not (a host with fetches
    /// only, hosts met again out of order, in a third run).
    #[test]
    fn rows_in_any_order_are_read_as_added_in_turn() {
        let mut state = state_of_hosts(40, 5, 3);
        // Hosts with fetches and no last request: before, among and after
        // the others.
        for (i, host) in ["a.example", "h0007x.example", "zz.example"]
            .into_iter()
            .enumerate()
        {
            for t in 0..3 {
                state.push_fetch(
                    host,
                    "Googlebot",
                    &format!("/only/{}", t % 2),
                    Fetch {
                        time: (i * 10 + t) as i64,
                        verified: None,
                        client: "192.0.2.9".into(),
                        method: "GET".into(),
                        status: 200,
                    },
                );
            }
        }
        let written = rows(&state).0;
        assert!(written.len() > 100);
        let n = written.len();
        let mut orders: Vec<Vec<usize>> = vec![
            (0..n).collect(),
            (0..n).rev().collect(),
            // The fetches' run first, then the last requests'.
            (0..n)
                .filter(|&i| matches!(written[i], Row::Fetch(..)))
                .chain((0..n).filter(|&i| matches!(written[i], Row::Last(..))))
                .collect(),
            // Three runs of hosts: every third row at a time.
            (0..3).flat_map(|k| (k..n).step_by(3)).collect(),
        ];
        // Shuffles (a linear congruential generator's).
        for seed in 1..=4u64 {
            let mut order: Vec<usize> = (0..n).collect();
            let mut x = seed;
            for i in (1..n).rev() {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                order.swap(i, (x >> 33) as usize % (i + 1));
            }
            orders.push(order);
        }
        for (o, order) in orders.iter().enumerate() {
            let shuffled: Vec<Row<'_>> = order.iter().map(|&i| written[i]).collect();
            let mut expected = State::default();
            for row in &shuffled {
                match *row {
                    Row::Last(host, (identity, last)) => {
                        expected.insert_last(host, identity, *last)
                    }
                    Row::Fetch(host, r) => {
                        expected.push_fetch(host, &r.crawler, &r.url, r.fetch.clone())
                    }
                }
            }
            let mut frame = DataFrame::new_infer_height(state_columns(&shuffled)).unwrap();
            let mut bytes = Vec::new();
            ParquetWriter::new(&mut bytes).finish(&mut frame).unwrap();
            let read = read_state_bytes(bytes, Path::new("shuffled")).unwrap();
            assert!(
                read == expected,
                "order {o}: not the state of its rows added in turn"
            );
        }
        // The writer's order is the state itself.
        let mut frame = DataFrame::new_infer_height(state_columns(&written)).unwrap();
        let mut bytes = Vec::new();
        ParquetWriter::new(&mut bytes).finish(&mut frame).unwrap();
        assert_eq!(
            read_state_bytes(bytes, Path::new("written")).unwrap(),
            state
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_temporary_file_cannot_be_planted() {
        let dir =
            std::env::temp_dir().join(format!("crawlaudit-state-plant-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("profile");
        std::fs::write(&victim, "mine").unwrap();
        // The name a run used to write first, planted as a link.
        let planted = dir.join(format!(".state.parquet.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_state(&dir.join("state.parquet"), &State::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
        assert_eq!(
            read_state(&dir.join("state.parquet")).unwrap(),
            State::default()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Writes a state table with one row of `kind`, `time`, `resolution`
    /// and `status`, and returns what reading it says.
    fn read_row(
        name: &str,
        kind: &str,
        time: Option<i64>,
        resolution: Option<i64>,
        status: Option<i64>,
    ) -> String {
        let dir = std::env::temp_dir().join(format!(
            "crawlaudit-state-row-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.parquet");
        let text = |v: Option<&str>| Column::new("x".into(), [v]);
        let mut df = DataFrame::new_infer_height(vec![
            text(Some(kind)).with_name("kind".into()),
            text(Some("shop.example")).with_name("host".into()),
            text(Some("Googlebot")).with_name("crawler".into()),
            text(Some("/a")).with_name("url".into()),
            Column::new("time".into(), [time]),
            Column::new("resolution".into(), [resolution]),
            Column::new("robots_fetch".into(), [None::<i64>]),
            Column::new("verified".into(), [Some(true)]),
            text(Some("66.249.66.1")).with_name("client".into()),
            text(Some("GET")).with_name("method".into()),
            Column::new("status".into(), [status]),
        ])
        .unwrap();
        ParquetWriter::new(File::create(&path).unwrap())
            .finish(&mut df)
            .unwrap();
        let got = match read_state(&path) {
            Ok(s) => format!("ok {} {}", s.len().0, s.len().1),
            Err(e) => e.to_string(),
        };
        let _ = std::fs::remove_dir_all(&dir);
        got
    }

    #[test]
    fn tampered_rows_are_refused() {
        let second = Some(SECOND);
        assert_eq!(read_row("ok-last", "last", Some(5), second, None), "ok 1 0");
        assert_eq!(
            read_row("ok-fetch", "fetch", Some(5), None, Some(200)),
            "ok 0 1"
        );
        for (name, kind, time, resolution, status, message) in [
            (
                "always",
                "last",
                Some(i64::MIN),
                second,
                None,
                "row 1: time is not an instant",
            ),
            ("no-time", "last", None, second, None, "row 1 has no time"),
            (
                "zero-res",
                "last",
                Some(5),
                Some(0),
                None,
                "resolution is missing or not from 1 ns to a day",
            ),
            (
                "neg-res",
                "last",
                Some(5),
                Some(-9),
                None,
                "resolution is missing",
            ),
            (
                "huge-res",
                "last",
                Some(5),
                Some(i64::MAX),
                None,
                "resolution is missing",
            ),
            (
                "status",
                "fetch",
                Some(5),
                None,
                Some(70_000),
                "status must be 2xx",
            ),
            ("kind", "other", Some(5), None, None, "unknown row kind"),
        ] {
            let e = read_row(name, kind, time, resolution, status);
            assert!(
                e.contains("not a crawlaudit state file") && e.contains(message),
                "{name}: {e}"
            );
        }
    }

    #[test]
    fn corrupt_bytes_are_an_error_not_a_panic() {
        let dir =
            std::env::temp_dir().join(format!("crawlaudit-state-flip-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("state.parquet");
        let mut state = State::default();
        for i in 0..50 {
            state.insert_last(
                &format!("h{i}.example"),
                "AhrefsBot",
                LastRequest {
                    time: i,
                    resolution: SECOND,
                    robots_fetch: Some(i),
                },
            );
        }
        write_state(&path, &state).unwrap();
        let good = std::fs::read(&path).unwrap();
        // Every byte flipped in turn, and four at once: an error or a
        // state, never a panic.
        let mut errors = 0;
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x5a;
            for j in [i * 7, i * 13, i * 31] {
                let k = j % bad.len();
                bad[k] = bad[k].wrapping_add((i as u8).wrapping_add(1));
            }
            std::fs::write(&path, &bad).unwrap();
            if read_state(&path).is_err() {
                errors += 1;
            }
        }
        assert!(errors > 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
