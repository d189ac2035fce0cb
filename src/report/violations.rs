//! The violations table's files, written from the compact table
//! ([`Violations`]) without a frame of the whole table, each byte for
//! byte what the writers of a frame of it write. CSV and NDJSON are
//! written a block of rows at a time straight from the rows
//! ([`write_text`]). Parquet is written a row group at a time, in the
//! groups polars' writer makes of a whole frame: each group's columns
//! are built from its rows as the Arrow arrays polars' writer encodes
//! (a text column already dictionary-encoded, where polars' writer would
//! encode it so), encoded and compressed in parallel, and freed.

use std::io::Write;
use std::ops::Range;

use polars::prelude::*;
use polars_arrow::array::ArrayRef;
use rayon::prelude::*;

use super::parquet_groups;
use super::rows::write_blocks;
use super::tables::{Who, time_text};
use super::{VIOLATION_COLUMNS, csv_text, ndjson, utc};
use crate::replay::{TextColumn, ViolationRef, Violations};

/// Rows `range` of the table (in its order) as a frame with the columns
/// [`VIOLATION_COLUMNS`]: times as UTC datetimes, status `Int32`, line
/// `Int64`, each crawler's category and operator from `who`. The columns
/// are built in parallel.
pub(crate) fn violations_frame<'t>(
    table: &'t Violations,
    range: Range<usize>,
    who: &'t Who,
) -> PolarsResult<DataFrame> {
    violations_columns(table, range, who, |_| true)
}

/// [`violations_frame`] of only the columns `keep` names, in their order.
fn violations_columns<'t>(
    table: &'t Violations,
    range: Range<usize>,
    who: &'t Who,
    keep: impl Fn(&str) -> bool + Sync,
) -> PolarsResult<DataFrame> {
    let rows = || table.range(range.clone());
    let rows_range = &range;
    // A text column as `text_cell` reads it: `&str` cells where it is never
    // null, optional ones where it may be.
    let text = |name: &'static str| -> Build<'_> {
        Box::new(move || {
            let (cell, nullable) = text_cell(name).expect("a text column");
            let cells = || column_cells(table, rows_range.clone(), who, name, cell);
            Ok(if nullable {
                Column::new(name.into(), cells().collect::<Vec<_>>())
            } else {
                Column::new(
                    name.into(),
                    cells()
                        .map(Option::unwrap_or_default)
                        .collect::<Vec<&str>>(),
                )
            })
        })
    };
    type Build<'a> = Box<dyn Fn() -> PolarsResult<Column> + Send + Sync + 'a>;
    let columns: Vec<(&str, Build<'_>)> = vec![
        (
            "time",
            Box::new(|| utc(rows().map(|v| v.time()).collect(), "time")),
        ),
        ("host", text("host")),
        ("crawler", text("crawler")),
        ("category", text("category")),
        ("operator", text("operator")),
        ("user_agent", text("user_agent")),
        (
            "verified",
            Box::new(|| {
                Ok(Column::new(
                    "verified".into(),
                    rows().map(|v| v.verified()).collect::<Vec<_>>(),
                ))
            }),
        ),
        ("client_ip", text("client_ip")),
        ("kind", text("kind")),
        ("method", text("method")),
        ("url", text("url")),
        (
            "status",
            Box::new(|| {
                Ok(Column::new(
                    "status".into(),
                    rows().map(|v| i32::from(v.status())).collect::<Vec<_>>(),
                ))
            }),
        ),
        ("rule", text("rule")),
        (
            "rule_line",
            Box::new(|| {
                Ok(Column::new(
                    "rule_line".into(),
                    rows()
                        .map(|v| v.rule_line().map(i64::from))
                        .collect::<Vec<_>>(),
                ))
            }),
        ),
        ("robots_version", text("robots_version")),
        ("detail", text("detail")),
    ];
    let columns = columns
        .par_iter()
        .filter(|(name, _)| keep(name))
        .map(|(_, build)| build())
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(range.len(), columns)
}

/// The whole table as a frame (for tests and small tables: the audit
/// never holds one).
pub fn frame(table: &Violations, who: &Who) -> PolarsResult<DataFrame> {
    violations_frame(table, 0..table.len(), who)
}

