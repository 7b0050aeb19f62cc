//! The sensor pipeline in generated code: for a model trained on recordings, the window features
//! it reads computed from raw `i16` samples, exactly as `ltu_runtime::window` computes them, in
//! two forms.
//!
//! - `classify_window` (C: `ltu_classify_window`) takes one window of `WINDOW` samples per
//!   channel, computes the features the model reads and calls `predict`.
//! - `Stream` (C: `struct ltu_stream`, `ltu_stream_init`, `ltu_push`) takes one frame at a time,
//!   keeps the last `WINDOW` samples per channel in a ring buffer and classifies every `HOP`
//!   frames once the window is full, as `SensorWindows::push_frame` says when a window is ready.
//!
//! Only the inputs some path of the model reads are computed ([`inputs_read`]). Features over
//! the same samples of a channel (one *segment*: a channel and constant bounds `[start, end)`)
//! share one loop over its contiguous samples that gathers just the sums and extremes their
//! statistics need ([`Needs`]): a mean needs `Σx`, a spread `Σx` and `Σx²`, a peak-to-peak the
//! min and the max, and so on (`crossings` takes a second loop, as it compares with the mean).
//! The stream keeps those sums as running sums instead, updated in O(1) per frame as one sample
//! enters and one leaves each segment (exact integer updates, so the sums always equal a fresh
//! loop's); the order statistics (`min`, `max`, `peak_to_peak`, `crossings`) are computed over
//! the ring buffer, as at most two contiguous runs of it, when a window is ready.
//!
//! The arithmetic is the runtime's, term for term: `i32` sums of samples, `u64` sums of squares,
//! `u32` sums of absolute differences, an `i64` slope moment and `i64` for the spread's
//! `n·Σx² − (Σx)²` (the bounds of the "No overflow" section of `ltu_runtime::window`); floor
//! division written out in C, whose `/` truncates; an integer square root over `u32` (a
//! variance of `i16` samples is below `2^30`).

use std::fmt::Write as _;

use ltu_runtime::window::{Stat, WindowFeature, MAX_WINDOW_LEN, SLOPE_SHIFT};

use super::{Gen, Lang};
use crate::model::{Feature, ModelSpec, Node, Pipeline, Structure};

/// The fixed window the generated pipeline reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Samples per window, `1..=MAX_WINDOW_LEN`.
    pub len: usize,
    /// Frames from one window the stream classifies to the next, `1..=len`.
    pub hop: usize,
}

impl Window {
    /// A window of `len` samples classified every `hop` frames.
    ///
    /// # Errors
    /// A message unless `1 <= len <= MAX_WINDOW_LEN` and `1 <= hop <= len`.
    pub fn new(len: usize, hop: usize) -> Result<Window, String> {
        if len == 0 || len > MAX_WINDOW_LEN {
            return Err(format!("a window must hold 1 to {MAX_WINDOW_LEN} samples, not {len}"));
        }
        if hop == 0 || hop > len {
            return Err(format!("the hop must be 1 to the window's {len} samples, not {hop}"));
        }
        Ok(Window { len, hop })
    }

    /// The pipeline's own window and hop; `None` when its window is the whole recording (0),
    /// which fixes no length.
    pub fn of_pipeline(pipeline: &Pipeline) -> Option<Window> {
        let len = usize::from(pipeline.window);
        Window::new(len, usize::from(pipeline.hop.max(1)).min(len.max(1))).ok()
    }
}

/// Which inputs some evaluation path of `spec` reads: the inputs of every feature a unit weighs
/// (a non-zero weight in some row) and of every tree test. The generated `predict` reads no other.
pub fn inputs_read(spec: &ModelSpec) -> Vec<bool> {
    let mut read = vec![false; spec.inputs.len()];
    let mut mark = |attr: usize| {
        if let Some(r) = read.get_mut(attr) {
            *r = true;
        }
    };
    let mut units = Vec::new();
    match &spec.structure {
        Structure::Linear(u) => units.push(*u),
        Structure::List { entries, .. } => units.extend(entries.iter().map(|&(u, _)| u)),
        Structure::Tree(nodes) => {
            for node in nodes {
                match node {
                    Node::Class(_) => {}
                    Node::Unit(u) | Node::UnitSplit { unit: u, .. } => units.push(*u),
                    Node::Categorical { attr, .. } | Node::Threshold { attr, .. } => mark(*attr),
                }
            }
        }
    }
    for u in units {
        let unit = &spec.units[u];
        for (j, &t) in unit.terms.iter().enumerate() {
            if unit.rows.iter().all(|r| r[j] == 0) {
                continue;
            }
            match &spec.features[t] {
                Feature::Numeric { attr, .. }
                | Feature::Equals { attr, .. }
                | Feature::Greater { attr, .. } => mark(*attr),
                Feature::Conjunction(lits) => lits.iter().for_each(|l| mark(l.attr)),
            }
        }
    }
    read
}

/// The sums a segment's statistics need.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Needs {
    /// `Σx` (`i32`).
    sum: bool,
    /// `Σx²` (`u64`).
    sq: bool,
    /// `Σ|x[t+1] − x[t]|` (`u32`), for segments of at least two samples.
    ad: bool,
    /// `Σ(2t − n + 1)·x` (`i64`), for segments of at least two samples.
    mo: bool,
    /// The smallest sample: gathered by `classify_window`'s loop; the stream reads it from its
    /// ring buffer when a window is ready.
    min: bool,
    /// The largest sample, as `min`.
    max: bool,
}

/// The samples `[start, end)` of one channel's window that some used features read.
#[derive(Debug, Clone)]
struct Segment {
    channel: usize,
    start: usize,
    end: usize,
    needs: Needs,
}

