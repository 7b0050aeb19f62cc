//! `ltu codegen --lang c -o model.c` writes `model.h` beside `model.c`, and a firmware developer
//! can use the model through the header's names alone: inputs by `LTU_INPUT_*`, physical values
//! through the `ltu_input_*` conversions, categories by `LTU_VALUE_*`, classes by `LTU_CLASS_*`
//! and `ltu_class_names`. Checked by gcc and (where installed) clang under the strict flags, from
//! two translation units and with the header included twice, against `ltu predict` and
//! `ltu inspect --json`; the generic names of a model without names; the one-stream `-o -`;
//! refusal to replace what is not a regular file; and the same contract in generated Rust.

use std::fmt::Write as _;
use std::path::Path;

use ltu::data::encode::to_raw;

use crate::common::{self, data_path, ltu, ltu_status, run};

/// Trains `data` with `args` into `dir/name`.
fn train(dir: &Path, data: &str, name: &str, args: &[&str]) {
    let data = data_path(data);
    let mut all = vec!["train", data.to_str().unwrap(), "--no-estimate", "-o", name];
    all.extend(args);
    ltu(dir, &all);
}

fn inspect(dir: &Path, model: &str) -> serde_json::Value {
    serde_json::from_slice(&ltu(dir, &["inspect", model, "--json"]).stdout).unwrap()
}

/// Iris rows as text: the four measurements, then the class name.
fn iris_rows() -> Vec<(Vec<String>, String)> {
    let text = std::fs::read_to_string(data_path("iris.csv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let cells: Vec<String> = l.split(',').map(str::to_string).collect();
            (cells[..4].to_vec(), cells[4].clone())
        })
        .collect()
}

/// What `ltu predict` prints for `data`, one class name per row.
fn predicted(dir: &Path, model: &str, data: &str) -> Vec<String> {
    let out = ltu(dir, &["predict", model, data_path(data).to_str().unwrap()]);
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}

/// The values the conversion helpers are checked on: ties in both directions, values just off a
/// tie, the ends of `i32` after scaling, and values no `i32` holds.
const VALUES: [&str; 14] = [
    "1.4",
    "2.45",
    "-2.45",
    "0.05",
    "-0.05",
    "0.04999",
    "-0.15",
    "0",
    "214748364.7",
    "214748364.8",
    "-214748364.8",
    "-214748364.9",
    "1e300",
    "-1e300",
];

/// Fixed-point cases for `ltu_from_fixed(value, value_exp, model_exp)`.
const FIXED: [(i32, i32, i32); 12] = [
    (14, 1, 1),
    (1400, 3, 1),
    (1450, 3, 1),
    (-1450, 3, 1),
    (1449, 3, 1),
    (7, 0, 3),
    (-7, -2, 1),
    (2147483647, 0, 1),
    (-2147483648, 0, 1),
    (-2147483648, 12, 0),
    (5, 1, 0),
    (-5, 1, 0),
];

/// `value * 10^(model_exp - value_exp)` rounded half away from zero, saturated: exact decimal
/// arithmetic, independent of the generated code.
fn fixed_expected(value: i32, value_exp: i32, model_exp: i32) -> i32 {
    let d = model_exp - value_exp;
    let v = i128::from(value);
    let r = if d >= 0 {
        v * 10i128.pow(d as u32)
    } else {
        let p = 10i128.pow((-d) as u32);
        let (q, r) = (v / p, v % p);
        if 2 * r.abs() >= p {
            q + v.signum()
        } else {
            q
        }
    };
    r.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32
}

