//! A model as Rust source: straight-line code that predicts exactly what the runtime predicts,
//! at the cost of hand-written code.
//!
//! The runtime reads a model from bytes it does not trust, so it validates once and then
//! interprets records. Firmware that ships one fixed model can instead compile the model into
//! itself: [`rust_source`] turns a [`ModelSpec`] into a `no_std`, allocation-free, `unsafe`-free
//! module with one function,
//!
//! ```text
//! pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize
//! ```
//!
//! that returns the class index `ModelSpec::predict` (and so `ltu_runtime::Model::predict`)
//! returns for the same raw inputs, on every input. Trust moves from the loader to the build: the
//! accumulator bound the runtime proves at load time is proven here, when the code is generated
//! (accumulators are `i32` where `|b| + Σ|w|·max|f|` fits, else `i64`), and every array index is a
//! constant below `N_INPUTS`, so the compiler checks it and no panic path remains.
//!
//! For a model trained on recordings, [`source_with`] given a [`Window`] (and [`source`] for a
//! model whose pipeline fixes one) also emits the sensor pipeline: `classify_window` over one
//! window of raw samples per channel and a streaming `Stream` (in C `ltu_classify_window`,
//! `struct ltu_stream` and `ltu_push`), which return what `ltu_runtime::Model::predict_window`
//! returns for the same window. The `pipeline` module documents what they compute and how.
//!
//! What the code does, per structure:
//! - every feature is computed at most once per prediction, and only where it is needed: in the
//!   leaf that reads it, or before the first list entry that reads it;
//! - a unit's `±1` equality features over one categorical input are summed by one `match` on the
//!   input (`Σ_v w_v·(x = v ? 1 : −1)` is a per-value constant), not one multiply per value;
//! - zero weights are dropped; tree nodes are functions the compiler inlines or shares.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{Feature, LiteralOp, ModelSpec, Node, Structure, Unit};

use c::Clamped;

mod c;
mod contract;
mod pipeline;
mod rust;

pub use pipeline::{inputs_read, Window};

/// The language of the generated source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// A Rust module: `pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize`, with
    /// typed constants for every input, class and category code.
    Rust,
    /// C99: `int32_t ltu_predict(const int32_t *x)` and its header ([`c_files`]), with
    /// `LTU_N_INPUTS`, `LTU_N_CLASSES` and macros for every input, class and category code.
    C,
}

/// What generated code says about where the model came from, beyond its [`ModelSpec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct About {
    /// How the code names the model (for example the model file's name).
    pub name: String,
    /// Whether the model file has its host block: without it the inputs' decimal scales and
    /// missing-value substitutes in the [`ModelSpec`] are placeholders, and the code says they
    /// are unknown instead of offering conversions.
    pub host_block: bool,
    /// The host block's training metadata (`key`, `value`), in file order.
    pub metadata: Vec<(String, String)>,
}

impl About {
    /// A model named `name` with its host block and no metadata (a [`ModelSpec`] fresh from
    /// training).
    pub fn new(name: &str) -> About {
        About { name: name.to_string(), host_block: true, metadata: Vec::new() }
    }
}

/// Generated C as a header and a source file that includes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CFiles {
    /// The header: declarations, constants, documentation and the input conversions.
    pub header: String,
    /// The definitions; starts with a comment and `#include "<header name>"`.
    pub source: String,
}

/// The model as a Rust module (see the module docs). `about` becomes part of its header comment
/// (for example the model file's name).
pub fn rust_source(spec: &ModelSpec, about: &str) -> String {
    source(spec, about, Lang::Rust)
}

/// The model as one C99 stream, its header's text at the top: `int32_t ltu_predict(const
/// int32_t *x)` over `LTU_N_INPUTS` raw inputs, with the same guarantees as [`rust_source`]. It
/// relies on two's complement integers with an arithmetic right shift, as every compiler for
/// microcontrollers provides; a compile-time check stops the build where that does not hold.
pub fn c_source(spec: &ModelSpec, about: &str) -> String {
    source(spec, about, Lang::C)
}

/// The model as source in `lang`, with its sensor pipeline when the model has one with a fixed
/// window ([`Window::of_pipeline`]).
pub fn source(spec: &ModelSpec, about: &str, lang: Lang) -> String {
    let window = spec.pipeline.as_ref().and_then(Window::of_pipeline);
    source_with(spec, about, lang, window)
}

