//! The violations table's files, written from the compact table
//! ([`Violations`]) without a frame of the whole table, each byte for
//! byte what the writers of a frame of it write. CSV and NDJSON are
//! written a block of rows at a time straight from the rows
//! ([`write_text`]). Parquet is written a row group at a time, in the
//! groups polars' writer makes of a whole frame: each group's frame is
//! built from its rows, its columns encoded and compressed in parallel,
//! and freed.

use std::io::Write;
use std::ops::Range;

use polars::io::parquet::write::get_encodings;
use polars::prelude::*;
use polars_parquet::arrow::write::{
    CompressedPage, Encoding, ParquetType, Version, WriteOptions, array_to_columns, compress,
};
use rayon::prelude::*;

use super::rows::write_blocks;
use super::tables::{Who, time_text};
use super::{VIOLATION_COLUMNS, csv_text, ndjson, utc};
use crate::replay::{ViolationRef, Violations};

/// The rows per Parquet row group polars' writer aims at (its default).
const ROW_GROUP_ROWS: usize = 512 * 512;

/// Rows `range` of the table (in its order) as a frame with the columns
/// [`VIOLATION_COLUMNS`]: times as UTC datetimes, status `Int32`, line
/// `Int64`, each crawler's category and operator from `who`. The columns
/// are built in parallel.
pub(crate) fn violations_frame<'t>(
    table: &'t Violations,
    range: Range<usize>,
    who: &'t Who,
) -> PolarsResult<DataFrame> {
    let rows = || table.range(range.clone());
    let of = |crawler: &str| who.get(crawler);
    let s = |name: &str, f: fn(&ViolationRef<'t>) -> &'t str| {
        Ok(Column::new(
            name.into(),
            rows().map(|v| f(&v)).collect::<Vec<&str>>(),
        ))
    };
    type Build<'a> = Box<dyn Fn() -> PolarsResult<Column> + Send + Sync + 'a>;
    let columns: Vec<Build<'_>> = vec![
        Box::new(|| utc(rows().map(|v| v.time()).collect(), "time")),
        Box::new(|| s("host", |v| v.host())),
        Box::new(|| s("crawler", |v| v.crawler())),
        Box::new(|| {
            Ok(Column::new(
                "category".into(),
                rows()
                    .map(|v| of(v.crawler()).map(|(c, _)| c.as_str()))
                    .collect::<Vec<_>>(),
            ))
        }),
        Box::new(|| {
            Ok(Column::new(
                "operator".into(),
                rows()
                    .map(|v| of(v.crawler()).and_then(|(_, o)| o.as_deref()))
                    .collect::<Vec<_>>(),
            ))
        }),
        Box::new(|| {
            Ok(Column::new(
                "user_agent".into(),
                rows().map(|v| v.user_agent()).collect::<Vec<_>>(),
            ))
        }),
        Box::new(|| {
            Ok(Column::new(
                "verified".into(),
                rows().map(|v| v.verified()).collect::<Vec<_>>(),
            ))
        }),
        Box::new(|| s("client_ip", |v| v.client_ip())),
        Box::new(|| s("kind", |v| v.kind().as_str())),
        Box::new(|| s("method", |v| v.method())),
        Box::new(|| s("url", |v| v.url())),
        Box::new(|| {
            Ok(Column::new(
                "status".into(),
                rows().map(|v| i32::from(v.status())).collect::<Vec<_>>(),
            ))
        }),
        Box::new(|| s("rule", |v| v.rule())),
        Box::new(|| {
            Ok(Column::new(
                "rule_line".into(),
                rows()
                    .map(|v| v.rule_line().map(i64::from))
                    .collect::<Vec<_>>(),
            ))
        }),
        Box::new(|| {
            Ok(Column::new(
                "robots_version".into(),
                rows().map(|v| v.robots_version()).collect::<Vec<_>>(),
            ))
        }),
        Box::new(|| s("detail", |v| v.detail())),
    ];
    let columns = columns
        .par_iter()
        .map(|build| build())
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(range.len(), columns)
}

/// The whole table as a frame (for tests and small tables: the audit
/// never holds one).
pub fn frame(table: &Violations, who: &Who) -> PolarsResult<DataFrame> {
    violations_frame(table, 0..table.len(), who)
}

/// The row groups polars' Parquet writer makes of a one-chunk frame of
/// `height` rows aiming at `size` rows a group (`chunk_df_for_writing`):
/// one group under `2 * size` rows, else `height / size` groups of
/// `height / (height / size)` rows, the last taking the remainder.
fn row_groups(height: usize, size: usize) -> Vec<(usize, usize)> {
    let n = (height / size).max(1);
    let each = height / n;
    (0..n)
        .map(|i| (i * each, if i + 1 == n { height } else { (i + 1) * each }))
        .collect()
}

/// Writes the table as Parquet, a row group at a time.
pub(super) fn write_parquet(w: &mut impl Write, table: &Violations, who: &Who) -> PolarsResult<()> {
    write_parquet_grouped(w, table, ROW_GROUP_ROWS, who)
}

