//! The facts recorded next to every benchmark run: machine description,
//! process peak memory, git revision and wall-clock timestamp.

use serde::Serialize;

/// The machine a benchmark ran on (`machine` field and `DIR/machine.json`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Machine {
    /// CPU model name (`/proc/cpuinfo`), or `unknown`.
    pub(crate) cpu: String,
    /// Logical cores available to this process.
    pub(crate) logical_cores: usize,
    /// Operating system (`/etc/os-release` PRETTY_NAME, else `std::env::consts::OS`).
    pub(crate) os: String,
    /// Kernel release (`/proc/sys/kernel/osrelease`), or `unknown`.
    pub(crate) kernel: String,
    /// Host name, or `unknown`.
    pub(crate) hostname: String,
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

impl Machine {
    /// Describes this machine from `/proc` and `/etc` (Linux); fields that
    /// cannot be read are `unknown`.
    pub(crate) fn detect() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let os = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                    .map(|v| v.trim_matches('"').to_string())
            })
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        Machine {
            cpu,
            logical_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os,
            kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
            hostname: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown".into()),
        }
    }
}

/// The process's peak resident set size in bytes (`VmHWM` of
/// `/proc/self/status`): a high-water mark over the whole process so far,
/// not of one run. `None` where it cannot be read.
pub(crate) fn peak_rss_bytes() -> Option<u64> {
    ordo_graph::memory::peak_resident_bytes()
}

/// The git revision the binary was built from (`git rev-parse --short HEAD`
/// at build time, with `-dirty` for uncommitted changes), or `unknown`.
pub(crate) const GIT_REV: &str = env!("ORDO_GIT_REV");

/// The current UTC time as RFC 3339, e.g. `2026-11-22T07:05:09Z`.
pub(crate) fn timestamp_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the Unix epoch as an RFC 3339 UTC time (proleptic
/// Gregorian calendar; H. Hinnant's days-to-civil algorithm).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_matches_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn machine_and_memory_are_readable_here() {
        let m = Machine::detect();
        assert!(m.logical_cores >= 1);
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(peak_rss_bytes().unwrap() > 0);
        }
    }
}
