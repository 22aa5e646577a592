//! Array storage that is either an owned `Vec`, a zero-copy view into a
//! memory-mapped file (so that a graph loaded from the binary format shares
//! the page cache instead of copying), or a zero-copy view of immutable
//! memory owned by someone else (e.g. a frozen array of a host language).

use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;
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

/// An immutable array of `T`: owned, borrowed from a shared memory map, or
/// borrowed from foreign memory kept alive by an owner object.
pub struct Buf<T: Plain> {
    repr: Repr<T>,
}

enum Repr<T> {
    Owned(Vec<T>),
    Mapped { map: Arc<Mmap>, byte_offset: usize, len: usize },
    Foreign { _owner: Arc<dyn Send + Sync>, ptr: NonNull<T>, len: usize },
}

// SAFETY: `Owned` and `Mapped` are `Send + Sync` (`T: Plain` is). `Foreign`
// holds a pointer to memory that, by the contract of `Buf::foreign`, nobody
// writes and that stays valid while its `Send + Sync` owner lives; reading
// immutable `T: Sync` data from any thread, and moving the owner to another
// thread, are then sound.
unsafe impl<T: Plain> Send for Buf<T> {}
// SAFETY: as for `Send`: `Buf` only hands out shared `&[T]` of memory that no
// one mutates.
unsafe impl<T: Plain> Sync for Buf<T> {}

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

    /// A view of `len` elements at `ptr`, in memory owned by `owner` (for
    /// instance an array of a host language that the caller made sure is
    /// immutable); the buffer keeps `owner` alive. Nothing is copied.
    ///
    /// # Safety
    /// `ptr` must be non-null, aligned for `T` and point to `len`
    /// initialised elements that stay valid, and that nobody writes, for as
    /// long as `owner` is alive (the buffer and its clones hold `owner`).
    pub unsafe fn foreign(owner: Arc<dyn Send + Sync>, ptr: *const T, len: usize) -> Self {
        let ptr = NonNull::new(ptr.cast_mut()).expect("Buf::foreign: null pointer");
        Buf { repr: Repr::Foreign { _owner: owner, ptr, len } }
    }

    /// Whether the data lives in a memory map rather than on the heap.
    pub fn is_mapped(&self) -> bool {
        matches!(self.repr, Repr::Mapped { .. })
    }

    /// Whether the data is owned by this buffer (a `Vec`), rather than
    /// borrowed from a memory map or foreign memory.
    pub fn is_owned(&self) -> bool {
        matches!(self.repr, Repr::Owned(_))
    }

    /// The elements as an owned vector (copies when borrowed).
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::Owned(v) => v,
            Repr::Mapped { .. } | Repr::Foreign { .. } => self.deref().to_vec(),
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
            // SAFETY: the contract of `Buf::foreign`: `len` initialised,
            // aligned, unwritten elements, valid while `_owner` (held by
            // `self`, so for the returned borrow) lives.
            Repr::Foreign { ptr, len, .. } => unsafe { std::slice::from_raw_parts(ptr.as_ptr(), *len) },
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
            Repr::Foreign { _owner, ptr, len } => {
                Buf { repr: Repr::Foreign { _owner: Arc::clone(_owner), ptr: *ptr, len: *len } }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_views_share_the_owner_memory_and_keep_it_alive() {
        let owner: Arc<Vec<u32>> = Arc::new(vec![3, 1, 4, 1, 5]);
        let ptr = owner.as_ptr();
        // SAFETY: the vector is never written and lives while `owner` does.
        let buf = unsafe { Buf::foreign(owner.clone(), ptr, 5) };
        assert_eq!(&*buf, &[3, 1, 4, 1, 5]);
        assert_eq!(buf.as_ptr(), ptr, "no copy");
        assert!(!buf.is_owned() && !buf.is_mapped());
        let clone = buf.clone();
        assert_eq!(clone.as_ptr(), ptr, "clones share too");
        assert_eq!(Arc::strong_count(&owner), 3, "the buffer and its clone hold the owner");
        drop(owner);
        assert_eq!(&*clone, &[3, 1, 4, 1, 5], "still alive through the buffers");
        let v = buf.into_vec();
        assert_eq!(v, vec![3, 1, 4, 1, 5]);
        assert_ne!(v.as_ptr(), ptr, "into_vec copies foreign memory");
        assert!(Buf::from(vec![1u64]).is_owned());
    }
}
