//! Drawing the plot kinds with `plotters` on any backend (PNG through the
//! bitmap backend, SVG): line charts, horizontal (stacked) bar charts and
//! annotated heatmaps. Text uses DejaVu Sans embedded in the binary, so PNG
//! rendering needs no system fonts.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

use anyhow::anyhow;
use ordo_graph::output::{write_atomically, write_via_temp_path};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// DejaVu Sans (license in `assets/DejaVuSans-LICENSE.txt`).
static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// Registers the embedded font as plotters' `sans-serif` family, once.
fn register_font() -> anyhow::Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| anyhow!("the embedded DejaVu Sans font does not parse"));
    });
    result
}

/// An output image format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Raster image.
    Png,
    /// Vector image.
    Svg,
}

impl Format {
    /// The file extension.
    pub(crate) fn ext(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
}

/// One line of a line chart.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// Legend text; empty for no legend entry.
    pub(crate) label: String,
    /// Palette index (lines of one scheduler share it).
    pub(crate) colour: usize,
    /// Points, in x order.
    pub(crate) points: Vec<(f64, f64)>,
    /// Dashed instead of solid.
    pub(crate) dashed: bool,
}

/// A line chart.
#[derive(Clone, Debug)]
pub(crate) struct LineChart {
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) lines: Vec<Line>,
    /// Label only integral x values (thread counts, delta).
    pub(crate) integer_x: bool,
    /// Draw a marker at each point.
    pub(crate) markers: bool,
    /// The x values are base-2 logarithms: ticks are labelled `2^x`.
    pub(crate) x_log2: bool,
}

/// A horizontal bar chart, one row per category, optionally stacked.
#[derive(Clone, Debug)]
pub(crate) struct BarChart {
    pub(crate) title: String,
    /// What the bar length measures.
    pub(crate) x_label: String,
    /// Row labels, drawn top to bottom.
    pub(crate) rows: Vec<String>,
    /// Names of the stacked segments (one name: plain bars, no legend).
    pub(crate) segments: Vec<String>,
    /// `values[row][segment]`.
    pub(crate) values: Vec<Vec<f64>>,
    /// Write each plain bar's value at its end.
    pub(crate) annotate: bool,
    /// A vertical reference line (e.g. 1 for ratios), if any.
    pub(crate) reference: Option<f64>,
}

/// A heatmap over two sweep variables, cells annotated with their value.
#[derive(Clone, Debug)]
pub(crate) struct Heatmap {
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) x_values: Vec<String>,
    pub(crate) y_values: Vec<String>,
    /// `cells[y][x]`; `None` where not measured.
    pub(crate) cells: Vec<Vec<Option<f64>>>,
    /// Lower values are better (times): they get the light end of the scale,
    /// and the lowest cell gets a black border.
    pub(crate) lower_is_better: bool,
}

/// Anything `ordo plot` draws.
#[derive(Clone, Debug)]
pub(crate) enum Chart {
    Lines(LineChart),
    Bars(BarChart),
    Heat(Heatmap),
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

impl Chart {
    /// Pixel size of the image.
    fn size(&self) -> (u32, u32) {
        match self {
            Chart::Lines(_) => (960, 640),
            Chart::Bars(b) => (960, (150 + 34 * b.rows.len() as u32).max(360)),
            Chart::Heat(h) => (
                (240 + 110 * h.x_values.len() as u32).max(820),
                (200 + 60 * h.y_values.len() as u32).max(400),
            ),
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        root.fill(&WHITE)?;
        match self {
            Chart::Lines(c) => draw_lines(c, root)?,
            Chart::Bars(c) => draw_bars(c, root)?,
            Chart::Heat(c) => draw_heatmap(c, root)?,
        }
        root.present()
    }

    /// Writes `stem.<ext>` in `dir` for each format; returns the files.
    pub(crate) fn render(&self, dir: &Path, stem: &str, formats: &[Format]) -> anyhow::Result<Vec<PathBuf>> {
        register_font()?;
        let size = self.size();
        let mut files = Vec::new();
        for &format in formats {
            let path = dir.join(format!("{stem}.{}", format.ext()));
            let err = |e: String| anyhow!("{}: {e}", path.display());
            // Atomic writes: a half-drawn image never replaces a previous one.
            match format {
                Format::Png => write_via_temp_path(&path, |temp| -> anyhow::Result<()> {
                    let root = BitMapBackend::new(temp, size).into_drawing_area();
                    self.draw(&root).map_err(|e| err(e.to_string()))
                })?,
                Format::Svg => {
                    let mut svg = String::new();
                    {
                        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
                        self.draw(&root).map_err(|e| err(e.to_string()))?;
                    }
                    write_atomically(&path, |w| w.write_all(svg.as_bytes()))?;
                }
            }
            files.push(path);
        }
        Ok(files)
    }
}

fn colour(i: usize) -> RGBAColor {
    Palette99::pick(i).to_rgba()
}

/// Labels integral values only (for axes of thread counts or delta).
fn integer_label(x: &f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round())
    } else {
        String::new()
    }
}

