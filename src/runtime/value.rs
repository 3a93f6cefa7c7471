//! Runtime values. Scalars are unboxed (a loop counter never allocates a tensor);
//! tensors are cheap to clone (shared storage, copy-on-write).

use std::fmt::Write as _;
use std::rc::Rc;

use indexmap::IndexMap;

use crate::autograd::rules::VarOperand;
use crate::autograd::Var;
use crate::ops::Operand;
use crate::quant::QTensor;
use crate::syntax::ast::{Block, Expr, Frame};
use crate::tensor::format::{format_float_repr, format_tensor, PrintOptions};
use crate::tensor::shape::shape_str;
use crate::tensor::{budget, Category, DType, Scalar, Tensor, TensorError};

use super::scope::Scope;

#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    // Boxed: inline, a tensor's shape and strides would make every value (an int
    // included) 80 bytes to move and to tell apart. A `Var` derefs to its tensor.
    Tensor(Box<Var>),
    Tuple(Rc<Items>),
    Dict(Rc<Dict>),
    /// `range(start, stop, step)`: iterated lazily.
    Range(i64, i64, i64),
    DType(DType),
    Func(Rc<Closure>),
    Builtin(&'static super::native::Builtin),
    Module(Rc<Module>),
    /// A quantized tensor (GGML blocks), possibly viewed transposed (`q.T`).
    Quant(QuantValue),
    /// A tensor in a memory-mapped file, read the first time it is taken out of its dict.
    Lazy(Rc<Lazy>),
    /// `grad(f)` or `value_and_grad(f)`: calling it differentiates `f`.
    Grad(Rc<GradFn>),
}

/// A function that differentiates `f` with respect to its arguments `argnums`.
#[derive(Debug)]
pub struct GradFn {
    pub f: Value,
    pub argnums: Argnums,
    /// `value_and_grad`: the call gives `(value, gradients)`.
    pub with_value: bool,
}

/// `argnums=`: one argument (its gradient alone) or several (a tuple of them).
#[derive(Clone, Debug)]
pub enum Argnums {
    One(usize),
    Many(Vec<usize>),
}

impl Argnums {
    pub fn positions(&self) -> &[usize] {
        match self {
            Argnums::One(i) => std::slice::from_ref(i),
            Argnums::Many(v) => v,
        }
    }
}

/// A tensor produced on first use (and then kept), e.g. a dense tensor of a GGUF
/// file. What it will be is known without loading it, so `info` never forces it.
pub struct Lazy {
    /// The element type: a dtype (`f32`) or a quantized type (`q4_k`).
    pub type_name: &'static str,
    pub shape: Vec<usize>,
    /// Bytes of data the tensor holds once loaded.
    pub nbytes: usize,
    load: Box<dyn Fn() -> Result<Value, String>>,
    cache: std::cell::OnceCell<Value>,
}

impl Lazy {
    pub fn new(
        type_name: &'static str,
        shape: Vec<usize>,
        nbytes: usize,
        load: Box<dyn Fn() -> Result<Value, String>>,
    ) -> Lazy {
        Lazy {
            type_name,
            shape,
            nbytes,
            load,
            cache: std::cell::OnceCell::new(),
        }
    }

    /// `f32[4096, 4096]`, shown until the value is loaded.
    pub fn type_line(&self) -> String {
        format!("{}{}", self.type_name, shape_str(&self.shape))
    }

    pub fn force(&self) -> Result<Value, String> {
        if let Some(v) = self.cache.get() {
            return Ok(v.clone());
        }
        let v = (self.load)()?;
        Ok(self.cache.get_or_init(|| v).clone())
    }
}

impl std::fmt::Debug for Lazy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<mapped {}>", self.type_line())
    }
}

/// A quantized tensor value; `transposed` marks `q.T`, which `x @ q.T` consumes
/// without dequantizing.
#[derive(Clone, Debug)]
pub struct QuantValue {
    pub q: Rc<QTensor>,
    pub transposed: bool,
}

impl QuantValue {
    /// The shape as the user sees it (reversed by `.T`).
    pub fn shape(&self) -> Vec<usize> {
        let mut s = self.q.shape.clone();
        if self.transposed && s.len() >= 2 {
            let n = s.len();
            s.swap(n - 2, n - 1);
        }
        s
    }

