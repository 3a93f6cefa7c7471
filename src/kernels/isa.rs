//! Which SIMD kernels may run, detected once per process. An `Isa` that enables AVX2
//! can only come from `Isa::detect` on a CPU that has AVX2, FMA and F16C, which is what
//! makes calling the `#[target_feature]` kernels sound.

use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Isa {
    avx2: bool,
}

impl Isa {
    /// The portable kernels only (the scalar twins of the SIMD ones).
    pub const SCALAR: Isa = Isa { avx2: false };

    /// The best kernels this CPU runs (AVX2 + FMA + F16C on x86-64; scalar elsewhere).
    pub fn detect() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(|| Isa {
            avx2: has_avx2_fma(),
        })
    }

    /// True when AVX2, FMA and F16C are present.
    pub fn avx2(self) -> bool {
        self.avx2
    }
}

#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("f16c")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx2_fma() -> bool {
    false
}
