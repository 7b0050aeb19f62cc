//! `ltu._ltu`: the Python package's native module. Training goes through the `ltu` library's one
//! entry (`ltu::learn::pipeline::train`, [`ltu::learn::train`]) with the options parsed by the command line's own
//! definitions (the `ltu` binary's `cli` module, compiled in here from its source), so defaults,
//! ranges, error messages, warnings and the model file's metadata are those of `ltu train`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::{Args as _, FromArgMatches as _};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use ltu::data::arrays::{self, ColumnSpec};
use ltu::data::{encode, AttrKind, Dataset};
use ltu::learn::{self, Algo};
use ltu::model::{Host, ModelSpec};

/// The command line's argument definitions, conversions to the library's options and reports.
#[allow(dead_code, unused_imports, unreachable_pub, clippy::all)]
#[path = "../../trainer/src/cli/mod.rs"]
mod cli;

use cli::args::{DataArgs, LearnArgs, RecordingArgs};

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `anyhow` errors with their causes, as the command line prints them.
fn chain_error(e: &anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

/// `ltu train`'s options (what `LearnArgs` defines), without the data-reading and recording ones
/// (a Python caller hands values, not files).
fn learner_command() -> clap::Command {
    LearnArgs::augment_args(clap::Command::new("train").no_binary_name(true))
}

/// Ids of the options that read files rather than learn.
fn file_option_ids() -> Vec<String> {
    let mut cmd = DataArgs::augment_args(clap::Command::new("data"));
    cmd = RecordingArgs::augment_args(cmd);
    cmd.get_arguments().map(|a| a.get_id().to_string()).collect()
}

/// The learners and their options as JSON: for each option its flag, help, whether it takes a
/// value, its possible values and default, and the learners it applies to (`null`: every one).
/// The Python classes are generated from this.
#[pyfunction]
fn describe() -> String {
    let skip = file_option_ids();
    let cmd = learner_command();
    let options: Vec<serde_json::Value> = cmd
        .get_arguments()
        .filter(|a| !skip.contains(&a.get_id().to_string()) && a.get_long().is_some())
        .map(|a| {
            let id = a.get_id().as_str();
            serde_json::json!({
                "flag": format!("--{}", a.get_long().unwrap_or(id)),
                "help": a.get_help().map(ToString::to_string).unwrap_or_default(),
                "takes_value": a.get_action().takes_values(),
                "choices": a.get_possible_values().iter().map(|v| v.get_name().to_string()).collect::<Vec<_>>(),
                "default": a.get_default_values().first().map(|v| v.to_string_lossy().into_owned()),
                "value_name": a.get_value_names().and_then(|v| v.first()).map(ToString::to_string),
                "algos": cli::args::applies_to(id).map(|(_, algos)| algos.iter().map(|a| a.name()).collect::<Vec<_>>()),
            })
        })
        .collect();
    let algos: Vec<serde_json::Value> =
        Algo::ALL.iter().map(|a| serde_json::json!({ "name": a.name(), "about": a.about() })).collect();
    serde_json::json!({ "algos": algos, "options": options, "version": env!("CARGO_PKG_VERSION") })
        .to_string()
}

/// The options `args` (`ltu train`'s, without the data file and output) as the command line
/// parses them.
fn parse_learn_args(args: &[String]) -> PyResult<LearnArgs> {
    let matches = learner_command().try_get_matches_from(args).map_err(|e| value_error(e.render()))?;
    let mut learn = LearnArgs::from_arg_matches(&matches).map_err(|e| value_error(e.render()))?;
    learn.given = cli::args::given_ids(&matches);
    if let Some(id) = learn.given.iter().find(|id| file_option_ids().contains(id)) {
        return Err(value_error(format!("the option `{id}` reads files; it does not apply to arrays")));
    }
    learn.check_applicable().map_err(|e| chain_error(&e))?;
    Ok(learn)
}

/// Row-major `f64` values from the bytes of a C-contiguous float64 array.
fn values(x: &[u8]) -> PyResult<Vec<f64>> {
    if x.len() % 8 != 0 {
        return Err(value_error("the values are not float64"));
    }
    Ok(x.chunks_exact(8).map(|b| f64::from_ne_bytes(b.try_into().expect("8 bytes"))).collect())
}

static TEMP: AtomicU64 = AtomicU64::new(0);

/// A directory of its own under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> PyResult<TempDir> {
        let n = TEMP.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ltu-python-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| PyRuntimeError::new_err(format!("{}: {e}", dir.display())))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What `fit` keeps besides the model: how it was trained, for the file's metadata and reports.
