//! The Python face of the core (`sitesift._native`). Every call that works on a page lets
//! go of the GIL while it works, so threads clean pages in parallel.

use foldhash::HashMap;
use std::ops::Deref;
use std::sync::Arc;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::clean::pipeline::{self, Apart, Cut, Member, Model, Prepared};
use crate::crawl::shingles;
use crate::crawl::site::{key_hex, parse_key, Evidence};
use crate::model::forest::Forest;
use crate::model::novelty::{descriptor, Reference};
use crate::model::page_type;
use crate::output::structure::Format;
use crate::page::context::{context_features, N_CONTEXT};
use crate::page::features::N_FEATURES;
use crate::rules::{decided_by, Settings, RULES};

/// Run `f` without the GIL. A panic in it (a bug of the core) becomes a RuntimeError that
/// names it: an exception the batch records for the page, never a crash of the process
/// (PyO3's own PanicException derives from BaseException, past `except Exception`).
fn detached<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, f: F) -> PyResult<T> {
    py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            PyRuntimeError::new_err(format!("internal error in the native core: {what}"))
        })
}

/// A page read by the core: its visible tree and blocks, kept so that a site's fit and the
/// cleaning of its pages read each page once.
#[pyclass(module = "sitesift._native", name = "Page")]
struct PyPage {
    inner: Prepared,
}

#[pymethods]
impl PyPage {
    #[getter]
    fn title(&self) -> Option<String> {
        self.inner.title.clone()
    }
    #[getter]
    fn revealed(&self) -> bool {
        self.inner.revealed
    }
    #[getter]
    fn digest(&self) -> String {
        self.inner.digest.clone()
    }
    /// The evidence for the page's type (`page_type_names()`' order).
    #[getter]
    fn page_type_features(&self) -> Vec<f64> {
        self.inner.page_features.clone()
    }
    /// What the last cleaning (`clean`, `verdicts_for`) knew of its own extraction, in
    /// `confidence_names()`' order (`confidence::features`); empty before any.
    #[getter]
    fn confidence_features(&self) -> Vec<f64> {
        self.inner.confidence.clone()
    }
    /// The blocks' texts, in order.
    #[getter]
    fn texts(&self) -> Vec<String> {
        self.inner.pb.text.clone()
    }
    /// The site-evidence keys of the blocks: (text, folded text, layout position), hex.
    fn site_keys(&mut self) -> (Vec<String>, Vec<String>, Vec<String>) {
        let k = self.inner.keys();
        let h = |v: &Vec<u64>| v.iter().map(|&x| key_hex(x)).collect();
        (h(&k[0]), h(&k[1]), h(&k[2]))
    }
    /// The page's word shingles (`shingles::page_shingles`: its blocks' words, at most
    /// `limit`, else those of `markup`, its HTML), as little-endian u64 ids.
    fn shingles<'py>(
        &self,
        py: Python<'py>,
        width: usize,
        limit: usize,
        markup: Markup,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let texts = &self.inner.pb.text;
        let ids = detached(py, || shingles::page_shingles(texts, &markup, width, limit))?;
        Ok(u64_bytes(py, &ids))
    }
}

/// A page's text as the core decoded and checked it (`decode`, `intake`): held here, so
/// that reading the page never copies it through a Python str.
#[pyclass(module = "sitesift._native", name = "PageText", frozen)]
struct PyPageText {
    text: Arc<str>,
    cut_title: bool,
    encoding: Option<String>,
    source: Option<&'static str>,
}

#[pymethods]
impl PyPageText {
    /// The text as a Python str (a copy).
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }
    /// An unclosed `<title>` was closed: the title proper is its first line.
    #[getter]
    fn cut_title(&self) -> bool {
        self.cut_title
    }
    /// The encoding the bytes were read in (the standard's name, lower-cased), or None for
    /// text given as text.
    #[getter]
    fn encoding(&self) -> Option<&str> {
        self.encoding.as_deref()
    }
    /// What decided the encoding: bom, http, meta, utf-8, detected or fallback.
    #[getter]
    fn source(&self) -> Option<&str> {
        self.source
    }
    /// Its length in characters, as Python's `len` of the str would say.
    #[getter]
    fn chars(&self) -> usize {
        self.text.chars().count()
    }
}

/// Page bytes decoded (`decode::decode`: BOM, HTTP header, meta, UTF-8, detection with the
/// URL's domain) and, unless `check` is false, checked (`intake::check`); ValueError with
/// the reason it cannot be.
#[pyfunction]
#[pyo3(signature = (data, content_type=None, url=None, max_bytes=64 * 1024 * 1024, check=true))]
fn decode_page(
    py: Python<'_>,
    data: &[u8],
    content_type: Option<&str>,
    url: Option<&str>,
    max_bytes: usize,
    check: bool,
) -> PyResult<PyPageText> {
    let done = detached(py, || {
        let tld = url.and_then(crate::read::decode::tld_of);
        let decoded = crate::read::decode::decode(data, content_type, tld.as_deref(), max_bytes)?;
        let (text, cut_title) = if check {
            let checked = crate::read::intake::check(decoded.text)?;
            (checked.text, checked.cut_title)
        } else {
            (decoded.text, false)
        };
        Ok::<_, String>(PyPageText {
            text: Arc::from(text),
            cut_title,
            encoding: Some(decoded.charset.name()),
            source: Some(decoded.source.name()),
        })
    })?;
    done.map_err(PyValueError::new_err)
}

