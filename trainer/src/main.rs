//! `ltu`: the command line. Argument parsing, error printing and the subcommands' file handling
//! and rendering (`cli/`) live here; the engine (data, learners, evaluation, export, code
//! generation) is the `ltu` library.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

mod cli;

use cli::{self as commands, LearnArgs, PredictArgs, ReadArgs};

#[derive(Parser)]
#[command(
    name = "ltu",
    version,
    about = "Learn small classifiers built from linear threshold units and run them on microcontrollers",
    after_help = "Examples:
  ltu train data/iris.csv --algo ptree -o iris.ltu
  ltu eval iris.ltu data/iris.csv
  ltu cv data/kr-vs-kp.csv --algo ndl --folds 10 --json
  ltu inspect iris.ltu --dot | dot -Tsvg > iris.svg"
)]
struct Cli {
    /// Print one JSON object instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// No progress bar.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Learn a model from a CSV or ARFF file and write it in the runtime's format.
    #[command(
        after_help = "Example:\n  ltu train data/house-votes-84.csv --algo ptree -o votes.ltu --weights i8 --seed 7",
        allow_negative_numbers = true
    )]
    Train {
        /// Training data (CSV with a header row, or ARFF).
        data: PathBuf,
        /// Where to write the model: a file (replaced atomically; a symlink is followed), a
        /// device or FIFO (written through), or `-` for standard output (the report then goes to
        /// standard error). Never the training data file.
        #[arg(short, long, value_name = "PATH")]
        output: PathBuf,
        /// Estimate accuracy on the rows of this file (read with the training data's columns and
        /// classes) instead of on a held-out quarter of the training rows.
        #[arg(long, value_name = "FILE", conflicts_with = "no_estimate")]
        test: Option<PathBuf>,
        /// No held-out estimate (it trains a second model on three quarters of the rows).
        #[arg(long)]
        no_estimate: bool,
        /// Leave the host block out: names, the inputs' decimal scales and missing-value
        /// substitutes, and the metadata (how the model was trained). The file then holds only
        /// what a device evaluates (the size budgets count). `eval` and `predict` match data to a
        /// model by name, so they cannot read data for a stripped model: keep the unstripped file
        /// for the host, and evaluate the stripped one with `ltu_runtime` or `ltu codegen`.
        #[arg(long)]
        strip: bool,
        #[command(flatten)]
        learn: LearnArgs,
    },
    /// Accuracy, confusion matrix and per-class precision/recall of a model on a data file.
    #[command(after_help = "Example:\n  ltu eval monks1.ltu data/monks-1_test.csv")]
    Eval {
        /// Model file.
        model: PathBuf,
        /// Data file; columns, category values and classes are matched to the model by name.
        data: PathBuf,
        #[command(flatten)]
        data_args: ReadArgs,
    },
    /// Stratified k-fold cross-validation.
    #[command(
        after_help = "Example:\n  ltu cv data/iris.csv --algo ptree --folds 10 --seed 1",
        allow_negative_numbers = true
    )]
    Cv {
        /// Data file.
        data: PathBuf,
        /// Number of folds, at least 2 and at most the number of rows.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..))]
        folds: u32,
        /// Folds trained in parallel, at least 1 [default: available cores].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        jobs: Option<u32>,
        #[command(flatten)]
        learn: LearnArgs,
    },
    /// Print one predicted class name per data row (with --id, --scores or --probabilities: a CSV
    /// with a header).
    #[command(
        after_help = "Examples:\n  ltu predict iris.ltu data/iris.csv\n  cat new.csv | ltu predict iris.ltu - --id sample --scores\n  ltu predict iris.ltu new.csv --probabilities --calibrate held-out.csv"
    )]
    Predict {
        /// Model file.
        model: PathBuf,
        /// Data file (`-`: standard input); the class column may be absent or empty.
        data: PathBuf,
        #[command(flatten)]
        args: PredictArgs,
    },
    /// Print a shell completion script (clap_complete) for subcommands, options and their values.
    #[command(
        after_help = "Examples:\n  source <(ltu completions bash)                                  # bash, this session\n  ltu completions zsh > ~/.zfunc/_ltu                             # zsh, with ~/.zfunc in $fpath\n  ltu completions fish > ~/.config/fish/completions/ltu.fish\n  ltu completions powershell | Out-String | Invoke-Expression     # PowerShell"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write a model as Rust or C source that predicts exactly what the runtime predicts, for
    /// firmware that compiles its model in (no loader, no model file, a fraction of the cost).
    ///
    /// For a model trained on recordings (`train --recordings`) the source also holds its sensor
    /// pipeline for windows of a fixed length: `classify_window` (C: `ltu_classify_window`) over
    /// one window of raw `i16` samples per channel, and `Stream` (C: `struct ltu_stream`,
    /// `ltu_push`) that takes one frame at a time and classifies every hop frames, both equal to
    /// the runtime's `Model::predict_window`.
    #[command(
        after_help = "Examples:\n  ltu codegen iris.ltu -o src/model.rs          # then `mod model;` and model::predict(&inputs)\n  ltu codegen iris.ltu --lang c -o model.c      # model.c and model.h: ltu_predict, LTU_INPUT_*, LTU_CLASS_*\n  ltu codegen gunpoint.ltu --window 150 -o src/model.rs   # also classify_window(&samples), Stream::push(&frame)"
    )]
    Codegen {
        /// Model file.
        model: PathBuf,
        /// Language of the source.
        #[arg(long, value_enum, default_value_t = LangArg::Rust)]
        lang: LangArg,
        /// Where to write the source: a file (replaced atomically; with --lang c also its header
        /// beside it, named with `.h`, which documents every input, code and class), a device or
        /// FIFO, or `-` for standard output (the default; the report then goes to standard error;
        /// C is then one stream, the header's text first).
        #[arg(short, long, value_name = "PATH", default_value = "-")]
        output: PathBuf,
        /// Samples per window of the generated pipeline, for a model whose pipeline reads whole
        /// recordings (trained without --window); a model trained with --window has its own.
        #[arg(long, value_name = "N")]
        window: Option<u16>,
        /// Frames from one window the generated stream classifies to the next (default: the
        /// model's hop, or the window).
        #[arg(long, value_name = "N")]
        hop: Option<u16>,
    },
    /// Correct a model's unit weights from labelled rows, as the device's on-device learning does
    /// (Utgoff's absolute error correction), and write the learned model.
    ///
    /// Each row, in file order, is one update: the unit that decided it (a tree's leaf unit, a
    /// linear model's unit, a decision list's entry) is corrected when it was wrong. Tree
    /// decisions and constant leaves never change. Corrections keep the weight kind and the
    /// runtime's accumulator bound, so the written model has the input's size and layout and
    /// loads on the device. For a model trained on recordings DATA holds recordings, and each
    /// window is one labelled row, as `eval` reads them.
    #[command(
        after_help = "Examples:\n  ltu update iris.ltu new-rows.csv -o iris-learned.ltu\n  ltu update gestures.ltu drifted.csv -o adapted.ltu --epochs 3 --json"
    )]
    Update {
        /// Model file.
        model: PathBuf,
        /// Labelled data, read as `eval` reads it (columns, values and classes matched by name);
        /// every class must be one of the model's.
        data: PathBuf,
        /// Where to write the learned model: a file (replaced atomically; a symlink is followed),
        /// a device or FIFO (written through), or `-` for standard output (the report then goes
        /// to standard error). Never the model or data file.
        #[arg(short, long, value_name = "PATH")]
        output: PathBuf,
        /// Passes over the rows, each in file order.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        epochs: u32,
        #[command(flatten)]
        data_args: ReadArgs,
    },
    /// Show a model's structure, size and worst-case cost.
    #[command(after_help = "Example:\n  ltu inspect iris.ltu --dot > iris.dot")]
    Inspect {
        /// Model file.
        model: PathBuf,
        /// Write Graphviz instead (with --json: a `dot` string in the JSON object).
        #[arg(long)]
        dot: bool,
    },
}

