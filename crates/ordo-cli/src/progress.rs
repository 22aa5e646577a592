//! Progress display for long loads, generation and runs: a spinner or byte
//! bar on stderr that appears only once the work has taken more than a
//! second (and only when stderr is a terminal), so quick commands and
//! scripts see nothing.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
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

/// How often the display thread of [`RunProgress`] looks whether a run has
/// gone on long enough to be shown.
const RUN_POLL: Duration = Duration::from_millis(100);

/// The progress line of parallel runs: tasks done, rate and elapsed time,
/// read from the runs' [`RunMonitor`] (per-worker counters the workers
/// publish every few dozen tasks; no shared counter on their hot path) by a
/// display thread, shown once a run has taken a second, on a terminal.
///
/// One display thread serves every run of a command: [`RunProgress::begin`]
/// and [`RunProgress::end`] only set what it reads when it next looks, so
/// a run starts without a thread being created or woken next to its
/// workers. (A display thread created for each run competes with the
/// waking workers, a visible cost on runs of a few milliseconds.)
pub(crate) struct RunProgress {
    shared: Arc<Mutex<RunLine>>,
    stop: Option<mpsc::Sender<()>>,
    display: Option<JoinHandle<()>>,
}

/// What the display thread and the runs share.
#[derive(Default)]
struct RunLine {
    /// The label and start of the run under way, if one is.
    current: Option<(String, Instant)>,
    /// The line, while it is shown.
    bar: Option<ProgressBar>,
}

impl RunProgress {
    /// Starts the display thread for the runs that `monitor` observes.
    pub(crate) fn new(monitor: Arc<RunMonitor>) -> RunProgress {
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = Arc::new(Mutex::new(RunLine::default()));
        let line = shared.clone();
        let display = std::thread::spawn(move || loop {
            let shown = lock(&line).bar.is_some();
            match stopped.recv_timeout(if shown { RUN_REFRESH } else { RUN_POLL }) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return,
            }
            let mut line = lock(&line);
            let Some((label, started)) = line.current.clone() else { continue };
            let elapsed = started.elapsed();
            if elapsed < SHOW_AFTER {
                continue;
            }
            let bar = line.bar.get_or_insert_with(|| {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar
            });
            let (elapsed, tasks) = (elapsed.as_secs_f64(), monitor.tasks_done());
            bar.set_message(format!(
                "{label}: {} tasks, {}/s, {elapsed:.1} s",
                human(tasks as f64),
                human(tasks as f64 / elapsed.max(1e-9))
            ));
            bar.tick();
        });
        RunProgress { shared, stop: Some(stop), display: Some(display) }
    }

    /// A run labelled `label` starts now.
    pub(crate) fn begin(&self, label: String) {
        lock(&self.shared).current = Some((label, Instant::now()));
    }

    /// The run ended: its line, if shown, is removed now.
    pub(crate) fn end(&self) {
        let mut line = lock(&self.shared);
        line.current = None;
        if let Some(bar) = line.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// Whether the line is shown (for the tests).
    #[cfg(test)]
    fn shown(&self) -> bool {
        lock(&self.shared).bar.is_some()
    }
}

impl Drop for RunProgress {
    fn drop(&mut self) {
        self.end();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(d) = self.display.take() {
            let _ = d.join();
        }
    }
}

/// The shared line, even if a holder panicked (the line is only a display).
fn lock(line: &Mutex<RunLine>) -> MutexGuard<'_, RunLine> {
    line.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
        let progress = RunProgress::new(Arc::new(RunMonitor::new(2)));
        for i in 0..3 {
            progress.begin(format!("run {i}"));
            progress.end();
        }
        drop(progress);
        assert!(t.elapsed() < SHOW_AFTER);
        assert_eq!(human(999.0), "999");
        assert_eq!(human(1_234_567.0), "1.235M");
        assert_eq!(human(2.5e9), "2.500G");
    }

    #[test]
    fn a_long_run_is_shown_until_it_ends() {
        let progress = RunProgress::new(Arc::new(RunMonitor::new(1)));
        progress.begin("short".into());
        progress.end();
        progress.begin("long".into());
        std::thread::sleep(SHOW_AFTER + 3 * RUN_POLL);
        assert!(progress.shown(), "a run of more than a second is shown");
        progress.end();
        assert!(!progress.shown(), "the line goes with the run");
        progress.begin("next".into());
        std::thread::sleep(2 * RUN_POLL);
        assert!(!progress.shown(), "the next run starts its own second");
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
