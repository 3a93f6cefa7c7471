//! Parser tests (a test-only module: declared under #[cfg(test)] in parser/mod.rs).

use super::{is_incomplete, parse};
use crate::diag::Diagnostic;
use crate::span::{Span, SrcId};
use crate::syntax::ast::{
    Arg, Block, Clause, Collect, Expr, ExprKind, FStrPart, IndexItem, Param, Pattern, Program, UnOp,
};

const ID: SrcId = SrcId(7);

fn program(src: &str) -> Program {
    match parse(src, ID) {
        Ok(p) => p,
        Err(diags) => panic!("{src:?} failed to parse: {diags:#?}"),
    }
}

/// The program as S-expressions, statements separated by `; `.
fn sexp(src: &str) -> String {
    let p = program(src);
    p.stmts.iter().map(show).collect::<Vec<_>>().join("; ")
}

fn errors(src: &str) -> Vec<Diagnostic> {
    match parse(src, ID) {
        Ok(p) => panic!("{src:?} parsed, expected errors: {p:#?}"),
        Err(diags) => diags,
    }
}

/// The messages of the errors of `src`.
fn messages(src: &str) -> Vec<String> {
    errors(src).into_iter().map(|d| d.message).collect()
}

/// The one error of `src`: its message and the source text it underlines.
fn error(src: &str) -> (String, &str) {
    let diags = errors(src);
    assert_eq!(diags.len(), 1, "{src:?}: {diags:#?}");
    let d = &diags[0];
    assert_eq!(d.span.src, ID);
    (d.message.clone(), &src[d.span.range()])
}

fn show(e: &Expr) -> String {
    let list = |items: &[Expr]| items.iter().map(show).collect::<Vec<_>>().join(" ");
    match &e.kind {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Float(x) => format!("{x:?}"),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::FStr(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| match p {
                    FStrPart::Text(t) => format!("{t:?}"),
                    FStrPart::Expr { expr, spec: None } => format!("{{{}}}", show(expr)),
                    FStrPart::Expr {
                        expr,
                        spec: Some(s),
                    } => format!("{{{}:{s}}}", show(expr)),
                })
                .collect();
            format!("(fstr {})", parts.join(" "))
        }
        ExprKind::None => "none".into(),
        ExprKind::Ident(n) => n.name.to_string(),
        ExprKind::List(items) => format!("(list {})", list(items)),
        ExprKind::Tuple(items) => format!("(tuple {})", list(items)),
        ExprKind::Dict(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("({} {})", show(k), show(v)))
                .collect();
            format!("(dict {})", entries.join(" "))
        }
        ExprKind::Unary { op, expr } => {
            let op = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "not",
            };
            format!("({op} {})", show(expr))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", op.symbol(), show(lhs), show(rhs))
        }
        ExprKind::Compare { first, rest } => {
            let links: Vec<String> = rest
                .iter()
                .map(|(op, e)| format!("{} {}", op.symbol(), show(e)))
                .collect();
            format!("(chain {} {})", show(first), links.join(" "))
        }
        ExprKind::Call { callee, args } => {
            let args: Vec<String> = args.iter().map(show_arg).collect();
            format!("(call {} {})", show(callee), args.join(" ")).replace(" )", ")")
        }
        ExprKind::Attr { target, name } => format!("(. {} {})", show(target), name.name),
        ExprKind::Index { target, items } => {
            let items: Vec<String> = items.iter().map(show_item).collect();
            format!("(index {} {})", show(target), items.join(" "))
        }
        ExprKind::Block(b) => show_block(b),
        ExprKind::If {
            cond,
            then,
            otherwise,
        } => match otherwise {
            None => format!("(if {} {})", show(cond), show_block(then)),
            Some(o) => format!("(if {} {} {})", show(cond), show_block(then), show(o)),
        },
        ExprKind::While { cond, body } => format!("(while {} {})", show(cond), show_block(body)),
        ExprKind::For {
            pattern,
            iter,
            body,
        } => format!(
            "(for {} {} {})",
            show_pattern(pattern),
            show(iter),
            show_block(body)
        ),
        ExprKind::Lambda { params, body, .. } => {
            format!("(lambda ({}) {})", show_params(params), show(body))
        }
        ExprKind::Fn { name, params, body } => format!(
            "(fn {} ({}) {})",
            name.name,
            show_params(params),
            show_block(body)
        ),
        ExprKind::Let { pattern, value } => {
            format!("(let {} {})", show_pattern(pattern), show(value))
        }
        ExprKind::Assign { target, op, value } => {
            let op = op.map_or("=".to_string(), |o| format!("{}=", o.symbol()));
            format!("({op} {} {})", show(target), show(value))
        }
        ExprKind::Return(None) => "(return)".into(),
        ExprKind::Return(Some(v)) => format!("(return {})", show(v)),
        ExprKind::Break => "break".into(),
        ExprKind::Continue => "continue".into(),
        ExprKind::Import { path, alias } => format!("(import {path:?} {})", alias.name),
        ExprKind::Use { module } => format!("(use {})", module.name),
        ExprKind::Try(t) => format!(
            "(try {} {} {})",
            show_block(&t.body),
            t.name.name,
            show_block(&t.handler)
        ),
        ExprKind::Comprehension {
            kind,
            elem,
            clauses,
            ..
        } => {
            let clauses: Vec<String> = clauses
                .iter()
                .map(|c| match c {
                    Clause::For { pattern, iter } => {
                        format!("(for {} {})", show_pattern(pattern), show(iter))
                    }
                    Clause::If(cond) => format!("(if {})", show(cond)),
                })
                .collect();
            let kind = match kind {
                Collect::Tensor => "list",
                Collect::Tuple => "tuple",
            };
            format!("({kind}-comp {} {})", show(elem), clauses.join(" "))
        }
        ExprKind::Del(target) => format!("(del {})", show(target)),
        ExprKind::NoGrad(b) => format!("(no_grad {})", show_block(b)),
    }
}

