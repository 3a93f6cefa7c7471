//! Dot products of quantized weight rows with quantized activation rows, the inner loop
//! of the fused matmul. Each weight type is paired with the activation type ggml's CPU
//! backend uses (`vec_dot_type`); every kernel has a portable scalar twin.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod matvec;
#[cfg(target_arch = "x86_64")]
mod rows;
#[cfg(target_arch = "x86_64")]
mod rows_by_lane;
#[cfg(target_arch = "x86_64")]
mod rows_q8_0;
#[cfg(target_arch = "x86_64")]
mod rows_q8_0_vnni;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod unpack;

use super::QType;
use crate::kernels::isa::Isa;

/// The activation type ggml pairs with `weights` in dot products, for the weight types
/// that have a fused kernel here (Q4_K, Q5_K, Q6_K → Q8_K; Q8_0 → Q8_0).
pub fn vec_dot_type(weights: QType) -> Option<QType> {
    match weights {
        QType::Q4K | QType::Q5K | QType::Q6K => Some(QType::Q8K),
        QType::Q8_0 => Some(QType::Q8_0),
        _ => None,
    }
}

/// Runs the AVX-512 VNNI kernel (with `wide`) or the AVX2 kernel when `isa` allows it,
/// else the scalar one, on whole blocks.
macro_rules! pick {
    ($isa:expr, $w:expr, $a:expr, $wb:literal, $ab:literal, $kernel:ident, wide) => {{
        #[cfg(target_arch = "x86_64")]
        if $isa.avx512_vnni() {
            let (w, a) = ($w.as_chunks::<$wb>().0, $a.as_chunks::<$ab>().0);
            // SAFETY: `Isa::avx512_vnni()` is true only when AVX-512 F/BW/VNNI were
            // detected on top of AVX2, FMA and F16C.
            return unsafe { avx512::$kernel(w, a) };
        }
        pick!($isa, $w, $a, $wb, $ab, $kernel)
    }};
    ($isa:expr, $w:expr, $a:expr, $wb:literal, $ab:literal, $kernel:ident) => {{
        let (w, a) = ($w.as_chunks::<$wb>().0, $a.as_chunks::<$ab>().0);
        #[cfg(target_arch = "x86_64")]
        if $isa.avx2() {
            // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
            return unsafe { avx2::$kernel(w, a) };
        }
        scalar::$kernel(w, a)
    }};
}

/// Σ w·a for a weight row `w` (whole blocks of `wtype`) and an activation row `a`
/// quantized to `vec_dot_type(wtype)`, over the blocks both hold. 0 for weight types
/// without a fused kernel.
pub fn vec_dot(isa: Isa, wtype: QType, w: &[u8], a: &[u8]) -> f32 {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa;
    match wtype {
        QType::Q4K => pick!(isa, w, a, 144, 292, q4k_q8k, wide),
        QType::Q5K => pick!(isa, w, a, 176, 292, q5k_q8k, wide),
        QType::Q6K => pick!(isa, w, a, 210, 292, q6k_q8k, wide),
        QType::Q8_0 => pick!(isa, w, a, 34, 34, q8_0_q8_0),
        _ => 0.0,
    }
}

/// Activation rows quantized to a weight type's `vec_dot_type` (`bytes`, rows of
/// `row_bytes`), with what the Q8_0 kernels read prepared once for all weight rows
/// (built from `bytes` by `new` and never changed, so they always describe exactly
/// these rows): for Q8_0 weights, two rows or more and AVX2 the widest many-row
/// kernel, the rows' scales as f32 and their pairs of blocks in groups of rows (the
/// AVX2 tile); for two rows or more on AVX-512 VNNI, the rows' packed pairs of blocks
/// (the VNNI tile).
pub struct ActivationRows<'a> {
    bytes: &'a [u8],
    row_bytes: usize,
    #[cfg(target_arch = "x86_64")]
    groups: Option<rows_q8_0::ActivationGroups>,
    #[cfg(target_arch = "x86_64")]
    packed: Option<rows_q8_0_vnni::PackedActivations>,
}