impl Segment {
    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// One used model input: input `input` is `feature`, over segment `segment`.
#[derive(Debug, Clone)]
struct Used {
    input: usize,
    feature: WindowFeature,
    segment: usize,
}

/// What the generated pipeline computes.
struct Plan {
    window: Window,
    used: Vec<Used>,
    segments: Vec<Segment>,
}

impl Plan {
    fn new(spec: &ModelSpec, pipeline: &Pipeline, window: Window) -> Plan {
        let read = inputs_read(spec);
        let n = window.len;
        let mut used = Vec::new();
        let mut segments: Vec<Segment> = Vec::new();
        for (input, f) in pipeline.features.iter().enumerate() {
            if !read.get(input).copied().unwrap_or(false) {
                continue;
            }
            // The runtime's bounds (`WindowFeature::compute`): `[floor(i·n/k), floor((i+1)·n/k))`,
            // or the one sample at `floor(i·n/k)` if that is empty.
            let (i, k) = (usize::from(f.segment), usize::from(f.segments));
            let start = i * n / k;
            let end = ((i + 1) * n / k).max(start + 1);
            let channel = usize::from(f.channel);
            let s = match segments.iter().position(|s| (s.channel, s.start, s.end) == (channel, start, end)) {
                Some(s) => s,
                None => {
                    segments.push(Segment { channel, start, end, needs: Needs::default() });
                    segments.len() - 1
                }
            };
            let long = end - start >= 2;
            let needs = &mut segments[s].needs;
            match f.stat {
                Stat::Mean | Stat::Crossings => needs.sum = true,
                Stat::Spread => (needs.sum, needs.sq) = (true, true),
                Stat::Energy => needs.sq = true,
                Stat::MeanAbsDiff => needs.ad |= long,
                Stat::Slope => needs.mo |= long,
                Stat::Min => needs.min = true,
                Stat::Max => needs.max = true,
                Stat::PeakToPeak => (needs.min, needs.max) = (true, true),
            }
            used.push(Used { input, feature: *f, segment: s });
        }
        Plan { window, used, segments }
    }

    /// Whether any used feature has statistic `stat` (over a segment of at least `min_len`).
    fn uses(&self, stat: Stat, min_len: usize) -> bool {
        self.used.iter().any(|u| u.feature.stat == stat && self.segments[u.segment].len() >= min_len)
    }
}

/// Where a form of the pipeline keeps its segment sums and samples.
struct Place {
    /// Prefix of segment sum names: `""` for locals, `self.` or `s->` for stream fields.
    sums: &'static str,
    /// Expression of channel `{c}`'s sample array.
    samples: &'static str,
    /// Expression of the window position 0's index in that array.
    head: &'static str,
    /// Whether each segment's `min`/`max` are locals of `classify_window`'s loop (`min{g}`,
    /// `max{g}`) rather than read from the ring buffer.
    order_locals: bool,
}

impl Gen<'_> {
    /// Appends the pipeline (constants, helpers, `classify_window` and the stream) for a model
    /// with a pipeline; nothing for one without.
    pub(super) fn pipeline(&mut self, window: Window) {
        let Some(pipeline) = self.spec.pipeline.clone() else { return };
        let plan = Plan::new(self.spec, &pipeline, window);
        self.pipeline_intro(&pipeline, &plan);
        self.pipeline_helpers(&plan);
        self.classify_window(&plan);
        self.stream(&plan);
    }

    /// The section's opening comment (the channels and every used feature) and its constants.
    fn pipeline_intro(&mut self, pipeline: &Pipeline, plan: &Plan) {
        let c = self.lang == Lang::C;
        let (open, line, close) = if c { ("/* ", " * ", " */") } else { ("// ", "// ", "") };
        let w = plan.window;
        let mut text = vec![
            "The sensor pipeline, compiled in for windows of a fixed length.".to_string(),
            String::new(),
            "Channels (a frame holds one sample of each, in this order):".to_string(),
        ];
        for (i, ch) in pipeline.channels.iter().enumerate() {
            text.push(format!(
                "  channel {i} {}: sample = round(value * 10^{}), clamped to -32768..=32767",
                super::contract::quoted(&ch.name),
                ch.scale_exp
            ));
        }
        text.push(String::new());
        if plan.used.is_empty() {
            text.push("The model reads no input: no window feature is computed.".to_string());
        } else {
            text.push(format!(
                "Model inputs computed from a window of {} samples (window positions 0 = oldest):",
                w.len
            ));
        }
        for u in &plan.used {
            let s = &plan.segments[u.segment];
            text.push(format!(
                "  input {}: {} ({}) = {} of channel {} over samples [{}, {})",
                u.input,
                u.feature,
                super::contract::quoted(&crate::data::recordings::feature_name(pipeline, &u.feature)),
                u.feature.stat,
                s.channel,
                s.start,
                s.end
            ));
        }
        let unread = pipeline.features.len() - plan.used.len();
        if unread > 0 {
            text.push(format!(
                "The other {unread} inputs of the pipeline no path of the model reads: not computed."
            ));
        }
        let _ = writeln!(self.out);
        for (k, t) in text.iter().enumerate() {
            let lead = if k == 0 { open } else { line };
            let _ = writeln!(self.out, "{}", format!("{lead}{t}").trim_end());
        }
        if c {
            let _ = writeln!(self.out, "{close}");
        } else {
            let _ = writeln!(
                self.out,
                "\n/// Channels per frame.\n#[allow(dead_code)]\npub const N_CHANNELS: usize = {};\n\
                 /// Samples per channel in a window.\npub const WINDOW: usize = {};\n\
                 /// Frames from one window `Stream` classifies to the next.\n#[allow(dead_code)]\npub const HOP: usize = {};",
                pipeline.channels.len(),
                w.len,
                w.hop
            );
        }
        let _ = writeln!(self.out);
    }