fn show_arg(a: &Arg) -> String {
    match &a.name {
        Some(n) => format!("{}={}", n.name, show(&a.value)),
        None => show(&a.value),
    }
}

fn show_item(item: &IndexItem) -> String {
    let part = |e: &Option<Expr>| e.as_ref().map_or("_".to_string(), show);
    match item {
        IndexItem::Expr(e) => show(e),
        IndexItem::Slice {
            start, stop, step, ..
        } => format!("(: {} {} {})", part(start), part(stop), part(step)),
        IndexItem::Ellipsis(_) => "...".into(),
    }
}

fn show_block(b: &Block) -> String {
    let stmts: Vec<String> = b.stmts.iter().map(show).collect();
    format!("{{{}}}", stmts.join("; "))
}

fn show_params(params: &[Param]) -> String {
    let params: Vec<String> = params
        .iter()
        .map(|p| match &p.default {
            None => p.name.name.to_string(),
            Some(d) => format!("{}={}", p.name.name, show(d)),
        })
        .collect();
    params.join(" ")
}

fn show_pattern(p: &Pattern) -> String {
    match p {
        Pattern::Name(n) => n.name.to_string(),
        Pattern::Tuple(items, _) => {
            let items: Vec<String> = items.iter().map(show_pattern).collect();
            format!("({})", items.join(" "))
        }
    }
}

/// The source text of a span.
fn text(src: &str, span: Span) -> &str {
    assert_eq!(span.src, ID);
    &src[span.range()]
}

