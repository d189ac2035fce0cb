//! Indexing-rules benchmarks: robots meta extraction in MB/s over a few MB
//! of realistic HTML, and X-Robots-Tag header lines parsed per second.
//!
//! Run with `cargo bench --bench indexing`.

use crawlaudit::indexing::{PageRules, meta_tags};
use divan::counter::{BytesCount, ItemsCount};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// A realistic page of about `kib` KiB: a head full of meta, link and script
/// tags, inline CSS and JS (with a decoy meta in a string), a long body of
/// nested markup, comments, and the robots meta tags near the top.
fn page(kib: usize) -> Vec<u8> {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\
         <meta name=viewport content=\"width=device-width, initial-scale=1\">\
         <title>Product 42 &amp; friends | Shop</title>\
         <meta name=\"robots\" content=\"noindex, max-snippet: 50\">\
         <meta name=googlebot content='noarchive'>\
         <meta property=\"og:title\" content=\"Product 42\">\
         <link rel=stylesheet href=/static/app.css>\
         <style>body{font:14px/1.4 sans-serif}.a>.b{color:#333}</style>\
         <script>window.dataLayer=[];var s='<meta name=robots content=noindex>';</script></head><body>\n",
    );
    let mut i = 0;
    while html.len() < kib * 1024 {
        html.push_str(&format!(
            "<div class=\"card c{i}\" data-id={i}><a href=\"/products/{i}?ref=list&amp;page=2\">\
             <img src=/img/{i}.jpg alt='Item {i}' loading=lazy></a><p>Lorem ipsum dolor sit amet, \
             consectetur adipiscing elit &mdash; item {i}.</p><!-- card {i} --></div>\n"
        ));
        i += 1;
    }
    html.push_str("<script src=/static/app.js defer></script></body></html>\n");
    html.into_bytes()
}

#[divan::bench(args = [64, 1024, 4096])]
fn meta_extraction(bencher: Bencher, kib: usize) {
    let html = page(kib);
    bencher
        .counter(BytesCount::of_slice(&html))
        .bench(|| meta_tags(black_box(&html)));
}

const HEADERS: &[&str] = &[
    "noindex",
    "noindex, nofollow",
    "googlebot: nofollow",
    "BadBot: noindex, nofollow, googlebot: nofollow",
    "unavailable_after: Wed, 03 Dec 2025 13:09:53 GMT",
    "max-snippet: 20, max-image-preview: large, max-video-preview: -1",
    "noarchive, otherbot: noindex",
    "none",
];

#[divan::bench]
fn header_parsing(bencher: Bencher) {
    bencher.counter(ItemsCount::new(HEADERS.len())).bench(|| {
        let mut page = PageRules::default();
        for h in HEADERS {
            page.add_header(black_box(h));
        }
        page
    });
}

#[divan::bench]
fn effective_rules(bencher: Bencher) {
    let mut page = PageRules::default();
    for h in HEADERS {
        page.add_header(h);
    }
    page.add_html(&page_head());
    bencher.bench(|| page.effective(black_box(&["googlebot"])).noindex());
}

fn page_head() -> Vec<u8> {
    b"<meta name=robots content='nofollow'><meta name=googlebot content='max-snippet: 10'>".to_vec()
}
