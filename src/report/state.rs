//! `--state FILE`: the replay's carried-over [`State`] as one Parquet table,
//! read before a run and rewritten atomically after it.
//!
//! One row per entry: `kind` is `last` (a crawler identity's last request
//! on a host: `time`, `resolution`, `robots_fetch`) or `fetch` (an engine
//! crawler's 2xx fetch of `url`: `time`, `verified`, `client`, `method`,
//! `status`). Times are UTC nanoseconds.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use super::ReportError;
use crate::replay::{Fetch, LastRequest, State};

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

/// Reads a state file; a file that does not exist yet is the empty state
/// (the first night).
///
/// # Errors
/// A file that cannot be read or is not a state file.
pub fn read_state(path: &Path) -> Result<State, ReportError> {
    let invalid = |e: &dyn std::fmt::Display| ReportError::State {
        path: path.to_path_buf(),
        message: format!("not a crawlaudit state file ({e}): remove it to start afresh"),
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
        Err(e) => {
            return Err(ReportError::State {
                path: path.to_path_buf(),
                message: format!("cannot read: {e}"),
            });
        }
    };
    let df = ParquetReader::new(file).finish().map_err(|e| invalid(&e))?;
    let text = |name: &str| -> Result<StringChunked, ReportError> {
        Ok(df
            .column(name)
            .map_err(|e| invalid(&e))?
            .str()
            .map_err(|e| invalid(&e))?
            .clone())
    };
    let int = |name: &str| -> Result<Int64Chunked, ReportError> {
        Ok(df
            .column(name)
            .map_err(|e| invalid(&e))?
            .i64()
            .map_err(|e| invalid(&e))?
            .clone())
    };
    let (kind, host, crawler, url, client, method) = (
        text("kind")?,
        text("host")?,
        text("crawler")?,
        text("url")?,
        text("client")?,
        text("method")?,
    );
    let (time, resolution, robots, status) = (
        int("time")?,
        int("resolution")?,
        int("robots_fetch")?,
        int("status")?,
    );
    let verified = df
        .column("verified")
        .map_err(|e| invalid(&e))?
        .bool()
        .map_err(|e| invalid(&e))?
        .clone();
    let mut state = State::default();
    let s = |c: &StringChunked, i: usize| c.get(i).unwrap_or_default().to_string();
    for i in 0..df.height() {
        let key = (s(&host, i), s(&crawler, i));
        let t = time
            .get(i)
            .ok_or_else(|| invalid(&"a row without a time"))?;
        match kind.get(i) {
            Some("last") => {
                state.last.insert(
                    key,
                    LastRequest {
                        time: t,
                        resolution: resolution.get(i).unwrap_or(1_000_000_000),
                        robots_fetch: robots.get(i),
                    },
                );
            }
            Some("fetch") => state
                .fetches
                .entry((key.0, key.1, s(&url, i)))
                .or_default()
                .push(Fetch {
                    time: t,
                    verified: verified.get(i),
                    client: s(&client, i),
                    method: s(&method, i),
                    status: status
                        .get(i)
                        .and_then(|v| u16::try_from(v).ok())
                        .unwrap_or(200),
                }),
            other => return Err(invalid(&format!("unknown row kind {other:?}"))),
        }
    }
    Ok(state)
}

/// Writes `state` to `path` atomically (a temporary file beside it, synced,
/// then renamed over it).
///
/// # Errors
/// The file cannot be written.
pub fn write_state(path: &Path, state: &State) -> Result<(), ReportError> {
    let mut kind = Vec::new();
    let (mut host, mut crawler, mut url) = (Vec::new(), Vec::new(), Vec::new());
    let (mut time, mut resolution, mut robots) = (Vec::new(), Vec::new(), Vec::new());
    let (mut verified, mut client, mut method, mut status) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for ((h, c), l) in &state.last {
        kind.push("last");
        host.push(h.as_str());
        crawler.push(c.as_str());
        url.push(None);
        time.push(l.time);
        resolution.push(Some(l.resolution));
        robots.push(l.robots_fetch);
        verified.push(None);
        client.push(None);
        method.push(None);
        status.push(None);
    }
    for ((h, c, u), list) in &state.fetches {
        for f in list {
            kind.push("fetch");
            host.push(h.as_str());
            crawler.push(c.as_str());
            url.push(Some(u.as_str()));
            time.push(f.time);
            resolution.push(None);
            robots.push(None);
            verified.push(f.verified);
            client.push(Some(f.client.as_str()));
            method.push(Some(f.method.as_str()));
            status.push(Some(i64::from(f.status)));
        }
    }
    let columns = vec![
        Column::new(COLUMNS[0].into(), kind),
        Column::new(COLUMNS[1].into(), host),
        Column::new(COLUMNS[2].into(), crawler),
        Column::new(COLUMNS[3].into(), url),
        Column::new(COLUMNS[4].into(), time),
        Column::new(COLUMNS[5].into(), resolution),
        Column::new(COLUMNS[6].into(), robots),
        Column::new(COLUMNS[7].into(), verified),
        Column::new(COLUMNS[8].into(), client),
        Column::new(COLUMNS[9].into(), method),
        Column::new(COLUMNS[10].into(), status),
    ];
    let mut df = DataFrame::new_infer_height(columns).map_err(|e| bad(path, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "state".into());
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| bad(path, e))?;
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let written = (|| -> Result<(), String> {
        let file = File::create(&tmp).map_err(|e| e.to_string())?;
        let file = {
            let mut w = std::io::BufWriter::new(file);
            ParquetWriter::new(&mut w)
                .finish(&mut df)
                .map_err(|e| e.to_string())?;
            w.into_inner().map_err(|e| e.error().to_string())?
        };
        file.sync_all().map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, path).map_err(|e| e.to_string())
    })();
    if let Err(message) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(bad(
            path,
            format!("{message} (the previous state, if any, is unchanged)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_survives_the_round_trip() {
        let mut state = State::default();
        state.last.insert(
            ("shop.example".into(), "AhrefsBot".into()),
            LastRequest {
                time: 1_790_000_000_000_000_000,
                resolution: 1_000_000_000,
                robots_fetch: Some(1_789_999_000_000_000_000),
            },
        );
        state.last.insert(
            ("shop.example".into(), "Googlebot (unverified)".into()),
            LastRequest {
                time: 5,
                resolution: 1_000,
                robots_fetch: None,
            },
        );
        state.fetches.insert(
            ("shop.example".into(), "Googlebot".into(), "/a?b=1".into()),
            vec![
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
            ],
        );
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
