//! `--recordings`: raw sensor recordings in, windows of features out; and, for a model with a
//! pipeline, raw recordings read back through it.

use std::path::Path;

use anyhow::{bail, Result};

use ltu::data::recordings::{self, Family, Layout, PipelineOptions, Recordings};
use ltu::data::{self, split, Dataset, Labels, LoadOptions};
use ltu::model::Pipeline;

use super::args::RecordingArgs;

/// Recordings cut into windows: which window each feature row is (the rows themselves are a
/// [`Dataset`] returned beside it).
pub(crate) struct Windows {
    /// The pipeline that computed them.
    pub pipeline: Pipeline,
    /// The recordings.
    pub recordings: Recordings,
    /// Recording of each row.
    pub of_recording: Vec<usize>,
    /// Start sample of each row's window.
    pub starts: Vec<usize>,
    /// Per pipeline channel, the recordings' channel it reads.
    pub columns: Vec<usize>,
}

impl Windows {
    /// Cuts `recordings` by `pipeline`: the feature rows, one per window, and the windows.
    fn new(recordings: Recordings, pipeline: Pipeline, columns: Vec<usize>) -> Result<(Dataset, Windows)> {
        let (data, of_recording) = recordings::windows_dataset(&recordings, &pipeline, &columns)?;
        let mut starts = Vec::with_capacity(of_recording.len());
        for r in &recordings.recordings {
            starts.extend(pipeline.windows(r.len()).into_iter().map(|w| w.start));
        }
        Ok((data, Windows { pipeline, recordings, of_recording, starts, columns }))
    }

    /// Samples in the longest window: what a device must hold, and the length the extraction's
    /// cost is counted for.
    pub fn longest(&self) -> usize {
        let len = |r: &recordings::Recording| self.pipeline.windows(r.len()).iter().map(|w| w.len()).max();
        self.recordings.recordings.iter().filter_map(len).max().unwrap_or(0)
    }

    /// Class of each recording.
    pub fn recording_labels(&self) -> Vec<usize> {
        self.recordings.labels()
    }

    /// The rows of the windows of `recordings` (indices into the recordings).
    pub fn rows_of(&self, recordings: &[usize]) -> Vec<usize> {
        let mut chosen = vec![false; self.recordings.recordings.len()];
        for &r in recordings {
            chosen[r] = true;
        }
        (0..self.of_recording.len()).filter(|&row| chosen[self.of_recording[row]]).collect()
    }

    /// Stratified folds of whole recordings, as rows: no recording has windows on both sides.
    pub fn folds(&self, k: usize, seed: u64) -> Result<Vec<Vec<usize>>> {
        let folds =
            split::stratified_kfold(&self.recording_labels(), self.recordings.classes.len(), k, seed)?;
        Ok(folds.iter().map(|f| self.rows_of(f)).collect())
    }

    /// A stratified split of whole recordings into training and test rows.
    pub fn split(
        &self,
        test_fraction: f64,
        seed: u64,
    ) -> Result<(Vec<usize>, Vec<usize>), split::SplitError> {
        let (train, test) = split::train_test_split_stratified(
            &self.recording_labels(),
            self.recordings.classes.len(),
            test_fraction,
            seed,
        )?;
        Ok((self.rows_of(&train), self.rows_of(&test)))
    }
}

/// Reads training recordings from `path` and fits a pipeline to them; with warnings.
///
/// # Errors
/// The file cannot be read as recordings in the layout asked for, or the options do not fit it.
pub(crate) fn for_training(
    path: &Path,
    options: LoadOptions,
    args: &RecordingArgs,
) -> Result<(Dataset, Windows, Vec<String>)> {
    let (data, mut warnings) = data::load_with_warnings(path, &options)?;
    let layout = args.layout();
    let recordings = recordings::from_dataset(&data, &layout)?;
    let families = match &args.window_features {
        Some(list) => Family::parse_list(list).map_err(|e| anyhow::anyhow!("--window-features: {e}"))?,
        None => Family::defaults(),
    };
    let options = PipelineOptions { window: args.window.unwrap_or(0), hop: args.hop.unwrap_or(0), families };
    let mut pipeline = recordings::fit_pipeline(&recordings, &options)?;
    pipeline.recording = match layout {
        Layout::Long { recording } => Some(recording),
        Layout::Wide => None,
    };
    warnings.extend(short_recordings_warning(&recordings, &pipeline));
    let columns = (0..recordings.channels.len()).collect();
    let (data, windows) = Windows::new(recordings, pipeline, columns)?;
    if data.n_rows() == 0 {
        bail!("{}: no window fits any recording", path.display());
    }
    Ok((data, windows, warnings))
}

