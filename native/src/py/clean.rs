//! Cleaning: the model (`Model`), how a cleaner cuts its pages (`Cut`), and the calls that
//! clean a read page (`clean`, `decide`, `verdicts_for`, `stage_times`), with the table of
//! the rules set against the model.

use foldhash::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use super::crawl::PyEvidence;
use super::detached;
use super::read::{Markup, PyPage};
use super::render::{COMMENT, CONTROL};
use super::train::{forest, ForestArrays, PyNovelty};
use crate::clean::pipeline::{self, Apart, Cut, Member, Model};
use crate::page::context::N_CONTEXT;
use crate::page::features::N_FEATURES;
use crate::read::dom::ViewId;
use crate::rules::{decided_by, Settings, RULES};

/// The forests of a model: its members (`MemberArrays`), each forest as the arrays of its
/// JSON form, and the reference of its training pages (`Novelty`) where its file has one.
#[pyclass(module = "sitesift._native", name = "Model", frozen)]
struct PyModel {
    inner: Model,
}

/// One member of a model as its file holds it, read by name from a mapping: its two
/// stages' forests, its per-fold pairs of them and `{site: fold}`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct MemberArrays {
    stage1: ForestArrays,
    stage2: ForestArrays,
    folds: Vec<(ForestArrays, ForestArrays)>,
    fold_of: HashMap<String, usize>,
}