#[test]
fn the_header_alone_predicts_as_ltu_predict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "iris.csv", "iris.ltu", &["--algo", "ptree"]);
    let out = ltu(d, &["codegen", "iris.ltu", "--lang", "c", "-o", "model.c"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("model.h"), "the report names the header");
    let header = std::fs::read_to_string(d.join("model.h")).expect("model.h beside model.c");
    let source = std::fs::read_to_string(d.join("model.c")).unwrap();
    assert!(source.contains("#include \"model.h\""));
    for want in [
        "#define LTU_INPUT_PETAL_LENGTH 2",
        "#define LTU_CLASS_VIRGINICA 2 /* \"virginica\" */",
        "#define LTU_SCALE_PETAL_LENGTH 1",
        "x = round(value * 10^1)",
        "\"algo\" = \"ptree\"",
        "\"data_fnv1a64\" = ",
        "extern \"C\"",
    ] {
        assert!(header.contains(want), "model.h lacks {want:?}:\n{header}");
    }
    // Every missing value the header names is the one `ltu inspect` gives.
    let json = inspect(d, "iris.ltu");
    for input in json["inputs"].as_array().unwrap() {
        let name = input["name"].as_str().unwrap().to_ascii_uppercase();
        let want = format!("#define LTU_MISSING_{name} {} ", input["missing_raw"]);
        assert!(header.contains(&want), "model.h lacks {want:?}");
    }

    // Two translation units include the header (one twice); the program sees the model only
    // through the header's names.
    let other = "#include \"model.h\"\n\
                 const char *class_of(const int32_t *x);\n\
                 const char *class_of(const int32_t *x)\n{\n    return ltu_class_names[ltu_predict(x)];\n}\n";
    let main = "#include <stdio.h>\n#include <stdlib.h>\n#include \"model.h\"\n#include \"model.h\"\n\
                const char *class_of(const int32_t *x);\n\
                int main(void)\n{\n    double sl, sw, pl, pw;\n    \
                while (scanf(\"%lf %lf %lf %lf\", &sl, &sw, &pl, &pw) == 4) {\n        \
                int32_t x[LTU_N_INPUTS];\n        \
                x[LTU_INPUT_SEPAL_LENGTH] = ltu_input_sepal_length(sl);\n        \
                x[LTU_INPUT_SEPAL_WIDTH] = ltu_input_sepal_width(sw);\n        \
                x[LTU_INPUT_PETAL_LENGTH] = ltu_input_petal_length(pl);\n        \
                x[LTU_INPUT_PETAL_WIDTH] = ltu_input_petal_width(pw);\n        \
                if (ltu_predict(x) < 0 || ltu_predict(x) >= LTU_N_CLASSES) abort();\n        \
                printf(\"%s\\n\", class_of(x));\n    }\n    return 0;\n}\n";
    std::fs::write(d.join("other.c"), other).unwrap();
    std::fs::write(d.join("main.c"), main).unwrap();
    let rows = iris_rows();
    let input: String = rows.iter().map(|(cells, _)| cells.join(" ") + "\n").collect();
    let want = predicted(d, "iris.ltu", "iris.csv");
    assert_eq!(want.len(), rows.len());
    for cc in common::c_compilers() {
        let exe = d.join(format!("iris_{cc}"));
        common::cc(cc, d, &["model.c", "other.c", "main.c", "-o", exe.to_str().unwrap()], "iris program");
        let got: Vec<String> = run(&exe, input.clone()).lines().map(str::to_string).collect();
        assert_eq!(got, want, "{cc}: the header's names predict as ltu predict");
        // The header compiles on its own, with and without the floating-point conversions.
        std::fs::write(d.join("alone.c"), "#include \"model.h\"\n").unwrap();
        common::cc(cc, d, &["-c", "alone.c", "-o", "alone.o"], "model.h alone");
        common::cc(cc, d, &["-DLTU_NO_FLOAT", "-c", "alone.c", "-o", "alone.o"], "model.h without float");
    }
}

