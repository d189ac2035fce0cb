//! The README's main-job example must print what the README says it prints.

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
        checked += 1;
    }
    assert!(checked >= 3, "README examples checked: {checked}");
}
