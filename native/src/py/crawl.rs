//! What is learnt across pages: a site's evidence (`Evidence`), word shingles and the
//! sample's repeated pages, and the copies across a crawl (`dups.rs`'s rows).

use foldhash::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict, PyList};

use super::read::PyPage;
use super::{detached, u64_bytes};
use crate::crawl::shingles;
use crate::crawl::site::{key_hex, parse_key, Evidence};

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

/// A copy found by `crawl_duplicates`: the copy's and its original's indices of rows in the
/// blob, their similarity, and whether the copy is exact.
#[pyclass(module = "sitesift._native", name = "DupFound", frozen, get_all)]
struct PyDupFound {
    copy: usize,
    original: usize,
    similarity: f64,
    exact: bool,
}

/// How many rows `blob` holds (rows one after another), and the copies among them
/// (`DupFound`s; `dups::duplicates`).
#[pyfunction]
fn crawl_duplicates(
    py: Python<'_>,
    blob: PyBackedBytes,
    threshold: f64,
) -> PyResult<(usize, Vec<PyDupFound>)> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(PyValueError::new_err(format!(
            "threshold must be from 0 to 1, not {threshold}"
        )));
    }
    detached(py, || {
        let rows = crate::crawl::dups::decode_rows(&blob)?;
        let found = crate::crawl::dups::duplicates(&rows, threshold)
            .into_iter()
            .map(|d| PyDupFound {
                copy: d.copy,
                original: d.original,
                similarity: d.similarity,
                exact: d.exact,
            })
            .collect();
        Ok((rows.len(), found))
    })?
    .map_err(|e: String| PyValueError::new_err(e))
}

/// Where a row of a crawl's blob came from (`dup_sources`).
#[pyclass(module = "sitesift._native", name = "DupSource", frozen, get_all)]
struct PyDupSource {
    input_index: u32,
    position: u64,
    input: String,
    url: Option<String>,
    /// the text's digest, or None for a record without text
    digest: Option<Py<PyBytes>>,
}

/// Where rows of `blob` came from (`DupSource`s), of the rows at `indices` (in that
/// order), or of every row.
#[pyfunction]
#[pyo3(signature = (blob, indices=None))]
fn dup_sources<'py>(
    py: Python<'py>,
    blob: &[u8],
    indices: Option<Vec<usize>>,
) -> PyResult<Vec<PyDupSource>> {
    let rows = crate::crawl::dups::decode_rows(blob).map_err(PyValueError::new_err)?;
    let wanted = indices.unwrap_or_else(|| (0..rows.len()).collect());
    wanted
        .iter()
        .map(|&i| {
            let r = rows
                .get(i)
                .ok_or_else(|| PyValueError::new_err(format!("no row {i} of {}", rows.len())))?;
            Ok(PyDupSource {
                input_index: r.input_index,
                position: r.position,
                input: r.input.to_string(),
                url: r.url.map(str::to_string),
                digest: r.has_text.then(|| PyBytes::new(py, r.digest).unbind()),
            })
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

/// Page counts of block texts and layout positions over a site's pages.
#[pyclass(module = "sitesift._native", name = "Evidence")]
#[derive(Default)]
pub(super) struct PyEvidence {
    pub(super) inner: Evidence,
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

/// The registrable domain of a lower-case host (`urls::registrable_domain`), None where it
/// has none.
#[pyfunction]
fn registrable_domain(host: &str) -> Option<String> {
    crate::urls::registrable_domain(host).map(str::to_owned)
}

/// The style key of an element (`site::style_key`), for the test that holds it equal to
/// `sitesift.dom.style_key`, which the Site Style Tree reads.
#[pyfunction]
fn style_key(tag: &str, attrs: HashMap<String, String>) -> String {
    crate::crawl::site::style_key(tag, |k| attrs.get(k).cloned())
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEvidence>()?;
    m.add_class::<PyDupFound>()?;
    m.add_class::<PyDupSource>()?;
    m.add_function(wrap_pyfunction!(shingle_ids, m)?)?;
    m.add_function(wrap_pyfunction!(near_duplicates, m)?)?;
    m.add_function(wrap_pyfunction!(dup_row, m)?)?;
    m.add_function(wrap_pyfunction!(crawl_duplicates, m)?)?;
    m.add_function(wrap_pyfunction!(dup_sources, m)?)?;
    m.add_function(wrap_pyfunction!(dup_bands, m)?)?;
    m.add("DUP_THRESHOLD", crate::crawl::dups::THRESHOLD)?;
    m.add_function(wrap_pyfunction!(registrable_domain, m)?)?;
    m.add_function(wrap_pyfunction!(style_key, m)?)?;
    Ok(())
}
