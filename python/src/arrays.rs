//! numpy arrays into ordo's CSR arrays and back.
//!
//! Into ordo: an array whose dtype and layout already are those of the CSR
//! array (`uint64`/`int64` offsets, `uint32`/`int32` targets, `uint32`
//! weights, C-contiguous, aligned) is shared without a copy **when it is
//! frozen**: nobody can write it any more (see [`is_frozen`]). A run reads
//! the graph with the GIL released, so sharing memory that Python code may
//! still write would be a data race; a writable array is therefore copied
//! (one `memcpy`), and an array of another dtype is converted (one pass that
//! also checks every value). Frozen arrays are those of
//! [`Graph.to_scipy`](crate::graph::PyGraph) and of the graph's array
//! properties (views of the graph itself), of `np.load(..., mmap_mode="r")`,
//! and of `np.frombuffer(bytes)`.
//!
//! Out of ordo: the graph's arrays are read-only numpy views whose base is
//! the graph object (no copy, and numpy refuses to make them writable); the
//! results of runs are fresh arrays handed over without a copy.

use std::fmt::Display;
use std::sync::Arc;

use numpy::{Element, PyArray1, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use ordo_graph::storage::Plain;
use ordo_graph::Buf;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::value_error;

/// An element type numpy arrays may hold, read as an exact integer.
trait Value: Element + Copy + Display {
    /// The value as an integer, or `None` when it is not one (a fraction,
    /// NaN, an infinity).
    fn integer(self) -> Option<i128>;
}

macro_rules! integer_value {
    ($($t:ty),*) => { $( impl Value for $t { #[inline] fn integer(self) -> Option<i128> { Some(self as i128) } } )* };
}
integer_value!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_value {
    ($($t:ty),*) => { $( impl Value for $t {
        #[inline]
        fn integer(self) -> Option<i128> {
            // Beyond 2^100 no value fits any target anyway.
            (self.is_finite() && self.fract() == 0.0 && self.abs() < 1e30).then(|| self as i128)
        }
    } )* };
}
float_value!(f32, f64);

impl Value for bool {
    #[inline]
    fn integer(self) -> Option<i128> {
        Some(i128::from(self))
    }
}

/// Calls `$body` with `$s` bound to the elements of the 1-D C-contiguous
/// array `$arr` as a slice of its own element type (one expansion per
/// dtype), or returns a `ValueError` for a dtype ordo does not read.
macro_rules! with_elements {
    ($arr:expr, $what:expr, |$s:ident| $body:expr) => {{
        let arr: &Bound<'_, PyUntypedArray> = $arr;
        with_elements!(@try arr, $s, $body, bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);
        Err(PyValueError::new_err(format!(
            "{}: unsupported dtype {} (expected integers or floats)",
            $what,
            arr.dtype()
        )))
    }};
    (@try $arr:ident, $s:ident, $body:expr, $($t:ty),*) => {
        $(
            if let Ok(typed) = $arr.cast::<PyArray1<$t>>() {
                let readonly = typed.readonly();
                let $s: &[$t] = readonly.as_slice().map_err(value_error)?;
                return $body;
            }
        )*
    };
}

/// `obj` as a 1-D C-contiguous numpy array (no copy when it already is one).
fn one_dimensional<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyUntypedArray>> {
    let np = obj.py().import("numpy")?;
    let arr = np.call_method1("asarray", (obj,))?;
    let arr = arr.cast_into::<PyUntypedArray>().map_err(|_| value_error(format!("{what}: not an array")))?;
    if arr.ndim() != 1 {
        return Err(value_error(format!("{what}: expected a 1-D array, got shape {:?}", arr.shape())));
    }
    if arr.is_c_contiguous() {
        return Ok(arr);
    }
    np.call_method1("ascontiguousarray", (arr,))?.cast_into::<PyUntypedArray>().map_err(Into::into)
}

/// Converts `s` to `D`, checking that every value is an integer in
/// `0..limit`; the error names the first offending entry.
fn convert<S: Value, D: TryFrom<i128>>(s: &[S], what: &str, limit: u64) -> PyResult<Vec<D>> {
    s.iter()
        .enumerate()
        .map(|(i, &x)| {
            x.integer()
                .filter(|&v| v >= 0 && v < i128::from(limit))
                .and_then(|v| D::try_from(v).ok())
                .ok_or_else(|| value_error(format!("{what}[{i}] = {x}: expected an integer in 0..{limit}")))
        })
        .collect()
}

/// Whether no one can write the memory of `arr` any more, so that it can be
/// shared with runs that read it without the GIL.
///
/// Every array on the chain from `arr` to the memory's owner must be
/// read-only without owning its data (an owning array can be made writable
/// again), and the owner at the end must be a known immutable object: a
/// `bytes`, a read-only `mmap` (a file mapping, trusted as ordo trusts its
/// own mapped `.ordo` files), or an ordo `Graph`. Anything else (a writable
/// buffer, a read-only view of a writable one, an unknown object) is not
/// frozen.
pub(crate) fn is_frozen(arr: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = arr.py();
    let mut cur = arr.clone();
    while cur.cast::<PyUntypedArray>().is_ok() {
        let flags = cur.getattr("flags")?;
        if flags.getattr("writeable")?.is_truthy()? || flags.getattr("owndata")?.is_truthy()? {
            return Ok(false);
        }
        let base = cur.getattr("base")?;
        if base.is_none() {
            return Ok(false);
        }
        cur = base;
    }
    if cur.is_exact_instance_of::<PyBytes>() || cur.is_instance_of::<crate::graph::PyGraph>() {
        return Ok(true);
    }
    let mmap_type = py.import("mmap")?.getattr("mmap")?;
    if cur.is_instance(&mmap_type)? {
        let view = py.import("builtins")?.getattr("memoryview")?.call1((&cur,))?;
        let readonly = view.getattr("readonly")?.is_truthy()?;
        view.call_method0("release")?;
        return Ok(readonly);
    }
    Ok(false)
}

/// Shares the frozen, aligned, C-contiguous `arr` as a [`Buf`] (no copy);
/// `None` when it is not all of these.
fn share<T: Element + Plain>(arr: &Bound<'_, PyArray1<T>>) -> PyResult<Option<Buf<T>>> {
    if !arr.is_c_contiguous() || !arr.is_aligned() || !is_frozen(arr.as_any())? {
        return Ok(None);
    }
    let len = arr.len();
    if len == 0 {
        return Ok(Some(Buf::from(Vec::new())));
    }
    let ptr = arr.data().cast_const();
    let owner: Arc<dyn Send + Sync> = Arc::new(arr.clone().unbind());
    // SAFETY: `ptr` is the non-null data pointer of a non-empty array of
    // `len` aligned, initialised `T` (checked above: aligned, C-contiguous);
    // the array is frozen, so nobody writes that memory, and `owner` holds a
    // reference to the array, which keeps the memory alive.
    Ok(Some(unsafe { Buf::foreign(owner, ptr, len) }))
}

/// The elements of `arr` (dtype `T`) as a [`Buf`]: shared when frozen,
/// copied otherwise.
fn share_or_copy<T: Element + Plain>(arr: &Bound<'_, PyArray1<T>>) -> PyResult<Buf<T>> {
    if let Some(buf) = share(arr)? {
        return Ok(buf);
    }
    Ok(Buf::from(arr.readonly().as_slice().map_err(value_error)?.to_vec()))
}

/// Reinterprets a signed array with no negative value as its unsigned twin
/// (`int64` → `uint64`, `int32` → `uint32`) without copying, so that it can
/// be shared; `None` when a value is negative.
fn unsigned_view<'py, S, U>(
    arr: &Bound<'py, PyArray1<S>>,
    unsigned: &str,
) -> PyResult<Option<Bound<'py, PyArray1<U>>>>
where
    S: Element + Copy + PartialOrd + Default,
    U: Element,
{
    let readonly = arr.readonly();
    let s = readonly.as_slice().map_err(value_error)?;
    if s.iter().any(|&x| x < S::default()) {
        return Ok(None);
    }
    let view = arr.call_method1("view", (PyString::new(arr.py(), unsigned),))?;
    Ok(Some(view.cast_into::<PyArray1<U>>()?))
}

/// A CSR offset array (`n + 1` non-decreasing entries from 0; checked when
/// the graph is assembled) from any integer array.
pub(crate) fn offsets(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Buf<u64>> {
    let arr = one_dimensional(obj, what)?;
    if let Ok(a) = arr.cast::<PyArray1<u64>>() {
        return share_or_copy(a);
    }
    if let Ok(a) = arr.cast::<PyArray1<i64>>() {
        if let Some(u) = unsigned_view::<i64, u64>(a, "uint64")? {
            return share_or_copy(&u);
        }
    }
    with_elements!(&arr, what, |s| convert(s, what, u64::MAX).map(Buf::from))
}

/// A vertex-id array (every entry in `0..n`) from any integer array.
pub(crate) fn vertex_ids(obj: &Bound<'_, PyAny>, what: &str, n: u64) -> PyResult<Buf<u32>> {
    let arr = one_dimensional(obj, what)?;
    let shared = if let Ok(a) = arr.cast::<PyArray1<u32>>() {
        Some(share_or_copy(a)?)
    } else if let Ok(a) = arr.cast::<PyArray1<i32>>() {
        match unsigned_view::<i32, u32>(a, "uint32")? {
            Some(u) => Some(share_or_copy(&u)?),
            None => None,
        }
    } else {
        None
    };
    if let Some(buf) = shared {
        if let Some(i) = buf.iter().position(|&v| u64::from(v) >= n) {
            return Err(value_error(format!("{what}[{i}] = {}: expected an integer in 0..{n}", buf[i])));
        }
        return Ok(buf);
    }
    with_elements!(&arr, what, |s| convert(s, what, n).map(Buf::from))
}

/// Edge weights (integers in `0..2^32`, ordo's `u32` weights) from any
/// numeric array; floats must hold whole numbers. `None` for a boolean
/// array, which marks edges without weighting them (a pattern matrix).
pub(crate) fn weights(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Buf<u32>>> {
    let arr = one_dimensional(obj, what)?;
    if arr.cast::<PyArray1<bool>>().is_ok() {
        return Ok(None);
    }
    if let Ok(a) = arr.cast::<PyArray1<u32>>() {
        return share_or_copy(a).map(Some);
    }
    convert_weights(&arr, what).map(|v| Some(Buf::from(v))).map_err(|e| weight_hint(obj.py(), e))
}

/// Weights of any numeric dtype, checked and converted.
fn convert_weights(arr: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<Vec<u32>> {
    let limit = u64::from(u32::MAX) + 1;
    with_elements!(arr, what, |s| convert(s, what, limit))
}

/// Adds to a weight conversion error that ordo's weights are integers.
fn weight_hint(py: Python<'_>, e: PyErr) -> PyErr {
    value_error(format!(
        "{}; ordo's edge weights are unsigned 32-bit integers (scale and round real weights)",
        e.value(py)
    ))
}

/// Vertex coordinates from an `(n, 2)` array-like of numbers (copied).
pub(crate) fn coordinates(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let np = obj.py().import("numpy")?;
    let arr = np.call_method1("asarray", (obj,))?.call_method1("astype", ("float64",))?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    if shape != [n, 2] {
        return Err(value_error(format!("coords: expected shape ({n}, 2), got {shape:?}")));
    }
    let column = |c: usize| -> PyResult<Vec<f64>> {
        let col = arr.get_item((pyo3::types::PySlice::full(obj.py()), c))?;
        let col = np.call_method1("ascontiguousarray", (col,))?.cast_into::<PyArray1<f64>>()?;
        let v = col.readonly().as_slice().map_err(value_error)?.to_vec();
        Ok(v)
    };
    let (x, y) = (column(0)?, column(1)?);
    if let Some(i) = x.iter().chain(&y).position(|c| !c.is_finite()) {
        return Err(value_error(format!("coords: entry {} is not finite", i % n.max(1))));
    }
    Ok((x, y))
}

/// A read-only numpy view of `data`, memory owned by `owner` (a graph
/// object, which never changes its arrays). No copy.
pub(crate) fn view<'py, T: Element>(
    data: &[T],
    owner: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<T>>> {
    let view = numpy::ndarray::ArrayView1::from(data);
    // SAFETY: `data` lives inside `owner` (a frozen graph object whose arrays
    // are never modified or moved while it exists), and the new array holds a
    // reference to `owner` as its base.
    let arr = unsafe { PyArray1::borrow_from_array(&view, owner) };
    arr.call_method1("setflags", (false,))?;
    Ok(arr)
}