    /// `q4_k[4096, 4096]`
    pub fn type_line(&self) -> String {
        let dims: Vec<String> = self.shape().iter().map(|d| d.to_string()).collect();
        format!("{}[{}]", self.q.qtype.name(), dims.join(", "))
    }
}

/// A tuple's items (dropped without recursing into nested tuples: see `teardown`).
#[derive(Clone, Debug, Default)]
pub struct Items(Vec<Value>);

impl Items {
    /// Moves every item out, leaving the tuple empty.
    pub(super) fn take_all(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.0)
    }
}

impl std::ops::Deref for Items {
    type Target = Vec<Value>;

    fn deref(&self) -> &Vec<Value> {
        &self.0
    }
}

impl std::ops::DerefMut for Items {
    fn deref_mut(&mut self) -> &mut Vec<Value> {
        &mut self.0
    }
}

impl From<Vec<Value>> for Items {
    fn from(items: Vec<Value>) -> Items {
        Items(items)
    }
}

impl FromIterator<Value> for Items {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Items {
        Items(iter.into_iter().collect())
    }
}

/// An insertion-ordered dictionary with string, int or bool keys, looked up by hash.
#[derive(Clone, Debug, Default)]
pub struct Dict {
    pub entries: IndexMap<Key, Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Str(Rc<str>),
    Int(i64),
    Bool(bool),
}

impl Key {
    /// The key `v` is, or the error of a value that cannot be one, at `at`.
    pub fn of(v: &Value, at: crate::span::Span) -> Result<Key, crate::diag::Diagnostic> {
        Key::from_value(v).ok_or_else(|| {
            crate::diag::Diagnostic::new(
                at,
                format!(
                    "dict keys must be strings, ints or bools, not {}",
                    v.describe()
                ),
            )
            .with_kind(crate::diag::ErrorKind::Type)
        })
    }

    pub fn from_value(v: &Value) -> Option<Key> {
        match v {
            Value::Str(s) => Some(Key::Str(s.clone())),
            Value::Int(i) => Some(Key::Int(*i)),
            Value::Bool(b) => Some(Key::Bool(*b)),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Key::Str(s) => Value::Str(s.clone()),
            Key::Int(i) => Value::Int(*i),
            Key::Bool(b) => Value::Bool(*b),
        }
    }
}

impl Dict {
    pub fn get(&self, key: &Key) -> Option<&Value> {
        self.entries.get(key)
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.entries.iter()
    }

    /// Sets `key`'s value: a new key goes last, an existing one keeps its place.
    pub fn insert(&mut self, key: Key, value: Value) {
        self.entries.insert(key, value);
    }

    /// [`Dict::insert`] for a script growing a dict, held to the memory limit first.
    pub fn grow(&mut self, key: Key, value: Value) -> Result<(), TensorError> {
        if !self.entries.contains_key(&key) {
            let entry = std::mem::size_of::<(u64, Key, Value)>();
            budget::check_items("dict", "a dict", self.entries.len() + 1, entry)?;
        }
        self.insert(key, value);
        Ok(())
    }
}

/// What a function body is: a named `fn` has a block, a lambda an expression.
#[derive(Debug)]
pub enum Body {
    Block(Block),
    Expr(Expr),
}

/// Parameter names with their default values (evaluated where the function is defined).
pub type Params = Vec<(Rc<str>, Option<Value>)>;

/// A user function with the scope it was defined in and its evaluated defaults.
#[derive(Debug)]
pub struct Closure {
    pub name: Rc<str>,
    pub params: Params,
    pub body: Body,
    /// The names a call's scope holds: the parameters, then those the body binds.
    pub frame: Frame,
    pub scope: Rc<Scope>,
}

/// A module: an imported file or a stdlib module, with its top-level names.
#[derive(Debug)]
pub struct Module {
    pub name: String,
    pub scope: Rc<Scope>,
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Value {
        Value::Tensor(Box::new(Var::constant(t)))
    }
}

impl From<Var> for Value {
    fn from(v: Var) -> Value {
        Value::Tensor(Box::new(v))
    }
}

