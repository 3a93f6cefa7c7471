//! Inputs that used to panic (an "internal error" diagnostic, or an abort) inside tsr:
//! integer overflow on extreme slice steps, pooling and convolution geometry, and a
//! division by zero. Each now either works (as NumPy / PyTorch would) or fails with
//! an ordinary diagnostic. Issue #8, "No input crashes tsr".

mod common;

use common::{eval, Output};

/// No sign of a panic, whatever the outcome.
fn no_panic(code: &str, out: &Output) {
    for bad in ["panicked", "internal error", "RUST_BACKTRACE"] {
        assert!(
            !out.stderr.contains(bad),
            "`{code}` reported {bad:?}:\n{}",
            out.stderr
        );
    }
}

/// `code` runs and prints `want`.
fn prints(code: &str, want: &str) {
    let out = eval(code);
    no_panic(code, &out);
    assert_eq!(out.code, 0, "`{code}` failed:\n{}", out.stderr);
    assert_eq!(out.stdout, want, "`{code}`");
}

/// `code` fails with exit code 1 and a diagnostic containing `needle`.
fn fails(code: &str, needle: &str) {
    let out = eval(code);
    no_panic(code, &out);
    assert_eq!(out.code, 1, "`{code}`:\n{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.starts_with("Error: ") && out.stderr.contains(needle),
        "`{code}`: expected a diagnostic with {needle:?}, got:\n{}",
        out.stderr
    );
}

#[test]
fn slice_steps_beyond_the_axis_take_one_element() {
    // `stop - start + step - 1` overflowed, and so did negating i64::MIN.
    prints(
        "let m = -9223372036854775807 - 1; let x = [1, 2, 3, 4, 5]; \
         print(x[0:5:9223372036854775807], x[::-9223372036854775807], x[::m])",
        "[1] [5] [5]\n",
    );
    prints(
        "let m = -9223372036854775807 - 1; let t = (1, 2, 3); \
         print(t[::9223372036854775807], t[::m])",
        "(1,) (3,)\n",
    );
    prints(
        "let x = zeros([3]); x[::9223372036854775807] = 1; print(x)",
        "[1. 0. 0.]\n",
    );
}

#[test]
fn slice_strides_times_huge_steps_do_not_overflow() {
    // The new stride, stride × step, overflowed although at most one element is taken.
    prints(
        "let z = zeros([3, 3, 3]); \
         print(z[:, ::4611686018427387904].shape, z[::-4611686018427387904, ::3].shape)",
        "(3, 1, 3) (1, 1, 3)\n",
    );
}

#[test]
fn conv_transpose_of_an_empty_image_is_the_bias() {
    // chunks_exact_mut(0) panicked: "chunk size must be non-zero".
    prints(
        "print(conv_transpose2d(zeros([1, 1, 0, 2]), ones([1, 1, 3, 3]), bias=[2.0]))",
        "[[[[2. 2. 2. 2.]\n   [2. 2. 2. 2.]]]]\n",
    );
}

#[test]
fn conv_without_input_channels_is_zero() {
    // The im2col buffer size divided by the channels per group, 0.
    prints(
        "print(conv2d(zeros([1, 0, 3, 3]), zeros([2, 0, 2, 2])).shape)",
        "(1, 2, 2, 2)\n",
    );
    prints(
        "print(conv1d(zeros([1, 0, 5]), zeros([1, 0, 3]), bias=[1.5]))",
        "[[[1.5 1.5 1.5]]]\n",
    );
}

#[test]
fn conv_transpose_sizes_past_usize_are_an_error() {
    // The product of the output's spatial sizes overflowed.
    fails(
        "conv_transpose2d(zeros([1, 1, 5, 5]), zeros([1, 1, 3, 3]), dilation=4611686018427387904)",
        "conv_transpose2d: sizes are too large",
    );
    fails(
        "conv_transpose2d(zeros([1, 1, 5, 5]), zeros([1, 1, 3, 3]), stride=3037000500)",
        "conv_transpose2d: sizes are too large",
    );
}

#[test]
fn windows_with_huge_stride_padding_and_dilation() {
    // The next row's image offset, stride × row length, overflowed past the last row.
    prints(
        "print(conv2d(ones([1, 1, 5, 5]), ones([1, 1, 3, 3]), padding=[4611686018427387904, 0], \
         dilation=[4611686018427387904, 1], stride=[9223372036854775807, 1]))",
        "[[[[3. 3. 3.]]]]\n",
    );
    prints(
        "print(conv2d(ones([1, 2, 5, 5]), ones([2, 1, 3, 3]), groups=2, \
         padding=[4611686018427387904, 0], dilation=[4611686018427387904, 1], \
         stride=[9223372036854775807, 1]).shape)",
        "(1, 2, 1, 3)\n",
    );
    prints(
        "print(im2col(ones([1, 1, 5, 5]), 3, padding=4611686018427387904, \
         dilation=4611686018427387904, stride=9223372036854775807).shape)",
        "(1, 9, 1)\n",
    );
}

#[test]
fn max_pool_strides_longer_than_the_row() {
    // One phase per unit of stride: 8 GB for a stride of 10^9 (an abort), and a
    // capacity overflow for 2^63 - 1.
    prints(
        "print(max_pool2d(arange(25.0).reshape(1, 1, 5, 5), 2, stride=1000000000))",
        "[[[[6.]]]]\n",
    );
    prints(
        "print(max_pool2d(arange(25.0).reshape(1, 1, 5, 5), 2, ceil_mode=true, \
         stride=9223372036854775807))",
        "[[[[6.]]]]\n",
    );
}

#[test]
fn pooling_kernels_as_large_as_their_padding() {
    // One column offset per kernel tap (2^63 of them), and an overflowing divisor.
    prints(
        "print(max(max_pool2d(arange(25.0).reshape(1, 1, 5, 5), 9223372036854775807, \
         padding=4611686018427387903, stride=1)))",
        "24.0\n",
    );
    prints(
        "print(avg_pool2d(ones([1, 1, 5, 5]), 9223372036854775807, padding=4611686018427387903, \
         count_include_pad=false))",
        "[[[[1.]]]]\n",
    );
    // Kernel offsets past isize::MAX overflowed when made signed.
    fails(
        "max_pool2d(zeros([1, 1, 5, 5]), 3, padding=4611686018427387904, \
         dilation=4611686018427387904)",
        "max_pool2d: sizes are too large",
    );
}

#[test]
fn a_broadcast_past_usize_is_an_error() {
    // The view's element count overflowed when printed (outside the interpreter's
    // panic guard, so the process stopped).
    let out = eval("broadcast_to(zeros([1]), [9223372036854775807, 9223372036854775807])");
    no_panic("broadcast_to", &out);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.starts_with("Error: broadcast"), "{}", out.stderr);
}