/// Writes the table as Parquet, a row group at a time.
pub(super) fn write_parquet(w: &mut impl Write, table: &Violations, who: &Who) -> PolarsResult<()> {
    write_parquet_grouped(w, table, parquet_groups::ROW_GROUP_ROWS, who)
}

/// How a text cell is read from a row (and `who`).
type Cell<'t> = fn(&ViolationRef<'t>, &'t Who) -> Option<&'t str>;

/// The columns that are the crawler's: the same for every row of one
/// crawler.
const OF_CRAWLER: [&str; 2] = ["category", "operator"];

/// Text column `name`'s cells of rows `range`, read by `cell`
/// ([`text_cell`]). A column that is the crawler's is looked up once per
/// run of rows of one crawler (by the crawler's shared text), not once a
/// row.
fn column_cells<'t>(
    table: &'t Violations,
    range: Range<usize>,
    who: &'t Who,
    name: &str,
    cell: Cell<'t>,
) -> impl Iterator<Item = Option<&'t str>> + 't {
    let of_crawler = OF_CRAWLER.contains(&name);
    let mut last: Option<(&'t str, Option<&'t str>)> = None;
    table.range(range).map(move |v| {
        if !of_crawler {
            return cell(&v, who);
        }
        let crawler = v.crawler();
        match last {
            Some((c, text)) if std::ptr::eq(c, crawler) => text,
            _ => {
                let text = cell(&v, who);
                last = Some((crawler, text));
                text
            }
        }
    })
}

/// How a text column of the table is read from a row (and `who`, for
/// the crawler's category and operator), and whether its cells may be
/// null; `None` for the columns that are not text. The one definition of
/// each text column, which [`violations_frame`] and the Parquet writer's
/// arrays ([`parquet_groups::text_array`]) read; the Parquet writer reads
/// the repeated texts by block instead ([`block_cell`], held to this by a
/// test).
fn text_cell<'t>(column: &str) -> Option<(Cell<'t>, bool)> {
    let (cell, nullable): (Cell<'t>, bool) = match column {
        "host" => (|v, _| Some(v.host()), false),
        "crawler" => (|v, _| Some(v.crawler()), false),
        "category" => (|v, who| category_of(v.crawler(), who), true),
        "operator" => (|v, who| operator_of(v.crawler(), who), true),
        "user_agent" => (|v, _| v.user_agent(), true),
        "client_ip" => (|v, _| Some(v.client_ip()), false),
        "kind" => (|v, _| Some(v.kind().as_str()), false),
        "method" => (|v, _| Some(v.method()), false),
        "url" => (|v, _| Some(v.url()), false),
        "rule" => (|v, _| Some(v.rule()), false),
        "robots_version" => (|v, _| v.robots_version(), true),
        "detail" => (|v, _| Some(v.detail()), false),
        _ => return None,
    };
    Some((cell, nullable))
}

/// A crawler's category, as `who` gives it.
fn category_of<'t>(crawler: &'t str, who: &'t Who) -> Option<&'t str> {
    who.get(crawler).map(|(c, _)| c.as_str())
}

/// A crawler's operator, as `who` gives it.
fn operator_of<'t>(crawler: &'t str, who: &'t Who) -> Option<&'t str> {
    who.get(crawler).and_then(|(_, o)| o.as_deref())
}

/// How a text cell comes from a text of the table's blocks (and `who`).
type BlockCell<'t> = fn(&'t str, &'t Who) -> Option<&'t str>;

/// For a text column whose cells are the table's repeated texts (all but
/// the URL and the kind): the column of the table it reads, and how its
/// cell comes from that column's text. Each gives the cells
/// [`text_cell`] reads of a row (a test holds the two to each other).
fn block_cell<'t>(column: &str) -> Option<(TextColumn, BlockCell<'t>)> {
    let same: BlockCell<'t> = |text, _| Some(text);
    Some(match column {
        "host" => (TextColumn::Host, same),
        "crawler" => (TextColumn::Crawler, same),
        "category" => (TextColumn::Crawler, category_of),
        "operator" => (TextColumn::Crawler, operator_of),
        "user_agent" => (TextColumn::Agent, same),
        "client_ip" => (TextColumn::Client, same),
        "method" => (TextColumn::Method, same),
        "rule" => (TextColumn::Rule, same),
        "robots_version" => (TextColumn::Version, same),
        "detail" => (TextColumn::Detail, same),
        _ => return None,
    })
}