struct Fitted {
    learn: LearnArgs,
    args: Vec<String>,
    rows: usize,
    trained: learn::Trained,
    training_rows: Vec<Vec<i32>>,
    warnings: Vec<String>,
}

/// A model: trained by [`fit`] or read by [`load`]. Predictions go through the runtime.
#[pyclass(module = "ltu._ltu", frozen)]
struct Model {
    /// The model file's bytes (for a fitted model, without metadata: it depends on the data file
    /// named when writing).
    bytes: Vec<u8>,
    fitted: Option<Fitted>,
}

impl Model {
    fn runtime(&self) -> PyResult<ltu_runtime::Model<'_>> {
        ltu_runtime::Model::from_bytes(&self.bytes)
            .map_err(|e| value_error(format!("not a valid ltu model: {e}")))
    }

    fn spec(&self) -> PyResult<ModelSpec> {
        Ok(ModelSpec::from_model(&self.runtime()?))
    }

    fn file(&self, data_file: Option<PathBuf>) -> PyResult<Vec<u8>> {
        let Some(f) = &self.fitted else { return Ok(self.bytes.clone()) };
        // What `ltu train` writes: names unless --no-names, the metadata of its command line.
        let data = data_file.unwrap_or_else(|| PathBuf::from("(arrays)"));
        let mut args = vec!["ltu".to_string(), "train".to_string()];
        args.extend(f.args.iter().cloned());
        let meta = cli::train::metadata_from(args, &f.learn, &data, f.rows);
        f.trained.spec.to_bytes_with(&Host { strip: false, meta: Some(meta) }).map_err(value_error)
    }

    /// The model's inputs of each row of `x` (`n_rows` rows of row-major values, one per input: a
    /// number, a categorical value's index, `NaN` missing), encoded with the model's own input
    /// scales as `ltu predict` does.
    fn raw_rows(&self, x: Vec<f64>, n_rows: usize) -> PyResult<Vec<Vec<i32>>> {
        let spec = self.spec()?;
        let n = spec.inputs.len();
        if x.len() != n_rows * n {
            return Err(value_error(format!("{} values for {n_rows} rows of {n} inputs", x.len())));
        }
        let columns = (0..n)
            .map(|i| ColumnSpec {
                name: format!("x{i}"),
                categories: match spec.inputs[i].kind {
                    ltu::model::InputKind::Categorical { n_values } => {
                        Some((0..n_values).map(|v| v.to_string()).collect())
                    }
                    ltu::model::InputKind::Numeric { .. } => None,
                },
            })
            .collect();
        let data = arrays::from_arrays("X", columns, x, vec![0; n_rows], vec![String::new()])
            .map_err(value_error)?;
        Ok(encode::raw_rows(&spec.inputs, &data))
    }

    fn written(&self, dir: &TempDir, data_file: Option<PathBuf>) -> PyResult<PathBuf> {
        let path = dir.0.join("model.ltu");
        std::fs::write(&path, self.file(data_file)?)
            .map_err(|e| PyRuntimeError::new_err(format!("{}: {e}", path.display())))?;
        Ok(path)
    }
}