impl Value {
    /// The value's kind, as named in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "none",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::Tensor(_) => "tensor",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Range(..) => "range",
            Value::DType(_) => "dtype",
            Value::Func(_) | Value::Builtin(_) | Value::Grad(_) => "function",
            Value::Module(_) => "module",
            Value::Quant(_) => "quantized tensor",
            Value::Lazy(_) => "mapped tensor",
        }
    }

    /// A description for labels: `tensor f32[2, 3]`, `int`, ...
    pub fn describe(&self) -> String {
        match self {
            Value::Tensor(t) => format!("tensor {}", type_line(t)),
            Value::Quant(q) => format!("quantized tensor {}", q.type_line()),
            other => other.kind().to_string(),
        }
    }

    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    #[inline(always)]
    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Value::Bool(b) => Some(Scalar::Bool(*b)),
            Value::Int(i) => Some(Scalar::Int(*i)),
            Value::Float(f) => Some(Scalar::Float(*f)),
            _ => None,
        }
    }

    /// A tensor or a weak scalar, as binary ops take them.
    pub fn as_operand(&self) -> Option<Operand<'_>> {
        match self {
            Value::Tensor(t) => Some(Operand::Tensor(t)),
            other => other.as_scalar().map(Operand::Scalar),
        }
    }

    /// [`Value::as_operand`] keeping the tensor's track, for recorded ops.
    pub fn as_var_operand(&self) -> Option<VarOperand<'_>> {
        match self {
            Value::Tensor(t) => Some(VarOperand::Var(t)),
            other => other.as_scalar().map(VarOperand::Scalar),
        }
    }

    #[inline]
    pub fn from_scalar(s: Scalar) -> Value {
        match s {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Int(i),
            Scalar::Float(f) => Value::Float(f),
        }
    }

    /// An integer: an int scalar, or a one-element integer tensor.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Tensor(t) if t.dtype().is_int() && t.ndim() == 0 => t.item_i64(),
            _ => None,
        }
    }

    /// A real number: an int or float scalar, or a one-element numeric tensor.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Tensor(t) if t.dtype() != DType::Bool && t.ndim() == 0 => t.item_f64(),
            _ => None,
        }
    }

    /// A list of ints: an int, a tuple of ints, or a 0-d/1-D integer tensor
    /// (an empty `[]` literal counts, whatever its dtype).
    pub fn as_int_list(&self) -> Option<Vec<i64>> {
        match self {
            Value::Int(i) => Some(vec![*i]),
            Value::Tuple(items) => items.iter().map(Value::as_int).collect(),
            Value::Tensor(t) if t.ndim() <= 1 && (t.dtype().is_int() || t.numel() == 0) => {
                Some(t.to_vec::<i64>())
            }
            _ => None,
        }
    }

    /// The value as a tensor: tensors as they are, scalars as 0-d tensors of their
    /// default dtype (i64, f32, bool).
    pub fn to_tensor(&self) -> Option<Tensor> {
        match self {
            Value::Tensor(t) => Some(t.tensor().clone()),
            Value::Int(i) => Some(Tensor::scalar(*i)),
            Value::Float(f) => Some(Tensor::scalar(*f as f32)),
            Value::Bool(b) => Some(Tensor::scalar(*b)),
            _ => None,
        }
    }

    /// The value as a tensor whose one element keeps a scalar exactly: a float
    /// scalar becomes a 0-d f64 tensor (ints i64, bools bool), for a value that is
    /// then converted once to a known dtype (`a[0] = pi`, `f64(x)`, `x.to(f64)`).
    pub fn to_tensor_exact(&self) -> Option<Tensor> {
        match self {
            Value::Tensor(t) => Some(t.tensor().clone()),
            other => other.as_scalar().map(Scalar::to_tensor),
        }
    }

    /// The element of a one-element tensor as a scalar of its dtype's kind: a
    /// float (f64, exact for every float dtype), an int or a bool.
    pub fn from_item(t: &Tensor) -> Option<Value> {
        if t.numel() != 1 {
            return None;
        }
        Some(match t.dtype().category() {
            Category::Bool => Value::Bool(t.item_i64()? != 0),
            Category::Int if t.dtype() == DType::U64 => Value::from_u64(t.to_vec::<u64>()[0]),
            Category::Int => Value::Int(t.item_i64()?),
            Category::Float => Value::Float(t.item_f64()?),
        })
    }

    /// A u64 element as a number: an int, or the nearest float above the largest int
    /// (tsr's ints are 64-bit signed; wrapping to a negative int would be silent).
    pub fn from_u64(u: u64) -> Value {
        i64::try_from(u).map_or(Value::Float(u as f64), Value::Int)
    }

    /// Truth value for `if`, `while`, `and`, `or`, `not`; a tensor must have one element.
    pub fn truthy(&self) -> Result<bool, String> {
        Ok(match self {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Tuple(items) => !items.is_empty(),
            Value::Dict(d) => !d.entries.is_empty(),
            Value::Range(a, b, c) => range_len(*a, *b, *c) > 0,
            Value::Tensor(t) => match t.item_f64() {
                Some(v) => v != 0.0,
                None => {
                    return Err(format!(
                    "the truth value of a tensor with {} elements is ambiguous; use any() or all()",
                    t.numel()
                ))
                }
            },
            Value::DType(_)
            | Value::Func(_)
            | Value::Builtin(_)
            | Value::Grad(_)
            | Value::Module(_)
            | Value::Quant(_)
            | Value::Lazy(_) => true,
        })
    }

    /// What `print` writes for this value.
    pub fn display(&self, opts: &PrintOptions) -> String {
        match self {
            Value::Str(s) => s.to_string(),
            other => other.repr(opts),
        }
    }

    /// The value as it appears inside a tuple or dict, or echoed by the REPL
    /// (strings quoted).
    pub fn repr(&self, opts: &PrintOptions) -> String {
        match self {
            Value::None => "none".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format_float_repr(*f),
            Value::Str(s) => format!("{s:?}"),
            Value::Tensor(t) => format_tensor(t, opts),
            Value::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(|v| deeper(|| v.repr(opts))).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Value::Dict(d) => {
                let mut s = String::from("{");
                for (i, (k, v)) in d.entries.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    let v = deeper(|| v.repr(opts));
                    let _ = write!(s, "{}: {v}", k.to_value().repr(opts));
                }
                s.push('}');
                s
            }
            Value::Range(a, b, c) => {
                if *c == 1 {
                    format!("range({a}, {b})")
                } else {
                    format!("range({a}, {b}, {c})")
                }
            }
            Value::DType(d) => d.name().into(),
            Value::Func(f) => format!("<fn {}>", f.name),
            Value::Builtin(b) => format!("<builtin {}>", b.name),
            Value::Grad(g) => format!(
                "<{} of {}>",
                if g.with_value {
                    "value_and_grad"
                } else {
                    "grad"
                },
                g.f.repr(opts)
            ),
            Value::Module(m) => format!("<module {}>", m.name),
            Value::Quant(q) => format!("<quantized {}, {} bytes>", q.type_line(), q.q.nbytes()),
            Value::Lazy(l) => format!("<mapped {}>", l.type_line()),
        }
    }
}