#[pymethods]
impl PyModel {
    #[new]
    #[pyo3(signature = (members, novelty=None))]
    fn new(members: Vec<MemberArrays>, novelty: Option<PyRef<'_, PyNovelty>>) -> PyResult<Self> {
        let mut out = Vec::new();
        for MemberArrays {
            stage1,
            stage2,
            folds,
            fold_of,
        } in members
        {
            let stage1 = forest(stage1)?;
            let stage2 = forest(stage2)?;
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

/// One block of a cleaned page, in document order (`clean`'s `blocks`).
#[pyclass(module = "sitesift._native", name = "Block", frozen, get_all)]
struct PyBlock {
    text: String,
    tag: String,
    /// the block's score, or None where no verdict is above it (it is kept)
    score: Option<f64>,
    content: bool,
    /// the convention that decided it, or None
    section: Option<&'static str>,
    nid: u32,
    /// its node's address (`body/div#main/p`), empty where `clean` was not asked for paths
    path: String,
}

/// A cleaned page (`clean`): its blocks (`Block`s; with the noise unless `noise` was
/// false), how many blocks the page holds with the noise (`found`), the probabilities, and
/// the verdicts for `render_page` (`kept`): a byte per view element, 0 none, 1 noise, 2
/// content, 3 a comment kept apart, 4 a reply control in the comments.
#[pyclass(module = "sitesift._native", name = "Cleaned", frozen, get_all)]
struct PyCleaned {
    blocks: Py<PyList>,
    found: usize,
    prob: Py<PyList>,
    kept: Py<PyBytes>,
}

/// Clean a read page (`Cleaned`); `noise` false leaves the noise blocks out, `paths` false
/// their node addresses.
#[pyfunction]
#[pyo3(signature = (page, cleaner, *, cv=None, evidence=None, noise=true, paths=true))]
fn clean<'py>(
    py: Python<'py>,
    mut page: PyRefMut<'py, PyPage>,
    cleaner: &Bound<'py, PyCleaner>,
    cv: Option<String>,
    evidence: Option<PyRef<'py, PyEvidence>>,
    noise: bool,
    paths: bool,
) -> PyResult<PyCleaned> {
    let (model, cut) = cleaner.get().parts();
    let ev = evidence.as_ref().map(|e| &e.inner);
    let p = &mut page.inner;
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
    let rows = blocks.into_iter().map(|b| {
        let (score, content, section) = match b.verdict {
            Some(v) => (Some(v.score), v.content, v.section.map(decided_by)),
            None => (None, true, None),
        };
        PyBlock {
            text: b.text,
            tag: b.tag,
            score,
            content,
            section,
            nid: b.elem.map_or(0, ViewId::nid),
            path: b.path,
        }
    });
    Ok(PyCleaned {
        blocks: PyList::new(py, rows)?.unbind(),
        found,
        prob: PyList::new(py, prob)?.unbind(),
        kept: PyBytes::new(py, &kept).unbind(),
    })
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

/// What a default cleaner cleans its pages by, made once per cleaner and held by it: its
/// model and its cut (`Cut`, whose switches were checked when it was made). `clean`,
/// `decide` and `stage_times` take it in place of the two.
#[pyclass(module = "sitesift._native", name = "Cleaner", frozen)]
struct PyCleaner {
    model: Py<PyModel>,
    cut: Cut,
}

#[pymethods]
impl PyCleaner {
    #[new]
    fn new(model: Py<PyModel>, cut: &Bound<'_, PyCut>) -> Self {
        PyCleaner {
            model,
            cut: cut.get().inner,
        }
    }
    /// The cut it was made with (a copy).
    #[getter]
    fn cut(&self) -> PyCut {
        PyCut { inner: self.cut }
    }
}

impl PyCleaner {
    fn parts(&self) -> (&Model, Cut) {
        (&self.model.get().inner, self.cut)
    }
}

/// A rule set against the model (`rules()`' rows): its switch, phase, values (the default
/// first) and one line on what it does.
#[pyclass(module = "sitesift._native", name = "Rule", frozen, get_all)]
struct PyRule {
    name: &'static str,
    phase: &'static str,
    values: Vec<&'static str>,
    summary: &'static str,
}

/// The rules set against the model, in precedence order (`rules::RULES`). Python's
/// settings of the default cleaner are made from them.
#[pyfunction]
fn rules() -> Vec<PyRule> {
    RULES
        .iter()
        .map(|r| PyRule {
            name: r.name,
            phase: r.phase.name(),
            values: r.values().iter().map(|v| v.word()).collect(),
            summary: r.summary,
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
        .map(|&e| v[p.view.preorder[e]].is_some_and(|x| x.content))
        .collect())
}

/// One block's verdict (`decide`'s rows, in block order).
#[pyclass(module = "sitesift._native", name = "Decision", frozen, get_all)]
struct PyDecision {
    /// the block element's preorder position below `<body>`
    element: usize,
    score: f64,
    content: bool,
    /// the convention that decided it, or None
    section: Option<&'static str>,
}

/// The verdicts on a read page's block elements (`Decision`s), in block order.
#[pyfunction]
#[pyo3(signature = (page, cleaner, *, cv=None, evidence=None))]
fn decide<'py>(
    py: Python<'py>,
    mut page: PyRefMut<'py, PyPage>,
    cleaner: &Bound<'py, PyCleaner>,
    cv: Option<String>,
    evidence: Option<PyRef<'py, PyEvidence>>,
) -> PyResult<Vec<PyDecision>> {
    let (model, cut) = cleaner.get().parts();
    let ev = evidence.as_ref().map(|e| &e.inner);
    let p = &mut page.inner;
    detached(py, || {
        let (prob, novel) = pipeline::score(p, model, cv.as_deref(), ev, &cut);
        let v = pipeline::verdicts(p, &prob, novel, cut);
        p.pb.elem
            .iter()
            .map(|&e| {
                let x = v[p.view.preorder[e]].expect("a block's element has a verdict");
                PyDecision {
                    element: e.index(),
                    score: x.score,
                    content: x.content,
                    section: x.section.map(decided_by),
                }
            })
            .collect()
    })
}

/// Nanoseconds per stage of cleaning one page (`pipeline::stage_times`), page-level or
/// with the site's evidence, with the convention switches given as `clean` takes them.
#[pyfunction]
#[pyo3(signature = (html, cleaner, *, url=None, evidence=None))]
fn stage_times(
    py: Python<'_>,
    html: Markup,
    cleaner: &Bound<'_, PyCleaner>,
    url: Option<String>,
    evidence: Option<PyRef<'_, PyEvidence>>,
) -> PyResult<Vec<(&'static str, u64)>> {
    let (model, cut) = cleaner.get().parts();
    let ev = evidence.as_ref().map(|e| &e.inner);
    detached(py, || {
        pipeline::stage_times(&html, url.as_deref(), model, ev, cut)
    })?
    .map_err(PyValueError::new_err)
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModel>()?;
    m.add_class::<PyCut>()?;
    m.add_class::<PyCleaner>()?;
    m.add_class::<PyRule>()?;
    m.add_class::<PyCleaned>()?;
    m.add_class::<PyBlock>()?;
    m.add_class::<PyDecision>()?;
    m.add_function(wrap_pyfunction!(clean, m)?)?;
    m.add_function(wrap_pyfunction!(decide, m)?)?;
    m.add_function(wrap_pyfunction!(verdicts_for, m)?)?;
    m.add_function(wrap_pyfunction!(rules, m)?)?;
    m.add_function(wrap_pyfunction!(stage_times, m)?)?;
    m.add("MIN_PAGE_MAX", pipeline::MIN_PAGE_MAX)?;
    m.add("SMALL_PAGE_BLOCKS", pipeline::SMALL_PAGE_BLOCKS)?;
    Ok(())
}
