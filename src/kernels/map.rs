//! Elementwise maps from strided inputs into a contiguous row-major output. The inner
//! loop is picked by the run's strides: contiguous, a broadcast scalar (stride 0), or
//! general index arithmetic.

use super::strided::{at, for_each_run};
use crate::tensor::Layout;

/// `out[i] = f(a[i])` over the logical elements of `layout`; `out.len()` is its numel.
pub fn unary_map<A: Copy, O>(out: &mut [O], a: &[A], layout: &Layout, f: impl Fn(A) -> O) {
    let mut pos = 0;
    for_each_run([layout], |run| {
        let dst = &mut out[pos..pos + run.len];
        pos += run.len;
        let ([o], [s]) = (run.offsets, run.strides);
        match s {
            1 => {
                let src = &a[o as usize..o as usize + run.len];
                dst.iter_mut().zip(src).for_each(|(d, &x)| *d = f(x));
            }
            0 => {
                let x = a[o as usize];
                dst.iter_mut().for_each(|d| *d = f(x));
            }
            _ => {
                for (j, d) in dst.iter_mut().enumerate() {
                    *d = f(a[at(o, s, j)]);
                }
            }
        }
    });
}

/// `data[o] = f(data[o])` for every storage index `o` that `layout` addresses, in place.
/// The layout must not repeat elements (no stride-0 dim longer than 1), or an element
/// would be mapped twice: ops makes the tensor writable first, which rules that out.
pub fn unary_map_in_place<T: Copy>(data: &mut [T], layout: &Layout, f: impl Fn(T) -> T) {
    for_each_run([layout], |run| {
        let ([o], [s]) = (run.offsets, run.strides);
        if s == 1 {
            let run = &mut data[o as usize..o as usize + run.len];
            run.iter_mut().for_each(|x| *x = f(*x));
        } else {
            for j in 0..run.len {
                let i = at(o, s, j);
                data[i] = f(data[i]);
            }
        }
    });
}

/// `out[i] = f(a[i], b[i])` over two layouts of the same (already broadcast) shape;
/// `out.len()` is their numel.
pub fn binary_map<A: Copy, B: Copy, O>(
    out: &mut [O],
    a: &[A],
    a_layout: &Layout,
    b: &[B],
    b_layout: &Layout,
    f: impl Fn(A, B) -> O,
) {
    let mut pos = 0;
    for_each_run([a_layout, b_layout], |run| {
        let len = run.len;
        let dst = &mut out[pos..pos + len];
        pos += len;
        let ([oa, ob], [sa, sb]) = (run.offsets, run.strides);
        let (ua, ub) = (oa as usize, ob as usize);
        match (sa, sb) {
            (1, 1) => {
                let pairs = a[ua..ua + len].iter().zip(&b[ub..ub + len]);
                dst.iter_mut()
                    .zip(pairs)
                    .for_each(|(d, (&x, &y))| *d = f(x, y));
            }
            (0, 1) => {
                let x = a[ua];
                let src = &b[ub..ub + len];
                dst.iter_mut().zip(src).for_each(|(d, &y)| *d = f(x, y));
            }
            (1, 0) => {
                let y = b[ub];
                let src = &a[ua..ua + len];
                dst.iter_mut().zip(src).for_each(|(d, &x)| *d = f(x, y));
            }
            _ => {
                for (j, d) in dst.iter_mut().enumerate() {
                    *d = f(a[at(oa, sa, j)], b[at(ob, sb, j)]);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
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

    fn gather(data: &[i64], l: &Layout) -> Vec<i64> {
        StridedIter::new(l).map(|o| data[o]).collect()
    }

    #[test]
    fn unary_matches_a_plain_walk() {
        let data: Vec<i64> = (0..24).collect();
        for l in views() {
            assert_eq!(l.shape, vec![3, 4]);
            let mut out = vec![0i64; 12];
            unary_map(&mut out, &data, &l, |x| x * 10 + 1);
            let want: Vec<i64> = gather(&data, &l).iter().map(|x| x * 10 + 1).collect();
            assert_eq!(out, want, "{l:?}");
        }
    }

    #[test]
    fn binary_matches_a_plain_walk_for_every_pair_of_views() {
        let a: Vec<i64> = (0..24).collect();
        let b: Vec<i64> = (100..124).collect();
        for la in views() {
            for lb in views() {
                let mut out = vec![0i64; 12];
                binary_map(&mut out, &a, &la, &b, &lb, |x, y| x * 1000 + y);
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
            unary_map_in_place(&mut data, &l, |x| x + 1000);
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
        unary_map_in_place(&mut one, &Layout::contiguous(&[]), |x| -x);
        assert_eq!(one, [-5]);
    }

    #[test]
    fn zero_d_and_empty() {
        let mut out = [0u8; 1];
        binary_map(
            &mut out,
            &[3u8],
            &Layout::contiguous(&[]),
            &[4u8],
            &Layout::contiguous(&[]),
            |x, y| x + y,
        );
        assert_eq!(out, [7]);
        let mut none: [u8; 0] = [];
        unary_map(&mut none, &[] as &[u8], &Layout::contiguous(&[2, 0]), |x| x);
    }
}
