//! Dot products of quantized weight rows with quantized activation rows, the inner loop
//! of the fused matmul. Each weight type is paired with the activation type ggml's CPU
//! backend uses (`vec_dot_type`); every kernel has a portable scalar twin.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod scalar;

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

/// Runs the AVX2 kernel when `isa` allows it, else the scalar one, on whole blocks.
macro_rules! pick {
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
        QType::Q4K => pick!(isa, w, a, 144, 292, q4k_q8k),
        QType::Q5K => pick!(isa, w, a, 176, 292, q5k_q8k),
        QType::Q6K => pick!(isa, w, a, 210, 292, q6k_q8k),
        QType::Q8_0 => pick!(isa, w, a, 34, 34, q8_0_q8_0),
        _ => 0.0,
    }
}
