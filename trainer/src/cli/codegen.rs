//! `ltu codegen`: a model as Rust or C source.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
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
    /// Where the C header went: beside the source, named after it with `.h`; `null` for Rust and
    /// for one stream (standard output, a device or a FIFO), where the header's text leads the
    /// source.
    pub header: Option<String>,
    /// Bytes of source (with the header's, when they are one stream).
    pub source_bytes: usize,
    /// Bytes of the header written beside the source (0 without one).
    pub header_bytes: usize,
    /// The generated entry point.
    pub entry_point: String,
    /// Decisions the user may not expect (also printed on standard error).
    pub warnings: Vec<String>,
}

impl fmt::Display for CodegenReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wrote {} ({} source, {} bytes)", self.output, self.lang, self.source_bytes)?;
        if let Some(h) = &self.header {
            write!(f, " and its header {h} ({} bytes)", self.header_bytes)?;
        }
        write!(f, " from {}\nentry point: {}", self.model, self.entry_point)
    }
}

/// `ltu codegen`: the model as Rust or C source that predicts exactly what the runtime predicts
/// (see [`ltu::model::codegen`]); for a model with a pipeline and a fixed window (its own, or
/// `window`), the pipeline too, classifying every `hop` frames (default: the model's hop, or the
/// window). C written to a file comes as two: the source and, beside it, its header (the output's
/// name with `.h` for its extension), which it includes; both replaced atomically. To standard
/// output, a device or a FIFO, C is one stream, the header's text first.
///
/// # Errors
/// Unreadable or invalid model, an output path that may not be written (see [`Output`]), a header
/// path that is the output itself or exists as anything but a regular file, or
/// `window`/`hop` that do not apply: given for a model without a pipeline, a `window` other than
/// the model's own, a `hop` without a window, or values out of range.
pub fn codegen(
    model_path: &Path,
    lang: ltu::model::codegen::Lang,
    output: &Path,
    window: Option<u16>,
    hop: Option<u16>,
) -> Result<CodegenReport> {
    let out = Output::resolve(output, &[model_path])?;
    let loaded = LoadedModel::open(model_path)?;
    let about = model_path
        .file_name()
        .map_or_else(|| model_path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let spec = loaded.spec();
    let fixed = match &spec.pipeline {
        None if window.is_some() || hop.is_some() => {
            bail!("--window and --hop apply to a model trained on recordings, and this one has no pipeline")
        }
        None => None,
        Some(p) => pipeline_window(p, window, hop)?,
    };
    let about = ltu::model::codegen::About {
        name: about,
        host_block: loaded.model().host().is_some(),
        metadata: loaded.metadata(),
    };
    // C to a file gets its header beside it; everything else is one stream.
    let header_path = match (&out, lang) {
        (Output::File(_), ltu::model::codegen::Lang::C) => Some(header_beside(output, model_path)?),
        _ => None,
    };
    let (source, header) = match &header_path {
        Some((path, target)) => {
            let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let files = ltu::model::codegen::c_files(&spec, &about, fixed, &name)
                .map_err(|e| anyhow!("{}: {e}; choose another -o", path.display()))?;
            (files.source, Some((target.clone(), files.header)))
        }
        None => (ltu::model::codegen::source_about(&spec, &about, lang, fixed), None),
    };
    // Without a fixed window the generated code evaluates the model, not its pipeline: say what
    // it expects instead.
    let warnings = match (&spec.pipeline, fixed) {
        (Some(p), None) => {
            let names: Vec<String> =
                p.features.iter().map(|f| ltu::data::recordings::feature_name(p, f)).collect();
            vec![format!(
                "the model computes its inputs from raw samples of whole recordings, so the generated code \
                 takes the window statistics themselves, in this order: {}; give --window N to compile the \
                 pipeline in for windows of N samples, or load the model with ltu_runtime and call \
                 predict_window",
                names.join(", ")
            )]
        }
        _ => Vec::new(),
    };
    // The header first, so the source never includes one that is not there.
    if let Some((target, text)) = &header {
        write_atomic(target, text.as_bytes())?;
    }
    out.write(source.as_bytes())?;
    let rust = ltu::model::codegen::Lang::Rust;
    let mut entry_point = match lang {
        ltu::model::codegen::Lang::Rust => {
            "pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize".to_string()
        }
        ltu::model::codegen::Lang::C => "int32_t ltu_predict(const int32_t *x)".to_string(),
    };
    if fixed.is_some() {
        entry_point.push_str(if lang == rust {
            "; pub fn classify_window(samples: &[[i16; WINDOW]; N_CHANNELS]) -> usize; \
             Stream::push(&mut self, frame: &[i16; N_CHANNELS]) -> Option<usize>"
        } else {
            "; int ltu_classify_window(const int16_t samples[LTU_N_CHANNELS][LTU_WINDOW]); \
             int ltu_push(struct ltu_stream *s, const int16_t frame[LTU_N_CHANNELS])"
        });
    }
    Ok(CodegenReport {
        model: model_path.display().to_string(),
        lang: if lang == rust { "rust" } else { "c" },
        output: out.describe(),
        header: header_path.as_ref().map(|(p, _)| p.display().to_string()),
        source_bytes: source.len(),
        header_bytes: header.as_ref().map_or(0, |(_, h)| h.len()),
        entry_point,
        warnings,
    })
}

/// The header of the C source `output`: beside it, its name with `.h` for its extension, as
/// given (for the `#include` line) and resolved through symlinks (where it is written).
///
/// # Errors
/// The header's path is `output` itself (`-o x.h`), one of the inputs, or exists as anything but
/// a regular file.
fn header_beside(output: &Path, model_path: &Path) -> Result<(PathBuf, PathBuf)> {
    let path = output.with_extension("h");
    if path == output {
        bail!(
            "{}: the header would have this name; give -o a name that does not end in .h",
            output.display()
        );
    }
    match Output::resolve(&path, &[model_path])? {
        Output::File(target) => {
            if resolve_symlinks(output).is_ok_and(|o| o == target) {
                bail!("{}: is the output itself; give -o another name", path.display());
            }
            Ok((path, target))
        }
        _ => bail!("{}: is not a regular file; refusing to replace it with the header", path.display()),
    }
}

/// The window the generated pipeline reads: the pipeline's own (a `window` must agree with it),
/// else `window`; `None` for whole recordings without `window`.
fn pipeline_window(
    p: &ltu::model::Pipeline,
    window: Option<u16>,
    hop: Option<u16>,
) -> Result<Option<ltu::model::codegen::Window>> {
    let len = match (p.window, window) {
        (0, None) if hop.is_some() => {
            bail!("--hop needs --window: the model's pipeline reads whole recordings")
        }
        (0, None) => return Ok(None),
        (0, Some(w)) => w,
        (own, Some(w)) if w != own => {
            bail!("the model was trained on windows of {own} samples; --window {w} would change its inputs")
        }
        (own, _) => own,
    };
    let hop = hop.unwrap_or(if p.window == 0 { len } else { p.hop });
    ltu::model::codegen::Window::new(usize::from(len), usize::from(hop)).map(Some).map_err(|e| anyhow!("{e}"))
}