/// Languages `ltu codegen` writes.
#[derive(Clone, Copy, ValueEnum)]
enum LangArg {
    /// A Rust module with `pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize`.
    Rust,
    /// C99 with `int32_t ltu_predict(const int32_t *x)`.
    C,
}

/// Writes a report's warnings to stderr and the report to stdout; a closed pipe
/// (`ltu predict ... | head`) is not an error.
fn print<R: std::fmt::Display + serde::Serialize>(
    report: &R,
    warnings: &[String],
    json: bool,
) -> anyhow::Result<()> {
    warn(warnings);
    let text = if json { serde_json::to_string(report)? } else { report.to_string() };
    emit(&format!("{text}\n"))
}

/// [`print`] for a command that wrote a model to `output`: when that was standard output (`-`),
/// the report goes to standard error, so that it cannot corrupt the model.
fn print_beside<R: std::fmt::Display + serde::Serialize>(
    report: &R,
    warnings: &[String],
    json: bool,
    output: &std::path::Path,
) -> anyhow::Result<()> {
    if output.as_os_str() != "-" {
        return print(report, warnings, json);
    }
    warn(warnings);
    let text = if json { serde_json::to_string(report)? } else { report.to_string() };
    eprintln!("{text}");
    Ok(())
}

fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::Error::new(e).context("writing to standard output"))
        }
        _ => Ok(()),
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let show_progress = !cli.quiet && !cli.json && std::io::stderr().is_terminal();
    match cli.command {
        Command::Train { data, output, test, no_estimate, strip, learn } => {
            let estimate = match (test, no_estimate) {
                (Some(t), _) => cli::train::EstimateArg::Test(t),
                (None, true) => cli::train::EstimateArg::None,
                (None, false) => cli::train::EstimateArg::Holdout,
            };
            let bar = show_progress.then(|| {
                let style =
                    indicatif::ProgressStyle::with_template("training {bar:30} {pos}/{len} {elapsed}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
                indicatif::ProgressBar::new(0).with_style(style)
            });
            let progress = |done: u64, total: u64| {
                if let Some(bar) = &bar {
                    bar.set_length(total);
                    bar.set_position(done);
                }
            };
            let report = commands::train(&data, &output, &learn, &progress, &estimate, strip);
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let report = report?;
            print_beside(&report, &report.warnings, cli.json, &output)
        }
        Command::Eval { model, data, data_args } => {
            let report = commands::eval(&model, &data, &data_args)?;
            print(&report, &report.warnings, cli.json)
        }
        Command::Update { model, data, output, epochs, data_args } => {
            let report = commands::update(&model, &data, &output, epochs, &data_args)?;
            print_beside(&report, &report.warnings, cli.json, &output)
        }
        Command::Cv { data, folds, jobs, learn } => {
            let given = jobs;
            let jobs = jobs
                .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |j| j as usize);
            let bar = show_progress.then(|| {
                let style =
                    indicatif::ProgressStyle::with_template("cv folds {bar:30} {pos}/{len} {elapsed}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
                indicatif::ProgressBar::new(u64::from(folds)).with_style(style)
            });
            let progress = |done: u64, total: u64| {
                if let Some(bar) = &bar {
                    bar.set_length(total);
                    bar.set_position(done);
                }
            };
            let report = commands::cv(&data, folds as usize, jobs, &learn, &progress);
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let mut report = report?;
            if given.is_some() && jobs > folds as usize {
                report.warnings.push(format!(
                    "--jobs {jobs}: there are {folds} folds, so at most {folds} train at once"
                ));
            }
            print(&report, &report.warnings, cli.json)
        }
        Command::Predict { model, data, args } => {
            let report = commands::predict(&model, &data, &args)?;
            if let (Some(calibration), false) = (&report.calibration, cli.json) {
                // Standard output stays a CSV.
                eprintln!("{calibration}");
            }
            print(&report, &report.warnings, cli.json)
        }
        Command::Completions { shell } => {
            if cli.json {
                anyhow::bail!("--json does not apply to completions: the output is a shell script");
            }
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "ltu", &mut script);
            emit(&String::from_utf8(script)?)
        }
        Command::Codegen { model, lang, output, window, hop } => {
            let lang = match lang {
                LangArg::Rust => ltu::model::codegen::Lang::Rust,
                LangArg::C => ltu::model::codegen::Lang::C,
            };
            let report = commands::codegen(&model, lang, &output, window, hop)?;
            if output.as_os_str() == "-" {
                // The source went to stdout; the report must not corrupt it.
                warn(&report.warnings);
                let text = if cli.json { serde_json::to_string(&report)? } else { report.to_string() };
                eprintln!("{text}");
                return Ok(());
            }
            print(&report, &report.warnings, cli.json)
        }
        Command::Inspect { model, dot: true } if cli.json => {
            let dot = commands::inspect_dot(&model)?;
            emit(&format!("{}\n", serde_json::json!({ "model": model.display().to_string(), "dot": dot })))
        }
        Command::Inspect { model, dot: true } => emit(&commands::inspect_dot(&model)?),
        Command::Inspect { model, dot: false } => print(&commands::inspect(&model)?, &[], cli.json),
    }
}

fn main() -> ExitCode {
    let parsed = Cli::command().try_get_matches().and_then(|m| {
        let mut cli = Cli::from_arg_matches(&m)?;
        // Which options were given: `check_applicable` refuses those of another learner.
        if let Command::Train { learn, .. } | Command::Cv { learn, .. } = &mut cli.command {
            learn.given = commands::args::given_ids(&m);
        }
        Ok(cli)
    });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let informational = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
            if !informational && std::env::args_os().any(|a| a == "--json") {
                let message = e.render().to_string();
                let first = message.lines().next().unwrap_or_default().trim_start_matches("error: ");
                let _ = emit(&format!("{}\n", serde_json::json!({ "error": first, "usage": message })));
            }
            e.exit()
        }
    };
    let json = cli.json;
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            if json {
                // A script that asked for JSON gets JSON on stdout for failures too.
                let causes: Vec<String> = err.chain().skip(1).map(ToString::to_string).collect();
                let report = serde_json::json!({ "error": err.to_string(), "causes": causes });
                let _ = emit(&format!("{report}\n"));
            }
            ExitCode::FAILURE
        }
    }
}