/// Why the first bytes of `data` say it is binary, not a page (`decode::check_binary`), or
/// None.
#[pyfunction]
fn binary_reason(data: &[u8]) -> Option<String> {
    let head = &data[..data.len().min(crate::read::decode::SNIFF_WINDOW)];
    crate::read::decode::check_binary(head).err()
}

/// The encoding a Content-Type value's charset names (the standard's name, lower-cased), or
/// None where it names none a page can be read in.
#[pyfunction]
fn content_type_charset(value: &str) -> Option<String> {
    crate::read::decode::charset_from_content_type(value).map(|c| c.name())
}

/// A page given as text, checked (`intake::check`); ValueError with the reason it is
/// refused.
#[pyfunction]
fn page_text(py: Python<'_>, html: String) -> PyResult<PyPageText> {
    let checked = detached(py, move || crate::read::intake::check(html))?;
    let checked = checked.map_err(PyValueError::new_err)?;
    Ok(PyPageText {
        text: Arc::from(checked.text),
        cut_title: checked.cut_title,
        encoding: None,
        source: None,
    })
}

/// Page markup from Python: a str, or a `PageText` (shared, not copied).
enum Markup {
    Str(PyBackedStr),
    Text(Arc<str>),
}

impl Deref for Markup {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Markup::Str(s) => s,
            Markup::Text(t) => t,
        }
    }
}

impl FromPyObject<'_, '_> for Markup {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> Result<Self, Self::Error> {
        if let Ok(text) = obj.cast::<PyPageText>() {
            return Ok(Markup::Text(text.get().text.clone()));
        }
        Ok(Markup::Str(obj.extract()?))
    }
}

/// The distinct `width`-shingles of `tokens` as little-endian u64 ids (`shingles.rs`; the
/// same as `sitesift.shingles.bulk_shingle_ids`, which a test holds it to).
#[pyfunction]
fn shingle_ids<'py>(
    py: Python<'py>,
    tokens: Vec<String>,
    width: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let ids = detached(py, move || shingles::shingle_ids(&tokens, width))?;
    Ok(u64_bytes(py, &ids))
}

/// For each shingle-id set (little-endian u64 bytes, as `Page.shingles` gives them), the
/// index of the first earlier one it equals or nearly equals, else its own
/// (`minhash::near_duplicates`).
#[pyfunction]
fn near_duplicates(
    py: Python<'_>,
    sets: Vec<PyBackedBytes>,
    threshold: f64,
) -> PyResult<Vec<usize>> {
    detached(py, || {
        crate::crawl::minhash::near_duplicates_of_bytes(&sets, threshold)
    })?
    .map_err(PyValueError::new_err)
}

/// A crawl record's row for the crawl-wide copy check (`dups::encode_row`): its place in the
/// crawl, its text's SHA-1 (`digest`) and its text's signature, its input and URL.
#[pyfunction]
#[pyo3(signature = (input_index, position, digest, text, input, url=None))]
fn dup_row<'py>(
    py: Python<'py>,
    input_index: u32,
    position: u64,
    digest: &[u8],
    text: &str,
    input: &str,
    url: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let row = crate::crawl::dups::encode_row(input_index, position, digest, text, input, url)
        .map_err(PyValueError::new_err)?;
    Ok(PyBytes::new(py, &row))
}

/// A copy found by `crawl_duplicates`: (copy, original, similarity, exact).
type DupFound = (usize, usize, f64, bool);

/// How many rows `blob` holds (rows one after another), and the copies among them:
/// (copy, original, similarity, exact), indices of rows in `blob` (`dups::duplicates`).
#[pyfunction]
fn crawl_duplicates(
    py: Python<'_>,
    blob: PyBackedBytes,
    threshold: f64,
) -> PyResult<(usize, Vec<DupFound>)> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(PyValueError::new_err(format!(
            "threshold must be from 0 to 1, not {threshold}"
        )));
    }
    detached(py, || {
        let rows = crate::crawl::dups::decode_rows(&blob)?;
        let found = crate::crawl::dups::duplicates(&rows, threshold)
            .into_iter()
            .map(|d| (d.copy, d.original, d.similarity, d.exact))
            .collect();
        Ok((rows.len(), found))
    })?
    .map_err(|e: String| PyValueError::new_err(e))
}

type DupSource<'py> = (
    u32,
    u64,
    String,
    Option<String>,
    Option<Bound<'py, PyBytes>>,
);

/// Where rows of `blob` came from: (input index, position, input, URL, the text's digest or
/// None for a record without text), of the rows at `indices` (in that order), or of every
/// row.
#[pyfunction]
#[pyo3(signature = (blob, indices=None))]
fn dup_sources<'py>(
    py: Python<'py>,
    blob: &[u8],
    indices: Option<Vec<usize>>,
) -> PyResult<Vec<DupSource<'py>>> {
    let rows = crate::crawl::dups::decode_rows(blob).map_err(PyValueError::new_err)?;
    let wanted = indices.unwrap_or_else(|| (0..rows.len()).collect());
    wanted
        .iter()
        .map(|&i| {
            let r = rows
                .get(i)
                .ok_or_else(|| PyValueError::new_err(format!("no row {i} of {}", rows.len())))?;
            let digest = r.has_text.then(|| PyBytes::new(py, r.digest));
            let url = r.url.map(str::to_string);
            Ok((r.input_index, r.position, r.input.to_string(), url, digest))
        })
        .collect()
}

