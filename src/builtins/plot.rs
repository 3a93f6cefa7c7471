//! Plot builtins: `plot`, `hist` and `imshow` draw in the script's output and
//! become the session's last figure; `savefig` writes that figure as PNG or SVG.

use std::io::IsTerminal;
use std::path::Path;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::plot::{self, ColorMode, Figure, ImageFormat, MAX_BINS};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Arg, Display, FromArg};
use crate::tensor::shape::shape_str;
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "plot",
        doc: "Draws a line chart of y against x (plot(y) uses 0, 1, 2, ...) in the terminal; x and y are 1-D and equally long; NaN and inf are skipped.",
        fn(ctx, a; x: Values<1>, y: Option<Values<1>> = none) {
            let first = x.values;
            let (x, y) = match y {
                None => ((0..first.len()).map(|i| i as f64).collect(), first),
                Some(y) => {
                    if y.values.len() != first.len() {
                        let msg = format!(
                            "plot: x and y must have the same length, got {} and {}",
                            first.len(),
                            y.values.len()
                        );
                        return Err(a.arg_err("y", msg));
                    }
                    (first, y.values)
                }
            };
            show(ctx, &a, Figure::Line { x, y })
        }
    },
    builtin! {
        name: "hist",
        doc: "Draws a histogram of x's finite values in bins equal-width bins over [min, max] (numpy.histogram; the last bin is closed).",
        fn(ctx, a; x: Tensor, bins: usize = 10) {
            if !(1..=MAX_BINS).contains(&bins) {
                let msg = format!("hist: bins must be between 1 and {MAX_BINS}, got {bins}");
                return Err(a.arg_err("bins", msg));
            }
            show(ctx, &a, Figure::histogram(&x.to_vec::<f64>(), bins))
        }
    },
    builtin! {
        name: "imshow",
        doc: "Draws a 2-D tensor as a heatmap (row 0 at the top; shades, or viridis colours on a terminal); NaN and inf cells stay blank.",
        fn(ctx, a; m: Values<2>) {
            let fig = Figure::Heatmap {
                rows: m.shape[0],
                cols: m.shape[1],
                values: m.values,
            };
            show(ctx, &a, fig)
        }
    },
    builtin! {
        name: "savefig",
        doc: "Writes the last figure of plot, hist or imshow to path as a 640x480 PNG or an SVG, by extension, atomically.",
        fn(ctx, a; path: String) {
            savefig(ctx, &a, &path)
        }
    },
];

/// Colour only for a terminal, and never when NO_COLOR is set (to anything non-empty).
fn color_mode() -> ColorMode {
    let allowed = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let truecolor = std::env::var("COLORTERM").is_ok_and(|v| v == "truecolor" || v == "24bit");
    match (allowed, truecolor) {
        (false, _) => ColorMode::Off,
        (true, false) => ColorMode::Ansi256,
        (true, true) => ColorMode::TrueColor,
    }
}

/// Draws `fig` in the output and keeps it as the last figure.
/// A notebook shows the figure as an image instead.
fn show(ctx: &mut dyn Ctx, a: &Bound, fig: Figure) -> Result<Value, Diagnostic> {
    if !ctx.display(Display::Figure(&fig)) {
        let text = plot::render(&fig, color_mode());
        ctx.out()
            .write_all(text.as_bytes())
            .map_err(|e| a.err(format!("{}: cannot write the drawing: {e}", a.builtin.name)))?;
    }
    *ctx.figure() = Some(fig);
    Ok(Value::None)
}

/// The f64 values of a tensor argument with `NDIM` dimensions.
struct Values<const NDIM: usize> {
    shape: Vec<usize>,
    values: Vec<f64>,
}

impl<'a, const NDIM: usize> FromArg<'a> for Values<NDIM> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let name = arg.name();
        let callee = arg.callee();
        let t = Tensor::from_arg(arg.clone())?;
        if t.ndim() != NDIM {
            return Err(arg.err(format!(
                "argument `{name}` of {callee} must be a {NDIM}-D tensor, got shape {}",
                shape_str(t.shape())
            )));
        }
        Ok(Values {
            shape: t.shape().to_vec(),
            values: t.to_vec::<f64>(),
        })
    }
}

fn savefig(ctx: &mut dyn Ctx, a: &Bound, path: &str) -> Result<Value, Diagnostic> {
    let Some(format) = ImageFormat::from_path(Path::new(path)) else {
        return Err(a.arg_err(
            "path",
            format!("savefig: cannot tell the image format of \"{path}\"; use a .png or .svg name"),
        ));
    };
    let Some(fig) = ctx.figure().as_ref() else {
        return Err(a
            .err(format!("savefig: no figure to write to \"{path}\" yet"))
            .with_note("draw one first with plot, hist or imshow"));
    };
    plot::save(fig, Path::new(path), format)
        .map_err(|e| a.arg_err("path", format!("savefig: {e} ({path})")))?;
    Ok(Value::None)
}
