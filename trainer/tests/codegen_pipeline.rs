//! `ltu codegen` of a model trained on recordings: the generated Rust and C pipeline
//! (`classify_window` and the stream) classifies every window exactly as the runtime's
//! `Model::predict_window` does, on the test split's recordings at every window start and on
//! adversarial sequences (all `i16::MIN`, all `i16::MAX`, alternating extremes, random samples).
//!
//! Models are trained through the CLI with learners `fringe`, `ptree` and `sparse`, with the
//! default window features and with lists that use every statistic and segments (down to
//! segments of one sample), over whole recordings (`codegen --window`) and over windows shorter
//! than a recording, in the wide and the long layout. The generated Rust is compiled with overflow checks; the C with
//! `-std=c99 -pedantic -Wall -Wextra -Werror` and the undefined-behaviour sanitizer, by gcc and
//! (where installed) clang.

use std::fmt::Write as _;
use std::path::Path;

use ltu::data::recordings::{self, Layout};
use ltu::data::{self, LoadOptions};
use ltu::model::{ModelSpec, Pipeline};

use crate::common::{self, ltu, run, splitmix};

fn data_path(name: &str) -> String {
    common::data_path(name).to_str().unwrap().to_string()
}

/// Every statistic, most over segments (`mean_abs_diff@16` over a short window makes segments of
/// one sample).
const ALL_STATS: &str =
    "mean@3,spread@2,energy@2,min@2,max,peak_to_peak@4,mean_abs_diff@3,slope@4,crossings@2";
const ONE_SAMPLE_SEGMENTS: &str = "mean@16,spread@16,slope@16,mean_abs_diff@16,crossings@4,energy@5";

struct Case {
    train: &'static str,
    test: &'static str,
    algo: &'static str,
    /// `--window`, `--hop` and `--window-features` for `train`.
    train_args: &'static [&'static str],
    /// `--window`/`--hop` for `codegen`.
    codegen_args: &'static [&'static str],
    window: usize,
    hop: usize,
    /// The long layout's recording column; `None`: the wide layout.
    recording: Option<&'static str>,
}

const CASES: [Case; 8] = [
    Case {
        train: "gunpoint_train.csv",
        test: "gunpoint_test.csv",
        algo: "fringe",
        train_args: &[],
        codegen_args: &["--window", "150"],
        window: 150,
        hop: 150,
        recording: None,
    },
    Case {
        train: "gunpoint_train.csv",
        test: "gunpoint_test.csv",
        algo: "ptree",
        train_args: &["--window", "40", "--hop", "10", "--window-features", ALL_STATS],
        codegen_args: &[],
        window: 40,
        hop: 10,
        recording: None,
    },
    Case {
        train: "gunpoint_train.csv",
        test: "gunpoint_test.csv",
        algo: "sparse",
        train_args: &["--window", "10", "--hop", "3", "--window-features", ONE_SAMPLE_SEGMENTS],
        codegen_args: &["--hop", "4"],
        window: 10,
        hop: 4,
        recording: None,
    },
    Case {
        train: "basicmotions_train.csv",
        test: "basicmotions_test.csv",
        algo: "sparse",
        train_args: &[],
        codegen_args: &["--window", "100", "--hop", "25"],
        window: 100,
        hop: 25,
        recording: None,
    },
    Case {
        train: "basicmotions_train.csv",
        test: "basicmotions_test.csv",
        algo: "ptree",
        train_args: &["--window", "30", "--hop", "7", "--window-features", ALL_STATS],
        codegen_args: &[],
        window: 30,
        hop: 7,
        recording: None,
    },
    Case {
        train: "basicmotions_train.csv",
        test: "basicmotions_test.csv",
        algo: "fringe",
        train_args: &["--window", "50", "--hop", "50", "--window-features", ALL_STATS],
        codegen_args: &[],
        window: 50,
        hop: 50,
        recording: None,
    },
    Case {
        train: "gunpoint_train.csv",
        test: "gunpoint_test.csv",
        algo: "fringe",
        train_args: &["--window", "64", "--hop", "16", "--window-features", ALL_STATS],
        codegen_args: &[],
        window: 64,
        hop: 16,
        recording: None,
    },
    // The long layout: 12 channels, recordings of 7 to 29 frames classified whole when trained.
    Case {
        train: "japanese-vowels_train.csv",
        test: "japanese-vowels_test.csv",
        algo: "ptree",
        // Few statistics per channel: the test is about the recording layout, and the default set
        // (828 inputs) makes a C file the sanitizing compilers take most of the test to build.
        train_args: &["--recording", "recording", "--window-features", "mean,spread,min,max,slope"],
        codegen_args: &["--window", "7", "--hop", "2"],
        window: 7,
        hop: 2,
        recording: Some("recording"),
    },
];

