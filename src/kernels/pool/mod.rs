//! 2-d pooling over [height, width] planes: the window descriptions (`window`), the
//! portable kernels (`plane`) and the AVX2 max pooling beside them (`avx2`).

#[cfg(target_arch = "x86_64")]
mod avx2;
pub(crate) mod plane;
pub(crate) mod window;

pub use plane::{
    for_each_plane, max_pool_new, max_pool_plane, max_pool_plane_f32, pool2d, MaxPoolPlane,
};
pub use window::{ColumnTaps, MaxPool};