    /// The C constants and declarations of the pipeline, for the file's header (they must come
    /// before anything that uses them, and a caller copies them with `ltu_predict`'s).
    pub(super) fn c_pipeline_declarations(&self, window: Window, out: &mut String) {
        let Some(pipeline) = self.spec.pipeline.clone() else { return };
        let plan = Plan::new(self.spec, &pipeline, window);
        let _ = writeln!(
            out,
            "#define LTU_N_CHANNELS {} /* samples per frame, one per channel, in the LTU_CHANNEL_* order */\n\
             #define LTU_WINDOW {} /* samples per channel in a window */\n\
             #define LTU_HOP {} /* frames from one window ltu_push classifies to the next */\n",
            pipeline.channels.len(),
            window.len,
            window.hop
        );
        out.push_str(
            "/* The stream: the last LTU_WINDOW samples of each channel in a ring buffer, and running sums. */\n\
             struct ltu_stream {\n    int16_t buf[LTU_N_CHANNELS][LTU_WINDOW];\n    \
             uint32_t head;   /* the slot of the oldest sample, where the next frame goes */\n    \
             uint32_t filled; /* frames held, up to LTU_WINDOW */\n    \
             uint32_t since;  /* frames since the last window, up to LTU_HOP */\n",
        );
        for (g, s) in plan.segments.iter().enumerate() {
            let Needs { sum, sq, ad, mo, .. } = s.needs.stream();
            let fields = [
                (sum, "int32_t sum", "sum of x"),
                (sq, "uint64_t sq", "sum of x^2"),
                (ad, "uint32_t ad", "sum of |x[t+1] - x[t]|"),
                (mo, "int64_t mo", "sum of (2t - n + 1) * x[t]"),
            ];
            for (_, f, what) in fields.iter().filter(|(on, _, _)| *on) {
                let _ = writeln!(
                    out,
                    "    {f}{g}; /* {what}, channel {}, samples [{}, {}) */",
                    s.channel, s.start, s.end
                );
            }
        }
        out.push_str(
            "};\n\n\
             int ltu_classify_window(const int16_t samples[LTU_N_CHANNELS][LTU_WINDOW]);\n\
             void ltu_stream_init(struct ltu_stream *s);\n\
             int ltu_push(struct ltu_stream *s, const int16_t frame[LTU_N_CHANNELS]);\n",
        );
    }

