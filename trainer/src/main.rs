//! `ltu`: argument parsing and error printing; everything else lives in the library.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ltu::commands::{self, DataArgs, LearnArgs, PredictArgs};

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
        after_help = "Example:\n  ltu train data/house-votes-84.csv --algo ptree -o votes.ltu --weights i8 --seed 7"
    )]
    Train {
        /// Training data (CSV with a header row, or ARFF).
        data: PathBuf,
        /// Where to write the model: a file (replaced atomically; a symlink is followed), a
        /// device or FIFO (written through), or `-` for standard output (the report then goes to
        /// standard error). Never the training data file.
        #[arg(short, long, value_name = "PATH")]
        output: PathBuf,
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
        data_args: DataArgs,
    },
    /// Stratified k-fold cross-validation.
    #[command(after_help = "Example:\n  ltu cv data/iris.csv --algo ptree --folds 10 --seed 1")]
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
    /// Print one predicted class name per data row (with --id or --scores: a CSV with a header).
    #[command(
        after_help = "Examples:\n  ltu predict iris.ltu data/iris.csv\n  cat new.csv | ltu predict iris.ltu - --id sample --scores"
    )]
    Predict {
        /// Model file.
        model: PathBuf,
        /// Data file (`-`: standard input); the class column may be absent or empty.
        data: PathBuf,
        #[command(flatten)]
        args: PredictArgs,
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

fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let show_progress = !cli.quiet && !cli.json && std::io::stderr().is_terminal();
    match cli.command {
        Command::Train { data, output, learn } => {
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
            let report = commands::train(&data, &output, &learn, &progress);
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let report = report?;
            if output.as_os_str() == "-" {
                // The model went to stdout; the report must not corrupt it.
                warn(&report.warnings);
                let text = if cli.json { serde_json::to_string(&report)? } else { report.to_string() };
                eprintln!("{text}");
                return Ok(());
            }
            print(&report, &report.warnings, cli.json)
        }
        Command::Eval { model, data, data_args } => {
            let report = commands::eval(&model, &data, &data_args)?;
            print(&report, &report.warnings, cli.json)
        }
        Command::Cv { data, folds, jobs, learn } => {
            let jobs = jobs
                .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |j| j as usize);
            let report = commands::cv(&data, folds as usize, jobs, &learn)?;
            print(&report, &report.warnings, cli.json)
        }
        Command::Predict { model, data, args } => {
            let report = commands::predict(&model, &data, &args)?;
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
    let cli = match Cli::try_parse() {
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
