//! Sensor recordings: the raw samples of one or more channels, read from a loaded [`Dataset`] in
//! one of two layouts.
//!
//! - **Wide**: one recording per row. Every attribute is a sample column named `t<i>` (one
//!   channel, called `x`) or `<channel>_t<i>` (`ch0_t000`, `accel_x_t12`): the channel is the
//!   name before the last `_t`, `i` the sample's time index. Every channel has the same indices
//!   `0..n`, in any column order. Recordings are all `n` samples long.
//! - **Long**: one row per frame, in time order. One attribute names the recording
//!   ([`Layout::Long`]); every other attribute is a channel. A recording's frames are
//!   consecutive rows, and all of them carry the recording's class. Recordings may differ in
//!   length.
//!
//! Every sample must be present: a missing cell is an error at its line and column, as is a
//! column that is not numeric, a recording whose frames are not consecutive, or one whose frames
//! disagree on the class.

use std::collections::HashSet;

use ltu_runtime::window::{Sample, Stat, WindowFeature, MAX_SEGMENTS, MAX_WINDOW_LEN};

use super::{AttrKind, Attribute, Dataset, Schema};
use crate::model::{Channel, Pipeline};

/// How samples are laid out in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// One recording per row, columns `t<i>` or `<channel>_t<i>`.
    Wide,
    /// One frame per row; the named column identifies the recording.
    Long {
        /// The recording column.
        recording: String,
    },
}

/// One recording: its samples per channel and its class.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// The recording's name: the value of the recording column (long layout), or its row number
    /// among the data rows, from 1 (wide layout).
    pub id: String,
    /// Class index into [`Recordings::classes`].
    pub class: usize,
    /// `samples[c][t]`: channel `c` at time `t`; every channel has the same length, at least 1.
    pub samples: Vec<Vec<f64>>,
    /// Data row of the recording's first sample (0-based, as in [`Dataset::row`]).
    pub first_row: usize,
}

impl Recording {
    /// Samples per channel.
    pub fn len(&self) -> usize {
        self.samples.first().map_or(0, Vec::len)
    }

    /// Whether the recording has no sample (never true of a recording read by [`from_dataset`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The recordings of a file, with its channel and class names.
#[derive(Debug, Clone, PartialEq)]
pub struct Recordings {
    /// Where they came from (the data file's name), for messages.
    pub source: String,
    /// Channel names, in channel order.
    pub channels: Vec<String>,
    /// Class names.
    pub classes: Vec<String>,
    /// The recordings, in file order.
    pub recordings: Vec<Recording>,
}

impl Recordings {
    /// Class of each recording.
    pub fn labels(&self) -> Vec<usize> {
        self.recordings.iter().map(|r| r.class).collect()
    }