    /// The arithmetic helpers the used statistics need, each once.
    fn pipeline_helpers(&mut self, plan: &Plan) {
        let c = self.lang == Lang::C;
        let any = |stats: &[Stat]| stats.iter().any(|&s| plan.uses(s, 1));
        let mean = any(&[Stat::Mean, Stat::Crossings]);
        let spread = plan.uses(Stat::Spread, 1);
        let energy = plan.uses(Stat::Energy, 1);
        let slope = plan.uses(Stat::Slope, 2);
        let min = any(&[Stat::Min, Stat::PeakToPeak]);
        let max = any(&[Stat::Max, Stat::PeakToPeak]);
        let crossings = plan.uses(Stat::Crossings, 1);
        let ordered = min || max || crossings;
        // The stream's updates read the ring buffer at their segments' bounds.
        let ring = ordered || plan.segments.iter().any(|s| s.needs.stream() != Needs::default());
        let h = &mut self.out;
        if c {
            if ring {
                h.push_str(
                    "/* The slot of window position i (< 2 * LTU_WINDOW) in a ring buffer. */\n\
                     static inline uint32_t ltu_ring(uint32_t i)\n{\n    return i >= LTU_WINDOW ? i - LTU_WINDOW : i;\n}\n\n",
                );
            }
            if mean || slope {
                h.push_str(
                    "/* floor(a / b) for b > 0 (C's / truncates toward zero). */\n\
                     static inline int32_t ltu_floor_div32(int32_t a, int32_t b)\n{\n    \
                     int32_t q = a / b;\n    return (a % b != 0 && a < 0) ? q - 1 : q;\n}\n\n",
                );
            }
            if slope {
                h.push_str(
                    "static inline int64_t ltu_floor_div64(int64_t a, int64_t b)\n{\n    \
                     int64_t q = a / b;\n    return (a % b != 0 && a < 0) ? q - 1 : q;\n}\n\n",
                );
            }
            if spread {
                h.push_str(
                    "/* floor(sqrt(v)), bit by bit. */\n\
                     static inline uint32_t ltu_isqrt(uint32_t v)\n{\n    \
                     uint32_t r = 0, bit = (uint32_t)1 << 30;\n    \
                     while (bit > v) bit >>= 2;\n    \
                     while (bit != 0) {\n        \
                     if (v >= r + bit) {\n            v -= r + bit;\n            r = (r >> 1) + bit;\n        \
                     } else {\n            r >>= 1;\n        }\n        bit >>= 2;\n    }\n    return r;\n}\n\n\
                     /* floor(sqrt(floor((n * sq - sum^2) / n^2))): the population standard deviation, floored.\n \
                     * n * sq <= 2^54 and sum^2 <= 2^54; the variance is below 2^30. */\n\
                     static inline int32_t ltu_spread(int32_t sum, uint64_t sq, int64_t n)\n{\n    \
                     int64_t n2_var = n * (int64_t)sq - (int64_t)sum * sum;\n    \
                     return (int32_t)ltu_isqrt((uint32_t)(n2_var / (n * n)));\n}\n\n",
                );
            }
            if energy {
                h.push_str(
                    "/* floor(sq / n), the mean square (at most 2^30). */\n\
                     static inline int32_t ltu_energy(uint64_t sq, uint32_t n)\n{\n    return (int32_t)(sq / n);\n}\n\n",
                );
            }
            if slope {
                let _ = write!(
                    h,
                    "/* floor(2^{SLOPE_SHIFT} * 6 * mo / (n * (n^2 - 1))), mo = sum of (2t - n + 1) * x[t], n >= 2. */\n\
                     static inline int32_t ltu_slope(int64_t mo, int64_t n)\n{{\n    \
                     return (int32_t)ltu_floor_div64(mo * {}, n * (n * n - 1));\n}}\n\n",
                    6 << SLOPE_SHIFT
                );
            }
            if ordered {
                h.push_str(
                    "/* The slots of window positions [start, end) (start < end <= LTU_WINDOW) of a ring buffer\n \
                     * whose oldest sample is at slot head, as two contiguous runs: [*a, *a + *n0) and [0, *n1)\n \
                     * (*n1 is 0 unless the positions wrap past the end of the buffer). */\n\
                     static inline void ltu_runs(uint32_t head, uint32_t start, uint32_t end, uint32_t *a, uint32_t *n0, uint32_t *n1)\n{\n    \
                     uint32_t from = ltu_ring(head + start), to = head + end;\n    \
                     if (to > LTU_WINDOW && from >= head) {\n        \
                     *n0 = LTU_WINDOW - from;\n        *n1 = to - LTU_WINDOW;\n    \
                     } else {\n        \
                     *n0 = end - start;\n        *n1 = 0;\n    }\n    *a = from;\n}\n\n",
                );
            }
            if min {
                h.push_str(
                    "/* The smallest of m and x[0..n). */\n\
                     static inline int32_t ltu_min_of(const int16_t *x, uint32_t n, int32_t m)\n{\n    \
                     uint32_t t;\n    for (t = 0; t < n; t++) {\n        if (x[t] < m) m = x[t];\n    }\n    return m;\n}\n\n\
                     /* The smallest sample at window positions [start, end) of a ring buffer. */\n\
                     static inline int32_t ltu_min(const int16_t *x, uint32_t head, uint32_t start, uint32_t end)\n{\n    \
                     uint32_t a, n0, n1;\n    ltu_runs(head, start, end, &a, &n0, &n1);\n    \
                     return ltu_min_of(x, n1, ltu_min_of(x + a, n0, INT16_MAX));\n}\n\n",
                );
            }
            if max {
                h.push_str(
                    "/* The largest of m and x[0..n). */\n\
                     static inline int32_t ltu_max_of(const int16_t *x, uint32_t n, int32_t m)\n{\n    \
                     uint32_t t;\n    for (t = 0; t < n; t++) {\n        if (x[t] > m) m = x[t];\n    }\n    return m;\n}\n\n\
                     /* The largest sample at window positions [start, end) of a ring buffer. */\n\
                     static inline int32_t ltu_max(const int16_t *x, uint32_t head, uint32_t start, uint32_t end)\n{\n    \
                     uint32_t a, n0, n1;\n    ltu_runs(head, start, end, &a, &n0, &n1);\n    \
                     return ltu_max_of(x, n1, ltu_max_of(x + a, n0, INT16_MIN));\n}\n\n",
                );
            }
            if crossings {
                h.push_str(
                    "/* Adds to *count the samples of x[0..n) on the other side of the floored mean (one > mean,\n \
                     * one <= mean) than the sample before them; *high: whether that sample is > mean. */\n\
                     static inline void ltu_crossings_of(const int16_t *x, uint32_t n, int32_t mean, int *high, int32_t *count)\n{\n    \
                     uint32_t t;\n    for (t = 0; t < n; t++) {\n        int h = x[t] > mean;\n        \
                     *count += h != *high;\n        *high = h;\n    }\n}\n\n\
                     /* Consecutive samples at window positions [start, end) of a ring buffer on different sides of\n \
                     * the floored mean. */\n\
                     static inline int32_t ltu_crossings(const int16_t *x, uint32_t head, uint32_t start, uint32_t end, int32_t mean)\n{\n    \
                     uint32_t a, n0, n1;\n    int32_t count = 0;\n    int high;\n    \
                     ltu_runs(head, start, end, &a, &n0, &n1);\n    high = x[a] > mean;\n    \
                     ltu_crossings_of(x + a, n0, mean, &high, &count);\n    \
                     ltu_crossings_of(x, n1, mean, &high, &count);\n    return count;\n}\n\n",
                );
            }
            return;
        }
        h.push_str(
            "/// The sample at window position `t` of a ring buffer whose oldest sample is at `head`.\n\
             /// `head + t < 2 * WINDOW`; `get` keeps the code free of panic paths.\n\
             #[inline(always)]\n\
             #[allow(dead_code)]\n\
             fn at(x: &[i16; WINDOW], head: usize, t: usize) -> i32 {\n    \
             let i = head + t;\n    let i = if i >= WINDOW { i - WINDOW } else { i };\n    \
             x.get(i).map_or(0, |&v| v as i32)\n}\n\n",
        );
        if ordered {
            h.push_str(
                "/// The samples at window positions `[start, end)` of a ring buffer whose oldest sample is at\n\
                 /// `head`, as at most two runs of the array (`head` 0: one run).\n\
                 #[inline(always)]\n\
                 fn runs(x: &[i16; WINDOW], head: usize, start: usize, end: usize) -> [&[i16]; 2] {\n    \
                 let (newer, older) = x.split_at(head.min(WINDOW));\n    let k = older.len();\n    \
                 let a = older.get(start.min(k)..end.min(k)).unwrap_or_default();\n    \
                 let b = newer.get(start.saturating_sub(k)..end.saturating_sub(k)).unwrap_or_default();\n    \
                 [a, b]\n}\n\n",
            );
        }
        if mean {
            h.push_str(
                "/// `floor(sum / n)`.\n#[inline(always)]\nfn mean_of(sum: i32, n: i32) -> i32 {\n    sum.div_euclid(n)\n}\n\n",
            );
        }
        if spread {
            h.push_str(
                "/// `floor(sqrt(v))`, bit by bit.\n\
                 fn isqrt(mut v: u32) -> u32 {\n    let mut r: u32 = 0;\n    let mut bit: u32 = 1 << 30;\n    \
                 while bit > v {\n        bit >>= 2;\n    }\n    while bit != 0 {\n        \
                 if v >= r + bit {\n            v -= r + bit;\n            r = (r >> 1) + bit;\n        \
                 } else {\n            r >>= 1;\n        }\n        bit >>= 2;\n    }\n    r\n}\n\n\
                 /// `floor(sqrt(floor((n·sq − sum²) / n²)))`: the population standard deviation, floored.\n\
                 /// `n·sq ≤ 2^54` and `sum² ≤ 2^54`; the variance is below `2^30`.\n\
                 #[inline(always)]\n\
                 fn spread_of(sum: i32, sq: u64, n: i64) -> i32 {\n    \
                 let n2_var = n * sq as i64 - sum as i64 * sum as i64;\n    \
                 isqrt((n2_var / (n * n)) as u32) as i32\n}\n\n",
            );
        }
        if energy {
            h.push_str(
                "/// `floor(sq / n)`, the mean square (at most `2^30`).\n#[inline(always)]\n\
                 fn energy_of(sq: u64, n: u64) -> i32 {\n    (sq / n) as i32\n}\n\n",
            );
        }
        if slope {
            let _ = write!(
                h,
                "/// `floor(2^{SLOPE_SHIFT}·6·mo / (n·(n² − 1)))`, `mo = Σ(2t − n + 1)·x[t]`, `n ≥ 2`.\n\
                 #[inline(always)]\n\
                 fn slope_of(mo: i64, n: i64) -> i32 {{\n    (mo * {}).div_euclid(n * (n * n - 1)) as i32\n}}\n\n",
                6 << SLOPE_SHIFT
            );
        }
        if min {
            h.push_str(
                "/// The smallest sample at window positions `[start, end)`.\n#[inline(always)]\n\
                 fn min_of(x: &[i16; WINDOW], head: usize, start: usize, end: usize) -> i32 {\n    \
                 let mut m = i32::MAX;\n    for run in runs(x, head, start, end) {\n        \
                 for &v in run {\n            m = m.min(v as i32);\n        }\n    }\n    m\n}\n\n",
            );
        }
        if max {
            h.push_str(
                "/// The largest sample at window positions `[start, end)`.\n#[inline(always)]\n\
                 fn max_of(x: &[i16; WINDOW], head: usize, start: usize, end: usize) -> i32 {\n    \
                 let mut m = i32::MIN;\n    for run in runs(x, head, start, end) {\n        \
                 for &v in run {\n            m = m.max(v as i32);\n        }\n    }\n    m\n}\n\n",
            );
        }
        if crossings {
            h.push_str(
                "/// Consecutive samples in `[start, end)` on different sides of the floored mean: one `> mean`,\n\
                 /// one `<= mean`.\n#[inline(always)]\n\
                 fn crossings_of(x: &[i16; WINDOW], head: usize, start: usize, end: usize, mean: i32) -> i32 {\n    \
                 let mut prev = at(x, head, start) > mean;\n    let mut count = 0;\n    \
                 for run in runs(x, head, start, end) {\n        for &v in run {\n            \
                 let high = v as i32 > mean;\n            count += (high != prev) as i32;\n            \
                 prev = high;\n        }\n    }\n    count\n}\n\n",
            );
        }
    }

