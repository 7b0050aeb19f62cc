//! Generated Rust predicts exactly what the model's reference evaluator and the runtime predict:
//! trees, lists and linear models over numeric, categorical and conjunction features, every weight
//! kind, on training rows and on extreme inputs (unknown categories, `i32::MIN`/`MAX`). The
//! generated code is compiled with overflow checks on, so an accumulator bound that did not hold
//! would panic here.

use std::fmt::Write as _;

use ltu::data::{self, LoadOptions};
use ltu::learn::{self, Algo, Context};
use ltu::model::{ModelSpec, WeightKind};

use crate::common::{self, data_path, run, splitmix};

#[test]
fn generated_rust_agrees_with_the_reference_and_the_runtime() {
    let cases: [(&str, Algo, Option<WeightKind>); 11] = [
        ("iris.csv", Algo::Ptree, None),
        ("vehicle.csv", Algo::Ptree, None),
        ("car.csv", Algo::Ptree, None),
        ("kr-vs-kp.csv", Algo::Ndl, None),
        ("glass.csv", Algo::Ndl, Some(WeightKind::I32)),
        ("house-votes-84.csv", Algo::Hsi, None),
        ("car.csv", Algo::Sparse, None),
        ("breast-cancer-wisconsin.csv", Algo::Sparse, Some(WeightKind::Fixed)),
        ("wine.csv", Algo::Ptree, Some(WeightKind::Fixed)),
        // Categorical nodes whose values share children (grouped tests in the generated code).
        ("car.csv", Algo::Fringe, None),
        ("kr-vs-kp.csv", Algo::Fringe, None),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut program = String::from("use std::io::BufRead;\n");
    let mut rows: Vec<(usize, Vec<i32>, usize)> = Vec::new();
    let mut rng = 7u64;
    for (m, (file, algo, kind)) in cases.iter().enumerate() {
        let data = data::load(&data_path(file), &LoadOptions::default()).unwrap();
        let ctx = Context::new(&data, 0, *kind);
        let trained = learn::train(*algo, &ctx, &learn::Options::default(), false).unwrap();
        let spec: &ModelSpec = &trained.spec;
        let model = ltu_runtime::Model::from_bytes(&trained.bytes).unwrap();
        // Generated from the model as the runtime reads it back (what `ltu codegen` does).
        let read_back = ModelSpec::from_model(&model);
        let src = ltu::model::codegen::rust_source(&read_back, &format!("{file} ({algo})"));
        std::fs::write(dir.path().join(format!("m{m}.rs")), &src).unwrap();
        std::fs::write(dir.path().join(format!("m{m}.c")), ltu::model::codegen::c_source(&read_back, file))
            .unwrap();
        let _ = writeln!(program, "mod m{m} {{ include!(\"m{m}.rs\"); }}");
        let mut inputs = ctx.raw.clone();
        let specials = [i32::MIN, i32::MAX, -1, 0, 1, 2, 3, 1000, -1000];
        for _ in 0..300 {
            let row = (0..spec.inputs.len())
                .map(|_| {
                    let r = splitmix(&mut rng);
                    if r % 3 == 0 {
                        specials[(r >> 8) as usize % specials.len()]
                    } else {
                        ctx.raw[(r >> 8) as usize % ctx.raw.len()][(r >> 40) as usize % spec.inputs.len()]
                            .wrapping_add((r >> 50) as i32 % 7 - 3)
                    }
                })
                .collect();
            inputs.push(row);
        }
        for x in inputs {
            let want = spec.predict(&x);
            assert_eq!(model.predict(&x).unwrap(), want, "{file} {algo}: runtime vs reference on {x:?}");
            rows.push((m, x, want));
        }
    }
    program.push_str("fn main() {\n    for line in std::io::stdin().lock().lines() {\n        let line = line.unwrap();\n        let v: Vec<i32> = line.split(' ').map(|t| t.parse().unwrap()).collect();\n        let class = match v[0] {\n");
    for m in 0..cases.len() {
        let _ = writeln!(
            program,
            "            {m} => m{m}::predict(&<[i32; m{m}::N_INPUTS]>::try_from(&v[1..]).unwrap()),"
        );
    }
    program
        .push_str("            _ => unreachable!(),\n        };\n        println!(\"{class}\");\n    }\n}\n");
    let main = dir.path().join("main.rs");
    std::fs::write(&main, program).unwrap();
    let exe = dir.path().join("generated");
    common::rustc(&main, &exe);
    let mut input = String::new();
    for (m, x, _) in &rows {
        let cells: Vec<String> = x.iter().map(i32::to_string).collect();
        let _ = writeln!(input, "{m} {}", cells.join(" "));
    }
    let got: Vec<usize> = run(&exe, input).lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(got.len(), rows.len());
    for ((m, x, want), got) in rows.iter().zip(got) {
        assert_eq!(got, *want, "model {} ({}, {}): generated code on {x:?}", m, cases[*m].0, cases[*m].1);
    }

    // The C: each model its own translation unit, strict warnings, and the undefined-behaviour
    // sanitizer (signed overflow, shifts) aborting on the first finding; by gcc and (where
    // installed) clang.
    let mut c_main = String::from("#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n");
    for m in 0..cases.len() {
        let _ = writeln!(c_main, "int32_t ltu_predict_m{m}(const int32_t *x);");
    }
    c_main.push_str(
        "int main(void)\n{\n    int m, n;\n    int32_t x[256];\n    while (scanf(\"%d %d\", &m, &n) == 2) {\n        for (int i = 0; i < n; i++) {\n            if (scanf(\"%d\", &x[i]) != 1) abort();\n        }\n        int32_t c = -1;\n        switch (m) {\n",
    );
    for m in 0..cases.len() {
        let _ = writeln!(c_main, "        case {m}: c = ltu_predict_m{m}(x); break;");
    }
    c_main.push_str(
        "        default: abort();\n        }\n        printf(\"%d\\n\", (int)c);\n    }\n    return 0;\n}\n",
    );
    std::fs::write(dir.path().join("main.c"), c_main).unwrap();
    let mut input = String::new();
    for (m, x, _) in &rows {
        let cells: Vec<String> = x.iter().map(i32::to_string).collect();
        let _ = writeln!(input, "{m} {} {}", x.len(), cells.join(" "));
    }
    for cc in common::c_compilers() {
        let c_exe = dir.path().join(format!("generated_{cc}"));
        let mut link = vec!["-o".to_string(), c_exe.to_str().unwrap().to_string(), "main.c".to_string()];
        for m in 0..cases.len() {
            // One object per model: `ltu_predict` renamed, the `static` helpers stay private.
            let obj = format!("m{m}_{cc}.o");
            common::cc(
                cc,
                dir.path(),
                &[&format!("-Dltu_predict=ltu_predict_m{m}"), "-c", &format!("m{m}.c"), "-o", &obj],
                &format!("generated C m{m}"),
            );
            link.push(obj);
        }
        let link: Vec<&str> = link.iter().map(String::as_str).collect();
        common::cc(cc, dir.path(), &link, "C test program");
        let got: Vec<usize> = run(&c_exe, input.clone()).lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(got.len(), rows.len());
        for ((m, x, want), got) in rows.iter().zip(got) {
            assert_eq!(
                got, *want,
                "model {} ({}, {}): generated C by {cc} on {x:?}",
                m, cases[*m].0, cases[*m].1
            );
        }
    }
}
