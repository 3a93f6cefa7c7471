//! `builtin!`: a builtin's parameters declared once — names and aliases, Rust
//! type, default as a tsr literal — from which come the binding, the typed
//! conversion of each argument (the body receives typed values), the applied
//! default and the signature `:help` and the SPEC table show.
//!
//! ```text
//! builtin! {
//!     name: "sum",
//!     doc: "Sum over ...",
//!     fn(_, a; x: Tensor, axis|dim: Option<Axes> = none, keepdim|keepdims: bool = false) {
//!         reduce(&a, ReduceOp::Sum, x, axis, keepdim)
//!     }
//! }
//! ```
//! An optional `grad: Constant,` line after `doc` marks a builtin whose float
//! results take no gradient (see [`Grad`](super::Grad)).
//! `_` (or a name) is the [`Ctx`](super::Ctx), `a` the [`Bound`](super::Bound)
//! for errors at the call. A parameter of type [`Rest`](super::from_arg::Rest)
//! is `*name`; parameters after it are keyword-only.

/// Declares a builtin; see the [module docs](self).
macro_rules! builtin {
    (
        name: $name:expr,
        doc: $doc:expr,
        $(grad: $grad:ident,)?
        fn($ctx:tt, $a:tt $(; $($p:ident $(| $alias:ident)* : $ty:ty $(= $def:expr)?),* $(,)?)?)
        $body:block
    ) => {
        $crate::runtime::Builtin {
            name: $name,
            params: &[$($($crate::runtime::Param {
                names: &[stringify!($p) $(, stringify!($alias))*],
                default: $crate::runtime::declare::default_text!($($def)?),
                variadic: <$ty as $crate::runtime::FromArg>::VARIADIC,
            }),*)?],
            doc: $doc,
            grad: $crate::runtime::declare::grad_kind!($($grad)?),
            func: |$ctx, $a| {
                $($(let $p: $ty = $a.next_arg()?;)*)?
                $body
            },
        }
    };
}

/// The declared default as the text a signature shows.
macro_rules! default_text {
    () => {
        None
    };
    ($d:expr) => {
        Some(stringify!($d))
    };
}

/// The declared gradient kind; `Recorded` unless given.
macro_rules! grad_kind {
    () => {
        $crate::runtime::Grad::Recorded
    };
    ($g:ident) => {
        $crate::runtime::Grad::$g
    };
}

pub(crate) use builtin;
pub(crate) use default_text;
pub(crate) use grad_kind;
