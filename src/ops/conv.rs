//! conv ops.
