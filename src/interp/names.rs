//! Name lookup: variables, builtins, dtypes, constants, with "did you mean" hints.

use std::rc::Rc;

use crate::builtins;
use crate::diag::{Diagnostic, ErrorKind};
use crate::quant::{QType, QUANTIZABLE};
use crate::runtime::value::Value;
use crate::runtime::Scope;
use crate::syntax::ast::Ident;

use super::Interp;

/// Names that stand for numbers.
const CONSTANTS: &[(&str, f64)] = &[
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("inf", f64::INFINITY),
    ("nan", f64::NAN),
];

impl Interp {
    pub(super) fn lookup(&self, var: &Ident, scope: &Rc<Scope>) -> Result<Value, Diagnostic> {
        if let Some(v) = scope.get(var) {
            return Ok(v);
        }
        let name = &*var.name;
        // Dtypes first: `bool` is the dtype, and calling it is the builtin `bool(x)`.
        if let Some(d) = crate::tensor::DType::from_name(name) {
            return Ok(Value::DType(d));
        }
        if let Some(b) = builtins::lookup(name) {
            return Ok(Value::Builtin(b));
        }
        if let Some((_, c)) = CONSTANTS.iter().find(|(n, _)| *n == name) {
            return Ok(Value::Float(*c));
        }
        // Quantized type names (`quantize(x, q4_k)`) stand for their string names.
        if let Some(q) = QType::from_name(name).filter(|q| QUANTIZABLE.contains(q)) {
            return Ok(Value::str(q.name()));
        }
        let mut d = Diagnostic::new(var.span, format!("undefined name `{name}`"))
            .with_kind(ErrorKind::Name);
        if let Some(s) = self.suggest(name, scope) {
            d = d.with_note(format!("hint: did you mean `{s}`?"));
        }
        Err(d)
    }

    /// The closest known name, for "did you mean" hints.
    pub(super) fn suggest(&self, name: &str, scope: &Rc<Scope>) -> Option<String> {
        let mut candidates: Vec<String> =
            builtins::all().iter().map(|b| b.name.to_string()).collect();
        let mut s = Some(scope.clone());
        while let Some(sc) = s {
            candidates.extend(sc.entries().into_iter().map(|(n, _)| n.to_string()));
            s = sc.parent();
        }
        candidates
            .into_iter()
            .map(|c| (edit_distance(name, &c), c))
            .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
            .min()
            .map(|(_, c)| c)
    }
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