/// A sequence of frames: `samples[c][t]`.
type Sequence = Vec<Vec<i16>>;

/// The test split's recordings at the pipeline's scales, in the pipeline's channel order.
fn test_sequences(file: &str, pipeline: &Pipeline) -> Vec<Sequence> {
    let options = LoadOptions { categorical: vec!["class".into()], ..LoadOptions::default() };
    let data = data::load(Path::new(&data_path(file)), &options).unwrap();
    let layout = match &pipeline.recording {
        Some(recording) => Layout::Long { recording: recording.clone() },
        None => Layout::Wide,
    };
    let recs = recordings::from_dataset(&data, &layout).unwrap();
    let columns: Vec<usize> = pipeline
        .channels
        .iter()
        .map(|c| recs.channels.iter().position(|n| *n == c.name).expect("channel in the test file"))
        .collect();
    recs.recordings.iter().map(|r| recordings::samples(r, pipeline, &columns)).collect()
}

/// Sequences the data never shows: constant extremes, alternating extremes (in phase and out of
/// phase across channels), and random samples, each long enough for the stream to wrap and
/// classify several windows.
fn adversarial_sequences(channels: usize, window: usize, hop: usize, rng: &mut u64) -> Vec<Sequence> {
    let len = 2 * window + 3 * hop + 1;
    let by = |f: &dyn Fn(usize, usize) -> i16| -> Sequence {
        (0..channels).map(|c| (0..len).map(|t| f(c, t)).collect()).collect()
    };
    let extreme = |odd: bool| if odd { i16::MAX } else { i16::MIN };
    let mut out = vec![
        by(&|_, _| i16::MIN),
        by(&|_, _| i16::MAX),
        by(&|_, t| extreme(t % 2 == 1)),
        by(&|c, t| extreme((t + c) % 2 == 1)),
        by(&|_, t| extreme(t % 3 == 0)),
        by(&|_, t| extreme(t >= len / 2)),
    ];
    let specials = [i16::MIN, i16::MAX, -1, 0, 1];
    for _ in 0..3 {
        out.push((0..channels).map(|_| (0..len).map(|_| splitmix(rng) as i16).collect()).collect());
        out.push(
            (0..channels).map(|_| (0..len).map(|_| specials[splitmix(rng) as usize % 5]).collect()).collect(),
        );
    }
    out
}

/// What the generated programs must print for `seq`: `classify_window` at every window start,
/// then the stream's answer (`-1`: no window) after every frame.
fn expected(model: &ltu_runtime::Model<'_>, seq: &Sequence, window: usize, hop: usize) -> String {
    let len = seq[0].len();
    let classify = |start: usize| -> usize {
        let channels: Vec<&[i16]> = seq.iter().map(|c| &c[start..start + window]).collect();
        model.predict_window(&channels).unwrap()
    };
    let mut out = String::new();
    for start in 0..(len + 1).saturating_sub(window) {
        let _ = write!(out, "{} ", classify(start));
    }
    out.push('\n');
    for t in 1..=len {
        let ready = t >= window && (t - window) % hop == 0;
        let _ = write!(out, "{} ", if ready { classify(t - window) as i64 } else { -1 });
    }
    out.push('\n');
    out
}

/// One input line for the programs: the length, then the samples frame by frame.
fn input_line(seq: &Sequence) -> String {
    let len = seq[0].len();
    let mut line = format!("{len}");
    for t in 0..len {
        for c in seq {
            let _ = write!(line, " {}", c[t]);
        }
    }
    line.push('\n');
    line
}

/// The C driver: reads sequences, prints `ltu_classify_window` at every start and `ltu_push`
/// after every frame. It sees the model only through the declarations of the generated file.
const C_MAIN: &str = r#"#include <stdio.h>
#include <stdlib.h>
#define LTU_DECLARATIONS_ONLY
#include "model.c"

static int16_t seq[4096][LTU_N_CHANNELS];