/// The model as source in `lang`; for a model with a pipeline and a `window`, followed by the
/// pipeline for windows of that length (see the `pipeline` section of the generated code:
/// `classify_window` and `Stream`, in C `ltu_classify_window`, `struct ltu_stream`,
/// `ltu_stream_init` and `ltu_push`). `window` is not read for a model without a pipeline.
pub fn source_with(spec: &ModelSpec, about: &str, lang: Lang, window: Option<Window>) -> String {
    source_about(spec, &About::new(about), lang, window)
}

/// As [`source_with`], documenting the model's provenance from `about`. C comes as one stream:
/// the header's text first, then the definitions.
pub fn source_about(spec: &ModelSpec, about: &About, lang: Lang, window: Option<Window>) -> String {
    let (header, source) = generate(spec, about, lang, window, None);
    header + &source
}

/// The model as a C header and a C source file that includes it as `header_name` (the file
/// name the header is written under, next to the source); otherwise as [`source_about`].
///
/// # Errors
/// `header_name` is empty or holds a character an `#include "..."` line cannot carry (`"`,
/// `\`, a control character).
pub fn c_files(
    spec: &ModelSpec,
    about: &About,
    window: Option<Window>,
    header_name: &str,
) -> Result<CFiles, String> {
    if header_name.is_empty() || header_name.chars().any(|c| c == '"' || c == '\\' || c.is_control()) {
        return Err(format!("{header_name:?} cannot be named in an #include line"));
    }
    let (header, source) = generate(spec, about, Lang::C, window, Some(header_name));
    Ok(CFiles { header, source })
}

/// The header (empty for Rust) and the source; the C source includes `header_name`, or, without
/// one, is meant to follow the header in one stream.
fn generate(
    spec: &ModelSpec,
    about: &About,
    lang: Lang,
    window: Option<Window>,
    header_name: Option<&str>,
) -> (String, String) {
    let window = window.filter(|_| spec.pipeline.is_some());
    let mut g = Gen {
        spec,
        lang,
        window,
        contract: contract::Contract::of(spec, about),
        out: String::new(),
        helpers: String::new(),
        n_helpers: 0,
    };
    match &spec.structure {
        Structure::Linear(u) => {
            g.open_predict();
            if g.streams() {
                g.decide_machine(*u);
            } else {
                let mut have = Vec::new();
                g.features_for(&[*u], &mut have);
                g.decide(*u);
            }
            g.out.push_str("}\n");
        }
        Structure::List { entries, default } => {
            g.open_predict();
            let mut have = Vec::new();
            for &(u, class) in entries {
                g.features_for(&[u], &mut have);
                let s = g.score(u, 0);
                let _ = match lang {
                    Lang::Rust => writeln!(g.out, "    if {s} > 0 {{\n        return {class};\n    }}"),
                    Lang::C => writeln!(g.out, "    if ({s} > 0) {{\n        return {class};\n    }}"),
                };
            }
            let _ = match lang {
                Lang::Rust => writeln!(g.out, "    {default}\n}}"),
                Lang::C => writeln!(g.out, "    return {default};\n}}"),
            };
        }
        Structure::Tree(nodes) => {
            if lang == Lang::C {
                for i in 0..nodes.len() {
                    let _ = writeln!(g.out, "static inline int32_t node_{i}(const int32_t *x);");
                }
                g.out.push('\n');
            }
            g.open_predict();
            g.out.push_str(match lang {
                Lang::Rust => "    node_0(x)\n}\n",
                Lang::C => "    return node_0(x);\n}\n",
            });
            // Links into each node: a node several parents share is not marked `#[inline]`
            // in Rust, where rustc would copy it into every caller. Once `ltu::model` shared
            // equal subtrees, car `fringe --prune-z 0` grew 2,936 → 3,776 B with every node
            // inlined; without the hint on shared nodes it is 3,236 B (vehicle `fringe`
            // 2,552 → 1,932 B) for a few more instructions per prediction (calls).
            let mut links = vec![0usize; nodes.len()];
            for node in nodes {
                let kids: Vec<usize> = match node {
                    Node::Class(_) | Node::Unit(_) => Vec::new(),
                    Node::Categorical { children, default, .. } => {
                        let mut k: Vec<usize> = children.iter().copied().chain([*default]).collect();
                        k.sort_unstable();
                        k.dedup();
                        k
                    }
                    Node::Threshold { left, right, .. } | Node::UnitSplit { left, right, .. } => {
                        vec![*left, *right]
                    }
                };
                kids.into_iter().for_each(|k| links[k] += 1);
            }
            for (i, node) in nodes.iter().enumerate() {
                g.tree_node(i, node, links[i] > 1 && !matches!(node, Node::Class(_)));
            }
        }
    }
    if let Some(window) = window {
        g.pipeline(window);
    }
    let code = std::mem::take(&mut g.out);
    let uses_q = code.contains("ltu_q(") || g.helpers.contains("ltu_q(");
    let header = g.header(about, header_name, uses_q);
    g.out.push_str(&g.helpers.clone());
    g.out.push_str(&code);
    if lang == Lang::C {
        g.out.push_str("\n#endif /* LTU_DECLARATIONS_ONLY */\n");
    }
    (header, g.out)
}

