//! Issue #8, "No input crashes tsr": a catalogue of hostile and wrong inputs.
//!
//! Every case must exit 1 with a diagnostic that points into the source (ariadne's
//! `╭─[` box; colour is off because stderr is a pipe) and says what is wrong (a phrase
//! per case), or, for a damaged file, an error that starts with the file format
//! (`npy:`, `npz:`, `safetensors:`, `gguf:`); never a panic or an internal error.
//! Inputs tsr accepts on purpose (`1 / 0` is inf, NaN flows through reductions) are
//! listed at the end, and must run without an error.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{scratch_dir, tsr, tsr_in, Output};

/// A `-e` case: a name for the failure report, the code, and a phrase its message must
/// contain.
type Case = (&'static str, &'static str, &'static str);

/// Runs `tsr -e CODE` in a scratch directory, so that nothing a case writes lands in
/// the source tree.
fn eval(code: &str) -> Output {
    eval_with(&[], code)
}

/// [`eval`] with options before `-e`.
fn eval_with(options: &[&str], code: &str) -> Output {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| scratch_dir("bad_inputs", "cwd"));
    let args: Vec<&str> = options.iter().copied().chain(["-e", code]).collect();
    tsr_in(&args, None, Some(dir))
}

/// The problem with `out`, when it shows a crash: a panic, an internal error, a signal.
fn crash(out: &Output) -> Option<String> {
    let all = format!("{}{}", out.stdout, out.stderr);
    if all.contains("panicked") || all.contains("internal error") {
        Some(format!("tsr crashed (exit {}):\n{}", out.code, out.stderr))
    } else if !(0..=2).contains(&out.code) {
        Some(format!("tsr died (exit {}):\n{}", out.code, out.stderr))
    } else {
        None
    }
}

/// Exit 1 with a diagnostic box that contains `expected`, and no crash.
fn diagnostic_problem(out: &Output, expected: &str) -> Option<String> {
    if let Some(c) = crash(out) {
        return Some(c);
    }
    if out.code != 1 {
        return Some(format!(
            "exit {}, not 1:\n{}{}",
            out.code, out.stdout, out.stderr
        ));
    }
    if !out.stderr.contains("╭─[") {
        return Some(format!("no diagnostic with a span:\n{}", out.stderr));
    }
    if !out.stderr.contains(expected) {
        return Some(format!(
            "the message does not say {expected:?}:\n{}",
            out.stderr
        ));
    }
    None
}

/// Exit 1 with an error that names the file format, and no crash.
fn file_error_problem(out: &Output, prefix: &str) -> Option<String> {
    if let Some(c) = crash(out) {
        return Some(c);
    }
    if out.code != 1 || !out.stderr.contains(prefix) {
        return Some(format!(
            "expected exit 1 and a {prefix:?} error, got exit {}:\n{}",
            out.code, out.stderr
        ));
    }
    None
}

/// Fails with every problem found, so one run reports all broken cases.
fn report(what: &str, total: usize, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} of {total} {what} failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Runs each case with `tsr -e CODE` and checks its diagnostic.
fn run_cases(cases: &[Case]) {
    run_cases_with(&[], cases);
}

/// [`run_cases`] with options before `-e` (`--max-memory 100MiB`).
fn run_cases_with(options: &[&str], cases: &[(&str, &str, &str)]) {
    let failures = cases
        .iter()
        .filter_map(|&(name, code, expected)| {
            let out = eval_with(options, code);
            diagnostic_problem(&out, expected).map(|p| format!("{name} `{code}`: {p}"))
        })
        .collect();
    report("cases", cases.len(), failures);
}

// ---- syntax ------------------------------------------------------------------------

#[rustfmt::skip]
const MALFORMED_SYNTAX: &[Case] = &[
    ("unclosed paren", "(1 + 2", "unclosed `(`"),
    ("unclosed bracket", "[1, 2", "unclosed `[`"),
    ("unclosed block", "if true { 1", "unclosed `{`"),
    ("unclosed call", "print(1,", "unclosed `(`"),
    ("mismatched bracket", "(1, 2]", "unexpected closing delimiter `]`"),
    ("stray paren", ")", "unexpected closing delimiter `)`"),
    ("stray brace", "1 }", "unexpected closing delimiter `}`"),
    ("unterminated string", "\"abc", "unterminated string"),
    ("unterminated quote", "let s = 'abc", "unterminated string"),
    ("string ends in backslash", "\"abc\\", "unterminated string"),
    ("unterminated f-string", "f\"total {x", "unterminated string"),
    ("unclosed f-string hole", "f\"{1 + 2\"", "end of f-string"),
    ("empty f-string hole", "f\"{}\"", "expected expression"),
    ("lone brace in f-string", "f\"a } b\"", "single `}` in an f-string"),
    ("nested f-string quote", "f\"{f\"{1}\"}\"", "end of f-string"),
    ("unexpected character", "1 $ 2", "unexpected character `$`"),
    ("backtick", "let a = `b`", "unexpected character"),
    ("bang", "!x", "unexpected character `!`"),
    ("missing right operand", "1 +", "expected expression"),
    ("missing left operand", "* 3", "expected statement, found `*`"),
    ("two operators", "1 +* 2", "expected expression, found `*`"),
    ("double power", "2 ** ** 2", "expected expression, found `**`"),
    ("increment", "let x = 1; x++", "expected expression, found `+`"),
    ("c-style and", "true && false", "logical and is written `and`"),
    ("python ternary", "let x = 1 if true else 2", "`if c { a } else { b }`"),
    ("python lambda", "lambda x: x", "found `x`"),
    ("two values", "let x = 1 2", "found `2`"),
    ("else without if", "else { 1 }", "found `else`"),
    ("else else", "if true { 1 } else else { 2 }", "expected `if` or `{`"),
    ("elif", "if true { 1 } elif { 2 }", "found `elif`"),
    ("if without block", "if true", "expected operator or `{`"),
    ("let a keyword", "let if = 1", "expected variable name, found `if`"),
    ("let without name", "let = 3", "expected variable name, found `=`"),
    ("let compares", "let x == 1", "expected `=`, found `==`"),
    ("fn named by keyword", "fn let() { 1 }", "expected function name"),
    ("fn without body", "fn f()", "expected `{`"),
    ("duplicate parameter", "fn f(a, a) { a }", "duplicate parameter `a`"),
    ("duplicate lambda parameter", "|x, x| x", "duplicate parameter `x`"),
    ("required after default", "fn f(a = 1, b) { a }", "parameter `b` without a default follows one with a default"),
    ("keyword parameter", "fn f(if) { 1 }", "found `if`"),
    ("unclosed lambda", "|x x + 1", "found `x`"),
    ("for without in", "for x [1] { }", "expected `in`"),
    ("for over a number name", "for 1 in [1] { }", "expected variable name"),
    ("import a name", "import stats as s", "expected path string"),
    ("import without as", "import \"x.tsr\"", "expected `as`"),
    ("use a string", "use \"stats\"", "expected module name"),
    ("return outside fn", "return 1", "`return` outside of a function"),
    ("break outside loop", "break", "`break` outside of a loop"),
    ("continue in a fn called in a loop", "fn f() { continue }; for i in range(2) { f() }", "`continue` outside of a loop"),
    ("assign to a literal", "1 = 2", "cannot assign to this expression"),
    ("assign to a call", "f(x) = 1", "cannot assign to this expression"),
    ("assign to an attribute", "let x = [1, 2]; x.shape = (2,)", "cannot assign to the attribute `shape`"),
    ("assign undeclared", "y = 1", "assignment to undefined variable `y`"),
    ("four-part slice", "[1][1:2:3:4]", "a slice has at most three parts"),
    ("empty index", "let x = [1]; x[]", "expected expression"),
    ("double comma", "[1, 2,, 3]", "found `,`"),
    ("dict without value", "{\"a\": }", "expected expression, found `}`"),
    ("dict entry without key", "{1: 2, 3}", "expected operator or `:`"),
    ("walrus", "x := 1", "found `:`"),
    ("triple equals", "1 === 1", "expected expression, found `=`"),
    ("two strings", "\"abc\" \"def\"", "found string"),
];

#[test]
fn malformed_syntax() {
    run_cases(MALFORMED_SYNTAX);
}

#[rustfmt::skip]
const INVALID_LITERALS: &[Case] = &[
    ("hex without digits", "0x", "invalid number literal `0x`"),
    ("bad hex digits", "0xZZ", "invalid number literal `0xZZ`"),
    ("bad binary digit", "0b102", "invalid number literal `0b102`"),
    ("bad octal digit", "0o8", "invalid number literal `0o8`"),
    ("letters after digits", "12abc", "invalid number literal `12abc`"),
    ("exponent without digits", "1e", "invalid number literal `1e`"),
    ("two decimal points", "1.2.3", "invalid number literal `1.2.3`"),
    ("method on an int literal", "1.exp()", "invalid number literal `1.exp`"),
    ("keyword after digits", "3in range(3)", "invalid number literal `3in`"),
    ("int beyond i64", "99999999999999999999", "integer literal is too large"),
    ("i64 min as a literal", "let x = -9223372036854775808", "integer literal is too large"),
    ("hex beyond i64", "0xFFFFFFFFFFFFFFFFF", "integer literal is too large"),
    ("unknown escape", "\"a\\qb\"", "unknown escape sequence `\\q`"),
    ("escape beyond unicode", "\"\\u{110000}\"", "is not a valid unicode character"),
    ("escape without braces", "\"\\u1234\"", "invalid unicode escape"),
    ("escape without digits", "\"\\u{}\"", "invalid unicode escape"),
    ("f-string unknown type", "f\"{1:q}\"", "unknown type `q`"),
    ("f-string precision without digits", "f\"{1:.f}\"", "expected digits after `.`"),
    ("f-string unreadable spec", "f\"{1:+-5}\"", "format spec"),
    ("f-string d of a float", "f\"{1.5:d}\"", "format spec `d` needs an integer"),
    ("f-string f of a string", "f\"{'a':.2f}\"", "needs a number, got string"),
    ("f-string f of a tensor", "f\"{[1, 2]:.2f}\"", "needs a number, got tensor i64[2]"),
];

#[test]
fn invalid_literals() {
    run_cases(INVALID_LITERALS);
}

// ---- unicode -----------------------------------------------------------------------

#[rustfmt::skip]
const UNICODE_IN_NAMES_AND_STRINGS: &[Case] = &[
    ("emoji in a name", "let x🙂 = 1", "unexpected character `🙂`"),
    ("zero-width space in a name", "let a\u{200B}b = 1", "unexpected character"),
    ("no-break space", "1\u{A0}+ 2", "unexpected character"),
    ("bidi override", "let x = \u{202E}1", "unexpected character"),
    ("near-miss unicode name", "let grösse = 1; größe", "undefined name `größe`"),
    ("cjk name, wrong type", "let 變數 = 1; 變數 + \"a\"", "`+` is not defined for int and string"),
    ("emoji string plus int", "\"🙂\" + 1", "`+` is not defined for string and int"),
    ("emoji string index", "\"🙂\"[1]", "out of range for a string of 1 character\n"),
    ("emoji string as a tensor", "tensor(\"🙂\")", "must be a tensor or number, got string"),
    ("emoji dtype", "zeros([2], dtype=\"🙂\")", "unknown dtype"),
    ("emoji as an index", "zeros([3])[\"🙂\"]", "an index must be an integer"),
    ("emoji key", "let d = {\"🙂\": 1}; d[\"🙃\"]", "key \"🙃\" not found"),
    ("emoji in a number", "1🙂", "unexpected character `🙂`"),
];

#[test]
fn unicode_in_names_and_strings() {
    run_cases(UNICODE_IN_NAMES_AND_STRINGS);
}

// ---- builtins: arity, keywords, types ----------------------------------------------

#[rustfmt::skip]
const BUILTIN_ARGUMENTS: &[Case] = &[
    ("too many arguments", "sum(1, 2, 3, 4)", "sum takes at most 3 arguments, got 4"),
    ("one too many", "abs(1, 2)", "abs takes at most 1 argument, got 2"),
    ("arguments to a nullary", "args(1)", "args takes no arguments, got 1"),
    ("unknown keyword", "sum([1], axs=0)", "sum has no parameter named `axs`"),
    ("keyword twice", "sum([1], axis=0, axis=0)", "sum got two values for `axis`"),
    ("positional and keyword", "sum([1], x=[2])", "sum got two values for `x`"),
    ("missing argument", "zeros()", "zeros is missing the argument `shape`"),
    ("explicit none", "reshape(none, 2)", "reshape needs a value for `x`, got none"),
    ("string shape", "zeros(\"a\")", "must be a shape"),
    ("unknown dtype name", "zeros([2], dtype=\"f33\")", "unknown dtype \"f33\""),
    ("undefined dtype", "zeros([2], dtype=f33)", "undefined name `f33`"),
    ("int as dtype", "ones([2], 3)", "must be a dtype such as f32, got int"),
    ("string to exp", "exp(\"x\")", "argument `x` of exp must be a tensor or number, got string"),
    ("bool option", "sum([1], keepdim=1)", "must be true or false"),
    ("string option", "gelu([1.0], approximate=\"fast\")", "\"none\" or \"tanh\""),
    ("len of an int", "len(5)", "len: int has no length"),
    ("len of a 0-d tensor", "len(zeros([]))", "0-d tensor has no length"),
    ("dtype called with two", "f32(1, 2)", "`f32(...)` converts one value, got 2 arguments"),
    ("dtype called with a keyword", "i64(x=1)", "takes no keyword arguments"),
    ("dtype of a string", "f32(\"abc\")", "cannot convert string to f32"),
    ("method of a string", "\"abc\".to(f32)", "argument `x` of to must be a tensor or number"),
    ("missing method", "zeros([2]).nosuch_()", "no function `nosuch_`"),
    ("full of a string", "full([2], \"a\")", "full needs a number, got string"),
    ("save a string", "save(\"x.npy\", \"abc\")", "must be a tensor or number, got string"),
    ("npz of a tensor", "save_npz(\"x.npz\", [1])", "expected a dict name -> tensor"),
    ("safetensors int name", "save_safetensors(\"x.st\", {\"a\": [1], 3: [2]})", "tensor names must be strings, got the int key 3"),
    ("gguf none metadata", "save_gguf(\"x.gguf\", {\"w\": [1.0]}, metadata={\"k\": none})", "none cannot be stored in GGUF metadata"),
    ("quantize type", "quantize(ones([1, 256]), \"q9_x\")", "cannot quantize to \"q9_x\""),
    ("quantize block", "quantize(ones([2, 3]), \"q4_k\")", "multiple of the q4_k block size 256"),
    ("dequantize a tensor", "dequantize([1])", "expected a quantized tensor"),
    ("print separator", "print(1, sep=5)", "argument `sep` of print must be a string"),
    ("negative precision", "set_printoptions(precision=-1)", "`precision` must not be negative"),
    ("hist bins", "hist([1.0], bins=0)", "bins must be between 1 and 100000"),
    ("imshow 1-d", "imshow(zeros([2]))", "must be a 2-D tensor"),
    ("savefig format", "savefig(\"x.jpg\")", "cannot tell the image format"),
    ("assert", "assert(1 == 2)", "assertion failed"),
    ("assert_close", "assert_close([1.0], [2.0])", "1 of 1 elements differ"),
    ("assert_close tolerance", "assert_close([1.0], [1.0], rtol=-1)", "tolerances must be non-negative"),
    ("no such module", "use nosuchmod", "no standard library module named `nosuchmod`"),
    ("no such file to import", "import \"no/such/file.tsr\" as m", "cannot import"),
    ("no such module member", "use stats; stats.nosuch(1)", "module `stats` has no member `nosuch`"),
];

#[test]
fn builtin_arguments() {
    run_cases(BUILTIN_ARGUMENTS);
}

// ---- values, names and operators ---------------------------------------------------

