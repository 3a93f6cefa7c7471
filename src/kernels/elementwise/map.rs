//! Elementwise maps from strided inputs into a contiguous row-major output. The output
//! is cut into fixed chunks (`ELEMENTWISE_CHUNK`, never a function of the thread count)
//! computed in parallel, each by a ranged walk from its first logical element; the inner
//! loop is picked by the run's strides: contiguous, a broadcast scalar (stride 0), or
//! general index arithmetic. The contiguous loops are `twin!` kernels, so per-element
//! functions written branch-free (arithmetic, comparisons, `simd::math`) run as AVX2.
//! A tensor at most one chunk long runs on the calling thread without allocating.

use std::mem::MaybeUninit;

use crate::kernels::alloc::{assume_written, filled};
use crate::kernels::isa::Isa;
use crate::kernels::math::{Float, MathFn};
use crate::kernels::parallel::{for_each_chunk_mut, ELEMENTWISE_CHUNK};
use crate::kernels::strided::{at, for_each_run, for_each_run_in, Span};
use crate::kernels::twin::twin;
use crate::tensor::{Elem, Layout};

twin! {
    fn map1[A: Copy, O, F: Fn(A) -> O](dst: &mut [O], src: &[A], f: &F) {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = f(x);
        }
    }
}

twin! {
    fn map1_in_place[T: Copy, F: Fn(T) -> T](xs: &mut [T], f: &F) {
        for x in xs.iter_mut() {
            *x = f(*x);
        }
    }
}

twin! {
    fn map2[A: Copy, B: Copy, O, F: Fn(A, B) -> O](dst: &mut [O], a: &[A], b: &[B], f: &F) {
        for (d, (&x, &y)) in dst.iter_mut().zip(a.iter().zip(b)) {
            *d = f(x, y);
        }
    }
}

twin! {
    fn map2_left_scalar[A: Copy, B: Copy, O, F: Fn(A, B) -> O](dst: &mut [O], x: A, b: &[B], f: &F) {
        for (d, &y) in dst.iter_mut().zip(b) {
            *d = f(x, y);
        }
    }
}

twin! {
    fn map2_right_scalar[A: Copy, B: Copy, O, F: Fn(A, B) -> O](dst: &mut [O], a: &[A], y: B, f: &F) {
        for (d, &x) in dst.iter_mut().zip(a) {
            *d = f(x, y);
        }
    }
}

/// `out[i] = f(a[i])` over the logical elements of `layout` (`out.len()` is its
/// numel), then `post` on each finished chunk of the output while it is still in
/// cache (the vector math of `simd::math` runs as such a pass over converted inputs).
fn unary_map_then<A, O>(
    isa: Isa,
    out: &mut [O],
    a: &[A],
    layout: &Layout,
    f: impl Fn(A) -> O + Sync + Send,
    post: impl Fn(&mut [O]) + Sync + Send,
) where
    A: Copy + Sync,
    O: Copy + Send,
{
    for_each_chunk_mut(out, ELEMENTWISE_CHUNK, |start, chunk| {
        let span = Span {
            start,
            count: chunk.len(),
        };
        let mut pos = 0;
        for_each_run_in([layout], span, |run| {
            let dst = &mut chunk[pos..pos + run.len];
            pos += run.len;
            let ([o], [s]) = (run.offsets, run.strides);
            match s {
                1 => map1(isa, dst, &a[o as usize..o as usize + run.len], &f),
                0 => dst.fill(f(a[o as usize])),
                _ => {
                    for (j, d) in dst.iter_mut().enumerate() {
                        *d = f(a[at(o, s, j)]);
                    }
                }
            }
        });
        post(chunk);
    });
}

/// `unary_map_then` into a new buffer of `layout`'s numel (`None` when it cannot be
/// allocated).
pub fn unary_map_then_new<A, O>(
    isa: Isa,
    a: &[A],
    layout: &Layout,
    f: impl Fn(A) -> O + Sync + Send,
    post: impl Fn(&mut [O]) + Sync + Send,
) -> Option<Vec<O>>
where
    A: Copy + Sync,
    O: Elem,
{
    let f = |x| MaybeUninit::new(f(x));
    // SAFETY: `post` runs on each chunk right after `unary_map_then` has written it.
    let post = |chunk: &mut [MaybeUninit<O>]| post(unsafe { assume_written(chunk) });
    // SAFETY: `unary_map_then` writes every element of its output: the runs of each
    // chunk's walk tile the chunk, and only an interrupt skips chunks.
    unsafe {
        filled(layout.numel(), |out| {
            unary_map_then(isa, out, a, layout, f, post)
        })
    }
}