/// Rows `range` of the table (in its order) as the arrays of a row group,
/// in the columns of `schema`: the repeated texts through
/// [`parquet_groups::block_text_array`], the URL and the kind through
/// [`parquet_groups::text_array`], the others (times, verification,
/// status, line) as [`violations_frame`] builds them. The columns are
/// built in parallel.
fn group_arrays(
    table: &Violations,
    range: Range<usize>,
    who: &Who,
    schema: &Schema,
) -> PolarsResult<Vec<ArrayRef>> {
    let names: Vec<&str> = schema.iter_names().map(|n| n.as_str()).collect();
    // The columns that are not text, from the frame's own builders.
    let frame = violations_columns(table, range.clone(), who, |n| text_cell(n).is_none())?;
    let frame = &frame;
    let texts_per_block = table.block_text_counts();
    names
        .par_iter()
        .map(|&name| match (block_cell(name), text_cell(name)) {
            // A repeated text: looked up once per block it is met in.
            (Some((column, cell)), _) => Ok(parquet_groups::block_text_array(
                range.len(),
                table.text_refs(range.clone(), column),
                &texts_per_block,
                |block, n| cell(table.block_text(block, n), who),
            )),
            // The URL (a text of each row's own) and the kind.
            (None, Some((cell, _))) => Ok(parquet_groups::text_array(
                range.len(),
                name != "url",
                || column_cells(table, range.clone(), who, name, cell),
            )),
            (None, None) => Ok(frame
                .column(name)?
                .as_materialized_series()
                .rechunk()
                .to_arrow(0, CompatLevel::newest())),
        })
        .collect()
}

/// Writes the table as Parquet in row groups of about `group_rows`: the
/// groups polars' writer makes of the whole frame, encoded as it encodes
/// them, so the file is byte for byte the one `ParquetWriter::finish`
/// writes. One group's arrays are in memory at a time, never the whole
/// table's; its columns are built, encoded and compressed in parallel.
fn write_parquet_grouped(
    w: &mut impl Write,
    table: &Violations,
    group_rows: usize,
    who: &Who,
) -> PolarsResult<()> {
    let schema = violations_frame(table, 0..0, who)?
        .schema()
        .as_ref()
        .clone();
    parquet_groups::write(w, &schema, table.len(), group_rows, |range| {
        group_arrays(table, range, who, &schema)
    })
}

/// How a text file writes the violations table's cells: `before[i]` comes
/// before the `i`-th cell of a row (a comma, or an NDJSON key), `end`
/// after the last; text cells through `text`, a missing one as `null`.
pub(super) struct TextStyle {
    before: Vec<Vec<u8>>,
    end: &'static [u8],
    text: fn(&mut Vec<u8>, &str),
    null: &'static [u8],
}

impl TextStyle {
    /// CSV, as [`csv_text::write_csv`] writes a frame (after the header).
    pub(super) fn csv() -> Self {
        TextStyle {
            before: (0..VIOLATION_COLUMNS.len())
                .map(|i| if i == 0 { Vec::new() } else { b",".to_vec() })
                .collect(),
            end: b"\n",
            text: csv_text::csv_cell,
            null: b"",
        }
    }

    /// NDJSON, as [`ndjson::write_ndjson`] writes a frame.
    pub(super) fn ndjson() -> Self {
        TextStyle {
            before: VIOLATION_COLUMNS
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let mut key = if i == 0 { b"{".to_vec() } else { b",".to_vec() };
                    ndjson::json_string(&mut key, name);
                    key.push(b':');
                    key
                })
                .collect(),
            end: b"}\n",
            text: ndjson::json_string,
            null: b"null",
        }
    }
}

