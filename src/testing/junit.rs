//! JUnit XML, the report format CI systems read: one `<testcase>` per script.

use std::fmt::Write as _;

use crate::markup::escape;

pub enum CaseOutcome {
    Passed,
    Failed { message: String, detail: String },
    Skipped(String),
}

pub struct Case {
    pub name: String,
    pub seconds: f64,
    pub outcome: CaseOutcome,
}

pub fn render(cases: &[Case], seconds: f64) -> String {
    let failures = cases
        .iter()
        .filter(|c| matches!(c.outcome, CaseOutcome::Failed { .. }))
        .count();
    let skipped = cases
        .iter()
        .filter(|c| matches!(c.outcome, CaseOutcome::Skipped(_)))
        .count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"tsr test\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{seconds:.3}\">",
        cases.len()
    );
    let _ = writeln!(
        x,
        "  <testsuite name=\"tsr\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{seconds:.3}\">",
        cases.len()
    );
    for c in cases {
        let head = format!(
            "    <testcase name=\"{}\" classname=\"tsr\" file=\"{}\" time=\"{:.3}\"",
            escape(&c.name),
            escape(&c.name),
            c.seconds
        );
        match &c.outcome {
            CaseOutcome::Passed => {
                let _ = writeln!(x, "{head}/>");
            }
            CaseOutcome::Failed { message, detail } => {
                let _ = writeln!(
                    x,
                    "{head}>\n      <failure message=\"{}\" type=\"snapshot\">{}</failure>\n    </testcase>",
                    escape(message),
                    escape(detail)
                );
            }
            CaseOutcome::Skipped(why) => {
                let _ = writeln!(
                    x,
                    "{head}>\n      <skipped message=\"{}\"/>\n    </testcase>",
                    escape(why)
                );
            }
        }
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_counts() {
        let cases = vec![
            Case {
                name: "a<b>.tsr".into(),
                seconds: 0.5,
                outcome: CaseOutcome::Passed,
            },
            Case {
                name: "c.tsr".into(),
                seconds: 0.1,
                outcome: CaseOutcome::Failed {
                    message: "x & y".into(),
                    detail: "- 1\n+ 2\u{1}".into(),
                },
            },
        ];
        let x = render(&cases, 0.6);
        assert!(x.contains("name=\"a&lt;b&gt;.tsr\""));
        assert!(x.contains("failures=\"1\""));
        assert!(x.contains("message=\"x &amp; y\""));
        assert!(!x.contains('\u{1}'));
    }
}