int main(void)
{
    int len;
    while (scanf("%d", &len) == 1) {
        int t, c, start;
        struct ltu_stream stream;
        if (len < 0 || len > 4096) abort();
        for (t = 0; t < len; t++) {
            for (c = 0; c < LTU_N_CHANNELS; c++) {
                int v;
                if (scanf("%d", &v) != 1) abort();
                seq[t][c] = (int16_t)v;
            }
        }
        for (start = 0; start + LTU_WINDOW <= len; start++) {
            static int16_t window[LTU_N_CHANNELS][LTU_WINDOW];
            for (c = 0; c < LTU_N_CHANNELS; c++) {
                for (t = 0; t < LTU_WINDOW; t++) window[c][t] = seq[start + t][c];
            }
            printf("%d ", ltu_classify_window((const int16_t (*)[LTU_WINDOW])window));
        }
        printf("\n");
        ltu_stream_init(&stream);
        for (t = 0; t < len; t++) printf("%d ", ltu_push(&stream, seq[t]));
        printf("\n");
    }
    return 0;
}
"#;

#[test]
fn generated_pipeline_agrees_with_predict_window() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = 11u64;
    let mut program = String::from(
        "use std::io::BufRead;\n\
         macro_rules! run {\n    ($m:ident, $v:expr) => {{\n        \
         let (c, w, v) = ($m::N_CHANNELS, $m::WINDOW, $v);\n        let len = v.len() / c;\n        \
         let mut line = String::new();\n        \
         for start in 0..(len + 1).saturating_sub(w) {\n            \
         let mut s = [[0i16; $m::WINDOW]; $m::N_CHANNELS];\n            \
         for ch in 0..c {\n                for t in 0..w {\n                    s[ch][t] = v[(start + t) * c + ch];\n                }\n            }\n            \
         line.push_str(&format!(\"{} \", $m::classify_window(&s)));\n        }\n        \
         println!(\"{line}\");\n        let mut stream = $m::Stream::new();\n        let mut line = String::new();\n        \
         for t in 0..len {\n            let mut f = [0i16; $m::N_CHANNELS];\n            \
         f.copy_from_slice(&v[t * c..(t + 1) * c]);\n            \
         let k = stream.push(&f).map_or(-1, |k| k as i64);\n            line.push_str(&format!(\"{k} \"));\n        }\n        \
         println!(\"{line}\");\n    }};\n}\n",
    );
    let mut rust_input = String::new();
    let mut rust_expected = String::new();
    let compilers = common::c_compilers();
    // Training and code generation of each case, each its own `ltu` processes, in parallel.
    in_parallel(CASES.iter().enumerate().map(|(m, case)| move || train_and_generate(d, m, case)).collect());
    // The C programs to build and run once every case is checked: directory, input, expected.
    let mut c_runs = Vec::new();
    for (m, case) in CASES.iter().enumerate() {
        let model_file = format!("m{m}.ltu");
        let rs = format!("m{m}.rs");
        let c_dir = d.join(format!("c{m}"));
        let bytes = std::fs::read(d.join(&model_file)).unwrap();
        let model = ltu_runtime::Model::from_bytes(&bytes).unwrap();
        let pipeline = ModelSpec::from_model(&model).pipeline.expect("a pipeline model");
        assert_eq!(pipeline.recording.as_deref(), case.recording, "case {m}: layout");
        let rust_src = std::fs::read_to_string(d.join(&rs)).unwrap();
        assert!(
            rust_src.contains(&format!("pub const WINDOW: usize = {};", case.window))
                && rust_src.contains(&format!("pub const HOP: usize = {};", case.hop)),
            "case {m}: window and hop"
        );

        // The header beside the C says the window, the hop and the channels in frame order.
        let header = std::fs::read_to_string(c_dir.join("model.h")).unwrap();
        assert!(
            header.contains(&format!("#define LTU_WINDOW {} ", case.window))
                && header.contains(&format!("#define LTU_HOP {} ", case.hop)),
            "case {m}: model.h window and hop"
        );
        for (c, ch) in pipeline.channels.iter().enumerate() {
            let line = format!(" {c} /* {:?} */", ch.name);
            let def = header.lines().find(|l| l.starts_with("#define LTU_CHANNEL_") && l.ends_with(&line));
            let def = def.unwrap_or_else(|| panic!("case {m}: model.h has no channel {c} {:?}", ch.name));
            let ident = def.split(' ').nth(1).unwrap().trim_start_matches("LTU_CHANNEL_");
            let scale = format!("#define LTU_SAMPLE_SCALE_{ident} {}", ch.scale_exp);
            assert!(header.contains(&scale), "case {m}: model.h lacks {scale:?}");
        }

        let mut sequences = test_sequences(case.test, &pipeline);
        sequences.extend(adversarial_sequences(pipeline.channels.len(), case.window, case.hop, &mut rng));
        let mut c_input = String::new();
        let mut c_expected = String::new();
        for seq in &sequences {
            let want = expected(&model, seq, case.window, case.hop);
            let line = input_line(seq);
            let _ = write!(rust_input, "{m} {line}");
            rust_expected.push_str(&want);
            c_input.push_str(&line);
            c_expected.push_str(&want);
        }
        let _ = writeln!(program, "mod m{m} {{ include!(\"{rs}\"); }}");

        std::fs::write(c_dir.join("main.c"), C_MAIN).unwrap();
        c_runs.push((m, c_dir, c_input, c_expected));
    }

    program.push_str(
        "fn main() {\n    for line in std::io::stdin().lock().lines() {\n        let line = line.unwrap();\n        \
         let v: Vec<i64> = line.split(' ').map(|t| t.parse().unwrap()).collect();\n        \
         let samples: Vec<i16> = v[2..].iter().map(|&x| x as i16).collect();\n        match v[0] {\n",
    );
    for m in 0..CASES.len() {
        let _ = writeln!(program, "            {m} => run!(m{m}, &samples),");
    }
    program.push_str("            _ => unreachable!(),\n        }\n    }\n}\n");
    let main = d.join("main.rs");
    std::fs::write(&main, program).unwrap();
    // Every case's C by every compiler, and the Rust program, built and run in parallel.
    let mut jobs: Vec<Box<dyn FnOnce() + Send + '_>> = Vec::new();
    for (m, c_dir, c_input, c_expected) in &c_runs {
        for cc in &compilers {
            jobs.push(Box::new(move || {
                let case = &CASES[*m];
                // C: the model its own object; the driver includes its declarations only. Each
                // compiler's objects are its own: the compilers run at the same time.
                let exe = c_dir.join(format!("run_{cc}"));
                let (model_o, main_o) = (format!("model_{cc}.o"), format!("main_{cc}.o"));
                for (src, obj) in [("model.c", &model_o), ("main.c", &main_o)] {
                    common::cc(cc, c_dir, &["-c", src, "-o", obj], &format!("case {m}"));
                }
                let link = [model_o.as_str(), main_o.as_str(), "-o", exe.to_str().unwrap()];
                common::cc(cc, c_dir, &link, &format!("case {m}: link"));
                let got = run(&exe, c_input.clone());
                compare(&got, c_expected, &format!("case {m} ({} {}), C by {cc}", case.train, case.algo));
            }));
        }
    }
    jobs.push(Box::new(|| {
        let exe = d.join("generated");
        common::rustc(&main, &exe);
        let got = run(&exe, rust_input);
        compare(&got, &rust_expected, "Rust");
    }));
    in_parallel(jobs);
}