/// Reads recordings from `path` through a model's pipeline: the channels by name, the layout the
/// model was trained on; with warnings. With `labelled`, the file must have a class column
/// (`eval`), which may hold a single class; otherwise (`predict`) a file whose last column holds
/// samples has none, and every window gets class 0 of one unnamed class.
///
/// # Errors
/// The file cannot be read as recordings, lacks a channel of the pipeline or (`labelled`) a
/// class column, or the model has no channel names.
pub(crate) fn for_model(
    path: &Path,
    options: LoadOptions,
    pipeline: &Pipeline,
    labelled: bool,
) -> Result<(Dataset, Windows, Vec<String>)> {
    let unlabelled = LoadOptions { labels: Labels::Absent, ..options.clone() };
    let last_holds_samples = options.target.is_none() && {
        let (all, _) = data::load_with_warnings(path, &unlabelled)?;
        all.schema.attributes.last().is_some_and(|a| recordings::holds_samples(&a.name, pipeline))
    };
    let options = match (last_holds_samples, labelled) {
        (true, true) => bail!(
            "{}: no class column to score against (the last column holds samples); eval needs the \
             recordings' classes, predict does not",
            path.display()
        ),
        (true, false) => unlabelled,
        (false, _) => LoadOptions { labels: Labels::Evaluation, ..options },
    };
    let (data, mut warnings) = data::load_with_warnings(path, &options)?;
    let recordings = recordings::from_dataset(&data, &recordings::layout_of(pipeline))?;
    let columns = recordings::channel_columns(&recordings, pipeline)?;
    warnings.extend(short_recordings_warning(&recordings, pipeline));
    let (data, windows) = Windows::new(recordings, pipeline.clone(), columns)?;
    Ok((data, windows, warnings))
}

/// A warning naming how many recordings are shorter than one window (they give no row).
fn short_recordings_warning(recordings: &Recordings, pipeline: &Pipeline) -> Option<String> {
    let short: Vec<&str> = recordings
        .recordings
        .iter()
        .filter(|r| pipeline.windows(r.len()).is_empty())
        .map(|r| r.id.as_str())
        .collect();
    (!short.is_empty()).then(|| {
        format!(
            "{}: {} recording(s) shorter than the {}-sample window give no window: {}{}",
            recordings.source,
            short.len(),
            pipeline.window,
            short.iter().take(5).copied().collect::<Vec<_>>().join(", "),
            if short.len() > 5 { ", ..." } else { "" }
        )
    })
}

/// Predictions of a model with a pipeline on every window of `windows`, through the runtime's
/// [`predict_window`](ltu_runtime::Model::predict_window): raw samples in, as on the device.
///
/// # Errors
/// The runtime refuses a window (it never should: the pipeline cut it).
pub(crate) fn predict_windows(
    model: &ltu_runtime::Model<'_>,
    windows: &Windows,
    n_rows: usize,
) -> Result<Vec<usize>> {
    let mut predictions = Vec::with_capacity(n_rows);
    let mut row = 0;
    for recording in &windows.recordings.recordings {
        // The recording's samples once; each of its windows is a range of them.
        let samples = recordings::samples(recording, &windows.pipeline, &windows.columns);
        for range in windows.pipeline.windows(recording.len()) {
            let slices: Vec<&[i16]> = samples.iter().map(|c| &c[range.clone()]).collect();
            predictions
                .push(model.predict_window(&slices).map_err(|e| anyhow::anyhow!("window {row}: {e}"))?);
            row += 1;
        }
    }
    anyhow::ensure!(row == n_rows, "{row} windows cut, {n_rows} rows expected");
    Ok(predictions)
}