/// `v` with about three significant digits, trailing zeros dropped.
pub(crate) fn short_number(v: f64) -> String {
    let a = v.abs();
    let text = if a == 0.0 {
        return "0".into();
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        return format!("{v:.2e}");
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Axis bounds with a margin; a degenerate range is widened.
fn padded(lo: f64, hi: f64, from_zero: bool) -> (f64, f64) {
    let lo = if from_zero { lo.min(0.0) } else { lo };
    let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
    (if from_zero && lo >= 0.0 { 0.0 } else { lo - 0.05 * span }, hi + 0.08 * span)
}

fn draw_lines<DB: DrawingBackend>(c: &LineChart, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let all = c.lines.iter().flat_map(|l| l.points.iter());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1, y1) = (0.0, 1.0, 1.0);
    }
    let (x0, x1) = if x1 > x0 { (x0, x1) } else { (x0 - 0.5, x1 + 0.5) };
    let (y0, y1) = padded(0.0, y1, true);
    let mut chart = ChartBuilder::on(root)
        .caption(&c.title, (FAMILY, 18))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let int_fmt = integer_label;
    let pow2_fmt = |x: &f64| {
        if (x - x.round()).abs() < 1e-9 && x.round() >= 0.0 && x.round() < 63.0 {
            format!("{}", 1u64 << x.round() as u32)
        } else {
            String::new()
        }
    };
    let plain_fmt = |x: &f64| short_number(*x);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(c.x_label.as_str())
        .y_desc(c.y_label.as_str())
        .label_style((FAMILY, 14))
        .axis_desc_style((FAMILY, 16))
        .y_label_formatter(&plain_fmt);
    if c.x_log2 {
        mesh.x_label_formatter(&pow2_fmt);
    } else if c.integer_x {
        mesh.x_label_formatter(&int_fmt);
    } else {
        mesh.x_label_formatter(&plain_fmt);
    }
    mesh.draw()?;
    let mut any_label = false;
    for line in &c.lines {
        let col = colour(line.colour);
        let style = col.stroke_width(2);
        let anno = if line.dashed {
            chart.draw_series(DashedLineSeries::new(line.points.iter().copied(), 8, 6, style))?
        } else {
            chart.draw_series(LineSeries::new(line.points.iter().copied(), style))?
        };
        if !line.label.is_empty() {
            any_label = true;
            anno.label(line.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
        }
        if c.markers {
            chart.draw_series(line.points.iter().map(|&p| Circle::new(p, 3, col.filled())))?;
        }
    }
    if any_label {
        chart
            .configure_series_labels()
            .label_font((FAMILY, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    Ok(())
}

/// Row `i` of `n` (top to bottom) on the y axis running from -0.5 to n-0.5.
fn row_y(i: usize, n: usize) -> f64 {
    (n - 1 - i) as f64
}

fn draw_bars<DB: DrawingBackend>(c: &BarChart, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let n = c.rows.len().max(1);
    let totals: Vec<f64> = c.values.iter().map(|r| r.iter().sum()).collect();
    let max = totals.iter().copied().chain(c.reference).fold(0.0f64, f64::max);
    let stacked = c.segments.len() > 1;
    // Room for the value labels, or for the legend right of stacked bars.
    let x1 = if max <= 0.0 {
        1.0
    } else if stacked {
        max * 1.32
    } else if c.annotate {
        max * 1.18
    } else {
        max * 1.04
    };
    let longest = c.rows.iter().map(|r| r.chars().count()).max().unwrap_or(1) as u32;
    let mut chart = ChartBuilder::on(root)
        .caption(&c.title, (FAMILY, 18))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size((longest * 8 + 16).clamp(60, 420))
        .build_cartesian_2d(0.0..x1, -0.5..(n as f64 - 0.5))?;
    let rows = &c.rows;
    let row_fmt = |y: &f64| {
        if (y - y.round()).abs() > 1e-9 || y.round() < 0.0 {
            return String::new();
        }
        let from_bottom = y.round() as usize;
        if from_bottom >= n {
            return String::new();
        }
        rows.get(n - 1 - from_bottom).cloned().unwrap_or_default()
    };
    let x_fmt = |x: &f64| short_number(*x);
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&row_fmt)
        .x_label_formatter(&x_fmt)
        .x_desc(c.x_label.as_str())
        .label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 16))
        .draw()?;
    for (s, name) in c.segments.iter().enumerate() {
        let col = if stacked { colour(s) } else { colour(0) };
        let bars: Vec<Rectangle<(f64, f64)>> = c
            .values
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let start: f64 = row[..s].iter().sum();
                let y = row_y(i, n);
                Rectangle::new([(start, y - 0.35), (start + row[s], y + 0.35)], col.filled())
            })
            .collect();
        let anno = chart.draw_series(bars)?;
        if stacked {
            anno.label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], col.filled()));
        }
    }
    if c.annotate {
        let style = TextStyle::from((FAMILY, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        chart.draw_series(
            totals
                .iter()
                .enumerate()
                .map(|(i, &t)| Text::new(format!(" {}", short_number(t)), (t, row_y(i, n)), style.clone())),
        )?;
    }
    if let Some(r) = c.reference {
        chart.draw_series(DashedLineSeries::new(
            [(r, -0.5), (r, n as f64 - 0.5)],
            6,
            5,
            BLACK.stroke_width(1),
        ))?;
    }
    if stacked {
        chart
            .configure_series_labels()
            .label_font((FAMILY, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    Ok(())
}

/// The colour of scale position `t` in [0, 1]: light yellow to dark blue.
fn heat_colour(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let (a, b) = ((255.0, 255.0, 204.0), (37.0, 52.0, 148.0));
    let mix = |p: f64, q: f64| (p + (q - p) * t).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

fn draw_heatmap<DB: DrawingBackend>(c: &Heatmap, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    let (nx, ny) = (c.x_values.len().max(1), c.y_values.len().max(1));
    let values: Vec<f64> = c.cells.iter().flatten().flatten().copied().collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let best = if c.lower_is_better { lo } else { hi };
    let mut chart = ChartBuilder::on(root)
        .caption(&c.title, (FAMILY, 18))
        .margin(14)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..(nx as f64 - 0.5), -0.5..(ny as f64 - 0.5))?;
    let label = |names: &[String], v: f64| {
        if (v - v.round()).abs() > 1e-9 || v.round() < 0.0 {
            return String::new();
        }
        names.get(v.round() as usize).cloned().unwrap_or_default()
    };
    let x_fmt = |v: &f64| label(&c.x_values, *v);
    let y_fmt = |v: &f64| label(&c.y_values, *v);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(nx)
        .y_labels(ny)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_desc(c.x_label.as_str())
        .y_desc(c.y_label.as_str())
        .label_style((FAMILY, 14))
        .axis_desc_style((FAMILY, 16))
        .draw()?;
    let scale = |v: f64| {
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
        if c.lower_is_better {
            t
        } else {
            1.0 - t
        }
    };
    for (j, row) in c.cells.iter().enumerate() {
        for (i, cell) in row.iter().enumerate() {
            let (x, y) = (i as f64, j as f64);
            let Some(v) = *cell else { continue };
            let t = scale(v);
            chart.draw_series([Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                heat_colour(t).filled(),
            )])?;
            if v == best {
                chart.draw_series([Rectangle::new(
                    [(x - 0.46, y - 0.46), (x + 0.46, y + 0.46)],
                    BLACK.stroke_width(3),
                )])?;
            }
            let ink = if t > 0.55 { WHITE } else { BLACK };
            let style = TextStyle::from((FAMILY, 15).into_font())
                .color(&ink)
                .pos(Pos::new(HPos::Center, VPos::Center));
            chart.draw_series([Text::new(short_number(v), (x, y), style)])?;
        }
    }
    Ok(())
}