/// The options polars' `ParquetWriter::new` writes with (its defaults:
/// zstd at its default level, default statistics, format version 1, its
/// default page size).
fn write_options() -> WriteOptions {
    WriteOptions {
        statistics: StatisticsOptions::default(),
        compression: ParquetCompression::default().into(),
        version: Version::V1,
        data_page_size: None,
    }
}

/// A row group's columns as compressed pages, each column encoded and
/// compressed by a worker of its own (polars' batched writer encodes the
/// columns in parallel but compresses them one after the other as it
/// writes them).
fn encode_row_group(
    frame: &DataFrame,
    fields: &[ParquetType],
    encodings: &[Vec<Encoding>],
) -> PolarsResult<Vec<Vec<CompressedPage>>> {
    let options = write_options();
    let batches: Vec<_> = frame.iter_chunks(CompatLevel::newest(), false).collect();
    let [batch] = batches.as_slice() else {
        polars_bail!(ComputeError: "a row group's frame is not one chunk ({} chunks)", batches.len());
    };
    let columns = batch
        .columns()
        .par_iter()
        .zip(fields)
        .zip(encodings)
        .map(|((array, type_), encoding)| {
            array_to_columns(array, type_.clone(), options, encoding)?
                .into_iter()
                .map(|pages| {
                    pages
                        .map(|page| Ok(compress(page?, Vec::new(), options.compression)?))
                        .collect::<PolarsResult<Vec<CompressedPage>>>()
                })
                .collect::<PolarsResult<Vec<Vec<CompressedPage>>>>()
        })
        .collect::<PolarsResult<Vec<_>>>()?;
    Ok(columns.into_iter().flatten().collect())
}

/// Writes the table as Parquet in row groups of about `group_rows`: the
/// groups polars' writer makes of the whole frame, encoded as it encodes
/// them, so the file is byte for byte the one `ParquetWriter::finish`
/// writes. One group's frame is in memory at a time, never the whole
/// table's; its columns are encoded and compressed in parallel.
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
    let encodings = get_encodings(&schema.to_arrow(CompatLevel::newest()));
    let mut writer = ParquetWriter::new(w).batched(&schema)?;
    let fields = writer.parquet_schema().fields().to_vec();
    for (start, end) in row_groups(table.len(), group_rows) {
        if end > start {
            let frame = violations_frame(table, start..end, who)?;
            let pages = encode_row_group(&frame, &fields, &encodings)?;
            drop(frame);
            writer.write_row_group((end - start) as u64, &pages)?;
        }
    }
    writer.finish()?;
    Ok(())
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

/// A repeated text's cell, written once and copied after: keyed by where
/// the text is (the table's texts are shared, so a host, crawler or rule
/// is mostly one text however many rows name it) and its length; two
/// texts at one place with one length are the same text while the table
/// is borrowed. Direct-mapped: a slot holds the last text that fell in it.
struct Written {
    slots: Vec<(usize, usize, u32, u32)>,
    bytes: Vec<u8>,
}

/// Slots of a [`Written`] (a power of two).
const WRITTEN_SLOTS: usize = 256;

impl Written {
    fn new() -> Self {
        Written {
            slots: vec![(0, usize::MAX, 0, 0); WRITTEN_SLOTS],
            bytes: Vec::new(),
        }
    }

    /// Appends `text` as `write` writes it.
    fn put(&mut self, out: &mut Vec<u8>, text: &str, write: fn(&mut Vec<u8>, &str)) {
        let at = text.as_ptr() as usize;
        let slot = ((at >> 4) ^ (at >> 12) ^ text.len()) & (WRITTEN_SLOTS - 1);
        let (a, len, from, to) = self.slots[slot];
        if a == at && len == text.len() {
            out.extend_from_slice(&self.bytes[from as usize..to as usize]);
            return;
        }
        if self.bytes.len() > u32::MAX as usize / 2 {
            self.bytes.clear();
            self.slots.fill((0, usize::MAX, 0, 0));
        }
        let from = self.bytes.len();
        write(&mut self.bytes, text);
        let to = self.bytes.len();
        self.slots[slot] = (at, text.len(), from as u32, to as u32);
        out.extend_from_slice(&self.bytes[from..to]);
    }
}

