//! Snapshot directories (SPEC 4.1): one folder per host, with `robots.txt`,
//! an optional `robots/` history and an optional `pages.jsonl`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::{
    RobotsAnswer, Snapshot, SnapshotError, open_regular, parse_file_time, read_robots_file, warc,
};
use crate::host::check_host_name;
use crate::indexing::PageRules;
use crate::robots::{Patterns, Robots, path_params_query};
use crate::time::{ALWAYS, instant};

/// Does `path` look like a snapshot directory: a folder holding at least
/// one host folder (with `robots.txt`, `robots/` or `pages.jsonl`)?
pub(crate) fn is_snapshot_dir(path: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(path) else {
        return false;
    };
    entries.filter_map(|e| e.ok()).any(|e| {
        let p = e.path();
        p.is_dir()
            && (p.join("robots.txt").exists()
                || p.join("robots").is_dir()
                || p.join("pages.jsonl").exists())
    })
}

fn read_sorted(dir: &Path) -> Result<Vec<PathBuf>, SnapshotError> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| SnapshotError::new(dir, None, format!("cannot read: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    entries.sort();
    Ok(entries)
}

/// Loads a snapshot directory into `snapshot`.
pub(crate) fn load(root: &Path, snapshot: &mut Snapshot) -> Result<(), SnapshotError> {
    use rayon::prelude::*;
    let entries = read_sorted(root)?;
    // Host folders are read and parsed in parallel (a CDN's snapshot holds
    // thousands of robots.txt files), each into a snapshot of its own, then
    // taken in name order with the WARC files, so that the result and the
    // error reported (the first in name order) do not depend on threads.
    // Each worker shares the patterns its hosts' files repeat.
    let hosts: Vec<Option<Result<Snapshot, SnapshotError>>> = entries
        .par_iter()
        .map_init(Patterns::default, |patterns, entry| {
            if !entry.is_dir() {
                return None;
            }
            let name = entry
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Some(
                check_host_name(&name)
                    .map_err(|m| SnapshotError::new(entry, None, format!("not a host folder: {m}")))
                    .and_then(|()| {
                        let mut part = Snapshot::default();
                        load_host(entry, &name, &mut part, patterns)?;
                        Ok(part)
                    }),
            )
        })
        .collect();
    for (entry, host) in entries.iter().zip(hosts) {
        match host {
            Some(part) => snapshot.absorb(part?),
            None if warc::is_warc_name(entry) => {
                warc::load(entry, snapshot)?;
            }
            // Other files (a README, notes) are not part of the snapshot.
            None => {}
        }
    }
    Ok(())
}

fn load_host(
    dir: &Path,
    host: &str,
    snapshot: &mut Snapshot,
    patterns: &mut Patterns,
) -> Result<(), SnapshotError> {
    let history = dir.join("robots");
    let single = dir.join("robots.txt");
    if history.is_dir() {
        for file in read_sorted(&history)? {
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (stem, ext) = name.rsplit_once('.').ok_or_else(|| {
                SnapshotError::new(&file, None, "history files are named <UTC time>.txt or <UTC time>.<status>, e.g. 2026-11-01T00-00-00Z.txt")
            })?;
            let from = parse_file_time(stem).ok_or_else(|| {
                SnapshotError::new(
                    &file,
                    None,
                    format!("{stem:?} is not a UTC time: write it as 2026-11-01T00-00-00Z"),
                )
            })?;
            let status: u16 = if ext == "txt" {
                200
            } else {
                ext.parse().ok().filter(|s| (200..600).contains(s)).ok_or_else(|| {
                    SnapshotError::new(&file, None, format!("unknown status {ext:?}: use .txt (200) or an HTTP status such as .404 or .503"))
                })?
            };
            let body = read_robots_file(&file)?;
            let answer = match status {
                200..=299 => RobotsAnswer::Rules(Arc::new(Robots::parse_with(&body, patterns))),
                300..=399 => {
                    let location = String::from_utf8_lossy(&body).trim().to_string();
                    if location.is_empty() {
                        return Err(SnapshotError::new(
                            &file,
                            None,
                            "a 3xx answer holds its Location (a URL): the file is empty",
                        ));
                    }
                    RobotsAnswer::Redirect(location)
                }
                400..=499 => RobotsAnswer::NotFound,
                _ => RobotsAnswer::Unavailable,
            };
            snapshot.add_robots(host, from, status, answer, name);
        }
    } else if single.symlink_metadata().is_ok() {
        // Present, even as a dangling link (which is an error, not a host
        // without robots.txt).
        let body = read_robots_file(&single)?;
        snapshot.add_robots(
            host,
            ALWAYS,
            200,
            RobotsAnswer::Rules(Arc::new(Robots::parse_with(&body, patterns))),
            "robots.txt".into(),
        );
    }
    let pages = dir.join("pages.jsonl");
    if pages.symlink_metadata().is_ok() {
        load_pages(&pages, host, snapshot)?;
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetaLine {
    name: String,
    content: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageLine {
    url: String,
    #[serde(default = "ok")]
    status: u16,
    x_robots_tag: Option<OneOrMany>,
    html: Option<String>,
    meta: Option<Vec<MetaLine>>,
    from: Option<String>,
}

fn ok() -> u16 {
    200
}

/// The longest `pages.jsonl` line read; a longer one is refused.
/// Googlebot reads the first 15 MB of an HTML page, so a line holding a
/// whole page up to that size fits.
pub const MAX_PAGE_LINE: usize = 16 << 20;

fn load_pages(path: &Path, host: &str, snapshot: &mut Snapshot) -> Result<(), SnapshotError> {
    let (file, _) = open_regular(path)?;
    load_pages_from(file, path, host, snapshot)
}

/// Reads `pages.jsonl` lines from `source` (named `path`) for `host`.
pub(crate) fn load_pages_from(
    source: impl std::io::Read,
    path: &Path,
    host: &str,
    snapshot: &mut Snapshot,
) -> Result<(), SnapshotError> {
    use std::io::{BufRead, Read};
    let mut reader = std::io::BufReader::with_capacity(1 << 16, source);
    let mut buf = Vec::new();
    for i in 0.. {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_PAGE_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| {
                SnapshotError::new(
                    path,
                    Some(format!("line {}", i + 1)),
                    format!("cannot read: {e}"),
                )
            })?;
        if n == 0 {
            break;
        }
        if n > MAX_PAGE_LINE {
            return Err(SnapshotError::new(
                path,
                Some(format!("line {}", i + 1)),
                format!(
                    "the line is longer than {} MiB: keep only the page's <head> in \"html\", or give its robots tags as \"meta\"",
                    MAX_PAGE_LINE >> 20
                ),
            ));
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.trim_ascii().is_empty() {
            continue;
        }
        let at = || Some(format!("line {}", i + 1));
        let page: PageLine = serde_json::from_slice(line).map_err(|e| {
            SnapshotError::new(
                path,
                at(),
                format!("{e} (a line is {{\"url\": \"/path\", \"status\": 200, \"x_robots_tag\": [...], \"html\": \"...\", \"meta\": [...], \"from\": \"RFC 3339 time\"}})"),
            )
        })?;
        let url = path_params_query(page.url.as_bytes());
        let url = String::from_utf8_lossy(&url).into_owned();
        let from = match &page.from {
            Some(t) => {
                let ts: jiff::Timestamp = t.parse().map_err(|e| {
                    SnapshotError::new(
                        path,
                        at(),
                        format!("\"from\": {t:?} is not an RFC 3339 time ({e})"),
                    )
                })?;
                instant(ts)
                    .ok_or_else(|| SnapshotError::new(path, at(), "\"from\" is out of range"))?
            }
            None => ALWAYS,
        };
        let mut rules = PageRules::default();
        match page.x_robots_tag {
            Some(OneOrMany::One(v)) => rules.add_header(&v),
            Some(OneOrMany::Many(vs)) => vs.iter().for_each(|v| rules.add_header(v)),
            None => {}
        }
        if let Some(html) = &page.html {
            rules.add_html(html.as_bytes());
        }
        for m in page.meta.unwrap_or_default() {
            rules.add_meta(&m.name, &m.content);
        }
        snapshot.add_page(
            host,
            url,
            (
                from,
                page.status,
                rules,
                format!("{} line {}", path.display(), i + 1),
            ),
        );
    }
    Ok(())
}