/// `f` of every element of the dense slice `src` into a new buffer, chunk by chunk in
/// parallel with `Float::math_into` (one pass over memory for f32); `None` when the
/// buffer cannot be allocated.
pub fn math_map_new<T: Float>(isa: Isa, f: MathFn, src: &[T]) -> Option<Vec<T>> {
    // SAFETY: `math_into` writes the first `min` of its two lengths, which are equal
    // here, and the chunks tile the output (only an interrupt skips chunks).
    unsafe {
        filled(src.len(), |out| {
            for_each_chunk_mut(out, ELEMENTWISE_CHUNK, |start, chunk| {
                T::math_into(isa, f, &src[start..start + chunk.len()], chunk)
            })
        })
    }
}

/// `f` of every logical element of `layout` into a new buffer of `layout`'s numel (`None` when it cannot be
/// allocated).
pub fn unary_map_new<A, O>(
    isa: Isa,
    a: &[A],
    layout: &Layout,
    f: impl Fn(A) -> O + Sync + Send,
) -> Option<Vec<O>>
where
    A: Copy + Sync,
    O: Elem,
{
    unary_map_then_new(isa, a, layout, f, |_: &mut [O]| {})
}

/// `data[o] = f(data[o])` for every storage index `o` that `layout` addresses, in place,
/// then `post` over the results. A dense layout is mapped in parallel chunks; others
/// run by runs (`post` then sees each run, or each element of a strided run).
/// The layout must not repeat elements (no stride-0 dim longer than 1), or an element
/// would be mapped twice: ops makes the tensor writable first, which rules that out.
pub fn unary_map_in_place<T>(
    isa: Isa,
    data: &mut [T],
    layout: &Layout,
    f: impl Fn(T) -> T + Sync + Send,
    post: impl Fn(&mut [T]) + Sync + Send,
) where
    T: Copy + Send + Sync,
{
    if layout.is_contiguous() {
        let n = layout.numel();
        let dense = &mut data[layout.offset..layout.offset + n];
        for_each_chunk_mut(dense, ELEMENTWISE_CHUNK, |_, chunk| {
            map1_in_place(isa, chunk, &f);
            post(chunk);
        });
        return;
    }
    for_each_run([layout], |run| {
        let ([o], [s]) = (run.offsets, run.strides);
        if s == 1 {
            let run = &mut data[o as usize..o as usize + run.len];
            map1_in_place(isa, run, &f);
            post(run);
        } else {
            for j in 0..run.len {
                let x = &mut data[at(o, s, j)];
                *x = f(*x);
                post(std::slice::from_mut(x));
            }
        }
    });
}

/// `out[i] = f(a[i], b[i])` over two layouts of the same (already broadcast) shape;
/// `out.len()` is their numel. Row broadcasting (`[m, n] + [n]`) is a contiguous pair
/// of runs per row; scalar and column broadcasting are the stride-0 loops.
fn binary_map<A, B, O>(
    isa: Isa,
    out: &mut [O],
    a: &[A],
    a_layout: &Layout,
    b: &[B],
    b_layout: &Layout,
    f: impl Fn(A, B) -> O + Sync + Send,
) where
    A: Copy + Sync,
    B: Copy + Sync,
    O: Copy + Send,
{
    for_each_chunk_mut(out, ELEMENTWISE_CHUNK, |start, chunk| {
        let span = Span {
            start,
            count: chunk.len(),
        };
        let mut pos = 0;
        for_each_run_in([a_layout, b_layout], span, |run| {
            let len = run.len;
            let dst = &mut chunk[pos..pos + len];
            pos += len;
            let ([oa, ob], [sa, sb]) = (run.offsets, run.strides);
            let (ua, ub) = (oa as usize, ob as usize);
            match (sa, sb) {
                (1, 1) => map2(isa, dst, &a[ua..ua + len], &b[ub..ub + len], &f),
                (0, 1) => map2_left_scalar(isa, dst, a[ua], &b[ub..ub + len], &f),
                (1, 0) => map2_right_scalar(isa, dst, &a[ua..ua + len], b[ub], &f),
                (0, 0) => dst.fill(f(a[ua], b[ub])),
                _ => {
                    for (j, d) in dst.iter_mut().enumerate() {
                        *d = f(a[at(oa, sa, j)], b[at(ob, sb, j)]);
                    }
                }
            }
        });
    });
}

