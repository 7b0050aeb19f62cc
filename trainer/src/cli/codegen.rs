//! `ltu codegen`: a model as Rust or C source.

use std::fmt;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::load::LoadedModel;
use super::output::*;

/// Result of `ltu codegen`.
#[derive(Debug, Serialize)]
pub struct CodegenReport {
    /// Model file.
    pub model: String,
    /// `rust` or `c`.
    pub lang: &'static str,
    /// Where the source went.
    pub output: String,
    /// Bytes of source.
    pub source_bytes: usize,
    /// The generated entry point.
    pub entry_point: &'static str,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

impl fmt::Display for CodegenReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wrote {} ({} source, {} bytes) from {}\nentry point: {}",
            self.output, self.lang, self.source_bytes, self.model, self.entry_point
        )
    }
}

/// `ltu codegen`: the model as Rust or C source that predicts exactly what the runtime predicts
/// (see [`ltu::model::codegen`]).
///
/// # Errors
/// Unreadable or invalid model, or an output path that may not be written (see [`Output`]).
pub fn codegen(model_path: &Path, lang: ltu::model::codegen::Lang, output: &Path) -> Result<CodegenReport> {
    let out = Output::resolve(output, &[model_path])?;
    let loaded = LoadedModel::open(model_path)?;
    let about = model_path
        .file_name()
        .map_or_else(|| model_path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let spec = loaded.spec();
    let source = ltu::model::codegen::source(&spec, &about, lang);
    // The generated code evaluates the model, not its pipeline: say what it expects instead.
    let warnings = spec
        .pipeline
        .iter()
        .map(|p| {
            let names: Vec<String> =
                p.features.iter().map(|f| ltu::data::recordings::feature_name(p, f)).collect();
            format!(
                "the model computes its inputs from raw samples, but the generated code takes the window \
                 statistics themselves, in this order: {}; compute them with ltu_runtime::window \
                 (WindowFeature::compute) or load the model with ltu_runtime and call predict_window",
                names.join(", ")
            )
        })
        .collect();
    out.write(source.as_bytes())?;
    let (lang, entry_point) = match lang {
        ltu::model::codegen::Lang::Rust => {
            ("rust", "pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize")
        }
        ltu::model::codegen::Lang::C => ("c", "int32_t ltu_predict(const int32_t *x)"),
    };
    Ok(CodegenReport {
        model: model_path.display().to_string(),
        lang,
        output: out.describe(),
        source_bytes: source.len(),
        entry_point,
        warnings,
    })
}