/// Runs a step of a walk into nested tuples and dicts (printing, comparing), on a new
/// stack segment when the thread's stack runs low: a script can nest them as deep as
/// memory allows (`t = (t,)` in a loop).
pub fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 << 10, 1 << 20, f)
}

/// `f32[2, 3]`: the line the REPL adds under an echoed tensor.
pub fn type_line(t: &Tensor) -> String {
    let dims: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", t.dtype(), dims.join(", "))
}

/// What the REPL adds after a tracked tensor's type line: ` grad_fn=mul`, or
/// ` requires_grad` for a leaf (as torch's repr).
pub fn grad_note(v: &Var) -> String {
    match (v.grad_fn(), v.requires_grad()) {
        (Some(op), true) => format!(" grad_fn={op}"),
        (None, true) => " requires_grad".into(),
        _ => String::new(),
    }
}

/// Number of values in `range(start, stop, step)` (up to 2^64 - 1, more than an int holds).
pub fn range_len(start: i64, stop: i64, step: i64) -> u64 {
    let (span, step) = if step > 0 {
        (stop as i128 - start as i128, step as i128)
    } else {
        (start as i128 - stop as i128, -(step as i128))
    };
    if span <= 0 {
        0
    } else {
        // The span of two i64s is below 2^64 and the step at least 1: it fits a u64.
        ((span + step - 1) / step) as u64
    }
}
