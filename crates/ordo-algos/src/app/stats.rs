//! The summary statistics of repeated measurements, defined once for every
//! report, progress line, summary table and plot.
//!
//! **Median**: the lower median, i.e. the `⌈n/2⌉`-th smallest of `n` values
//! (index `(n - 1) / 2` in sorted order; the usual median when `n` is odd).
//! It is always one of the measured values, so the "median run" is a real
//! run whose other measures (tasks, counters, breakdown) belong to it, and
//! the median of integer counts is an integer. Ties keep the earlier
//! measurement. NaN sorts above every number (`f64::total_cmp`).

/// The median, the least and the greatest of some measurements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The lower median (module docs).
    pub median: f64,
    /// The least value.
    pub min: f64,
    /// The greatest value.
    pub max: f64,
    /// How many values.
    pub count: usize,
}

/// The position in `values` of their median (module docs); `None` when empty.
pub fn median_index(values: &[f64]) -> Option<usize> {
    if values.is_empty() {
        return None;
    }
    let mut order: Vec<usize> = (0..values.len()).collect();
    // A stable sort: among equal values the earlier measurement comes first.
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    Some(order[(values.len() - 1) / 2])
}

/// The median of `values` (module docs); `None` when empty.
pub fn median(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    spread(values).map(|s| s.median)
}

/// Median, minimum and maximum of `values`; `None` when empty.
pub fn spread(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
    let mut v: Vec<f64> = values.into_iter().collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(Spread { median: v[(v.len() - 1) / 2], min: v[0], max: v[v.len() - 1], count: v.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_median_is_a_measured_value() {
        assert_eq!(median([3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median([4.0, 1.0, 3.0, 2.0]), Some(2.0), "even count: the lower middle value");
        assert_eq!(median([7.0]), Some(7.0));
        assert_eq!(median(Vec::<f64>::new()), None);
        assert_eq!(median_index(&[5.0, 1.0, 9.0, 3.0]), Some(3));
        assert_eq!(median_index(&[2.0, 2.0, 2.0]), Some(1));
        assert_eq!(median_index(&[]), None);
        let s = spread([5.0, 1.0, 9.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.count), (3.0, 1.0, 9.0, 4));
    }

    #[test]
    fn median_index_and_median_agree() {
        let xs = [0.31, 0.2, 0.45, 0.2, 0.9, 0.33];
        assert_eq!(xs[median_index(&xs).unwrap()], median(xs).unwrap());
    }
}