    /// The expression of used feature `u` from the segment sums and samples at `place`.
    fn feature_value(&self, plan: &Plan, u: &Used, place: &Place) -> String {
        let c = self.lang == Lang::C;
        let s = &plan.segments[u.segment];
        let (g, n, start, end) = (u.segment, s.len(), s.start, s.end);
        let p = place.sums;
        let samples = place.samples.replace("{c}", &s.channel.to_string());
        let head = place.head;
        let mean =
            if c { format!("ltu_floor_div32({p}sum{g}, {n})") } else { format!("mean_of({p}sum{g}, {n})") };
        let order = |name: &str| {
            if place.order_locals {
                format!("{name}{g}")
            } else if c {
                format!("ltu_{name}({samples}, {head}, {start}, {end})")
            } else {
                format!("{name}_of({samples}, {head}, {start}, {end})")
            }
        };
        match u.feature.stat {
            Stat::Mean => mean,
            Stat::Spread if c => format!("ltu_spread({p}sum{g}, {p}sq{g}, {n})"),
            Stat::Spread => format!("spread_of({p}sum{g}, {p}sq{g}, {n})"),
            Stat::Energy if c => format!("ltu_energy({p}sq{g}, {n})"),
            Stat::Energy => format!("energy_of({p}sq{g}, {n})"),
            Stat::Min => order("min"),
            Stat::Max => order("max"),
            Stat::PeakToPeak => format!("{} - {}", order("max"), order("min")),
            Stat::MeanAbsDiff if n < 2 => "0".to_string(),
            Stat::MeanAbsDiff if c => format!("(int32_t)({p}ad{g} / {})", n - 1),
            Stat::MeanAbsDiff => format!("({p}ad{g} / {}) as i32", n - 1),
            Stat::Slope if n < 2 => "0".to_string(),
            Stat::Slope if c => format!("ltu_slope({p}mo{g}, {n})"),
            Stat::Slope => format!("slope_of({p}mo{g}, {n})"),
            Stat::Crossings if c => format!("ltu_crossings({samples}, {head}, {start}, {end}, {mean})"),
            Stat::Crossings => format!("crossings_of({samples}, {head}, {start}, {end}, {mean})"),
        }
    }

