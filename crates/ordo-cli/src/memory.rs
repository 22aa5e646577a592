//! Keeping freed memory in the process, so that repeated runs reuse it.
//!
//! Every run allocates its per-vertex arrays and its schedulers' buffers
//! afresh and frees them at its end. By default glibc hands large blocks
//! (from 128 KiB, a limit it raises only as such blocks are freed) to
//! `mmap` and gives the top of a heap back to the kernel once 128 KiB of it
//! is free, so each repetition of `ordo run --repeat N` and each run of
//! `ordo bench` touched its memory for the first time again: a page fault,
//! a zeroed page and, on a virtual machine, an exit to the hypervisor for
//! every 4 KiB, a visible share of a run of a few milliseconds
//! (`docs/design/2026-11-26-executor-costs.md`).
//! Peers that repeat a trial inside one process (GAPBS's `-n`) already get
//! this reuse from glibc's adaptive limit.
//!
//! The cost is that the process keeps its peak heap until it exits, which
//! is what a tool that runs one job and ends can afford.

/// Asks glibc to serve blocks of up to 32 MiB (the largest limit it accepts)
/// from its heaps and to return no freed heap memory to the kernel before
/// the process ends. Does nothing with other C libraries.
pub(crate) fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const MMAP_THRESHOLD: libc::c_int = 32 << 20;
        const TRIM_THRESHOLD: libc::c_int = libc::c_int::MAX;
        // SAFETY: `mallopt` only sets allocator parameters; it is called
        // before any other thread exists, and a refused value (return 0)
        // leaves glibc's default in place, which is still correct.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
        }
    }
}
