//! `summary.json` (SPEC section 9), typed: what the run read, the window
//! of crawler requests, the requests by class, the violations and
//! findings by kind, the top crawlers, the settings and the run's time; a
//! shard's report adds what `merge` needs. The file lists every object's
//! keys in sorted order (as JSON objects are written here), whatever the
//! order of the fields below.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::logs::FileReport;
use crate::replay::{Counts, FindingKind, ViolationKind};

/// `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The tool that wrote it.
    pub tool: Tool,
    /// The files read and their totals, and the snapshots.
    pub inputs: Inputs,
    /// The first and last crawler request; `null` when there was none.
    pub window: Option<Window>,
    /// Requests by class.
    pub requests: Counts,
    /// Violations (rows) by kind.
    pub violations: ViolationTotals,
    /// Requests (or lines, or identities) the findings cover, by the
    /// kinds found.
    pub findings: BTreeMap<String, u64>,
    /// The ten crawlers with the most violations.
    pub top_crawlers: Vec<TopCrawler>,
    /// The settings as the user gave them.
    pub settings: BTreeMap<String, Value>,
    /// The run's time (the one value two runs over the same input differ
    /// in).
    pub run: RunTime,
    /// Violations (rows) left out of `violations` and `top_crawlers`, by
    /// crawler category: monitors, which the site configures itself,
    /// unless `--include monitor`. They are still in the tables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_counted: BTreeMap<String, u64>,
    /// What the reader should know to trust the numbers: range files made
    /// too long before or after the log to tell impersonators.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The shard this report is (`--shard K/N`), with what `merge` needs
    /// that the tables do not hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardPart>,
}

/// `summary.json`'s `tool`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// `crawlaudit`.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// `summary.json`'s `inputs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// Per file, its accounting.
    pub files: Vec<FileReport>,
    /// Bytes read, over all files.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines parsed.
    pub parsed: u64,
    /// Lines that could not be parsed.
    pub bad_lines: u64,
    /// The files that could not be read to their end, and why.
    pub faults: Vec<Fault>,
    /// The snapshots' paths.
    pub snapshots: Vec<String>,
    /// The `--ip-ranges` files loaded, with when each was made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ip_ranges: Vec<RangeFile>,
}

/// An `--ip-ranges` file as `summary.json` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeFile {
    /// Its name (`googlebot.json`).
    pub file: String,
    /// When it was made (its `creationTime`, else its modification time),
    /// RFC 3339; `null` when not known.
    pub created: Option<String>,
}

impl Inputs {
    /// The files and their totals, and the snapshots.
    pub fn of(files: &[FileReport], snapshots: &[String]) -> Inputs {
        let sum = |f: fn(&FileReport) -> u64| files.iter().map(f).fold(0u64, u64::saturating_add);
        Inputs {
            files: files.to_vec(),
            bytes: sum(|f| f.bytes),
            lines: sum(|f| f.lines),
            parsed: sum(|f| f.parsed),
            bad_lines: sum(|f| f.bad),
            faults: files
                .iter()
                .filter_map(|f| {
                    f.fault.as_ref().map(|m| Fault {
                        file: f.path.clone(),
                        fault: m.clone(),
                    })
                })
                .collect(),
            snapshots: snapshots.to_vec(),
            ip_ranges: Vec::new(),
        }
    }

    /// The same inputs with the `--ip-ranges` files listed.
    pub fn with_ip_ranges(mut self, ip_ranges: Vec<RangeFile>) -> Inputs {
        self.ip_ranges = ip_ranges;
        self
    }
}

/// A file that could not be read to its end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// The file.
    pub file: String,
    /// Why.
    pub fault: String,
}

/// `summary.json`'s `window`: RFC 3339 times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The first crawler request.
    pub first: String,
    /// The last.
    pub last: String,
}

/// Violations by kind, each named as the report names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViolationTotals {
    /// `disallow` rows.
    pub disallow: u64,
    /// `crawl-delay` rows.
    #[serde(rename = "crawl-delay")]
    pub crawl_delay: u64,
    /// `noindex` rows.
    pub noindex: u64,
    /// `unavailable-after` rows.
    #[serde(rename = "unavailable-after")]
    pub unavailable_after: u64,
}

