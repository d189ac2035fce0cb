//! The violations table, compact: what a run keeps of each violation until
//! the report is written. A row is 56 bytes of numbers (time, status, line,
//! kind, and the number of each repeated cell in its block's texts) and
//! its URL's bytes in its block's arena; each distinct host, crawler,
//! address, method, rule, version, detail and User-Agent is held once per block,
//! however many rows name it. A block is what one log chunk, or one run
//! of one host's judgement, found: blocks are filled in parallel and
//! joined by moving them, never by copying rows. The report reads the
//! rows through [`Violations::iter`] in the table's order, which
//! [`Violations::sort`] sets without moving a row.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use super::{Violation, ViolationKind};

/// No robots.txt version (a `noindex` row's), in [`Packed::version`].
const NONE: u32 = u32::MAX;

/// The table's repeated cells, in a row's `cells`.
const HOST: usize = 0;
const CRAWLER: usize = 1;
const CLIENT: usize = 2;
const METHOD: usize = 3;
const RULE: usize = 4;
const DETAIL: usize = 5;
/// The version's slot in [`Block::last`].
const VERSION: usize = 6;
/// The User-Agent's slot in [`Block::last`].
const AGENT: usize = 7;

/// A column of the table whose texts are held once per block (each
/// row names its text by number): what [`Violations::text_refs`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextColumn {
    /// The site.
    Host,
    /// The crawler identity.
    Crawler,
    /// The client address.
    Client,
    /// The request method.
    Method,
    /// The rule.
    Rule,
    /// The detail.
    Detail,
    /// The robots.txt version (none on some rows).
    Version,
    /// The User-Agent (none on some rows).
    Agent,
}

impl Packed {
    /// Its text of `column`: the number in its block's texts.
    fn text_of(&self, column: TextColumn) -> Option<u32> {
        let n = match column {
            TextColumn::Host => self.cells[HOST],
            TextColumn::Crawler => self.cells[CRAWLER],
            TextColumn::Client => self.cells[CLIENT],
            TextColumn::Method => self.cells[METHOD],
            TextColumn::Rule => self.cells[RULE],
            TextColumn::Detail => self.cells[DETAIL],
            TextColumn::Version => self.version,
            TextColumn::Agent => self.agent,
        };
        (n != NONE).then_some(n)
    }
}

/// One row: numbers only (56 bytes).
#[derive(Clone, Copy, Debug)]
struct Packed {
    time: i64,
    /// Where its URL ends in the block's arena (it starts where the
    /// previous row's ends).
    url_end: u32,
    /// Host, crawler, client, method, rule and detail: numbers of the
    /// block's texts.
    cells: [u32; 6],
    /// The robots.txt version's text, or [`NONE`].
    version: u32,
    /// The User-Agent's text, or [`NONE`].
    agent: u32,
    /// The rule's line, when `flags & HAS_LINE`.
    line: u32,
    status: u16,
    /// Its place in [`ViolationKind::ALL`].
    kind: u8,
    /// [`HAS_LINE`], and the verification ([`VERIFIED_MASK`]).
    flags: u8,
}

const HAS_LINE: u8 = 1;
const VERIFIED_MASK: u8 = 0b110;
const VERIFIED_FALSE: u8 = 0b010;
const VERIFIED_TRUE: u8 = 0b100;

/// Rows and the texts and URLs they name.
#[derive(Clone, Debug, Default)]
struct Block {
    rows: Vec<Packed>,
    /// The rows' URLs, one after the other.
    urls: String,
    texts: Vec<Arc<str>>,
    /// While the block is filled: a text's address to its number (the
    /// cells come shared, so equal cells are mostly the same `Arc`; two
    /// copies of one text are two numbers, which changes nothing read).
    ids: HashMap<usize, u32>,
    /// Per cell (the six of [`Packed::cells`], then the version), the
    /// last text's address and number: consecutive rows mostly repeat
    /// them, and a comparison is cheaper than a lookup.
    last: [(usize, u32); 8],
}

impl Block {
    /// Whether a row with a URL of `url_len` bytes still fits (its
    /// positions are `u32`).
    fn fits(&self, url_len: usize) -> bool {
        self.rows.len() < u32::MAX as usize
            && self.urls.len() + url_len <= u32::MAX as usize
            && self.texts.len() < (u32::MAX - 8) as usize
    }

    /// The number of `text`, the `cell`-th of a row.
    fn text(&mut self, cell: usize, text: &Arc<str>) -> u32 {
        let address = Arc::as_ptr(text).cast::<u8>() as usize;
        let (last, n) = self.last[cell];
        if last == address && !self.texts.is_empty() {
            return n;
        }
        let Block { texts, ids, .. } = self;
        let n = *ids.entry(address).or_insert_with(|| {
            texts.push(text.clone());
            u32::try_from(texts.len() - 1).expect("checked by fits")
        });
        self.last[cell] = (address, n);
        n
    }

