//! `:help KEYWORD`: the forms a keyword of the language takes, in a line or two each
//! (the builtins document themselves; these are the grammar's words).

/// The help text of a keyword, or `None` when `name` is not one.
pub fn keyword_help(name: &str) -> Option<&'static str> {
    KEYWORDS
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, text)| *text)
}

const TRY: &str = "\
try { body } catch e { handler }

An expression: the body's value, or the handler's when the body raised an error;
e.message is its text, e.kind one of error name type value index key shape file
recursion grad. error(msg) raises; error(e) raises a caught error again. Ctrl-C,
--timeout, the memory limit and exit() are never caught.";

const KEYWORDS: &[(&str, &str)] = &[
    ("try", TRY),
    (
        "no_grad",
        "no_grad { ... }\n\nAn expression: the block's value, computed without recording \
         gradients;\na leaf that requires grad may be changed in place inside it \
         (w -= lr * w.grad).",
    ),
    ("catch", TRY),
    (
        "del",
        "del d[key]    del t[i]\n\nRemoves an entry of a dict, or an item of a tuple, held by a variable.",
    ),
    (
        "in",
        "x in xs    x not in xs    for x in xs { ... }    [e for x in xs if c]\n\n\
         Membership in a tuple, dict (keys), string (substring), range or tensor (an equal\n\
         element); the loop and comprehension forms iterate.",
    ),
    (
        "for",
        "for x in xs { ... }    [e for x in xs if c]    (e for x in xs if c)\n\n\
         Loops over a range, a tensor (axis 0), a tuple, a dict's keys or a string's\n\
         characters; a pattern unpacks: for (i, x) in enumerate(xs). A comprehension\n\
         in [...] builds a tensor, in (...) a tuple.",
    ),
    (
        "let",
        "let x = v    let (a, (b, c)) = v\n\nBinds new names in the current block; \
         (a, b) = v assigns existing ones.",
    ),
    (
        "fn",
        "fn name(a, b = 2) { body }    |a, b = 2| expr\n\nA function (defaults evaluated \
         where it is defined); the lambda form is an expression.",
    ),
    (
        "if",
        "if c { ... } else if d { ... } else { ... }\n\nAn expression: the value of the \
         branch taken (none without an else).",
    ),
    (
        "while",
        "while c { ... }\n\nRepeats while c is true; break and continue as usual.",
    ),
    (
        "return",
        "return v\n\nLeaves the enclosing function with v (none without it).",
    ),
    ("break", "break\n\nLeaves the innermost loop."),
    (
        "continue",
        "continue\n\nGoes on with the next iteration of the innermost loop.",
    ),
    (
        "import",
        "import \"path.tsr\" as m\n\nRuns a file once as a module; its names are m.name.",
    ),
    (
        "use",
        "use stats\n\nA module of the standard library.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_statement_keyword_has_help() {
        for k in [
            "try", "catch", "del", "in", "for", "let", "fn", "if", "while", "no_grad",
        ] {
            assert!(keyword_help(k).is_some_and(|t| t.contains(k)), "{k}");
        }
        assert!(keyword_help("sum").is_none());
    }
}