/// A row's band keys in band order, as signed 64-bit numbers (Spark's LongType); none for a
/// row without words (only its exact copies are found).
#[pyfunction]
fn dup_bands(row: &[u8]) -> PyResult<Vec<i64>> {
    let rows = crate::crawl::dups::decode_rows(row).map_err(PyValueError::new_err)?;
    let [one] = rows.as_slice() else {
        return Err(PyValueError::new_err("dup_bands takes one row"));
    };
    if !one.has_text || one.shingles == 0 {
        return Ok(Vec::new());
    }
    Ok(one.bands().iter().map(|&k| k as i64).collect())
}

fn u64_bytes<'py>(py: Python<'py>, v: &[u64]) -> Bound<'py, PyBytes> {
    let raw: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    PyBytes::new(py, &raw)
}

/// Read a page: parse, build the visible tree, reveal script-gated content, walk blocks.
#[pyfunction]
#[pyo3(signature = (html, url=None, cut_title=false, reveal=true))]
fn read(
    py: Python<'_>,
    html: Markup,
    url: Option<String>,
    cut_title: bool,
    reveal: bool,
) -> PyResult<PyPage> {
    let out = detached(py, move || {
        pipeline::prepare(&html, url.as_deref(), cut_title, reveal)
    })?;
    out.map(|inner| PyPage { inner })
        .map_err(PyValueError::new_err)
}

type ForestArgs = (
    usize,
    f64,
    Vec<i64>,
    Vec<i64>,
    Vec<f64>,
    Vec<i64>,
    Vec<i64>,
    Vec<i64>,
    Vec<f64>,
);

fn forest(args: ForestArgs) -> PyResult<Forest> {
    let (n, base, roots, feature, threshold, missing, left, right, value) = args;
    Forest::new(
        n,
        base,
        roots,
        feature,
        threshold,
        missing.into_iter().map(|m| m != 0).collect(),
        left,
        right,
        value,
    )
    .map_err(PyValueError::new_err)
}

/// One forest, for Python's own uses of a model's forests (training's held-out scoring).
#[pyclass(module = "sitesift._native", name = "Forest", frozen)]
struct PyForest {
    inner: Forest,
}

#[pymethods]
impl PyForest {
    #[new]
    fn new(args: ForestArgs) -> PyResult<Self> {
        Ok(PyForest {
            inner: forest(args)?,
        })
    }
    /// Sum of leaf values plus baseline per row of X (float64 bytes, rows x n_features).
    fn raw<'py>(&self, py: Python<'py>, x: &[u8], rows: usize) -> PyResult<Bound<'py, PyBytes>> {
        let x = bytes_f64(x)?;
        if x.len() != rows * self.inner.n_features() {
            return Err(PyValueError::new_err(format!(
                "expected (rows, {}) features",
                self.inner.n_features()
            )));
        }
        let out = detached(py, || self.inner.raw(&x, rows))?;
        Ok(f64_bytes(py, &out))
    }
}

/// The page-type model (`page_type::Typer`): one forest per type of `page_type_names`'
/// `TYPES`, each as the arrays of its JSON form (checked as it is built).
#[pyclass(module = "sitesift._native", name = "PageTyper", frozen)]
struct PyPageTyper {
    inner: page_type::Typer,
}

#[pymethods]
impl PyPageTyper {
    #[new]
    fn new(forests: Vec<ForestArgs>) -> PyResult<Self> {
        let forests = forests.into_iter().map(forest).collect::<PyResult<_>>()?;
        Ok(PyPageTyper {
            inner: page_type::Typer::new(forests).map_err(PyValueError::new_err)?,
        })
    }
    /// Each type's probability for these features, in `TYPES`' order.
    fn proba(&self, x: Vec<f64>) -> PyResult<Vec<f64>> {
        self.checked(&x)?;
        Ok(self.inner.proba(&x))
    }
    /// (the most likely type, its probability) of a read page.
    fn classify(&self, page: PyRef<'_, PyPage>) -> PyResult<(&'static str, f64)> {
        let x = &page.inner.page_features;
        self.checked(x)?;
        Ok(self.inner.classify(x))
    }
}

impl PyPageTyper {
    fn checked(&self, x: &[f64]) -> PyResult<()> {
        if x.len() != page_type::names().len() {
            return Err(PyValueError::new_err(format!(
                "expected {} page-type features",
                page_type::names().len()
            )));
        }
        Ok(())
    }
}

/// The names of the figures a cleaned page gives for its confidence
/// (`Page.confidence_features`' order).
#[pyfunction]
fn confidence_names() -> Vec<&'static str> {
    crate::clean::confidence::NAMES.to_vec()
}

/// The page-type features' names, and the types in the order of a page-type model's forests.
#[pyfunction]
fn page_type_names() -> (Vec<String>, Vec<&'static str>) {
    (page_type::names().to_vec(), page_type::TYPES.to_vec())
}

/// The forests of a model: members of (stage1, stage2, [(stage1, stage2) per fold],
/// {site: fold}), each forest as the arrays of its JSON form, and the reference of its
/// training pages (`Novelty`) where its file has one.
#[pyclass(module = "sitesift._native", name = "Model", frozen)]
struct PyModel {
    inner: Model,
}