/// Appends a number's decimal text.
fn put_int(out: &mut Vec<u8>, v: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// Rows `start..start + n` of the table as text in `style`, byte for byte
/// what the frame writers write of the same rows: times as RFC 3339 text
/// (each run of equal times formatted once), repeated texts written once
/// per block ([`Written`]).
fn write_text_rows(
    table: &Violations,
    start: usize,
    n: usize,
    style: &TextStyle,
    out: &mut Vec<u8>,
    who: &Who,
) {
    let b = &style.before;
    let mut texts: Vec<Written> = (0..9).map(|_| Written::new()).collect();
    let [
        host,
        crawler,
        client,
        kind,
        method,
        rule,
        version,
        detail,
        agent,
    ] = &mut texts[..]
    else {
        unreachable!("nine caches")
    };
    // The last crawler's category and operator, written.
    let mut last_who: Option<(&str, Vec<u8>)> = None;
    let mut time: Option<(i64, Vec<u8>)> = None;
    for r in table.range(start..start + n) {
        out.extend_from_slice(&b[0]);
        match &time {
            Some((t, text)) if *t == r.time() => out.extend_from_slice(text),
            _ => {
                let mut text = Vec::new();
                (style.text)(&mut text, &time_text(r.time()));
                out.extend_from_slice(&text);
                time = Some((r.time(), text));
            }
        }
        out.extend_from_slice(&b[1]);
        host.put(out, r.host(), style.text);
        out.extend_from_slice(&b[2]);
        crawler.put(out, r.crawler(), style.text);
        match &last_who {
            Some((c, _)) if std::ptr::eq(*c, r.crawler()) => {}
            _ => {
                let mut text = b[3].clone();
                match who.get(r.crawler()) {
                    Some((category, operator)) => {
                        (style.text)(&mut text, category);
                        text.extend_from_slice(&b[4]);
                        match operator {
                            Some(o) => (style.text)(&mut text, o),
                            None => text.extend_from_slice(style.null),
                        }
                    }
                    None => {
                        text.extend_from_slice(style.null);
                        text.extend_from_slice(&b[4]);
                        text.extend_from_slice(style.null);
                    }
                }
                last_who = Some((r.crawler(), text));
            }
        }
        out.extend_from_slice(last_who.as_ref().map_or(&[][..], |(_, t)| t));
        out.extend_from_slice(&b[5]);
        match r.user_agent() {
            Some(a) => agent.put(out, a, style.text),
            None => out.extend_from_slice(style.null),
        }
        out.extend_from_slice(&b[6]);
        out.extend_from_slice(match r.verified() {
            Some(true) => b"true",
            Some(false) => b"false",
            None => style.null,
        });
        out.extend_from_slice(&b[7]);
        client.put(out, r.client_ip(), style.text);
        out.extend_from_slice(&b[8]);
        kind.put(out, r.kind().as_str(), style.text);
        out.extend_from_slice(&b[9]);
        method.put(out, r.method(), style.text);
        out.extend_from_slice(&b[10]);
        (style.text)(out, r.url());
        out.extend_from_slice(&b[11]);
        put_int(out, i32::from(r.status()));
        out.extend_from_slice(&b[12]);
        rule.put(out, r.rule(), style.text);
        out.extend_from_slice(&b[13]);
        match r.rule_line() {
            Some(line) => put_int(out, i64::from(line)),
            None => out.extend_from_slice(style.null),
        }
        out.extend_from_slice(&b[14]);
        match r.robots_version() {
            Some(v) => version.put(out, v, style.text),
            None => out.extend_from_slice(style.null),
        }
        out.extend_from_slice(&b[15]);
        detail.put(out, r.detail(), style.text);
        out.extend_from_slice(style.end);
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
        (0..n)
            .map(|i| Violation {
                time: 1_700_000_000_000_000_000 + (i as i64 / 3) * 1_000_000_000,
                host: format!("h{}.example", i % 7).into(),
                crawler: ["GPTBot", "Googlebot (unverified)", "x"][i % 3].into(),
                verified: [None, Some(true), Some(false)][i % 3],
                client_ip: format!("192.0.2.{}", i % 200).into(),
                kind: ViolationKind::ALL[i % 3],
                method: "GET".into(),
                url: format!("/p/{i}?q={}", "x".repeat(i % 40)),
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

    #[test]
    fn row_groups_are_polars_own() {
        assert_eq!(row_groups(0, 10), [(0, 0)]);
        assert_eq!(row_groups(9, 10), [(0, 9)]);
        assert_eq!(row_groups(19, 10), [(0, 19)]);
        assert_eq!(row_groups(20, 10), [(0, 10), (10, 20)]);
        assert_eq!(row_groups(47, 10), [(0, 11), (11, 22), (22, 33), (33, 47)]);
    }

    /// The file written a row group at a time is the one polars writes
    /// of the whole frame, for one group, several, and none.
    #[test]
    fn parquet_by_row_groups_is_polars_file() {
        for n in [0, 5, 1000, 4321] {
            let t = table(n);
            let mut ours = Vec::new();
            write_parquet_grouped(&mut ours, &t, 1000, &who()).unwrap();
            let mut whole = frame(&t, &who()).unwrap();
            let mut theirs = Vec::new();
            ParquetWriter::new(&mut theirs)
                .with_row_group_size(Some(1000))
                .finish(&mut whole)
                .unwrap();
            assert!(ours == theirs, "{n} rows: the files differ");
            let back = ParquetReader::new(std::io::Cursor::new(ours))
                .finish()
                .unwrap();
            assert!(back.equals_missing(&frame(&t, &who()).unwrap()), "{n} rows");
        }
    }
}
