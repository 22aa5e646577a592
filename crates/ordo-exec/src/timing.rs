//! The clock of the opt-in cycle breakdown (PMOD paper, Table 1): the
//! time-stamp counter on x86-64, nanoseconds since a process-wide origin
//! elsewhere.

/// Current time in TSC cycles (x86-64) or nanoseconds (other targets).
#[inline(always)]
pub(crate) fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads a counter.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// The unit of [`CycleBreakdown`](crate::CycleBreakdown) values: `"tsc_cycles"` on
/// x86-64, `"ns"` elsewhere.
pub const CYCLE_UNIT: &str = if cfg!(target_arch = "x86_64") { "tsc_cycles" } else { "ns" };