    fn push(&mut self, v: &Cells<'_>) {
        let cells = [
            self.text(HOST, v.host),
            self.text(CRAWLER, v.crawler),
            self.text(CLIENT, v.client_ip),
            self.text(METHOD, v.method),
            self.text(RULE, v.rule),
            self.text(DETAIL, v.detail),
        ];
        let version = v.robots_version.map_or(NONE, |t| self.text(VERSION, t));
        let agent = v.user_agent.map_or(NONE, |t| self.text(AGENT, t));
        self.urls.push_str(v.url);
        let verified = match v.verified {
            None => 0,
            Some(false) => VERIFIED_FALSE,
            Some(true) => VERIFIED_TRUE,
        };
        self.rows.push(Packed {
            time: v.time,
            url_end: u32::try_from(self.urls.len()).expect("checked by fits"),
            cells,
            version,
            agent,
            line: v.rule_line.unwrap_or(0),
            status: v.status,
            kind: v.kind.index() as u8,
            flags: verified | if v.rule_line.is_some() { HAS_LINE } else { 0 },
        });
    }

    /// Done filling: the address map goes, the vectors are trimmed.
    fn seal(&mut self) {
        self.ids = HashMap::new();
        self.last = [(0, 0); 8];
        self.rows.shrink_to_fit();
        self.urls.shrink_to_fit();
        self.texts.shrink_to_fit();
    }

    fn row(&self, i: usize) -> ViolationRef<'_> {
        ViolationRef {
            block: self,
            row: i,
        }
    }

    /// Its rows, in the order added.
    fn refs(&self) -> impl Iterator<Item = ViolationRef<'_>> + '_ {
        (0..self.rows.len()).map(move |i| self.row(i))
    }

    fn shared(&self, n: u32) -> Arc<str> {
        self.texts[n as usize].clone()
    }
}

/// A violation's cells, borrowed: what [`Violations::push_cells`] adds
/// without owning a [`Violation`] first (a row's repeated cells are
/// mostly texts the table holds already, shared by many threads: borrowing
/// them spares each row its reference counting and its URL's copy).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cells<'a> {
    pub(crate) time: i64,
    pub(crate) host: &'a Arc<str>,
    pub(crate) crawler: &'a Arc<str>,
    pub(crate) verified: Option<bool>,
    pub(crate) client_ip: &'a Arc<str>,
    pub(crate) kind: ViolationKind,
    pub(crate) method: &'a Arc<str>,
    pub(crate) url: &'a str,
    pub(crate) status: u16,
    pub(crate) rule: &'a Arc<str>,
    pub(crate) rule_line: Option<u32>,
    pub(crate) robots_version: Option<&'a Arc<str>>,
    pub(crate) detail: &'a Arc<str>,
    pub(crate) user_agent: Option<&'a Arc<str>>,
}

impl<'a> From<&'a Violation> for Cells<'a> {
    fn from(v: &'a Violation) -> Self {
        Cells {
            time: v.time,
            host: &v.host,
            crawler: &v.crawler,
            verified: v.verified,
            client_ip: &v.client_ip,
            kind: v.kind,
            method: &v.method,
            url: &v.url,
            status: v.status,
            rule: &v.rule,
            rule_line: v.rule_line,
            robots_version: v.robots_version.as_ref(),
            detail: &v.detail,
            user_agent: v.user_agent.as_ref(),
        }
    }
}

/// One violation read from a [`Violations`] table: a view of the row, each
/// cell read (borrowed from the table) when asked for.
#[derive(Clone, Copy)]
pub struct ViolationRef<'a> {
    block: &'a Block,
    row: usize,
}