    /// Shortest and longest recording, in samples (`(0, 0)` without recordings).
    pub fn length_range(&self) -> (usize, usize) {
        let lens = self.recordings.iter().map(Recording::len);
        (lens.clone().min().unwrap_or(0), lens.max().unwrap_or(0))
    }
}

/// Why recordings could not be read from a dataset. Positions are `source:row` where `row`
/// counts data rows from 1, and name the column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RecordingsError(pub String);

/// Reads the recordings of `data` in `layout`.
///
/// # Errors
/// [`RecordingsError`] naming the file, the row and the column, for: a column that is not a
/// sample column (wide), a missing recording column (long), a non-numeric channel, a missing
/// sample, a channel without some time index (wide), a recording whose frames are not
/// consecutive or disagree on the class (long), no recordings at all.
pub fn from_dataset(data: &Dataset, layout: &Layout) -> Result<Recordings, RecordingsError> {
    let recordings = match layout {
        Layout::Wide => wide(data)?,
        Layout::Long { recording } => long(data, recording)?,
    };
    if recordings.recordings.is_empty() {
        return Err(RecordingsError(format!("{}: no recordings (no data rows)", data.source)));
    }
    Ok(recordings)
}

/// `name` as a wide-layout sample column: its channel and time index.
fn sample_column(name: &str) -> Option<(String, usize)> {
    let parse = |digits: &str| {
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    };
    if let Some(t) = name.strip_prefix('t').and_then(parse) {
        return Some(("x".to_string(), t));
    }
    let at = name.rfind("_t")?;
    let t = parse(&name[at + 2..])?;
    (at > 0).then(|| (name[..at].to_string(), t))
}

/// Every attribute numeric, or an error naming the first that is not.
fn check_numeric(
    data: &Dataset,
    columns: impl Iterator<Item = usize>,
    what: &str,
) -> Result<(), RecordingsError> {
    for a in columns {
        let attr = &data.schema.attributes[a];
        if matches!(attr.kind, AttrKind::Categorical { .. }) {
            return Err(RecordingsError(format!(
                "{}: column `{}` is not numeric ({what} must be numbers); --ignore it if it is not a {what}",
                data.source, attr.name
            )));
        }
    }
    Ok(())
}

/// The sample at `row`, attribute `a`, or an error naming both.
fn sample(data: &Dataset, row: usize, a: usize) -> Result<f64, RecordingsError> {
    let v = data.row(row)[a];
    if v.is_nan() {
        return Err(RecordingsError(format!(
            "{}: data row {}: column `{}`: missing sample; every sample of a recording must be present",
            data.source,
            row + 1,
            data.schema.attributes[a].name
        )));
    }
    Ok(v)
}

fn wide(data: &Dataset) -> Result<Recordings, RecordingsError> {
    // (channel, time index, attribute) of every column.
    let mut columns = Vec::with_capacity(data.n_attrs());
    for (a, attr) in data.schema.attributes.iter().enumerate() {
        let Some((channel, t)) = sample_column(&attr.name) else {
            return Err(RecordingsError(format!(
                "{}: column `{}` is not a sample column (`t<i>` or `<channel>_t<i>`); --ignore it, or give \
                 --recording COLUMN for the long layout (one row per frame)",
                data.source, attr.name
            )));
        };
        columns.push((channel, t, a));
    }
    check_numeric(data, 0..data.n_attrs(), "samples")?;
    // Per channel (in order of first appearance), its (time index, attribute) pairs.
    let mut channels: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
    for (channel, t, a) in columns {
        match channels.iter_mut().find(|(name, _)| *name == channel) {
            Some((_, times)) => times.push((t, a)),
            None => channels.push((channel, vec![(t, a)])),
        }
    }
    // Each channel's attributes in time order: indices 0..n without gap or repeat, one length.
    let n = channels.iter().map(|(_, times)| times.len()).max().unwrap_or(0);
    let mut layout: Vec<Vec<usize>> = Vec::with_capacity(channels.len());
    for (channel, times) in &mut channels {
        times.sort_unstable();
        for pair in times.windows(2) {
            if pair[0].0 == pair[1].0 {
                return Err(RecordingsError(format!(
                    "{}: columns `{}` and `{}` are both sample {} of channel `{channel}`",
                    data.source,
                    data.schema.attributes[pair[0].1].name,
                    data.schema.attributes[pair[1].1].name,
                    pair[0].0
                )));
            }
        }
        if let Some(t) = (0..n).find(|&t| times.get(t).is_none_or(|&(time, _)| time != t)) {
            return Err(RecordingsError(format!(
                "{}: channel `{channel}` has no column for sample {t} (the longest channel has {n} samples); \
                 every channel needs samples 0 to {}",
                data.source,
                n - 1
            )));
        }
        layout.push(times.iter().map(|&(_, a)| a).collect());
    }
    let channels: Vec<String> = channels.into_iter().map(|(name, _)| name).collect();
    let mut recordings = Vec::with_capacity(data.n_rows());
    for row in 0..data.n_rows() {
        let samples = layout
            .iter()
            .map(|times| times.iter().map(|&a| sample(data, row, a)).collect())
            .collect::<Result<Vec<Vec<f64>>, _>>()?;
        recordings.push(Recording { id: (row + 1).to_string(), class: data.y[row], samples, first_row: row });
    }
    Ok(Recordings { source: data.source.clone(), channels, classes: data.schema.classes.clone(), recordings })
}

fn long(data: &Dataset, recording: &str) -> Result<Recordings, RecordingsError> {
    let Some(id_attr) = data.schema.attribute_index(recording) else {
        return Err(RecordingsError(format!(
            "{}: no column `{recording}` (--recording names the column that identifies each frame's recording)",
            data.source
        )));
    };
    let channel_attrs: Vec<usize> = (0..data.n_attrs()).filter(|&a| a != id_attr).collect();
    if channel_attrs.is_empty() {
        return Err(RecordingsError(format!("{}: no channel columns besides `{recording}`", data.source)));
    }
    check_numeric(data, channel_attrs.iter().copied(), "channels")?;
    let id_of = |row: usize| -> Result<String, RecordingsError> {
        let v = data.row(row)[id_attr];
        if v.is_nan() {
            return Err(RecordingsError(format!(
                "{}: data row {}: column `{recording}`: missing recording name",
                data.source,
                row + 1
            )));
        }
        Ok(match &data.schema.attributes[id_attr].kind {
            AttrKind::Categorical { values } => values[v as usize].clone(),
            AttrKind::Numeric { .. } => format!("{v}"),
        })
    };
    let mut recordings: Vec<Recording> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for row in 0..data.n_rows() {
        let id = id_of(row)?;
        let continues = recordings.last().is_some_and(|r| r.id == id);
        if !continues {
            if !seen.insert(id.clone()) {
                return Err(RecordingsError(format!(
                    "{}: data row {}: recording `{id}` continues after other recordings; the frames of a \
                     recording must be consecutive rows",
                    data.source,
                    row + 1
                )));
            }
            recordings.push(Recording {
                id,
                class: data.y[row],
                samples: vec![Vec::new(); channel_attrs.len()],
                first_row: row,
            });
        }
        let last = recordings.len() - 1;
        let current = &mut recordings[last];
        if data.y[row] != current.class {
            return Err(RecordingsError(format!(
                "{}: data row {}: recording `{}` changes class from `{}` to `{}`; every frame of a recording \
                 carries its class",
                data.source,
                row + 1,
                current.id,
                data.schema.classes[current.class],
                data.schema.classes[data.y[row]]
            )));
        }
        for (c, &a) in channel_attrs.iter().enumerate() {
            current.samples[c].push(sample(data, row, a)?);
        }
    }
    let channels = channel_attrs.iter().map(|&a| data.schema.attributes[a].name.clone()).collect();
    Ok(Recordings { source: data.source.clone(), channels, classes: data.schema.classes.clone(), recordings })
}

/// A family of window features: one statistic over each of `segments` equal parts of the
/// window, for every channel. Written `stat` (the whole window) or `stat@k` (`mean@4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    /// The statistic.
    pub stat: Stat,
    /// Equal parts of the window, 1 to [`MAX_SEGMENTS`].
    pub segments: u8,
}

