//! The firmware's generated inputs (`firmware-example/model/`): the model file, the TEST
//! recordings at the model's sample scales, the host's predictions on them and the model inputs
//! the pipeline computes from them, as Rust source.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{anyhow, ensure, Context, Result};
use ltu::data::recordings;
use ltu_runtime::window::{compute_into, WindowFeature};
use ltu_runtime::Model;

/// The recordings the firmware classifies: the archive's TEST split.
pub const TEST_CSV: &str = "data/basicmotions_test.csv";
/// Sensor channels the firmware samples (`CHANNELS` in `firmware-example/src/main.rs`).
pub const CHANNELS: usize = 6;
/// Samples per window (`WINDOW` there).
pub const WINDOW: usize = 100;

/// One window: the samples of each channel, oldest first.
pub type Window = Vec<Vec<i16>>;

/// The firmware's generated inputs, as committed under `firmware-example/model/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    /// `model.ltu`: the model file.
    pub model: Vec<u8>,
    /// `recordings.bin`: the TEST windows, frame-major little-endian `i16`.
    pub recordings: Vec<u8>,
    /// `expected.bin`: the host's predicted class index for each TEST window.
    pub expected: Vec<u8>,
    /// `rows.rs`: the model inputs of each TEST window as Rust source, for the bench example
    /// (`cargo run --release --example bench` measures the committed model on them).
    pub rows: Vec<u8>,
}

/// The file of each part, in the order of [`Inputs::parts`].
pub const FILES: [&str; 4] = ["model.ltu", "recordings.bin", "expected.bin", "rows.rs"];

impl Inputs {
    /// The TEST windows, the host's predictions and the model's inputs for a model file.
    pub fn for_model(root: &Path, model: Vec<u8>) -> Result<Inputs> {
        let loaded = load_model(&model)?;
        let windows = test_windows(root, &loaded)?;
        let expected = host_predictions(&loaded, &windows)?;
        let rows = windows.iter().map(|w| model_inputs(&loaded, w)).collect::<Result<Vec<_>>>()?;
        let recordings = windows.iter().flat_map(frames_le).collect();
        Ok(Inputs { model, recordings, expected, rows: rows_rs(&rows).into_bytes() })
    }

    fn parts(&self) -> [&[u8]; 4] {
        [&self.model, &self.recordings, &self.expected, &self.rows]
    }

    /// Writes the four files into `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, bytes) in FILES.iter().zip(self.parts()) {
            let path = dir.join(name);
            fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }

    /// Reads the four files from `dir`.
    pub fn read(dir: &Path) -> Result<Inputs> {
        let read = |name: &str| {
            let path = dir.join(name);
            fs::read(&path).with_context(|| format!("reading {}", path.display()))
        };
        Ok(Inputs {
            model: read(FILES[0])?,
            recordings: read(FILES[1])?,
            expected: read(FILES[2])?,
            rows: read(FILES[3])?,
        })
    }

    /// Names of the files whose bytes differ from `other`'s.
    pub fn differences(&self, other: &Inputs) -> Vec<&'static str> {
        FILES
            .iter()
            .zip(self.parts().into_iter().zip(other.parts()))
            .filter(|(_, (a, b))| a != b)
            .map(|(name, _)| *name)
            .collect()
    }
}

/// Loads a model file and checks it fits the firmware: a pipeline of [`CHANNELS`] channels whose
/// windows are [`WINDOW`] samples (or whole recordings, which are that long).
pub fn load_model(bytes: &[u8]) -> Result<Model<'_>> {
    let model = Model::from_bytes(bytes).map_err(|e| anyhow!("the runtime rejects the model: {e}"))?;
    let pipeline =
        model.pipeline().context("the model has no sensor pipeline (train it with --recordings)")?;
    ensure!(
        pipeline.n_channels() == CHANNELS,
        "the model's pipeline reads {} channels, the firmware samples {CHANNELS}",
        pipeline.n_channels()
    );
    ensure!(
        matches!(pipeline.window(), 0 | WINDOW),
        "the model's windows are {} samples, the firmware's {WINDOW}",
        pipeline.window()
    );
    ensure!(model.n_classes() <= 256, "{} classes do not fit expected.bin's bytes", model.n_classes());
    Ok(model)
}

/// The windows of the TEST recordings as the model's pipeline cuts them, at its sample scales
/// (the trainer library reads them exactly as `ltu eval` does).
pub fn test_windows(root: &Path, model: &Model<'_>) -> Result<Vec<Window>> {
    Ok(windows_of(root, model, TEST_CSV)?.into_iter().map(|(w, _)| w).collect())
}