/// `binary_map` into a new buffer of the layouts' numel (`None` when it cannot be
/// allocated).
pub fn binary_map_new<A, B, O>(
    isa: Isa,
    a: &[A],
    a_layout: &Layout,
    b: &[B],
    b_layout: &Layout,
    f: impl Fn(A, B) -> O + Sync + Send,
) -> Option<Vec<O>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    O: Elem,
{
    let f = |x, y| MaybeUninit::new(f(x, y));
    // SAFETY: `binary_map` writes every element of its output: the runs of each chunk's
    // walk tile the chunk, and only an interrupt skips chunks.
    unsafe {
        filled(a_layout.numel(), |out| {
            binary_map(isa, out, a, a_layout, b, b_layout, f)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parallel::with_threads;
    use crate::tensor::iter::StridedIter;
    use crate::tensor::SliceSpec;

    /// Layouts of shape [3, 4] over a 24-element buffer: contiguous, transposed,
    /// reversed with a step, and three kinds of broadcast.
    fn views() -> Vec<Layout> {
        let rev = SliceSpec {
            start: None,
            stop: None,
            step: -2,
        };
        vec![
            Layout::contiguous(&[3, 4]),
            Layout::contiguous(&[4, 3]).transpose(0, 1),
            Layout::contiguous(&[3, 8]).slice(1, rev).unwrap(),
            Layout::contiguous(&[4]).broadcast_to(&[3, 4]).unwrap(),
            Layout::contiguous(&[3, 1]).broadcast_to(&[3, 4]).unwrap(),
            Layout::contiguous(&[]).broadcast_to(&[3, 4]).unwrap(),
        ]
    }

    fn isas() -> [Isa; 2] {
        [Isa::SCALAR, Isa::detect()]
    }

    fn gather(data: &[i64], l: &Layout) -> Vec<i64> {
        StridedIter::new(l).map(|o| data[o]).collect()
    }

    #[test]
    fn unary_matches_a_plain_walk() {
        let data: Vec<i64> = (0..24).collect();
        for l in views() {
            assert_eq!(l.shape, vec![3, 4]);
            for isa in isas() {
                let out = unary_map_new(isa, &data, &l, |x| x * 10 + 1).unwrap();
                let want: Vec<i64> = gather(&data, &l).iter().map(|x| x * 10 + 1).collect();
                assert_eq!(out, want, "{l:?}");
            }
        }
    }

    #[test]
    fn binary_matches_a_plain_walk_for_every_pair_of_views() {
        let a: Vec<i64> = (0..24).collect();
        let b: Vec<i64> = (100..124).collect();
        for la in views() {
            for lb in views() {
                let mut out = vec![0i64; 12];
                binary_map(Isa::detect(), &mut out, &a, &la, &b, &lb, |x, y| {
                    x * 1000 + y
                });
                let want: Vec<i64> = gather(&a, &la)
                    .iter()
                    .zip(gather(&b, &lb))
                    .map(|(x, y)| x * 1000 + y)
                    .collect();
                assert_eq!(out, want, "{la:?} {lb:?}");
            }
        }
    }

    #[test]
    fn in_place_writes_exactly_the_addressed_elements() {
        // The non-broadcast views: each maps its 12 elements and leaves the rest alone.
        for l in views().into_iter().take(3) {
            let mut data: Vec<i64> = (0..24).collect();
            unary_map_in_place(Isa::detect(), &mut data, &l, |x| x + 1000, |_| {});
            let touched: Vec<usize> = StridedIter::new(&l).collect();
            for (i, &x) in data.iter().enumerate() {
                let want = if touched.contains(&i) {
                    i as i64 + 1000
                } else {
                    i as i64
                };
                assert_eq!(x, want, "{l:?} element {i}");
            }
        }
        let mut one = [5i64];
        unary_map_in_place(
            Isa::SCALAR,
            &mut one,
            &Layout::contiguous(&[]),
            |x| -x,
            |_| {},
        );
        assert_eq!(one, [-5]);
    }

    #[test]
    fn zero_d_and_empty() {
        let mut out = [0u8; 1];
        binary_map(
            Isa::SCALAR,
            &mut out,
            &[3u8],
            &Layout::contiguous(&[]),
            &[4u8],
            &Layout::contiguous(&[]),
            |x, y| x + y,
        );
        assert_eq!(out, [7]);
        let none = unary_map_new(
            Isa::SCALAR,
            &[] as &[u8],
            &Layout::contiguous(&[2, 0]),
            |x| x,
        );
        assert_eq!(none, Some(vec![]));
    }

    /// Values with NaN, ±inf, ±0, subnormals and ordinary numbers.
    fn awkward(n: usize, seed: u32) -> Vec<f32> {
        let special = [
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            0.0,
            -0.0,
            1e-40,
            -3e-39,
        ];
        (0..n as u32)
            .map(|i| {
                let h = (i ^ seed).wrapping_mul(0x9e37_79b9).rotate_left(13);
                if h.is_multiple_of(97) {
                    special[(h / 97) as usize % special.len()]
                } else {
                    (h % 20001) as f32 * 0.01 - 100.0
                }
            })
            .collect()
    }

    /// Big enough to split into chunks; shapes that hit every inner loop.
    #[test]
    fn simd_scalar_and_any_thread_count_give_the_same_bits() {
        let (rows, cols) = (300, 1000);
        let a = awkward(rows * cols, 1);
        let b = awkward(rows * cols, 2);
        let full = Layout::contiguous(&[rows, cols]);
        let row = Layout::contiguous(&[cols])
            .broadcast_to(&[rows, cols])
            .unwrap();
        let col = Layout::contiguous(&[rows, 1])
            .broadcast_to(&[rows, cols])
            .unwrap();
        let scalar = Layout::contiguous(&[]).broadcast_to(&[rows, cols]).unwrap();
        let transposed = Layout::contiguous(&[cols, rows]).transpose(0, 1);
        let ops: [fn(f32, f32) -> f32; 6] = [
            |x, y| x + y,
            |x, y| x - y,
            |x, y| x * y,
            |x, y| x / y,
            crate::kernels::math::arith::Arith::maximum,
            crate::kernels::math::arith::Arith::minimum,
        ];
        for lb in [&full, &row, &col, &scalar, &transposed] {
            for f in ops {
                let run = |isa: Isa| {
                    let mut out = vec![0f32; rows * cols];
                    binary_map(isa, &mut out, &a, &full, &b, lb, f);
                    out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                };
                let want = with_threads(1, || run(Isa::SCALAR));
                let naive: Vec<u32> = StridedIter::new(&full)
                    .zip(StridedIter::new(lb))
                    .map(|(i, j)| f(a[i], b[j]).to_bits())
                    .collect();
                assert_eq!(want, naive);
                assert_eq!(with_threads(2, || run(Isa::detect())), want);
                assert_eq!(with_threads(3, || run(Isa::detect())), want);
                // Integers too (wrapping), scalar on the left.
                let ia: Vec<i32> = a.iter().map(|&v| v as i32).collect();
                let mut got = vec![0i32; rows * cols];
                binary_map(
                    Isa::detect(),
                    &mut got,
                    &ia,
                    &scalar,
                    &ia,
                    &full,
                    |x: i32, y| x.wrapping_mul(y).wrapping_add(1),
                );
                let naive: Vec<i32> = ia
                    .iter()
                    .map(|&y| ia[0].wrapping_mul(y).wrapping_add(1))
                    .collect();
                assert_eq!(got, naive);
            }
        }
        let unary = |isa: Isa, l: &Layout| {
            let out = unary_map_new(isa, &a, l, |x: f32| x * x - 1.0).unwrap();
            out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        };
        for l in [&full, &transposed] {
            let want = with_threads(1, || unary(Isa::SCALAR, l));
            assert_eq!(with_threads(3, || unary(Isa::detect(), l)), want);
        }
    }
}