#[pymethods]
impl PyModel {
    #[new]
    #[pyo3(signature = (members, novelty=None))]
    #[allow(clippy::type_complexity)]
    fn new(
        members: Vec<(
            ForestArgs,
            ForestArgs,
            Vec<(ForestArgs, ForestArgs)>,
            HashMap<String, usize>,
        )>,
        novelty: Option<PyRef<'_, PyNovelty>>,
    ) -> PyResult<Self> {
        let mut out = Vec::new();
        for (s1, s2, folds, fold_of) in members {
            let stage1 = forest(s1)?;
            let stage2 = forest(s2)?;
            if stage1.n_features() != N_FEATURES || stage2.n_features() != N_FEATURES + N_CONTEXT {
                return Err(PyValueError::new_err(
                    "the forests do not take this core's features",
                ));
            }
            let mut fs = Vec::new();
            for (a, b) in folds {
                fs.push((forest(a)?, forest(b)?));
            }
            if fold_of.values().any(|&f| f >= fs.len()) {
                return Err(PyValueError::new_err("a site's fold is out of range"));
            }
            out.push(Member {
                stage1,
                stage2,
                folds: fs,
                fold_of,
            });
        }
        Ok(PyModel {
            inner: Model {
                members: out,
                novelty: novelty.map(|n| n.inner.clone()),
            },
        })
    }
}

/// The descriptors of a model's training pages and the distance beyond which a page is
/// unlike them (`novelty::Reference`): (means, scales, standardized points as little-endian
/// float32 bytes, each point's site index as little-endian uint32 bytes, the sites, k, cut).
#[pyclass(module = "sitesift._native", name = "Novelty", frozen)]
struct PyNovelty {
    inner: Reference,
}

#[pymethods]
impl PyNovelty {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        mean: Vec<f64>,
        scale: Vec<f64>,
        points: &[u8],
        site: &[u8],
        sites: Vec<String>,
        k: usize,
        cut: f64,
    ) -> PyResult<Self> {
        if points.len() % 4 != 0 || site.len() % 4 != 0 {
            return Err(PyValueError::new_err(
                "novelty: points and sites must be 4-byte numbers",
            ));
        }
        let points = points
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
            .collect();
        let site = site
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as usize)
            .collect();
        Reference::new(mean, scale, points, site, sites, k, cut)
            .map(|inner| PyNovelty { inner })
            .map_err(PyValueError::new_err)
    }

    /// Each descriptor's distance to its k nearest points (`Reference::distance`), leaving
    /// out the points of the site index given beside it (None: none).
    fn distances(
        &self,
        py: Python<'_>,
        descriptors: Vec<Vec<f64>>,
        skip: Vec<Option<usize>>,
    ) -> PyResult<Vec<f64>> {
        if descriptors.len() != skip.len() {
            return Err(PyValueError::new_err("one skip per descriptor"));
        }
        let r = &self.inner;
        detached(py, || {
            descriptors
                .iter()
                .zip(&skip)
                .map(|(d, s)| r.distance(d, &|site| Some(site) == *s))
                .collect()
        })
    }

    /// Whether each descriptor is unlike every point (`Reference::novel`).
    fn novel(&self, py: Python<'_>, descriptors: Vec<Vec<f64>>) -> PyResult<Vec<bool>> {
        let r = &self.inner;
        detached(py, || {
            descriptors.iter().map(|d| r.novel(d, &|_| false)).collect()
        })
    }

    #[getter]
    fn cut(&self) -> f64 {
        self.inner.cut
    }
}

/// A page's descriptor (`novelty::descriptor`) from its features (float64 bytes, rows of
/// the core's features) and token counts.
#[pyfunction]
fn page_descriptor(x: &[u8], ntok: Vec<f64>) -> PyResult<Vec<f64>> {
    let x = bytes_f64(x)?;
    if x.len() != ntok.len() * N_FEATURES {
        return Err(PyValueError::new_err(
            "page_descriptor: features and token counts of different numbers of blocks",
        ));
    }
    Ok(descriptor(&x, &ntok))
}

#[pyfunction]
fn novelty_columns() -> Vec<String> {
    crate::model::novelty::columns()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Page counts of block texts and layout positions over a site's pages.
#[pyclass(module = "sitesift._native", name = "Evidence")]
#[derive(Default)]
struct PyEvidence {
    inner: Evidence,
}

#[pymethods]
impl PyEvidence {
    #[new]
    fn new() -> Self {
        Self::default()
    }
    /// Count a page (a page with the digest of one already counted counts once).
    fn add(&mut self, mut page: PyRefMut<'_, PyPage>) {
        let digest = page.inner.digest.clone();
        let keys = page.inner.keys().clone();
        self.inner.add(&digest, &keys);
    }
    #[getter]
    fn n_pages(&self) -> usize {
        self.inner.n_pages
    }
    fn to_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("n_pages", self.inner.n_pages)?;
        for (name, counts) in ["text", "folded", "path"].iter().zip(&self.inner.counts) {
            let mut items: Vec<(String, u32)> =
                counts.iter().map(|(k, v)| (key_hex(*k), *v)).collect();
            items.sort();
            let c = PyDict::new(py);
            for (k, v) in items {
                c.set_item(k, v)?;
            }
            d.set_item(*name, c)?;
        }
        let mut digests: Vec<&String> = self.inner.digests.iter().collect();
        digests.sort();
        d.set_item("digests", PyList::new(py, digests)?)?;
        Ok(d)
    }
    /// From `to_state`'s dict, checked: counts are non-negative integers under 16-digit
    /// hex keys, digests are strings, and no more pages are named than counted.
    #[staticmethod]
    fn from_state(
        n_pages: usize,
        text: HashMap<String, u32>,
        folded: HashMap<String, u32>,
        path: HashMap<String, u32>,
        digests: Vec<String>,
    ) -> PyResult<Self> {
        let mut ev = Evidence {
            n_pages,
            ..Default::default()
        };
        for (i, counts) in [text, folded, path].into_iter().enumerate() {
            for (k, v) in counts {
                let key =
                    parse_key(&k).ok_or_else(|| PyValueError::new_err(format!("bad key {k:?}")))?;
                ev.counts[i].insert(key, v);
            }
        }
        ev.digests = digests.into_iter().collect();
        if ev.digests.len() > ev.n_pages {
            return Err(PyValueError::new_err("page counts do not add up"));
        }
        Ok(PyEvidence { inner: ev })
    }
}

