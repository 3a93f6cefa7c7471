//! A builtin that panics, compiled into test builds only: it stands for a bug in
//! tsr, to prove that the interpreter turns a panic during evaluation into a
//! diagnostic and that the session survives it.

use super::Builtin;
use crate::runtime::builtin;

pub const BUILTINS: &[Builtin] = &[builtin! {
    name: "_panic_for_tests",
    doc: "Panics (test builds only), as a bug in tsr would.",
    fn(_, _a) {
        // Test builds only (`#[cfg(test)]` in builtins/mod.rs): no script can reach it.
        panic!("a deliberate panic from _panic_for_tests")
    }
}];

#[cfg(test)]
mod tests {
    use crate::interp::Interp;
    use crate::runtime::Value;

    fn int(v: &Value) -> Option<i64> {
        match v {
            Value::Int(i) => Some(*i),
            Value::Tensor(t) => t.item_i64(),
            _ => None,
        }
    }

    #[test]
    fn a_panic_during_evaluation_becomes_a_diagnostic_and_keeps_the_session() {
        let mut interp = Interp::new(Box::new(std::io::sink()));
        interp
            .run("<1>", "let kept = [1, 2, 3]\nfn twice(x) { x * 2 }", None)
            .unwrap();
        // The panic comes from inside a function call, inside an expression.
        let diags = interp
            .run(
                "<2>",
                "fn boom() { _panic_for_tests() }\nlet y = twice(kept) + boom()",
                None,
            )
            .unwrap_err();
        assert_eq!(diags.len(), 1);
        let text = interp.render(&diags, false);
        assert!(text.starts_with("Error: internal error"), "{text}");
        assert!(
            text.contains("a deliberate panic from _panic_for_tests"),
            "{text}"
        );
        assert!(text.contains("the session's variables are kept"), "{text}");
        // The variables and functions defined before are still there and usable.
        let v = interp.run("<3>", "sum(twice(kept))", None).unwrap();
        assert_eq!(int(&v), Some(12));
        let v = interp
            .run("<4>", "kept[2] = 7\nkept[2] + len(kept)", None)
            .unwrap();
        assert_eq!(int(&v), Some(10));
        // So are the ones the failed program defined before it panicked.
        let v = interp.run("<5>", "boom", None).unwrap();
        assert!(matches!(v, Value::Func(_)), "{v:?}");
    }

    #[test]
    fn a_panic_deep_in_recursion_leaves_the_whole_call_depth_free() {
        // 990 nested calls need more than a test thread's stack, as in the CLI.
        let deep = || {
            let mut interp = Interp::new(Box::new(std::io::sink()));
            let code = "fn f(n) { if n == 0 { _panic_for_tests() } else { f(n - 1) } }\nf(990)";
            assert!(interp.run("<1>", code, None).is_err());
            let code = "fn g(n) { if n == 0 { 0 } else { 1 + g(n - 1) } }\ng(990)";
            let v = interp.run("<2>", code, None).unwrap();
            assert_eq!(int(&v), Some(990));
        };
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn(deep)
            .unwrap()
            .join()
            .unwrap();
    }
}