struct Gen<'a> {
    spec: &'a ModelSpec,
    lang: Lang,
    /// The window of the pipeline to emit, if any.
    window: Option<Window>,
    /// What the code documents about the model's interface.
    contract: contract::Contract,
    out: String,
    /// C only: one function per categorical group of a unit row (the `match` of the Rust code).
    helpers: String,
    n_helpers: usize,
}

impl Gen<'_> {
    /// The file's opening comment, constants and the numeric-feature helper, in the output
    /// language; returns the C header (empty for Rust), which the C source includes as
    /// `header_name` or, without one, follows. `uses_q`: whether the C code calls `ltu_q`.
    fn header(&mut self, about: &About, header_name: Option<&str>, uses_q: bool) -> String {
        let stats = self.spec.stats();
        let summary = format!(
            "{} classes, {} inputs, {} units, {} non-zero weights, at most {} multiply-accumulates.",
            self.spec.n_classes,
            self.spec.inputs.len(),
            stats.ltus,
            stats.weights_nonzero,
            stats.max_macs
        );
        match self.lang {
            Lang::Rust => {
                self.rust_header(about, &summary);
                String::new()
            }
            Lang::C => self.c_header(about, &summary, header_name, uses_q),
        }
    }

    fn open_predict(&mut self) {
        self.out.push_str(match self.lang {
            Lang::Rust => {
                "/// The class index of one row of raw inputs.\n\
                 #[allow(clippy::all)]\n\
                 pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize {\n"
            }
            Lang::C => "int32_t ltu_predict(const int32_t *x)\n{\n",
        });
    }

    /// Raw input `attr` as an `i32` expression.
    fn input(&self, attr: usize) -> String {
        match self.lang {
            Lang::Rust => format!("v(x[{attr}])"),
            Lang::C => format!("x[{attr}]"),
        }
    }

    /// An integer literal of the accumulator type.
    fn lit(&self, w: i64, wide: bool) -> String {
        match (self.lang, wide) {
            (Lang::Rust, false) => format!("{w}i32"),
            (Lang::Rust, true) => format!("{w}i64"),
            (Lang::C, false) if w == i64::from(i32::MIN) => "(-2147483647 - 1)".into(),
            (Lang::C, false) => format!("{w}"),
            (Lang::C, true) => format!("(int64_t){w}LL"),
        }
    }

    /// `±1` from a condition.
    fn sign(&self, cond: &str) -> String {
        match self.lang {
            Lang::Rust => format!("if {cond} {{ 1 }} else {{ -1 }}"),
            Lang::C => format!("({cond} ? 1 : -1)"),
        }
    }

    /// Expression of a feature's value (same arithmetic as [`Feature::value`]).
    fn feature_expr(&self, f: &Feature) -> String {
        match f {
            Feature::Numeric { attr, offset, mul, shift, max_abs } => {
                let name = if self.lang == Lang::C { "ltu_q" } else { "q" };
                let general = format!(
                    "{name}({}, {}, {mul}, {shift}, {max_abs})",
                    self.input(*attr),
                    self.lit(i64::from(*offset), false)
                );
                // C only: its inputs are `int32_t`, so the general form multiplies in 64 bits.
                // Generated Rust reads the firmware's own input type (often `i16`), and the
                // compiler already narrows `q` to 32 bits there; measured, the clamp-point
                // form was no faster in Rust (docs/CODEGEN.md).
                match Clamped::of(*offset, *mul, *shift, *max_abs).filter(|_| self.lang == Lang::C) {
                    Some(c) => self.clamped_expr(*attr, &c, &general),
                    None => general,
                }
            }
            Feature::Equals { attr, value } => {
                self.sign(&format!("{} == {}", self.input(*attr), self.lit(i64::from(*value), false)))
            }
            Feature::Greater { attr, value } => {
                self.sign(&format!("{} > {}", self.input(*attr), self.lit(i64::from(*value), false)))
            }
            Feature::Conjunction(lits) => {
                let conds: Vec<String> = lits
                    .iter()
                    .map(|l| {
                        let op = match l.op {
                            LiteralOp::Eq => "==",
                            LiteralOp::Ne => "!=",
                            LiteralOp::Gt => ">",
                            LiteralOp::Le => "<=",
                        };
                        format!("{} {op} {}", self.input(l.attr), self.lit(i64::from(l.value), false))
                    })
                    .collect();
                let cond = if conds.is_empty() {
                    if self.lang == Lang::C {
                        "1".to_string()
                    } else {
                        "true".to_string()
                    }
                } else if self.lang == Lang::C {
                    format!("({})", conds.join(" && "))
                } else {
                    conds.join(" && ")
                };
                self.sign(&cond)
            }
        }
    }
    /// Whether unit `u` needs `i64` accumulators: some row's bound exceeds `i32`.
    fn wide(&self, u: usize) -> bool {
        let unit = &self.spec.units[u];
        unit.rows.iter().any(|row| {
            let bound =
                unit.terms.iter().zip(row).fold(i128::from(row[unit.terms.len()]).abs(), |acc, (&t, &w)| {
                    acc + i128::from(w).abs() * i128::from(self.spec.features[t].max_abs())
                });
            bound > i128::from(i32::MAX)
        })
    }

    /// Features that a unit's rows read one at a time (not through a categorical group).
    fn singles(&self, u: usize) -> Vec<usize> {
        let unit = &self.spec.units[u];
        let groups = self.groups(unit);
        let mut out = Vec::new();
        for (j, &t) in unit.terms.iter().enumerate() {
            if unit.rows.iter().all(|r| r[j] == 0) {
                continue;
            }
            let grouped =
                matches!(self.spec.features[t], Feature::Equals { attr, .. } if groups.contains_key(&attr));
            if !grouped && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// Categorical inputs with at least two equality terms in the unit: input → term positions.
    fn groups(&self, unit: &Unit) -> BTreeMap<usize, Vec<usize>> {
        let mut g: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (j, &t) in unit.terms.iter().enumerate() {
            if let Feature::Equals { attr, .. } = self.spec.features[t] {
                if unit.rows.iter().any(|r| r[j] != 0) {
                    g.entry(attr).or_default().push(j);
                }
            }
        }
        g.retain(|_, js| js.len() >= 2);
        g
    }

    /// Emits a binding of each feature of `units` not yet in `have`.
    fn features_for(&mut self, units: &[usize], have: &mut Vec<usize>) {
        for &u in units {
            for t in self.singles(u) {
                if have.contains(&t) {
                    continue;
                }
                have.push(t);
                let expr = self.feature_expr(&self.spec.features[t]);
                let _ = match self.lang {
                    Lang::Rust => writeln!(self.out, "    let f{t}: i32 = {expr};"),
                    Lang::C => writeln!(self.out, "    const int32_t f{t} = {expr};"),
                };
            }
        }
    }

    /// The score expression of row `o` of unit `u` over the feature bindings.
    fn score(&mut self, u: usize, o: usize) -> String {
        let unit = &self.spec.units[u];
        let row = &unit.rows[o];
        let wide = self.wide(u);
        let cast = |v: String| match (self.lang, wide) {
            (_, false) => v,
            (Lang::Rust, true) => format!("({v} as i64)"),
            (Lang::C, true) => format!("(int64_t){v}"),
        };
        let mut parts = vec![self.lit(row[unit.terms.len()], wide)];
        let groups = self.groups(unit);
        for (j, &t) in unit.terms.iter().enumerate() {
            let w = row[j];
            let grouped =
                matches!(self.spec.features[t], Feature::Equals { attr, .. } if groups.contains_key(&attr));
            if w == 0 || grouped {
                continue;
            }
            let f = cast(format!("f{t}"));
            parts.push(match w {
                1 => f,
                -1 => format!("-{f}"),
                _ => format!("{} * {f}", self.lit(w, wide)),
            });
        }
        parts.extend(self.group_parts(u, o));
        let sum = parts.join(" + ");
        match self.lang {
            Lang::Rust => sum,
            Lang::C => format!("({sum})"),
        }
    }

    /// The terms of row `o` of unit `u` that come from categorical groups: one `match` (C: one
    /// `switch` helper) per input whose equality features the unit reads.
    fn group_parts(&mut self, u: usize, o: usize) -> Vec<String> {
        let unit = &self.spec.units[u];
        let row = &unit.rows[o];
        let wide = self.wide(u);
        let groups = self.groups(unit);
        let mut out = Vec::new();
        for (attr, js) in &groups {
            // Σ_v w_v·(x = v ? 1 : −1) = −Σw + 2·w_x when x is one of the values, else −Σw.
            let total: i64 = js.iter().map(|&j| row[j]).sum();
            let mut arms: BTreeMap<i32, i64> = BTreeMap::new();
            for &j in js {
                if let Feature::Equals { value, .. } = self.spec.features[unit.terms[j]] {
                    *arms.entry(value).or_insert(-total) += 2 * row[j];
                }
            }
            match self.lang {
                Lang::Rust => {
                    let mut m = format!("(match v(x[{attr}]) {{ ");
                    for (v, k) in &arms {
                        let _ = write!(m, "{v} => {}, ", self.lit(*k, wide));
                    }
                    let _ = write!(m, "_ => {} }})", self.lit(-total, wide));
                    out.push(m);
                }
                Lang::C => {
                    let name = format!("ltu_g{}", self.n_helpers);
                    self.n_helpers += 1;
                    let ty = if wide { "int64_t" } else { "int32_t" };
                    let _ =
                        writeln!(self.helpers, "static inline {ty} {name}(int32_t v)\n{{\n    switch (v) {{");
                    for (v, k) in &arms {
                        let _ = writeln!(
                            self.helpers,
                            "    case {}: return {};",
                            self.lit(i64::from(*v), false),
                            self.lit(*k, wide)
                        );
                    }
                    let _ = writeln!(
                        self.helpers,
                        "    default: return {};\n    }}\n}}\n",
                        self.lit(-total, wide)
                    );
                    out.push(format!("{name}(x[{attr}])"));
                }
            }
        }
        out
    }

    /// Whether a leaf or linear model's unit is decided by [`Gen::decide_machine`]: in C, always.
    /// Measured on the Cortex-M3 (`cargo xtask bench-device`, docs/CODEGEN.md): in C it takes
    /// vehicle `sparse` from 3,524 to 2,679 instructions and its stack from 832 to 80 bytes,
    /// kr-vs-kp's binary `sparse` from 489 to 381 and 200 to 64 B; in Rust it was no better (car
    /// `sparse` 759 → 802), so Rust binds every feature first. (Lists and unit splits share
    /// their features between units and keep binding them.)
    fn streams(&self) -> bool {
        self.lang == Lang::C
    }

    /// Emits the decision of unit `u`: the tail expression (Rust) or `return` (C) of a block.
    fn decide(&mut self, u: usize) {
        let rows = self.spec.units[u].rows.len();
        let classes = self.spec.units[u].classes.clone();
        if rows == 1 {
            let s = self.score(u, 0);
            let _ = match self.lang {
                Lang::Rust => {
                    writeln!(self.out, "    if {s} > 0 {{ {} }} else {{ {} }}", classes[1], classes[0])
                }
                Lang::C => writeln!(self.out, "    return {s} > 0 ? {} : {};", classes[1], classes[0]),
            };
            return;
        }
        let wide = self.wide(u);
        let scores: Vec<String> = (0..rows).map(|o| self.score(u, o)).collect();
        match self.lang {
            Lang::Rust => {
                let ty = if wide { "i64" } else { "i32" };
                let _ = writeln!(self.out, "    let mut best: {ty} = {};", scores[0]);
                let _ = writeln!(self.out, "    let mut class: usize = {};", classes[0]);
                for (o, s) in scores.iter().enumerate().skip(1) {
                    let _ = writeln!(self.out, "    let s: {ty} = {s};");
                    let _ = writeln!(
                        self.out,
                        "    if s > best {{\n        best = s;\n        class = {};\n    }}",
                        classes[o]
                    );
                }
                let _ = writeln!(self.out, "    let _ = best;\n    class");
            }
            Lang::C => {
                let ty = if wide { "int64_t" } else { "int32_t" };
                let _ =
                    writeln!(self.out, "    {ty} best = {};\n    int32_t cls = {};", scores[0], classes[0]);
                for (o, s) in scores.iter().enumerate().skip(1) {
                    let _ = writeln!(
                        self.out,
                        "    {{\n        {ty} s = {s};\n        if (s > best) {{\n            best = s;\n            cls = {};\n        }}\n    }}",
                        classes[o]
                    );
                }
                let _ = writeln!(self.out, "    (void)best;\n    return cls;");
            }
        }
    }

    fn tree_node(&mut self, i: usize, node: &Node, shared: bool) {
        let c = self.lang == Lang::C;
        let _ = if c {
            writeln!(self.out, "\nstatic inline int32_t node_{i}(const int32_t *x)\n{{")
        } else {
            writeln!(
                self.out,
                "\n{}#[allow(clippy::all)]\nfn node_{i}<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize {{",
                if shared { "" } else { "#[inline]\n" }
            )
        };
        match node {
            Node::Class(class) => {
                let _ = if c {
                    writeln!(self.out, "    (void)x;\n    return {class};")
                } else {
                    writeln!(self.out, "    let _ = x;\n    {class}")
                };
            }
            Node::Unit(u) if self.streams() => {
                self.decide_machine(*u);
            }
            Node::Unit(u) => {
                let mut have = Vec::new();
                self.features_for(&[*u], &mut have);
                self.decide(*u);
            }
            Node::Categorical { attr, children, default } => {
                // Values that go where the default goes need no test of their own; the others
                // are grouped by child, in order of their first value. A FRINGE tree's node
                // usually singles out one value, so this is one compare where a `switch` over
                // every value costs a table or a chain (car `fringe` in C: 1,368 → 1,034 B).
                let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
                for (v, &child) in children.iter().enumerate().filter(|&(_, &ch)| ch != *default) {
                    match groups.iter_mut().find(|(ch, _)| *ch == child) {
                        Some((_, values)) => values.push(v),
                        None => groups.push((child, vec![v])),
                    }
                }
                if c {
                    for (child, values) in &groups {
                        let test: Vec<String> = values.iter().map(|v| format!("x[{attr}] == {v}")).collect();
                        let _ = writeln!(self.out, "    if ({}) return node_{child}(x);", test.join(" || "));
                    }
                    let _ = writeln!(self.out, "    return node_{default}(x);");
                } else {
                    let _ = writeln!(self.out, "    match v(x[{attr}]) {{");
                    for (child, values) in &groups {
                        let pattern: Vec<String> = values.iter().map(usize::to_string).collect();
                        let _ = writeln!(self.out, "        {} => node_{child}(x),", pattern.join(" | "));
                    }
                    let _ = writeln!(self.out, "        _ => node_{default}(x),\n    }}");
                }
            }
            Node::Threshold { attr, threshold, left, right } => {
                let t = self.lit(i64::from(*threshold), false);
                let _ = if c {
                    writeln!(self.out, "    return x[{attr}] <= {t} ? node_{left}(x) : node_{right}(x);")
                } else {
                    writeln!(
                        self.out,
                        "    if v(x[{attr}]) <= {t} {{ node_{left}(x) }} else {{ node_{right}(x) }}"
                    )
                };
            }
            Node::UnitSplit { unit, left, right } => {
                let mut have = Vec::new();
                self.features_for(&[*unit], &mut have);
                let s = self.score(*unit, 0);
                let _ = if c {
                    writeln!(self.out, "    return {s} <= 0 ? node_{left}(x) : node_{right}(x);")
                } else {
                    writeln!(self.out, "    if {s} <= 0 {{ node_{left}(x) }} else {{ node_{right}(x) }}")
                };
            }
        }
        self.out.push_str("}\n");
    }
}