fn f64_bytes<'py>(py: Python<'py>, v: &[f64]) -> Bound<'py, PyBytes> {
    let mut out = Vec::with_capacity(v.len() * 8);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    PyBytes::new(py, &out)
}

fn bytes_f64(b: &[u8]) -> PyResult<Vec<f64>> {
    if b.len() % 8 != 0 {
        return Err(PyValueError::new_err(
            "float64 buffer of a length not a multiple of 8",
        ));
    }
    Ok(b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// (blocks, how many with the noise, probabilities, verdicts for `render`: a byte per element of the visible tree,
/// 0 none, 1 noise, 2 content)
type Cleaned<'py> = (Bound<'py, PyList>, usize, Vec<f64>, Bound<'py, PyBytes>);

/// (X as float64 bytes, rows, token counts, ancestors as int64 bytes)
type Features<'py> = (Bound<'py, PyBytes>, usize, Vec<f64>, Bound<'py, PyBytes>);

/// The page's block features (`FEATURES`), with the site's evidence where given:
/// (X as float64 bytes, rows), token counts, and each block's ancestors at
/// CONTEXT_LEVELS (int64 bytes).
#[pyfunction]
#[pyo3(signature = (page, evidence=None))]
fn features<'py>(
    py: Python<'py>,
    mut page: PyRefMut<'py, PyPage>,
    evidence: Option<PyRef<'py, PyEvidence>>,
) -> PyResult<Features<'py>> {
    let ev = evidence.as_ref().map(|e| &e.inner);
    let p = &mut page.inner;
    let (x, ntok, anc) = detached(py, || pipeline::features(p, ev))?;
    let mut a = Vec::with_capacity(anc.len() * 48);
    for row in &anc {
        for v in row {
            a.extend_from_slice(&v.to_le_bytes());
        }
    }
    Ok((f64_bytes(py, &x), ntok.len(), ntok, PyBytes::new(py, &a)))
}

/// The second stage's context features of one page (float64 bytes in and out).
#[pyfunction]
fn context<'py>(
    py: Python<'py>,
    p: &[u8],
    ntok: &[u8],
    anc: &[u8],
    x: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let p = bytes_f64(p)?;
    let ntok = bytes_f64(ntok)?;
    let x = bytes_f64(x)?;
    if anc.len() != p.len() * 48 || ntok.len() != p.len() || x.len() != p.len() * N_FEATURES {
        return Err(PyValueError::new_err(
            "context: arrays of different numbers of blocks",
        ));
    }
    let anc: Vec<[i64; 6]> = anc
        .chunks_exact(48)
        .map(|c| {
            std::array::from_fn(|j| i64::from_le_bytes(c[j * 8..j * 8 + 8].try_into().unwrap()))
        })
        .collect();
    let out = detached(py, || context_features(&p, &ntok, &anc, &x))?;
    Ok(f64_bytes(py, &out))
}

/// The verdict byte of an element whose text is one of the page's comments kept apart
/// (`comments=separate`, `pipeline::Apart`): noise in the main text, the content of
/// `render_page`'s comments.
const COMMENT: u8 = 3;
/// The verdict byte of a reply link or form inside the comments kept apart: no verdict of
/// its own in the main text, noise in the comments.
const CONTROL: u8 = 4;

/// Clean a read page: (blocks, how many blocks the page holds with the noise, probabilities,
/// verdicts for `render`: a byte per view element, 0 none, 1 noise, 2 content, 3 a comment
/// kept apart, 4 a reply control in the comments). Each block is (text, tag, score or None where no verdict is above
/// it, content, the convention that decided it or None, nid, path); `noise` false leaves
/// the noise blocks out.
#[pyfunction]
#[pyo3(signature = (page, model, cut, *, cv=None, evidence=None, noise=true, paths=true))]
#[allow(clippy::too_many_arguments)]
fn clean<'py>(
    py: Python<'py>,
    mut page: PyRefMut<'py, PyPage>,
    model: &Bound<'py, PyModel>,
    cut: &Bound<'py, PyCut>,
    cv: Option<String>,
    evidence: Option<PyRef<'py, PyEvidence>>,
    noise: bool,
    paths: bool,
) -> PyResult<Cleaned<'py>> {
    let model = &model.get().inner;
    let ev = evidence.as_ref().map(|e| &e.inner);
    let p = &mut page.inner;
    let cut = cut.get().inner;
    let pipeline::Cleaned {
        blocks,
        found,
        prob,
        kept,
        comments,
    } = detached(py, || {
        pipeline::clean(p, model, cv.as_deref(), ev, cut, noise, paths)
    })?;
    let kept: Vec<u8> = kept
        .iter()
        .enumerate()
        .map(|(e, k)| match (k, comments.get(e)) {
            (Some(false), Some(Apart::Comment)) => COMMENT,
            (None, Some(Apart::Control)) => CONTROL,
            (None, _) => 0,
            (Some(false), _) => 1,
            (Some(true), _) => 2,
        })
        .collect();
    let list = PyList::empty(py);
    for b in blocks {
        let (score, content, section) = match b.verdict {
            Some(v) => (Some(v.score), v.content, v.section.map(decided_by)),
            None => (None, true, None),
        };
        list.append(PyTuple::new(
            py,
            [
                b.text.into_pyobject(py)?.into_any(),
                b.tag.into_pyobject(py)?.into_any(),
                score.into_pyobject(py)?.into_any(),
                content.into_pyobject(py)?.to_owned().into_any(),
                section.into_pyobject(py)?.into_any(),
                b.nid.into_pyobject(py)?.into_any(),
                b.path.into_pyobject(py)?.into_any(),
            ],
        )?)?;
    }
    Ok((list, found, prob, PyBytes::new(py, &kept)))
}

