//! Reading a model file through the runtime, and data files through a model's schema.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

use ltu::data::encode;
use ltu::data::{self, Dataset, LoadOptions, Schema};
use ltu::model::{InputKind, InputSpec, ModelSpec};

/// Most bytes the CLI reads as a model from a pipe or device (which may never end): 256 MiB. A
/// regular file is read whole.
pub const MAX_STREAMED_MODEL_BYTES: u64 = 256 << 20;

/// Where a header or checksum check failed, and on what bytes (the runtime's error names only
/// the check).
fn header_detail(e: ltu_runtime::Error, bytes: &[u8]) -> String {
    use ltu_runtime::{format, Error};
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02X}")).collect::<Vec<_>>().join(" ");
    match e {
        Error::HeaderTooShort => {
            format!(" ({} bytes; a model file has at least 10: its header and checksum)", bytes.len())
        }
        Error::HeaderBadMagic => {
            format!(
                " (bytes 0..4 are {}, a model starts with {})",
                hex(&bytes[..4.min(bytes.len())]),
                hex(&format::MAGIC)
            )
        }
        Error::HeaderUnsupportedVersion => match bytes.get(4..6) {
            Some(v) => format!(
                " (version {} at byte offset 4; this ltu reads version {})",
                u16::from_le_bytes([v[0], v[1]]),
                format::VERSION
            ),
            None => String::new(),
        },
        Error::ChecksumMismatch if bytes.len() >= 10 => {
            let at = bytes.len() - 4;
            let stored = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            format!(
                " (the CRC-32 at byte offset {at} is {stored:08x}, the {at} bytes before it give {:08x})",
                format::crc32(&bytes[..at])
            )
        }
        _ => String::new(),
    }
}

/// A model file loaded for `eval`, `predict` and `inspect`.
pub struct LoadedModel {
    /// File path.
    pub path: PathBuf,
    /// File bytes.
    pub bytes: Vec<u8>,
}

impl LoadedModel {
    /// Reads a model file and checks it with the runtime.
    ///
    /// # Errors
    /// The file cannot be read, or the runtime rejects it (the message names the check).
    pub fn open(path: &Path) -> Result<LoadedModel> {
        use std::io::Read;
        let cannot = || format!("{}: cannot read model", path.display());
        let mut file = std::fs::File::open(path).with_context(cannot)?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        // The magic bytes first: anything else (a CSV given by mistake, /dev/zero) fails at
        // once instead of being read whole.
        let mut bytes = Vec::new();
        (&mut file).take(4).read_to_end(&mut bytes).with_context(cannot)?;
        if bytes.len() == 4 && bytes[..] != ltu_runtime::format::MAGIC {
            let e = ltu_runtime::Error::HeaderBadMagic;
            bail!("{}: not a valid ltu model: {e}{}", path.display(), header_detail(e, &bytes));
        }
        // A regular file is read whole; a pipe or device up to a limit (it may never end).
        let limit = if regular { u64::MAX } else { MAX_STREAMED_MODEL_BYTES + 1 };
        file.take(limit).read_to_end(&mut bytes).with_context(cannot)?;
        if !regular && bytes.len() as u64 > MAX_STREAMED_MODEL_BYTES {
            bail!(
                "{}: not a valid ltu model: more than {MAX_STREAMED_MODEL_BYTES} bytes from a pipe or device, the \
                 most ltu reads as a model from one",
                path.display()
            );
        }
        if let Err(e) = ltu_runtime::Model::from_bytes(&bytes) {
            bail!("{}: not a valid ltu model: {e}{}", path.display(), header_detail(e, &bytes));
        }
        Ok(LoadedModel { path: path.to_path_buf(), bytes })
    }

