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

#[test]
fn readme_main_job_example_is_true() {
    let readme = include_str!("../README.md");
    let start = readme
        .find("cargo run --release -- check")
        .expect("README shows the main job");
    let command_end = start + readme[start..].find("```").unwrap();
    let command = readme[start..command_end].replace("\\\n", " ");
    let words = shell_words(&command);
    assert_eq!(&words[..4], ["cargo", "run", "--release", "--"]);

    let text_start =
        command_end + readme[command_end..].find("```text\n").unwrap() + "```text\n".len();
    let text_end = text_start + readme[text_start..].find("```").unwrap();
    let expected = &readme[text_start..text_end];

    let out = Command::new(env!("CARGO_BIN_EXE_crawlaudit"))
        .args(&words[4..])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}