impl Family {
    /// The default families: every statistic over the whole window, and the mean, spread,
    /// energy, minimum and maximum over each quarter and each eighth of it (the shape of the
    /// signal). Chosen on the archive splits of the four bundled time-series sets
    /// (docs/SENSORS.md): with the eighths, the best learner on each set reaches a random forest
    /// on the same statistics.
    pub fn defaults() -> Vec<Family> {
        let whole = Stat::ALL.iter().map(|&stat| Family { stat, segments: 1 });
        let shape = [4, 8].into_iter().flat_map(|segments| {
            [Stat::Mean, Stat::Spread, Stat::Energy, Stat::Min, Stat::Max]
                .into_iter()
                .map(move |stat| Family { stat, segments })
        });
        whole.chain(shape).collect()
    }

    /// Parses a comma-separated list of `stat` or `stat@k`.
    ///
    /// # Errors
    /// An unknown statistic (the message lists the known ones), or `k` outside 1 to
    /// [`MAX_SEGMENTS`].
    pub fn parse_list(list: &str) -> Result<Vec<Family>, String> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|item| {
                let (name, segments) = match item.split_once('@') {
                    Some((name, k)) => {
                        (name, k.parse::<u8>().ok().filter(|k| (1..=MAX_SEGMENTS).contains(k)))
                    }
                    None => (item, Some(1)),
                };
                let stat = Stat::from_name(name).ok_or_else(|| {
                    let known: Vec<&str> = Stat::ALL.iter().map(|s| s.name()).collect();
                    format!("unknown window statistic `{name}`; expected one of: {}", known.join(", "))
                })?;
                let segments = segments.ok_or_else(|| {
                    format!("`{item}`: the number of segments after `@` must be 1 to {MAX_SEGMENTS}")
                })?;
                Ok(Family { stat, segments })
            })
            .collect()
    }
}

