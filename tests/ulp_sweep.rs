//! Accuracy of the vector f32 math (`kernels::math`): a sweep over every 997th
//! f32 bit pattern of both signs (the whole finite range, subnormals included) plus
//! dense neighbourhoods of 0, 1, the overflow and underflow thresholds and multiples
//! of π/2, against f64 references. Asserts the max ulp error stated per function (the
//! table in lang/SPEC.md gives the measured values) and that the AVX2 build and the
//! scalar twin agree bit for bit.

use tsr::kernels::isa::Isa;
use tsr::kernels::math::activation::gelu;
use tsr::kernels::math::apply::{apply_f32, MathFn};

/// Inputs: a strided sweep of all bit patterns, and 2^14 consecutive patterns around
/// each interesting point.
fn inputs() -> Vec<f32> {
    let mut xs: Vec<f32> = (0..u32::MAX / 997)
        .map(|i| f32::from_bits(i * 997))
        .filter(|x| x.is_finite())
        .collect();
    let centers = [
        0.0f32,
        1.0,
        -1.0,
        88.72,
        -87.33,
        -103.97,
        0.5,
        2.0,
        10.0,
        -10.0,
        0.01,
        3.0e-5,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
        100.0 * std::f32::consts::PI,
        20000.0,
        1e-38,
        5.0,
        -5.0,
    ];
    for c in centers {
        let b = c.to_bits() as i64;
        xs.extend((b - 8192..b + 8192).map(|i| f32::from_bits(i as u32)));
    }
    xs.extend([
        f32::INFINITY,
        -f32::INFINITY,
        f32::NAN,
        -0.0,
        f32::MAX,
        f32::MIN,
    ]);
    xs
}

/// |got - want| in units of the f32 ulp at `want` (the spacing of f32 values at its
/// magnitude, 2^-149 in the subnormal range). Infinities and NaN must match exactly.
fn ulp_error(got: f32, want: f64) -> f64 {
    if want.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let rounded = want as f32;
    if rounded.is_infinite() || got.is_infinite() {
        // Beyond f32's range the only right answer is the rounded one (±inf or ±MAX).
        return if got == rounded || (got.is_infinite() && want.abs() > f64::from(f32::MAX)) {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let mag = want.abs().max(f64::from(f32::MIN_POSITIVE));
    let ulp = 2f64.powi(mag.log2().floor() as i32 - 23);
    (f64::from(got) - want).abs() / ulp
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// A function, its f64 reference, and the max ulp error asserted.
type Case = (MathFn, fn(f64) -> f64, f64);

fn cases() -> Vec<Case> {
    vec![
        (MathFn::Exp, f64::exp, 0.9),
        (MathFn::Exp2, f64::exp2, 1.0),
        (MathFn::Ln, f64::ln, 1.0),
        (MathFn::Log2, f64::log2, 1.0),
        (MathFn::Log10, f64::log10, 1.0),
        (MathFn::Sin, f64::sin, 1.0),
        (MathFn::Cos, f64::cos, 1.0),
        (MathFn::Tan, f64::tan, 1.0),
        (MathFn::Tanh, f64::tanh, 0.9),
        (MathFn::Sigmoid, sigmoid, 2.0),
        (MathFn::Silu, |x| x * sigmoid(x), 2.5),
        (
            MathFn::GeluTanh,
            |x| {
                let y = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
                x * sigmoid(2.0 * y)
            },
            1.0,
        ),
        (MathFn::Gelu, gelu, 1.0),
    ]
}

#[test]
fn vector_math_is_within_its_ulp_bound_and_simd_equals_scalar() {
    let xs = inputs();
    let mut report = vec![];
    for (f, reference, bound) in cases() {
        let mut fast = xs.clone();
        apply_f32(Isa::detect(), f, &mut fast);
        let mut plain = xs.clone();
        apply_f32(Isa::SCALAR, f, &mut plain);
        let mut worst = (0.0f64, 0.0f32);
        for ((&x, &g), &p) in xs.iter().zip(&fast).zip(&plain) {
            assert_eq!(
                g.to_bits(),
                p.to_bits(),
                "{f:?}({x:e}): AVX2 {g:e} vs scalar {p:e}"
            );
            let want = reference(f64::from(x));
            let e = ulp_error(g, want);
            if e > worst.0 {
                worst = (e, x);
            }
        }
        report.push(format!("{f:?}: max {:.3} ulp at {:e}", worst.0, worst.1));
        assert!(
            worst.0 <= bound,
            "{f:?}: {:.3} ulp at x = {:e}",
            worst.0,
            worst.1
        );
    }
    println!("{}", report.join("\n"));
}

/// The special functions compute f32 through their f64 definitions and round once:
/// within half an f32 ulp of the f64 function (whose own error, stated in lang/SPEC.md,
/// is some 2^-29 f32 ulps), with the same inf and nan.
#[test]
fn special_functions_round_their_f64_values_once() {
    use tsr::kernels::math::Float;
    type Special = (&'static str, fn(f32) -> f32, fn(f64) -> f64);
    let cases: [Special; 10] = [
        ("erf", Float::erf, tsr::kernels::math::erf::erf),
        ("erfc", Float::erfc, tsr::kernels::math::erf::erfc),
        ("log1p", Float::log1p, f64::ln_1p),
        ("expm1", Float::expm1, f64::exp_m1),
        ("lgamma", Float::lgamma, tsr::kernels::math::special::lgamma),
        (
            "digamma",
            Float::digamma,
            tsr::kernels::math::special::digamma,
        ),
        (
            "trigamma",
            Float::trigamma,
            tsr::kernels::math::special::trigamma,
        ),
        ("sinc", Float::sinc, tsr::kernels::math::special::sinc),
        ("deg2rad", Float::deg2rad, |x| {
            x * (std::f64::consts::PI / 180.0)
        }),
        ("rad2deg", Float::rad2deg, |x| {
            x * (180.0 / std::f64::consts::PI)
        }),
    ];
    let xs = inputs();
    for (name, f, reference) in cases {
        let worst = xs
            .iter()
            .map(|&x| (ulp_error(f(x), reference(f64::from(x))), x))
            .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(
            worst.0 <= 0.5,
            "{name}: {:.3} ulp at x = {:e}",
            worst.0,
            worst.1
        );
    }
}