#[rustfmt::skip]
const WRONG_TYPES_AND_VALUES: &[Case] = &[
    ("group_norm groups that do not divide", "group_norm(randn([2, 3, 4]), 2)", "do not split into num_groups=2"),
    ("batch_norm evaluation without statistics", "batch_norm(randn([2, 3]))", "needs running_mean and running_var"),
    ("batch_norm one value per channel", "batch_norm(randn([1, 3]), training=true)", "more than 1 value per channel"),
    ("instance_norm one spatial element", "instance_norm(randn([2, 3, 1]))", "more than 1 spatial element"),
    ("interpolate size and scale_factor", "interpolate(randn([1, 1, 3]), size=2, scale_factor=2)", "exactly one of size and scale_factor"),
    ("interpolate bilinear of a 3-d x", "interpolate(randn([1, 1, 3]), mode=\"bilinear\", size=2)", "needs a 4-d x"),
    ("interpolate huge size", "interpolate(randn([1, 1, 3]), size=1000000000000)", "more than the memory limit"),
    ("interpolate huge size of an empty batch", "interpolate(randn([0, 1, 3]), size=1000000000000)", "more than the memory limit"),
    ("polyfit huge deg", "polyfit(tensor([1.0, 2.0]), tensor([1.0, 2.0]), 1000000000000)", "more than the memory limit"),
    ("polygamma negative n", "polygamma(-1, tensor([1.0]))", "n must be 0 or more"),
    ("polygamma huge n", "polygamma(171, tensor([1.0]))", "n must be at most 170"),
    ("interpolate huge scale_factor", "interpolate(randn([1, 1, 3]), scale_factor=1e30)", "gives an output size"),
    ("attention shapes", "scaled_dot_product_attention(randn([2, 3]), randn([2, 4]), randn([2, 3]))", "must be [..., L, E]"),
    ("attention mask and is_causal", "scaled_dot_product_attention(randn([2, 3]), randn([2, 3]), randn([2, 3]), attn_mask=ones([2, 2], dtype=bool), is_causal=true)", "cannot be given together"),
    ("adaptive_max_pool2d huge output", "adaptive_max_pool2d(randn([1, 2, 3]), [100000000000, 100000000000])", "output_size is too large"),
    ("max_pool1d empty output", "max_pool1d(randn([1, 2, 3]), 5)", "max_pool1d"),
    ("max_pool3d of a 2-d x", "max_pool3d(randn([2, 3]), 2)", "must be [N, C, D, H, W]"),
    ("undefined name", "x + 1", "undefined name `x`"),
    ("not callable", "let sum = 3; sum([1])", "int is not callable"),
    ("none called", "none()", "none is not callable"),
    ("lambda arity", "let f = |x| x; f(1, 2)", "`<lambda>` takes 1 argument, got 2"),
    ("fn missing argument", "fn f(a) { a }; f()", "`f` is missing the argument `a`"),
    ("fn unknown keyword", "fn f(a) { a }; f(b=1)", "`f` has no parameter named `b`"),
    ("fn keyword twice", "fn f(a) { a }; f(1, a=2)", "`f` got two values for `a`"),
    ("attribute of none", "none.shape", "none has no attribute `shape`"),
    ("unknown tensor attribute", "[1, 2].foo", "tensor i64[2] has no attribute `foo`"),
    ("missing dict key", "let d = {\"a\": 1}; d[\"b\"]", "key \"b\" not found"),
    ("tensor as dict key", "{[1]: 2}", "dict keys must be strings, ints or bools"),
    ("two dict keys", "let d = {\"a\": 1}; d[\"a\", \"b\"]", "a dict takes one key"),
    ("unpack too many", "let (a, b) = (1, 2, 3)", "cannot unpack 3 values into 2 names"),
    ("unpack an int", "let (a, b) = 5", "cannot unpack int into 2 names"),
    ("unpack tensor rows", "for (a, b) in zeros([2, 3]) { }", "cannot unpack 3 values into 2 names"),
    ("iterate an int", "for x in 5 { }", "cannot iterate over int"),
    ("iterate none", "for x in none { }", "cannot iterate over none"),
    ("ambiguous truth", "if [1, 2] { 1 }", "truth value of a tensor with 2 elements is ambiguous"),
    ("ambiguous while", "while [true, false] { }", "use any() or all()"),
    ("ambiguous not", "not [1, 2]", "is ambiguous"),
    ("string minus string", "\"abc\" - \"b\"", "`-` is not defined for string and string"),
    ("string times float", "\"ab\" * 1.5", "`*` is not defined for string and float"),
    ("tensor plus string", "zeros([2]) + \"a\"", "`+` is not defined for tensor and string"),
    ("tuple plus tensor", "(1, 2) + [1]", "`+` is not defined for tuple and tensor"),
    ("dict plus dict", "{\"a\": 1} + {\"b\": 2}", "`+` is not defined for dict and dict"),
    ("none plus int", "none + 1", "`+` is not defined for none and int"),
    ("order string and int", "\"a\" < 1", "`<` is not defined for string and int"),
    ("invert a float", "~1.5", "`~` is not defined for float"),
    ("invert a float tensor", "~[1.5]", "only defined for bool and integer tensors"),
    ("subtract bools", "[true] - [false]", "subtraction with two bool tensors"),
    ("negate bools", "neg([true])", "negation of a bool tensor"),
    ("relu of bools", "relu([true])", "not defined for bool tensors"),
    ("int tensor negative power", "[2] ** -1", "integers to negative integer powers"),
    ("int overflow add", "9223372036854775807 + 1", "integer overflow in `+`"),
    ("int overflow mul", "9223372036854775807 * 2", "integer overflow in `*`"),
    ("int overflow pow", "2 ** 63", "integer overflow in `**`"),
    ("int overflow floor div", "(-9223372036854775807 - 1) // -1", "integer overflow in `//`"),
    ("int overflow mod", "(-9223372036854775807 - 1) % -1", "integer overflow in `%`"),
    ("tuple assignment", "let t = (1, 2); t[0] = 3", "cannot assign through an index of tuple"),
    ("string assignment", "let s = \"abc\"; s[0] = \"x\"", "cannot assign through an index of string"),
    ("store a string", "let x = zeros([3]); x[0] = \"a\"", "cannot store string in a tensor"),
    ("compound float into ints", "let x = zeros([3], dtype=i64); x += 1.5", "would store a f32 result in a i64 tensor"),
    ("in-place exp of ints", "zeros([2], dtype=i64).exp_()", "does not fit in place"),
    ("fill with a string", "zeros([2]).fill_(\"a\")", "fill_ needs a number, got string"),
    ("random ints as floats", "rand([2], dtype=i64)", "must be a float dtype"),
    ("randint of floats", "randint(0, 10, dtype=f32)", "must be an integer dtype"),
    ("randint empty range", "randint(5, 2)", "`low` must be less than `high`"),
    ("randint beyond u8", "randint(0, 1000, shape=[2], dtype=u8)", "does not fit in u8"),
    ("negative seed", "seed(-1)", "`n` must not be negative"),
    ("save bf16 as npy", "save(\"x.npy\", zeros([2], dtype=bf16))", "npy: bf16 cannot be saved"),
    ("gguf of 5 dims", "save_gguf(\"x.gguf\", {\"w\": zeros([1, 1, 1, 1, 1])})", "gguf: tensor 'w' has 5 dimensions"),
];

#[test]
fn wrong_types_and_values() {
    run_cases(WRONG_TYPES_AND_VALUES);
}

// ---- shapes and dtypes -------------------------------------------------------------

#[rustfmt::skip]
const SHAPE_MISMATCHES: &[Case] = &[
    ("broadcast", "[1, 2] + [1, 2, 3]", "shapes [2] and [3] cannot be broadcast together"),
    ("broadcast 2-d", "zeros([2, 3]) * zeros([3, 2])", "shapes [2, 3] and [3, 2] cannot be broadcast"),
    ("maximum broadcast", "maximum([1, 2], [1, 2, 3])", "cannot be broadcast"),
    ("compound broadcast", "let x = zeros([3]); x += zeros([4])", "cannot be broadcast"),
    ("compound widens", "let x = zeros([3]); x += zeros([2, 3])", "cannot assign a value of shape [2, 3]"),
    ("assign shape", "let x = zeros([3]); x[:] = [1, 2]", "cannot assign a value of shape [2] to a region of shape [3]"),
    ("matmul inner", "zeros([2, 3]) @ zeros([2, 3])", "inner dimensions do not match"),
    ("matmul 0-d", "zeros([]) @ zeros([3])", "0-d operands are not allowed"),
    ("matmul batch", "matmul(zeros([2, 3, 4]), zeros([5, 4, 2]))", "cannot be broadcast"),
    ("dot", "dot(zeros([2, 3]), zeros([2, 3]))", "not aligned"),
    ("reshape count", "reshape([1, 2, 3], [2, 2])", "cannot reshape a tensor of shape [3] (3 elements) into [2, 2]"),
    ("reshape two -1", "reshape(zeros([6]), [-1, -1])", "only one dimension can be -1"),
    ("reshape -2", "reshape(zeros([6]), [-2, 3])", "invalid dimension -2"),
    ("ragged literal", "[[1, 2], [3]]", "ragged tensor literal"),
    ("ragged scalar row", "[[1, 2], 3]", "this row has shape []"),
    ("string in a literal", "[1, \"a\"]", "a tensor literal cannot hold string"),
    ("none in a literal", "[none]", "a tensor literal cannot hold none"),
    ("range in a literal", "[range(3)]", "a tensor literal cannot hold range"),
    ("concat shapes", "concat(([1, 2], [[3]]))", "all dimensions except axis 0 must match"),
    ("concat nothing", "concat(())", "needs at least one tensor"),
    ("stack shapes", "stack(([1, 2], [3]))", "stacked tensors must have one shape"),
    ("split unevenly", "split([1, 2, 3], 2)", "does not divide into 2 equal sections"),
    ("split into zero", "split([1, 2, 3, 4], 0)", "must be positive, got 0"),
    ("where broadcast", "where([true], [1, 2], [1, 2, 3])", "cannot be broadcast together"),
    ("broadcast_to", "broadcast_to(zeros([3]), [2, 4])", "cannot be broadcast"),
    ("broadcast_to negative", "broadcast_to(zeros([3]), [-1])", "negative dimension -1 in shape"),
    ("negative dimension", "zeros([2, -1])", "negative dimension -1 in shape"),
    ("permute repeats", "permute(zeros([2, 3]), [0, 0])", "axis 0 appears twice"),
    ("permute count", "permute(zeros([2, 3]), [0])", "expected 2 axes, got 1"),
    ("squeeze size 2", "squeeze(zeros([2, 3]), 0)", "cannot squeeze axis 0 of size 2"),
    ("nonzero of 0-d", "nonzero(zeros([]))", "a 0-d tensor has no axes"),
    ("conv channels", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 4, 3, 3]))", "does not match the 3 input channels"),
    ("conv kernel too big", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 9, 9]))", "does not fit the padded input"),
    ("conv rank", "conv2d(zeros([3, 5]), zeros([2, 3, 3, 3]))", "expected x of rank 3"),
    ("conv stride 0", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), stride=0)", "stride must be positive"),
    ("conv groups 0", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), groups=0)", "groups must be positive"),
    ("conv groups", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), groups=2)", "must divide the 3 input channels"),
    ("conv bias", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), bias=zeros([3]))", "bias must have shape [2]"),
    ("conv padding", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), padding=\"full\")", "must be \"valid\", \"same\""),
    ("same with stride", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), padding=\"same\", stride=2)", "needs stride 1"),
    ("conv stride list", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), stride=[1, 1, 1])", "got 3 values"),
    ("output padding", "conv_transpose2d(zeros([1, 2, 3, 3]), zeros([2, 1, 3, 3]), output_padding=5)", "output_padding must be smaller"),
    ("pool kernel 0", "max_pool2d(zeros([1, 1, 4, 4]), 0)", "kernel_size must be positive"),
    ("pool empty output", "max_pool2d(zeros([1, 1, 4, 4]), 5)", "the output would be empty"),
    ("pool padding", "max_pool2d(zeros([1, 1, 4, 4]), 2, padding=2)", "padding must be at most half"),
    ("adaptive pool 0", "adaptive_avg_pool2d(zeros([1, 1, 4, 4]), 0)", "output_size must be positive"),
    ("col2im shape", "col2im(zeros([1, 4, 9]), [4, 4], 3)", "do not fit"),
    ("layer_norm weight", "layer_norm(zeros([2, 3]), 3, weight=zeros([4]))", "does not match normalized_shape [3]"),
    ("layer_norm shape", "layer_norm(zeros([2, 3]), [4])", "normalized_shape [4] must match the last dims of x"),
    ("clip bounds", "clip([1, 2], [1, 2, 3], 5)", "does not broadcast with x"),
    ("plot lengths", "plot([1, 2], [1])", "x and y must have the same length"),
];

#[test]
fn shape_mismatches() {
    run_cases(SHAPE_MISMATCHES);
}

// ---- indices and axes --------------------------------------------------------------

#[rustfmt::skip]
const OUT_OF_RANGE_INDICES_AND_AXES: &[Case] = &[
    ("index past the end", "[1, 2, 3][5]", "index 5 is out of bounds for axis 0 with size 3"),
    ("negative index", "[1, 2, 3][-4]", "index -4 is out of bounds for axis 0 with size 3"),
    ("second axis", "zeros([2, 3])[:, -4]", "index -4 is out of bounds for axis 1 with size 3"),
    ("i64 max index", "zeros([3])[9223372036854775807]", "index 9223372036854775807 is out of bounds"),
    ("i64 min index", "zeros([3])[-9223372036854775807 - 1]", "index -9223372036854775808 is out of bounds"),
    ("too many indices", "zeros([2, 3])[0, 0, 0]", "too many indices"),
    ("two ellipses", "zeros([2, 3])[..., ..., 0]", "a single ellipsis"),
    ("index list", "zeros([2, 3])[[0, 5]]", "index 5 is out of bounds for axis 0 with size 2"),
    ("negative index list", "zeros([2, 3])[[-3]]", "index -3 is out of bounds"),
    ("i64 min in a list", "zeros([3])[[-9223372036854775807 - 1]]", "is out of bounds"),
    ("float index", "[1, 2][1.5]", "an index must be an integer"),
    ("float index tensor", "zeros([2, 3])[[0.5]]", "indices must be integers or booleans"),
    ("mask shape", "zeros([2, 3])[[true, false, true]]", "boolean mask of shape [3] does not match"),
    ("assign past the end", "let x = zeros([3]); x[5] = 1", "index 5 is out of bounds"),
    ("assign through a bad mask", "let x = zeros([3]); x[[true]] = 1", "does not match the shape [3]"),
    ("slice step 0", "zeros([3])[::0]", "slice step cannot be zero"),
    ("slice bound string", "zeros([3])[\"a\":]", "slice bounds must be integers, not string"),
    ("tuple index", "(1, 2)[5]", "index 5 is out of range for a tuple of 2"),
    ("tuple i64 min", "(1, 2, 3)[-9223372036854775807 - 1]", "is out of range for a tuple of 3"),
    ("string index", "\"abc\"[9223372036854775807]", "out of range for a string of 3 characters"),
    ("string with two indices", "\"abc\"[1, 2]", "a string takes one integer index or a slice"),
    ("range index", "range(5)[1]", "range cannot be indexed"),
    ("sum axis", "sum([1, 2], axis=2)", "axis 2 is out of bounds for a tensor of 1 dimension"),
    ("sum negative axis", "sum([1, 2], axis=-2)", "axis -2 is out of bounds"),
    ("sum i64 min axis", "sum(zeros([3]), axis=-9223372036854775807 - 1)", "axis -9223372036854775808 is out of bounds"),
    ("method axis", "zeros([2, 3]).sum(axis=5)", "axis 5 is out of bounds for a tensor of 2 dimensions"),
    ("repeated axis", "mean(zeros([2, 3]), axis=[0, 0])", "axis 0 is repeated"),
    ("transpose axis", "transpose(zeros([2, 3]), 0, 5)", "axis 5 is out of bounds"),
    ("transpose negative axis", "transpose(zeros([2, 3]), -3, 0)", "axis -3 is out of bounds"),
    ("permute axis", "permute(zeros([2, 3]), [0, 2])", "axis 2 is out of bounds"),
    ("squeeze axis", "squeeze(zeros([2, 3]), 5)", "axis 5 is out of bounds"),
    ("unsqueeze axis", "unsqueeze(zeros([2]), 3)", "axis 3 is out of bounds"),
    ("unsqueeze negative axis", "unsqueeze(zeros([2]), -3)", "axis -3 is out of bounds"),
    ("softmax axis", "softmax([1.0, 2.0], axis=1)", "axis 1 is out of bounds"),
    ("softmax negative axis", "softmax([1.0, 2.0], axis=-2)", "axis -2 is out of bounds"),
    ("argmax axes", "argmax(zeros([2, 3]), axis=[0, 1])", "takes a single axis"),
    ("argmax axis", "argmax(zeros([2, 3]), axis=2)", "axis 2 is out of bounds"),
    ("cumsum axis", "cumsum(zeros([2]), axis=1)", "axis 1 is out of bounds"),
    ("concat axis", "concat(([1, 2], [3]), axis=1)", "axis 1 is out of bounds"),
    ("empty max", "max(zeros([0]))", "zero-size reduction has no identity"),
    ("empty argmax", "argmax(zeros([0]))", "zero-size reduction has no identity"),
];

