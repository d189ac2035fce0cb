//! The report's tables as CSV, byte for byte as polars' CSV writer writes
//! them (nulls empty, an empty string `""`, `\n` line ends), with text
//! cells a spreadsheet would run as a formula defused (OWASP's rule).

use std::io::Write;

use polars::prelude::*;

use super::rows::{CellFormat, RowSource, write_rows};

/// Whether a CSV cell would be read as a formula by a spreadsheet
/// (OWASP's CSV injection rule: it begins with `=`, `+`, `-`, `@`, a tab or
/// a carriage return).
fn formula_like(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// A copy of `df` whose text cells that a spreadsheet would run as a
/// formula begin with `'`, as OWASP advises, so that a crawler cannot
/// plant a formula (`=HYPERLINK(...)` as a User-Agent or URL) in the CSV
/// files, for polars' writer (ours, [`write_csv`], defuses them as it
/// writes). Parquet and NDJSON keep the exact values.
fn csv_safe(df: &DataFrame) -> PolarsResult<DataFrame> {
    let mut out = df.clone();
    for column in df.columns() {
        if column.dtype() != &DataType::String {
            continue;
        }
        let values = column.str()?;
        if !values.iter().flatten().any(formula_like) {
            continue;
        }
        let safe: StringChunked = values
            .iter()
            .map(|v| {
                v.map(|v| {
                    if formula_like(v) {
                        format!("'{v}")
                    } else {
                        v.to_string()
                    }
                })
            })
            .collect();
        out.with_column(safe.with_name(column.name().clone()).into_column())?;
    }
    Ok(out)
}

/// A CSV cell as polars writes it: an empty string as `""` (an empty
/// cell is a null), and a cell with a comma, quote, line feed or carriage
/// return quoted, its quotes doubled. A cell that looks like a formula
/// ([`formula_like`]) begins with `'`.
pub(super) fn csv_cell(row: &mut Vec<u8>, cell: &str) {
    let bytes = cell.as_bytes();
    if bytes.is_empty() {
        row.extend_from_slice(b"\"\"");
        return;
    }
    let defuse: &[u8] = if formula_like(cell) { b"'" } else { b"" };
    // Every byte looked at (no early exit), so that the loop is vectorized:
    // most cells have none.
    let special = |b: u8| matches!(b, b',' | b'"' | b'\n' | b'\r');
    if !bytes.iter().fold(false, |any, &b| any | special(b)) {
        row.extend_from_slice(defuse);
        row.extend_from_slice(bytes);
        return;
    }
    row.push(b'"');
    row.extend_from_slice(defuse);
    for part in bytes.split_inclusive(|&b| b == b'"') {
        row.extend_from_slice(part);
        if part.last() == Some(&b'"') {
            row.push(b'"');
        }
    }
    row.push(b'"');
}

/// Writes the header row: the column names as cells.
pub(super) fn write_header(w: &mut impl Write, names: &[impl AsRef<str>]) -> Result<(), String> {
    let mut header: Vec<u8> = Vec::new();
    for (n, name) in names.iter().enumerate() {
        if n > 0 {
            header.push(b',');
        }
        csv_cell(&mut header, name.as_ref());
    }
    header.push(b'\n');
    w.write_all(&header).map_err(|e| e.to_string())
}

/// How our CSV writer writes a cell: text quoted as needed and defused,
/// a null empty. Frames with floats go to polars' writer.
const CSV_CELLS: CellFormat = CellFormat {
    text: csv_cell,
    float: |_, _| Err("floats go to polars' CSV writer".to_string()),
    null: b"",
};

/// `rows` as CSV with a header row, as polars' CSV writer writes it
/// ([`csv_cell`]'s quoting), written here for text, boolean and integer
/// columns: the violations table can hold millions of rows (formatted in
/// parallel blocks), and polars is built for small frames. A frame with
/// other columns (floats) goes to polars' writer.
pub(super) fn write_csv(w: &mut impl Write, rows: &dyn RowSource) -> Result<(), String> {
    let for_polars = rows.frame().filter(|frame| {
        !frame.columns().iter().all(|c| {
            matches!(
                c.dtype(),
                DataType::String
                    | DataType::Boolean
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::UInt64
            )
        })
    });
    if let Some(frame) = for_polars {
        let mut frame = csv_safe(frame).map_err(|e| e.to_string())?;
        return CsvWriter::new(w)
            .include_header(true)
            .finish(&mut frame)
            .map_err(|e| e.to_string());
    }
    write_header(w, &rows.names())?;
    write_rows(w, rows, "CSV", |columns, n, out| {
        for _ in 0..n {
            for (i, values) in columns.iter_mut().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                values.write_next(out, &CSV_CELLS)?;
            }
            out.push(b'\n');
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(text: &str) -> String {
        let mut out = Vec::new();
        csv_cell(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn cells_are_quoted_and_defused_as_polars_and_owasp_would() {
        assert_eq!(cell(""), "\"\"");
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("=1+2"), "'=1+2");
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("\rline"), "\"'\rline\"");
        assert_eq!(cell("a-b"), "a-b");
    }

    /// Our writer and polars' (given the defused copy) write the same
    /// bytes: quoting, doubled quotes, empty strings and nulls, booleans
    /// and integers, hostile cells, across blocks.
    #[test]
    fn the_block_writer_matches_polars_writer() {
        let n = 40_000;
        let hostile = [
            Some("plain"),
            Some(""),
            None,
            Some("a,b"),
            Some("say \"hi\""),
            Some("\"quoted\""),
            Some("line\nbreak"),
            Some("carriage\rreturn"),
            Some("tab\there"),
            Some("ünïcödé, \"both\"\r\n"),
            Some("'=HYPERLINK(\"x\")"),
            Some("=HYPERLINK(\"x\",\"y\")"),
            Some("\""),
            Some(" spaced "),
            Some("-2+3"),
            Some("@SUM(1)"),
            Some("\t=1"),
        ];
        let text: Vec<Option<String>> = (0..n)
            .map(|i| match hostile[i % hostile.len()] {
                Some(t) if i % 3 == 0 => Some(format!("{t}{i}")),
                t => t.map(str::to_string),
            })
            .collect();
        let mut frame = df!(
            "text" => text,
            "flag" => (0..n).map(|i| (i % 3 != 0).then_some(i % 2 == 0)).collect::<Vec<_>>(),
            "small" => (0..n).map(|i| (i % 5 != 0).then_some(i as i32 - 20_000)).collect::<Vec<_>>(),
            "big" => (0..n).map(|i| i64::MIN + i as i64).collect::<Vec<_>>(),
            "count" => (0..n).map(|i| (i % 4 != 0).then_some(u64::MAX - i as u64)).collect::<Vec<_>>(),
        )
        .unwrap();
        let mut ours = Vec::new();
        write_csv(&mut ours, &frame).unwrap();
        let mut theirs = Vec::new();
        let mut safe = csv_safe(&frame).unwrap();
        CsvWriter::new(&mut theirs)
            .include_header(true)
            .finish(&mut safe)
            .unwrap();
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            String::from_utf8(theirs).unwrap()
        );
        // A frame with floats goes to polars' writer, defused all the same.
        frame
            .with_column(Column::new("share".into(), vec![0.5f64; n]))
            .unwrap();
        let mut out = Vec::new();
        write_csv(&mut out, &frame).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.contains("\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")"),
            "{}",
            &out[..300]
        );
        for line in out.lines().skip(1) {
            assert!(!line.starts_with(['=', '+', '-', '@']), "{line}");
        }
    }
}