/// The header's `extern "C"` guard lets C++ include it (g++ and clang++, which `cargo xtask test`
/// installs).
#[test]
fn the_header_is_valid_cxx() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "car.csv", "car.ltu", &["--algo", "fringe"]);
    ltu(d, &["codegen", "car.ltu", "--lang", "c", "-o", "car.c"]);
    let user = "#include \"car.h\"\nint main()\n{\n    return ltu_predict(0) == LTU_CLASS_VGOOD;\n}\n";
    std::fs::write(d.join("user.cpp"), user).unwrap();
    for cxx in ["g++", "clang++"] {
        let out = std::process::Command::new(cxx)
            .current_dir(d)
            .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "user.cpp"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{cxx}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn conversion_helpers_round_half_away_and_saturate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "iris.csv", "iris.ltu", &["--algo", "ptree"]);
    ltu(d, &["codegen", "iris.ltu", "--lang", "c", "-o", "model.c"]);
    let mut main = String::from(
        "#include <stdio.h>\n#include <math.h>\n#include \"model.h\"\nint main(void)\n{\n    double v;\n    while (scanf(\"%lf\", &v) == 1) printf(\"%ld\\n\", (long)ltu_input_petal_length(v));\n    \
         printf(\"%ld %ld %ld\\n\", (long)ltu_input_petal_length(NAN), (long)ltu_input_petal_length(INFINITY), \
         (long)ltu_input_petal_length(-INFINITY));\n",
    );
    for (v, ve, me) in FIXED {
        let v = if v == i32::MIN { "(-2147483647 - 1)".to_string() } else { v.to_string() };
        let _ = writeln!(main, "    printf(\"%ld\\n\", (long)ltu_from_fixed({v}, {ve}, {me}));");
    }
    main.push_str("    return 0;\n}\n");
    std::fs::write(d.join("main.c"), main).unwrap();
    let mut want = String::new();
    for v in VALUES {
        let _ = writeln!(want, "{}", to_raw(v.parse().unwrap(), 1, 0));
    }
    let _ = writeln!(want, "38 38 38"); // NaN and infinities: the missing value
    for (v, ve, me) in FIXED {
        let _ = writeln!(want, "{}", fixed_expected(v, ve, me));
    }
    let input: String = VALUES.iter().map(|v| format!("{v}\n")).collect();
    for cc in common::c_compilers() {
        let exe = d.join(format!("conv_{cc}"));
        common::cc(cc, d, &["main.c", "model.c", "-o", exe.to_str().unwrap(), "-lm"], "conversions");
        assert_eq!(run(&exe, input.clone()), want, "{cc}: conversions");
    }
}

#[test]
fn category_codes_are_those_of_ltu_inspect() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "car.csv", "car.ltu", &["--algo", "fringe"]);
    ltu(d, &["codegen", "car.ltu", "--lang", "c", "-o", "car.c"]);
    let header = std::fs::read_to_string(d.join("car.h")).unwrap();
    let json = inspect(d, "car.ltu");
    // One compile-time check per input, value and class: the build fails on any other code.
    let mut checks = String::from("#include \"car.h\"\n");
    let mut n = 0;
    let mut check = |checks: &mut String, name: String, code: usize| {
        let _ = writeln!(checks, "typedef char check_{n}[({name} == {code}) ? 1 : -1];");
        n += 1;
    };
    for input in json["inputs"].as_array().unwrap() {
        let ident = input["name"].as_str().unwrap().to_ascii_uppercase();
        check(&mut checks, format!("LTU_INPUT_{ident}"), input["index"].as_u64().unwrap() as usize);
        for (code, value) in input["values"].as_array().unwrap().iter().enumerate() {
            let value = value.as_str().unwrap();
            let comment = format!("{code} /* \"{value}\" */");
            let line = header
                .lines()
                .find(|l| l.starts_with(&format!("#define LTU_VALUE_{ident}_")) && l.ends_with(&comment))
                .unwrap_or_else(|| panic!("car.h has no code {code} for {ident} = {value}:\n{header}"));
            check(&mut checks, line.split(' ').nth(1).unwrap().to_string(), code);
        }
    }
    for (code, class) in json["classes"].as_array().unwrap().iter().enumerate() {
        check(&mut checks, format!("LTU_CLASS_{}", class.as_str().unwrap().to_ascii_uppercase()), code);
    }
    // Names that are not identifiers as they stand.
    check(&mut checks, "LTU_VALUE_DOORS_5MORE".into(), 3);
    check(&mut checks, "LTU_VALUE_PERSONS_MORE".into(), 2);
    std::fs::write(d.join("checks.c"), checks).unwrap();
    for cc in common::c_compilers() {
        common::cc(cc, d, &["-c", "checks.c", "-o", "checks.o"], "category codes");
        common::cc(cc, d, &["-c", "car.c", "-o", "car.o"], "car.c");
    }
}