impl<'a> ViolationRef<'a> {
    fn packed(&self) -> &'a Packed {
        &self.block.rows[self.row]
    }

    fn cell(&self, which: usize) -> &'a str {
        &self.block.texts[self.packed().cells[which] as usize]
    }

    /// Request time, UTC nanoseconds.
    pub fn time(&self) -> i64 {
        self.packed().time
    }

    /// The site.
    pub fn host(&self) -> &'a str {
        self.cell(HOST)
    }

    /// The crawler identity.
    pub fn crawler(&self) -> &'a str {
        self.cell(CRAWLER)
    }

    /// Verified against published ranges; `None` when none are known.
    pub fn verified(&self) -> Option<bool> {
        match self.packed().flags & VERIFIED_MASK {
            VERIFIED_FALSE => Some(false),
            VERIFIED_TRUE => Some(true),
            _ => None,
        }
    }

    /// The client address.
    pub fn client_ip(&self) -> &'a str {
        self.cell(CLIENT)
    }

    /// What the crawler did.
    pub fn kind(&self) -> ViolationKind {
        ViolationKind::ALL[usize::from(self.packed().kind)]
    }

    /// The request method.
    pub fn method(&self) -> &'a str {
        self.cell(METHOD)
    }

    /// Path and query as logged.
    pub fn url(&self) -> &'a str {
        let start = match self.row {
            0 => 0,
            i => self.block.rows[i - 1].url_end as usize,
        };
        &self.block.urls[start..self.packed().url_end as usize]
    }

    /// The response status.
    pub fn status(&self) -> u16 {
        self.packed().status
    }

    /// The rule.
    pub fn rule(&self) -> &'a str {
        self.cell(RULE)
    }

    /// The rule's line in robots.txt.
    pub fn rule_line(&self) -> Option<u32> {
        let p = self.packed();
        (p.flags & HAS_LINE != 0).then_some(p.line)
    }

    /// The robots.txt version.
    pub fn robots_version(&self) -> Option<&'a str> {
        let v = self.packed().version;
        (v != NONE).then(|| &*self.block.texts[v as usize])
    }

    /// The detail.
    pub fn detail(&self) -> &'a str {
        self.cell(DETAIL)
    }

    /// The User-Agent as sent; `None` for evidence that is not a request
    /// of the crawler (`noindex`, `unavailable-after`).
    pub fn user_agent(&self) -> Option<&'a str> {
        let a = self.packed().agent;
        (a != NONE).then(|| &*self.block.texts[a as usize])
    }

    /// Its cells in the report's column order (in two tuples: the standard
    /// traits stop at twelve), for comparing and printing.
    #[allow(clippy::type_complexity)]
    fn cells(
        &self,
    ) -> (
        (i64, &'a str, &'a str, Option<bool>, &'a str, ViolationKind),
        (
            &'a str,
            &'a str,
            u16,
            &'a str,
            Option<u32>,
            Option<&'a str>,
            &'a str,
            Option<&'a str>,
        ),
    ) {
        (
            (
                self.time(),
                self.host(),
                self.crawler(),
                self.verified(),
                self.client_ip(),
                self.kind(),
            ),
            (
                self.method(),
                self.url(),
                self.status(),
                self.rule(),
                self.rule_line(),
                self.robots_version(),
                self.detail(),
                self.user_agent(),
            ),
        )
    }
}

impl PartialEq for ViolationRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cells() == other.cells()
    }
}

impl Eq for ViolationRef<'_> {}

impl std::fmt::Debug for ViolationRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ViolationRef").field(&self.cells()).finish()
    }
}

/// The violations of a run (SPEC section 9's `violations` table), compact:
/// see the module's documentation. Rows are added with
/// [`Violations::push`] and [`Violations::append`], put in the report's
/// order with [`Violations::sort`], and read with [`Violations::iter`] and
/// [`Violations::get`].
#[derive(Clone, Debug, Default)]
pub struct Violations {
    blocks: Vec<Block>,
    /// Per block, how many rows come before it.
    starts: Vec<usize>,
    len: usize,
    /// Once sorted, the rows in the table's order, each as its block's
    /// number (high 32 bits) and its row in the block (low 32 bits);
    /// empty while the rows are in the order they were added (the order
    /// costs 8 bytes a row, only when it is not that one).
    order: Vec<u64>,
    /// The rows, URL bytes and texts the next block made reserves at
    /// once ([`Violations::reserve`]), then zero.
    room: (usize, usize, usize),
}

fn at(block: usize, row: usize) -> u64 {
    ((block as u64) << 32) | row as u64
}

/// A row's place in the table's order: [`Violations::range`].
enum Places<'t> {
    Added {
        table: &'t Violations,
        at: usize,
        end: usize,
    },
    Sorted(std::slice::Iter<'t, u64>),
}