/// How the core cuts a cleaner's pages (`pipeline::Cut`): the preset's threshold, the
/// model's balanced one, the relative cut and the rules' switches (a `{switch: value}`
/// dict, `rules::Settings::parse`; those not named are `auto`), checked once when the
/// cleaner makes it.
#[pyclass(module = "sitesift._native", name = "Cut", frozen)]
struct PyCut {
    inner: Cut,
}

#[pymethods]
impl PyCut {
    #[new]
    #[pyo3(signature = (threshold, balanced, relative, conventions=None))]
    fn new(
        threshold: f64,
        balanced: f64,
        relative: f64,
        conventions: Option<HashMap<String, String>>,
    ) -> PyResult<Self> {
        let given = conventions.unwrap_or_default();
        let settings = Settings::parse(given.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(PyValueError::new_err)?;
        Ok(PyCut {
            inner: Cut {
                threshold,
                balanced,
                relative,
                settings,
            },
        })
    }
    #[getter]
    fn threshold(&self) -> f64 {
        self.inner.threshold
    }
    #[getter]
    fn balanced(&self) -> f64 {
        self.inner.balanced
    }
    #[getter]
    fn relative(&self) -> f64 {
        self.inner.relative
    }
}

/// The rules set against the model, in precedence order (`rules::RULES`): each one's
/// switch, phase, values (the default first) and one line on what it does. Python's
/// settings of the default cleaner are made from them.
#[pyfunction]
fn rules() -> Vec<(&'static str, &'static str, Vec<&'static str>, &'static str)> {
    RULES
        .iter()
        .map(|r| {
            let values = r.values().iter().map(|v| v.word()).collect();
            (r.name, r.phase.name(), values, r.summary)
        })
        .collect()
}

/// Per block of a read page: whether it is content, for probabilities given from
/// elsewhere (held-out ones, in benchmarks of the cut and the conventions), on a page
/// unlike (`novel`) or like the training pages of the model that gave them.
#[pyfunction]
#[pyo3(signature = (page, prob, cut, *, novel=false))]
fn verdicts_for(
    mut page: PyRefMut<'_, PyPage>,
    prob: Vec<f64>,
    cut: &Bound<'_, PyCut>,
    novel: bool,
) -> PyResult<Vec<bool>> {
    let p = &mut page.inner;
    if prob.len() != p.pb.elem.len() {
        return Err(PyValueError::new_err(format!(
            "{} probabilities for {} blocks",
            prob.len(),
            p.pb.elem.len()
        )));
    }
    let cut = cut.get().inner;
    let v = pipeline::verdicts(p, &prob, novel, cut);
    p.confidence = pipeline::confidence_features(p, &prob, &v, novel, &cut);
    Ok(p.pb
        .elem
        .iter()
        .map(|&e| v[p.view.preorder[e] as usize].is_some_and(|x| x.content))
        .collect())
}

fn format_named(name: &str) -> PyResult<Format> {
    Format::named(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown format {name:?}: use markdown, html or text"
        ))
    })
}

/// A cleaned page's content in each of `formats` (markdown, html, text), from the
/// verdicts `clean` returned for it (`Prepared::structure`); `comments`: its comments kept
/// apart (`comments=separate`) instead, with the same structure.
#[pyfunction]
#[pyo3(signature = (page, kept, formats, links=false, images=false, comments=false))]
fn render_page(
    py: Python<'_>,
    page: PyRef<'_, PyPage>,
    kept: &[u8],
    formats: Vec<String>,
    links: bool,
    images: bool,
    comments: bool,
) -> PyResult<Vec<String>> {
    let p = &page.inner;
    if kept.len() != p.view.elems.len() {
        return Err(PyValueError::new_err(
            "render_page: verdicts of another page (a byte per element expected)",
        ));
    }
    let formats = formats
        .iter()
        .map(|f| format_named(f))
        .collect::<PyResult<Vec<_>>>()?;
    let kept: Vec<Option<bool>> = kept
        .iter()
        .map(|&b| match (b, comments) {
            (0, _) | (CONTROL, false) => None,
            (COMMENT, true) => Some(true),
            (_, true) | (1 | COMMENT, false) => Some(false),
            (_, false) => Some(true),
        })
        .collect();
    detached(py, || {
        formats
            .iter()
            .map(|&f| p.structure(&kept, f, links, images))
            .collect()
    })
}

/// `url` as an absolute http(s) address, as a browser reads it and in the URL standard's
/// form; None for any other (`structure::base_url`: the check a page's base passes).
/// The registrable domain of a lower-case host (`urls::registrable_domain`), None where it
/// has none.
#[pyfunction]
fn registrable_domain(host: &str) -> Option<String> {
    crate::urls::registrable_domain(host).map(str::to_owned)
}

#[pyfunction]
fn web_address(url: &str) -> Option<String> {
    crate::output::structure::base_url(Some(url), None).map(String::from)
}

/// The language of a main text as (ISO 639-1 code, confidence in [0, 1]), from its first
/// `LANGUAGE_PREFIX_CHARS` characters (`language::detect`, whatlang); None where it has none.
#[pyfunction]
fn detect_language(text: &str) -> Option<(&'static str, f64)> {
    crate::output::language::detect(text)
}