#[test]
fn precedence_and_associativity() {
    let cases = [
        ("1 + 2 * 3", "(+ 1 (* 2 3))"),
        ("1 - 2 - 3", "(- (- 1 2) 3)"),
        ("a / b / c", "(/ (/ a b) c)"),
        ("a // b % c @ d", "(@ (% (// a b) c) d)"),
        ("x @ w + b", "(+ (@ x w) b)"),
        ("2 ** 3 ** 2", "(** 2 (** 3 2))"),
        ("-2 ** 2", "(- (** 2 2))"),
        ("2 ** -1", "(** 2 (- 1))"),
        ("-x ** -y ** 2", "(- (** x (- (** y 2))))"),
        ("- -x", "(- (- x))"),
        ("~a & b", "(& (~ a) b)"),
        ("a | b ^ c & d", "(| a (^ b (& c d)))"),
        ("a & b == c", "(== (& a b) c)"),
        ("a + b == c * d", "(== (+ a b) (* c d))"),
        ("a < b <= c", "(chain a < b <= c)"),
        ("a != b > c >= d", "(chain a != b > c >= d)"),
        ("(a < b) < c", "(< (< a b) c)"),
        ("a < b == c + 1", "(chain a < b == (+ c 1))"),
        ("not a == b", "(not (== a b))"),
        ("not not x", "(not (not x))"),
        ("a and not b", "(and a (not b))"),
        ("a or b and c", "(or a (and b c))"),
        ("a and b or c and d", "(or (and a b) (and c d))"),
        ("-x.y(1)[0]", "(- (index (call (. x y) 1) 0))"),
        ("(1 + 2) * 3", "(* (+ 1 2) 3)"),
        (
            "f(x)(y)[1][2].z",
            "(. (index (index (call (call f x) y) 1) 2) z)",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src}");
    }
}

#[test]
fn literals() {
    assert_eq!(
        sexp("42; 1_000; 0x1F; 1.5; 1.; .5; 1e-3; 2.5E+10; true; false; none"),
        "42; 1000; 31; 1.5; 1.0; 0.5; 0.001; 25000000000.0; true; false; none"
    );
    assert_eq!(
        sexp(r#""a\tb\n"; 'it\'s'; "\u{e9}\\\"\0""#),
        r#""a\tb\n"; "it's"; "é\\\"\0""#
    );
    assert_eq!(sexp("größe_2"), "größe_2");
    assert_eq!(sexp("\"multi\nline\""), r#""multi\nline""#);
}

#[test]
fn newlines_and_continuation() {
    let cases = [
        ("x = 1\ny = 2", "(= x 1); (= y 2)"),
        ("a; b;; c;", "a; b; c"),
        ("\n\n  a  \n\n# only a comment\n\n", "a"),
        ("x = 1 # note\n# another\ny = 2", "(= x 1); (= y 2)"),
        ("x = 1 +\n  2", "(= x (+ 1 2))"),
        ("let x =\n  5", "(let x 5)"),
        ("f(1,\n  2,\n)", "(call f 1 2)"),
        ("[1,\n 2\n ]", "(list 1 2)"),
        ("(a\n + b)", "(+ a b)"),
        ("a and\n b", "(and a b)"),
        (
            "x\n  .sum()\n  # comment\n  .mean()",
            "(call (. (call (. x sum)) mean))",
        ),
        ("if a { 1 }\nelse { 2 }", "(if a {1} {2})"),
        (
            "if a { 1 }\n\nelse if b { 2 }\nelse { 3 }",
            "(if a {1} (if b {2} {3}))",
        ),
        ("a\n-1", "a; (- 1)"),
        ("{\n  a\n\n  b;c\n}", "{a; b; c}"),
        (
            "f(|x| {\n  let y = x\n  y * 2\n})",
            "(call f (lambda (x) {(let y x); (* y 2)}))",
        ),
        (
            "let d = {\n  \"a\": 1,\n  \"b\": [\n    2,\n  ],\n}",
            "(let d (dict (\"a\" 1) (\"b\" (list 2))))",
        ),
        ("x = [1, 2\n]; y = 3", "(= x (list 1 2)); (= y 3)"),
        ("a\r\nb", "a; b"),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src:?}");
    }
}

#[test]
fn statements() {
    let cases = [
        ("let x = 1", "(let x 1)"),
        ("let (a, (b, c)) = t", "(let (a (b c)) t)"),
        ("let (a,) = t", "(let (a) t)"),
        ("let (a) = t", "(let a t)"),
        ("fn f() { }", "(fn f () {})"),
        ("fn add(a, b = 1,) { a + b }", "(fn add (a b=1) {(+ a b)})"),
        ("x = 1", "(= x 1)"),
        ("x[0, 1:] = 0.5", "(= (index x 0 (: 1 _ _)) 0.5)"),
        ("m.w = w", "(= (. m w) w)"),
        (
            "x += 1; x -= 2; x *= 3; x /= 4",
            "(+= x 1); (-= x 2); (*= x 3); (/= x 4)",
        ),
        ("return", "(return)"),
        ("return x + 1", "(return (+ x 1))"),
        (
            "while true { break; continue }",
            "(while true {break; continue})",
        ),
        (
            "for i in range(3) { print(i) }",
            "(for i (call range 3) {(call print i)})",
        ),
        (
            "for (k, v) in items(d) { }",
            "(for (k v) (call items d) {})",
        ),
        (
            "import \"lib/util.tsr\" as u",
            "(import \"lib/util.tsr\" u)",
        ),
        ("use nn", "(use nn)"),
        (
            "fn f(x) {\n  if x > 0 { return x }\n  let y = -x\n  y\n}",
            "(fn f (x) {(if (> x 0) {(return x)}); (let y (- x)); y})",
        ),
        ("fn f() { fn g() { 1 }; g }", "(fn f () {(fn g () {1}); g})"),
        ("{ return }", "{(return)}"),
        ("if a { } else { }", "(if a {} {})"),
        ("1 + if c { 1 } else { 2 }", "(+ 1 (if c {1} {2}))"),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src:?}");
    }
}