impl Iterator for Places<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        match self {
            Places::Added { table, at, end } => {
                if at >= end {
                    return None;
                }
                let p = table.place_added(*at);
                *at += 1;
                Some(p)
            }
            Places::Sorted(it) => it.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match self {
            Places::Added { at, end, .. } => end.saturating_sub(*at),
            Places::Sorted(it) => it.len(),
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for Places<'_> {}

impl Violations {
    /// How many rows it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn sorted(&self) -> bool {
        !self.order.is_empty()
    }

    /// Adds a row after the others.
    ///
    /// # Panics
    /// On a sorted table (rows are added, then sorted once).
    pub fn push(&mut self, v: Violation) {
        self.push_cells(&Cells::from(&v));
    }

    /// Its rows, their URLs' bytes and the distinct texts its blocks
    /// hold: what the next chunk on the same worker reserves
    /// ([`Violations::reserve`]).
    pub(crate) fn size(&self) -> (usize, usize, usize) {
        self.blocks
            .iter()
            .fold((0, 0, 0), |(rows, urls, texts), b| {
                (
                    rows + b.rows.len(),
                    urls + b.urls.len(),
                    texts + b.texts.len(),
                )
            })
    }

    /// Room for `rows` rows whose URLs take `url_bytes` bytes and which
    /// name `texts` distinct texts, made at once in the next block
    /// [`Violations::push_cells`] makes, rather than grown by doubling
    /// (each doubling copies the rows, or rehashes the texts' numbers).
    pub(crate) fn reserve(&mut self, room: (usize, usize, usize)) {
        self.room = room;
    }

    /// Adds a row after the others, from its cells.
    ///
    /// # Panics
    /// On a sorted table (rows are added, then sorted once).
    pub(crate) fn push_cells(&mut self, v: &Cells<'_>) {
        assert!(!self.sorted(), "a row added to a sorted table");
        if self.blocks.last().is_none_or(|b| !b.fits(v.url.len())) {
            if let Some(last) = self.blocks.last_mut() {
                last.seal();
            }
            let (rows, url_bytes, texts) = std::mem::take(&mut self.room);
            self.blocks.push(Block {
                rows: Vec::with_capacity(rows),
                urls: String::with_capacity(url_bytes),
                texts: Vec::with_capacity(texts),
                ids: HashMap::with_capacity(texts),
                ..Block::default()
            });
            self.starts.push(self.len);
        }
        let last = self.blocks.len() - 1;
        self.blocks[last].push(v);
        self.len += 1;
    }

    /// Moves `other`'s rows after these, in the order they were added,
    /// without copying a row.
    ///
    /// # Panics
    /// When either table is sorted.
    pub fn append(&mut self, other: Violations) {
        assert!(
            !self.sorted() && !other.sorted(),
            "rows appended to or from a sorted table"
        );
        self.push_blocks(other.blocks);
    }

    /// Moves `blocks`' rows after these (the empty blocks left out), the
    /// last block sealed first.
    fn push_blocks(&mut self, blocks: Vec<Block>) {
        if let Some(last) = self.blocks.last_mut() {
            last.seal();
        }
        for block in blocks {
            if !block.rows.is_empty() {
                self.starts.push(self.len);
                self.len += block.rows.len();
                self.blocks.push(block);
            }
        }
    }

    /// How many rows blocks `first..` hold, and their places, in the
    /// order added.
    fn places_from(&self, first: usize) -> (usize, impl Iterator<Item = u64> + '_) {
        let n = self.len - self.starts.get(first).copied().unwrap_or(self.len);
        let places = self
            .blocks
            .iter()
            .enumerate()
            .skip(first)
            .flat_map(|(b, block)| (0..block.rows.len()).map(move |r| at(b, r)));
        (n, places)
    }

    /// The place of the `i`-th row added.
    fn place_added(&self, i: usize) -> u64 {
        let b = self.starts.partition_point(|&s| s <= i) - 1;
        at(b, i - self.starts[b])
    }

    fn row_at(&self, p: u64) -> ViolationRef<'_> {
        self.blocks[(p >> 32) as usize].row((p & u64::from(u32::MAX)) as usize)
    }

    fn time_at(&self, p: u64) -> i64 {
        self.blocks[(p >> 32) as usize].rows[(p & u64::from(u32::MAX)) as usize].time
    }

    fn place(&self, i: usize) -> Option<u64> {
        if i >= self.len {
            None
        } else if self.sorted() {
            Some(self.order[i])
        } else {
            Some(self.place_added(i))
        }
    }