#[test]
fn out_of_range_indices_and_axes() {
    run_cases(OUT_OF_RANGE_INDICES_AND_AXES);
}

// ---- division by zero --------------------------------------------------------------

#[rustfmt::skip]
const INTEGER_DIVISION_AND_MODULO_BY_ZERO: &[Case] = &[
    ("scalar floor div", "7 // 0", "integer division by zero"),
    ("scalar modulo", "7 % 0", "integer division by zero"),
    ("negative scalar", "let n = -7; n // 0", "integer division by zero"),
    ("tensor by int", "[1, 2] // 0", "floor_divide: integer division by zero"),
    ("tensor by tensor", "[1, 2] // [0, 0]", "floor_divide: integer division by zero"),
    ("tensor modulo one zero", "[1, 2] % [0, 1]", "remainder: integer division by zero"),
    ("i32 tensors", "zeros([2], dtype=i32) // zeros([2], dtype=i32)", "integer division by zero"),
    ("u8 modulo", "zeros([2], dtype=u8) % zeros([2], dtype=u8)", "remainder: integer division by zero"),
    ("i8 by scalar", "zeros([2], dtype=i8) // 0", "integer division by zero"),
    ("0-d tensor", "tensor(5) % tensor(0)", "integer division by zero"),
    ("into an element", "let x = [4, 2]; x[0] = x[0] // 0", "integer division by zero"),
    ("broadcast", "[[1], [2]] % [1, 0]", "remainder: integer division by zero"),
];

#[test]
fn integer_division_and_modulo_by_zero() {
    run_cases(INTEGER_DIVISION_AND_MODULO_BY_ZERO);
}

// ---- huge values -------------------------------------------------------------------

#[rustfmt::skip]
const HUGE_LITERALS_AND_SHAPES: &[Case] = &[
    ("huge shape", "zeros([4294967296, 4294967296])", "elements"),
    ("i64 max dimension", "zeros([9223372036854775807])", "9223372036854775807"),
    ("huge eye", "eye(4294967296)", "eye"),
    ("huge rand", "rand([4294967296, 4294967296])", "rand"),
    ("huge randint", "randint(10, shape=[9223372036854775807])", "randint"),
    ("huge linspace", "linspace(0, 1, num=9223372036854775807)", "linspace"),
    ("huge full", "full([4294967296, 4294967296], 1)", "elements"),
    ("huge arange", "arange(1e300)", "arange"),
    ("arange to inf", "arange(0, inf)", "cannot make a range from 0 to inf"),
    ("huge conv padding", "conv2d(zeros([1, 3, 5, 5]), zeros([2, 3, 3, 3]), padding=9999999999999)", "too large"),
    ("huge dilation", "conv1d(zeros([1, 1, 4]), zeros([1, 1, 2]), dilation=9223372036854775807)", "does not fit"),
    ("huge im2col kernel", "im2col(zeros([1, 1, 4, 4]), 99999999999)", "does not fit"),
    ("huge adaptive pool", "adaptive_avg_pool2d(zeros([1, 1, 4, 4]), [99999999999, 99999999999])", "elements"),
    ("huge decimals", "round([1.5], decimals=99999999999)", "`decimals` is out of range"),
    ("huge range length", "len(range(-9223372036854775807 - 1, 9223372036854775807))", "the range has 18446744073709551615 values"),
    ("range step 0", "range(0, 10, 0)", "range step must not be zero"),
    ("arange step 0", "arange(0, 10, 0)", "step must not be zero"),
    ("huge matmul", "matmul(zeros([4294967296, 0]), zeros([0, 4294967296]))", "elements"),
    ("huge broadcast", "broadcast_to(zeros([1]), [9223372036854775807, 9223372036854775807])", "elements"),
    ("huge scalar product", "eye(3, 4294967296 * 4294967296)", "integer overflow in `*`"),
    ("huge concat axis", "let z = zeros([0, 9223372036854775807], dtype=u8); concat((z, z, z), axis=1)", "longer than can be counted"),
    ("huge f-string width", "f\"{1:>99999}\"", "the width 99999 is too large"),
];

#[test]
fn huge_literals_and_shapes() {
    run_cases(HUGE_LITERALS_AND_SHAPES);
}

#[test]
fn a_petabyte_of_zeros_names_its_size() {
    let out = eval("zeros([100000, 100000, 100000])");
    assert_eq!(crash(&out), None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("zeros: a tensor of shape [100000, 100000, 100000] has 1000000000000000 elements (3.6 PiB)"),
        "{}",
        out.stderr
    );
}

// ---- NaN ---------------------------------------------------------------------------

#[rustfmt::skip]
const NAN_WHERE_A_NUMBER_CANNOT_BE_NAN: &[Case] = &[
    ("shape from nan", "zeros(nan)", "must be a shape (an int or a list of ints), got float"),
    ("shape list with nan", "zeros([nan])", "must be a shape"),
    ("reshape to nan", "reshape([1, 2], nan)", "reshape needs ints"),
    ("rand shape nan", "rand(nan)", "must be a shape"),
    ("range of nan", "range(nan)", "argument `start` of range must be an integer, got float"),
    ("arange to nan", "arange(nan)", "cannot make a range from 0 to NaN"),
    ("arange step nan", "arange(0, 10, nan)", "with step NaN"),
    ("linspace count nan", "linspace(0, 1, num=nan)", "argument `num` of linspace must be an integer"),
    ("randint low nan", "randint(nan)", "argument `low` of randint must be an integer"),
    ("randint high nan", "randint(0, nan)", "argument `high` of randint must be an integer"),
    ("seed nan", "seed(nan)", "argument `n` of seed must be an integer"),
    ("rand seed nan", "rand([2], seed=nan)", "argument `seed` of rand must be an integer"),
    ("eye nan", "eye(nan)", "argument `n` of eye must be an integer"),
    ("eye diagonal nan", "eye(3, k=nan)", "argument `k` of eye must be an integer"),
    ("index nan", "[1, 2, 3][nan]", "an index must be an integer"),
    ("slice nan", "[1, 2, 3][nan:]", "slice bounds must be integers, not float"),
    ("axis nan", "sum([1, 2], axis=nan)", "must be an int or a list of ints, got float"),
    ("decimals nan", "round([1.5], decimals=nan)", "must be an integer, got float"),
    ("ddof nan", "std(zeros([3]), ddof=nan)", "argument `ddof` of std must be an integer"),
    ("precision nan", "print(1, precision=nan)", "argument `precision` of print must be an integer"),
    ("all-nan argmax", "nanargmax([nan, nan])", "all-NaN slice"),
    ("format nan as int", "f\"{nan:d}\"", "format spec `d` needs an integer"),
    ("conv stride nan", "conv1d(zeros([1, 1, 4]), zeros([1, 1, 2]), stride=nan)", "stride"),
    ("pool kernel nan", "max_pool2d(zeros([1, 1, 4, 4]), nan)", "kernel_size"),
];

#[test]
fn nan_where_a_number_cannot_be_nan() {
    run_cases(NAN_WHERE_A_NUMBER_CANNOT_BE_NAN);
}

// ---- conversions and comparison chains (issue #18) ---------------------------------

#[rustfmt::skip]
const CONVERSIONS_AND_CHAINS: &[Case] = &[
    ("int of a word", "int(\"x\")", "int: cannot read \"x\" as an int"),
    ("int of empty", "int(\"\")", "int: cannot read \"\" as an int"),
    ("int of a fraction", "int(\"2.5\")", "cannot read \"2.5\" as an int"),
    ("int of a lone sign", "int(\"-\")", "cannot read \"-\" as an int"),
    ("int with a bad separator", "int(\"1__000\")", "cannot read \"1__000\" as an int"),
    ("int of a huge string", "int(\"99999999999999999999999\")", "does not fit in an int (64-bit)"),
    ("int of nan", "int(nan)", "cannot convert nan to an int"),
    ("int of inf", "int(inf)", "inf does not fit in an int"),
    ("int of a huge float", "int(1e300)", "does not fit in an int (64-bit)"),
    ("int of a tuple", "int((1, 2))", "int: cannot convert tuple"),
    ("int of none", "int(none)", "int needs a value for `x`"),
    ("int of many elements", "int([1, 2])", "int: the tensor has shape [2] (2 elements)"),
    ("float of empty", "float(\"\")", "float: cannot read \"\" as a float"),
    ("float of a word", "float(\"abc\")", "float: cannot read \"abc\" as a float"),
    ("float of hex", "float(\"0x10\")", "cannot read \"0x10\" as a float"),
    ("float of a long word", "float(\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\")", "cannot read \"abcdefghijklmnopqrstuvwxyzabcdefghijklmn…\" as a float"),
    ("float of an empty tensor", "float(zeros([0]))", "float: the tensor has shape [0] (0 elements)"),
    ("float of a dict", "float({})", "float: cannot convert dict"),
    ("bool of many elements", "bool(ones([2, 3]))", "bool: the tensor has shape [2, 3] (6 elements)"),
    ("item of many elements", "arange(3).item()", "item: the tensor has shape [3] (3 elements)"),
    ("item of a string", "item(\"a\")", "item: string has no item"),
    ("tolist of a string", "\"ab\".tolist()", "tolist: string is not a tensor"),
    ("astype without dtype", "[1].astype()", "astype is missing the argument `dtype`"),
    ("astype to a word", "[1].astype(\"x\")", "dtype"),
    ("int overflow in abs", "abs(-9223372036854775807 - 1)", "integer overflow in abs"),
    ("int overflow in square", "square(4000000000)", "integer overflow in square"),
    ("chain with mismatched shapes", "[1, 2] < 3 < [1, 2, 3]", "broadcast"),
    ("chain with a bad link", "1 < \"a\" < 3", "`<` is not defined for int and string"),
    ("chain of a tensor in if", "if 0 < [1, 2] < 3 { 1 }", "ambiguous"),
];

#[test]
fn conversions_and_chains() {
    run_cases(CONVERSIONS_AND_CHAINS);
}

// ---- gradient misuse (issue #22) ---------------------------------------------------

#[rustfmt::skip]
const GRAD_MISUSE: &[Case] = &[
    ("grad of a non-scalar output", "grad(|x| x * 2.0)(tensor([1.0, 2.0]))", "one-element float tensor"),
    ("grad of an int output", "grad(|x| 3)(tensor([1.0]))", "one-element float tensor"),
    ("backward without gradient=", "let w = ones([3], requires_grad=true); (w * 2.0).backward()", "pass gradient= of that shape"),
    ("backward with a wrong gradient shape", "let w = ones([3], requires_grad=true); (w * 2.0).backward(gradient=ones([2]))", "gradient= has shape [2]"),
    ("backward of a constant", "tensor(1.0).backward()", "does not require grad"),
    ("through the complete q of a tall matrix", "grad(|a| sum(qr(a, mode=\"complete\")[0]))(ones([3, 2]))", "not differentiable: qr with mode=\"complete\""),
    ("through unique", "grad(|x| sum(unique(x)))(tensor([2.0, 1.0]))", "not differentiable: unique"),
    ("only through argmax", "grad(|x| argmax(x).to(f32))(tensor([2.0, 1.0]))", "does not depend"),
    ("argnums out of range", "grad(|x, y| sum(x), argnums=2)(tensor([1.0]), tensor([2.0]))", "argnums 2 is out of range"),
    ("argnums repeated", "grad(|x, y| sum(x), argnums=(0, 0))", "names argument 0 twice"),
    ("argnums a string", "grad(|x| sum(x), argnums=\"x\")", "argnums must be a non-negative int"),
    ("argnums negative", "grad(|x| sum(x), argnums=-1)", "argnums must be a non-negative int"),
    ("argnums empty", "grad(|x| sum(x), argnums=())", "at least one argument"),
    ("argnums naming an int tensor", "grad(|x| sum(x * 1.0))(tensor([1, 2]))", "holds no float tensor"),
    ("grad of a non-function", "grad(3)", "grad needs a function"),
    ("keyword to a grad function", "grad(|x| sum(x))(x=tensor([1.0]))", "positional arguments only"),
    ("requires_grad on i64", "zeros([2], dtype=i64, requires_grad=true)", "only float tensors can require gradients"),
    ("requires_grad_ on i64", "let x = tensor([1, 2]); x.requires_grad_()", "only float tensors can require gradients"),
    ("requires_grad_ on a non-leaf", "let w = ones([2], requires_grad=true); let y = w * 2.0; y.requires_grad_()", "applies to leaves"),
    ("in-place write to a leaf", "let w = ones([2], requires_grad=true); w[0] = 5.0", "cannot be changed in place"),
    ("compound update of a leaf", "let w = ones([2], requires_grad=true); w += 1.0", "cannot be changed in place"),
    ("in-place method on a leaf", "let w = ones([2], requires_grad=true); w.exp_()", "cannot be changed in place"),
    ("in-place write to a recorded tensor", "let w = ones([2], requires_grad=true); let y = w * 2.0; y[0] = 1.0", "cannot be changed in place"),
    ("writing a tracked value into a tensor", "let w = ones([2], requires_grad=true); let z = zeros([2]); z[0] = w[1]", "cannot be written into another tensor"),
    ("backward twice", "let w = ones([2], requires_grad=true); let l = sum(exp(w)); l.backward(); l.backward()", "a second time"),
    ("setting .grad of a non-leaf", "let w = ones([2], requires_grad=true); let y = w * 2.0; y.grad = none", "only a leaf that requires grad"),
    ("setting .grad to a wrong shape", "let w = ones([2], requires_grad=true); w.grad = ones([3])", "must be none or a tensor of shape [2]"),
    ("no_grad as a name", "let no_grad = 1", "no_grad"),
    ("a bad reduction", "cross_entropy(ones([2, 3]), tensor([0, 1]), reduction=\"avg\")", "`reduction` must be"),
    ("label_smoothing outside [0, 1]", "cross_entropy(ones([2, 3]), tensor([0, 1]), label_smoothing=1.5)", "label_smoothing must be in [0, 1]"),
    ("a target out of range", "cross_entropy(ones([2, 3]), tensor([0, 3]))", "out of bounds for 3 classes"),
    ("a negative target", "nll_loss(ones([2, 3]), tensor([0, -1]))", "out of bounds for 3 classes"),
    ("nll_loss of a 0-d input", "nll_loss(tensor(1.0), tensor(0))", "class dim"),
    ("targets of the wrong shape", "cross_entropy(ones([2, 3]), tensor([0, 1, 2]))", "needs a target of shape [2]"),
    ("probabilities of the wrong shape", "cross_entropy(ones([2, 3]), ones([2]))", "probability targets must have"),
    ("bce of an input outside [0, 1]", "binary_cross_entropy(tensor([1.5]), tensor([1.0]))", "between 0 and 1"),
    ("glu of an odd size", "glu(ones([3]))", "must be even"),
    ("embedding with float indices", "embedding(tensor([0.5]), ones([2, 2]))", "indices must be integers"),
    ("embedding out of range", "embedding(tensor([5]), ones([2, 2]))", "out of"),
    ("dropout with p above 1", "dropout(ones([2]), p=1.5)", "between 0 and 1"),
    ("linear with a 1-d weight", "linear(ones([2, 3]), ones([3]))", "weight must be [out_features, in_features]"),
    ("no_grad without a block", "no_grad 1", "expected `{`"),
];

