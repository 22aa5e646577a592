//! The strategy of an application that has several kernels: its fastest for
//! the input (`default`), one of its named kernels (`direction` for BFS),
//! or, for a priority-scheduled application, the papers' operator on a
//! scheduler (`pmod`, `obim:delta=14`, ...).
//!
//! The default needs no knob: the application picks per input the kernel
//! that is fastest there and reports which one ran (the `kernel` field of
//! its metrics). The papers' operators stay available under their
//! scheduler specs, so the papers' experiments run what the papers ran.

use std::fmt;
use std::marker::PhantomData;

use ordo_sched::SchedulerSpec;

use super::Strategy;

/// What an application offers besides its default: named kernels and,
/// when `SCHEDULED`, its operator on any scheduler.
pub trait KernelSet: Send + Sync + 'static {
    /// The named kernels, `(name, one-line description)`; `default` is not
    /// one of them.
    const NAMED: &'static [(&'static str, &'static str)];
    /// Whether any scheduler spec is accepted (the priority-scheduled
    /// operator of the papers).
    const SCHEDULED: bool;
    /// The flag that chooses the kernel (`sched` when schedulers are
    /// accepted, so `--sched pmod` reads as before).
    const FLAG: &'static str;
    /// Help text of the flag.
    const HELP: &'static str;
}

/// Which kernel a run uses.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelChoice {
    /// The application's fastest kernel for the input.
    Default,
    /// A named kernel (an entry of [`KernelSet::NAMED`]).
    Named(&'static str),
    /// The priority-scheduled operator on this scheduler.
    Scheduled(SchedulerSpec),
}

/// A kernel choice of the application whose kernels `K` lists.
pub struct Kernel<K: KernelSet> {
    /// The choice.
    pub choice: KernelChoice,
    kernels: PhantomData<K>,
}

impl<K: KernelSet> Kernel<K> {
    /// A choice.
    pub fn new(choice: KernelChoice) -> Self {
        Kernel { choice, kernels: PhantomData }
    }

    /// The named kernel chosen explicitly, or `None` for the default and
    /// for a scheduler.
    pub fn named(&self) -> Option<&'static str> {
        match self.choice {
            KernelChoice::Named(name) => Some(name),
            _ => None,
        }
    }

    /// The scheduler, when the papers' operator was chosen.
    pub fn scheduler(&self) -> Option<&SchedulerSpec> {
        match &self.choice {
            KernelChoice::Scheduled(spec) => Some(spec),
            _ => None,
        }
    }
}

impl<K: KernelSet> Clone for Kernel<K> {
    fn clone(&self) -> Self {
        Kernel::new(self.choice.clone())
    }
}

impl<K: KernelSet> fmt::Debug for Kernel<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.choice.fmt(f)
    }
}

impl<K: KernelSet> PartialEq for Kernel<K> {
    fn eq(&self, other: &Self) -> bool {
        self.choice == other.choice
    }
}

impl<K: KernelSet> fmt::Display for Kernel<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.choice {
            KernelChoice::Default => f.write_str("default"),
            KernelChoice::Named(name) => f.write_str(name),
            KernelChoice::Scheduled(spec) => spec.fmt(f),
        }
    }
}

impl<K: KernelSet> Strategy for Kernel<K> {
    const FLAG: &'static str = K::FLAG;
    const VALUE_NAME: &'static str = "KERNEL";
    const HELP: &'static str = K::HELP;

    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "default" {
            return Ok(Kernel::new(KernelChoice::Default));
        }
        if let Some(&(name, _)) = K::NAMED.iter().find(|(name, _)| *name == text) {
            return Ok(Kernel::new(KernelChoice::Named(name)));
        }
        let names: Vec<&str> = std::iter::once("default").chain(K::NAMED.iter().map(|(n, _)| *n)).collect();
        if !K::SCHEDULED {
            return Err(format!("unknown kernel `{text}` (known: {})", names.join(", ")));
        }
        text.parse::<SchedulerSpec>()
            .map(|spec| Kernel::new(KernelChoice::Scheduled(spec)))
            .map_err(|e| format!("{e}; besides schedulers, the kernels {} are known", names.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct WithScheds;
    impl KernelSet for WithScheds {
        const NAMED: &'static [(&'static str, &'static str)] = &[("direction", "direction-optimizing")];
        const SCHEDULED: bool = true;
        const FLAG: &'static str = "sched";
        const HELP: &'static str = "";
    }

    struct Plain;
    impl KernelSet for Plain {
        const NAMED: &'static [(&'static str, &'static str)] = &[("afforest", "sampling"), ("sv", "hooking")];
        const SCHEDULED: bool = false;
        const FLAG: &'static str = "kernel";
        const HELP: &'static str = "";
    }

    #[test]
    fn choices_parse_and_print_back() {
        for text in ["default", "direction", "pmod", "obim:delta=14"] {
            let k = Kernel::<WithScheds>::parse(text).unwrap();
            assert_eq!(k.to_string().split(':').next(), text.split(':').next(), "{text}");
        }
        assert_eq!(Kernel::<WithScheds>::parse("default").unwrap().choice, KernelChoice::Default);
        assert_eq!(Kernel::<WithScheds>::parse("direction").unwrap().named(), Some("direction"));
        assert!(Kernel::<WithScheds>::parse("pmod").unwrap().scheduler().is_some());
        assert_eq!(Kernel::<Plain>::parse("sv").unwrap().named(), Some("sv"));
    }

    #[test]
    fn unknown_kernels_are_errors_listing_what_exists() {
        let e = Kernel::<Plain>::parse("pmod").unwrap_err();
        assert_eq!(e, "unknown kernel `pmod` (known: default, afforest, sv)");
        let e = Kernel::<WithScheds>::parse("fancy").unwrap_err();
        assert!(e.contains("default, direction"), "{e}");
    }
}
