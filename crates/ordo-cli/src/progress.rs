//! Progress display for long loads, generation and runs: a spinner or byte
//! bar on stderr that appears only once the work has taken more than a
//! second (and only when stderr is a terminal), so quick commands and
//! scripts see nothing.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ordo_exec::RunMonitor;

/// How long work runs before its progress is shown.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A progress indicator that shows itself after [`SHOW_AFTER`]; dropping it
/// (or [`Progress::finish`]) removes it from the terminal.
pub(crate) struct Progress {
    bar: ProgressBar,
    stop: Option<mpsc::Sender<()>>,
    waiter: Option<JoinHandle<()>>,
}

impl Progress {
    /// A spinner with a message, for work of unknown length.
    pub(crate) fn spinner(msg: impl Into<String>) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(msg.into());
        Progress::start(bar)
    }

    /// A bar over `total` bytes, for reading a file.
    pub(crate) fn bytes(msg: impl Into<String>, total: u64) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_message(msg.into());
        Progress::start(bar)
    }

    fn start(bar: ProgressBar) -> Progress {
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = bar.clone();
        let waiter = std::thread::spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(SHOW_AFTER) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Progress { bar, stop: Some(stop), waiter: Some(waiter) }
    }

    /// A `(done, total)` callback for [`ordo_graph::LoadOptions::progress`].
    pub(crate) fn callback(&self) -> Arc<dyn Fn(u64, u64) + Send + Sync> {
        let bar = self.bar.clone();
        Arc::new(move |done, total| {
            if bar.length() != Some(total) {
                bar.set_length(total);
            }
            bar.set_position(done);
        })
    }

    /// Removes the indicator.
    pub(crate) fn finish(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            // The waiter may already have shown the bar and exited.
            let _ = stop.send(());
        }
        if let Some(w) = self.waiter.take() {
            let _ = w.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// How often a run's progress line is refreshed.
const RUN_REFRESH: Duration = Duration::from_millis(250);

/// The progress line of a parallel run: tasks done, rate and elapsed time,
/// read from the run's [`RunMonitor`] (per-worker counters the workers
/// publish every few dozen tasks; no shared counter on their hot path) by a
/// display thread, shown after a second on a terminal.
pub(crate) struct RunProgress {
    stop: Option<mpsc::Sender<()>>,
    display: Option<JoinHandle<()>>,
}

impl RunProgress {
    /// Starts the display of the run that `monitor` observes.
    pub(crate) fn start(label: String, monitor: Arc<RunMonitor>) -> RunProgress {
        let (stop, stopped) = mpsc::channel::<()>();
        let display = std::thread::spawn(move || {
            let started = Instant::now();
            if stopped.recv_timeout(SHOW_AFTER) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            loop {
                let elapsed = started.elapsed().as_secs_f64();
                let tasks = monitor.tasks_done();
                bar.set_message(format!(
                    "{label}: {} tasks, {}/s, {elapsed:.1} s",
                    human(tasks as f64),
                    human(tasks as f64 / elapsed.max(1e-9))
                ));
                bar.tick();
                if stopped.recv_timeout(RUN_REFRESH) != Err(RecvTimeoutError::Timeout) {
                    break;
                }
            }
            bar.finish_and_clear();
        });
        RunProgress { stop: Some(stop), display: Some(display) }
    }

    /// Removes the line (the run ended).
    pub(crate) fn finish(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(d) = self.display.take() {
            let _ = d.join();
        }
    }
}

impl Drop for RunProgress {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// A count with a k / M / G suffix, three significant digits.
fn human(x: f64) -> String {
    let (v, unit) = match x {
        x if x >= 1e9 => (x / 1e9, "G"),
        x if x >= 1e6 => (x / 1e6, "M"),
        x if x >= 1e3 => (x / 1e3, "k"),
        x => (x, ""),
    };
    if unit.is_empty() {
        format!("{v:.0}")
    } else {
        format!("{v:.3}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    #[test]
    fn quick_work_finishes_without_waiting_for_the_delay() {
        let t = Instant::now();
        let p = Progress::bytes("loading", 100);
        let report = p.callback();
        report(40, 200);
        assert_eq!(p.bar.length(), Some(200), "the callback adopts the reported total");
        assert_eq!(p.bar.position(), 40);
        p.finish();
        Progress::spinner("generating").finish();
        assert!(t.elapsed() < SHOW_AFTER, "finishing must not wait for the display delay");
    }

    #[test]
    fn quick_runs_show_nothing_and_do_not_wait() {
        let t = Instant::now();
        RunProgress::start("run".into(), Arc::new(RunMonitor::new(2))).finish();
        assert!(t.elapsed() < SHOW_AFTER);
        assert_eq!(human(999.0), "999");
        assert_eq!(human(1_234_567.0), "1.235M");
        assert_eq!(human(2.5e9), "2.500G");
    }

    #[test]
    fn slow_work_turns_the_display_on() {
        let p = Progress::spinner("slow");
        std::thread::sleep(SHOW_AFTER + Duration::from_millis(300));
        // The waiter has given up waiting and switched to stderr (which
        // indicatif hides again by itself when stderr is not a terminal).
        assert!(p.waiter.as_ref().is_some_and(|w| w.is_finished()));
        drop(p);
    }
}
