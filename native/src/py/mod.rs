//! The Python face of the core (`sitesift._native`), the crate's one door, by what each part
//! serves: `read` (decoding and reading a page), `render` (its content from verdicts),
//! `clean` (the model, the cut and the cleaning calls), `crawl` (what is learnt across pages:
//! site evidence, shingles, copies) and `train` (training's and the features' helpers). Every
//! call that works on a page lets go of the GIL while it works, so threads clean pages in
//! parallel.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

mod clean;
mod crawl;
mod read;
mod render;
mod train;

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

fn u64_bytes<'py>(py: Python<'py>, v: &[u64]) -> Bound<'py, PyBytes> {
    let raw: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    PyBytes::new(py, &raw)
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

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    read::register(m)?;
    render::register(m)?;
    clean::register(m)?;
    crawl::register(m)?;
    train::register(m)
}
