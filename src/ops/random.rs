//! random ops.