    /// Writes `x[input] = value;` for every used feature, with its name as a comment.
    fn assign_inputs(&mut self, plan: &Plan, place: &Place, indent: &str) {
        for u in &plan.used {
            let value = self.feature_value(plan, u, place);
            let _ = match self.lang {
                Lang::Rust => writeln!(self.out, "{indent}x[{}] = {value}; // {}", u.input, u.feature),
                Lang::C => writeln!(self.out, "{indent}x[{}] = {value}; /* {} */", u.input, u.feature),
            };
        }
    }

    /// `classify_window` (C: `ltu_classify_window`): each segment's sums in one loop over its
    /// samples, then the used inputs, then `predict`.
    fn classify_window(&mut self, plan: &Plan) {
        let c = self.lang == Lang::C;
        let assigns = !plan.used.is_empty();
        if c {
            self.out.push_str(
                "/* The class of one window: samples[c][t] is channel c's sample t, oldest first. */\n\
                 int ltu_classify_window(const int16_t samples[LTU_N_CHANNELS][LTU_WINDOW])\n{\n    \
                 int32_t x[LTU_N_INPUTS] = {0};\n",
            );
        } else {
            self.out.push_str(
                "/// The class of one window: `samples[c][t]` is channel `c`'s sample `t`, oldest first.\n\
                 #[allow(dead_code, clippy::all)]\n\
                 pub fn classify_window(samples: &[[i16; WINDOW]; N_CHANNELS]) -> usize {\n",
            );
            let _ = writeln!(self.out, "    let {}x = [0i32; N_INPUTS];", if assigns { "mut " } else { "" });
        }
        for (g, s) in plan.segments.iter().enumerate() {
            let Needs { sum, sq, ad, mo, min, max } = s.needs;
            if !(sum || sq || ad || mo || min || max) {
                continue;
            }
            let (ch, start, end, n) = (s.channel, s.start, s.end, s.len());
            let mut decls = Vec::new();
            let mut body = Vec::new();
            // What the loop gathers, for its comment.
            let what: Vec<&str> = [
                (sum, "sum of x"),
                (sq, "sum of x^2"),
                (ad, "sum of |x[t+1] - x[t]|"),
                (mo, "sum of (2t - n + 1) * x[t]"),
                (min, "min"),
                (max, "max"),
            ]
            .into_iter()
            .filter_map(|(on, w)| on.then_some(w))
            .collect();
            let what = what.join(", ");
            // The square of an `i16` sample is at most 2^30, so `v * v` never overflows `i32`
            // (a Cortex-M3 still accumulates it in one `smlal`; a 64-bit product would call a
            // library multiply on a Cortex-M0); the sum is 64-bit because more than three such
            // squares can exceed `u32`.
            if c {
                decls.extend(sum.then(|| format!("int32_t sum{g} = 0;")));
                decls.extend(sq.then(|| format!("uint64_t sq{g} = 0;")));
                decls.extend(ad.then(|| format!("uint32_t ad{g} = 0;")));
                if mo {
                    decls.push(format!("int64_t mo{g} = 0;"));
                    decls.push(format!("int32_t w{g} = {};", 1 - n as i64));
                }
                if ad {
                    decls.push(format!("int32_t prev{g} = samples[{ch}][{start}];"));
                }
                decls.extend(min.then(|| format!("int32_t min{g} = INT16_MAX;")));
                decls.extend(max.then(|| format!("int32_t max{g} = INT16_MIN;")));
                body.push(format!("const int32_t v = samples[{ch}][t];"));
                body.extend(sum.then(|| format!("sum{g} += v;")));
                body.extend(sq.then(|| format!("sq{g} += (uint64_t)(v * v);")));
                if ad {
                    body.push(format!("ad{g} += (uint32_t)(v > prev{g} ? v - prev{g} : prev{g} - v);"));
                    body.push(format!("prev{g} = v;"));
                }
                if mo {
                    body.push(format!("mo{g} += (int64_t)(w{g} * v);"));
                    body.push(format!("w{g} += 2;"));
                }
                body.extend(min.then(|| format!("if (v < min{g}) min{g} = v;")));
                body.extend(max.then(|| format!("if (v > max{g}) max{g} = v;")));
                let _ = writeln!(self.out, "    /* channel {ch}, samples [{start}, {end}): {what} */");
                for d in decls {
                    let _ = writeln!(self.out, "    {d}");
                }
                let _ = writeln!(
                    self.out,
                    "    {{\n        uint32_t t;\n        for (t = {start}; t < {end}; t++) {{"
                );
                for b in body {
                    let _ = writeln!(self.out, "            {b}");
                }
                self.out.push_str("        }\n    }\n");
            } else {
                decls.extend(sum.then(|| format!("let mut sum{g}: i32 = 0;")));
                decls.extend(sq.then(|| format!("let mut sq{g}: u64 = 0;")));
                decls.extend(ad.then(|| format!("let mut ad{g}: u32 = 0;")));
                if mo {
                    decls.push(format!("let mut mo{g}: i64 = 0;"));
                    decls.push(format!("let mut w{g}: i32 = {};", 1 - n as i64));
                }
                if ad {
                    decls.push(format!("let mut prev{g}: i32 = samples[{ch}][{start}] as i32;"));
                }
                decls.extend(min.then(|| format!("let mut min{g}: i32 = i16::MAX as i32;")));
                decls.extend(max.then(|| format!("let mut max{g}: i32 = i16::MIN as i32;")));
                body.push("let v = v as i32;".to_string());
                body.extend(sum.then(|| format!("sum{g} += v;")));
                body.extend(sq.then(|| format!("sq{g} += (v * v) as u64;")));
                if ad {
                    body.push(format!("ad{g} += (v - prev{g}).unsigned_abs();"));
                    body.push(format!("prev{g} = v;"));
                }
                if mo {
                    body.push(format!("mo{g} += (w{g} * v) as i64;"));
                    body.push(format!("w{g} += 2;"));
                }
                body.extend(min.then(|| format!("min{g} = min{g}.min(v);")));
                body.extend(max.then(|| format!("max{g} = max{g}.max(v);")));
                let _ = writeln!(self.out, "    // channel {ch}, samples [{start}, {end}): {what}");
                for d in decls {
                    let _ = writeln!(self.out, "    {d}");
                }
                let _ = writeln!(self.out, "    for &v in &samples[{ch}][{start}..{end}] {{");
                for b in body {
                    let _ = writeln!(self.out, "        {b}");
                }
                self.out.push_str("    }\n");
            }
        }
        let place = if c {
            Place { sums: "", samples: "samples[{c}]", head: "0", order_locals: true }
        } else {
            Place { sums: "", samples: "&samples[{c}]", head: "0", order_locals: true }
        };
        self.assign_inputs(plan, &place, "    ");
        if c {
            if !assigns {
                self.out.push_str("    (void)samples;\n");
            }
            self.out.push_str("    return (int)ltu_predict(x);\n}\n\n");
        } else {
            if !assigns {
                self.out.push_str("    let _ = samples;\n");
            }
            self.out.push_str("    predict(&x)\n}\n\n");
        }
    }

