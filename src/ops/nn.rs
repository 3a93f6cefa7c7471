//! nn ops.
