//! pool ops.