    /// The runtime's view (checked in [`LoadedModel::open`]).
    pub fn model(&self) -> ltu_runtime::Model<'_> {
        ltu_runtime::Model::from_bytes(&self.bytes).expect("checked when opened")
    }

    /// The owned description.
    pub fn spec(&self) -> ModelSpec {
        ModelSpec::from_model(&self.model())
    }

    /// The metadata of the host block (`key=value` lines from `ltu train`), by key, in file
    /// order; empty if there is none.
    pub fn metadata(&self) -> Vec<(String, String)> {
        self.model()
            .meta()
            .unwrap_or("")
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| match l.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (l.to_string(), String::new()),
            })
            .collect()
    }

    /// The schema stored in the model's names, used to read data by name.
    ///
    /// # Errors
    /// The model was written with `--no-names`.
    pub fn schema(&self) -> Result<Schema> {
        let Some(schema) = encode::schema(&self.spec()) else {
            bail!("{}: the model has no names (trained with --no-names or --strip), so data cannot be matched to it by name", self.path.display());
        };
        Ok(schema)
    }
}

/// Warnings about what [`data::load_with_schema`] had to do.
pub(crate) fn align_warnings(source: &str, align: &data::AlignReport) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut by_attr: Vec<(&str, Vec<&data::UnseenValue>)> = Vec::new();
    for u in &align.unseen_values {
        match by_attr.iter_mut().find(|(a, _)| *a == u.attribute) {
            Some((_, list)) => list.push(u),
            None => by_attr.push((&u.attribute, vec![u])),
        }
    }
    for (attr, list) in by_attr {
        let cells: usize = list.iter().map(|u| u.count).sum();
        let mut shown: Vec<String> = list
            .iter()
            .take(5)
            .map(|u| format!("\"{}\" ×{} from line {}", u.value, u.count, u.first_line))
            .collect();
        if list.len() > 5 {
            shown.push(format!("and {} more", list.len() - 5));
        }
        warnings.push(format!(
            "{source}: column `{attr}`: {cells} cells hold values the model never saw in training ({}); \
             they are read as unknown values",
            shown.join(", ")
        ));
    }
    for u in &align.unseen_classes {
        warnings.push(format!(
            "{source}: class `{}` ({} rows) is not a class of the model; those rows count as wrong",
            u.name, u.count
        ));
    }
    if !align.missing_words.is_empty() {
        let list: Vec<String> = align.missing_words.iter().map(|(w, n)| format!("\"{w}\" ×{n}")).collect();
        warnings.push(format!("{source}: {} read as missing values in numeric columns", list.join(", ")));
    }
    warnings
}

/// Warnings for cells of numeric columns whose value is beyond what the model's 32-bit input
/// holds at its scale: they are read as the nearest end of that range.
pub(crate) fn clamped_warnings(model: &LoadedModel, data: &Dataset) -> Vec<String> {
    let inputs = model.spec().inputs;
    let mut out = Vec::new();
    for (a, (spec, attr)) in inputs.iter().zip(&data.schema.attributes).enumerate() {
        let InputKind::Numeric { scale_exp, offset } = spec.kind else { continue };
        let beyond = (0..data.n_rows())
            .map(|r| data.row(r)[a])
            .filter(|&v| {
                let raw = encode::to_raw(v, scale_exp, offset);
                v.is_finite() && (raw == i32::MAX || raw == i32::MIN)
            })
            .count();
        if beyond > 0 {
            out.push(format!(
                "{}: column `{}`: {beyond} cell(s) are beyond what the model's 32-bit input holds (x = {}) and are \
                 read as the nearest end of its range",
                data.source,
                attr.name,
                encode::formula("value", scale_exp, offset)
            ));
        }
    }
    out
}

/// Raw inputs and labels of a data file read through a model's schema.
pub(crate) fn read_for_model(
    model: &LoadedModel,
    data_path: &Path,
    options: &LoadOptions,
) -> Result<(Dataset, Vec<Vec<i32>>, data::AlignReport)> {
    if let Some(option) = [("--numeric", &options.numeric), ("--categorical", &options.categorical)]
        .iter()
        .find_map(|(name, list)| (!list.is_empty()).then_some(name))
    {
        bail!(
            "{option} applies to train and cv only: the model fixes each column's type (see `ltu inspect --json`)"
        );
    }
    let schema = model.schema()?;
    let (data, report) = data::load_with_schema(data_path, options, &schema)?;
    let inputs: Vec<InputSpec> = model.spec().inputs;
    let raw = encode::raw_rows(&inputs, &data);
    Ok((data, raw, report))
}
