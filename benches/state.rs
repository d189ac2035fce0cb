//! `--state` benchmarks, per state row: a night's state written as the
//! state file's bytes, and those bytes read back into a state (every row
//! checked), as a run of many hosts does before and after its report.
//!
//! Run with `cargo bench --bench state`. The state looks like the one
//! `benches/state_nights.sh`'s `hosts-50000` night leaves: 50,000 hosts,
//! each with the last requests of two crawler identities and the 2xx
//! fetches of engine crawlers (two thirds of the requests), from 250
//! addresses.

use std::path::Path;

use crawlaudit::replay::{Fetch, LastRequest, State};
use crawlaudit::report::{read_state_bytes, state_bytes};
use divan::counter::ItemsCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// Hosts in the state.
const HOSTS: usize = 50_000;

const IDENTITIES: [&str; 3] = ["AhrefsBot", "Googlebot", "bingbot"];

/// The state of [`HOSTS`] hosts, and how many rows its file holds, as a
/// run holds it: read from a state file (its crawler names, addresses
/// and methods shared, one copy of each text).
fn state() -> (State, usize) {
    let (built, rows) = built();
    let bytes = state_bytes(&built).unwrap();
    (read_state_bytes(bytes, Path::new("bench")).unwrap(), rows)
}

/// The state of [`HOSTS`] hosts built entry by entry (each text its own
/// copy), and how many rows its file holds.
fn built() -> (State, usize) {
    let mut state = State::default();
    let mut rows = 0;
    let day = 1_794_268_800_000_000_000i64;
    for i in 0..HOSTS {
        let host = format!("h{i}.example");
        for j in 0..2 {
            let identity = IDENTITIES[(i + j) % 3];
            let time = day + ((i * 2 + j) as i64) * 864_000_000_000 / HOSTS as i64;
            state.insert_last(
                &host,
                identity,
                LastRequest {
                    time,
                    resolution: 1_000_000_000,
                    robots_fetch: None,
                },
            );
            rows += 1;
            if identity != "AhrefsBot" {
                state.push_fetch(
                    &host,
                    identity,
                    &format!("/page/{j}"),
                    Fetch {
                        time,
                        verified: None,
                        client: format!("66.249.66.{}", (i + j) % 250 + 1).into(),
                        method: "GET".into(),
                        status: 200,
                    },
                );
                rows += 1;
            }
        }
    }
    (state, rows)
}

/// The state written as a state file's bytes.
#[divan::bench(sample_count = 10)]
fn write(bencher: Bencher) {
    let (state, rows) = state();
    bencher
        .counter(ItemsCount::new(rows))
        .bench(|| state_bytes(black_box(&state)).unwrap());
}

/// A state file's bytes read back, every row checked.
#[divan::bench(sample_count = 10)]
fn read(bencher: Bencher) {
    let (state, rows) = state();
    let bytes = state_bytes(&state).unwrap();
    bencher
        .counter(ItemsCount::new(rows))
        .with_inputs(|| bytes.clone())
        .bench_values(|bytes| read_state_bytes(bytes, Path::new("bench")).unwrap());
}