    /// The `i`-th row in the table's order.
    pub fn get(&self, i: usize) -> Option<ViolationRef<'_>> {
        self.place(i).map(|p| self.row_at(p))
    }

    /// The rows in the table's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = ViolationRef<'_>> + '_ {
        self.range(0..self.len)
    }

    /// Every row, in no particular order (block by block, as they lie in
    /// memory): for counting, where the order does not matter, faster than
    /// [`Violations::iter`] on a sorted table, which visits the blocks at
    /// random.
    pub fn iter_unordered(&self) -> impl Iterator<Item = ViolationRef<'_>> + '_ {
        self.blocks.iter().flat_map(Block::refs)
    }

    /// Every row as [`Violations::iter_unordered`] visits them, a block at
    /// a time, the blocks in parallel (in that order where the consumer
    /// keeps order, as `collect` does).
    pub fn par_blocks_unordered(
        &self,
    ) -> impl rayon::iter::IndexedParallelIterator<Item = impl Iterator<Item = ViolationRef<'_>> + '_> + '_
    {
        use rayon::prelude::*;
        self.blocks.par_iter().map(Block::refs)
    }

    /// The places of rows `range` of the table's order.
    ///
    /// # Panics
    /// When `range` is not within the table.
    fn places(&self, range: std::ops::Range<usize>) -> Places<'_> {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "rows out of range"
        );
        if self.sorted() {
            Places::Sorted(self.order[range].iter())
        } else {
            Places::Added {
                table: self,
                at: range.start,
                end: range.end,
            }
        }
    }

    /// The rows `range` of the table's order.
    ///
    /// # Panics
    /// When `range` is not within the table.
    pub fn range(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl ExactSizeIterator<Item = ViolationRef<'_>> + '_ {
        self.places(range).map(|p| self.row_at(p))
    }

    /// Rows `range` of the table's order, each row's text of `column` as
    /// its block's number and the text's number among the block's texts
    /// ([`Violations::block_text`]); `None` where the row has none. A
    /// reader that wants each distinct text once looks a text up once per
    /// block by these numbers, instead of once per row by its bytes. (One
    /// block may hold a text twice, under two numbers.)
    ///
    /// # Panics
    /// When `range` is not within the table.
    pub(crate) fn text_refs(
        &self,
        range: std::ops::Range<usize>,
        column: TextColumn,
    ) -> impl ExactSizeIterator<Item = Option<(u32, u32)>> + '_ {
        self.places(range).map(move |p| {
            let block = (p >> 32) as usize;
            self.blocks[block].rows[(p & u64::from(u32::MAX)) as usize]
                .text_of(column)
                .map(|n| (block as u32, n))
        })
    }

    /// Text `n` of block `block` ([`Violations::text_refs`]).
    ///
    /// # Panics
    /// When the table has no such block or text.
    pub(crate) fn block_text(&self, block: u32, n: u32) -> &str {
        &self.blocks[block as usize].texts[n as usize]
    }

    /// How many texts each block holds, block by block: the numbers
    /// [`Violations::text_refs`] gives are below them.
    pub(crate) fn block_text_counts(&self) -> Vec<usize> {
        self.blocks.iter().map(|b| b.texts.len()).collect()
    }

    /// Writes the rows in the order they were added (`super::wire`).
    pub(crate) fn write(&self, w: &mut super::wire::Writer<'_>) {
        w.usize(self.len);
        for v in self.iter() {
            w.i64(v.time());
            w.text(v.host());
            w.text(v.crawler());
            w.opt_bool(v.verified());
            w.text(v.client_ip());
            w.u64(v.kind().index() as u64);
            w.text(v.method());
            w.bytes(v.url().as_bytes());
            w.u64(u64::from(v.status()));
            w.text(v.rule());
            w.opt_u32(v.rule_line());
            w.opt_text(v.robots_version());
            w.text(v.detail());
            w.opt_text(v.user_agent());
        }
    }

    /// Reads what [`Violations::write`] wrote, as one table in that order.
    pub(crate) fn read(
        r: &mut super::wire::Reader<'_, '_>,
    ) -> Result<Violations, super::wire::WireError> {
        use super::wire::WireError;
        let n = r.count(20)?;
        let mut table = Violations::default();
        for _ in 0..n {
            let time = r.i64()?;
            let (host, crawler) = (r.text()?, r.text()?);
            let verified = r.opt_bool()?;
            let client_ip = r.text()?;
            let kind = *ViolationKind::ALL
                .get(r.u64()? as usize)
                .ok_or_else(|| WireError("a violation of no kind".into()))?;
            let method = r.text()?;
            let url = r.string()?;
            let status = r.u16()?;
            let rule = r.text()?;
            let rule_line = r.opt_u32()?;
            let robots_version = r.opt_text()?;
            let detail = r.text()?;
            let user_agent = r.opt_text()?;
            if url.len() > u32::MAX as usize / 2 {
                return Err(WireError("a URL longer than a table holds".into()));
            }
            table.push_cells(&Cells {
                time,
                host: &host,
                crawler: &crawler,
                verified,
                client_ip: &client_ip,
                kind,
                method: &method,
                url,
                status,
                rule: &rule,
                rule_line,
                robots_version: robots_version.as_ref(),
                detail: &detail,
                user_agent: user_agent.as_ref(),
            });
        }
        if let Some(last) = table.blocks.last_mut() {
            last.seal();
        }
        Ok(table)
    }

    /// The `i`-th row in the table's order as an owned [`Violation`]
    /// (sharing the table's texts).
    pub fn owned(&self, i: usize) -> Option<Violation> {
        let p = self.place(i)?;
        let block = &self.blocks[(p >> 32) as usize];
        let row = (p & u64::from(u32::MAX)) as usize;
        let r = block.row(row);
        let packed = &block.rows[row];
        Some(Violation {
            time: r.time(),
            host: block.shared(packed.cells[HOST]),
            crawler: block.shared(packed.cells[CRAWLER]),
            verified: r.verified(),
            client_ip: block.shared(packed.cells[CLIENT]),
            kind: r.kind(),
            method: block.shared(packed.cells[METHOD]),
            url: r.url().to_string(),
            status: r.status(),
            rule: block.shared(packed.cells[RULE]),
            rule_line: r.rule_line(),
            robots_version: (packed.version != NONE).then(|| block.shared(packed.version)),
            detail: block.shared(packed.cells[DETAIL]),
            user_agent: (packed.agent != NONE).then(|| block.shared(packed.agent)),
        })
    }

    /// All rows, in the table's order, as owned [`Violation`]s.
    pub fn to_rows(&self) -> Vec<Violation> {
        (0..self.len())
            .map(|i| self.owned(i).expect("i < len"))
            .collect()
    }

    /// Puts the rows in the report's order: by time, host, crawler, url
    /// and kind, rows equal in all of these in the order they were added.
    /// Only the order moves, never a row; the sort is parallel. The
    /// order's 8 bytes a row stay; while it sorts, each row's time is held
    /// beside its place (16 bytes a row in all).
    pub fn sort(&mut self) {
        if let Some(last) = self.blocks.last_mut() {
            last.seal();
        }
        self.order = if self.sorted() {
            let order = std::mem::take(&mut self.order);
            self.sorted_places(order.len(), order.into_iter())
        } else {
            let (n, places) = self.places_from(0);
            self.sorted_places(n, places)
        };
    }

    /// `places` (`n` of them) in the table's order
    /// ([`Violations::order_of`]): sorted by (time, place) with each row's
    /// time beside its place, so that a comparison reads no row; then each
    /// run of rows of one time (a handful, in a log's second) by the other
    /// keys. The order is `order_of`'s (the property tests below compare
    /// it with a stable sort by the keys).
    fn sorted_places(&self, n: usize, places: impl Iterator<Item = u64>) -> Vec<u64> {
        use rayon::prelude::*;
        let mut keyed: Vec<(i64, u64)> = Vec::with_capacity(n);
        keyed.extend(places.map(|p| (self.time_at(p), p)));
        keyed.par_sort_unstable();
        keyed
            .par_chunk_by_mut(|a, b| a.0 == b.0)
            .filter(|run| run.len() > 1)
            .for_each(|run| run.sort_unstable_by(|&(_, a), &(_, b)| self.order_of(a, b)));
        // The standard library collects this in place (the places into
        // the pairs' own memory, of the same alignment), which then
        // shrinks to them: the 4 GiB benchmark's peak rose by 6 MiB at
        // most, not by a copy of the order.
        let mut order: Vec<u64> = keyed.into_iter().map(|(_, p)| p).collect();
        order.shrink_to_fit();
        order
    }

    /// How the rows at places `a` and `b` are ordered in the table's order:
    /// the time first, the other keys only between equal times, the place
    /// last. Places are in the order rows were added, so an unstable sort
    /// gives the stable order, and the order is total.
    fn order_of(&self, a: u64, b: u64) -> std::cmp::Ordering {
        let rest = |p: u64| {
            let r = self.row_at(p);
            (r.host(), r.crawler(), r.url(), r.kind().as_str())
        };
        self.time_at(a)
            .cmp(&self.time_at(b))
            .then_with(|| rest(a).cmp(&rest(b)))
            .then(a.cmp(&b))
    }

    /// Moves `later`'s rows after these, which are sorted
    /// ([`Violations::sort`]), and keeps the whole sorted: `later`'s rows
    /// are sorted by themselves, then merged in. The table's order is
    /// total, and the places of these rows come before `later`'s, as after
    /// [`Violations::append`]: the order is the one sorting the whole
    /// would give (so these rows can be sorted while `later`'s are made).
    ///
    /// # Panics
    /// When these rows (if any) are not sorted, or `later`'s are.
    pub fn append_sorted(&mut self, later: Violations) {
        assert!(!later.sorted(), "rows appended from a sorted table");
        if self.len == 0 {
            *self = later;
            self.sort();
            return;
        }
        assert!(self.sorted(), "rows merged into a table not sorted");
        let first_new = self.blocks.len();
        self.push_blocks(later.blocks);
        if let Some(last) = self.blocks.last_mut() {
            last.seal();
        }
        let (n, places) = self.places_from(first_new);
        let theirs = self.sorted_places(n, places);
        self.order = self.merged(&self.order, &theirs);
    }

    /// The places `mine` and `theirs` (each in the table's order) merged
    /// into one list in that order, in parts merged in parallel: the
    /// order is total, so each part's rows (those of `mine` between two
    /// cuts, and those of `theirs` before the same rows) are the rows a
    /// merge of the whole puts there.
    fn merged(&self, mine: &[u64], theirs: &[u64]) -> Vec<u64> {
        use rayon::prelude::*;
        let parts = (rayon::current_num_threads() * 4).clamp(1, mine.len().max(1));
        // Where each part starts in `mine` and in `theirs`.
        let cuts: Vec<(usize, usize)> = (0..=parts)
            .map(|k| {
                let i = k * mine.len() / parts;
                let j = match (k, mine.get(i)) {
                    (0, _) => 0,
                    (_, Some(&first)) => {
                        theirs.partition_point(|&t| self.order_of(t, first).is_lt())
                    }
                    (_, None) => theirs.len(),
                };
                (i, j)
            })
            .collect();
        let mut order = vec![0; mine.len() + theirs.len()];
        let mut outs = Vec::with_capacity(parts);
        let mut rest = &mut order[..];
        for w in cuts.windows(2) {
            let ((i0, j0), (i1, j1)) = (w[0], w[1]);
            let (out, after) = rest.split_at_mut(i1 - i0 + j1 - j0);
            outs.push((out, &mine[i0..i1], &theirs[j0..j1]));
            rest = after;
        }
        outs.into_par_iter().for_each(|(out, mine, theirs)| {
            let (mut i, mut j) = (0, 0);
            for slot in out.iter_mut() {
                let take_mine = j == theirs.len()
                    || (i < mine.len() && self.order_of(mine[i], theirs[j]).is_lt());
                if take_mine {
                    *slot = mine[i];
                    i += 1;
                } else {
                    *slot = theirs[j];
                    j += 1;
                }
            }
        });
        order
    }
}

