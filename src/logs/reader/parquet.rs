//! Parquet logs (a data lake's landing format), read through polars: the
//! JSON field mapping (the names `--json-fields` takes) picks a column for
//! each field, the file's row groups are read in parallel (one sink each,
//! in file order), and every row is accounted for as a line: parsed, or
//! bad with a reason.
//!
//! A field's column is the first of its candidate names that the file has
//! (a top-level column; a struct's fields are not reached into). A
//! timestamp column is read as the instant it holds, at its unit's
//! resolution (a timestamp without a time zone is UTC); any other column is
//! read as text (numbers, strings, RFC 3339 or epoch times), as a JSON
//! value would be. Before anything is decoded, the footer and the page
//! headers of the columns read are checked
//! ([`crate::contain::check_pages_in`]): counts
//! that disagree, or that the file's size cannot hold, are a fault, not an
//! allocation that aborts. The decoder then runs under
//! [`crate::contain::contain`]: a file that makes it panic
//! is a fault naming the row group, not a crash.

use std::borrow::Cow;
use std::fs::File;
use std::path::Path;

use polars::prelude::{
    DataFrame, DataType, ParallelStrategy, ParquetReader, SerReader, StringChunked, TimeUnit,
};
use rayon::prelude::*;

use super::{Counts, FileReport, SAMPLE_BYTES, Sink, merge};
use crate::contain::{check_pages_in, contain};
use crate::logs::json::{FIELDS, JsonFields, NAMES, TIME};
use crate::logs::time::LogTime;

/// The first (and last) bytes of a Parquet file.
pub(crate) const MAGIC: &[u8] = b"PAR1";

/// Reads the Parquet log `path` (its first bytes are [`MAGIC`]) with the
/// mapping `fields` into sinks made by `make_sink`, one per row group.
pub(super) fn read_parquet<S, F>(
    path: &Path,
    len: u64,
    mut report: FileReport,
    fields: &JsonFields,
    make_sink: &F,
) -> (Vec<S>, FileReport)
where
    S: Sink,
    F: Fn() -> S + Sync,
{
    report.format = "parquet".into();
    let name = path.display().to_string();
    let footer = contain(|| -> Result<_, String> {
        let file = File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        let mut reader = ParquetReader::new(file);
        let schema = reader
            .schema()
            .map_err(|e| format!("{name}: not a readable Parquet file ({e})"))?;
        let meta = reader
            .get_metadata()
            .map_err(|e| format!("{name}: not a readable Parquet file ({e})"))?
            .clone();
        Ok((schema, meta))
    });
    let (schema, meta) = match footer {
        Ok(Ok(footer)) => footer,
        Ok(Err(e)) => {
            report.fault = Some(e);
            return (Vec::new(), report);
        }
        Err(panic) => {
            report.fault = Some(format!(
                "{name}: the Parquet reader failed on its footer ({panic})"
            ));
            return (Vec::new(), report);
        }
    };
    // The column of each logical field: its first candidate the file has.
    let columns: Vec<Option<String>> = (0..FIELDS)
        .map(|f| {
            fields
                .candidates(f)
                .iter()
                .find(|c| schema.contains(c.as_str()))
                .cloned()
        })
        .collect();
    if columns[TIME].is_none() {
        report.fault = Some(format!(
            "{name}: no column for the time (tried {}): name it with --json-fields time=COLUMN",
            fields.candidates(TIME).join(", ")
        ));
        return (Vec::new(), report);
    }
    let mut wanted: Vec<String> = columns.iter().flatten().cloned().collect();
    wanted.sort();
    wanted.dedup();
    // The counts the file declares for these columns are checked before
    // the decoder allocates by them: a forged count would abort the
    // process, which no `contain` can stop.
    let checked = contain(|| -> Result<(), String> {
        let mut file = File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        check_pages_in(&mut file, len, Some(&wanted))
            .map_err(|e| format!("{name}: not a readable Parquet file ({e})"))
    });
    if let Some(e) = match checked {
        Ok(result) => result.err(),
        Err(panic) => Some(format!("{name}: the Parquet reader failed ({panic})")),
    } {
        report.fault = Some(e);
        return (Vec::new(), report);
    }
    let mut groups = Vec::with_capacity(meta.row_groups.len());
    let mut first_row = 0usize;
    for group in &meta.row_groups {
        groups.push((first_row, group.num_rows()));
        first_row += group.num_rows();
    }
    let results: Vec<Result<(S, Counts), String>> = groups
        .par_iter()
        .enumerate()
        .map(|(index, &(start, rows))| {
            let frame = contain(|| {
                let file = File::open(path).map_err(|e| e.to_string())?;
                let mut reader = ParquetReader::new(file);
                reader.set_metadata(meta.clone());
                reader
                    .with_slice(Some((start, rows)))
                    .with_columns(Some(wanted.clone()))
                    .read_parallel(ParallelStrategy::None)
                    .finish()
                    .map_err(|e| e.to_string())
            });
            let failed = |why: String| {
                format!(
                    "{name}: row group {} (rows {} to {}) could not be read ({why}): the rows before it were used; give --allow-partial to accept them",
                    index + 1,
                    start + 1,
                    start + rows
                )
            };
            let frame = match frame {
                Ok(Ok(frame)) => frame,
                Ok(Err(e)) | Err(e) => return Err(failed(e)),
            };
            // polars code runs in parse_rows too (casts to text): a panic
            // there is this row group's fault, not a crash.
            let parsed = contain(|| {
                let mut sink = make_sink();
                parse_rows(&frame, &columns, fields, &mut sink).map(|counts| {
                    sink.finish();
                    (sink, counts)
                })
            });
            match parsed {
                Ok(Ok(done)) => Ok(done),
                Ok(Err(e)) | Err(e) => Err(failed(e)),
            }
        })
        .collect();
    let mut sinks = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok((sink, counts)) => {
                sinks.push(sink);
                merge(&mut report, [counts]);
            }
            Err(e) => {
                report.fault = Some(e);
                break;
            }
        }
    }
    report.bytes = len;
    (super::accepted(sinks), report)
}