/// Trains case `m` through the CLI into `m{m}.ltu` in `d` and generates its Rust (`m{m}.rs`) and
/// its C (`c{m}/model.c` and `model.h`), which must come without warnings.
fn train_and_generate(d: &Path, m: usize, case: &Case) {
    let model_file = format!("m{m}.ltu");
    let train = data_path(case.train);
    let mut args = vec!["train", &train, "--categorical", "class", "--algo", case.algo];
    if case.recording.is_none() {
        args.push("--recordings");
    }
    args.extend(case.train_args);
    args.extend(["--no-estimate", "-o", &model_file]);
    ltu(d, &args);
    let c_dir = d.join(format!("c{m}"));
    std::fs::create_dir(&c_dir).unwrap();
    for (lang, out) in [("rust", d.join(format!("m{m}.rs"))), ("c", c_dir.join("model.c"))] {
        let mut args = vec!["codegen", &model_file, "--lang", lang, "-o", out.to_str().unwrap()];
        args.extend(case.codegen_args);
        let o = ltu(d, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("warning"), "case {m}: the pipeline is emitted, nothing to warn about: {err}");
    }
}

/// Runs `jobs` on threads of their own (each mostly waits for the processes it starts) and
/// waits for all; the first failure's panic is the test's, with its own message.
fn in_parallel<F: FnOnce() + Send>(jobs: Vec<F>) {
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs.into_iter().map(|job| s.spawn(job)).collect();
        for h in handles {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// Line by line, so a failure names the sequence.
fn compare(got: &str, want: &str, what: &str) {
    let (got, want): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    assert_eq!(got.len(), want.len(), "{what}: lines");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let form = if i % 2 == 0 { "classify_window" } else { "stream" };
        assert_eq!(g.trim_end(), w.trim_end(), "{what}: sequence {} ({form})", i / 2);
    }
}
