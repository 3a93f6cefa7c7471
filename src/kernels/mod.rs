//! Raw-slice kernels: generic over the element type, told shapes and strides explicitly.
//! They never see a `Tensor`, never allocate results and never validate user input:
//! `ops` checks arguments, allocates the output and picks the kernel.
//!
//! # Rooms
//!
//! Plumbing sits at the top: `isa` (which SIMD kernels may run), `twin` (one body built
//! for AVX-512, for AVX2 and as its scalar twin), `parallel` (fixed-chunk parallel loops
//! that stop on Ctrl-C), `interrupt` (the Ctrl-C flag), `alloc` (output buffers),
//! `stream` (large results written in pieces with stores that bypass the cache),
//! `prefetch` (hints for scans that stream from memory), `cache` (the cache line, and
//! the data cache sizes blocking may use), `base_register` (pointer steps that keep a
//! kernel's operands in base registers) and `strided` (runs of a strided layout). The
//! rooms below use the plumbing and each other only downward:
//!
//! * `math/`: the scalar definitions every kernel and its twin share: element
//!   arithmetic (`Arith`, `Float`), exp/log/trig, erf, the activations, and `apply`,
//!   which runs one of those functions over a slice;
//! * `reduce/`: sums (pairwise, in a fixed tree), extremes and lane reductions;
//! * `radix`: order-preserving keys of every dtype and the stable radix sorts (a row,
//!   a long row across threads, an argsort) that `sort` uses;
//! * `sort`: sorting, ranking and selection (top k, order statistics) row by row;
//! * `transpose`: the transpose of a row-major matrix, in parallel;
//! * `elementwise/`: unary and binary maps over layouts, and softmax / norms per lane;
//! * `linalg/`: matrix views, the GEMM and its micro-kernels, matmul for every type,
//!   and the tile GEMM of quantized matmul;
//! * `factor/`: LU, triangular solves, Cholesky and Householder QR on that GEMM,
//!   blocked by constants so their bits depend on no CPU;
//! * `conv/`: convolution windows, im2col / col2im, the blocked f32 and Winograd
//!   convolutions and depthwise convolution;
//! * `pool/`: pooling windows and kernels.
//!
//! Each ISA variant (`*_avx2`, `avx2`, or both widths in one file such as
//! `conv/depthwise_3x3`) lives beside its scalar twin, and the types both use live in a
//! third file below them, so no two files import each other.

pub mod alloc;
pub(crate) mod base_register;
pub(crate) mod cache;
pub(crate) mod conv;
pub(crate) mod elementwise;
pub(crate) mod factor;
pub(crate) mod histogram;
pub(crate) mod interrupt;
pub mod isa;
pub(crate) mod key_sort;
pub mod linalg;
pub mod math;
pub mod parallel;
pub(crate) mod pool;
pub(crate) mod prefetch;
pub(crate) mod quicksort;
pub(crate) mod radix;
pub(crate) mod reduce;
pub(crate) mod sort;
pub mod stream;
pub(crate) mod strided;
#[cfg(test)]
pub(crate) mod test_bits;
pub(crate) mod transpose;
#[cfg(target_arch = "x86_64")]
pub(crate) mod transpose16;
pub(crate) mod twin;
