//! What an embedder (or the fuzzer) can bound: evaluation steps, and file access.
//! A test binary of its own, because denying file access holds for the whole process.

use tsr::interp::Interp;

fn run(interp: &mut Interp, code: &str) -> Result<String, String> {
    match interp.run("<test>", code, None) {
        Ok(v) => Ok(v.display(&interp.print_opts)),
        Err(d) => Err(interp.render(&d, false)),
    }
}

#[test]
fn a_step_limit_ends_any_loop() {
    let mut interp = Interp::new(Box::new(std::io::sink()));
    interp.limit_steps(1000);
    let err = run(&mut interp, "let i = 0\nwhile true { i += 1 }").unwrap_err();
    assert!(err.contains("the step limit was reached"), "{err}");
    let err = run(&mut interp, "1 + 1").unwrap_err();
    assert!(err.contains("the step limit was reached"), "{err}");

    let mut interp = Interp::new(Box::new(std::io::sink()));
    interp.limit_steps(1000);
    assert_eq!(
        run(&mut interp, "let s = 0\nfor i in range(10) { s += i }\ns"),
        Ok("45".into())
    );

    // Every run of a loop body counts, even an empty one.
    let mut interp = Interp::new(Box::new(std::io::sink()));
    interp.limit_steps(1000);
    let err = run(&mut interp, "for i in range(1000000000000) {}").unwrap_err();
    assert!(err.contains("the step limit was reached"), "{err}");
}

#[test]
fn denied_file_access_refuses_every_read_write_and_import() {
    tsr::io::deny_file_access();
    let mut interp = Interp::new(Box::new(std::io::sink()));
    let path = std::env::temp_dir().join(format!("tsr-sandbox-{}.npy", std::process::id()));
    let path = path.to_str().unwrap();
    for code in [
        format!("save(\"{path}\", ones([2]))"),
        format!("load(\"{path}\")"),
        format!("load_npz(\"{path}\")"),
        format!("load_safetensors(\"{path}\")"),
        format!("load_gguf(\"{path}\")"),
        "import \"anything.tsr\" as m".to_string(),
    ] {
        let err = run(&mut interp, &code).unwrap_err();
        assert!(
            err.contains("file access is disabled in this session"),
            "{code}: {err}"
        );
    }
    assert!(!std::path::Path::new(path).exists());
    // The standard library is compiled in, not read from files.
    assert!(run(&mut interp, "use stats\nstats.mse([1.0], [3.0])").is_ok());
}