/// The sample text of a bad row: each field's value as `name=value`, an
/// instant in RFC 3339 (or its number when it is out of range), cut at
/// [`SAMPLE_BYTES`].
fn sample(prepared: &[Option<FieldColumn>], row: usize) -> String {
    let mut shown = String::new();
    for (field, column) in prepared.iter().enumerate() {
        let Some(column) = column else { continue };
        let value = match &column.instants {
            Some((values, per_unit)) => values[row].map(|v| {
                v.checked_mul(*per_unit)
                    .map_or_else(|| format!("{v} (out of range)"), crate::time::format_time)
            }),
            None => column.text.get(row).map(str::to_string),
        };
        if let Some(value) = value {
            if !shown.is_empty() {
                shown.push(' ');
            }
            shown.push_str(NAMES[field]);
            shown.push('=');
            shown.push_str(&value);
        }
    }
    let mut end = shown.len().min(SAMPLE_BYTES);
    while !shown.is_char_boundary(end) {
        end -= 1;
    }
    shown.truncate(end);
    shown
}

/// A field's column, ready to read row by row: as text, and as instants
/// when it is a timestamp (the time field).
struct FieldColumn {
    text: StringChunked,
    instants: Option<(Vec<Option<i64>>, i64)>,
}

/// Reads the rows of one row group into `sink`, accounting for each.
fn parse_rows<S: Sink>(
    frame: &DataFrame,
    columns: &[Option<String>],
    fields: &JsonFields,
    sink: &mut S,
) -> Result<Counts, String> {
    let mut prepared: Vec<Option<FieldColumn>> = Vec::with_capacity(columns.len());
    for (field, column) in columns.iter().enumerate() {
        let Some(column) = column else {
            prepared.push(None);
            continue;
        };
        let column = frame.column(column).map_err(|e| e.to_string())?;
        let instants = match column.dtype() {
            DataType::Datetime(unit, _) if field == TIME => {
                let per_unit = match unit {
                    TimeUnit::Nanoseconds => 1,
                    TimeUnit::Microseconds => 1_000,
                    TimeUnit::Milliseconds => 1_000_000,
                };
                let values = column.datetime().map_err(|e| e.to_string())?;
                Some((values.physical().iter().collect(), per_unit))
            }
            _ => None,
        };
        // A temporal column is read as text by its number (polars panics
        // formatting an instant out of its calendar's range).
        let text = if column.dtype().is_temporal() {
            column.to_physical_repr()
        } else {
            column.clone()
        };
        let text = text
            .cast(&DataType::String)
            .map_err(|e| format!("column {:?} cannot be read as text: {e}", column.name()))?;
        let text = text.str().map_err(|e| e.to_string())?.clone();
        prepared.push(Some(FieldColumn { text, instants }));
    }
    let mut counts = Counts::default();
    for row in 0..frame.height() {
        counts.lines += 1;
        // A timestamp column's time is its instant, never its number read
        // as text.
        let text = |field: usize| -> Option<Cow<'_, [u8]>> {
            prepared[field]
                .as_ref()
                .filter(|c| c.instants.is_none())
                .and_then(|c| c.text.get(row))
                .map(|s| Cow::Borrowed(s.as_bytes()))
        };
        let time = prepared[TIME].as_ref().and_then(|c| {
            let (values, per_unit) = c.instants.as_ref()?;
            let value = values[row]?;
            Some(LogTime {
                nanos: value.checked_mul(*per_unit)?,
                resolution: *per_unit,
            })
        });
        let at = counts.lines;
        counts.read(fields.build(text, time), sink, at, || {
            sample(&prepared, row)
        });
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use polars::prelude::{Column, IntoColumn, NamedFrom, ParquetWriter, Series};

    use super::*;
    use crate::logs::{Format, Input, ReadOptions, Request, read_input};

    /// Keeps (target, status, time, host) of every request.
    #[derive(Debug, Default)]
    struct Keep(Vec<(String, u16, i64, Option<String>)>);

    impl Sink for Keep {
        fn record(&mut self, r: &Request<'_>) {
            self.0.push((
                String::from_utf8_lossy(r.target()).into_owned(),
                r.status(),
                r.time(),
                r.host().map(|h| String::from_utf8_lossy(h).into_owned()),
            ));
        }
    }

    fn write(name: &str, mut frame: DataFrame, group: usize) -> std::path::PathBuf {
        let dir = crate::test_dirs::process_dir().join("parquet");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        ParquetWriter::new(File::create(&path).unwrap())
            .with_row_group_size(Some(group))
            .finish(&mut frame)
            .unwrap();
        path
    }

    fn read(path: &Path, format: &str) -> (Vec<Keep>, FileReport) {
        let options = ReadOptions {
            format: format.parse::<Format>().unwrap(),
            chunk_size: 1,
        };
        read_input(&Input::File(path.to_path_buf()), &options, &Keep::default)
    }

    #[test]
    fn row_groups_in_parallel_one_sink_each_in_order() {
        let rows = 1000;
        let time: Vec<i64> = (0..rows).map(|i| 1_714_979_289_000 + i).collect();
        let uri: Vec<String> = (0..rows).map(|i| format!("/p{i}")).collect();
        let status: Vec<Option<i64>> = (0..rows)
            .map(|i| if i == 500 { Some(1000) } else { Some(200) })
            .collect();
        let frame = DataFrame::new(
            rows as usize,
            vec![
                Series::new("timestamp".into(), time)
                    .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))
                    .unwrap()
                    .into_column(),
                Column::new("uri".into(), uri),
                Column::new("status".into(), status),
            ],
        )
        .unwrap();
        let path = write("groups.parquet", frame, 100);
        let (sinks, report) = read(&path, "auto");
        assert_eq!(report.fault, None);
        assert_eq!((report.format.as_str(), sinks.len()), ("parquet", 10));
        assert_eq!((report.lines, report.parsed, report.bad), (1000, 999, 1));
        assert_eq!(report.samples[0].line, 501);
        assert_eq!(report.samples[0].reason, "status");
        let all: Vec<_> = sinks.into_iter().flat_map(|k| k.0).collect();
        assert_eq!(all[0].0, "/p0");
        assert_eq!(all[998].0, "/p999");
        // Milliseconds: the time and its resolution.
        assert_eq!(all[1].2, 1_714_979_289_001_000_000);
    }

    #[test]
    fn mapping_names_columns_and_text_times() {
        let frame = DataFrame::new(
            2,
            vec![
                Column::new("when".into(), ["2024-05-06T07:08:09Z", "1714979290"]),
                Column::new(
                    "url".into(),
                    ["https://www.example.com/a?b=1", "/robots.txt"],
                ),
                Column::new("path".into(), ["/not-this", "/nor-this"]),
                Column::new("code".into(), [200i32, 404]),
            ],
        )
        .unwrap();
        let path = write("mapped.parquet", frame, 10);
        // --json-fields on parquet (and on json: no JSON text begins with PAR1).
        for format in ["parquet", "json"] {
            let format = format
                .parse::<Format>()
                .unwrap()
                .with_json_fields("time=when, uri=url, status=code")
                .unwrap();
            let options = ReadOptions {
                format,
                chunk_size: 1,
            };
            let (sinks, report) = read_input(&Input::File(path.clone()), &options, &Keep::default);
            assert_eq!((report.fault, report.parsed), (None, 2));
            let all: Vec<_> = sinks.into_iter().flat_map(|k| k.0).collect();
            assert_eq!(
                all,
                vec![
                    (
                        "/a?b=1".to_string(),
                        200,
                        1_714_979_289_000_000_000,
                        Some("www.example.com".to_string())
                    ),
                    (
                        "/robots.txt".to_string(),
                        404,
                        1_714_979_290_000_000_000,
                        None
                    ),
                ]
            );
        }
        // Without the mapping, no time column: a fault that says what to do.
        let (_, report) = read(&path, "parquet");
        let fault = report.fault.unwrap();
        assert!(fault.contains("no column for the time"), "{fault}");
        assert!(fault.contains("--json-fields time=COLUMN"), "{fault}");
    }

    #[test]
    fn forged_counts_are_a_fault_not_an_abort_and_unread_columns_may_be_nested() {
        let time: Vec<Option<&str>> = vec![Some("2024-05-06T07:08:09Z"); 50];
        let uri: Vec<String> = (0..50).map(|i| format!("/p{i}")).collect();
        let tags = Series::new(
            "tags".into(),
            (0..50)
                .map(|i| Series::new("".into(), vec![i; i as usize % 3]))
                .collect::<Vec<_>>(),
        );
        let frame = DataFrame::new(
            50,
            vec![
                Column::new("timestamp".into(), time),
                Column::new("uri".into(), uri),
                tags.into_column(),
            ],
        )
        .unwrap();
        let path = write("nested.parquet", frame, 50);
        // A list column the mapping does not read: the rows are read.
        let (_, report) = read(&path, "auto");
        assert_eq!((report.fault, report.parsed), (None, 50));
        // The time column's first data page claims -50 values: without the
        // check the decoder reserves 2^61 bytes and the process aborts.
        let bytes = std::fs::read(&path).unwrap();
        let forged = crate::contain::tests::with_first_data_page(&bytes, |h| {
            h.data_page_header.as_mut().unwrap().num_values = -50;
        });
        let forged_path = path.with_file_name("forged.parquet");
        std::fs::write(&forged_path, forged).unwrap();
        let (sinks, report) = read(&forged_path, "auto");
        assert!(sinks.is_empty());
        let fault = report.fault.unwrap();
        assert!(
            fault.contains("forged.parquet: not a readable Parquet file"),
            "{fault}"
        );
        assert!(fault.contains("a page of -50 values"), "{fault}");
    }

    #[test]
    fn instants_out_of_the_calendar_are_bad_times_not_a_panic() {
        // Microseconds: year 11158 (past what nanoseconds in an i64 hold),
        // year -290308 and a good one (found by the log_parquet fuzz
        // target: polars panics formatting the first two as text).
        let time: Vec<i64> = vec![289_945_355_440_835_200, i64::MIN + 1, 1_714_979_289_000_000];
        let frame = DataFrame::new(
            3,
            vec![
                Series::new("timestamp".into(), time)
                    .cast(&DataType::Datetime(TimeUnit::Microseconds, None))
                    .unwrap()
                    .into_column(),
                Column::new("uri".into(), ["/a", "/b", "/c"]),
            ],
        )
        .unwrap();
        let path = write("calendar.parquet", frame, 10);
        let (sinks, report) = read(&path, "auto");
        assert_eq!(report.fault, None);
        assert_eq!((report.parsed, report.bad), (1, 2));
        assert_eq!(report.bad_by_reason.get("time"), Some(&2));
        // Their numbers are shown, never read as an epoch of another unit.
        assert!(
            report.samples[0]
                .text
                .starts_with("time=289945355440835200 ")
        );
        assert!(
            report.samples[1]
                .text
                .starts_with("time=-9223372036854775807 ")
        );
        let all: Vec<_> = sinks.into_iter().flat_map(|k| k.0).collect();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].2, 1_714_979_289_000_000_000);
    }

    #[test]
    fn broken_and_other_files_are_faults() {
        let frame = DataFrame::new(
            1,
            vec![
                Column::new("timestamp".into(), ["2024-05-06T07:08:09Z"]),
                Column::new("uri".into(), ["/"]),
            ],
        )
        .unwrap();
        let path = write("whole.parquet", frame, 10);
        let bytes = std::fs::read(&path).unwrap();
        // Truncated: its footer is gone.
        let cut = path.with_file_name("cut.parquet");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let (sinks, report) = read(&cut, "auto");
        assert!(sinks.is_empty());
        let fault = report.fault.unwrap();
        assert!(
            fault.contains("not a readable Parquet file") || fault.contains("failed"),
            "{fault}"
        );
        // Not Parquet, given as Parquet.
        let text = path.with_file_name("text.log");
        std::fs::write(&text, b"hello\n").unwrap();
        let (_, report) = read(&text, "parquet");
        assert!(report.fault.unwrap().contains("is not a Parquet file"));
        // Parquet through a stream (gzip): refused, with the way out.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &bytes).unwrap();
        let gz_path = path.with_file_name("whole.parquet.gz");
        std::fs::write(&gz_path, gz.finish().unwrap()).unwrap();
        let (_, report) = read(&gz_path, "auto");
        assert!(
            report
                .fault
                .unwrap()
                .contains("a Parquet log is read from a file")
        );
    }
}