#[test]
fn a_model_without_names_gets_generic_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "iris.csv", "iris.ltu", &["--algo", "ptree"]);
    train(d, "iris.csv", "stripped.ltu", &["--algo", "ptree", "--strip"]);
    train(d, "iris.csv", "nameless.ltu", &["--algo", "ptree", "--no-names"]);
    ltu(d, &["codegen", "stripped.ltu", "--lang", "c", "-o", "stripped.c"]);
    ltu(d, &["codegen", "nameless.ltu", "--lang", "c", "-o", "nameless.c"]);
    let stripped = std::fs::read_to_string(d.join("stripped.h")).unwrap();
    assert!(stripped.contains("no host block"), "{stripped}");
    assert!(stripped.contains("#define LTU_INPUT_2 2") && stripped.contains("#define LTU_CLASS_2 2"));
    assert!(
        !stripped.contains("LTU_SCALE_") && !stripped.contains("ltu_input_2("),
        "no scale, no conversion"
    );
    let nameless = std::fs::read_to_string(d.join("nameless.h")).unwrap();
    assert!(nameless.contains("stores no names"), "{nameless}");
    assert!(nameless.contains("#define LTU_SCALE_2 1") && nameless.contains("ltu_input_2(double value)"));

    // The stripped model, fed raw inputs at the generic indices, predicts as the named one.
    let json = inspect(d, "iris.ltu");
    let classes: Vec<String> =
        json["classes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    let main = "#include <stdio.h>\n#include \"stripped.h\"\nint main(void)\n{\n    long a, b, c, e;\n    \
                while (scanf(\"%ld %ld %ld %ld\", &a, &b, &c, &e) == 4) {\n        int32_t x[LTU_N_INPUTS];\n        \
                x[LTU_INPUT_0] = (int32_t)a;\n        x[LTU_INPUT_1] = (int32_t)b;\n        \
                x[LTU_INPUT_2] = (int32_t)c;\n        x[LTU_INPUT_3] = (int32_t)e;\n        \
                printf(\"%s\\n\", ltu_class_names[ltu_predict(x)]);\n    }\n    return 0;\n}\n";
    std::fs::write(d.join("main.c"), main).unwrap();
    let input: String = iris_rows()
        .iter()
        .map(|(cells, _)| {
            let raw: Vec<String> =
                cells.iter().map(|c| to_raw(c.parse().unwrap(), 1, 0).to_string()).collect();
            raw.join(" ") + "\n"
        })
        .collect();
    let want: Vec<String> = predicted(d, "iris.ltu", "iris.csv")
        .iter()
        .map(|name| format!("class {}", classes.iter().position(|c| c == name).unwrap()))
        .collect();
    for cc in common::c_compilers() {
        let exe = d.join(format!("stripped_{cc}"));
        common::cc(cc, d, &["main.c", "stripped.c", "-o", exe.to_str().unwrap()], "stripped");
        let got: Vec<String> = run(&exe, input.clone()).lines().map(str::to_string).collect();
        assert_eq!(got, want, "{cc}: generic names");
        common::cc(cc, d, &["-c", "nameless.c", "-o", "nameless.o"], "nameless");
    }
}

#[test]
fn one_stream_to_stdout_compiles_and_serves_as_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "iris.csv", "iris.ltu", &["--algo", "ptree"]);
    let out = ltu(d, &["codegen", "iris.ltu", "--lang", "c", "-o", "-"]);
    let stream = String::from_utf8(out.stdout).unwrap();
    assert!(!stream.contains("#include \"") && stream.contains("#define LTU_INPUT_PETAL_LENGTH 2"));
    assert!(std::fs::read_dir(d).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".h")));
    std::fs::write(d.join("single.c"), &stream).unwrap();
    let main =
        "#include <stdio.h>\n#define LTU_DECLARATIONS_ONLY\n#include \"single.c\"\nint main(void)\n{\n    \
                int32_t x[LTU_N_INPUTS];\n    x[LTU_INPUT_SEPAL_LENGTH] = ltu_input_sepal_length(6.3);\n    \
                x[LTU_INPUT_SEPAL_WIDTH] = ltu_input_sepal_width(3.3);\n    \
                x[LTU_INPUT_PETAL_LENGTH] = ltu_input_petal_length(6.0);\n    \
                x[LTU_INPUT_PETAL_WIDTH] = ltu_from_fixed(25, 1, LTU_SCALE_PETAL_WIDTH);\n    \
                printf(\"%s\\n\", ltu_class_names[ltu_predict(x)]);\n    return 0;\n}\n";
    std::fs::write(d.join("main.c"), main).unwrap();
    std::fs::write(d.join("row.csv"), "sepal_length,sepal_width,petal_length,petal_width\n6.3,3.3,6.0,2.5\n")
        .unwrap();
    let want = ltu(d, &["predict", "iris.ltu", "row.csv"]).stdout;
    for cc in common::c_compilers() {
        let exe = d.join(format!("single_{cc}"));
        common::cc(cc, d, &["single.c", "main.c", "-o", exe.to_str().unwrap()], "one stream");
        assert_eq!(run(&exe, String::new()).as_bytes(), want, "{cc}");
    }
}

