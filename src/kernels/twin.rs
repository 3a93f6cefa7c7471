//! Portable SIMD by compiling three times: a kernel body is written once as plain,
//! branch-free Rust over slices, and `twin!` builds it inside an AVX-512
//! `#[target_feature]` function, inside an `avx2,fma,f16c` one (LLVM autovectorizes
//! each to its vector width) and as the plain scalar twin, picking one at run time from
//! an `Isa`. Rust never fuses a multiply and an add or reorders float sums on its own,
//! so every build rounds identically and gives the same bits. On aarch64 only the plain
//! build exists (LLVM may still use NEON for it; untested here: the CI machines are x86-64).

/// Defines `fn $name(isa: Isa, args...)` running `$body` built for the best of AVX-512,
/// AVX2+FMA+F16C and plain that `isa` allows. Generic parameters go in brackets:
/// `twin! { pub fn add[T: Copy](dst: &mut [T], src: &[T]) { ... } }`.
macro_rules! twin {
    ($(#[$m:meta])* $vis:vis fn $name:ident[$($gen:tt)*]($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$m])*
        $vis fn $name<$($gen)*>(isa: $crate::kernels::isa::Isa, $($arg: $ty),*) {
            #[inline(always)]
            fn plain<$($gen)*>($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma,f16c")]
            unsafe fn avx2<$($gen)*>($($arg: $ty),*) {
                plain($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")]
            unsafe fn avx512<$($gen)*>($($arg: $ty),*) {
                plain($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            if isa.avx512() {
                // SAFETY: an `Isa` with AVX-512 only exists on a CPU with AVX-512
                // F/BW/VL/DQ, AVX2, FMA and F16C, the features `avx512` is compiled for.
                return unsafe { avx512($($arg),*) };
            }
            #[cfg(target_arch = "x86_64")]
            if isa.avx2() {
                // SAFETY: an `Isa` with AVX2 only exists on a CPU that
                // has AVX2, FMA and F16C, the features `avx2` is compiled for.
                return unsafe { avx2($($arg),*) };
            }
            let _ = isa;
            plain($($arg),*)
        }
    };
}
pub(crate) use twin;
