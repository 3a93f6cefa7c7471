//! Which SIMD kernels may run, detected once per process and capped by `TSR_ISA`.
//!
//! An `Isa` is a level: scalar, AVX2 (+FMA+F16C) or AVX-512 (F/BW/VL/DQ on top of AVX2).
//! A level above scalar can only be obtained for a CPU that has its features (`detect`,
//! `supported`), which is what makes calling the `#[target_feature]` kernels sound.
//! Every kernel gives the same bits at every level (the rule the ISA tests check), so the
//! cap changes speed only.

use std::sync::OnceLock;

/// The kernel levels, slowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Scalar,
    Avx2,
    Avx512,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Isa {
    level: Level,
}

/// The environment variable that caps the kernel level.
pub const ISA_VAR: &str = "TSR_ISA";

impl Isa {
    /// The portable kernels only (the scalar twins of the SIMD ones).
    pub const SCALAR: Isa = Isa {
        level: Level::Scalar,
    };

    /// The kernels in use: the best this CPU runs, capped by `TSR_ISA` (an invalid
    /// value, which the command line rejects before any kernel runs, caps nothing).
    pub fn detect() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            let best = best_of_cpu();
            match requested() {
                Ok(Some(cap)) => cap.min_level(best),
                _ => best,
            }
        })
    }

    /// Every level this CPU runs, scalar first: what the SIMD-vs-scalar tests iterate.
    pub fn supported() -> Vec<Isa> {
        let best = best_of_cpu();
        [Level::Scalar, Level::Avx2, Level::Avx512]
            .into_iter()
            .filter(|&l| l <= best.level)
            .map(|level| Isa { level })
            .collect()
    }

    /// True when AVX2, FMA and F16C kernels may run.
    pub fn avx2(self) -> bool {
        self.level >= Level::Avx2
    }

    /// True when AVX-512 F/BW/VL/DQ kernels (and the AVX2 ones) may run.
    pub fn avx512(self) -> bool {
        self.level >= Level::Avx512
    }

    /// True when the AVX-512 kernels may run and the CPU has AVX-512 VNNI too (its
    /// kernels give the same bits as the plain AVX-512 ones, so `TSR_ISA` has no
    /// separate level for it).
    pub fn avx512_vnni(self) -> bool {
        self.avx512() && has_avx512_vnni()
    }

    /// True when the AVX-512 kernels may run and the CPU has AVX-512 BF16 too (the bf16
    /// matrix product's pair sums; the same bits as the f32 kernels, as for VNNI).
    pub fn avx512_bf16(self) -> bool {
        self.avx512() && has_avx512_bf16()
    }

    /// This level capped at AVX2: for a kernel whose AVX-512 build measured slower than
    /// its AVX2 build (the bits are the same either way).
    pub fn at_most_avx2(self) -> Isa {
        self.min_level(Isa { level: Level::Avx2 })
    }

    /// The name `tsr --version` prints and `TSR_ISA` takes.
    pub fn name(self) -> &'static str {
        match self.level {
            Level::Scalar => "scalar",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    fn min_level(self, other: Isa) -> Isa {
        Isa {
            level: self.level.min(other.level),
        }
    }
}

/// The cap `TSR_ISA` asks for: `None` when unset, an error naming the value when it is
/// not a level or names one this CPU lacks.
pub fn requested() -> Result<Option<Isa>, String> {
    let Some(value) = std::env::var_os(ISA_VAR) else {
        return Ok(None);
    };
    let value = value.to_string_lossy();
    let level = match value.as_ref() {
        "scalar" => Level::Scalar,
        "avx2" => Level::Avx2,
        "avx512" => Level::Avx512,
        _ => {
            return Err(format!(
                "{ISA_VAR} must be scalar, avx2 or avx512, got \"{value}\""
            ))
        }
    };
    if level > best_of_cpu().level {
        return Err(format!(
            "{ISA_VAR}={value}: this CPU does not run {value} kernels (best: {})",
            best_of_cpu().name()
        ));
    }
    Ok(Some(Isa { level }))
}

fn best_of_cpu() -> Isa {
    static BEST: OnceLock<Isa> = OnceLock::new();
    *BEST.get_or_init(|| {
        let level = if has_avx512() {
            Level::Avx512
        } else if has_avx2_fma() {
            Level::Avx2
        } else {
            Level::Scalar
        };
        Isa { level }
    })
}

#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("f16c")
}

/// AVX-512 as the kernels use it; popcnt and bmi2 (which every AVX-512 CPU has) for the
/// quicksort's partition tables.
#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    has_avx2_fma()
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512dq")
        && is_x86_feature_detected!("popcnt")
        && is_x86_feature_detected!("bmi2")
}

#[cfg(target_arch = "x86_64")]
fn has_avx512_vnni() -> bool {
    is_x86_feature_detected!("avx512vnni")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512_vnni() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn has_avx512_bf16() -> bool {
    is_x86_feature_detected!("avx512bf16")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512_bf16() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx2_fma() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_and_the_cpu_best_is_last() {
        let all = Isa::supported();
        assert_eq!(all[0], Isa::SCALAR);
        assert!(all.windows(2).all(|w| w[0].level < w[1].level));
        assert_eq!(*all.last().unwrap(), best_of_cpu());
        assert!(Isa::detect().level <= best_of_cpu().level);
        for isa in all {
            assert_eq!(isa.avx512(), isa.name() == "avx512");
            assert_eq!(isa.avx2(), isa.name() != "scalar");
        }
    }
}