impl ViolationTotals {
    /// The rows of `kind`.
    pub fn get(&self, kind: ViolationKind) -> u64 {
        match kind {
            ViolationKind::Disallow => self.disallow,
            ViolationKind::CrawlDelay => self.crawl_delay,
            ViolationKind::Noindex => self.noindex,
            ViolationKind::UnavailableAfter => self.unavailable_after,
        }
    }

    /// One more row of `kind`.
    pub fn add(&mut self, kind: ViolationKind) {
        self.add_rows(kind, 1);
    }

    /// `n` more rows of `kind`.
    pub fn add_rows(&mut self, kind: ViolationKind, n: u64) {
        let total = match kind {
            ViolationKind::Disallow => &mut self.disallow,
            ViolationKind::CrawlDelay => &mut self.crawl_delay,
            ViolationKind::Noindex => &mut self.noindex,
            ViolationKind::UnavailableAfter => &mut self.unavailable_after,
        };
        *total += n;
    }

    /// All rows.
    pub fn total(&self) -> u64 {
        ViolationKind::ALL.iter().map(|k| self.get(*k)).sum()
    }
}

/// One of `summary.json`'s `top_crawlers`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopCrawler {
    /// The crawler identity.
    pub crawler: String,
    /// Its requests.
    pub requests: u64,
    /// Its violations.
    pub violations: u64,
}

/// `summary.json`'s `run`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunTime {
    /// Seconds, to the millisecond.
    pub seconds: f64,
}

/// `summary.json`'s `shard`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardPart {
    /// Its number, from 0.
    pub index: u64,
    /// How many shards.
    pub count: u64,
    /// Crawler identity to its category.
    #[serde(default)]
    pub categories: BTreeMap<String, String>,
    /// The robots.txt groups of the violated rules (the page's evidence).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rule_groups: Vec<RuleGroup>,
}

/// The robots.txt group a violated rule belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleGroup {
    /// The site.
    pub host: String,
    /// The robots.txt version (as the violations table names it).
    pub version: String,
    /// The rule's line.
    pub line: u32,
    /// Its group's `User-agent` lines (`User-agent: GPTBot, ChatGPT-User`).
    pub group: String,
}

impl Summary {
    /// The findings of `kind`: what they cover (0 when none was found).
    pub fn finding(&self, kind: FindingKind) -> u64 {
        self.findings.get(kind.as_str()).copied().unwrap_or(0)
    }

    /// `summary.json`'s text: pretty-printed, every object's keys sorted,
    /// and a final newline.
    pub fn to_json(&self) -> String {
        let value = serde_json::to_value(self).expect("a summary is JSON");
        let mut text = serde_json::to_string_pretty(&value).expect("JSON values serialize");
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sorted_and_the_shard_only_when_there_is_one() {
        let mut s = Summary {
            tool: Tool {
                name: "crawlaudit".into(),
                version: "0".into(),
            },
            inputs: Inputs::of(&[], &["snap".into()]),
            window: None,
            warnings: Vec::new(),
            not_counted: BTreeMap::new(),
            requests: Counts::default(),
            violations: ViolationTotals::default(),
            findings: BTreeMap::new(),
            top_crawlers: Vec::new(),
            settings: BTreeMap::new(),
            run: RunTime { seconds: 1.5 },
            shard: None,
        };
        s.violations.add(ViolationKind::CrawlDelay);
        let text = s.to_json();
        let keys: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("  \"") && !l.starts_with("   "))
            .map(|l| l.trim().split('"').nth(1).unwrap())
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        assert!(!keys.contains(&"shard"));
        assert!(text.contains("\"crawl-delay\": 1") && text.contains("\"window\": null"));
        assert!(text.ends_with("}\n"));
        let back: Summary = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
        s.shard = Some(ShardPart {
            index: 0,
            count: 2,
            categories: BTreeMap::new(),
            rule_groups: Vec::new(),
        });
        assert!(s.to_json().contains("\"shard\""));
    }
}
