//! The report's tables as NDJSON: one JSON object per row, its keys the
//! columns in order, times as RFC 3339 strings, nulls as `null`; the text
//! exactly as `serde_json` writes it.

use std::io::Write;

use super::rows::{CellFormat, RowSource, write_rows};

/// `text` as a JSON string, escaped as `serde_json` escapes it: `"` and
/// `\` with a backslash, control characters below U+0020 as `\b`, `\t`,
/// `\n`, `\f`, `\r` or `\u00xx`; everything else (DEL, non-ASCII) as is.
pub(super) fn json_string(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.push(b'"');
    // Most texts need no escape: every byte looked at (no early exit), so
    // that the test is vectorized.
    if !bytes.iter().fold(false, |any, &b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    }) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            0..0x20 => &[],
            _ => continue,
        };
        out.extend_from_slice(&bytes[from..i]);
        if escape.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(escape);
        }
        from = i + 1;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// How a JSON value is written: text escaped, a float as serde_json
/// writes it, a null as `null`.
const JSON_CELLS: CellFormat = CellFormat {
    text: json_string,
    float: |out, v| serde_json::to_writer(out, &v).map_err(|e| e.to_string()),
    null: b"null",
};

/// One JSON object per row of `rows` (times already RFC 3339 strings,
/// nulls as null), written column by column in order, without building a
/// JSON value per row; blocks of rows are formatted in parallel.
pub(super) fn write_ndjson(w: &mut impl Write, rows: &dyn RowSource) -> Result<(), String> {
    // `"name":` once per column.
    let keys: Vec<Vec<u8>> = rows
        .names()
        .iter()
        .map(|name| {
            let mut key = Vec::new();
            json_string(&mut key, name);
            key.push(b':');
            key
        })
        .collect();
    write_rows(w, rows, "NDJSON", |columns, n, out| {
        for _ in 0..n {
            out.push(b'{');
            for (i, (key, values)) in keys.iter().zip(columns.iter_mut()).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(key);
                values.write_next(out, &JSON_CELLS)?;
            }
            out.extend_from_slice(b"}\n");
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::*;
    use proptest::prelude::*;

    /// A value as serde_json writes it.
    fn json<T: serde::Serialize>(value: &T) -> String {
        serde_json::to_string(value).unwrap()
    }

    fn ours(text: &str) -> String {
        let mut out = Vec::new();
        json_string(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        for text in [
            "",
            "plain",
            "say \"hi\"",
            "back\\slash",
            "\u{0}\u{1}\u{8}\t\n\u{b}\u{c}\r\u{1f} \u{7f}",
            "é/ü/中文/😀",
            "</script>",
        ] {
            assert_eq!(ours(text), serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(text in "\\PC*|[\\x00-\\x7f]{0,40}") {
            prop_assert_eq!(ours(&text), serde_json::to_string(&text).unwrap());
        }
    }

    /// Rows across blocks, every type and null, as `serde_json` writes
    /// each row's object.
    #[test]
    fn rows_are_objects_in_column_order() {
        let n = 40_000;
        let frame = df!(
            "text" => (0..n).map(|i| (i % 5 != 0).then(|| format!("u\"{i}\n"))).collect::<Vec<_>>(),
            "flag" => (0..n).map(|i| (i % 3 != 0).then_some(i % 2 == 0)).collect::<Vec<_>>(),
            "small" => (0..n).map(|i| (i % 4 != 0).then_some(i as i32 - 9)).collect::<Vec<_>>(),
            "big" => (0..n).map(|i| i as i64 * -1_000_000_007).collect::<Vec<_>>(),
            "count" => (0..n).map(|i| u64::MAX - i as u64).collect::<Vec<_>>(),
            "share" => (0..n).map(|i| (i % 6 != 0).then_some(i as f64 / 7.0)).collect::<Vec<_>>(),
        )
        .unwrap();
        let mut out = Vec::new();
        write_ndjson(&mut out, &frame).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), n);
        for (i, line) in lines.iter().enumerate() {
            // Each value as serde_json writes it, the keys in column order.
            let expected = format!(
                "{{\"text\":{},\"flag\":{},\"small\":{},\"big\":{},\"count\":{},\"share\":{}}}",
                json(&(i % 5 != 0).then(|| format!("u\"{i}\n"))),
                json(&(i % 3 != 0).then_some(i % 2 == 0)),
                json(&(i % 4 != 0).then_some(i as i32 - 9)),
                json(&(i as i64 * -1_000_000_007)),
                json(&(u64::MAX - i as u64)),
                json(&(i % 6 != 0).then_some(i as f64 / 7.0)),
            );
            assert_eq!(*line, expected, "row {i}");
        }
    }
}
