//! The violations table's files, written from the compact table
//! ([`Violations`]) without a frame of the whole table: CSV and NDJSON
//! read the rows a block at a time ([`RowSource`]); Parquet is written a
//! row group at a time, each group's frame built from its rows and freed
//! after it, in the groups polars' writer makes of a whole frame (so the
//! file is byte for byte the one `ParquetWriter::finish` writes).

use std::io::Write;
use std::ops::Range;

use polars::prelude::*;
use rayon::prelude::*;

use super::rows::{RowSource, Values};
use super::{VIOLATION_COLUMNS, utc};
use crate::replay::{ViolationRef, Violations};
use crate::time::format_time;

/// The rows per Parquet row group polars' writer aims at (its default).
const ROW_GROUP_ROWS: usize = 512 * 512;

/// Rows `range` of the table (in its order) as a frame with the columns
/// [`VIOLATION_COLUMNS`]: times as UTC datetimes, status `Int32`, line
/// `Int64`. The columns are built in parallel.
pub(crate) fn violations_frame<'t>(
    table: &'t Violations,
    range: Range<usize>,
) -> PolarsResult<DataFrame> {
    let rows = || table.range(range.clone());
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
pub fn frame(table: &Violations) -> PolarsResult<DataFrame> {
    violations_frame(table, 0..table.len())
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
pub(super) fn write_parquet(w: &mut impl Write, table: &Violations) -> PolarsResult<()> {
    write_parquet_grouped(w, table, ROW_GROUP_ROWS)
}

fn write_parquet_grouped(
    w: &mut impl Write,
    table: &Violations,
    group_rows: usize,
) -> PolarsResult<()> {
    let schema = violations_frame(table, 0..0)?.schema().as_ref().clone();
    let mut writer = ParquetWriter::new(w).batched(&schema)?;
    for (start, end) in row_groups(table.len(), group_rows) {
        let frame = violations_frame(table, start..end)?;
        writer.write_batch(&frame)?;
    }
    writer.finish()?;
    Ok(())
}

impl RowSource for Violations {
    fn names(&self) -> Vec<String> {
        VIOLATION_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn height(&self) -> usize {
        self.len()
    }

    fn with_block(
        &self,
        start: usize,
        len: usize,
        _what: &str,
        f: &mut dyn FnMut(&mut [Values<'_>]) -> Result<(), String>,
    ) -> Result<(), String> {
        let rows: Vec<ViolationRef<'_>> = self.range(start..start + len).collect();
        // Times as RFC 3339 text, each run of equal times formatted once.
        let mut times = String::new();
        let mut spans: Vec<Range<usize>> = Vec::with_capacity(rows.len());
        let mut last: Option<(i64, Range<usize>)> = None;
        for r in &rows {
            let span = match &last {
                Some((t, span)) if *t == r.time() => span.clone(),
                _ => {
                    let from = times.len();
                    times.push_str(&format_time(r.time()));
                    from..times.len()
                }
            };
            last = Some((r.time(), span.clone()));
            spans.push(span);
        }
        let rows = &rows;
        fn text<'a>(
            rows: &'a [ViolationRef<'a>],
            f: fn(&ViolationRef<'a>) -> &'a str,
        ) -> Values<'a> {
            Values::Str(Box::new(rows.iter().map(move |r| Some(f(r)))))
        }
        let mut columns = [
            Values::Str(Box::new(spans.iter().map(|s| Some(&times[s.clone()])))),
            text(rows, |r| r.host()),
            text(rows, |r| r.crawler()),
            Values::Bool(Box::new(rows.iter().map(|r| r.verified()))),
            text(rows, |r| r.client_ip()),
            text(rows, |r| r.kind().as_str()),
            text(rows, |r| r.method()),
            text(rows, |r| r.url()),
            Values::I32(Box::new(rows.iter().map(|r| Some(i32::from(r.status()))))),
            text(rows, |r| r.rule()),
            Values::I64(Box::new(rows.iter().map(|r| r.rule_line().map(i64::from)))),
            Values::Str(Box::new(rows.iter().map(|r| r.robots_version()))),
            text(rows, |r| r.detail()),
        ];
        f(&mut columns)
    }
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
            })
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
            write_parquet_grouped(&mut ours, &t, 1000).unwrap();
            let mut whole = frame(&t).unwrap();
            let mut theirs = Vec::new();
            ParquetWriter::new(&mut theirs)
                .with_row_group_size(Some(1000))
                .finish(&mut whole)
                .unwrap();
            assert!(ours == theirs, "{n} rows: the files differ");
            let back = ParquetReader::new(std::io::Cursor::new(ours))
                .finish()
                .unwrap();
            assert!(back.equals_missing(&frame(&t).unwrap()), "{n} rows");
        }
    }
}
