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
//! What the code does, per structure:
//! - every feature is computed at most once per prediction, and only where it is needed: in the
//!   leaf that reads it, or before the first list entry that reads it;
//! - a unit's `±1` equality features over one categorical input are summed by one `match` on the
//!   input (`Σ_v w_v·(x = v ? 1 : −1)` is a per-value constant), not one multiply per value;
//! - zero weights are dropped; tree nodes are functions the compiler inlines or shares.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{Feature, LiteralOp, ModelSpec, Node, Structure, Unit};

/// The language of the generated source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// A Rust module: `pub fn predict<T: Copy + Into<i32>>(x: &[T; N_INPUTS]) -> usize`.
    Rust,
    /// A C99 translation unit: `int32_t ltu_predict(const int32_t *x)` (declared in its header
    /// comment), with `LTU_N_INPUTS` and `LTU_N_CLASSES`.
    C,
}

/// The model as a Rust module (see the module docs). `about` becomes part of its header comment
/// (for example the model file's name).
pub fn rust_source(spec: &ModelSpec, about: &str) -> String {
    source(spec, about, Lang::Rust)
}

/// The model as C99 source: `int32_t ltu_predict(const int32_t *x)` over `LTU_N_INPUTS` raw
/// inputs, with the same guarantees as [`rust_source`]. It relies on two's complement integers
/// with an arithmetic right shift, as every compiler for microcontrollers provides; a compile-time
/// check stops the build where that does not hold.
pub fn c_source(spec: &ModelSpec, about: &str) -> String {
    source(spec, about, Lang::C)
}

/// The model as source in `lang`.
pub fn source(spec: &ModelSpec, about: &str, lang: Lang) -> String {
    let mut g = Gen { spec, lang, out: String::new(), helpers: String::new(), n_helpers: 0 };
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
    let code = std::mem::take(&mut g.out);
    g.header(about);
    g.out.push_str(&g.helpers.clone());
    g.out.push_str(&code);
    g.out
}

struct Gen<'a> {
    spec: &'a ModelSpec,
    lang: Lang,
    out: String,
    /// C only: one function per categorical group of a unit row (the `match` of the Rust code).
    helpers: String,
    n_helpers: usize,
}