/// How recordings become windows and features: what `--window`, `--hop` and
/// `--window-features` ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineOptions {
    /// Samples per window; 0: the whole recording is one window.
    pub window: u16,
    /// Samples between window starts (0: as many as the window, so windows do not overlap).
    pub hop: u16,
    /// Feature families, each for every channel.
    pub families: Vec<Family>,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions { window: 0, hop: 0, families: Family::defaults() }
    }
}

/// The pipeline for `recordings`: each channel's scale chosen from its largest magnitude (the
/// finest decimal step whose samples fit an `i16`), and one feature per family, channel and
/// segment, channel by channel.
///
/// # Errors
/// A window longer than [`MAX_WINDOW_LEN`], no feature family, more than 255 channels, or no
/// recording as long as one window.
pub fn fit_pipeline(recordings: &Recordings, options: &PipelineOptions) -> Result<Pipeline, RecordingsError> {
    let fail = |m: String| Err(RecordingsError(format!("{}: {m}", recordings.source)));
    if usize::from(options.window) > MAX_WINDOW_LEN {
        return fail(format!("--window {} is longer than {MAX_WINDOW_LEN} samples", options.window));
    }
    if options.families.is_empty() {
        return fail("no window features asked for".into());
    }
    if recordings.channels.len() > 255 {
        return fail(format!("{} channels; a pipeline takes at most 255", recordings.channels.len()));
    }
    let (_, longest) = recordings.length_range();
    if options.window > 0 && longest < usize::from(options.window) {
        return fail(format!(
            "no recording has {} samples (the longest has {longest}): no window fits; give a shorter --window",
            options.window
        ));
    }
    if options.window == 0 && longest > MAX_WINDOW_LEN {
        return fail(format!(
            "a recording has {longest} samples, more than the {MAX_WINDOW_LEN} of one window; give --window"
        ));
    }
    let channels = recordings
        .channels
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let max_abs = recordings
                .recordings
                .iter()
                .flat_map(|r| r.samples[c].iter())
                .fold(0f64, |m, v| m.max(v.abs()));
            Channel { name: name.clone(), scale_exp: Pipeline::scale_for(max_abs) }
        })
        .collect();
    let mut features = Vec::new();
    for c in 0..recordings.channels.len() {
        for family in &options.families {
            for segment in 0..family.segments {
                features.push(WindowFeature {
                    channel: c as u8,
                    stat: family.stat,
                    segments: family.segments,
                    segment,
                });
            }
        }
    }
    let hop = if options.hop == 0 { options.window } else { options.hop };
    Ok(Pipeline { channels, window: options.window, hop, features, recording: None })
}

/// The name of a pipeline's input: the channel's name, the statistic and the segment
/// (`ax_mean`, `ax_max_s1of4`).
pub fn feature_name(pipeline: &Pipeline, f: &WindowFeature) -> String {
    let channel = pipeline.channels.get(usize::from(f.channel)).map_or("?", |c| c.name.as_str());
    let generic = f.to_string();
    // `ch{c}_` is replaced by the channel's name.
    let rest = generic.split_once('_').map_or("", |(_, rest)| rest);
    format!("{channel}_{rest}")
}