    /// The stream: the ring buffer, the running sums' O(1) update per frame, and the used inputs
    /// from the sums and the buffer when a window is ready.
    fn stream(&mut self, plan: &Plan) {
        let c = self.lang == Lang::C;
        let w = plan.window.len;
        // Window position p of the window before this frame: p < WINDOW in the buffer, WINDOW the
        // new frame's sample.
        let old = |ch: usize, p: usize| -> String {
            match (c, p == w, p) {
                (true, true, _) => format!("(int32_t)frame[{ch}]"),
                (true, false, 0) => format!("(int32_t)s->buf[{ch}][h]"),
                (true, false, _) => format!("(int32_t)s->buf[{ch}][ltu_ring(h + {p})]"),
                (false, true, _) => format!("frame[{ch}] as i32"),
                (false, false, _) => format!("at(&self.buf[{ch}], h, {p})"),
            }
        };
        let p = if c { "s->" } else { "self." };
        let mut update = String::new();
        for (g, s) in plan.segments.iter().enumerate() {
            let Needs { sum, sq, ad, mo, .. } = s.needs.stream();
            if !(sum || sq || ad || mo) {
                continue;
            }
            let (ch, start, end, n) = (s.channel, s.start, s.end, s.len());
            let decl = if c { "const int32_t" } else { "let" };
            let about =
                format!("channel {ch}, samples [{start}, {end}): position {start} leaves, {end} enters");
            let about = if c { format!("/* {about} */") } else { format!("// {about}") };
            let _ = writeln!(
                update,
                "    {{\n        {about}\n        {decl} out = {};\n        {decl} inn = {};",
                old(ch, start),
                old(ch, end),
            );
            if sum {
                let _ = writeln!(update, "        {p}sum{g} += inn - out;");
            }
            if sq {
                let _ = if c {
                    writeln!(update, "        {p}sq{g} += (uint64_t)(inn * inn);\n        {p}sq{g} -= (uint64_t)(out * out);")
                } else {
                    writeln!(
                        update,
                        "        {p}sq{g} += (inn * inn) as u64;\n        {p}sq{g} -= (out * out) as u64;"
                    )
                };
            }
            if ad {
                // The pair (end − 1, end) enters, the pair (start, start + 1) leaves.
                let (before_in, after_out) = (old(ch, end - 1), old(ch, start + 1));
                let _ = if c {
                    writeln!(
                        update,
                        "        {{\n            const int32_t a = {before_in}, b = {after_out};\n            \
                         {p}ad{g} += (uint32_t)(inn > a ? inn - a : a - inn);\n            \
                         {p}ad{g} -= (uint32_t)(b > out ? b - out : out - b);\n        }}"
                    )
                } else {
                    writeln!(
                        update,
                        "        {p}ad{g} += (inn - {before_in}).unsigned_abs();\n        \
                         {p}ad{g} -= ({after_out} - out).unsigned_abs();"
                    )
                };
            }
            if mo {
                // Σ(2t − n + 1)·x over the segment after the shift: every weight drops by 2, the
                // leaving sample had weight 1 − n, the entering one gets n − 1 (the sum is the new one).
                let _ = if c {
                    writeln!(
                        update,
                        "        {p}mo{g} += (int64_t){} * out + (int64_t){} * inn - 2 * (int64_t){p}sum{g};",
                        n - 1,
                        n + 1
                    )
                } else {
                    writeln!(
                        update,
                        "        {p}mo{g} += {} * out as i64 + {} * inn as i64 - 2 * {p}sum{g} as i64;",
                        n - 1,
                        n + 1
                    )
                };
            }
            update.push_str("    }\n");
        }
        // (field, type, what it sums)
        let fields: Vec<(String, &str, String)> = plan
            .segments
            .iter()
            .enumerate()
            .flat_map(|(g, s)| {
                let Needs { sum, sq, ad, mo, .. } = s.needs.stream();
                [
                    (sum, "sum", "i32", "Σx"),
                    (sq, "sq", "u64", "Σx²"),
                    (ad, "ad", "u32", "Σ|x[t+1] − x[t]|"),
                    (mo, "mo", "i64", "Σ(2t − n + 1)·x[t]"),
                ]
                .into_iter()
                .filter(|f| f.0)
                .map(move |(_, name, ty, what)| {
                    (
                        format!("{name}{g}"),
                        ty,
                        format!("{what} of channel {}, samples [{}, {})", s.channel, s.start, s.end),
                    )
                })
            })
            .collect();
        let assigns = !plan.used.is_empty();
        if c {
            self.out.push_str("/* An empty stream (also: forget every frame). */\nvoid ltu_stream_init(struct ltu_stream *s)\n{\n    uint32_t c, t;\n    for (c = 0; c < LTU_N_CHANNELS; c++) {\n        for (t = 0; t < LTU_WINDOW; t++) s->buf[c][t] = 0;\n    }\n    s->head = 0;\n    s->filled = 0;\n    s->since = 0;\n");
            for (f, _, _) in &fields {
                let _ = writeln!(self.out, "    s->{f} = 0;");
            }
            self.out.push_str(
                "}\n\n\
                 /* Takes one frame (a sample of every channel). Returns the class of the last LTU_WINDOW frames\n \
                 * when a window is ready (first when LTU_WINDOW frames are in, then every LTU_HOP frames),\n \
                 * else -1. The running sums start as those of a window of zeros, so they are exact from the\n \
                 * first frame on. */\n\
                 int ltu_push(struct ltu_stream *s, const int16_t frame[LTU_N_CHANNELS])\n{\n    \
                 const uint32_t h = s->head;\n    uint32_t c;\n",
            );
            self.out.push_str(&update);
            self.out.push_str(
                "    for (c = 0; c < LTU_N_CHANNELS; c++) s->buf[c][h] = frame[c];\n    \
                 s->head = h + 1 == LTU_WINDOW ? 0 : h + 1;\n    \
                 if (s->filled < LTU_WINDOW) s->filled++;\n    \
                 if (s->since < LTU_HOP) s->since++;\n    \
                 if (s->filled < LTU_WINDOW || s->since < LTU_HOP) return -1;\n    \
                 s->since = 0;\n    {\n        int32_t x[LTU_N_INPUTS] = {0};\n",
            );
            let place = Place { sums: "s->", samples: "s->buf[{c}]", head: "s->head", order_locals: false };
            self.assign_inputs(plan, &place, "        ");
            self.out.push_str("        return (int)ltu_predict(x);\n    }\n}\n");
            return;
        }
        self.out.push_str(
            "/// The last `WINDOW` frames in a ring buffer, and the running sums of the features that have\n\
             /// them; [`Stream::push`] classifies a window every `HOP` frames once `WINDOW` are in.\n\
             #[derive(Debug, Clone)]\n\
             #[allow(dead_code)]\n\
             pub struct Stream {\n    buf: [[i16; WINDOW]; N_CHANNELS],\n    \
             /// The slot of the oldest sample, where the next frame goes.\n    head: usize,\n    \
             /// Frames held, up to `WINDOW`.\n    filled: usize,\n    \
             /// Frames since the last window, up to `HOP`.\n    since: usize,\n",
        );
        for (f, ty, what) in &fields {
            let _ = writeln!(self.out, "    /// {what}.\n    {f}: {ty},");
        }
        self.out.push_str(
            "}\n\n\
             impl Default for Stream {\n    fn default() -> Self {\n        Self::new()\n    }\n}\n\n\
             #[allow(dead_code)]\n\
             impl Stream {\n    \
             /// An empty stream. The running sums start as those of a window of zeros, so they are exact\n    \
             /// from the first frame on.\n    \
             pub const fn new() -> Self {\n        Stream {\n            buf: [[0; WINDOW]; N_CHANNELS],\n            \
             head: 0,\n            filled: 0,\n            since: 0,\n",
        );
        for (f, _, _) in &fields {
            let _ = writeln!(self.out, "            {f}: 0,");
        }
        self.out.push_str(
            "        }\n    }\n\n    \
             /// Forgets every frame.\n    \
             #[allow(dead_code)]\n    \
             pub fn clear(&mut self) {\n        *self = Self::new();\n    }\n\n    \
             /// Takes one frame (a sample of every channel). Returns the class of the last `WINDOW` frames\n    \
             /// when a window is ready (first when `WINDOW` frames are in, then every `HOP` frames), else\n    \
             /// `None`; equal to [`classify_window`] of those frames.\n    \
             #[allow(clippy::all)]\n    \
             pub fn push(&mut self, frame: &[i16; N_CHANNELS]) -> Option<usize> {\n        \
             let h = self.head;\n",
        );
        for line in update.lines() {
            let _ = writeln!(self.out, "    {line}");
        }
        self.out.push_str(
            "        for (column, &sample) in self.buf.iter_mut().zip(frame) {\n            \
             if let Some(slot) = column.get_mut(h) {\n                *slot = sample;\n            }\n        }\n        \
             self.head = if h + 1 == WINDOW { 0 } else { h + 1 };\n        \
             self.filled = if self.filled < WINDOW { self.filled + 1 } else { WINDOW };\n        \
             self.since = if self.since < HOP { self.since + 1 } else { HOP };\n        \
             if self.filled < WINDOW || self.since < HOP {\n            return None;\n        }\n        \
             self.since = 0;\n",
        );
        let _ = writeln!(self.out, "        let {}x = [0i32; N_INPUTS];", if assigns { "mut " } else { "" });
        let place =
            Place { sums: "self.", samples: "&self.buf[{c}]", head: "self.head", order_locals: false };
        self.assign_inputs(plan, &place, "        ");
        self.out.push_str("        Some(predict(&x))\n    }\n}\n");
    }
}

impl Needs {
    /// The running sums the stream keeps: the slope's update reads the segment's sum; the order
    /// statistics have no running form.
    fn stream(self) -> Needs {
        Needs { sum: self.sum || self.mo, min: false, max: false, ..self }
    }
}
