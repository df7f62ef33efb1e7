//! Reading a page: its bytes decoded and checked (`PageText`), read by the core (`Page`:
//! parsed, its visible tree, its blocks), and the reading's own checks and tables (the
//! nesting guard, the visible-tree rules, the text's language).

use std::ops::Deref;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyDict};

use super::{detached, u64_bytes};
use crate::clean::pipeline::{self, Prepared};
use crate::crawl::shingles;
use crate::crawl::site::key_hex;

/// A page read by the core: its visible tree and blocks, kept so that a site's fit and the
/// cleaning of its pages read each page once.
#[pyclass(module = "sitesift._native", name = "Page")]
pub(super) struct PyPage {
    pub(super) inner: Prepared,
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
pub(super) enum Markup {
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

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPage>()?;
    m.add_class::<PyPageText>()?;
    m.add_function(wrap_pyfunction!(decode_page, m)?)?;
    m.add_function(wrap_pyfunction!(page_text, m)?)?;
    m.add_function(wrap_pyfunction!(content_type_charset, m)?)?;
    m.add_function(wrap_pyfunction!(binary_reason, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(too_deep, m)?)?;
    m.add_function(wrap_pyfunction!(nesting_counts, m)?)?;
    m.add_function(wrap_pyfunction!(dom_rules, m)?)?;
    m.add_function(wrap_pyfunction!(detect_language, m)?)?;
    m.add_function(wrap_pyfunction!(language_codes, m)?)?;
    m.add(
        "LANGUAGE_PREFIX_CHARS",
        crate::output::language::PREFIX_CHARS,
    )
}