/// The layout a pipeline's recordings are read in: long when it names a recording column.
pub fn layout_of(pipeline: &Pipeline) -> Layout {
    match &pipeline.recording {
        Some(recording) => Layout::Long { recording: recording.clone() },
        None => Layout::Wide,
    }
}

/// Whether the column `name` holds samples of one of the pipeline's channels in its layout (a
/// wide `<channel>_t<i>` or `t<i>` column, or a long layout's channel column): so a file whose
/// last column is one has no class column.
pub fn holds_samples(name: &str, pipeline: &Pipeline) -> bool {
    let is_channel = |c: &str| pipeline.channels.iter().any(|ch| ch.name == c);
    match pipeline.recording {
        Some(_) => is_channel(name),
        None => sample_column(name).is_some_and(|(channel, _)| is_channel(&channel)),
    }
}

/// The channel of `recordings` that each pipeline channel reads, matched by name; extra channels
/// in the file are not read.
///
/// # Errors
/// [`RecordingsError`] if the pipeline has no channel names (a model written with `--strip` or
/// `--no-names`) or the file lacks one of its channels.
pub fn channel_columns(recordings: &Recordings, pipeline: &Pipeline) -> Result<Vec<usize>, RecordingsError> {
    if pipeline.channels.iter().any(|c| c.name.is_empty()) {
        return Err(RecordingsError(
            "the model has no channel names (trained with --no-names or --strip), so recordings cannot be matched to it"
                .into(),
        ));
    }
    pipeline
        .channels
        .iter()
        .map(|channel| {
            recordings.channels.iter().position(|n| *n == channel.name).ok_or_else(|| {
                RecordingsError(format!(
                    "{}: no channel `{}` (the model's channels: {})",
                    recordings.source,
                    channel.name,
                    pipeline.channels.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
                ))
            })
        })
        .collect()
}

/// A recording's channels as samples at the pipeline's scales, in the pipeline's channel order;
/// `columns[c]` is the recording channel that pipeline channel `c` reads.
pub fn samples(recording: &Recording, pipeline: &Pipeline, columns: &[usize]) -> Vec<Vec<Sample>> {
    pipeline
        .channels
        .iter()
        .zip(columns)
        .map(|(ch, &c)| {
            recording.samples[c].iter().map(|&v| Pipeline::to_sample(v, ch.scale_exp).unwrap_or(0)).collect()
        })
        .collect()
}

