//! The README must be true: its examples print what it says they print, and
//! its tables of the report's columns are the files an audit writes.

use std::process::Command;

/// Splits a one-line shell command: white space separates words, single
/// quotes group them. Enough for the README's examples, which use nothing else.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut in_word) = (false, false);
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Every `cargo run --release -- ...` example in the README that is followed
/// by a ```text block must print exactly that block.
#[test]
fn readme_examples_are_true() {
    let readme = include_str!("../README.md");
    let mut checked = 0;
    let mut from = 0;
    while let Some(found) = readme[from..].find("cargo run --release -- ") {
        let start = from + found;
        let command_end = start + readme[start..].find("```").unwrap();
        from = command_end + 3;
        let after = &readme[from..];
        // The example's output is the next block, if it is a text block.
        let Some(text) = after.trim_start_matches('\n').strip_prefix("```text\n") else {
            continue;
        };
        let expected = &text[..text.find("```").unwrap()];
        let command = readme[start..command_end].replace("\\\n", " ");
        let words = shell_words(&command);
        assert_eq!(&words[..4], ["cargo", "run", "--release", "--"]);
        // `audit` writes `reports/`: run it away from the work tree (the
        // demo it audits is embedded in the binary).
        let dir = if words[4] == "audit" {
            let dir =
                std::env::temp_dir().join(format!("crawlaudit-readme-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            dir
        } else {
            env!("CARGO_MANIFEST_DIR").into()
        };
        let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
            .args(&words[4..])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}: {out:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            expected,
            "{command}"
        );
        if words[4] == "audit" {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        checked += 1;
    }
    assert!(checked >= 3, "README examples checked: {checked}");
}

/// A column as the README's table of the report's columns describes it.
#[derive(Debug)]
struct DocumentedColumn {
    name: String,
    dtype: polars::prelude::DataType,
    nullable: bool,
}

/// The polars type a README type word names, and whether it may be null.
fn documented_type(word: &str) -> (polars::prelude::DataType, bool) {
    use polars::prelude::{DataType, TimeUnit, TimeZone};
    match word {
        "timestamp (µs, UTC)" => (
            DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)),
            false,
        ),
        "string" => (DataType::String, false),
        "string, null" => (DataType::String, true),
        "bool, null" => (DataType::Boolean, true),
        "Int32" => (DataType::Int32, false),
        "Int64" => (DataType::Int64, false),
        "Int64, null" => (DataType::Int64, true),
        "Float64" => (DataType::Float64, false),
        other => panic!("README: unknown column type {other:?}"),
    }
}

/// The columns of `table` as the README's "The report's tables" section
/// lists them, under the heading "### `NAME`" of that table.
fn documented_columns(readme: &str, table: &str) -> Vec<DocumentedColumn> {
    let start = readme
        .find("\n## The report's tables\n")
        .expect("README: no \"## The report's tables\" section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let heading = format!("\n### `{table}`\n");
    let at = section
        .find(&heading)
        .unwrap_or_else(|| panic!("README: no {heading:?} in \"The report's tables\""));
    let mut lines = section[at + heading.len()..]
        .lines()
        .skip_while(|l| !l.starts_with('|'));
    assert_eq!(
        lines.next().map(str::trim),
        Some("| column | type | meaning |"),
        "README: the {table} table's header"
    );
    assert_eq!(lines.next().map(str::trim), Some("|---|---|---|"));
    let columns: Vec<DocumentedColumn> = lines
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert!(cells.len() >= 5, "README: a {table} row of 3 cells: {row}");
            let name = cells[1]
                .strip_prefix('`')
                .and_then(|n| n.strip_suffix('`'))
                .unwrap_or_else(|| panic!("README: a {table} column not in backticks: {row}"));
            let (dtype, nullable) = documented_type(cells[2]);
            DocumentedColumn {
                name: name.to_string(),
                dtype,
                nullable,
            }
        })
        .collect();
    assert!(!columns.is_empty(), "README: the {table} table has no rows");
    columns
}

/// The keys of a JSON object, in the order they are written.
struct OrderedKeys(Vec<String>);

impl<'de> serde::Deserialize<'de> for OrderedKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = OrderedKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OrderedKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(OrderedKeys(keys))
            }
        }
        d.deserialize_map(Keys)
    }
}

/// The README's four tables of the report's columns are the columns, in
/// order and of the types, that an audit writes: Parquet (types, and no
/// null in a column documented without one), CSV header, NDJSON keys.
#[test]
fn readme_report_tables_are_the_files() {
    use polars::prelude::{DataType, ParquetReader, SerReader};
    let readme = include_str!("../README.md");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    // From the repository root, with neither logs nor a snapshot: the
    // bundled demo.
    let run = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(["audit", "--quiet", "--out"])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(run.status.success(), "audit of the demo: {run:?}");
    let tables: [(&str, &[&str]); 4] = [
        ("violations", &crawlaudit::report::VIOLATION_COLUMNS),
        ("crawlers", &crawlaudit::report::CRAWLER_COLUMNS),
        ("findings", &crawlaudit::report::FINDING_COLUMNS),
        ("daily", &crawlaudit::report::DAILY_COLUMNS),
    ];
    for (table, code) in tables {
        let documented = documented_columns(readme, table);
        let names: Vec<&str> = documented.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, code, "README's {table} columns against the code's");

        let file = std::fs::File::open(out.join(format!("{table}.parquet"))).unwrap();
        let df = ParquetReader::new(file).finish().unwrap();
        assert!(
            df.height() > 0,
            "{table}.parquet: no rows in the demo's report"
        );
        let written: Vec<(&str, &DataType)> = df
            .columns()
            .iter()
            .map(|c| (c.name().as_str(), c.dtype()))
            .collect();
        let want: Vec<(&str, &DataType)> = documented
            .iter()
            .map(|c| (c.name.as_str(), &c.dtype))
            .collect();
        assert_eq!(written, want, "{table}.parquet against the README");
        for (column, doc) in df.columns().iter().zip(&documented) {
            assert!(
                doc.nullable || column.null_count() == 0,
                "{table}.parquet: {} has nulls, but the README says it has none",
                doc.name
            );
        }

        let csv = std::fs::read_to_string(out.join(format!("{table}.csv"))).unwrap();
        assert_eq!(
            csv.lines().next().unwrap_or_default(),
            names.join(","),
            "{table}.csv header against the README"
        );

        let ndjson = std::fs::read_to_string(out.join(format!("{table}.ndjson"))).unwrap();
        let first = ndjson.lines().next().unwrap_or_default();
        let keys: OrderedKeys = serde_json::from_str(first)
            .unwrap_or_else(|e| panic!("{table}.ndjson: first line: {e}"));
        assert_eq!(keys.0, names, "{table}.ndjson keys against the README");
    }
}
