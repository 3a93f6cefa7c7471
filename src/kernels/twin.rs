//! Portable SIMD by compiling twice: a kernel body is written once as plain, branch-free
//! Rust over slices, and `twin!` builds it both inside an
//! `#[target_feature(enable = "avx2,fma,f16c")]` function (LLVM autovectorizes it to
//! AVX2) and as the plain scalar twin, picking one at run time from an `Isa`. Rust never
//! fuses a multiply and an add on its own, so both builds round identically and give the
//! same bits. On aarch64 NEON is the baseline, so the plain build is the NEON build
//! (untested here: the CI machines are x86-64).

/// Defines `fn $name(isa: Isa, args...)` running `$body` built for AVX2+FMA+F16C when
/// `isa` allows it, and the plain build otherwise. Generic parameters go in brackets:
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
            if isa.avx2() {
                // SAFETY: an `Isa` with AVX2 only comes from `Isa::detect` on a CPU that
                // has AVX2, FMA and F16C, the features `avx2` is compiled for.
                return unsafe { avx2($($arg),*) };
            }
            let _ = isa;
            plain($($arg),*)
        }
    };
}
pub(crate) use twin;