/// The windows of every recording as feature rows: a dataset with one numeric attribute per
/// pipeline input, one row per window, the class of its recording; and the recording of each
/// row. `columns[c]` is the channel of `recordings` that pipeline channel `c` reads.
///
/// # Errors
/// A statistic the runtime refuses (never for windows the pipeline cut).
pub fn windows_dataset(
    recordings: &Recordings,
    pipeline: &Pipeline,
    columns: &[usize],
) -> Result<(Dataset, Vec<usize>), RecordingsError> {
    let attributes = pipeline
        .features
        .iter()
        .map(|f| Attribute { name: feature_name(pipeline, f), kind: AttrKind::Numeric { decimals: 0 } })
        .collect();
    let schema = Schema { attributes, classes: recordings.classes.clone() };
    let (mut x, mut y, mut of_recording) = (Vec::new(), Vec::new(), Vec::new());
    for (r, recording) in recordings.recordings.iter().enumerate() {
        let samples = samples(recording, pipeline, columns);
        for window in pipeline.windows(recording.len()) {
            for f in &pipeline.features {
                let v = f.compute(&samples[usize::from(f.channel)][window.clone()]).map_err(|e| {
                    RecordingsError(format!("{}: recording `{}`: {f}: {e}", recordings.source, recording.id))
                })?;
                x.push(f64::from(v));
            }
            y.push(recording.class);
            of_recording.push(r);
        }
    }
    Ok((Dataset { schema, x, y, source: recordings.source.clone() }, of_recording))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Attribute, Schema};

    fn dataset(names: &[&str], categorical: &[(&str, &[&str])], rows: &[(&[f64], usize)]) -> Dataset {
        let attributes = names
            .iter()
            .map(|&name| Attribute {
                name: name.to_string(),
                kind: match categorical.iter().find(|(n, _)| *n == name) {
                    Some((_, values)) => {
                        AttrKind::Categorical { values: values.iter().map(ToString::to_string).collect() }
                    }
                    None => AttrKind::Numeric { decimals: 0 },
                },
            })
            .collect();
        let schema = Schema { attributes, classes: vec!["a".into(), "b".into()] };
        Dataset {
            schema,
            x: rows.iter().flat_map(|(x, _)| x.iter().copied()).collect(),
            y: rows.iter().map(|(_, y)| *y).collect(),
            source: "rec.csv".into(),
        }
    }

    #[test]
    fn sample_columns_of_a_pipeline() {
        let channel = |name: &str| crate::model::Channel { name: name.into(), scale_exp: 0 };
        let mut p = Pipeline {
            channels: vec![channel("x")],
            window: 0,
            hop: 0,
            features: Vec::new(),
            recording: None,
        };
        assert!(holds_samples("t149", &p) && !holds_samples("class", &p) && !holds_samples("y_t3", &p));
        p.channels = vec![channel("accel"), channel("gyro")];
        assert!(holds_samples("gyro_t0", &p) && !holds_samples("t0", &p));
        p.recording = Some("recording".into());
        assert!(holds_samples("gyro", &p) && !holds_samples("gyro_t0", &p) && !holds_samples("label", &p));
    }

    #[test]
    fn sample_column_names() {
        assert_eq!(sample_column("t000"), Some(("x".into(), 0)));
        assert_eq!(sample_column("t12"), Some(("x".into(), 12)));
        assert_eq!(sample_column("ch3_t007"), Some(("ch3".into(), 7)));
        assert_eq!(sample_column("accel_x_t5"), Some(("accel_x".into(), 5)));
        for bad in ["t", "tx", "ch0", "ch0_t", "_t3", "ch0_t1a", "time"] {
            assert_eq!(sample_column(bad), None, "{bad}");
        }
    }

    #[test]
    fn wide_layout_groups_channels_whatever_the_column_order() {
        let data = dataset(
            &["b_t1", "a_t0", "b_t0", "a_t1"],
            &[],
            &[(&[4.0, 1.0, 3.0, 2.0], 0), (&[8.0, 5.0, 7.0, 6.0], 1)],
        );
        let r = from_dataset(&data, &Layout::Wide).unwrap();
        assert_eq!(r.channels, ["b", "a"]);
        assert_eq!(r.recordings[0].samples, vec![vec![3.0, 4.0], vec![1.0, 2.0]]);
        assert_eq!(r.recordings[1].samples, vec![vec![7.0, 8.0], vec![5.0, 6.0]]);
        assert_eq!((r.recordings[1].id.as_str(), r.recordings[1].class), ("2", 1));
        assert_eq!(r.length_range(), (2, 2));
        assert_eq!(r.labels(), [0, 1]);
    }

    #[test]
    fn wide_layout_errors_name_the_column() {
        let e = from_dataset(&dataset(&["t0", "id"], &[], &[(&[1.0, 2.0], 0)]), &Layout::Wide).unwrap_err();
        assert!(e.0.starts_with("rec.csv: column `id` is not a sample column"), "{e}");
        let e = from_dataset(&dataset(&["t0", "t2"], &[], &[(&[1.0, 2.0], 0)]), &Layout::Wide).unwrap_err();
        assert!(e.0.contains("channel `x` has no column for sample 1"), "{e}");
        let e = from_dataset(
            &dataset(&["t0", "t1"], &[], &[(&[1.0, 2.0], 0), (&[1.0, f64::NAN], 0)]),
            &Layout::Wide,
        )
        .unwrap_err();
        assert_eq!(
            e.0,
            "rec.csv: data row 2: column `t1`: missing sample; every sample of a recording must be present"
        );
        let e = from_dataset(&dataset(&["t0", "t1"], &[("t1", &["on"])], &[(&[1.0, 0.0], 0)]), &Layout::Wide)
            .unwrap_err();
        assert!(e.0.contains("column `t1` is not numeric"), "{e}");
        // A huge time index is a gap, not an allocation.
        let e = from_dataset(&dataset(&["t0", "t4000000000"], &[], &[(&[1.0, 2.0], 0)]), &Layout::Wide)
            .unwrap_err();
        assert!(e.0.contains("channel `x` has no column for sample 1"), "{e}");
        let e = from_dataset(&dataset(&["t0", "t00"], &[], &[(&[1.0, 2.0], 0)]), &Layout::Wide).unwrap_err();
        assert!(e.0.contains("columns `t0` and `t00` are both sample 0"), "{e}");
        let e = from_dataset(&dataset(&["t0"], &[], &[]), &Layout::Wide).unwrap_err();
        assert!(e.0.contains("no recordings"), "{e}");
    }

    #[test]
    fn long_layout_cuts_recordings_at_the_id_column() {
        let long = Layout::Long { recording: "rec".into() };
        let data = dataset(
            &["rec", "c0", "c1"],
            &[],
            &[(&[7.0, 1.0, -1.0], 0), (&[7.0, 2.0, -2.0], 0), (&[3.0, 5.0, 0.5], 1)],
        );
        let r = from_dataset(&data, &long).unwrap();
        assert_eq!(r.channels, ["c0", "c1"]);
        assert_eq!(r.recordings.len(), 2);
        assert_eq!(r.recordings[0].id, "7");
        assert_eq!(r.recordings[0].samples, vec![vec![1.0, 2.0], vec![-1.0, -2.0]]);
        assert_eq!((r.recordings[1].len(), r.recordings[1].class, r.recordings[1].first_row), (1, 1, 2));
        assert_eq!(r.length_range(), (1, 2));
        // Names from a categorical id column.
        let data = dataset(&["rec", "c0"], &[("rec", &["x", "y"])], &[(&[1.0, 1.0], 0), (&[0.0, 2.0], 0)]);
        let ids: Vec<String> =
            from_dataset(&data, &long).unwrap().recordings.into_iter().map(|r| r.id).collect();
        assert_eq!(ids, ["y", "x"]);
    }

    #[test]
    fn long_layout_errors_name_the_row() {
        let long = Layout::Long { recording: "rec".into() };
        let e = from_dataset(&dataset(&["id", "c0"], &[], &[(&[1.0, 1.0], 0)]), &long).unwrap_err();
        assert!(e.0.contains("no column `rec`"), "{e}");
        let rows: &[(&[f64], usize)] = &[(&[1.0, 1.0], 0), (&[2.0, 1.0], 0), (&[1.0, 1.0], 0)];
        let e = from_dataset(&dataset(&["rec", "c0"], &[], rows), &long).unwrap_err();
        assert!(
            e.0.starts_with("rec.csv: data row 3: recording `1` continues after other recordings"),
            "{e}"
        );
        let rows: &[(&[f64], usize)] = &[(&[1.0, 1.0], 0), (&[1.0, 1.0], 1)];
        let e = from_dataset(&dataset(&["rec", "c0"], &[], rows), &long).unwrap_err();
        assert!(e.0.starts_with("rec.csv: data row 2: recording `1` changes class from `a` to `b`"), "{e}");
        let rows: &[(&[f64], usize)] = &[(&[f64::NAN, 1.0], 0)];
        let e = from_dataset(&dataset(&["rec", "c0"], &[], rows), &long).unwrap_err();
        assert!(e.0.contains("missing recording name"), "{e}");
        let e = from_dataset(&dataset(&["rec"], &[], &[(&[1.0], 0)]), &long).unwrap_err();
        assert!(e.0.contains("no channel columns"), "{e}");
    }
}
