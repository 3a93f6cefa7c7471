//! Settings shared by the criterion benches: few samples, short runs, since the
//! kernels measured take milliseconds and the machine is shared (compare medians).

use std::time::Duration;

use criterion::Criterion;

pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}
