//! shape ops.