#[test]
fn codegen_refuses_to_replace_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "iris.csv", "iris.ltu", &["--algo", "ptree"]);
    std::fs::create_dir(d.join("model.h")).unwrap();
    let out = ltu_status(d, &["codegen", "iris.ltu", "--lang", "c", "-o", "model.c"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("model.h"), "{err}");
    assert!(!d.join("model.c").exists(), "nothing written when the header cannot be");
    assert!(d.join("model.h").is_dir());
    let fifo = d.join("fifo.h");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    if made {
        let out = ltu_status(d, &["codegen", "iris.ltu", "--lang", "c", "-o", "fifo.c"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains("not a regular file"), "{err}");
    }
    let out = ltu_status(d, &["codegen", "iris.ltu", "--lang", "c", "-o", "x.h"]);
    assert!(!out.status.success(), "a source named like its header");
    // A regular file is replaced, atomically, by both.
    std::fs::write(d.join("ok.h"), "old").unwrap();
    ltu(d, &["codegen", "iris.ltu", "--lang", "c", "-o", "ok.c"]);
    assert!(std::fs::read_to_string(d.join("ok.h")).unwrap().contains("LTU_N_INPUTS"));
}

#[test]
fn generated_rust_carries_the_same_contract() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    train(d, "iris.csv", "iris.ltu", &["--algo", "ptree"]);
    train(d, "car.csv", "car.ltu", &["--algo", "fringe"]);
    ltu(d, &["codegen", "iris.ltu", "-o", "iris.rs"]);
    ltu(d, &["codegen", "car.ltu", "-o", "car.rs"]);
    let rows = iris_rows();
    let mut program = String::from(
        "mod iris { include!(\"iris.rs\"); }\nmod car { include!(\"car.rs\"); }\n\
         fn main() {\n    use std::io::BufRead;\n    \
         assert_eq!(car::VALUE_DOORS_5MORE, 3);\n    assert_eq!(car::INPUT_SAFETY, 5);\n    \
         assert_eq!(iris::CLASS_NAMES[iris::CLASS_VIRGINICA], \"virginica\");\n    \
         assert_eq!(iris::INPUT_NAMES[iris::INPUT_PETAL_LENGTH], \"petal_length\");\n",
    );
    for v in VALUES {
        let _ = writeln!(program, "    println!(\"{{}}\", iris::input_petal_length({v}f64));");
    }
    for (v, ve, me) in FIXED {
        let _ = writeln!(program, "    println!(\"{{}}\", iris::from_fixed({v}, {ve}, {me}));");
    }
    program.push_str(
        "    println!(\"{}\", iris::input_petal_length(f64::NAN));\n    \
         for line in std::io::stdin().lock().lines() {\n        \
         let v: Vec<f64> = line.unwrap().split(' ').map(|t| t.parse().unwrap()).collect();\n        \
         let mut x = [0i32; iris::N_INPUTS];\n        \
         x[iris::INPUT_SEPAL_LENGTH] = iris::input_sepal_length(v[0]);\n        \
         x[iris::INPUT_SEPAL_WIDTH] = iris::input_sepal_width(v[1]);\n        \
         x[iris::INPUT_PETAL_LENGTH] = iris::input_petal_length(v[2]);\n        \
         x[iris::INPUT_PETAL_WIDTH] = iris::input_petal_width(v[3]);\n        \
         println!(\"{}\", iris::CLASS_NAMES[iris::predict(&x)]);\n    }\n    \
         let _ = car::predict(&[car::VALUE_BUYING_LOW; car::N_INPUTS]);\n}\n",
    );
    std::fs::write(d.join("main.rs"), program).unwrap();
    let exe = d.join("contract");
    common::rustc(&d.join("main.rs"), &exe);
    let mut want = String::new();
    for v in VALUES {
        let _ = writeln!(want, "{}", to_raw(v.parse().unwrap(), 1, 0));
    }
    for (v, ve, me) in FIXED {
        let _ = writeln!(want, "{}", fixed_expected(v, ve, me));
    }
    want.push_str("38\n");
    for class in predicted(d, "iris.ltu", "iris.csv") {
        let _ = writeln!(want, "{class}");
    }
    let input: String = rows.iter().map(|(cells, _)| cells.join(" ") + "\n").collect();
    assert_eq!(run(&exe, input), want);
}

