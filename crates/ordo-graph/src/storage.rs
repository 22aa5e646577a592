//! Array storage that is either an owned `Vec` or a zero-copy view into a
//! memory-mapped file, so that a graph loaded from the binary format shares
//! the page cache instead of copying.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use memmap2::Mmap;

mod sealed {
    pub trait Sealed {}
}

/// Plain-old-data element types that may be viewed in place inside a mapped
/// file: every bit pattern is a valid value and there is no padding.
pub trait Plain: sealed::Sealed + Copy + Send + Sync + 'static {}

macro_rules! plain {
    ($($t:ty),*) => { $( impl sealed::Sealed for $t {} impl Plain for $t {} )* };
}
plain!(u8, u32, u64, f64);

/// An immutable array of `T`, owned or borrowed from a shared memory map.
pub struct Buf<T: Plain> {
    repr: Repr<T>,
}

enum Repr<T> {
    Owned(Vec<T>),
    Mapped { map: Arc<Mmap>, byte_offset: usize, len: usize },
}

impl<T: Plain> Buf<T> {
    /// A view of `len` elements starting at `byte_offset` of `map`.
    ///
    /// Returns `None` when the range is out of bounds or misaligned for `T`.
    pub fn mapped(map: Arc<Mmap>, byte_offset: usize, len: usize) -> Option<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let end = byte_offset.checked_add(bytes)?;
        if end > map.len() {
            return None;
        }
        let addr = map.as_ptr() as usize + byte_offset;
        if addr % std::mem::align_of::<T>() != 0 {
            return None;
        }
        Some(Buf { repr: Repr::Mapped { map, byte_offset, len } })
    }

    /// Whether the data lives in a memory map rather than on the heap.
    pub fn is_mapped(&self) -> bool {
        matches!(self.repr, Repr::Mapped { .. })
    }

    /// The elements as an owned vector (copies when mapped).
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::Owned(v) => v,
            Repr::Mapped { .. } => self.deref().to_vec(),
        }
    }
}

impl<T: Plain> From<Vec<T>> for Buf<T> {
    fn from(v: Vec<T>) -> Self {
        Buf { repr: Repr::Owned(v) }
    }
}

impl<T: Plain> Deref for Buf<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.repr {
            Repr::Owned(v) => v,
            Repr::Mapped { map, byte_offset, len } => {
                // SAFETY: `mapped` checked that `byte_offset .. byte_offset +
                // len * size_of::<T>()` lies inside the map and that the start
                // is aligned for `T`; `T: Plain` accepts every bit pattern; the
                // map is read-only and kept alive by the `Arc` for as long as
                // the returned borrow of `self`.
                unsafe { std::slice::from_raw_parts(map.as_ptr().add(*byte_offset).cast::<T>(), *len) }
            }
        }
    }
}

impl<T: Plain> Clone for Buf<T> {
    fn clone(&self) -> Self {
        match &self.repr {
            Repr::Owned(v) => Buf { repr: Repr::Owned(v.clone()) },
            Repr::Mapped { map, byte_offset, len } => {
                Buf { repr: Repr::Mapped { map: Arc::clone(map), byte_offset: *byte_offset, len: *len } }
            }
        }
    }
}

impl<T: Plain + fmt::Debug> fmt::Debug for Buf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter().take(16)).finish()?;
        if self.len() > 16 {
            write!(f, " … ({} elements)", self.len())?;
        }
        Ok(())
    }
}

impl<T: Plain + PartialEq> PartialEq for Buf<T> {
    fn eq(&self, other: &Self) -> bool {
        self.deref() == other.deref()
    }
}
