//! Snapshots of printed output: summarization, options, dtypes, scalars and the REPL
//! echo. Byte-exactness against NumPy itself is checked by `print_fixtures.rs`.

mod common;

use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;

fn run(code: &str) -> String {
    let out = common::eval(code);
    assert_eq!(out.code, 0, "{code}\n{}", out.stderr);
    out.stdout
}

macro_rules! print_snapshot {
    ($name:ident, $code:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), run($code), $code);
        }
    };
}

print_snapshot!(rank3_summarized, "print(arange(2000).reshape(10, 20, 10))");
print_snapshot!(
    wide_rows_wrap,
    "print(linspace(-1, 1, 30).reshape(2, 15) * 1000)"
);
print_snapshot!(
    scientific_switch,
    "print([1e-10, 1.0, 1e10]); print([0.001, 1000.0]); print([1e-5, 1.0])"
);
print_snapshot!(nan_inf_mix, "print([1.5, nan, -inf, inf, -0.0])");
print_snapshot!(every_dtype, "for d in (bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64) { print(d, arange(-2, 3).to(d) / 3) }");
print_snapshot!(integer_columns, "print([[1, -20, 300], [4000, 5, -60000]])");
print_snapshot!(
    empty_and_zero_d,
    "print(zeros([0]), zeros([2, 0]), zeros([0, 3, 2]), sum([1.5, 2.25]), [true][0])"
);
print_snapshot!(options_per_call_and_global, "let x = linspace(0, 1, 7); print(x, precision=2); set_printoptions(suppress=true, linewidth=30); print(x * 1e-6); print(arange(20))");
print_snapshot!(scalars_tuples_dicts, "print(1, 2.5, 1e100, -0.0, true, none, \"s\", (1, \"a\", [1, 2]), {\"k\": 1.5}, f32, range(3))");
print_snapshot!(info_table, "info(arange(12).reshape(3, 4).T)");

#[test]
fn repl_echo_adds_dtype_and_shape() {
    let capture = SharedOutput::default();
    let mut interp = Interp::new(Box::new(capture.clone()));
    let mut shown = String::new();
    for line in [
        "let x = [[1.5, 2], [3, 4]]",
        "x",
        "x.shape",
        "\"text\"",
        "x.sum()",
    ] {
        let v = interp.run("<repl>", line, None).expect("runs");
        if let Some(text) = tsr::repl::echo(&interp, &v) {
            shown.push_str(&format!(">>> {line}\n{text}"));
        }
    }
    insta::assert_snapshot!(shown);
    assert!(capture.text().is_empty());
}