/// Appends a number's decimal text.
fn put_int(out: &mut Vec<u8>, v: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// A repeated text's cell, or a run of a row's cells with what separates
/// them, written once and copied after: keyed by `K` words, the cells'
/// texts (where each is, and its length: the table's texts are shared, so
/// a host, crawler or rule is mostly one text however many rows name it,
/// and two texts at one place with one length are the same text while the
/// table is borrowed) and values. A row's host and crawler, or its status,
/// rule, line, version and detail, repeat from row to row; one copy of the
/// run replaces a dozen of its pieces. Direct-mapped: a slot holds the
/// last cell or run that fell in it.
struct Written<const K: usize> {
    slots: Vec<([usize; K], u32, u32)>,
    bytes: Vec<u8>,
}

/// Slots of a [`Written`] (a power of two).
const WRITTEN_SLOTS: usize = 256;

/// A key word for no value (no text is at the last address).
const ABSENT: usize = usize::MAX;

impl<const K: usize> Written<K> {
    fn new() -> Self {
        Written {
            // No slot is valid until written: its range is empty and its
            // key one no cell or run has (every word ABSENT, a key's first
            // word being a text's address or a small number).
            slots: vec![([ABSENT; K], 0, 0); WRITTEN_SLOTS],
            bytes: Vec::new(),
        }
    }

    /// Appends the cell or run `key` names, written by `write` the first
    /// time.
    fn put(&mut self, out: &mut Vec<u8>, key: [usize; K], write: impl FnOnce(&mut Vec<u8>)) {
        let hash = key.iter().fold(0u64, |h, &w| {
            (h ^ w as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        });
        let slot = (hash >> 56) as usize & (WRITTEN_SLOTS - 1);
        let (k, from, to) = &self.slots[slot];
        // Word by word, inline: the array's `==` calls `memcmp` for a key
        // of more than two words, once per cell of every row.
        if k.iter().zip(&key).all(|(a, b)| a == b) {
            out.extend_from_slice(&self.bytes[*from as usize..*to as usize]);
            return;
        }
        if self.bytes.len() > u32::MAX as usize / 2 {
            self.bytes.clear();
            self.slots.fill(([ABSENT; K], 0, 0));
        }
        let from = self.bytes.len();
        write(&mut self.bytes);
        let to = self.bytes.len();
        self.slots[slot] = (key, from as u32, to as u32);
        out.extend_from_slice(&self.bytes[from..to]);
    }
}

impl Written<2> {
    /// Appends `text` as `write` writes it.
    fn put_text(&mut self, out: &mut Vec<u8>, text: &str, write: fn(&mut Vec<u8>, &str)) {
        self.put(out, text_key(text), |cell| write(cell, text));
    }
}

/// A text's words in a [`Written`] key: where it is and its length.
fn text_key(text: &str) -> [usize; 2] {
    [text.as_ptr() as usize, text.len()]
}

/// Rows `start..start + n` of the table as text in `style`, byte for byte
/// what the frame writers write of the same rows: times as RFC 3339 text
/// (each run of equal times formatted once), repeated texts written once
/// per block, and the runs of cells rows repeat written once per block
/// (from the host to the User-Agent, from the kind to the URL, from the
/// status to the row's end), each from a [`Written`].
fn write_text_rows(
    table: &Violations,
    start: usize,
    n: usize,
    style: &TextStyle,
    out: &mut Vec<u8>,
    who: &Who,
) {
    let b = &style.before;
    let text = style.text;
    let (mut agent, mut client) = (Written::new(), Written::new());
    let (mut crawler_run, mut method_run, mut rule_run) = (
        Written::<4>::new(),
        Written::<3>::new(),
        Written::<8>::new(),
    );
    let mut time: Option<(i64, Vec<u8>)> = None;
    for r in table.range(start..start + n) {
        out.extend_from_slice(&b[0]);
        match &time {
            Some((t, text)) if *t == r.time() => out.extend_from_slice(text),
            _ => {
                let mut written = Vec::new();
                text(&mut written, &time_text(r.time()));
                out.extend_from_slice(&written);
                time = Some((r.time(), written));
            }
        }
        let (host, crawler) = (r.host(), r.crawler());
        let [h, hl] = text_key(host);
        let [c, cl] = text_key(crawler);
        crawler_run.put(out, [h, hl, c, cl], |run| {
            run.extend_from_slice(&b[1]);
            text(run, host);
            run.extend_from_slice(&b[2]);
            text(run, crawler);
            run.extend_from_slice(&b[3]);
            match who.get(crawler) {
                Some((category, operator)) => {
                    text(run, category);
                    run.extend_from_slice(&b[4]);
                    match operator {
                        Some(o) => text(run, o),
                        None => run.extend_from_slice(style.null),
                    }
                }
                None => {
                    run.extend_from_slice(style.null);
                    run.extend_from_slice(&b[4]);
                    run.extend_from_slice(style.null);
                }
            }
            run.extend_from_slice(&b[5]);
        });
        match r.user_agent() {
            Some(a) => agent.put_text(out, a, text),
            None => out.extend_from_slice(style.null),
        }
        out.extend_from_slice(&b[6]);
        out.extend_from_slice(match r.verified() {
            Some(true) => b"true",
            Some(false) => b"false",
            None => style.null,
        });
        out.extend_from_slice(&b[7]);
        client.put_text(out, r.client_ip(), text);
        let (kind, method) = (r.kind(), r.method());
        let [m, ml] = text_key(method);
        method_run.put(out, [kind as usize, m, ml], |run| {
            run.extend_from_slice(&b[8]);
            text(run, kind.as_str());
            run.extend_from_slice(&b[9]);
            text(run, method);
            run.extend_from_slice(&b[10]);
        });
        text(out, r.url());
        let (status, rule, line, version, detail) = (
            r.status(),
            r.rule(),
            r.rule_line(),
            r.robots_version(),
            r.detail(),
        );
        let [ru, rl] = text_key(rule);
        let [v, vl] = version.map_or([ABSENT, ABSENT], text_key);
        let [d, dl] = text_key(detail);
        let line_key = line.map_or(ABSENT, |l| l as usize);
        rule_run.put(
            out,
            [usize::from(status), ru, rl, line_key, v, vl, d, dl],
            |run| {
                run.extend_from_slice(&b[11]);
                put_int(run, i32::from(status));
                run.extend_from_slice(&b[12]);
                text(run, rule);
                run.extend_from_slice(&b[13]);
                match line {
                    Some(line) => put_int(run, i64::from(line)),
                    None => run.extend_from_slice(style.null),
                }
                run.extend_from_slice(&b[14]);
                match version {
                    Some(v) => text(run, v),
                    None => run.extend_from_slice(style.null),
                }
                run.extend_from_slice(&b[15]);
                text(run, detail);
                run.extend_from_slice(style.end);
            },
        );
    }
}

/// Writes the table's rows as text in `style` (no header), blocks of rows
/// formatted in parallel and written in order.
pub(super) fn write_text(
    w: &mut impl Write,
    table: &Violations,
    style: &TextStyle,
    who: &Who,
) -> Result<(), String> {
    write_blocks(w, table.len(), |start, n, out| {
        write_text_rows(table, start, n, style, out, who);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{Violation, ViolationKind};

    fn table(n: usize) -> Violations {
        table_with_urls(n, n)
    }

    /// `n` rows whose URLs repeat every `urls` rows.
    fn table_with_urls(n: usize, urls: usize) -> Violations {
        (0..n)
            .map(|i| Violation {
                time: 1_700_000_000_000_000_000 + (i as i64 / 3) * 1_000_000_000,
                host: format!("h{}.example", i % 7).into(),
                crawler: ["GPTBot", "Googlebot (unverified)", "x"][i % 3].into(),
                verified: [None, Some(true), Some(false)][i % 3],
                client_ip: format!("192.0.2.{}", i % 200).into(),
                kind: ViolationKind::ALL[i % 3],
                method: "GET".into(),
                url: format!("/p/{}?q={}", i % urls, "x".repeat(i % urls % 40)),
                status: 200 + (i % 5) as u16,
                rule: format!("Disallow: /p/{}", i % 11).into(),
                rule_line: (i % 4 != 0).then_some(i as u32 % 50),
                robots_version: (i % 5 != 0).then(|| "robots.txt".into()),
                detail: if i % 2 == 0 { "" } else { "gap 1s < 10s" }.into(),
                user_agent: (i % 6 != 0).then(|| format!("GPTBot/{}", i % 4).into()),
            })
            .collect()
    }

    fn who() -> Who {
        [
            ("GPTBot", ("ai-crawler", Some("OpenAI"))),
            ("Googlebot (unverified)", ("search", None)),
        ]
        .into_iter()
        .map(|(c, (k, o))| (c.to_string(), (k.to_string(), o.map(str::to_string))))
        .collect()
    }

    /// The table as Parquet in groups of `group` rows: written a group at
    /// a time (ours), and by polars' writer from a frame of the whole
    /// table (theirs).
    fn ours_and_theirs(t: &Violations, group: usize) -> (Vec<u8>, Vec<u8>) {
        let mut ours = Vec::new();
        write_parquet_grouped(&mut ours, t, group, &who()).unwrap();
        let mut theirs = Vec::new();
        ParquetWriter::new(&mut theirs)
            .with_row_group_size(Some(group))
            .finish(&mut frame(t, &who()).unwrap())
            .unwrap();
        (ours, theirs)
    }

    /// Each text column is encoded as polars' writer encodes it, on either
    /// side of its choice between a dictionary and plain text (an
    /// estimated cardinality of three quarters of the rows), with groups
    /// of at most 128 rows (always a dictionary), with columns that are
    /// null in every row of a group, and with a crawler `who` does not
    /// name (a null category beside texts).
    #[test]
    fn text_columns_are_encoded_as_polars_encodes_them() {
        for (n, group, urls) in [
            (2000, 1000, 500),
            (2000, 1000, 700),
            (2000, 1000, 740),
            (2000, 1000, 760),
            (2000, 1000, 800),
            (2000, 1000, 2000),
            (300, 100, 300),
            (12, 5, 12),
        ] {
            let (ours, theirs) = ours_and_theirs(&table_with_urls(n, urls), group);
            assert!(
                ours == theirs,
                "{n} rows in groups of {group}, {urls} URLs: the files differ"
            );
        }
        // Only nulls in a column of a group: no User-Agent, no version.
        let first = table(1).owned(0).unwrap();
        let nulls: Violations = (0..400)
            .map(|_| Violation {
                user_agent: None,
                robots_version: None,
                ..first.clone()
            })
            .enumerate()
            .map(|(i, mut v)| {
                v.url = format!("/{i}");
                v
            })
            .collect();
        let (ours, theirs) = ours_and_theirs(&nulls, 200);
        assert!(ours == theirs, "columns of nulls: the files differ");
    }

    /// `n` rows whose cells are shared texts of small pools (as a run's
    /// table holds them: one text per host, crawler, rule), so that the
    /// text writers' caches are hit as well as missed; the rows' keys go
    /// far past the caches' slots.
    fn shared_table(n: usize) -> Violations {
        let pool = |k: usize, f: &dyn Fn(usize) -> String| -> Vec<Arc<str>> {
            (0..k).map(|i| f(i).into()).collect()
        };
        let hosts = pool(7, &|i| format!("h{i}.example"));
        let crawlers = pool(4, &|i| {
            ["GPTBot", "Googlebot (unverified)", "x", "a,\"b\""][i].into()
        });
        let clients = pool(300, &|i| format!("192.0.2.{i}"));
        let methods = pool(3, &|i| ["GET", "HEAD", "P\"O,ST"][i].into());
        let rules = pool(23, &|i| format!("Disallow: /p/{i}"));
        let versions = pool(3, &|i| format!("robots.txt@{i}"));
        let details = pool(3, &|i| ["", "gap 1s < 10s", "line\nbreak"][i].into());
        let agents = pool(5, &|i| format!("GPTBot/{i} (\"q\")"));
        (0..n)
            .map(|i| Violation {
                time: 1_700_000_000_000_000_000 + (i as i64 / 5) * 1_000_000_000,
                host: hosts[i % 7].clone(),
                crawler: crawlers[i / 3 % 4].clone(),
                verified: [None, Some(true), Some(false)][i % 3],
                client_ip: clients[i * 7 % 300].clone(),
                kind: ViolationKind::ALL[i / 2 % 4],
                method: methods[i / 5 % 3].clone(),
                url: format!("/p/{}", i % 101),
                status: [200, 204, 503][i / 7 % 3],
                rule: rules[i % 23].clone(),
                rule_line: (i % 9 != 0).then_some(i as u32 % 61),
                robots_version: (i % 5 != 0).then(|| versions[i / 11 % 3].clone()),
                detail: details[i / 13 % 3].clone(),
                user_agent: (i % 6 != 0).then(|| agents[i % 5].clone()),
            })
            .collect()
    }

    /// The CSV and NDJSON rows written from the table (its repeated texts
    /// and runs of cells written once, [`Written`]) are the
    /// rows the frame writers write of its frame, byte for byte: with
    /// shared cells and with none, over blocks of rows, with missing
    /// values, texts that need quoting or escaping, and a crawler `who`
    /// does not name.
    #[test]
    fn text_rows_are_the_frame_writers_rows() {
        for t in [
            table(0),
            table(1),
            table_with_urls(3000, 700),
            shared_table(1),
            shared_table(20_000),
        ] {
            let df = super::super::tables::rfc3339_times(&frame(&t, &who()).unwrap()).unwrap();
            let mut ours = Vec::new();
            csv_text::write_header(&mut ours, &VIOLATION_COLUMNS).unwrap();
            write_text(&mut ours, &t, &TextStyle::csv(), &who()).unwrap();
            let mut theirs = Vec::new();
            csv_text::write_csv(&mut theirs, &df).unwrap();
            assert!(ours == theirs, "{} rows: the CSV differs", t.len());
            let mut ours = Vec::new();
            write_text(&mut ours, &t, &TextStyle::ndjson(), &who()).unwrap();
            let mut theirs = Vec::new();
            ndjson::write_ndjson(&mut theirs, &df).unwrap();
            assert!(ours == theirs, "{} rows: the NDJSON differs", t.len());
            assert_eq!(ours.iter().filter(|&&b| b == b'\n').count(), t.len());
        }
    }

    /// A sorted table of several blocks, as a run's is (a block per
    /// chunk, merged into the report's order), whose texts recur across
    /// blocks as copies of their own, and within a block as two copies of
    /// one text (two numbers for one text).
    fn blocks_table() -> Violations {
        let mut t = Violations::default();
        for (n, urls) in [(3000, 700), (1, 1), (5000, 5000), (2000, 100)] {
            t.append(table_with_urls(n, urls));
            t.append(shared_table(n));
        }
        // Two copies of each host and crawler text in one block.
        let (a, b): (Arc<str>, Arc<str>) = ("h1.example".into(), "h1.example".into());
        let (c, d): (Arc<str>, Arc<str>) = ("GPTBot".into(), "GPTBot".into());
        let first = table(1).owned(0).unwrap();
        t.append(
            (0..600)
                .map(|i| Violation {
                    time: first.time + (i % 40) * 1_000_000_000,
                    host: [&a, &b][i as usize % 2].clone(),
                    crawler: [&c, &d][i as usize / 3 % 2].clone(),
                    url: format!("/{}", i % 30),
                    ..first.clone()
                })
                .collect(),
        );
        t.sort();
        t
    }

    /// Each repeated text column read by block and number
    /// ([`block_cell`]) gives, row for row, the cells [`text_cell`] reads
    /// (a crawler `who` does not name included: a null category).
    #[test]
    fn block_cells_are_the_rows_cells() {
        let t = blocks_table();
        let who = who();
        let mut columns = 0;
        for name in VIOLATION_COLUMNS {
            let Some((column, cell)) = block_cell(name) else {
                continue;
            };
            columns += 1;
            let (row_cell, _) = text_cell(name).expect("a text column");
            let ours: Vec<Option<&str>> = t
                .text_refs(0..t.len(), column)
                .map(|r| r.and_then(|(b, n)| cell(t.block_text(b, n), &who)))
                .collect();
            let theirs: Vec<Option<&str>> = t.iter().map(|v| row_cell(&v, &who)).collect();
            assert!(ours == theirs, "column {name}");
            if name == "category" {
                assert!(ours.contains(&None) && ours.contains(&Some("search")));
            }
        }
        assert_eq!(columns, 10);
    }

    /// A table of many blocks, in sorted order, with texts copied across
    /// and within blocks, is written as polars writes its frame, on either
    /// side of the choice between a dictionary and plain text.
    #[test]
    fn parquet_of_many_blocks_is_polars_file() {
        let t = blocks_table();
        for group in [97, 1000, 6000] {
            let (ours, theirs) = ours_and_theirs(&t, group);
            assert!(ours == theirs, "groups of {group}: the files differ");
        }
    }

    /// The file written a row group at a time is the one polars writes
    /// of the whole frame, for one group, several, and none.
    #[test]
    fn parquet_by_row_groups_is_polars_file() {
        for n in [0, 5, 1000, 4321] {
            let t = table(n);
            let (ours, theirs) = ours_and_theirs(&t, 1000);
            assert!(ours == theirs, "{n} rows: the files differ");
            let back = ParquetReader::new(std::io::Cursor::new(ours))
                .finish()
                .unwrap();
            assert!(back.equals_missing(&frame(&t, &who()).unwrap()), "{n} rows");
        }
    }
}