impl Gen<'_> {
    fn header(&mut self, about: &str) {
        let stats = self.spec.stats();
        let summary = format!(
            "{} classes, {} inputs, {} units, {} non-zero weights, at most {} multiply-accumulates.",
            self.spec.n_classes,
            self.spec.inputs.len(),
            stats.ltus,
            stats.weights_nonzero,
            stats.max_macs
        );
        let version = env!("CARGO_PKG_VERSION");
        let (n_in, n_cls) = (self.spec.inputs.len(), self.spec.n_classes);
        match self.lang {
            Lang::Rust => {
                let _ = writeln!(
                    self.out,
                    "// Generated by ltu {version} (`ltu codegen`) from {about}: do not edit.\n\
                     // {summary}\n\
                     // `predict` returns exactly what ltu_runtime::Model::predict returns for the same raw inputs.\n\n\
                     /// Raw inputs `predict` reads (categorical inputs are value indices).\n\
                     pub const N_INPUTS: usize = {n_in};\n\
                     /// Classes; `predict` returns an index below this.\n\
                     #[allow(dead_code)]\n\
                     pub const N_CLASSES: usize = {n_cls};\n"
                );
                self.out.push_str(
                    "/// `clamp(((x - offset) * mul) >> shift, -max, max)`: a numeric input in the unit's scale.\n\
                     #[inline(always)]\n\
                     #[allow(dead_code, clippy::all)]\n\
                     fn q(x: i32, offset: i32, mul: i32, shift: u32, max: i32) -> i32 {\n    \
                     let d = x as i64 - offset as i64;\n    \
                     // Without a 32x32->64 multiply (ARMv6-M, the Arm target without compare-and-swap), take\n    \
                     // 32 bits where |d| <= 65535 and |mul| <= 32768 make the product fit: |product| < 2^31,\n    \
                     // so shifting by 31 at most is exact.\n    \
                     let armv6m = cfg!(all(target_arch = \"arm\", not(target_has_atomic = \"32\")));\n    \
                     let v = if armv6m && (-65535..=65535).contains(&d) {\n        \
                     ((d as i32 * mul) >> shift.min(31)) as i64\n    } else {\n        (d * mul as i64) >> shift\n    };\n    \
                     if v > max as i64 {\n        max\n    } else if v < -(max as i64) {\n        -max\n    } else {\n        v as i32\n    }\n}\n\n\
                     /// One raw input as `i32`.\n\
                     #[inline(always)]\n\
                     fn v<T: Into<i32>>(x: T) -> i32 {\n    x.into()\n}\n\n",
                );
            }
            Lang::C => {
                let _ = writeln!(
                    self.out,
                    "/* Generated by ltu {version} (`ltu codegen --lang c`) from {about}: do not edit.\n \
                     * {summary}\n \
                     * ltu_predict returns exactly what ltu_runtime::Model::predict returns for the same raw\n \
                     * inputs (categorical inputs are value indices). Declare it where you call it:\n \
                     *     int32_t ltu_predict(const int32_t *x);  // x: LTU_N_INPUTS raw inputs\n \
                     */\n\
                     #include <stdint.h>\n\n\
                     #define LTU_N_INPUTS {n_in}\n\
                     #define LTU_N_CLASSES {n_cls}\n\n\
                     int32_t ltu_predict(const int32_t *x);\n"
                );
                self.out.push_str(
                    "/* The generated code relies on what every C compiler for microcontrollers does (and C23\n \
                     * requires of the representation): two's complement integers and an arithmetic right shift of\n \
                     * negative values. This line stops the build where that does not hold. */\n\
                     typedef char ltu_arithmetic_shift_check[((-8 >> 1) == -4 && (-1 >> 1) == -1) ? 1 : -1];\n\n\
                     /* clamp(((x - offset) * mul) >> shift, -max, max): a numeric input in the unit's scale. */\n\
                     static inline int32_t ltu_q(int32_t x, int32_t offset, int32_t mul, unsigned shift, int32_t max)\n{\n    \
                     int64_t d = (int64_t)x - offset;\n\
                     #if defined(__ARM_ARCH_6M__) /* no 32x32->64 multiply: 32 bits where the product fits */\n    \
                     if (d >= -65535 && d <= 65535) {\n        \
                     int32_t v = ((int32_t)d * mul) >> (shift < 31 ? shift : 31); /* |product| < 2^31 */\n        \
                     return v > max ? max : v < -max ? -max : v;\n    }\n\
                     #endif\n    \
                     int64_t v = (d * mul) >> shift;\n    \
                     return v > max ? max : v < -(int64_t)max ? -max : (int32_t)v;\n}\n\n",
                );
            }
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
    /// A numeric feature (C) as comparisons of the raw input with the two inputs where the
    /// clamp starts ([`Clamped`]) and, between them, `((x - offset) * mul) >> shift` in 32 bits,
    /// which cannot overflow there. `general` (the full transform) is used where that is not
    /// proven.
    fn clamped_expr(&self, attr: usize, c: &Clamped, general: &str) -> String {
        let x = self.input(attr);
        let middle = if c.exact_middle {
            format!(
                "(({x} - {}) * {}) >> {}",
                self.lit(i64::from(c.offset), false),
                self.lit(i64::from(c.mul), false),
                c.shift
            )
        } else {
            general.to_string()
        };
        let (at_max, at_min) = if c.mul > 0 { (">=", "<=") } else { ("<=", ">=") };
        let mut e = String::from("(");
        if let Some(t) = c.to_max {
            let _ = write!(e, "{x} {at_max} {} ? {} : ", self.lit(i64::from(t), false), c.max);
        }
        if let Some(t) = c.to_min {
            let _ = write!(e, "{x} {at_min} {} ? {} : ", self.lit(i64::from(t), false), -i64::from(c.max));
        }
        let _ = write!(e, "({middle}))");
        e
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

    /// Emits the decision of unit `u` streaming its features: one accumulator per row starts at
    /// its bias, and each feature is computed in its own block and added to
    /// every row that weighs it. Only the accumulators stay live, not every feature value: a
    /// machine of many terms no longer spills them all to the stack. Any order of the partial
    /// sums stays within the bound [`Gen::wide`] proves.
    fn decide_machine(&mut self, u: usize) {
        let unit = &self.spec.units[u];
        let (rows, n_terms) = (unit.rows.len(), unit.terms.len());
        let classes = unit.classes.clone();
        let wide = self.wide(u);
        let c = self.lang == Lang::C;
        let ty = match (c, wide) {
            (false, false) => "i32",
            (false, true) => "i64",
            (true, false) => "int32_t",
            (true, true) => "int64_t",
        };
        // Per single feature, each row's weight (repeated terms added up).
        let singles = self.singles(u);
        let weights: Vec<Vec<i64>> = singles
            .iter()
            .map(|&t| {
                (0..rows)
                    .map(|o| (0..n_terms).filter(|&j| unit.terms[j] == t).map(|j| unit.rows[o][j]).sum())
                    .collect()
            })
            .collect();
        let groups: Vec<Vec<String>> = (0..rows).map(|o| self.group_parts(u, o)).collect();
        let unit = &self.spec.units[u];
        for o in 0..rows {
            let bias = self.lit(unit.rows[o][n_terms], wide);
            let constant = groups[o].is_empty() && weights.iter().all(|w| w[o] == 0);
            let _ = if c {
                writeln!(self.out, "    {ty} a{o} = {bias};")
            } else if constant {
                writeln!(self.out, "    let a{o}: {ty} = {bias};")
            } else {
                writeln!(self.out, "    let mut a{o}: {ty} = {bias};")
            };
        }
        let f = match (c, wide) {
            (_, false) => "f".to_string(),
            (false, true) => "f as i64".to_string(),
            (true, true) => "(int64_t)f".to_string(),
        };
        for (&t, w) in singles.iter().zip(&weights) {
            let expr = self.feature_expr(&self.spec.features[t]);
            let _ = if c {
                writeln!(self.out, "    {{\n        const int32_t f = {expr};")
            } else {
                writeln!(self.out, "    {{\n        let f: i32 = {expr};")
            };
            for (o, &wo) in w.iter().enumerate() {
                let _ = match wo {
                    0 => Ok(()),
                    1 => writeln!(self.out, "        a{o} += {f};"),
                    -1 => writeln!(self.out, "        a{o} -= {f};"),
                    _ => writeln!(self.out, "        a{o} += {} * {f};", self.lit(wo, wide)),
                };
            }
            self.out.push_str("    }\n");
        }
        for (o, parts) in groups.iter().enumerate() {
            for p in parts {
                // A Rust `match` term comes parenthesised for a sum; alone it needs none.
                let p = p
                    .strip_prefix("(match ")
                    .and_then(|m| m.strip_suffix(')'))
                    .map_or(p.clone(), |m| format!("match {m}"));
                let _ = writeln!(self.out, "    a{o} += {p};");
            }
        }
        if rows == 1 {
            // A binary unit: its score's sign decides.
            let _ = if c {
                writeln!(self.out, "    return a0 > 0 ? {} : {};", classes[1], classes[0])
            } else {
                writeln!(self.out, "    if a0 > 0 {{ {} }} else {{ {} }}", classes[1], classes[0])
            };
            return;
        }
        if c {
            let _ = writeln!(self.out, "    {ty} best = a0;\n    int32_t cls = {};", classes[0]);
            for (o, class) in classes.iter().enumerate().take(rows).skip(1) {
                let _ = writeln!(
                    self.out,
                    "    if (a{o} > best) {{\n        best = a{o};\n        cls = {class};\n    }}"
                );
            }
            let _ = writeln!(self.out, "    (void)best;\n    return cls;");
        } else {
            let _ = writeln!(
                self.out,
                "    let mut best: {ty} = a0;\n    let mut class: usize = {};",
                classes[0]
            );
            for (o, class) in classes.iter().enumerate().take(rows).skip(1) {
                let _ = writeln!(
                    self.out,
                    "    if a{o} > best {{\n        best = a{o};\n        class = {class};\n    }}"
                );
            }
            let _ = writeln!(self.out, "    let _ = best;\n    class");
        }
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

/// A numeric feature `clamp(((x - offset) * mul) >> shift, -max, max)` seen as a function of the
/// raw `i32` input `x`: it is monotone in `x`, so it equals `max` on one side of an input
/// `to_max` and `-max` beyond an input `to_min` on the other, and between them it is the
/// unclamped value, where the arithmetic may fit 32 bits. Generated C then compares the raw
/// input twice and, between, multiplies and shifts in 32 bits instead of the 64-bit product,
/// shift and clamp (breast-cancer's `ptree` in C: 173 → 108 instructions per prediction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Clamped {
    offset: i32,
    mul: i32,
    shift: u8,
    max: i32,
    /// The input from which on (`mul > 0`: `x >= to_max`; `mul < 0`: `x <= to_max`) the value
    /// is `max`; `None` if no `i32` input reaches it.
    to_max: Option<i32>,
    /// Likewise for `-max` (`mul > 0`: `x <= to_min`; `mul < 0`: `x >= to_min`).
    to_min: Option<i32>,
    /// Between the two, `x - offset` and `(x - offset) * mul` fit `i32` and `shift < 32`, so
    /// `((x - offset) * mul) >> shift` in 32 bits is the exact value.
    exact_middle: bool,
}

impl Clamped {
    /// The feature's value for `x`, exactly as [`Feature::value`] computes it.
    fn value(offset: i32, mul: i32, shift: u8, max: i32, x: i64) -> i64 {
        (((x - i64::from(offset)) * i64::from(mul)) >> shift).clamp(-i64::from(max), i64::from(max))
    }

    /// `None` for `mul == 0` (left to the general transform, which the compiler folds).
    fn of(offset: i32, mul: i16, shift: u8, max_abs: u16) -> Option<Clamped> {
        let (mul, max) = (i32::from(mul), i32::from(max_abs));
        if mul == 0 {
            return None;
        }
        let f = |x: i64| Clamped::value(offset, mul, shift, max, x);
        let (lo, hi) = (i64::from(i32::MIN), i64::from(i32::MAX));
        // The first input in `lo..=hi` where `pred` holds, `pred` false then true.
        let first = |pred: &dyn Fn(i64) -> bool| -> Option<i64> {
            if !pred(hi) {
                return None;
            }
            let (mut a, mut b) = (lo, hi);
            while a < b {
                let mid = a + (b - a) / 2;
                if pred(mid) {
                    b = mid;
                } else {
                    a = mid + 1;
                }
            }
            Some(a)
        };
        // The last input where `pred` holds, `pred` true then false.
        let last =
            |pred: &dyn Fn(i64) -> bool| first(&|x| !pred(x)).map_or(Some(hi), |x| (x > lo).then(|| x - 1));
        let m = i64::from(max);
        let (to_max, to_min) = if mul > 0 {
            (first(&|x| f(x) >= m), last(&|x| f(x) <= -m))
        } else {
            (last(&|x| f(x) >= m), first(&|x| f(x) <= -m))
        };
        // The middle inputs: strictly between the two (or the ends of `i32`).
        let (a, b) = if mul > 0 {
            (to_min.map_or(lo, |t| t + 1), to_max.map_or(hi, |t| t - 1))
        } else {
            (to_max.map_or(lo, |t| t + 1), to_min.map_or(hi, |t| t - 1))
        };
        let fits = |v: i64| i64::from(i32::MIN) <= v && v <= i64::from(i32::MAX);
        let exact_middle = shift < 32
            && (a > b
                || [a, b].iter().all(|&x| {
                    let d = x - i64::from(offset);
                    fits(d) && fits(d * i64::from(mul))
                }));
        let narrow = |t: Option<i64>| t.map(|t| i32::try_from(t).expect("an input in i32"));
        Some(Clamped {
            offset,
            mul,
            shift,
            max,
            to_max: narrow(to_max),
            to_min: narrow(to_min),
            exact_middle,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Clamped;

    /// Every input near the two clamp points and the ends of `i32`, and a sweep between, gets
    /// the feature's exact value from the comparisons and the 32-bit middle.
    #[test]
    fn clamped_transform_is_the_feature_value() {
        let cases: [(i32, i16, u8, u16); 7] = [
            (5, 29127, 12, 32),
            (-300, -1200, 4, 1024),
            (0, 1, 0, 32767),
            (i32::MAX, 32767, 0, 1),
            (i32::MIN, -32768, 32, 32767),
            (1000, 32767, 31, 5),
            (0, -1, 0, 32767),
        ];
        for (offset, mul, shift, max_abs) in cases {
            let c = Clamped::of(offset, mul, shift, max_abs).expect("mul is not 0");
            let eval = |x: i32| -> i64 {
                let max = i64::from(c.max);
                let (ge_max, le_min) = if c.mul > 0 {
                    (c.to_max.is_some_and(|t| x >= t), c.to_min.is_some_and(|t| x <= t))
                } else {
                    (c.to_max.is_some_and(|t| x <= t), c.to_min.is_some_and(|t| x >= t))
                };
                if ge_max {
                    max
                } else if le_min {
                    -max
                } else if c.exact_middle {
                    i64::from(x.wrapping_sub(c.offset).wrapping_mul(c.mul) >> c.shift)
                } else {
                    Clamped::value(offset, c.mul, shift, c.max, i64::from(x))
                }
            };
            let mut xs: Vec<i64> = vec![i64::from(i32::MIN), i64::from(i32::MAX), 0, i64::from(offset)];
            for t in [c.to_max, c.to_min].into_iter().flatten() {
                xs.extend((-3..=3).map(|d| i64::from(t) + d));
            }
            xs.extend((-2000..=2000).map(|k| i64::from(offset) + k * 7));
            for x in xs.into_iter().filter(|x| (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(x)) {
                let x = x as i32;
                let want = Clamped::value(offset, c.mul, shift, c.max, i64::from(x));
                assert_eq!(eval(x), want, "{c:?} at {x}");
            }
        }
    }
}