impl<'a> ActivationRows<'a> {
    pub fn new(
        isa: Isa,
        wtype: QType,
        (bytes, row_bytes): (&'a [u8], usize),
    ) -> ActivationRows<'a> {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (isa, wtype);
        ActivationRows {
            bytes,
            row_bytes,
            // Only where the AVX2 tile will run: AVX2 the widest many-row kernel, and
            // more than one row (one goes to the single-row dot).
            #[cfg(target_arch = "x86_64")]
            groups: (wtype == QType::Q8_0
                && RowsKernel::widest(isa) == Some(RowsKernel::Avx2)
                && row_bytes > 0
                && bytes.len() >= 2 * row_bytes)
                .then(|| {
                    // SAFETY: the AVX2 kernel runs only where `Isa::avx2()`, true only
                    // when AVX2, FMA and F16C were detected.
                    unsafe { rows_q8_0::ActivationGroups::new(bytes, row_bytes) }
                }),
            // Only where the VNNI tile will run: more than one row (one goes to the
            // single-row dot), each holding a whole pair of blocks (narrower rows go to
            // `rows_avx512`).
            #[cfg(target_arch = "x86_64")]
            packed: (wtype == QType::Q8_0
                && isa.avx512_vnni()
                && row_bytes >= 2 * rows_q8_0::BLOCK
                && bytes.len() >= 2 * row_bytes)
                .then(|| {
                    // SAFETY: `Isa::avx512_vnni()` is true only when AVX-512 F/BW/VNNI were
                    // detected on top of AVX2 and F16C.
                    unsafe { rows_q8_0_vnni::PackedActivations::new(bytes, row_bytes) }
                }),
        }
    }

    fn rows(&self) -> usize {
        self.bytes.len() / self.row_bytes.max(1)
    }
}

/// `out[j·m + i] = vec_dot(isa, wtype, w_j, a_i)` for the weight rows `w_j` of `w` (each
/// `wbytes` long) and the m activation rows `a_i` of `a`, bit for bit. With a SIMD
/// `isa`, the work goes in tiles of weight rows by activation rows (`rows`,
/// `rows_by_lane`, `rows_q8_0`, `rows_q8_0_vnni`) so loads and unpacking are shared,
/// and one activation row against Q4_K weights on AVX2 in passes of eight weight rows
/// (`matvec`), against Q4_K and Q5_K weights on AVX-512 VNNI four rows side by side
/// (`avx512::q4k_rows`, `q5k_rows`).
pub fn vec_dot_rows(
    isa: Isa,
    wtype: QType,
    w: (&[u8], usize),
    a: &ActivationRows,
    out: &mut [f32],
) {
    match RowsKernel::widest(isa) {
        Some(kernel) if a.rows() > 1 => vec_dot_rows_on(kernel, isa, wtype, w, a, out),
        // Otherwise the many-row tiles do not pay for one activation row (the Q8_0 tile
        // measured slower than the single-row kernel for it, 1.43 against 1.01 ms; the
        // AVX-512 K-quant tile 1.06 against 0.55 ms for Q4_K 4096², on a Zen 4). On
        // AVX2 eight Q4_K weight rows share their reductions and f32 steps (`matvec`);
        // with AVX-512 VNNI four Q4_K or Q5_K rows go side by side through the
        // single-row dot's steps, sharing the activation's loads
        // (`avx512::q4k_rows`, `q5k_rows`). Four Q8_0 weight rows side by side with
        // 256-bit VNNI sums were 1–6% faster than the single-row dot on an AVX-512
        // Xeon but slower on a Zen 4 (4096², one thread, medians of three alternating
        // pairs of runs: 0.74 / 0.86 / 0.90 against 0.70 / 0.69 / 0.64 ms), so they
        // were dropped.
        #[cfg(target_arch = "x86_64")]
        Some(RowsKernel::Avx2)
            if wtype == QType::Q4K && a.rows() == 1 && w.1 > 0 && w.0.len() / w.1 == out.len() =>
        {
            // SAFETY: the AVX2 many-row kernel runs on `isa`, which allows only kernels
            // whose features (AVX2, FMA, F16C) were detected.
            unsafe { matvec::q4k_rows_avx2(w, &a.bytes[..a.row_bytes], out) }
        }
        // With AVX-512 VNNI, Q4_K and Q5_K weight rows go side by side through the
        // single-row dot's steps (`avx512::q4k_rows`, `q5k_rows`).
        #[cfg(target_arch = "x86_64")]
        Some(RowsKernel::Avx512Vnni)
            if matches!(wtype, QType::Q4K | QType::Q5K)
                && a.rows() == 1
                && w.1 > 0
                && w.0.len() / w.1 == out.len() =>
        {
            let a = &a.bytes[..a.row_bytes];
            // SAFETY: `Isa::avx512_vnni()` (the kernel runs on `isa`) is true only when
            // AVX-512 F/BW/VL/VNNI were detected on top of AVX2, FMA and F16C.
            unsafe {
                match wtype {
                    QType::Q4K => avx512::q4k_rows(w, a, out),
                    _ => avx512::q5k_rows(w, a, out),
                }
            }
        }
        _ => each_pair(isa, wtype, w, (a.bytes, a.row_bytes), out),
    }
}

/// The many-row kernels, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowsKernel {
    Avx2,
    Avx512,
    Avx512Vnni,
}

impl RowsKernel {
    pub(crate) fn all() -> [RowsKernel; 3] {
        [RowsKernel::Avx2, RowsKernel::Avx512, RowsKernel::Avx512Vnni]
    }

