//! 2-d pooling over [height, width] planes: the window descriptions (`window`), the
//! portable kernels (`plane`), the AVX2 max pooling beside them (`avx2`) and the
//! positions max pooling takes, for its gradient (`positions`).

#[cfg(target_arch = "x86_64")]
mod avx2;
pub(crate) mod plane;
mod positions;
pub(crate) mod window;

pub use plane::{
    for_each_plane, max_pool_new, max_pool_plane, max_pool_plane_f32, pool2d, MaxPoolPlane,
};
pub use positions::max_positions;
pub use window::{ColumnTaps, MaxPool};
