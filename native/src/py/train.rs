//! Training's and the features' helpers: forests (`Forest`, `PageTyper`), the novelty
//! reference (`Novelty`), a read page's block features and the second stage's context, and
//! the names of their columns.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::crawl::PyEvidence;
use super::read::PyPage;
use super::{bytes_f64, detached, f64_bytes};
use crate::clean::pipeline;
use crate::model::forest::Forest;
use crate::model::novelty::{descriptor, Parts, Reference};
use crate::model::page_type;
use crate::page::blocks::ElemId;
use crate::page::context::context_features;
use crate::page::features::N_FEATURES;

/// A forest as the arrays of its JSON form, read by name from a mapping
/// (`sitesift.extractor.forest.raw_forest`); `forest` checks them as it builds it.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(super) struct ForestArrays {
    n_features: usize,
    baseline: f64,
    roots: Vec<i64>,
    feature: Vec<i64>,
    threshold: Vec<f64>,
    missing_left: Vec<i64>,
    left: Vec<i64>,
    right: Vec<i64>,
    value: Vec<f64>,
}

pub(super) fn forest(a: ForestArrays) -> PyResult<Forest> {
    Forest::new(
        a.n_features,
        a.baseline,
        a.roots,
        a.feature,
        a.threshold,
        a.missing_left.into_iter().map(|m| m != 0).collect(),
        a.left,
        a.right,
        a.value,
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
    fn new(arrays: ForestArrays) -> PyResult<Self> {
        Ok(PyForest {
            inner: forest(arrays)?,
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
    fn new(forests: Vec<ForestArrays>) -> PyResult<Self> {
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

/// The descriptors of a model's training pages and the distance beyond which a page is
/// unlike them (`novelty::Reference`): (means, scales, standardized points as little-endian
/// float32 bytes, each point's site index as little-endian uint32 bytes, the sites, k, cut).
#[pyclass(module = "sitesift._native", name = "Novelty", frozen)]
pub(super) struct PyNovelty {
    pub(super) inner: Reference,
}

#[pymethods]
impl PyNovelty {
    #[new]
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
        Reference::new(Parts {
            mean,
            scale,
            points,
            site,
            sites,
            k,
            cut,
        })
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
        self.inner.cut()
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

/// A read page's block features (`features`): `x`, rows x `FEATURES` float64 bytes; the
/// `rows` (blocks); each block's token count (`ntok`); and its ancestors at
/// CONTEXT_LEVELS (`anc`, int64 bytes).
#[pyclass(module = "sitesift._native", name = "Features", frozen, get_all)]
struct PyFeatures {
    x: Py<PyBytes>,
    rows: usize,
    ntok: Vec<f64>,
    anc: Py<PyBytes>,
}

/// The page's block features (`Features`), with the site's evidence where given.
#[pyfunction]
#[pyo3(signature = (page, evidence=None))]
fn features<'py>(
    py: Python<'py>,
    mut page: PyRefMut<'py, PyPage>,
    evidence: Option<PyRef<'py, PyEvidence>>,
) -> PyResult<PyFeatures> {
    let ev = evidence.as_ref().map(|e| &e.inner);
    let p = &mut page.inner;
    let (x, ntok, anc) = detached(py, || pipeline::features(p, ev))?;
    // (int64s for Python, -1 where a block has no ancestor at that level)
    let mut a = Vec::with_capacity(anc.len() * 48);
    for row in &anc {
        for v in row {
            let id = v.map_or(-1, |e| e.index() as i64);
            a.extend_from_slice(&id.to_le_bytes());
        }
    }
    Ok(PyFeatures {
        x: f64_bytes(py, &x).unbind(),
        rows: ntok.len(),
        ntok,
        anc: PyBytes::new(py, &a).unbind(),
    })
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
    // (-1, or any id below 0: no ancestor at that level)
    let anc: Vec<[Option<ElemId>; 6]> = anc
        .chunks_exact(48)
        .map(|c| {
            std::array::from_fn(|j| {
                let id = i64::from_le_bytes(c[j * 8..j * 8 + 8].try_into().unwrap());
                usize::try_from(id).ok().map(ElemId::new)
            })
        })
        .collect();
    let out = detached(py, || context_features(&p, &ntok, &anc, &x))?;
    Ok(f64_bytes(py, &out))
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

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyForest>()?;
    m.add_class::<PyPageTyper>()?;
    m.add_class::<PyNovelty>()?;
    m.add_class::<PyFeatures>()?;
    m.add_function(wrap_pyfunction!(page_type_names, m)?)?;
    m.add_function(wrap_pyfunction!(confidence_names, m)?)?;
    m.add_function(wrap_pyfunction!(page_descriptor, m)?)?;
    m.add_function(wrap_pyfunction!(novelty_columns, m)?)?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(context, m)?)?;
    m.add_function(wrap_pyfunction!(feature_names, m)?)?;
    m.add_function(wrap_pyfunction!(context_names, m)?)?;
    Ok(())
}