#[pymethods]
impl Model {
    /// The model file `ltu train` writes for the same data, options and seed; `data_file` names
    /// the file the data came from (its name and fingerprint go into the metadata, as `ltu train`
    /// records them).
    #[pyo3(signature = (data_file=None))]
    fn to_bytes<'py>(&self, py: Python<'py>, data_file: Option<PathBuf>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.file(data_file)?))
    }

    /// The schema as JSON: attributes (name, categorical values or `null`) and classes.
    fn schema(&self) -> PyResult<String> {
        let schema = encode::schema(&self.spec()?)
            .ok_or_else(|| value_error("the model has no names (trained with --no-names or --strip)"))?;
        let attributes: Vec<serde_json::Value> = schema
            .attributes
            .iter()
            .map(|a| {
                let values = match &a.kind {
                    AttrKind::Categorical { values } => Some(values.clone()),
                    AttrKind::Numeric { .. } => None,
                };
                serde_json::json!({ "name": a.name, "categories": values })
            })
            .collect();
        Ok(serde_json::json!({ "attributes": attributes, "classes": schema.classes }).to_string())
    }

    /// Number of inputs.
    fn n_inputs(&self) -> PyResult<usize> {
        Ok(self.runtime()?.n_inputs())
    }

    /// The runtime's class index of each row of `x` (bytes of a C-contiguous float64 array of
    /// `n_rows` rows, one column per input: a number, a categorical value's index, `NaN` missing),
    /// encoded with the model's own input scales as `ltu predict` does.
    fn predict(&self, py: Python<'_>, x: &[u8], n_rows: usize) -> PyResult<Vec<usize>> {
        let x = values(x)?;
        py.allow_threads(|| {
            let model = self.runtime()?;
            self.raw_rows(x, n_rows)?.iter().map(|row| model.predict(row).map_err(value_error)).collect()
        })
    }

    /// The scores `ltu predict --scores` prints for each row of `x` (as [`Model::predict`] reads
    /// it), row-major, `n_classes` per row: the runtime's per-class scores of the unit that
    /// decided, in units of its weights (fractional bits removed); `-inf` for a class that unit
    /// does not score (the command line's empty cell).
    fn scores(&self, py: Python<'_>, x: &[u8], n_rows: usize) -> PyResult<Vec<f64>> {
        let x = values(x)?;
        py.allow_threads(|| {
            let model = self.runtime()?;
            let frac = 2f64.powi(model.weight_kind().frac_bits() as i32);
            let mut buffer = vec![0i64; model.n_classes()];
            let mut out = Vec::with_capacity(n_rows * buffer.len());
            for row in self.raw_rows(x, n_rows)? {
                model.predict_scores(&row, &mut buffer).map_err(value_error)?;
                out.extend(
                    learn::calibrate::scores_of(&buffer, frac)
                        .into_iter()
                        .map(|s| s.unwrap_or(f64::NEG_INFINITY)),
                );
            }
            Ok(out)
        })
    }

    /// The `ltu inspect --json` report as JSON.
    #[pyo3(signature = (data_file=None))]
    fn inspect(&self, data_file: Option<PathBuf>) -> PyResult<String> {
        let dir = TempDir::new()?;
        let path = self.written(&dir, data_file)?;
        let mut report = cli::inspect(&path).map_err(|e| chain_error(&e))?;
        report.model = "(in memory)".into();
        serde_json::to_string(&report).map_err(value_error)
    }

    /// `ltu codegen --lang LANG -o OUT` of this model: the report as JSON. `out` `None`: into a
    /// temporary directory, and the JSON gains `files`, each generated file's name and text.
    #[pyo3(signature = (lang, out=None))]
    fn codegen(&self, lang: &str, out: Option<PathBuf>) -> PyResult<String> {
        let lang = match lang {
            "c" => ltu::model::codegen::Lang::C,
            "rust" => ltu::model::codegen::Lang::Rust,
            _ => return Err(value_error(format!("lang {lang:?}: expected \"c\" or \"rust\""))),
        };
        let dir = TempDir::new()?;
        let path = self.written(&dir, None)?;
        let target = out.clone().unwrap_or_else(|| {
            dir.0.join(if lang == ltu::model::codegen::Lang::C { "model.c" } else { "model.rs" })
        });
        let report = cli::codegen(&path, lang, &target, None, None).map_err(|e| chain_error(&e))?;
        let mut json = serde_json::to_value(&report).map_err(value_error)?;
        if out.is_none() {
            let mut files = serde_json::Map::new();
            for p in std::iter::once(target.clone()).chain(report.header.as_ref().map(PathBuf::from)) {
                let text = std::fs::read_to_string(&p).map_err(value_error)?;
                let name = p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                files.insert(name, text.into());
            }
            json["files"] = files.into();
            json["output"] = serde_json::Value::Null;
            json["header"] = serde_json::Value::Null;
        }
        json["model"] = "(in memory)".into();
        Ok(json.to_string())
    }

    /// What the device pays, as JSON: the bytes it stores (the file without its host block, as
    /// budgets count them), the worst-case multiply-accumulates and the structure's figures; for
    /// a fitted model also the cost of predicting its training rows.
    fn device_cost(&self) -> PyResult<String> {
        let spec = self.spec()?;
        let device_bytes = spec.to_bytes_with(&Host { strip: true, meta: None }).map_err(value_error)?.len();
        let mut json = serde_json::json!({
            "device_bytes": device_bytes,
            "max_macs": spec.stats().max_macs,
            "stats": spec.stats(),
        });
        if let Some(f) = &self.fitted {
            json["training_rows"] =
                serde_json::to_value(f.trained.spec.row_cost(&f.training_rows)).map_err(value_error)?;
        }
        Ok(json.to_string())
    }

    /// What training reported, as JSON: training accuracy, warnings, the learner's report and
    /// how a budget was met (`null` for a loaded model).
    fn report(&self) -> PyResult<String> {
        let Some(f) = &self.fitted else { return Ok("null".into()) };
        Ok(serde_json::json!({
            "algo": f.learn.algo,
            "train_accuracy": f.trained.train_accuracy,
            "device_bytes": f.trained.device_bytes,
            "warnings": f.warnings,
            "learner": f.trained.report,
            "budget": f.trained.budget,
            "command": f.args,
        })
        .to_string())
    }
}