/// Every code `detect_language` can give, sorted (`language::codes`).
#[pyfunction]
fn language_codes() -> Vec<&'static str> {
    crate::output::language::codes()
}

/// Why the HTML5 parser should not be given `html` (`nesting::too_deep`: shapes it takes
/// quadratic time on), or None.
#[pyfunction]
fn too_deep(py: Python<'_>, html: PyBackedStr) -> PyResult<Option<String>> {
    detached(py, move || crate::read::nesting::too_deep(&html))
}

/// The nesting scan's figures for `html` (deepest, most formatting elements active, rebuilt),
/// without the pre-check that spares most pages the scan: for the test that holds
/// `nesting::counts` equal to `sitesift.nesting`'s Python scan.
#[pyfunction]
fn nesting_counts(py: Python<'_>, html: PyBackedStr) -> PyResult<(u64, u64, u64)> {
    let c = detached(py, move || crate::read::nesting::counts(&html))?;
    Ok((c.deepest, c.most_active, c.rebuilt))
}

/// `title` as a level-1 heading in `format` (`structure::title_heading`).
#[pyfunction]
fn title_heading(title: &str, format: &str) -> PyResult<String> {
    Ok(crate::output::structure::title_heading(
        title,
        format_named(format)?,
    ))
}

/// One block's verdict for `decide`: (element, score, content, the convention that decided).
type Decided = (usize, f64, bool, Option<&'static str>);

/// The verdicts on a read page's block elements: (element's preorder position below
/// `<body>`, score, content, the convention that decided it or None) per block, in block
/// order.
#[pyfunction]
#[pyo3(signature = (page, model, cut, *, cv=None, evidence=None))]
fn decide<'py>(
    py: Python<'py>,
    mut page: PyRefMut<'py, PyPage>,
    model: &Bound<'py, PyModel>,
    cut: &Bound<'py, PyCut>,
    cv: Option<String>,
    evidence: Option<PyRef<'py, PyEvidence>>,
) -> PyResult<Vec<Decided>> {
    let model = &model.get().inner;
    let ev = evidence.as_ref().map(|e| &e.inner);
    let p = &mut page.inner;
    let cut = cut.get().inner;
    detached(py, || {
        let (prob, novel) = pipeline::score(p, model, cv.as_deref(), ev, &cut);
        let v = pipeline::verdicts(p, &prob, novel, cut);
        p.pb.elem
            .iter()
            .map(|&e| {
                let x = v[p.view.preorder[e] as usize].expect("a block's element has a verdict");
                (e, x.score, x.content, x.section.map(decided_by))
            })
            .collect()
    })
}

/// Nanoseconds per stage of cleaning one page (`pipeline::stage_times`), page-level or
/// with the site's evidence, with the convention switches given as `clean` takes them.
#[pyfunction]
#[pyo3(signature = (html, model, cut, *, url=None, evidence=None))]
fn stage_times(
    py: Python<'_>,
    html: Markup,
    model: &Bound<'_, PyModel>,
    cut: &Bound<'_, PyCut>,
    url: Option<String>,
    evidence: Option<PyRef<'_, PyEvidence>>,
) -> PyResult<Vec<(&'static str, u64)>> {
    let model = &model.get().inner;
    let ev = evidence.as_ref().map(|e| &e.inner);
    let cut = cut.get().inner;
    detached(py, || {
        pipeline::stage_times(&html, url.as_deref(), model, ev, cut)
    })?
    .map_err(PyValueError::new_err)
}

/// A page's content in each of `formats` (markdown, html, text; `structure::render`), for
/// verdicts made on another reading of it: the page is parsed as the cleaner reads it
/// (without revealing script-gated content), and `kept` maps node ids to verdicts (true:
/// content, false: noise; an element without one takes its parent's, and the page is
/// content where nothing says otherwise). Links and images resolve against `url` and the
/// page's `<base href>`. With `tags` (the tags of the method's tree in preorder, its
/// virtual root first) the keys of `kept` are preorder positions in that tree, and a page
/// whose tree here differs from it is refused (ValueError): a verdict is never applied to
/// another node than the one the method judged.
#[pyfunction]
#[pyo3(signature = (html, kept, formats, links=false, images=false, tags=None, url=None))]
#[allow(clippy::too_many_arguments)]
fn render_html(
    py: Python<'_>,
    html: PyBackedStr,
    kept: HashMap<u32, bool>,
    formats: Vec<String>,
    links: bool,
    images: bool,
    tags: Option<Vec<PyBackedStr>>,
    url: Option<String>,
) -> PyResult<Vec<String>> {
    let formats = formats
        .iter()
        .map(|f| format_named(f))
        .collect::<PyResult<Vec<_>>>()?;
    detached(py, move || {
        let arena = crate::read::parse::parse(&html);
        let body = arena
            .html_child("body")
            .ok_or("no document body after parsing")?;
        let view = crate::read::dom::build_view(&arena, body);
        let positions = tags.is_some();
        if let Some(tags) = &tags {
            // tags[0] is the method's virtual root; the rest must be this tree's preorder
            let ours = view
                .preorder
                .iter()
                .map(|&e| view.elems[e as usize].tag.as_str());
            if tags.len() != view.preorder.len() + 1
                || !ours.zip(&tags[1..]).all(|(a, b)| a == &**b)
            {
                return Err("the method's tree differs from this reading of the page");
            }
        }
        let mut k = vec![None; view.elems.len()];
        for (&nid, &v) in &kept {
            // a node id, or with `positions` the node's place in preorder (0: the root)
            let index = (nid as usize).checked_sub(1).and_then(|i| {
                if positions {
                    view.preorder.get(i).map(|&e| e as usize)
                } else {
                    Some(i)
                }
            });
            if let Some(slot) = index.and_then(|i| k.get_mut(i)) {
                *slot = Some(v);
            }
        }
        // a verdict on the virtual root (nid 0) holds for <body> unless it has its own
        if let (Some(&v), Some(slot @ None)) = (kept.get(&0), k.first_mut()) {
            *slot = Some(v);
        }
        let base_href = crate::read::dom::base_href(&arena);
        Ok(formats
            .iter()
            .map(|&format| {
                let opts = crate::output::structure::Options::for_page(
                    format,
                    links,
                    images,
                    url.as_deref(),
                    base_href.as_deref(),
                );
                crate::output::structure::render(&view, &k, &opts)
            })
            .collect())
    })?
    .map_err(|e: &str| PyValueError::new_err(e))
}