    /// The widest many-row kernel `isa` allows, if any.
    fn widest(isa: Isa) -> Option<RowsKernel> {
        RowsKernel::all().into_iter().rev().find(|k| k.runs_on(isa))
    }

    pub(crate) fn runs_on(self, isa: Isa) -> bool {
        cfg!(target_arch = "x86_64")
            && match self {
                RowsKernel::Avx2 => isa.avx2(),
                RowsKernel::Avx512 => isa.avx512(),
                RowsKernel::Avx512Vnni => isa.avx512_vnni(),
            }
    }
}

/// `vec_dot_rows` with the given kernel for the K-quants and Q8_0 (the single-row dots
/// for the other types, when `kernel` does not run on `isa`, or when `a` lacks what
/// the kernel reads: see `tile`).
pub(crate) fn vec_dot_rows_on(
    kernel: RowsKernel,
    isa: Isa,
    wtype: QType,
    w: (&[u8], usize),
    a: &ActivationRows,
    out: &mut [f32],
) {
    // The drivers take whole rows and a non-empty output of their shape.
    let shaped = w.1 > 0 && a.row_bytes > 0 && out.len() == w.0.len() / w.1 * a.rows();
    // SAFETY: `runs_on` checked that `isa` allows the kernel, and an `Isa` allows only
    // kernels whose features were detected.
    let done = kernel.runs_on(isa)
        && shaped
        && !out.is_empty()
        && unsafe { tile(kernel, wtype, w, a, out) };
    if !done {
        each_pair(isa, wtype, w, (a.bytes, a.row_bytes), out)
    }
}

/// Runs `kernel` on a whole tile when it has a driver for `wtype` (and, for the Q8_0
/// AVX2 one, `a` holds what it reads): false when not. The Q8_0 VNNI driver
/// without packed rows runs the 512-bit tile instead.
///
/// # Safety
/// The CPU must have the kernel's features: AVX2+FMA+F16C for all, AVX-512 F/BW/DQ on
/// top for the 512-bit ones, and AVX-512 VNNI on top of those for the VNNI one.
#[cfg(target_arch = "x86_64")]
unsafe fn tile(
    kernel: RowsKernel,
    wtype: QType,
    w: (&[u8], usize),
    a: &ActivationRows,
    out: &mut [f32],
) -> bool {
    use unpack::KQuant;
    let kquant = match wtype {
        QType::Q4K => KQuant::Q4K,
        QType::Q5K => KQuant::Q5K,
        QType::Q6K => KQuant::Q6K,
        QType::Q8_0 if w.1 == a.row_bytes => {
            // SAFETY: the caller guarantees the kernel's features.
            unsafe {
                match (kernel, &a.packed) {
                    (RowsKernel::Avx2, _) => match &a.groups {
                        Some(g) => rows_q8_0::rows_avx2(w.0, a.bytes, g, w.1, out),
                        // Only when `a` holds one row or was made for another ISA or
                        // weight type: the single-row dots.
                        None => return false,
                    },
                    (RowsKernel::Avx512, _) => rows_q8_0::rows_avx512(w.0, a.bytes, w.1, out),
                    (RowsKernel::Avx512Vnni, Some(p)) => {
                        rows_q8_0_vnni::rows_vnni(w.0, a.bytes, p, w.1, out)
                    }
                    // Rows not packed (less than a pair of blocks, or a single row):
                    // the 512-bit tile without VNNI gives the same bits.
                    (RowsKernel::Avx512Vnni, _) => rows_q8_0::rows_avx512(w.0, a.bytes, w.1, out),
                }
            }
            return true;
        }
        _ => return false,
    };
    // SAFETY: the caller guarantees the kernel's features.
    unsafe {
        match kernel {
            RowsKernel::Avx2 => rows::rows_avx2(kquant, w, (a.bytes, a.row_bytes), out),
            RowsKernel::Avx512 => rows_by_lane::rows_avx512(kquant, w, (a.bytes, a.row_bytes), out),
            RowsKernel::Avx512Vnni => {
                rows_by_lane::rows_vnni(kquant, w, (a.bytes, a.row_bytes), out)
            }
        }
    }
    true
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn tile(
    _: RowsKernel,
    _: QType,
    _: (&[u8], usize),
    _: &ActivationRows,
    _: &mut [f32],
) -> bool {
    false
}

/// `vec_dot_rows` one pair at a time.
fn each_pair(
    isa: Isa,
    wtype: QType,
    (w, wbytes): (&[u8], usize),
    (a, abytes): (&[u8], usize),
    out: &mut [f32],
) {
    let m = a.len() / abytes.max(1);
    for (orow, wrow) in out
        .chunks_exact_mut(m.max(1))
        .zip(w.chunks_exact(wbytes.max(1)))
    {
        for (o, arow) in orow.iter_mut().zip(a.chunks_exact(abytes.max(1))) {
            *o = vec_dot(isa, wtype, wrow, arow);
        }
    }
}
