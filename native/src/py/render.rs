//! A page's content from verdicts: the core's own (`render_page`, from `clean`'s bytes) or
//! another method's on its node tree (`render_html`), in markdown, HTML or text.

use foldhash::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::detached;
use super::read::PyPage;
use crate::clean::pipeline;
use crate::output::structure::Format;
use crate::read::dom::View;

/// The verdict byte of an element whose text is one of the page's comments kept apart
/// (`comments=separate`, `pipeline::Apart`): noise in the main text, the content of
/// `render_page`'s comments.
pub(super) const COMMENT: u8 = 3;

/// The verdict byte of a reply link or form inside the comments kept apart: no verdict of
/// its own in the main text, noise in the comments.
pub(super) const CONTROL: u8 = 4;

fn format_named(name: &str) -> PyResult<Format> {
    Format::named(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown format {name:?}: use markdown, html or text"
        ))
    })
}

/// How a page's content is written, made once for the renderings an output asks for: the
/// formats (markdown, html, text; checked when it is made), and whether links and images
/// are kept.
#[pyclass(module = "sitesift._native", name = "Rendering", frozen)]
struct PyRendering {
    formats: Vec<Format>,
    links: bool,
    images: bool,
}

#[pymethods]
impl PyRendering {
    #[new]
    #[pyo3(signature = (formats, links=false, images=false))]
    fn new(formats: Vec<String>, links: bool, images: bool) -> PyResult<Self> {
        let formats = formats
            .iter()
            .map(|f| format_named(f))
            .collect::<PyResult<_>>()?;
        Ok(PyRendering {
            formats,
            links,
            images,
        })
    }
}

impl PyRendering {
    /// A visible tree's content under `kept` in each format, links and images resolved
    /// against `base` (`pipeline::structure`).
    fn write(
        &self,
        view: &View,
        base: (Option<&str>, Option<&str>),
        kept: &[Option<bool>],
    ) -> Vec<String> {
        self.formats
            .iter()
            .map(|&f| pipeline::structure(view, base, kept, f, self.links, self.images))
            .collect()
    }
}

/// A cleaned page's content as `rendering` writes it, from the verdicts `clean` returned
/// for it; `comments`: its comments kept apart (`comments=separate`) instead, with the same
/// structure.
#[pyfunction]
#[pyo3(signature = (page, kept, rendering, comments=false))]
fn render_page(
    py: Python<'_>,
    page: PyRef<'_, PyPage>,
    kept: &[u8],
    rendering: &Bound<'_, PyRendering>,
    comments: bool,
) -> PyResult<Vec<String>> {
    let p = &page.inner;
    if kept.len() != p.view.elems.len() {
        return Err(PyValueError::new_err(
            "render_page: verdicts of another page (a byte per element expected)",
        ));
    }
    let kept: Vec<Option<bool>> = kept
        .iter()
        .map(|&b| match (b, comments) {
            (0, _) | (CONTROL, false) => None,
            (COMMENT, true) => Some(true),
            (_, true) | (1 | COMMENT, false) => Some(false),
            (_, false) => Some(true),
        })
        .collect();
    let r = rendering.get();
    detached(py, || r.write(&p.view, p.base(), &kept))
}

/// `url` as an absolute http(s) address, as a browser reads it and in the URL standard's
/// form; None for any other (`structure::base_url`: the check a page's base passes).
#[pyfunction]
fn web_address(url: &str) -> Option<String> {
    crate::output::structure::base_url(Some(url), None).map(String::from)
}

/// `title` as a level-1 heading in `format` (`structure::title_heading`).
#[pyfunction]
fn title_heading(title: &str, format: &str) -> PyResult<String> {
    Ok(crate::output::structure::title_heading(
        title,
        format_named(format)?,
    ))
}

/// A page's content as `rendering` writes it, for verdicts made on another reading of it:
/// the page is read as the cleaner reads it (`pipeline::read_tree`, the first steps of
/// `pipeline::prepare`: without revealing script-gated content), and `kept` maps node ids to verdicts (true: content, false:
/// noise; an element without one takes its parent's, and the page is content where nothing
/// says otherwise). Links and images resolve against `url` and the page's `<base href>`.
/// With `tags` (the tags of the method's tree in preorder, its virtual root first) the keys
/// of `kept` are preorder positions in that tree, and a page whose tree here differs from
/// it is refused (ValueError): a verdict is never applied to another node than the one the
/// method judged.
#[pyfunction]
#[pyo3(signature = (html, kept, rendering, tags=None, url=None))]
fn render_html(
    py: Python<'_>,
    html: PyBackedStr,
    kept: HashMap<u32, bool>,
    rendering: &Bound<'_, PyRendering>,
    tags: Option<Vec<PyBackedStr>>,
    url: Option<String>,
) -> PyResult<Vec<String>> {
    let r = rendering.get();
    detached(py, move || {
        let (arena, view) = pipeline::read_tree(&html, &mut |_| {})?;
        let positions = tags.is_some();
        if let Some(tags) = &tags {
            // tags[0] is the method's virtual root; the rest must be this tree's preorder
            let ours = view.preorder.iter().map(|&e| view[e].tag.as_str());
            if tags.len() != view.preorder.len() + 1
                || !ours.zip(&tags[1..]).all(|(a, b)| a == &**b)
            {
                return Err("the method's tree differs from this reading of the page".to_string());
            }
        }
        let mut k = vec![None; view.elems.len()];
        for (&nid, &v) in &kept {
            // a node id, or with `positions` the node's place in preorder (0: the root)
            let index = (nid as usize).checked_sub(1).and_then(|i| {
                if positions {
                    view.preorder.get(i).map(|&e| e.index())
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
        Ok(r.write(&view, (url.as_deref(), base_href.as_deref()), &k))
    })?
    .map_err(PyValueError::new_err)
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRendering>()?;
    m.add_function(wrap_pyfunction!(render_page, m)?)?;
    m.add_function(wrap_pyfunction!(render_html, m)?)?;
    m.add_function(wrap_pyfunction!(title_heading, m)?)?;
    m.add_function(wrap_pyfunction!(web_address, m)?)?;
    Ok(())
}