/// Trains as `ltu train` with the options `args` (e.g. `["--algo", "ptree", "--seed", "0"]`) on
/// rows `x` (bytes of a C-contiguous float64 array: numbers, categorical value indices, `NaN`
/// missing) of the columns `columns` (name, categorical values or `None`), classes `y` indexing
/// `classes`.
#[pyfunction]
fn fit(
    py: Python<'_>,
    args: Vec<String>,
    columns: Vec<(String, Option<Vec<String>>)>,
    x: &[u8],
    y: Vec<usize>,
    classes: Vec<String>,
) -> PyResult<Model> {
    let learn = parse_learn_args(&args)?;
    let x = values(x)?;
    let columns = columns.into_iter().map(|(name, categories)| ColumnSpec { name, categories }).collect();
    let data = arrays::from_arrays("X", columns, x, y, classes).map_err(value_error)?;
    let (trained, training_rows, warnings) =
        py.allow_threads(|| train(&learn, &data)).map_err(|e| chain_error(&e))?;
    let bytes = trained.bytes.clone();
    let rows = data.n_rows();
    Ok(Model { bytes, fitted: Some(Fitted { learn, args, rows, trained, training_rows, warnings }) })
}

/// `ltu train`'s training of `data` (its precision warnings, which the CLI gives as it reads a
/// file, then [`cli::train::train_dataset`]).
fn train(learn: &LearnArgs, data: &Dataset) -> anyhow::Result<(learn::Trained, Vec<Vec<i32>>, Vec<String>)> {
    let mut warnings = encode::precision_warnings(data);
    let (trained, rows, model_warnings) =
        cli::train::train_dataset(learn, data, None, !learn.no_names, &|_, _| {}, &data.source)?;
    warnings.extend(model_warnings);
    Ok((trained, rows, warnings))
}

/// Reads a model file as `ltu predict` does (the runtime checks it).
#[pyfunction]
fn load(path: PathBuf) -> PyResult<Model> {
    let loaded = cli::load::LoadedModel::open(&path).map_err(|e| chain_error(&e))?;
    Ok(Model { bytes: loaded.bytes, fitted: None })
}

/// A model from the bytes of a model file.
#[pyfunction]
fn from_bytes(bytes: Vec<u8>) -> PyResult<Model> {
    ltu_runtime::Model::from_bytes(&bytes).map_err(|e| value_error(format!("not a valid ltu model: {e}")))?;
    Ok(Model { bytes, fitted: None })
}

#[pymodule]
fn _ltu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(from_bytes, m)?)?;
    m.add_class::<Model>()?;
    Ok(())
}