/// The windows of the recordings in `csv` (relative to `root`) as the model's pipeline cuts
/// them, at its sample scales, each with its recording's class name.
pub fn windows_of(root: &Path, model: &Model<'_>, csv: &str) -> Result<Vec<(Window, String)>> {
    let spec = ltu::model::ModelSpec::from_model(model);
    let pipeline = spec.pipeline.context("the model has no sensor pipeline")?;
    let path = root.join(csv);
    let data = ltu::data::load(&path, &ltu::data::LoadOptions::default())?;
    let recs = recordings::from_dataset(&data, &recordings::layout_of(&pipeline))?;
    let columns = recordings::channel_columns(&recs, &pipeline)?;
    let mut windows = Vec::new();
    for recording in &recs.recordings {
        let samples = recordings::samples(recording, &pipeline, &columns);
        for range in pipeline.windows(recording.len()) {
            ensure!(
                range.len() == WINDOW,
                "{csv}: recording {} gives a window of {} samples, the firmware's are {WINDOW}",
                recording.id,
                range.len()
            );
            let class = recs.classes.get(recording.class).cloned().unwrap_or_default();
            windows.push((samples.iter().map(|c| c[range.clone()].to_vec()).collect(), class));
        }
    }
    Ok(windows)
}

/// The samples as a sensor delivers them: frame by frame (one sample of every channel),
/// little-endian `i16`.
pub fn frames_le(window: &Window) -> Vec<u8> {
    (0..WINDOW).flat_map(|t| window.iter().flat_map(move |c| c[t].to_le_bytes())).collect()
}

/// The model's inputs of one window: every statistic its pipeline lists, by the runtime.
pub fn model_inputs(model: &Model<'_>, window: &Window) -> Result<Vec<i32>> {
    let pipeline = model.pipeline().context("the model has no sensor pipeline")?;
    let features: Vec<WindowFeature> = (0..model.n_inputs()).filter_map(|i| pipeline.feature(i)).collect();
    let channels: Vec<&[i16]> = window.iter().map(Vec::as_slice).collect();
    let mut out = vec![0; features.len()];
    compute_into(&features, &channels, &mut out).map_err(|e| anyhow!("window statistics: {e}"))?;
    Ok(out)
}

/// The runtime's prediction for each window through the model's pipeline, as on the chip.
pub fn host_predictions(model: &Model<'_>, windows: &[Window]) -> Result<Vec<u8>> {
    windows
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let channels: Vec<&[i16]> = w.iter().map(Vec::as_slice).collect();
            let class =
                model.predict_window(&channels).map_err(|e| anyhow!("predict on test window {i}: {e}"))?;
            u8::try_from(class).context("class index above 255")
        })
        .collect()
}

/// Rust source of the bench firmware's rows: `Raw` is `i16` when every value fits, else `i32`.
pub fn rows_rs(rows: &[Vec<i32>]) -> String {
    let n_inputs = rows.first().map_or(0, Vec::len);
    let narrow = rows.iter().flatten().all(|&v| i16::try_from(v).is_ok());
    let mut s = String::from(
        "// Generated by `cargo xtask`: the exact integers the host handed `Model::predict`, one row per\n\
         // prediction (see firmware-example/examples/bench.rs).\n",
    );
    let _ = writeln!(s, "pub type Raw = {};", if narrow { "i16" } else { "i32" });
    let _ = writeln!(s, "pub const N_INPUTS: usize = {n_inputs};");
    let _ = writeln!(s, "pub const N_ROWS: usize = {};", rows.len());
    s.push_str("pub static ROWS: [[Raw; N_INPUTS]; N_ROWS] = [\n");
    for row in rows {
        let cells: Vec<String> = row.iter().map(i32::to_string).collect();
        let _ = writeln!(s, "    [{}],", cells.join(", "));
    }
    s.push_str("];\n");
    s
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::firmware;

    /// The repository root, as `main` finds it.
    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is inside the repository").to_path_buf()
    }

    /// The committed recordings and host predictions follow from the committed model, the data
    /// and today's runtime (the model itself is checked by `cargo xtask test`, which retrains).
    #[test]
    fn committed_firmware_inputs_follow_from_model_and_data() {
        let root = root();
        let dir = firmware::model_dir(&root);
        let committed = Inputs::read(&dir).unwrap();
        let fresh = Inputs::for_model(&root, committed.model.clone()).unwrap();
        assert_eq!(
            fresh.differences(&committed),
            Vec::<&str>::new(),
            "run `cargo xtask demo` and commit {}",
            dir.display()
        );
        assert_eq!(committed.expected.len(), 40, "the 40 TEST recordings of {TEST_CSV}");
        assert_eq!(committed.recordings.len(), 40 * WINDOW * CHANNELS * 2);
    }

    #[test]
    fn differences_name_the_files() {
        let a = Inputs { model: vec![1], recordings: vec![2], expected: vec![3], rows: vec![4] };
        let mut b = a.clone();
        assert!(a.differences(&b).is_empty());
        b.expected[0] = 4;
        assert_eq!(a.differences(&b), ["expected.bin"]);
    }

    #[test]
    fn rows_rs_narrows_when_every_value_fits() {
        assert!(rows_rs(&[vec![1, -2], vec![3, 32767]]).contains("pub type Raw = i16;"));
        let wide = rows_rs(&[vec![1, 40000]]);
        assert!(wide.contains("pub type Raw = i32;"));
        assert!(wide.contains("pub const N_INPUTS: usize = 2;"));
        assert!(wide.contains("[1, 40000],"));
    }
}