#[test]
fn collections_dicts_and_blocks() {
    let cases = [
        ("()", "(tuple )"),
        ("(a,)", "(tuple a)"),
        ("(a, b,)", "(tuple a b)"),
        ("(a)", "a"),
        ("[]", "(list )"),
        ("[a, b, [c],]", "(list a b (list c))"),
        ("{}", "(dict )"),
        ("{\n}", "(dict )"),
        ("{\"k\": v, k2: v2,}", "(dict (\"k\" v) (k2 v2))"),
        ("{x.name: 1, -1: 2}", "(dict ((. x name) 1) ((- 1) 2))"),
        ("{ a }", "{a}"),
        ("{ let a = 1; a }", "{(let a 1); a}"),
        ("{ {} }", "{(dict )}"),
        ("{ {a} }", "{{a}}"),
        ("{ x: {y: 1} }", "(dict (x (dict (y 1))))"),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src:?}");
    }
    // A statement is not a dict key.
    assert_eq!(
        error("{ let a = 1: 2 }"),
        (
            "expected an expression as dict key".to_string(),
            "let a = 1"
        )
    );
}

#[test]
fn calls_keywords_and_methods() {
    let cases = [
        ("f()", "(call f)"),
        (
            "f(x, axis=1, keepdim=true)",
            "(call f x axis=1 keepdim=true)",
        ),
        ("f(a == b)", "(call f (== a b))"),
        ("x.f(a)", "(call (. x f) a)"),
        ("x.to(f32) @ w", "(@ (call (. x to) f32) w)"),
        ("m.nn.relu(x)", "(call (. (. m nn) relu) x)"),
        ("x.T", "(. x T)"),
        ("x.in.not.none", "(. (. (. x in) not) none)"),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src:?}");
    }
}

#[test]
fn index_items() {
    let cases = [
        ("x[i]", "(index x i)"),
        (
            "x[i, 1:, ::2, :-1, ..., none]",
            "(index x i (: 1 _ _) (: _ _ 2) (: _ (- 1) _) ... none)",
        ),
        ("x[:]", "(index x (: _ _ _))"),
        ("x[::]", "(index x (: _ _ _))"),
        ("x[a:b:c]", "(index x (: a b c))"),
        ("x[1:2,]", "(index x (: 1 2 _))"),
        ("x[y > 0]", "(index x (> y 0))"),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src:?}");
    }
    let src = "x[1:2, ...]";
    let p = program(src);
    let ExprKind::Index { items, .. } = &p.stmts[0].kind else {
        panic!()
    };
    let IndexItem::Slice { span, .. } = &items[0] else {
        panic!()
    };
    assert_eq!(text(src, *span), "1:2");
    let IndexItem::Ellipsis(span) = &items[1] else {
        panic!()
    };
    assert_eq!(text(src, *span), "...");
}

