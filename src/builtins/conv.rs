//! conv builtins.

use super::Builtin;

pub const BUILTINS: &[Builtin] = &[];