/// The visible-tree rules the core shares with `sitesift.dom` (tests hold the two equal):
/// skipped tags, block tags, style-key attributes, the flattening depth and the patterns
/// of hiding styles and self-showing objects.
#[pyfunction]
fn dom_rules(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("skipped_tags", crate::read::dom::SKIPPED_TAGS.to_vec())?;
    d.set_item("block_tags", crate::read::dom::BLOCK_TAGS.to_vec())?;
    d.set_item("style_attrs", crate::read::dom::STYLE_ATTRS.to_vec())?;
    d.set_item("max_depth", crate::read::dom::MAX_DEPTH)?;
    d.set_item("hidden_style", crate::read::dom::HIDDEN_STYLE)?;
    d.set_item("object_shows_itself", crate::read::dom::OBJECT_SHOWS_ITSELF)?;
    Ok(d)
}

/// The style key of an element (`site::style_key`), for the test that holds it equal to
/// `sitesift.dom.style_key`, which the Site Style Tree reads.
#[pyfunction]
fn style_key(tag: &str, attrs: HashMap<String, String>) -> String {
    crate::crawl::site::style_key(tag, |k| attrs.get(k).cloned())
}

#[pyfunction]
fn feature_names() -> Vec<String> {
    crate::page::features::FEATURES
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[pyfunction]
fn context_names() -> Vec<String> {
    crate::page::context::CONTEXT
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPage>()?;
    m.add_class::<PyPageText>()?;
    m.add_class::<PyCut>()?;
    m.add_function(wrap_pyfunction!(decode_page, m)?)?;
    m.add_function(wrap_pyfunction!(page_text, m)?)?;
    m.add_function(wrap_pyfunction!(content_type_charset, m)?)?;
    m.add_function(wrap_pyfunction!(binary_reason, m)?)?;
    m.add_class::<PyModel>()?;
    m.add_class::<PyForest>()?;
    m.add_class::<PyPageTyper>()?;
    m.add_function(wrap_pyfunction!(page_type_names, m)?)?;
    m.add_function(wrap_pyfunction!(confidence_names, m)?)?;
    m.add_class::<PyEvidence>()?;
    m.add_class::<PyNovelty>()?;
    m.add_function(wrap_pyfunction!(page_descriptor, m)?)?;
    m.add_function(wrap_pyfunction!(novelty_columns, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(shingle_ids, m)?)?;
    m.add_function(wrap_pyfunction!(near_duplicates, m)?)?;
    m.add_function(wrap_pyfunction!(dup_row, m)?)?;
    m.add_function(wrap_pyfunction!(crawl_duplicates, m)?)?;
    m.add_function(wrap_pyfunction!(dup_sources, m)?)?;
    m.add_function(wrap_pyfunction!(dup_bands, m)?)?;
    m.add("DUP_THRESHOLD", crate::crawl::dups::THRESHOLD)?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(context, m)?)?;
    m.add_function(wrap_pyfunction!(clean, m)?)?;
    m.add_function(wrap_pyfunction!(decide, m)?)?;
    m.add_function(wrap_pyfunction!(verdicts_for, m)?)?;
    m.add_function(wrap_pyfunction!(rules, m)?)?;
    m.add_function(wrap_pyfunction!(stage_times, m)?)?;
    m.add("MIN_PAGE_MAX", pipeline::MIN_PAGE_MAX)?;
    m.add("SMALL_PAGE_BLOCKS", pipeline::SMALL_PAGE_BLOCKS)?;
    m.add_function(wrap_pyfunction!(render_html, m)?)?;
    m.add_function(wrap_pyfunction!(render_page, m)?)?;
    m.add_function(wrap_pyfunction!(title_heading, m)?)?;
    m.add_function(wrap_pyfunction!(web_address, m)?)?;
    m.add_function(wrap_pyfunction!(registrable_domain, m)?)?;
    m.add_function(wrap_pyfunction!(too_deep, m)?)?;
    m.add_function(wrap_pyfunction!(detect_language, m)?)?;
    m.add_function(wrap_pyfunction!(language_codes, m)?)?;
    m.add(
        "LANGUAGE_PREFIX_CHARS",
        crate::output::language::PREFIX_CHARS,
    )?;
    m.add_function(wrap_pyfunction!(nesting_counts, m)?)?;
    m.add_function(wrap_pyfunction!(feature_names, m)?)?;
    m.add_function(wrap_pyfunction!(dom_rules, m)?)?;
    m.add_function(wrap_pyfunction!(style_key, m)?)?;
    m.add_function(wrap_pyfunction!(context_names, m)?)?;
    Ok(())
}
