//! builtins