/// Names that are not identifiers, collide once sanitised, or could break a comment or a string
/// (`*/`, `/*`, a trigraph, a backslash, non-ASCII) still give code that compiles cleanly, with
/// distinct identifiers in input order and the names intact in the name arrays.
#[test]
fn awkward_names_give_distinct_identifiers_and_intact_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut csv = String::from("a b,a-b,names,x */ y,colour,class\n");
    let colours = ["red", "Red", "??/", "*/", "é"];
    let classes = ["2", "two\\", "/* two"];
    for i in 0..60 {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{}",
            i % 7,
            i % 5,
            (i * 3) % 11,
            i % 2,
            colours[i % colours.len()],
            classes[(i / 2) % classes.len()]
        );
    }
    std::fs::write(d.join("awkward.csv"), csv).unwrap();
    ltu(
        d,
        &[
            "train",
            "awkward.csv",
            "--algo",
            "ptree",
            "--categorical",
            "colour",
            "--no-estimate",
            "-o",
            "a.ltu",
        ],
    );
    ltu(d, &["codegen", "a.ltu", "--lang", "c", "-o", "a.c"]);
    ltu(d, &["codegen", "a.ltu", "-o", "a.rs"]);
    let header = std::fs::read_to_string(d.join("a.h")).unwrap();
    for want in [
        "#define LTU_INPUT_A_B 0",
        "#define LTU_INPUT_A_B_1 1",
        "#define LTU_INPUT_NAMES_2 2",
        "#define LTU_INPUT_X_Y 3",
        "#define LTU_VALUE_COLOUR_RED 0",
        "#define LTU_VALUE_COLOUR_RED_1 1",
        "#define LTU_VALUE_COLOUR 2",
        "#define LTU_VALUE_COLOUR_3 3",
        "#define LTU_CLASS_2 0",
        "#define LTU_CLASS_TWO 1",
        "#define LTU_CLASS_TWO_2 2",
    ] {
        assert!(header.contains(want), "a.h lacks {want:?}:\n{header}");
    }
    let main = "#include <stdio.h>\n#include \"a.h\"\nint main(void)\n{\n    int i;\n    \
                for (i = 0; i < LTU_N_CLASSES; i++) printf(\"%s\\n\", ltu_class_names[i]);\n    \
                for (i = 0; i < LTU_N_INPUTS; i++) printf(\"%s\\n\", ltu_input_names[i]);\n    return 0;\n}\n";
    std::fs::write(d.join("main.c"), main).unwrap();
    let json = inspect(d, "a.ltu");
    let mut want = String::new();
    for c in json["classes"].as_array().unwrap() {
        let _ = writeln!(want, "{}", c.as_str().unwrap());
    }
    for i in json["inputs"].as_array().unwrap() {
        let _ = writeln!(want, "{}", i["name"].as_str().unwrap());
    }
    for cc in common::c_compilers() {
        let exe = d.join(format!("names_{cc}"));
        common::cc(cc, d, &["main.c", "a.c", "-o", exe.to_str().unwrap()], "awkward names");
        assert_eq!(run(&exe, String::new()), want, "{cc}: names intact");
    }
    std::fs::write(
        d.join("main.rs"),
        "mod a { include!(\"a.rs\"); }\nfn main() {\n    \
         for n in a::CLASS_NAMES { println!(\"{n}\"); }\n    for n in a::INPUT_NAMES { println!(\"{n}\"); }\n    \
         let _ = (a::INPUT_A_B_1, a::VALUE_COLOUR_RED_1, a::CLASS_TWO_2, a::input_names_2(1.0), a::predict(&[0i32; a::N_INPUTS]));\n}\n",
    )
    .unwrap();
    common::rustc(&d.join("main.rs"), &d.join("names_rs"));
    assert_eq!(run(&d.join("names_rs"), String::new()), want, "Rust: names intact");
}