#[test]
fn grad_misuse() {
    run_cases(GRAD_MISUSE);
}

// ---- recursion and nesting ---------------------------------------------------------

#[rustfmt::skip]
const DEEP_RECURSION: &[Case] = &[
    ("endless recursion", "fn f(n) { f(n + 1) }; f(0)", "maximum call depth (1000) exceeded in `f`"),
    ("just too deep", "fn f(n) { if n == 0 { 0 } else { 1 + f(n - 1) } }; f(1001)", "maximum call depth"),
    ("mutual recursion", "fn a(n) { b(n) }; fn b(n) { a(n) }; a(1)", "maximum call depth (1000) exceeded in `a`"),
    ("recursive closure", "let f = |n| f(n); f(1)", "maximum call depth"),
    ("recursive method", "fn f(n) { n.f() }; f(1)", "maximum call depth"),
    ("a chain of 100000 closures", "let f = |x| x; for i in range(100000) { let g = f; f = |x| g(x) }; f(1)", "maximum call depth"),
    ("default refers to itself", "fn f(x = f()) { 1 }; f()", "undefined name `f`"),
];

#[test]
fn deep_recursion() {
    run_cases(DEEP_RECURSION);
}

/// `open + "1" + close`, each repeated `n` times.
fn nest(open: &str, close: &str, n: usize) -> String {
    format!("{}1{}", open.repeat(n), close.repeat(n))
}

#[test]
fn a_100000_deep_expression_is_an_error() {
    const N: usize = 100_000;
    let dir = scratch_dir("bad_inputs", "deep_expression");
    #[rustfmt::skip]
    let cases = [
        ("parentheses", nest("(", ")", N)),
        ("unary minus", nest("-", "", N)),
        ("list brackets", nest("[", "]", N)),
        ("not", nest("not ", "", N)),
        ("tilde", nest("~", "", N)),
        ("blocks", nest("{", "}", N)),
        ("calls", nest("abs(", ")", N)),
        ("ifs", nest("if true {", "}", N)),
        ("lambdas", nest("|x| ", "", N)),
        ("power chain", vec!["2"; N].join(" ** ")),
        ("sum chain", vec!["1"; N].join(" + ")),
        ("index chain", format!("let x = [1]; x{}", "[0]".repeat(N))),
        ("method chain", format!("let x = 1; x{}", ".abs()".repeat(N))),
    ];
    let failures = cases
        .iter()
        .filter_map(|(name, code)| {
            let path = dir.join(format!("{}.tsr", name.replace(' ', "_")));
            fs::write(&path, code).unwrap();
            let out = tsr(&[path.to_str().unwrap()], None);
            diagnostic_problem(&out, "nested").map(|p| format!("{name}: {p}"))
        })
        .collect();
    report("deep expressions", cases.len(), failures);
}

// ---- script files ------------------------------------------------------------------

#[test]
fn script_files_with_bad_bytes() {
    let dir = scratch_dir("bad_inputs", "script_bytes");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };

    // A script that is not UTF-8 cannot be read (a usage error, exit 2, like a missing file).
    let latin1 = write("latin1.tsr", b"let x = 1\nprint(\"caf\xe9\")\n");
    let out = tsr(&[&latin1], None);
    assert_eq!(crash(&out), None);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("UTF-8"), "{}", out.stderr);
    let out = tsr(&[], Some("print(1)")); // stdin itself is fine
    assert_eq!(out.stdout, "1\n");

    // Importing it is an error at the import.
    write("lib.tsr", b"let y = \xff\xfe\n");
    let out = tsr_in(&["-e", "import \"lib.tsr\" as m"], None, Some(&dir));
    assert_eq!(diagnostic_problem(&out, "UTF-8"), None);

    // A NUL byte and a lone carriage return are errors with a position.
    let nul = write("nul.tsr", b"print(1)\0\n");
    assert_eq!(
        diagnostic_problem(&tsr(&[&nul], None), "unexpected character `\\0`"),
        None
    );
    let cr = write("cr.tsr", b"let x = 1\rprint(x)\r");
    assert_eq!(
        diagnostic_problem(&tsr(&[&cr], None), "found `print`"),
        None
    );
    // A byte-order mark is skipped.
    let bom = write("bom.tsr", "\u{FEFF}print(1)\n".as_bytes());
    assert_eq!(tsr(&[&bom], None).stdout, "1\n");
}

// ---- damaged files -----------------------------------------------------------------

/// The test's scratch directory with small files tsr wrote itself: `a.npy`,
/// `a.safetensors`, `a.gguf` (two tensors, one quantized, and metadata of several
/// kinds) and `a.npz`.
fn small_files(test: &str) -> PathBuf {
    let dir = scratch_dir("bad_inputs", test);
    let out = tsr_in(
        &[
            "-e",
            r#"save("a.npy", [[1.5, 2], [3, 4]])
               save_safetensors("a.safetensors", {"w": [[1.5, 2], [3, 4]], "b": [1, 2, 3]})
               save_gguf("a.gguf", {"w": [[1.5, 2], [3, 4]], "q": quantize(ones([1, 32]), "q8_0")},
                         metadata={"general.name": "tiny", "n": 3, "arr": (1, 2), "names": ("a", "b")})
               save_npz("a.npz", {"x": [1, 2], "y": ones([2, 2])}, compressed=true)"#,
        ],
        None,
        Some(&dir),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    dir
}

/// Code that opens `file` with the loader for its format and touches every tensor.
fn load_code(file: &str) -> String {
    match file.rsplit('.').next() {
        Some("npy") => format!("print(load({file:?}))"),
        Some("safetensors") => format!("print(load_safetensors({file:?}))"),
        Some("npz") => format!("print(load_npz({file:?}))"),
        Some("gguf") => format!(
            "let m = load_gguf({file:?}); print(m.metadata); for k in m.tensors {{ print(m.tensors[k]) }}"
        ),
        _ => unreachable!("{file}"),
    }
}

/// Writes every proper prefix of `dir/file` to `dir/cut.EXT` and checks that loading it
/// (or `tsr inspect` with `inspect`) is an error with `prefix`.
fn every_truncation_fails(dir: &Path, file: &str, prefix: &str, inspect: bool) {
    let bytes = fs::read(dir.join(file)).unwrap();
    let ext = file.rsplit('.').next().unwrap();
    let cut = format!("cut.{ext}");
    let code = load_code(&cut);
    let failures = (0..bytes.len())
        .filter_map(|len| {
            fs::write(dir.join(&cut), &bytes[..len]).unwrap();
            let out = if inspect {
                tsr_in(&["inspect", &cut], None, Some(dir))
            } else {
                tsr_in(&["-e", &code], None, Some(dir))
            };
            let problem = file_error_problem(&out, prefix)
                .or_else(|| (!inspect && !out.stderr.contains("╭─[")).then(|| "no span".into()));
            problem.map(|p| format!("{file} cut to {len} bytes: {p}"))
        })
        .collect();
    report("truncations", bytes.len(), failures);
    // The whole file loads.
    let out = tsr_in(&["-e", &load_code(file)], None, Some(dir));
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn every_truncation_of_a_file_is_an_error() {
    let dir = small_files("truncated");
    for (file, prefix) in [
        ("a.npy", "npy: "),
        ("a.safetensors", "safetensors: "),
        ("a.gguf", "gguf: "),
        ("a.npz", "npz: "),
    ] {
        every_truncation_fails(&dir, file, prefix, false);
    }
}

#[test]
fn inspect_every_truncation() {
    let dir = small_files("truncated_inspect");
    every_truncation_fails(&dir, "a.npy", "npy: ", true);
    every_truncation_fails(&dir, "a.safetensors", "safetensors: ", true);
    every_truncation_fails(&dir, "a.gguf", "gguf: ", true);
}

/// Writes `bytes` to `dir/file`, loads it, and checks for an error with `prefix` that
/// says `expected`.
fn damaged_file_problem(dir: &Path, file: &str, bytes: &[u8], expected: &str) -> Option<String> {
    fs::write(dir.join(file), bytes).unwrap();
    let out = tsr_in(&["-e", &load_code(file)], None, Some(dir));
    let prefix = format!("{}: ", file.rsplit('.').next().unwrap());
    file_error_problem(&out, &prefix)
        .or_else(|| diagnostic_problem(&out, expected))
        .map(|p| format!("{expected:?}: {p}"))
}

/// `bytes` with `new` written over the bytes at `at`.
fn patched(bytes: &[u8], at: usize, new: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + new.len()].copy_from_slice(new);
    out
}

/// An `.npy` file with `from` replaced by `to` in its header, the padding adjusted so
/// the header keeps its length.
fn npy_with_header(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    let changed = header.replacen(from, to, 1);
    assert_ne!(changed, header, "{from:?} is not in the header");
    let body = changed.trim_end_matches(['\n', ' ']);
    let padded = format!("{body:<width$}\n", width = header_len - 1);
    assert_eq!(padded.len(), header_len, "{to:?} does not fit the header");
    [&bytes[..10], padded.as_bytes(), &bytes[10 + header_len..]].concat()
}

#[test]
fn corrupt_npy_headers() {
    let dir = small_files("corrupt_npy");
    let good = fs::read(dir.join("a.npy")).unwrap();
    #[rustfmt::skip]
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (patched(&good, 0, b"\x93NUMPX"), "bad magic"),
        (patched(&good, 6, &[9, 0]), "unsupported format version 9.0"),
        (patched(&good, 8, &[0xff, 0xff]), "truncated header"),
        (npy_with_header(&good, "<f4", "<c8"), "unsupported dtype descr '<c8'"),
        (npy_with_header(&good, "(2, 2)", "(99999999999, 99999999999)"), "too large"),
        (npy_with_header(&good, "(2, 2)", "(4294967296, 4294967296, 4294967296)"), "npy: "),
        (npy_with_header(&good, "(2, 2)", "(-1, 2)"), "npy: "),
        (npy_with_header(&good, "(2, 2)", "(3, 3)"), "truncated data"),
        (npy_with_header(&good, "False", "Maybe"), "npy: "),
        (npy_with_header(&good, "'shape'", "'shapes'"), "unexpected header key 'shapes'"),
    ];
    let failures = cases
        .iter()
        .filter_map(|(bytes, expected)| damaged_file_problem(&dir, "bad.npy", bytes, expected))
        .collect();
    report("corrupt .npy files", cases.len(), failures);
}

/// A safetensors file: the header length, the JSON header, then `data`.
fn safetensors_file(json: &str, data: &[u8]) -> Vec<u8> {
    [
        &(json.len() as u64).to_le_bytes()[..],
        json.as_bytes(),
        data,
    ]
    .concat()
}

#[test]
fn corrupt_safetensors_headers() {
    let dir = small_files("corrupt_safetensors");
    let good = fs::read(dir.join("a.safetensors")).unwrap();
    let tensor = |dtype: &str, shape: &str, offsets: &str| {
        format!(r#"{{"w":{{"dtype":"{dtype}","shape":{shape},"data_offsets":{offsets}}}}}"#)
    };
    let data = [0u8; 8];
    #[rustfmt::skip]
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (patched(&good, 0, &u64::MAX.to_le_bytes()), "header too large"),
        (patched(&good, 0, &(good.len() as u64).to_le_bytes()), "truncated file"),
        (patched(&good, 8, b"["), "invalid JSON in header"),
        (safetensors_file("hello", &data), "invalid JSON in header"),
        (safetensors_file(&tensor("F32", "[2]", "[0,99999999999]"), &data), "invalid shape, data type, or offset"),
        (safetensors_file(&tensor("F32", "[3]", "[0,8]"), &data), "invalid shape, data type, or offset"),
        (safetensors_file(&tensor("F32", "[4294967296,4294967296,4294967296]", "[0,8]"), &data), "overflow"),
        (safetensors_file(&tensor("F32", "[-2]", "[0,8]"), &data), "invalid JSON in header"),
        (safetensors_file(&tensor("F32", "[2]", "[8,0]"), &data), "invalid offset for tensor `w`"),
        (safetensors_file(&tensor("F8_E4M3", "[2]", "[0,2]"), &data[..2]), "dtype F8_E4M3, which tsr does not support"),
        (safetensors_file(&tensor("Q9", "[2]", "[0,8]"), &data), "unknown variant `Q9`"),
        (safetensors_file(&tensor("F32", "[2]", "[0,8]"), &[0; 9]), "incomplete metadata"),
    ];
    let failures = cases
        .iter()
        .filter_map(|(bytes, expected)| {
            damaged_file_problem(&dir, "bad.safetensors", bytes, expected)
        })
        .collect();
    report("corrupt .safetensors files", cases.len(), failures);
}

/// Where the tensor info of the tensor named `name` (one letter) starts in a GGUF file:
/// its name length (8 bytes) and name, then at +9 the dims count (4), at +13 two
/// extents (8 each), at +29 the type (4), at +33 the data offset (8), up to +41.
fn gguf_tensor_info(bytes: &[u8], name: u8) -> usize {
    let mut info = 1u64.to_le_bytes().to_vec();
    info.push(name);
    bytes
        .windows(info.len())
        .position(|b| b == info)
        .expect("the tensor info")
}

#[test]
fn corrupt_gguf_headers() {
    let dir = small_files("corrupt_gguf");
    let good = fs::read(dir.join("a.gguf")).unwrap();
    let w = gguf_tensor_info(&good, b'w');
    let key0 = 24; // the first metadata key: its length, then "general.name"
    let u32_max = u32::MAX.to_le_bytes();
    let u64_max = u64::MAX.to_le_bytes();
    let extents = |a: u64, b: u64| [a.to_le_bytes(), b.to_le_bytes()].concat();
    #[rustfmt::skip]
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (patched(&good, 0, b"GGUX"), "bad magic"),
        (patched(&good, 4, &1u32.to_le_bytes()), "unsupported version 1"),
        (patched(&good, 4, &u32_max), "unsupported version 4294967295"),
        (patched(&good, 8, &u64_max), "the tensor count at byte 8 is 18446744073709551615"),
        (patched(&good, 16, &u64_max), "the metadata count at byte 16 is 18446744073709551615"),
        (patched(&good, key0, &u64_max), "metadata key #0 at byte 24 has length 18446744073709551615"),
        (patched(&good, key0 + 8 + 12, &u32_max), "unknown value type 4294967295"),
        (patched(&good, w + 9, &u32_max), "has 4294967295 dimensions"),
        (patched(&good, w + 13, &u64_max), "extent 18446744073709551615"),
        (patched(&good, w + 13, &extents(1, 1 << 63)), "gguf: "),
        (patched(&good, w + 13, &extents(1 << 32, 1 << 32)), "is too large"),
        (patched(&good, w + 29, &u32_max), "unknown GGML type id 4294967295"),
        (patched(&good, w + 29, &12u32.to_le_bytes()), "not a whole number of q4_k blocks"),
        (patched(&good, w + 33, &u64_max), "data offset 18446744073709551615"),
        (patched(&good, w + 33, &(1u64 << 40).to_le_bytes()), "gguf: "),
    ];
    let failures = cases
        .iter()
        .filter_map(|(bytes, expected)| damaged_file_problem(&dir, "bad.gguf", bytes, expected))
        .collect();
    report("corrupt .gguf files", cases.len(), failures);
}