#[test]
fn lambdas() {
    let cases = [
        ("|v| v * 2", "(lambda (v) (* v 2))"),
        ("|| 1", "(lambda () 1)"),
        ("|a, b = 2| a + b", "(lambda (a b=2) (+ a b))"),
        (
            "|x, n = -1, f = g(1)| x",
            "(lambda (x n=(- 1) f=(call g 1)) x)",
        ),
        (
            "let f = |x| |y| x + y",
            "(let f (lambda (x) (lambda (y) (+ x y))))",
        ),
        ("map(xs, |x| x, 1)", "(call map xs (lambda (x) x) 1)"),
        ("a | b", "(| a b)"),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src:?}");
    }
}

#[test]
fn fstrings_and_their_spans() {
    let src = "print(f\"mean = {x.mean():.3f} {{literal braces}} {y}\\n\")";
    assert_eq!(
        sexp(src),
        r#"(call print (fstr "mean = " {(call (. x mean)):.3f} " {literal braces} " {y} "\n"))"#
    );
    let p = program(src);
    let ExprKind::Call { args, .. } = &p.stmts[0].kind else {
        panic!()
    };
    let fstr = &args[0].value;
    assert_eq!(text(src, fstr.span), &src[6..src.len() - 1]);
    let ExprKind::FStr(parts) = &fstr.kind else {
        panic!()
    };
    let FStrPart::Expr { expr, .. } = &parts[1] else {
        panic!()
    };
    assert_eq!(text(src, expr.span), "x.mean()");
    let ExprKind::Call { callee, .. } = &expr.kind else {
        panic!()
    };
    let ExprKind::Attr { target, name } = &callee.kind else {
        panic!()
    };
    assert_eq!(text(src, target.span), "x");
    assert_eq!(text(src, name.span), "mean");
    let FStrPart::Expr { expr, .. } = &parts[3] else {
        panic!()
    };
    assert_eq!(text(src, expr.span), "y");

    let cases = [
        ("f''", "(fstr )"),
        ("f'{a}{b}'", "(fstr {a} {b})"),
        ("f'{d[\"k\"]:>8}'", r#"(fstr {(index d "k"):>8})"#),
        ("f\"{x[1:2]}\"", "(fstr {(index x (: 1 2 _))})"),
        ("f\"{ {'a': 1} }\"", r#"(fstr {(dict ("a" 1))})"#),
        ("f\"{f'{x}'}\"", "(fstr {(fstr {x})})"),
        ("f\"a\nb{\nx\n}\"", r#"(fstr "a\nb" {x})"#),
        ("f\"{a}\" + 1", "(+ (fstr {a}) 1)"),
    ];
    for (src, want) in cases {
        assert_eq!(sexp(src), want, "{src:?}");
    }
}

#[test]
fn spans() {
    let src = "let y = (a + b) * f(c, k=1)[0]";
    let p = program(src);
    let s = &p.stmts[0];
    assert_eq!(text(src, s.span), src);
    let ExprKind::Let { value, pattern } = &s.kind else {
        panic!()
    };
    let Pattern::Name(name) = pattern else {
        panic!()
    };
    assert_eq!(text(src, name.span), "y");
    assert_eq!(text(src, value.span), "(a + b) * f(c, k=1)[0]");
    let ExprKind::Binary { lhs, rhs, .. } = &value.kind else {
        panic!()
    };
    assert_eq!(text(src, lhs.span), "(a + b)");
    assert_eq!(text(src, rhs.span), "f(c, k=1)[0]");
    let ExprKind::Index { target, .. } = &rhs.kind else {
        panic!()
    };
    assert_eq!(text(src, target.span), "f(c, k=1)");
    let ExprKind::Call { args, .. } = &target.kind else {
        panic!()
    };
    assert_eq!(
        text(
            src,
            args[1].name.as_ref().map(|n| n.span).unwrap_or_default()
        ),
        "k"
    );

    let src = "fn f(a) {\n  -a\n}\nx += 1";
    let p = program(src);
    assert_eq!(text(src, p.stmts[0].span), "fn f(a) {\n  -a\n}");
    let ExprKind::Fn { body, .. } = &p.stmts[0].kind else {
        panic!()
    };
    assert_eq!(text(src, body.span), "{\n  -a\n}");
    assert_eq!(text(src, body.stmts[0].span), "-a");
    assert_eq!(text(src, p.stmts[1].span), "x += 1");
    assert_eq!(p.span, Span::new(ID, 0..src.len()));

    let src = "if a { 1 } else if b { 2 } else { 3 }";
    let p = program(src);
    let ExprKind::If { otherwise, .. } = &p.stmts[0].kind else {
        panic!()
    };
    let elif = otherwise.as_deref().map(|e| text(src, e.span));
    assert_eq!(elif, Some("if b { 2 } else { 3 }"));
}

#[test]
fn three_errors_are_reported_at_once() {
    let src = "let a = (1 +\n)\nlet b = 2\nlet = 5\nprint(b)\nx[1:2:3:4]\n";
    let diags = errors(src);
    assert_eq!(diags.len(), 3, "{diags:#?}");
    assert_eq!(diags[0].message, "expected expression, found `)`");
    assert_eq!(diags[1].message, "expected variable name, found `=`");
    assert_eq!(diags[2].message, "expected operator, `,` or `]`, found `:`");
    // Errors inside blocks recover at the block's statements.
    let src = "fn f() {\n  1 + )\n  let = 2\n  ok()\n}\ny = )";
    assert_eq!(messages(src).len(), 3, "{:#?}", errors(src));
}

#[test]
fn common_mistakes() {
    let cases = [
        ("f(1, 2", "unclosed `(`", "("),
        ("let = 5", "expected variable name, found `=`", "="),
        ("1 +", "unexpected end of input, expected expression", ""),
        ("1 + * 2", "expected expression, found `*`", "*"),
        (
            "x[1:2:3:4]",
            "expected operator, `,` or `]`, found `:`",
            ":",
        ),
        ("x = \"abc", "unterminated string", "\""),
        ("x = f'abc", "unterminated string", "f'"),
        ("\"a\\qb\"", "unknown escape sequence `\\q`", "\\q"),
        (
            "\"\\u{110000}\"",
            "`\\u{110000}` is not a valid unicode character",
            "\\u",
        ),
        (
            "99999999999999999999",
            "integer literal is too large",
            "99999999999999999999",
        ),
        (
            "0xFFFFFFFFFFFFFFFFF",
            "integer literal is too large",
            "0xFFFFFFFFFFFFFFFFF",
        ),
        ("x = 1 $ 2", "unexpected character `$`", "$"),
        ("x = 1 $$€ 2", "unexpected characters `$$€`", "$$€"),
        (
            "x = 1 else { }",
            "expected operator or end of statement, found `else`",
            "else",
        ),
        ("f(x) = 1", "cannot assign to this expression", "f(x)"),
        ("1 + 2 += 3", "cannot assign to this expression", "1 + 2"),
        ("if x = 1 { }", "expected operator or `{`, found `=`", "="),
        (
            "x y",
            "expected operator or end of statement, found `y`",
            "y",
        ),
        (
            "f(a b)",
            "expected operator, `=`, `,` or `)`, found `b`",
            "b",
        ),
        ("fn (x) { }", "expected function name, found `(`", "("),
        ("import util", "expected path string, found `util`", "util"),
        ("[1, 2", "unclosed `[`", "["),
        ("if x {\n  y\n", "unclosed `{`", "{"),
        ("(1, 2]", "unexpected closing delimiter `]`", "]"),
        (
            "f\"{x\"",
            "expected operator or `}`, found end of f-string",
            "\"",
        ),
        ("f\"{}\"", "expected expression, found `}`", "}"),
        (
            "f\"a}b\"",
            "single `}` in an f-string; write `}}` for a literal brace",
            "}",
        ),
        ("x[]", "expected expression, `...` or `:`, found `]`", "]"),
        ("}", "unexpected closing delimiter `}`", "}"),
        ("x = 1)", "unexpected closing delimiter `)`", ")"),
        ("= 5", "expected statement, found `=`", "="),
        ("if x { = }", "expected statement, found `=`", "="),
        (
            "a.1",
            "expected operator or end of statement, found `.1`",
            ".1",
        ),
        ("a.", "unexpected end of input, expected attribute name", ""),
        ("0xZZ", "invalid number literal `0xZZ`", "0xZZ"),
        ("x = 12abc + 1", "invalid number literal `12abc`", "12abc"),
        ("1.2.3", "invalid number literal `1.2.3`", "1.2.3"),
        ("3in x", "invalid number literal `3in`", "3in"),
        ("!x", "unexpected character `!`", "!"),
        ("fn f(a, a) { a }", "duplicate parameter `a`", "a"),
        (
            "|x, y = 1, z| x",
            "parameter `z` without a default follows one with a default",
            "z",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|&(src, msg, underlined)| {
            let (m, u) = error(src);
            let ok = (m.as_str(), u) == (msg, underlined);
            (!ok).then(|| format!("{src:?}: got ({m:?}, {u:?})"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn error_details() {
    // An unclosed bracket at the end of input is reported at the bracket, with the
    // expectation as a note.
    let d = &errors("f(1,\n 2")[0];
    assert_eq!(d.labels[0].message, "this `(` is never closed");
    assert_eq!(
        d.notes[0],
        "unexpected end of input, expected operator, `,` or `)`"
    );
    // An unclosed bracket before an error elsewhere labels that error.
    let src = "x = (1 + 2\nlet y = 3";
    let d = &errors(src)[0];
    assert_eq!(
        d.message,
        "expected operator, `for`, `,` or `)`, found `let`"
    );
    assert_eq!(text(src, d.labels[0].span), "(");
    // Hints.
    assert_eq!(
        errors("x[1:2:3:4]")[0].notes[0],
        "a slice has at most three parts: `start:stop:step`"
    );
    assert_eq!(
        errors("if x = 1 { }")[0].notes[0],
        "`=` assigns; use `==` to compare"
    );
    assert!(errors("let = 5")[0].notes.is_empty());
    assert_eq!(
        errors("x = 1 else { }")[0].notes[0],
        "`else` can only follow the block of an `if`"
    );
    assert!(errors("99999999999999999999")[0].notes[0].contains("64-bit"));
    assert!(errors("\"\\q\"")[0].notes[0].starts_with("valid escapes"));
    // Every bad escape and every lexical error is reported.
    assert_eq!(messages("\"\\q\\w\" + 1 $ 2").len(), 3);
    // Bad escapes inside f-string text and errors inside holes.
    assert_eq!(messages("f\"\\q{1 +}\"").len(), 2);
    // Errors are at most one per span and in source order.
    let diags = errors("a b\nc d\n$");
    let starts: Vec<usize> = diags.iter().map(|d| d.span.start).collect();
    assert_eq!(starts, vec![2, 6, 8]);
}

#[test]
fn incomplete_input() {
    for src in [
        "f(1,",
        "f(\n",
        "x = [1, 2",
        "if x {",
        "fn f(a) {\n  let b = a\n",
        "1 +",
        "1 + # comment",
        "let x =",
        "a,",
        "x and",
        "x.",
        "print(\"abc",
        "\"multi\nline",
        "f\"{x",
        "f'{x}",
        "{ \"a\": 1,",
        "if a { 1 } else",
    ] {
        assert!(is_incomplete(src), "{src:?} should be incomplete");
    }
    for src in [
        "",
        "x",
        "f(1, 2)",
        "1 + 2\n",
        "let = 5",
        "1 + )",
        "(1, 2]",
        "f(x))",
        "if x { 1 }",
        "x = 1 $ (",
        "\"done\"",
        "}",
        "# just a comment",
    ] {
        assert!(!is_incomplete(src), "{src:?} should be complete");
    }
}

#[test]
fn nasty_inputs_do_not_panic() {
    let deep = 10_000;
    let nasty: Vec<String> = vec![
        "(".repeat(deep),
        format!("{}1{}", "(".repeat(deep), ")".repeat(deep)),
        "[".repeat(deep),
        "{".repeat(deep),
        format!("{}{}", "{".repeat(deep), "}".repeat(deep)),
        "-".repeat(deep) + "1",
        "not ".repeat(deep) + "x",
        "x".to_string() + &".y".repeat(deep),
        "f".to_string() + &"()".repeat(deep),
        "1 + ".repeat(deep) + "1",
        "2 ** ".repeat(deep) + "2",
        "|x| ".repeat(deep) + "x",
        "if x { ".repeat(deep / 10),
        "f\"{".repeat(100),
        "f\"{f'{".repeat(100),
        "\"".into(),
        "'".into(),
        "f\"".into(),
        "\\".into(),
        "\u{0}\u{1}\u{7f}\u{feff}".into(),
        "\u{1F600} = ☃ + 𝔁".into(),
        "let 日本 = \"語\"".into(),
        "\"\\u{".into(),
        "\"\\u{}\"".into(),
        "\"\\u{FFFFFFFFFFFF}\"".into(),
        "f\"{:}\"".into(),
        "f\"{x:\"".into(),
        "f\"}}{{}\"".into(),
        "x[::::]".into(),
        "x[,]".into(),
        "{:}".into(),
        "{,}".into(),
        "{1:}".into(),
        "let (a, = 1".into(),
        "fn".into(),
        "fn f(".into(),
        "import".into(),
        "|".into(),
        "||".into(),
        "...".into(),
        "x = = = 1".into(),
        ";;;\n\n;".into(),
        "\r\r\n\t\u{c}".into(),
        "0x 0b 0o 1e 1e+ 1_ _1 .e5".into(),
        String::from_utf8_lossy(&[0xff, 0xfe, b'(', 0x80, b'"', 0xc3]).into_owned(),
        ")]}".repeat(100),
        "else".into(),
        "} else {".into(),
        "a\n.b\n.".into(),
    ];
    for src in &nasty {
        let _ = parse(src, ID);
        let _ = is_incomplete(src);
    }
    // Nesting up to the limit parses; deeper nesting is one clear error.
    let src = format!("{}1{}", "(".repeat(90), ")".repeat(90));
    assert_eq!(sexp(&src), "1");
    let src = format!("{}1{}", "[".repeat(90), "]".repeat(90));
    assert!(parse(&src, ID).is_ok());
    let src = format!("{}1{}", "(".repeat(deep), ")".repeat(deep));
    assert_eq!(
        error(&src),
        (
            "too many nested brackets, blocks or operators (the limit is 100)".to_string(),
            "("
        )
    );
    let src = "1 + ".repeat(2000) + "1";
    assert_eq!(
        error(&src).0,
        "expression is too deeply nested or too long (the limit is 1000 levels)"
    );
    assert!(parse(&("1 + ".repeat(900) + "1"), ID).is_ok());
    // Random soups of tokens and fragments.
    let frags = [
        "(", ")", "[", "]", "{", "}", "x", "1", "1.5", "\"s\"", "'t", "f\"a{", "}\"", "f'{x:3}'",
        ",", ";", "\n", "=", "==", "+", "-", "**", "not", "and", "let", "fn", "if", "else", "|",
        ":", ".", "...", "$", "\\", "#c\n", "return", "import", "use", "é", "\"\\u{", "{{",
    ];
    let mut seed: u64 = 0x5eed;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for _ in 0..1000 {
        let len = next() % 25;
        let src: String = (0..len).map(|_| frags[next() % frags.len()]).collect();
        let _ = parse(&src, ID);
        let _ = is_incomplete(&src);
    }
    // Every byte prefix of a realistic script parses or errors cleanly.
    let script = "let x = [[1, 2], [3, 4]]\nfn g(v, k=2) { v ** k }\nprint(f\"{g(x):.2f} {{}}\", axis=-1)\nfor (i, y) in enumerate(x) { if i > 0 { break } else { y[0, 1:] += 1 } }\n";
    for end in 0..=script.len() {
        if script.is_char_boundary(end) {
            let _ = parse(&script[..end], ID);
            let _ = is_incomplete(&script[..end]);
        }
    }
    assert!(parse(script, ID).is_ok());
}