#[test]
fn an_input_with_an_offset_converts_as_the_host_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Readings of 1e9 + 0.000 .. 0.199: stored in steps of 10^-3 from an offset near 1e9.
    let mut csv = String::from("reading,class\n");
    for k in 0..200 {
        let _ = writeln!(csv, "{:.3},{}", 1e9 + f64::from(k) * 1e-3, if k >= 100 { "hi" } else { "lo" });
    }
    std::fs::write(d.join("offset.csv"), csv).unwrap();
    ltu(d, &["train", "offset.csv", "--no-estimate", "--algo", "ptree", "-o", "o.ltu"]);
    let input = &inspect(d, "o.ltu")["inputs"][0];
    let (exp, offset) = (input["scale_exp"].as_i64().unwrap() as i8, input["offset"].as_i64().unwrap());
    assert_eq!(exp, 3, "{input}");
    assert_ne!(offset, 0, "{input}");
    ltu(d, &["codegen", "o.ltu", "--lang", "c", "-o", "model.c"]);
    let header = std::fs::read_to_string(d.join("model.h")).unwrap();
    assert!(header.contains(&format!("#define LTU_OFFSET_READING {offset}LL")), "{header}");
    let main = "#include <stdio.h>\n#include \"model.h\"\nint main(void)\n{\n    double v;\n    \
                while (scanf(\"%lf\", &v) == 1) printf(\"%ld\\n\", (long)ltu_input_reading(v));\n    return 0;\n}\n";
    std::fs::write(d.join("main.c"), main).unwrap();
    let values =
        ["1000000000.000", "1000000000.0995", "1000000000.1", "1000000000.199", "999999999.5", "1000000004"];
    let input: String = values.iter().map(|v| format!("{v}\n")).collect();
    let want: String =
        values.iter().map(|v| format!("{}\n", to_raw(v.parse().unwrap(), exp, offset))).collect();
    for cc in common::c_compilers() {
        let exe = d.join(format!("offset_{cc}"));
        common::cc(cc, d, &["main.c", "model.c", "-o", exe.to_str().unwrap()], "offset conversion");
        assert_eq!(run(&exe, input.clone()), want, "{cc}: offset conversion");
    }
}