/// Sets each byte of the header of `file` (before its first tensor's data) to each of
/// `values` in turn: loading must succeed or fail with the format's prefix.
fn no_byte_of_the_header_crashes(dir: &Path, file: &str, header_len: usize, values: &[u8]) {
    let good = fs::read(dir.join(file)).unwrap();
    let ext = file.rsplit('.').next().unwrap();
    let bad = format!("flipped.{ext}");
    let code = load_code(&bad);
    let mut failures = Vec::new();
    for at in 0..header_len.min(good.len()) {
        for &v in values {
            fs::write(dir.join(&bad), patched(&good, at, &[v])).unwrap();
            let out = tsr_in(&["-e", &code], None, Some(dir));
            let problem = match out.code {
                0 => crash(&out),
                _ => file_error_problem(&out, &format!("{ext}: ")),
            };
            if let Some(p) = problem {
                failures.push(format!("byte {at} set to {v:#04x}: {p}"));
            }
        }
    }
    report("flipped bytes", header_len * values.len(), failures);
}

#[test]
fn no_single_byte_of_a_gguf_header_crashes() {
    let dir = small_files("flipped_gguf");
    let good = fs::read(dir.join("a.gguf")).unwrap();
    // The header ends with the tensor info of 'q', the last tensor.
    let end = gguf_tensor_info(&good, b'q') + 41;
    no_byte_of_the_header_crashes(&dir, "a.gguf", end, &[0xff, 0x00]);
}

#[test]
fn no_single_byte_of_npy_and_safetensors_headers_crashes() {
    let dir = small_files("flipped_npy_safetensors");
    no_byte_of_the_header_crashes(&dir, "a.npy", 128, &[0xff]);
    let st = fs::read(dir.join("a.safetensors")).unwrap();
    let header_len = 8 + u64::from_le_bytes(st[..8].try_into().unwrap()) as usize;
    no_byte_of_the_header_crashes(&dir, "a.safetensors", header_len, &[0xff]);
}

// ---- accepted on purpose -----------------------------------------------------------

/// Hostile-looking inputs that tsr defines (as NumPy or IEEE do): they run, exit 0, and
/// print what is given.
#[test]
fn accepted_hostile_inputs() {
    #[rustfmt::skip]
    let cases = [
        ("1 / 0", "inf"),
        ("0 / 0", "nan"),
        ("1.0 // 0", "inf"),
        ("5 % 0.0", "nan"),
        ("[1.0, -1.0] / 0", "[ inf -inf]"),
        ("[1.0] % 0", "[nan]"),
        ("1e999", "inf"),
        ("1e-999", "0.0"),
        ("sum([nan, 1.0])", "nan"),
        ("max([nan, 1.0])", "nan"),
        ("argmax([1.0, nan])", "1"),
        ("nanmax([nan, 1.0])", "1.0"),
        ("nansum([nan, nan])", "0.0"),
        ("nanmean([nan, nan])", "nan"),
        ("unique([nan, 1.0, nan])", "[ 1. nan]"),
        ("softmax([nan, 1.0])", "[nan nan]"),
        ("full([2], nan)", "[nan nan]"),
        ("sqrt(-1.0)", "nan"),
        ("log(0.0)", "-inf"),
        ("exp([1000.0])", "[inf]"),
        ("mean(zeros([0]))", "nan"),
        ("[nan] == [nan]", "[False]"),
        ("f\"{nan:.2f} {inf:e}\"", "nan inf"),
        ("\"🙂\"[0]", "🙂"),
        ("len(\"naïve🙂\")", "6"),
        ("let größe = 2; größe * 3", "6"),
        ("let 變數 = [1, 2]; 變數 * 2", "[2 4]"),
        ("zeros([0, 9223372036854775807]).shape", "(0, 9223372036854775807)"),
        ("if range(-9223372036854775807 - 1, 9223372036854775807) { 1 } else { 2 }", "1"),
        ("quantize(full([1, 32], nan), \"q8_0\")", "<quantized q8_0[1, 32], 34 bytes>"),
        ("split(zeros([4]), [9223372036854775807, -9223372036854775807 - 1])", "([0. 0. 0. 0.], [], [0. 0. 0. 0.])"),
        ("fn f(a, b = 1, c = 2) { a + b + c }; f(1)", "4"),
        ("zeros([3])[::9223372036854775807]", "[0.]"),
        ("zeros([3])[1:2:9223372036854775807]", "[0.]"),
        ("zeros([3])[::-9223372036854775807 - 1]", "[0.]"),
        ("zeros([2, 3])[::4611686018427387904]", "[[0. 0. 0.]]"),
        ("(1, 2, 3)[::9223372036854775807]", "(1,)"),
        ("(1, 2, 3)[-9223372036854775807 - 1:9223372036854775807:-9223372036854775807 - 1]", "()"),
        ("let x = zeros([3]); x[::-9223372036854775807 - 1] = 1; x", "[0. 0. 1.]"),
    ];
    let failures = cases
        .iter()
        .filter_map(|&(code, want)| {
            let out = eval(code);
            let problem = crash(&out).or_else(|| {
                (out.code != 0 || out.stdout != format!("{want}\n")).then(|| {
                    format!(
                        "exit {}, printed {:?}:\n{}",
                        out.code, out.stdout, out.stderr
                    )
                })
            });
            problem.map(|p| format!("`{code}`: {p}"))
        })
        .collect();
    report("accepted inputs", cases.len(), failures);
}

// ---- Issue #17: files under the memory limit, path kinds, escapes, rank, work ----

/// A command-line case: a name, the arguments, the exit code, and phrases the
/// output (stdout and stderr) must contain.
struct Command {
    name: &'static str,
    args: Vec<String>,
    code: i32,
    says: Vec<String>,
}

fn command(name: &'static str, args: &[&str], code: i32, says: &[&str]) -> Command {
    Command {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        code,
        says: says.iter().map(|s| s.to_string()).collect(),
    }
}

/// Runs every case in `dir`; besides its own phrases, no output may hold a raw
/// control or bidirectional-override character from a file.
fn run_commands(what: &str, dir: &Path, cases: &[Command]) {
    let failures = cases
        .iter()
        .filter_map(|c| {
            let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
            let out = tsr_in(&args, None, Some(dir));
            let all = format!("{}{}", out.stdout, out.stderr);
            let problem = if let Some(p) = crash(&out) {
                Some(p)
            } else if out.code != c.code || !c.says.iter().all(|s| all.contains(s.as_str())) {
                Some(format!(
                    "expected exit {} and {:?}, got exit {}:\n{all}",
                    c.code, c.says, out.code
                ))
            } else if all.contains(['\x1b', '\x07', '\0', '\u{202e}', '\u{2066}']) {
                Some(format!(
                    "a raw control character reached the output:\n{all:?}"
                ))
            } else {
                None
            };
            problem.map(|p| format!("{}: {p}", c.name))
        })
        .collect();
    report(what, cases.len(), failures);
}