impl PartialEq for Violations {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl FromIterator<Violation> for Violations {
    fn from_iter<I: IntoIterator<Item = Violation>>(rows: I) -> Self {
        let mut table = Violations::default();
        for v in rows {
            table.push(v);
        }
        table
    }
}

impl Extend<Violation> for Violations {
    fn extend<I: IntoIterator<Item = Violation>>(&mut self, rows: I) {
        for v in rows {
            self.push(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(time: i64, host: &str, url: &str, kind: ViolationKind, line: Option<u32>) -> Violation {
        Violation {
            time,
            host: host.into(),
            crawler: "GPTBot".into(),
            verified: if time % 3 == 0 {
                None
            } else {
                Some(time % 3 == 1)
            },
            client_ip: "192.0.2.1".into(),
            kind,
            method: "GET".into(),
            url: url.into(),
            status: 200,
            rule: "Disallow: /".into(),
            rule_line: line,
            robots_version: line.map(|_| "robots.txt".into()),
            detail: String::new().into(),
            user_agent: line.map(|_| "GPTBot/1.0".into()),
        }
    }

    #[test]
    fn the_room_reserved_is_made_in_the_next_block_once_and_sizes_count_it() {
        let mut table = Violations::default();
        assert_eq!(table.size(), (0, 0, 0));
        table.reserve((100, 2_000, 40));
        let first = row(1, "a.example", "/first", ViolationKind::Disallow, Some(3));
        table.push(first.clone());
        let block = &table.blocks[0];
        assert!(block.rows.capacity() >= 100, "{}", block.rows.capacity());
        assert!(block.urls.capacity() >= 2_000, "{}", block.urls.capacity());
        assert!(block.texts.capacity() >= 40, "{}", block.texts.capacity());
        assert_eq!(table.room, (0, 0, 0), "the room is used once");
        // Host, crawler, address, method, rule, detail, version and agent:
        // eight distinct texts, each once for the rows that share them.
        table.push(Violation {
            url: "/second".into(),
            ..first
        });
        assert_eq!(table.size(), (2, "/first/second".len(), 8));
        assert_eq!(table.get(1).map(|v| v.url()), Some("/second"));
    }

    #[test]
    fn rows_read_back_as_pushed_and_sort_stably() {
        let rows = vec![
            row(5, "b.example", "/x", ViolationKind::Disallow, Some(2)),
            row(1, "a.example", "", ViolationKind::CrawlDelay, Some(0)),
            row(5, "a.example", "/ünï", ViolationKind::Noindex, None),
            row(5, "b.example", "/x", ViolationKind::Disallow, Some(3)),
            row(
                -7,
                "a.example",
                "/a?b=c",
                ViolationKind::UnavailableAfter,
                None,
            ),
        ];
        let mut first: Violations = rows[..2].iter().cloned().collect();
        let second: Violations = rows[2..].iter().cloned().collect();
        first.append(second);
        assert_eq!(first.len(), 5);
        assert_eq!(first.to_rows(), rows);
        first.sort();
        let sorted = first.to_rows();
        let mut want = rows.clone();
        want.sort_by(|a, b| {
            (a.time, &a.host, &a.crawler, &a.url, a.kind.as_str()).cmp(&(
                b.time,
                &b.host,
                &b.crawler,
                &b.url,
                b.kind.as_str(),
            ))
        });
        assert_eq!(sorted, want);
        // Equal keys keep the order they were added in (line 2, then 3).
        assert_eq!(
            (sorted[3].rule_line, sorted[4].rule_line),
            (Some(2), Some(3))
        );
        assert_eq!(first.get(0).map(|r| r.time()), Some(-7));
        assert_eq!(first.get(5), None);
    }

    #[test]
    fn a_cell_shared_is_held_once() {
        let host: Arc<str> = "shop.example".into();
        let mut table = Violations::default();
        for i in 0..1000 {
            let mut v = row(i, "x", "/p", ViolationKind::Disallow, Some(1));
            v.host = host.clone();
            table.push(v);
        }
        assert_eq!(table.blocks.len(), 1);
        // host, and per row a new copy of each other text (1000 rows):
        // the shared host is one text.
        let hosts: std::collections::HashSet<u32> =
            table.blocks[0].rows.iter().map(|p| p.cells[HOST]).collect();
        assert_eq!(hosts.len(), 1);
        assert_eq!(size_of::<Packed>(), 56);
    }

    /// Rows of (time, host, URL) keys, numbered by their line.
    fn keyed_rows(keys: &[(i64, usize, usize)]) -> Vec<Violation> {
        let hosts = ["a", "b", "c"];
        let urls = ["/", "/x", "/y"];
        keys.iter()
            .enumerate()
            .map(|(i, &(t, h, u))| {
                row(
                    t,
                    hosts[h],
                    urls[u],
                    ViolationKind::Disallow,
                    Some(i as u32),
                )
            })
            .collect()
    }

    /// `rows` stably sorted by time, host and URL.
    fn stably_sorted(rows: &[Violation]) -> Vec<Violation> {
        let mut want = rows.to_vec();
        want.sort_by(|a, b| (a.time, &a.host, &a.url).cmp(&(b.time, &b.host, &b.url)));
        want
    }

    proptest::proptest! {
        /// The table's order is a stable sort of the rows by the
        /// report's keys, whatever the blocks they came in.
        #[test]
        fn sort_is_a_stable_sort(
            keys in proptest::collection::vec((0i64..4, 0usize..3, 0usize..3), 0..300),
            cut in 0usize..300,
        ) {
            let rows = keyed_rows(&keys);
            let cut = cut.min(rows.len());
            let mut table: Violations = rows[..cut].iter().cloned().collect();
            table.append(rows[cut..].iter().cloned().collect());
            table.sort();
            proptest::prop_assert_eq!(table.to_rows(), stably_sorted(&rows));
        }

        /// Rows merged into a sorted table come where sorting the whole
        /// puts them, ties included (rows of equal keys: the first table's
        /// before the later one's, each in the order added).
        #[test]
        fn rows_merged_into_a_sorted_table_sort_as_the_whole(
            keys in proptest::collection::vec((0i64..4, 0usize..3, 0usize..3), 0..300),
            cut in 0usize..300,
            blocks in 1usize..4,
        ) {
            let rows = keyed_rows(&keys);
            let cut = cut.min(rows.len());
            let mut table: Violations = rows[..cut].iter().cloned().collect();
            table.sort();
            // The later rows in a few tables of their own, as hosts are.
            let mut later = Violations::default();
            for part in rows[cut..].chunks((rows.len() - cut).div_ceil(blocks).max(1)) {
                later.append(part.iter().cloned().collect());
            }
            table.append_sorted(later);
            let mut whole: Violations = rows.iter().cloned().collect();
            whole.sort();
            proptest::prop_assert_eq!(table.to_rows(), whole.to_rows());
            proptest::prop_assert_eq!(table.to_rows(), stably_sorted(&rows));
        }
    }
}