/// Files of 2 MiB each (one array of zeros) in every format, made by tsr itself.
fn big_files(test: &str) -> PathBuf {
    let dir = scratch_dir("bad_inputs", test);
    let out = tsr_in(
        &[
            "-e",
            r#"let w = zeros([512, 1024])
               save("big.npy", w)
               save_npz("big.npz", {"w": w}, compressed=true)
               save_npz("stored.npz", {"w": w})
               save_safetensors("big.safetensors", {"w": w})
               save_gguf("big.gguf", {"w": w})
               save("small.npy", [1.5, 2])"#,
        ],
        None,
        Some(&dir),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    dir
}

// Issue #17, item 5: `tsr --max-memory 100MiB -e 'load_npz("bomb.npz")'` inflated
// a 1 MB archive to 1 GiB; a 200 MiB .npy loaded under a 100 MiB limit; `tsr
// inspect` inflated every member to print its table.
#[test]
fn loaders_check_the_memory_limit_before_reading() {
    let dir = big_files("loaders_under_max_memory");
    let over = "more than the memory limit of 1.0 MiB allows";
    let limit = ["--max-memory", "1MiB"];
    let e = |code: &'static str| [&limit[..], &["-e", code]].concat();
    let inspect = |file: &'static str| [&limit[..], &["inspect", file]].concat();
    #[rustfmt::skip]
    let cases = vec![
        command("npy", &e(r#"load("big.npy")"#), 1, &["npy: a tensor of shape [512, 1024]", over, "big.npy"]),
        command("npz deflated", &e(r#"load_npz("big.npz")"#), 1, &["npz: member 'w.npy': a tensor of shape [512, 1024]", over, "big.npz"]),
        command("npz stored", &e(r#"load_npz("stored.npz")"#), 1, &["npz: member 'w.npy'", over, "stored.npz"]),
        command("safetensors", &e(r#"load_safetensors("big.safetensors")"#), 1, &["safetensors: tensor 'w': a tensor of shape [512, 1024]", over, "big.safetensors"]),
        command("gguf dense", &e(r#"let m = load_gguf("big.gguf"); m.tensors["w"]"#), 1, &["gguf: tensor 'w': a tensor of shape [512, 1024]", over]),
        command("gguf opens", &e(r#"let m = load_gguf("big.gguf"); print(m.tensors)"#), 0, &["<mapped f32[512, 1024]>"]),
        command("small npy", &e(r#"print(load("small.npy"))"#), 0, &["[1.5 2. ]"]),
        command("inspect npy", &inspect("big.npy"), 0, &["[512, 1024]", "2097152"]),
        command("inspect npz", &inspect("big.npz"), 0, &["| w ", "[512, 1024]", "2097152"]),
        command("inspect stored npz", &inspect("stored.npz"), 0, &["[512, 1024]"]),
        command("inspect safetensors", &inspect("big.safetensors"), 0, &["[512, 1024]"]),
        command("inspect gguf", &inspect("big.gguf"), 0, &["[512, 1024]"]),
        command("inspect, = form", &["--max-memory=1MiB", "inspect", "big.npz"], 0, &["[512, 1024]"]),
    ];
    run_commands("loaders under --max-memory", &dir, &cases);
    let out = common::tsr_env(
        &["-e", r#"load_npz("big.npz")"#],
        None,
        Some(&dir),
        &[("TSR_MAX_MEMORY", Some("1MiB"))],
    );
    assert!(out.stderr.contains(over), "{}", out.stderr);
}

// Issue #17, item 6: as root, `save("/dev/full", [1])` exited 0 and replaced the
// device node with a regular file; `save("link.npy", x)` replaced the symlink.
#[test]
fn saves_refuse_what_is_not_a_regular_file() {
    let dir = scratch_dir("bad_inputs", "path_kinds");
    for ext in ["npy", "npz", "safetensors", "gguf", "svg"] {
        fs::create_dir(dir.join(format!("dir.{ext}"))).unwrap();
        let fifo = dir.join(format!("fifo.{ext}"));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", fifo.display());
        std::os::unix::fs::symlink("/dev/null", dir.join(format!("null.{ext}"))).unwrap();
    }
    let savers: [(&str, &str); 5] = [
        ("save", r#"save("P", [1])"#),
        ("save_npz", r#"save_npz("P", {"a": [1]})"#),
        ("save_safetensors", r#"save_safetensors("P", {"a": [1]})"#),
        ("save_gguf", r#"save_gguf("P", {"a": [1.0]})"#),
        ("savefig", r#"plot([1, 2]); savefig("P")"#),
    ];
    let exts = ["npy", "npz", "safetensors", "gguf", "svg"];
    let mut cases = Vec::new();
    for ((name, code), ext) in savers.iter().zip(exts) {
        for (file, kind) in [
            (format!("dir.{ext}"), "a directory"),
            (format!("fifo.{ext}"), "a FIFO (named pipe)"),
            (format!("null.{ext}"), "a character device"),
        ] {
            let path = if file.starts_with("null") {
                "/dev/null".to_string()
            } else {
                file.clone()
            };
            cases.push(Command {
                name,
                args: vec!["-e".into(), code.replace('P', &file)],
                code: 1,
                says: vec![format!("'{path}' is {kind}, not a regular file")],
            });
        }
    }
    cases.push(command(
        "save to /dev/full",
        &["-e", r#"save("/dev/full", [1])"#],
        1,
        &["'/dev/full' is a character device, not a regular file"],
    ));
    run_commands("saves to paths that are not regular files", &dir, &cases);
    // Nothing was replaced: the FIFO is still a FIFO, the link still a link.
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(dir.join("fifo.npy"))
        .unwrap()
        .file_type()
        .is_fifo());
    assert!(fs::symlink_metadata(dir.join("null.npy"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
}

// Issue #17, item 6: a save through a symlink writes the link's target.
#[test]
fn saves_through_a_symlink_replace_its_target() {
    let dir = scratch_dir("bad_inputs", "symlinks");
    fs::create_dir(dir.join("sub")).unwrap();
    let link = |target: &str, name: &str| {
        std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
    };
    link("sub/target.npy", "link.npy");
    link("sub/new.npz", "dangling.npz");
    link("link.npy", "chain.npy");
    link("loop_b.npy", "loop_a.npy");
    link("loop_a.npy", "loop_b.npy");
    let run = |code: &str| tsr_in(&["-e", code], None, Some(&dir));
    let out = run(
        r#"save("sub/target.npy", [1]); save("link.npy", [7, 8]); print(load("sub/target.npy"))"#,
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "[7 8]\n"),
        "{}",
        out.stderr
    );
    let out = run(r#"save("chain.npy", [9]); print(load("sub/target.npy"))"#);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "[9]\n"),
        "{}",
        out.stderr
    );
    let out = run(r#"save_npz("dangling.npz", {"a": [3]}); print(load_npz("sub/new.npz"))"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for name in ["link.npy", "chain.npy", "dangling.npz"] {
        let kind = fs::symlink_metadata(dir.join(name)).unwrap().file_type();
        assert!(kind.is_symlink(), "{name} was replaced");
    }
    // No temp file is left behind, beside the link or the target.
    let names = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&dir.join("sub")), ["new.npz", "target.npy"]);
    assert!(!names(&dir).iter().any(|n| n.contains(".tmp-")));
    let out = run(r#"save("loop_a.npy", [1])"#);
    assert!(
        diagnostic_problem(&out, "more than 40 symlinks").is_none(),
        "{}",
        out.stderr
    );
}

/// A minimal zip archive (stored members, no compression) of `members`.
fn stored_zip(members: &[(&str, &[u8])]) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
            }
        }
        !crc
    }
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for (name, data) in members {
        let offset = out.len() as u32;
        let fields = |sig: u32, central_entry: bool| {
            let mut h = sig.to_le_bytes().to_vec();
            if central_entry {
                h.extend_from_slice(&20u16.to_le_bytes()); // version made by
            }
            h.extend_from_slice(&20u16.to_le_bytes()); // version needed
            h.extend_from_slice(&[0; 6]); // flags, method (stored), time
            h.extend_from_slice(&[0x21, 0]); // date
            h.extend_from_slice(&crc32(data).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&[0; 2]); // extra length
            if central_entry {
                h.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
                h.extend_from_slice(&[0; 4]); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(fields(0x0403_4b50, false));
        out.extend_from_slice(data);
        central.extend(fields(0x0201_4b50, true));
    }
    let (at, len) = (out.len() as u32, central.len() as u32);
    out.extend(central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let n = (members.len() as u16).to_le_bytes();
    out.extend_from_slice(&[n, n].concat());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0; 2]);
    out
}

/// A `.npy` file of one u8 zero with `rank` dimensions of 1 (format 2.0, whose
/// header may be long).
fn npy_of_rank(rank: usize) -> Vec<u8> {
    let dims = "1, ".repeat(rank);
    let text = format!("{{'descr': '|u1', 'fortran_order': False, 'shape': ({dims}), }}\n");
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(0);
    bytes
}

// Issue #17, item 7: GGUF and safetensors names and keys holding `\x1b[2J`, BEL,
// NUL or a right-to-left override reached the terminal raw from `tsr inspect`
// and `info`.
#[test]
fn names_from_files_are_printed_escaped() {
    let dir = scratch_dir("bad_inputs", "escapes");
    let out = tsr_in(
        &[
            "-e",
            r#"let t = {"\u{1b}[2J\u{7}": [1.0], "\u{202e}evil": [2.0]}
               save_safetensors("esc.safetensors", {"\u{1b}[2J\u{7}": [1.0], "\u{202e}evil": [2.0], "nul\0": [3.0]})
               save_npz("esc.npz", t)
               save_npz("escbig.npz", {"\u{1b}[2J": zeros([512])})
               save_safetensors("escbig.safetensors", {"\u{1b}[2J": zeros([512])})
               save_gguf("esc.gguf", {"\u{1b}[2J": zeros([512])},
                         metadata={"\u{1b}]0;title\u{7}": "\u{1b}[31mred\u{2066}"})"#,
        ],
        None,
        Some(&dir),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json = r#"{"\u001b[2J":{"dtype":"F8_E5M2","shape":[2],"data_offsets":[0,2]}}"#;
    fs::write(dir.join("bad.safetensors"), safetensors_file(json, &[0; 2])).unwrap();
    let names = ["\\x1b[2J\\x07", "\\u{202e}evil", "nul\\x00"];
    let npz_names = &names[..2];
    let tiny = ["--max-memory", "1KiB"];
    #[rustfmt::skip]
    let cases = vec![
        command("inspect safetensors", &["inspect", "esc.safetensors"], 0, &names),
        command("inspect npz", &["inspect", "esc.npz"], 0, npz_names),
        command("inspect gguf", &["inspect", "esc.gguf"], 0, &["\\x1b[2J", "\\x1b]0;title\\x07", "\\u{1b}[31mred\\u{2066}"]),
        command("info safetensors", &["-e", r#"info(load_safetensors("esc.safetensors"))"#], 0, &names),
        command("info npz", &["-e", r#"info(load_npz("esc.npz"))"#], 0, npz_names),
        command("info gguf", &["-e", r#"info(load_gguf("esc.gguf"))"#], 0, &["\\x1b[2J", "\\x1b]0;title\\x07"]),
        command("error safetensors", &["-e", r#"load_safetensors("bad.safetensors")"#], 1, &["tensor '\\x1b[2J' has dtype F8_E5M2"]),
        command("inspect error safetensors", &["inspect", "bad.safetensors"], 1, &["tensor '\\x1b[2J' has dtype F8_E5M2"]),
        command("error gguf over the limit", &[&tiny[..], &["-e", r#"let m = load_gguf("esc.gguf"); m.tensors["\u{1b}[2J"]"#]].concat(), 1, &["gguf: tensor '\\x1b[2J': a tensor of shape [512]"]),
        command("error npz over the limit", &[&tiny[..], &["-e", r#"load_npz("escbig.npz")"#]].concat(), 1, &["npz: member '\\x1b[2J.npy': a tensor of shape [512]"]),
        command("error safetensors over the limit", &[&tiny[..], &["-e", r#"load_safetensors("escbig.safetensors")"#]].concat(), 1, &["safetensors: tensor '\\x1b[2J': a tensor of shape [512]"]),
    ];
    run_commands("names from files", &dir, &cases);
}

// Issue #17, item 4: a 300 KB `.npy` with 100000 dimensions took memory ∝ N² to
// print; shapes read from files are held to NumPy's 64 dimensions.
#[test]
fn shapes_read_from_files_have_at_most_64_dimensions() {
    let dir = scratch_dir("bad_inputs", "rank");
    for rank in [64, 65, 100_000] {
        let npy = npy_of_rank(rank);
        fs::write(dir.join(format!("r{rank}.npy")), &npy).unwrap();
        let zip = stored_zip(&[("x.npy", &npy)]);
        fs::write(dir.join(format!("r{rank}.npz")), zip).unwrap();
        let shape = vec!["1"; rank].join(",");
        let json = format!(r#"{{"x":{{"dtype":"U8","shape":[{shape}],"data_offsets":[0,1]}}}}"#);
        fs::write(
            dir.join(format!("r{rank}.safetensors")),
            safetensors_file(&json, &[0]),
        )
        .unwrap();
    }
    let deep = format!("[{}0{}]", "[".repeat(63), "]".repeat(63));
    #[rustfmt::skip]
    let cases = vec![
        command("npy 65", &["-e", r#"load("r65.npy")"#], 1, &["npy: the shape has 65 dimensions; tsr supports at most 64", "r65.npy"]),
        command("npy 100000", &["-e", r#"print(load("r100000.npy"))"#], 1, &["npy: the shape has 100000 dimensions; tsr supports at most 64"]),
        command("npz 65", &["-e", r#"load_npz("r65.npz")"#], 1, &["npz: member 'x.npy': the shape has 65 dimensions; tsr supports at most 64"]),
        command("npz 100000", &["-e", r#"load_npz("r100000.npz")"#], 1, &["has 100000 dimensions"]),
        command("safetensors 65", &["-e", r#"load_safetensors("r65.safetensors")"#], 1, &["safetensors: tensor 'x' has 65 dimensions; tsr supports at most 64"]),
        command("safetensors 100000", &["-e", r#"load_safetensors("r100000.safetensors")"#], 1, &["has 100000 dimensions"]),
        command("inspect npy 100000", &["inspect", "r100000.npy"], 1, &["has 100000 dimensions"]),
        command("inspect npz 65", &["inspect", "r65.npz"], 1, &["has 65 dimensions"]),
        command("inspect safetensors 65", &["inspect", "r65.safetensors"], 1, &["has 65 dimensions"]),
        command("npy 64 prints", &["-e", r#"print(load("r64.npy"))"#], 0, &[&deep]),
        command("npz 64 loads", &["-e", r#"load_npz("r64.npz")["x"].ndim"#], 0, &["64"]),
        command("safetensors 64 loads", &["-e", r#"load_safetensors("r64.safetensors")["x"].ndim"#], 0, &["64"]),
        command("inspect npy 64", &["inspect", "r64.npy"], 0, &["[1, 1, 1"]),
    ];
    run_commands("ranks of files", &dir, &cases);
}

// Issue #17, item 9: 8,000 `$ ` on one line wrote 257 MB of diagnostics (each error
// printed the whole line); 100,000 about 40 GB.
#[test]
fn many_errors_on_one_line_are_counted_not_all_printed() {
    for (n, lines) in [(8000, 1), (20_000, 1), (400, 400)] {
        let code = vec!["$ ".repeat(n / lines); lines].join("\n");
        let out = eval(&code);
        assert!(crash(&out).is_none(), "{}", out.stderr);
        assert_eq!(out.code, 1);
        // 3 errors for the first line (each showing it), the rest counted.
        let shown = out.stderr.matches("Error").count();
        assert!(shown <= 20, "{shown} errors shown");
        assert!(
            out.stderr.len() < 4 * code.len() + 20_000,
            "{} bytes of diagnostics for {} bytes of script",
            out.stderr.len(),
            code.len()
        );
        assert!(out.stderr.contains("more errors"), "{}", out.stderr);
    }
    let out = eval("let = 1\nlet = 2\nlet = 3\nlet = 4");
    assert_eq!(out.stderr.matches("Error").count(), 4, "{}", out.stderr);
    assert!(!out.stderr.contains("more error"), "{}", out.stderr);
}

// Issue #17, item 9: `tsr test`'s diff of one mismatched line of 200k numbers took
// 63 s (quadratic in the line's length). The report is bounded by its lines.
#[test]
fn a_diff_of_one_long_line_is_linear() {
    let dir = scratch_dir("bad_inputs", "long_diff");
    let n = 200_000;
    let script =
        "set_printoptions(threshold=1000000, linewidth=100000000)\nprint(arange(200000))\n";
    fs::write(dir.join("long.tsr"), script).unwrap();
    let expected: Vec<String> = (0..n).map(|i| (i + 1).to_string()).collect();
    let snap = format!(
        "tsr-snapshot: 1\nscript: long.tsr\ntsr: 0\n---\n[{}]\n",
        expected.join(" ")
    );
    fs::write(dir.join("long.tsr.snap"), snap).unwrap();
    let out = tsr_in(&["test", "--check", "long.tsr"], None, Some(&dir));
    assert!(crash(&out).is_none(), "{}", out.stderr);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("0 vs expected 1"),
        "{}",
        &out.stdout[..out.stdout.len().min(2000)]
    );
    assert!(out.stdout.contains("more report lines"));
}

// Issue #17, item 10: `tsr --threads 2 test DIR` and `tsr --max-memory 1G inspect F`
// failed with "cannot read test".
#[test]
fn global_options_come_before_a_subcommand() {
    let dir = small_files("global_options");
    fs::write(dir.join("ok.tsr"), "print(1)\n").unwrap();
    fs::write(
        dir.join("ok.tsr.snap"),
        "tsr-snapshot: 1\nscript: ok.tsr\ntsr: 0\n---\n1\n",
    )
    .unwrap();
    fs::write(dir.join("args.tsr"), "print(args())\n").unwrap();
    #[rustfmt::skip]
    let cases = vec![
        command("threads test", &["--threads", "2", "test", "ok.tsr"], 0, &["1 passed"]),
        command("threads= test", &["--threads=2", "test", "ok.tsr"], 0, &["1 passed"]),
        command("max-memory inspect", &["--max-memory", "1G", "inspect", "a.npy"], 0, &["[2, 2]"]),
        command("timeout run", &["--timeout", "5", "run", "args.tsr", "x"], 0, &["(\"x\",)"]),
        command("all three", &["--threads", "1", "--max-memory", "1G", "--timeout", "9", "inspect", "a.npz"], 0, &["2 tensors"]),
        command("after the subcommand", &["test", "--threads", "2", "ok.tsr"], 0, &["1 passed"]),
        command("a script's argument named test", &["args.tsr", "test"], 0, &["(\"test\",)"]),
        command("options then -e", &["--threads", "2", "--max-memory", "1G", "-e", "40 + 2"], 0, &["42"]),
        command("threads then a script", &["--threads", "2", "args.tsr", "run"], 0, &["(\"run\",)"]),
        command("bad option before a subcommand", &["--threads", "0", "test", "ok.tsr"], 2, &["--threads must be between 1 and 1024"]),
    ];
    run_commands("global options", &dir, &cases);
}

// ---- issue #17, round 2 --------------------------------------------------------------

/// [`run_cases_with`] for cases whose code is generated.
fn run_owned(options: &[&str], cases: &[(String, String, &'static str)]) {
    let refs: Vec<(&str, &str, &str)> = cases
        .iter()
        .map(|(n, c, e)| (n.as_str(), c.as_str(), *e))
        .collect();
    run_cases_with(options, &refs);
}

/// `" + 1"` repeated `n` times, the issue's deep expression.
fn plus_ones(n: usize) -> String {
    " + 1".repeat(n)
}

// Issue #17, item 1: `fn f(n) { if n == 0 { 0 } else { f(n - 1) + 1 + 1 … (279
// times) } }; f(999)` aborted with a stack overflow (exit 134): the call-depth and
// expression-depth limits were checked separately. One evaluation-depth budget now
// counts both, and the evaluator grows its stack on the heap before it runs low.
#[test]
fn deep_recursion_through_deep_expressions_is_a_diagnostic() {
    let deep = "evaluation nested too deeply";
    let ones = plus_ones(279);
    let not_chain = "not ".repeat(279);
    let minus_chain = "- ".repeat(279);
    let and_chain = " and true".repeat(279);
    let abs_chain = ".abs()".repeat(279);
    let cases = vec![
        ("the issue's command".to_string(),
         format!("fn f(n) {{ if n == 0 {{ 0 }} else {{ f(n - 1){ones} }} }}; f(999)"), deep),
        ("a lambda".to_string(),
         format!("let f = |n| if n == 0 {{ 0 }} else {{ f(n - 1){ones} }}; f(999)"), deep),
        ("two functions in turn".to_string(),
         format!("fn g(n) {{ f(n) }}; fn f(n) {{ if n == 0 {{ 0 }} else {{ g(n - 1){ones} }} }}; f(499)"), deep),
        ("an f-string".to_string(),
         format!("fn f(n) {{ if n == 0 {{ \"\" }} else {{ f\"{{f(n - 1)}}\"{} }} }}; f(999)", " + \"\"".repeat(279)), deep),
        ("a while loop".to_string(),
         format!("fn f(n) {{ if n == 0 {{ 0 }} else {{ let r = -1; while r < 0 {{ r = f(n - 1){ones} }}; r }} }}; f(999)"), deep),
        ("method chains".to_string(),
         format!("fn f(n) {{ if n == 0 {{ zeros([1]) }} else {{ f(n - 1){abs_chain} }} }}; f(999)"), deep),
        ("not chains".to_string(),
         format!("fn f(n) {{ if n == 0 {{ true }} else {{ {not_chain}f(n - 1) }} }}; f(999)"), deep),
        ("minus chains".to_string(),
         format!("fn f(n) {{ if n == 0 {{ 0 }} else {{ {minus_chain}f(n - 1) }} }}; f(999)"), deep),
        ("and chains".to_string(),
         format!("fn f(n) {{ if n == 0 {{ true }} else {{ f(n - 1){and_chain} }} }}; f(999)"), deep),
        ("a default argument".to_string(),
         format!("fn f(n) {{ if n == 0 {{ 0 }} else {{ fn g(x = f(n - 1){ones}) {{ x }}; g() }} }}; f(999)"), deep),
        ("plain recursion".to_string(),
         "fn f(n) { f(n + 1) }; f(0)".to_string(), "maximum call depth (1000)"),
    ];
    run_owned(&[], &cases);
}

// Nested values a loop builds are printed and compared without overflowing the stack.
#[test]
fn deeply_nested_values_print_and_compare() {
    let code = "let t = 0; for i in range(300000) { t = (t,) }; \
                let s = str(t); print(len(s), t == t)";
    let out = eval(code);
    assert!(crash(&out).is_none(), "{}", out.stderr);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "900001 true\n");
}

/// Every reduction builtin (`normalize` and `norm` too), by name.
const REDUCTIONS: &[&str] = &[
    "sum",
    "prod",
    "mean",
    "var",
    "std",
    "max",
    "min",
    "argmax",
    "argmin",
    "nansum",
    "nanprod",
    "nanmean",
    "nanmax",
    "nanmin",
    "nanargmax",
    "nanargmin",
    "any",
    "all",
    "norm",
    "normalize",
];

// Issue #17, item 2: `sum(zeros([9223372036854775807, 0]), axis=1)` was "internal
// error: capacity overflow"; `max(zeros([100000000000, 0]), axis=1)` aborted allocating
// 800 GB; the same for every reduction and normalize (one lane offset per output was
// built before any check).
#[test]
fn reductions_over_an_empty_axis_check_the_limit_first() {
    let mut cases = Vec::new();
    for name in REDUCTIONS {
        cases.push((
            format!("{name} of 10^11 empty lanes"),
            format!("{name}(zeros([100000000000, 0]), axis=1)"),
            "more than the memory limit",
        ));
        cases.push((
            format!("{name} of 2^63 - 1 empty lanes"),
            format!("{name}(zeros([9223372036854775807, 0]), axis=1)"),
            "more than the memory limit",
        ));
    }
    for name in ["sum", "max", "mean"] {
        cases.push((
            format!("{name} keeping dims"),
            format!("{name}(zeros([100000000000, 0, 3]), axis=1, keepdim=true)"),
            "more than the memory limit",
        ));
    }
    run_owned(&["--max-memory", "1GiB"], &cases);
    // No output, no lanes: a long empty lane costs nothing, as in NumPy.
    let out = eval("print(sum(zeros([0, 9223372036854775807]), axis=1).shape, max(zeros([3, 0, 2]), axis=0).shape)");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "(0,) (0, 2)\n");
}

// Issue #17, item 3: `let s = "ab"; for i in range(40) { s = s + s }` grew until an
// allocation abort, whatever --max-memory said.
#[test]
fn strings_and_dicts_are_held_to_the_memory_limit() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("the issue's command", r#"let s = "ab"; for i in range(40) { s = s + s }"#, "a string of"),
        ("compound concatenation", r#"let s = "ab"; for i in range(40) { s += s }"#, "a string of"),
        ("an f-string", r#"let s = "ab"; for i in range(40) { s = f"{s}{s}" }"#, "a string of"),
        ("a formatted f-string", r#"let s = "ab"; for i in range(40) { s = f"{s:>4}{s}" }"#, "a string of"),
        ("a dict", "let d = {}; for i in range(10000000) { d[i] = i }", "a dict of"),
        ("a dict of strings", "let d = {}; for i in range(10000000) { d[str(i)] = none }", "a dict of"),
    ];
    run_cases_with(&["--max-memory", "1MiB"], cases);
    run_cases_with(&["--max-memory", "100MiB"], &cases[..1]);
}

/// `[1, 1, …]` with `n` ones, a shape of rank `n`.
fn ones_list(n: usize) -> String {
    format!("[{}]", vec!["1"; n].join(", "))
}

// Issue #17, item 4: rank is held to NumPy's 64 wherever an op makes a shape, not
// only where a file's header is read.
#[test]
fn ops_make_shapes_of_at_most_64_dimensions() {
    let (r64, r65) = (ones_list(64), ones_list(65));
    let dims = "tsr supports at most 64";
    let cases = vec![
        ("zeros".to_string(), format!("zeros({r65})"), dims),
        ("ones".to_string(), format!("ones({r65})"), dims),
        ("full".to_string(), format!("full({r65}, 2)"), dims),
        ("rand".to_string(), format!("rand({r65})"), dims),
        (
            "reshape".to_string(),
            format!("zeros([1]).reshape({r65})"),
            dims,
        ),
        (
            "unsqueeze".to_string(),
            format!("unsqueeze(zeros({r64}), 0)"),
            dims,
        ),
        (
            "unsqueeze in a loop".to_string(),
            "let t = zeros([1]); for i in range(100) { t = unsqueeze(t, 0) }".to_string(),
            dims,
        ),
        (
            "none in an index".to_string(),
            format!("zeros({r64})[none]"),
            dims,
        ),
        (
            "none in a loop".to_string(),
            "let t = zeros([1]); for i in range(100) { t = t[none] }".to_string(),
            dims,
        ),
        (
            "many nones".to_string(),
            format!("zeros([1])[{}]", vec!["none"; 70].join(", ")),
            dims,
        ),
        (
            "nones and an ellipsis".to_string(),
            format!("zeros({r64})[none, ..., 0, none]"),
            dims,
        ),
        (
            "broadcast_to".to_string(),
            format!("broadcast_to(zeros([1]), {r65})"),
            dims,
        ),
        (
            "stack".to_string(),
            format!("stack([zeros({r64}), zeros({r64})])"),
            dims,
        ),
        (
            "a nested literal".to_string(),
            format!("{}1{}", "[".repeat(65), "]".repeat(65)),
            dims,
        ),
    ];
    run_owned(&[], &cases);
    // 64 is allowed, and `t[..., 0]` at that rank is quick.
    let out = eval(&format!(
        "let t = zeros({r64}); print(t[..., 0].ndim, t[none, ..., 0].ndim)"
    ));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "63 64\n");
}

// Issue #17, item 9: `let d = {}; for i in range(40000) { d[str(i)] = i }` took 9.3 s
// (linear lookup). 200,000 keys, stored and looked up: quadratic work would be 2·10^10
// comparisons, far past any test's run; hashed lookup is a moment.
#[test]
fn dicts_look_keys_up_by_hash_keeping_insertion_order() {
    let code = "let d = {}; for i in range(200000) { d[str(i)] = i }; \
                let total = 0; for i in range(200000) { total += d[str(i)] }; \
                d[\"7\"] = -1; let first = (); for k in d { first = k; break }; \
                print(len(d), total, d[\"7\"], first); print({\"b\": 1, \"a\": 2, 3: 4})";
    let out = eval(code);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "200000 19999900000 -1 0\n{\"b\": 1, \"a\": 2, 3: 4}\n"
    );
}

// ---- Issue #18: text files, CSV, JSON, loadtxt/savetxt, the CLI builtins ----------

/// Bad text files in a scratch directory: CSV, JSON and plain text, each broken in
/// one way, plus a directory and a FIFO to read from.
fn bad_text_files() -> PathBuf {
    let dir = scratch_dir("bad_inputs", "text_files");
    let files: &[(&str, &[u8])] = &[
        ("short.csv", b"a,b\n1,2\n3\n"),
        ("long.csv", b"a,b\n1,2,3\n"),
        ("short_crlf.csv", b"a,b\r\n1,2\r\n3\r\n"),
        ("unclosed.csv", b"a,b\n1,\"2\n"),
        ("after_quote.csv", b"a,b\n\"x\"y,2\n"),
        ("dup.csv", b"a,b,a\n1,2,3\n"),
        ("empty.csv", b""),
        ("bad_utf8.csv", b"a,b\n1,\xff\n"),
        ("broken.json", b"{\"a\": [1, 2,}"),
        ("truncated.json", b"{\"a\": [1"),
        ("huge.json", b"[1e400]"),
        ("huge_neg.json", b"{\"x\": -1e999}"),
        ("trailing.json", b"[1] 2"),
        ("bad_utf8.json", b"[\"\xc3\x28\"]"),
        ("empty.json", b""),
        ("nan.json", b"[NaN]"),
        ("control.json", b"\"a\x01b\""),
        ("bad_escape.json", b"\"\\x\""),
        ("surrogate.json", b"\"\\ud800\""),
        ("int_key.json", b"{1: 2}"),
        ("word.json", b"nulx"),
        ("text.txt", b"1 2\nx 3\n"),
        ("ragged.txt", b"1 2\n3\n"),
        ("big.txt", b"300\n"),
        ("float.txt", b"1.5\n"),
        ("bad_utf8.txt", b"1 2\n\xfe\n"),
    ];
    for (name, bytes) in files {
        fs::write(dir.join(name), bytes).unwrap();
    }
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    fs::write(dir.join("deep.json"), deep).unwrap();
    let deep_obj = "{\"a\": ".repeat(200) + "1" + &"}".repeat(200);
    fs::write(dir.join("deep_obj.json"), deep_obj).unwrap();
    fs::create_dir(dir.join("adir")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("fifo.csv"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    dir
}

#[rustfmt::skip]
const BAD_TEXT_READS: &[Case] = &[
    ("short csv row", r#"load_csv("short.csv")"#, "csv: short.csv:3: the row has 1 field, the header has 2"),
    ("long csv row", r#"load_csv("long.csv")"#, "csv: long.csv:2: the row has 3 fields, the header has 2"),
    ("short csv row, CRLF", r#"load_csv("short_crlf.csv")"#, "short_crlf.csv:3: the row has 1 field"),
    ("unclosed quote", r#"load_csv("unclosed.csv")"#, "csv: unclosed.csv:2:3: this quoted field is never closed"),
    ("text after a quote", r#"load_csv("after_quote.csv")"#, "after_quote.csv:2:4: after the closing quote, expected the delimiter"),
    ("duplicate column", r#"load_csv("dup.csv")"#, "the column name \"a\" appears twice (columns 1 and 3)"),
    ("empty csv", r#"load_csv("empty.csv")"#, "csv: empty.csv: the file is empty (no header row)"),
    ("csv not UTF-8", r#"load_csv("bad_utf8.csv")"#, "csv: bad_utf8.csv:2:3: the file is not valid UTF-8 (byte 0xff)"),
    ("csv two-char delimiter", r#"load_csv("short.csv", delimiter=";;")"#, "the delimiter must be one character"),
    ("csv non-ASCII delimiter", r#"load_csv("short.csv", delimiter="é")"#, "the CSV delimiter must be an ASCII character"),
    ("csv missing file", r#"load_csv("nope.csv")"#, "csv: cannot open 'nope.csv'"),
    ("csv directory", r#"load_csv("adir")"#, "csv: 'adir' is a directory, not a regular file"),
    ("csv FIFO", r#"load_csv("fifo.csv")"#, "csv: 'fifo.csv' is a FIFO (named pipe), not a regular file"),
    ("broken json", r#"load_json("broken.json")"#, "json: broken.json:1:13: expected value"),
    ("truncated json", r#"load_json("truncated.json")"#, "json: truncated.json:1:8: EOF while parsing a list"),
    ("json 100000 deep", r#"load_json("deep.json")"#, "json: deep.json:1:128: the value is nested more than 128 deep"),
    ("json objects 200 deep", r#"load_json("deep_obj.json")"#, "the value is nested more than 128 deep"),
    ("json huge number", r#"load_json("huge.json")"#, "json: huge.json:1:6: the number is out of range (beyond f64)"),
    ("json huge negative", r#"load_json("huge_neg.json")"#, "the number is out of range"),
    ("json trailing", r#"load_json("trailing.json")"#, "json: trailing.json:1:5: trailing characters"),
    ("json not UTF-8", r#"load_json("bad_utf8.json")"#, "json: bad_utf8.json:1:3: the file is not valid UTF-8 (byte 0xc3)"),
    ("empty json", r#"load_json("empty.json")"#, "json: empty.json:1:0: EOF while parsing a value"),
    ("json NaN", r#"load_json("nan.json")"#, "json: nan.json:1:2: expected value"),
    ("json control character", r#"load_json("control.json")"#, "control character"),
    ("json bad escape", r#"load_json("bad_escape.json")"#, "invalid escape"),
    ("json lone surrogate", r#"load_json("surrogate.json")"#, "surrogate.json:1:8: unexpected end of hex escape"),
    ("json int key", r#"load_json("int_key.json")"#, "key must be a string"),
    ("json bare word", r#"load_json("word.json")"#, "expected a JSON value"),
    ("json missing file", r#"load_json("nope.json")"#, "json: cannot open 'nope.json'"),
    ("json directory", r#"load_json("adir")"#, "'adir' is a directory"),
    ("loadtxt text", r#"loadtxt("text.txt")"#, "loadtxt: text.txt:2:1: could not convert 'x' to f32"),
    ("loadtxt ragged", r#"loadtxt("ragged.txt")"#, "loadtxt: ragged.txt:2: the number of columns changed from 2 (line 1) to 1"),
    ("loadtxt usecols", r#"loadtxt("ragged.txt", usecols=5)"#, "loadtxt: ragged.txt:1: invalid column index 5 for a line with 2 columns"),
    ("loadtxt u8 overflow", r#"loadtxt("big.txt", dtype=u8)"#, "loadtxt: big.txt:1:1: could not convert '300' to u8"),
    ("loadtxt float as int", r#"loadtxt("float.txt", dtype=i64)"#, "could not convert '1.5' to i64"),
    ("loadtxt two-char delimiter", r#"loadtxt("text.txt", delimiter="::")"#, "the delimiter must be one character"),
    ("loadtxt not UTF-8", r#"loadtxt("bad_utf8.txt")"#, "loadtxt: bad_utf8.txt:2:1: the file is not valid UTF-8 (byte 0xfe)"),
    ("loadtxt missing", r#"loadtxt("nope.txt")"#, "loadtxt: cannot open 'nope.txt'"),
    ("loadtxt negative skiprows", r#"loadtxt("text.txt", skiprows=-1)"#, "must not be negative"),
    ("read_text not UTF-8", r#"read_text("bad_utf8.txt")"#, "read_text: bad_utf8.txt:2:1: the file is not valid UTF-8"),
    ("read_text directory", r#"read_text("adir")"#, "read_text: 'adir' is a directory, not a regular file"),
    ("read_text FIFO", r#"read_text("fifo.csv")"#, "a FIFO (named pipe), not a regular file"),
    ("read_text missing", r#"read_text("nope.txt")"#, "read_text: cannot open 'nope.txt'"),
    ("list_dir of a file", r#"list_dir("text.txt")"#, "list_dir: cannot list 'text.txt'"),
    ("list_dir missing", r#"list_dir("nope")"#, "list_dir: cannot list 'nope'"),
];

#[rustfmt::skip]
const BAD_TEXT_WRITES: &[Case] = &[
    ("save_json nan", r#"save_json("o.json", {"a": (1, nan)})"#, "value[\"a\"][1] is nan; JSON has no nan or inf"),
    ("save_json inf tensor", r#"save_json("o.json", {"w": [1.0, inf]})"#, "value[\"w\"] is inf"),
    ("save_json int key", r#"save_json("o.json", {1: 2})"#, "has the key 1; JSON object keys are strings"),
    ("save_json function", r#"save_json("o.json", {"f": len})"#, "value[\"f\"] is function, which JSON cannot hold"),
    ("save_json range", r#"save_json("o.json", range(3))"#, "value is range, which JSON cannot hold"),
    ("save_json dtype", r#"save_json("o.json", (f32,))"#, "value[0] is dtype"),
    ("save_json 200 deep", "let t = ()\nfor i in range(200) { t = (t,) }\nsave_json(\"o.json\", t)", "is nested more than 128 deep, more than load_json reads"),
    ("save_json directory", r#"save_json("adir", 1)"#, "'adir' is a directory, not a regular file"),
    ("save_json FIFO", r#"save_json("fifo.csv", 1)"#, "'fifo.csv' is a FIFO (named pipe), not a regular file"),
    ("savetxt 3-D", r#"savetxt("o.txt", zeros([2, 2, 2]))"#, "savetxt: expected a 1-D or 2-D tensor, got 3 dimensions"),
    ("savetxt 0-d", r#"savetxt("o.txt", 1.5)"#, "expected a 1-D or 2-D tensor, got 0 dimensions"),
    ("savetxt %s", r#"savetxt("o.txt", [1], fmt="%s")"#, "has the conversion `%s`"),
    ("savetxt unfinished", r#"savetxt("o.txt", [1], fmt="%.3")"#, "ends inside a conversion"),
    ("savetxt wide", r#"savetxt("o.txt", [1], fmt="%99999d")"#, "a width or precision over 1000"),
    ("savetxt conversions", r#"savetxt("o.txt", zeros([2, 3]), fmt="%d %d")"#, "has 2 conversions for 3 columns"),
    ("savetxt nan as int", r#"savetxt("o.txt", [1.0, nan], fmt="%d")"#, "savetxt: cannot format NaN with %d"),
    ("savetxt directory", r#"savetxt("adir", [1])"#, "'adir' is a directory"),
    ("save_csv lengths", r#"save_csv("o.csv", {"a": [1, 2], "b": [1]})"#, "columns differ in length: \"a\" has 2, \"b\" has 1"),
    ("save_csv 2-D column", r#"save_csv("o.csv", {"a": zeros([2, 2])})"#, "column \"a\": expected a 1-D tensor or a tuple, got tensor f32[2, 2]"),
    ("save_csv not a dict", r#"save_csv("o.csv", [1, 2])"#, "expected a dict column name -> 1-D tensor or tuple"),
    ("save_csv dict in a tuple", r#"save_csv("o.csv", {"a": ({},)})"#, "a tuple column holds strings, numbers, bools or none, not dict"),
    ("save_csv no columns", r#"save_csv("o.csv", {})"#, "save_csv needs at least one column"),
    ("save_csv int key", r#"save_csv("o.csv", {1: [1]})"#, "column names must be strings, got 1"),
    ("save_csv directory", r#"save_csv("adir", {"a": [1]})"#, "'adir' is a directory"),
    ("write_text directory", r#"write_text("adir", "x")"#, "'adir' is a directory, not a regular file"),
    ("write_text not a string", r#"write_text("o.txt", 1)"#, "argument `s` of write_text must be a string, got int"),
    ("exit -1", "exit(-1)", "an exit code is 0 to 255, got -1"),
    ("exit 256", "exit(256)", "an exit code is 0 to 255, got 256"),
    ("exit string", r#"exit("1")"#, "argument `code` of exit must be an integer, got string"),
    ("env empty name", r#"env("")"#, "cannot name an environment variable"),
    ("env name with =", r#"env("A=B")"#, "\"A=B\" cannot name an environment variable"),
    ("env name not a string", "env(1)", "argument `name` of env must be a string, got int"),
];

/// Runs each case with `tsr -e CODE` in `dir` and checks its diagnostic.
fn run_cases_in(dir: &Path, cases: &[Case]) {
    let failures = cases
        .iter()
        .filter_map(|&(name, code, expected)| {
            let out = tsr_in(&["-e", code], None, Some(dir));
            diagnostic_problem(&out, expected).map(|p| format!("{name} `{code}`: {p}"))
        })
        .collect();
    report("cases", cases.len(), failures);
}

// Issue #18: "a malformed file is a diagnostic with file and line": short rows, bad
// quoting, invalid UTF-8, deep nesting, huge numbers; never a panic, exit 1.
#[test]
fn bad_text_files_are_diagnostics() {
    let dir = bad_text_files();
    run_cases_in(&dir, BAD_TEXT_READS);
    run_cases_in(&dir, BAD_TEXT_WRITES);
    // A failed save leaves nothing behind, not even its temp file.
    let left: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("o.") || n.starts_with(".o."))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn text_readers_check_the_memory_limit() {
    let dir = scratch_dir("bad_inputs", "text_limit");
    let row = "1,2,3,4,5,6,7,8\n".repeat(4096);
    fs::write(dir.join("big.csv"), format!("a,b,c,d,e,f,g,h\n{row}")).unwrap();
    fs::write(dir.join("big.txt"), row.replace(',', " ") + "1\n").unwrap();
    // Files under the limit whose values are over it.
    fs::write(dir.join("many.txt"), ("1 ".repeat(1000) + "\n").repeat(10)).unwrap();
    fs::write(
        dir.join("many.csv"),
        "a\n".to_string() + &"1\n".repeat(20_000),
    )
    .unwrap();
    fs::write(dir.join("many.json"), format!("[{}1]", "1,".repeat(20_000))).unwrap();
    let limit = ["--max-memory", "64KiB"];
    let e = |code: &'static str| [&limit[..], &["-e", code]].concat();
    let over = "more than the memory limit of 64.0 KiB allows";
    #[rustfmt::skip]
    let cases = vec![
        command("csv file", &e(r#"load_csv("big.csv")"#), 1, &["csv: 'big.csv' has 65552 bytes", over]),
        command("txt file", &e(r#"loadtxt("big.txt")"#), 1, &["loadtxt: 'big.txt' has 65538 bytes", over]),
        command("read_text", &e(r#"read_text("big.txt")"#), 1, &["read_text: 'big.txt'", over]),
        command("txt values", &e(r#"loadtxt("many.txt")"#), 1, &["loadtxt: a tensor of shape [9, 1000]", over, "many.txt"]),
        command("csv values", &e(r#"load_csv("many.csv")"#), 1, &["csv: many.csv:", "the values read so far need", over]),
        command("json values", &e(r#"load_json("many.json")"#), 1, &["json: many.json:1:", "the values read so far need", over]),
    ];
    run_commands("text readers under --max-memory", &dir, &cases);
}

// ---- Issue #18: sequences, comprehensions, dicts, try/catch ------------------------

#[rustfmt::skip]
const SEQUENCES_AND_ERRORS: &[Case] = &[
    ("comprehension without a sequence", "[x for x in 3]", "cannot iterate over int"),
    ("comprehension without in", "[x for x range(3)]", "expected"),
    ("comprehension without a name", "[x for in range(3)]", "expected"),
    ("comprehension of ragged rows", "[arange(k) for k in range(3)]", "shape"),
    ("comprehension of strings", "[s for s in (\"a\", \"b\")]", "string"),
    ("tuple comprehension, unclosed", "(x for x in range(3)", "unclosed"),
    ("comprehension of a 0-d tensor", "[x for x in tensor(3)]", "cannot iterate over a 0-d tensor"),
    ("catch without a name", "try { 1 } catch { 2 }", "expected error name"),
    ("try without catch", "try { 1 }", "expected"),
    ("catch without try", "catch e { 1 }", "expected"),
    ("try without a block", "try 1 catch e { 2 }", "expected"),
    ("error of a number", "error(3)", "msg must be a string or a caught error"),
    ("error of a dict", "error({\"a\": 1})", "must be a caught error"),
    ("error without a message", "error()", "missing the argument `msg`"),
    ("error raised", "error(\"custom failure\")", "custom failure"),
    ("error in a handler", "try { error(\"a\") } catch e { error(e.message + \"!\") }", "a!"),
    ("message of a number", "let e = 3; e.message", "has no attribute `message`"),
    ("del of a name", "let x = 1; del x", "`del` removes an entry"),
    ("del of a missing key", "let d = {}; del d[\"k\"]", "key \"k\" not found"),
    ("del out of range", "let t = (1,); del t[5]", "index 5 is out of range"),
    ("del from a tensor", "let x = [1, 2]; del x[0]", "`del` removes a dict entry or a tuple item"),
    ("del of a slice", "let t = (1, 2); del t[0:1]", "`del` takes one key or index"),
    ("del of two keys", "let d = {}; del d[1, 2]", "`del` takes one key or index"),
    ("del of a call's item", "del f()[0]", "`del` removes an entry of a variable"),
    ("append two items", "let t = (); t.append(1, 2)", "`append` takes 1 arguments, got 2"),
    ("append with a keyword", "let t = (); t.append(x=1)", "takes no keyword arguments"),
    ("extend with a number", "let t = (); t.extend(3)", "cannot iterate over int"),
    ("insert at a string", "let t = (); t.insert(\"a\", 1)", "an index must be an int"),
    ("pop from empty", "let t = (); t.pop()", "pop from an empty tuple"),
    ("pop a missing key", "let d = {\"a\": 1}; d.pop(\"b\")", "key \"b\" not found"),
    ("pop with an unhashable key", "let d = {}; d.pop((1, 2))", "dict keys must be strings, ints or bools"),
    ("update with a tuple", "let d = {}; d.update((1, 2))", "`update` takes a dict"),
    ("append to a temporary", "(1, 2).append(3)", "no function `append`"),
    ("append to a dict entry that is a number", "let d = {\"a\": 1}; d[\"a\"].append(2)", "`append` changes a tuple or dict"),
    ("append to a missing entry", "let d = {}; d[\"a\"].append(2)", "key not found"),
    ("in a number", "1 in 2", "`in` needs a tuple, dict, string, range or tensor"),
    ("number in a string", "1 in \"abc\"", "needs a string on the left"),
    ("string in a tensor", "\"a\" in [1, 2]", "needs a number or a tensor on the left"),
    ("not without in", "1 not 2", "expected"),
    ("tuple times a float", "(1,) * 2.5", "`*` is not defined for tuple and float"),
    ("tuple plus a number", "(1,) + 1", "`+` is not defined for tuple and int"),
    ("huge tuple repeat", "(1, 2) * 9223372036854775807", "memory limit"),
    ("huge string repeat", "\"ab\" * 9223372036854775807", "memory limit"),
    ("string less than a number", "\"a\" < 1", "`<` is not defined for string and int"),
    ("tuples of mixed kinds compared", "(1, \"a\") < (1, 2)", "string and int cannot be ordered"),
    ("destructure too many", "let a = 0; let b = 0; (a, b) = (1, 2, 3)", "cannot unpack 3 values into 2 names"),
    ("destructure a number", "let a = 0; let b = 0; (a, b) = 5", "cannot unpack int into 2 names"),
    ("destructure into a literal", "let a = 0; (a, 2) = (1, 2)", "a destructuring assignment assigns to names"),
    ("destructure with +=", "let a = 0; let b = 0; (a, b) += (1, 2)", "a tuple of names takes `=`"),
    ("sorted of mixed kinds", "sorted((1, \"a\"))", "int and string cannot be ordered"),
    ("sorted with a failing key", "sorted((1, 2), key=|x| x + \"a\")", "`+` is not defined"),
    ("sorted with a key that is not a function", "sorted((1, 2), key=3)", "int is not callable"),
    ("max of an empty tuple", "max(())", "max: the sequence is empty"),
    ("min with axis of a tuple", "min((1, 2), axis=0)", "axis= applies to a tensor"),
    ("zip of a number", "zip((1, 2), 3)", "zip: cannot iterate over int"),
    ("map of a non-function", "map(3, (1, 2))", "int is not callable"),
    ("map with the wrong arity", "map(|x, y| x, (1, 2))", "missing"),
    ("filter of a number", "filter(none, 3)", "filter: cannot iterate over int"),
    ("enumerate with a float start", "enumerate((1,), start=0.5)", "start"),
    ("string slice with a float", "\"abc\"[0.5:]", "slice"),
    ("string index out of range", "\"abc\"[3]", "index 3 is out of range for a string of 3 characters"),
];

#[test]
fn sequences_comprehensions_and_errors() {
    run_cases(SEQUENCES_AND_ERRORS);
    // A comprehension collects items up to the memory limit (kept small here: each
    // item is evaluated before the next is counted).
    #[rustfmt::skip]
    run_cases_with(&["--max-memory", "1MiB"], &[
        ("comprehension over a huge range", "(x for x in range(9223372036854775807))", "memory limit of 1.0 MiB"),
        ("tensor comprehension over a huge range", "[x for x in range(9223372036854775807)]", "memory limit of 1.0 MiB"),
        ("appending without end", "let t = (); while true { t.append(1) }", "memory limit of 1.0 MiB"),
        ("printing a tuple that holds one tuple twice, nested", "let t = (1,); for i in range(60) { t = (t, t) }; print(t)", "the text of this value"),
    ]);
}

// Issue #18, "Sequences, strings, dicts": the string and dict builtins refuse wrong
// types, out-of-range code points and empty separators with a diagnostic, and a
// string or tuple they would build over the memory limit is an error, not an abort.
#[test]
fn string_and_dict_builtins_reject_bad_arguments() {
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("split on an empty separator", r#""a b".split("")"#, "split: empty separator"),
        ("split on an empty sep keyword", r#"split("a b", sep="")"#, "split: empty separator"),
        ("split on an int separator", r#""a".split(3)"#, "the separator of a string must be a string or none, got int"),
        ("split with a float maxsplit", r#""a b".split(" ", 1.5)"#, "split: maxsplit must be an int, got float"),
        ("split of a tensor without sections", "split([1, 2])", "split of a tensor is missing the argument `sections`"),
        ("split of a dict", r#"split({"a": 1}, 1)"#, "argument `x` of split must be a tensor or number, got dict"),
        ("join with a non-string item", r#"",".join(("a", "b", 3))"#, "join: item 2 of items is not a string, got int"),
        ("join with a tensor item", r#"",".join(([1], "b"))"#, "join: item 0 of items is not a string, got tensor i64[1]"),
        ("join of a dict with int keys", r#"",".join({"a": 1, 2: 3})"#, "join: item 1 of items is not a string, got int"),
        ("join of a number", r#"",".join(7)"#, "join: items must be a tuple of strings, got int"),
        ("join with an int separator", r#"join(1, ("a",))"#, "argument `sep` of join must be a string, got int"),
        ("ord of an empty string", r#"ord("")"#, "ord expects one character, got a string of length 0"),
        ("ord of two characters", r#"ord("ab")"#, "ord expects one character, got a string of length 2"),
        ("ord of two code points", r#"ord("é!")"#, "ord expects one character, got a string of length 2"),
        ("ord of an int", "ord(65)", "argument `c` of ord must be a string, got int"),
        ("chr of -1", "chr(-1)", "chr: -1 is not in range(0x110000)"),
        ("chr past Unicode", "chr(0x110000)", "chr: 1114112 is not in range(0x110000)"),
        ("chr of the largest int", "chr(9223372036854775807)", "is not in range(0x110000)"),
        ("chr of a high surrogate", "chr(0xD800)", "chr: 0xD800 is a surrogate, not a character"),
        ("chr of a low surrogate", "chr(0xDFFF)", "chr: 0xDFFF is a surrogate, not a character"),
        ("chr of a string", r#"chr("a")"#, "argument `i` of chr must be an integer, got string"),
        ("strip of an int", "strip(1)", "argument `s` of strip must be a string, got int"),
        ("strip with int chars", r#""a".strip(1)"#, "argument `chars` of strip must be a string, got int"),
        ("lstrip of a tuple", r#"lstrip(("a",))"#, "argument `s` of lstrip must be a string, got tuple"),
        ("replace with an int pattern", r#""a".replace(1, "b")"#, "argument `old` of replace must be a string, got int"),
        ("replace with a float count", r#""a".replace("a", "b", 1.5)"#, "argument `count` of replace must be an integer, got float"),
        ("startswith an int", r#""abc".startswith(1)"#, "startswith: prefix must be a string or a tuple of strings, got int"),
        ("endswith a tuple holding an int", r#""abc".endswith(("c", 2))"#, "endswith: item 1 of suffix is not a string, got int"),
        ("find in a tensor", r#"find([1, 2], "a")"#, "argument `s` of find must be a string, got tensor i64[2]"),
        ("count of none", r#""abc".count(none)"#, "count needs a value for `sub`, got none"),
        ("upper of none", "upper(none)", "upper needs a value for `s`, got none"),
        ("lower of a number", "lower(1.5)", "argument `s` of lower must be a string, got float"),
        ("keys of a tuple", "keys((1, 2))", "argument `d` of keys must be a dict, got tuple"),
        ("values of a string", r#""ab".values()"#, "argument `d` of values must be a dict, got string"),
        ("items of a tensor", "items([1])", "argument `d` of items must be a dict, got tensor i64[1]"),
        ("get on a non-dict", r#"get((1, 2), 0)"#, "argument `d` of get must be a dict, got tuple"),
        ("get with a tensor key", r#"{"a": 1}.get([1])"#, "get: dict keys are strings, ints or bools, not tensor i64[1]"),
        ("get with a float key", r#"{1: 1}.get(1.0)"#, "get: dict keys are strings, ints or bools, not float"),
    ];
    run_cases(cases);
    // 512 KiB of text under a 1 MiB limit, grown by doubling.
    let grown = |unit: &str, code: &str| {
        format!(r#"let s = "{unit}"; for i in range(18) {{ s = s + s }}; {code}"#)
    };
    let over = "more than the memory limit of 1.0 MiB allows";
    let cases = [
        (
            "replace between every character",
            grown("ab", r#"s.replace("", s)"#),
            "replace: a string of",
        ),
        (
            "replace growing each match",
            grown("ab", r#"s.replace("a", "wxyz")"#),
            "replace: a string of",
        ),
        (
            "join of three copies",
            grown("ab", r#"",".join((s, s, s))"#),
            "join: a string of",
        ),
        (
            "upper tripling the bytes",
            grown("ΐ", "s.upper()"),
            "upper: a string of",
        ),
        (
            "split into many strings",
            grown(",,", r#"s.split(",")"#),
            "split: a tuple of",
        ),
    ];
    let failures = cases
        .iter()
        .filter_map(|(name, code, expected)| {
            let out = eval_with(&["--max-memory", "1MiB"], code);
            diagnostic_problem(&out, expected)
                .or_else(|| diagnostic_problem(&out, over))
                .map(|p| format!("{name} `{code}`: {p}"))
        })
        .collect();
    report("cases over the memory limit", cases.len(), failures);
}
