//! `ltu inspect`: structure, sizes and cost, as text, JSON or Graphviz.

use std::fmt::{self, Write as _};
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use ltu::model::{Feature, InputKind, LiteralOp, ModelSpec, Node, Stats, Structure};

use super::load::LoadedModel;

/// Result of `ltu inspect`.
#[derive(Debug, Serialize)]
pub struct InspectReport {
    /// Model file.
    pub model: String,
    /// File size.
    pub model_bytes: usize,
    /// tree, list or linear.
    pub structure: String,
    /// Weight representation (`none` for a model without units).
    pub weights: String,
    /// Raw inputs.
    pub n_inputs: usize,
    /// Features units read.
    pub n_features: usize,
    /// Classes.
    pub n_classes: usize,
    /// Size figures.
    #[serde(flatten)]
    pub stats: Stats,
    /// Bytes of each table of the file, by table name, in file order.
    #[serde(serialize_with = "as_map")]
    pub table_bytes: Vec<(String, usize)>,
    /// Whether the file has a host block (absent in a model trained with `--strip`).
    pub host_block: bool,
    /// Bytes of RAM on-device learning needs for this model (`Learner::ram_needed`: its weight
    /// table).
    pub learn_ram_bytes: usize,
    /// Units on-device learning corrects ([`ModelSpec::learnable_units`]).
    pub learnable_units: usize,
    /// The `ltu-runtime` cargo features a firmware needs for this model
    /// ([`ltu_runtime::Model::features_needed`]).
    pub runtime_features: Vec<&'static str>,
    /// The metadata of the host block (`ltu`, `algo`, `seed`, `options`, `data`, `rows`,
    /// `data_fnv1a64` from `ltu train`), by key, in file order; empty if there is none.
    #[serde(serialize_with = "as_str_map")]
    pub metadata: Vec<(String, String)>,
    /// Class names (`class k` when the model has no names), by class index.
    pub classes: Vec<String>,
    /// How each raw input is encoded: `index` (its position in `Model::predict`'s slice),
    /// `name`, `kind`; numeric: `scale_exp` and `offset` (a value `v` is the raw input
    /// `round(v * 10^scale_exp) - offset`) and `raw`, that formula in words; categorical: `values` (the code of a value is its position); and `missing_raw`,
    /// the raw value the trainer substitutes for a missing one, with `missing` its meaning.
    pub inputs: Vec<serde_json::Value>,
    /// The units: each row's classes, named terms with their stored weights, and bias.
    pub units: Vec<serde_json::Value>,
    /// The arrangement: tree nodes (by id, children by id), list entries, or the linear unit.
    pub layout: serde_json::Value,
    /// The sensor pipeline, if the model computes its inputs from raw samples: `window` and
    /// `hop` (samples; window 0 is the whole recording), the `recording` column of the long
    /// layout, the `channels` with their `scale_exp`, and the `inputs` by name in input order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<serde_json::Value>,
    /// Human-readable rendering of the model.
    #[serde(skip)]
    pub text: String,
}

/// The JSON description of a pipeline ([`InspectReport::pipeline`]).
fn describe_pipeline(p: &ltu::model::Pipeline) -> serde_json::Value {
    serde_json::json!({
        "window": p.window,
        "hop": p.hop,
        "recording": p.recording,
        "channels": p.channels.iter().map(|c| serde_json::json!({"name": c.name, "scale_exp": c.scale_exp})).collect::<Vec<_>>(),
        "inputs": p.features.iter().map(|f| ltu::data::recordings::feature_name(p, f)).collect::<Vec<_>>(),
    })
}

fn as_str_map<S: serde::Serializer>(
    pairs: &[(String, String)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

pub(crate) fn as_map<S: serde::Serializer>(
    pairs: &[(String, usize)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

/// The JSON description of a model's inputs, units and layout.
pub(crate) fn describe_model(
    spec: &ModelSpec,
) -> (Vec<String>, Vec<serde_json::Value>, Vec<serde_json::Value>, serde_json::Value) {
    use serde_json::json;
    let n = Namer { spec };
    let classes: Vec<String> = (0..spec.n_classes).map(|c| n.class(c)).collect();
    let inputs = spec
        .inputs
        .iter()
        .enumerate()
        .map(|(i, inp)| match inp.kind {
            InputKind::Numeric { scale_exp, offset } => json!({
                "index": i, "name": n.input(i), "kind": "numeric", "scale_exp": scale_exp, "offset": offset,
                "raw": ltu::data::encode::formula(&n.input(i), scale_exp, offset),
                "missing_raw": inp.missing, "missing": n.number(i, inp.missing),
            }),
            InputKind::Categorical { n_values } => {
                let values: Vec<String> = (0..i32::from(n_values)).map(|v| n.value(i, v)).collect();
                json!({
                    "index": i, "name": n.input(i), "kind": "categorical", "values": values,
                    "missing_raw": inp.missing,
                    "missing": if (0..i32::from(n_values)).contains(&inp.missing) { n.value(i, inp.missing) } else { "(unknown value)".to_string() },
                })
            }
        })
        .collect();
    let units = spec
        .units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            let rows: Vec<serde_json::Value> = unit
                .rows
                .iter()
                .map(|row| {
                    let terms: Vec<serde_json::Value> = unit
                        .terms
                        .iter()
                        .zip(row)
                        .map(|(&t, &w)| json!({ "feature": n.feature(t), "weight": w }))
                        .collect();
                    json!({ "terms": terms, "bias": row[unit.terms.len()] })
                })
                .collect();
            let unit_classes: Vec<String> = unit.classes.iter().map(|&c| n.class(c)).collect();
            json!({ "index": u, "kind": if unit.rows.len() == 1 { "binary" } else { "machine" },
                    "classes": unit_classes, "rows": rows })
        })
        .collect();
    let layout = match &spec.structure {
        Structure::Linear(u) => json!({ "linear": { "unit": u } }),
        Structure::List { entries, default } => json!({ "list": {
            "entries": entries.iter().map(|&(u, c)| json!({ "unit": u, "class": n.class(c) })).collect::<Vec<_>>(),
            "default": n.class(*default),
        }}),
        Structure::Tree(nodes) => {
            let nodes: Vec<serde_json::Value> = nodes
                .iter()
                .enumerate()
                .map(|(id, node)| match node {
                    Node::Class(c) => json!({ "id": id, "leaf": n.class(*c) }),
                    Node::Unit(u) => json!({ "id": id, "unit": u }),
                    Node::Categorical { attr, children, default } => json!({
                        "id": id, "split": n.input(*attr),
                        "children": children.iter().enumerate()
                            .map(|(v, &c)| json!({ "value": n.value(*attr, v as i32), "node": c }))
                            .collect::<Vec<_>>(),
                        "unknown": default,
                    }),
                    Node::Threshold { attr, threshold, left, right } => json!({
                        "id": id, "split": n.input(*attr), "threshold": n.number(*attr, *threshold),
                        "threshold_raw": threshold, "le": left, "gt": right,
                    }),
                    Node::UnitSplit { unit, left, right } => json!({
                        "id": id, "split_unit": unit, "le": left, "gt": right,
                    }),
                })
                .collect();
            json!({ "tree": nodes })
        }
    };
    (classes, inputs, units, layout)
}

impl fmt::Display for InspectReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A model without units (a tree of tests) stores no weight, whatever its weight kind says.
        let weights = if self.weights == "none" { "no".to_string() } else { self.weights.clone() };
        writeln!(
            f,
            "{}: {} model, {} bytes, {weights} weights",
            self.model, self.structure, self.model_bytes
        )?;
        writeln!(f, "inputs {}, features {}, classes {}", self.n_inputs, self.n_features, self.n_classes)?;
        writeln!(
            f,
            "{} decision nodes, {} leaves, {} LTUs, {} non-zero weights, worst case {} multiply-accumulates, depth {} (nodes on the longest path, leaf included)",
            self.stats.decision_nodes,
            self.stats.leaves,
            self.stats.ltus,
            self.stats.weights_nonzero,
            self.stats.max_macs,
            self.stats.max_depth
        )?;
        let tables: Vec<String> = self.table_bytes.iter().map(|(n, b)| format!("{n} {b}")).collect();
        writeln!(f, "bytes by table: {}", tables.join(", "))?;
        if !self.host_block {
            writeln!(f, "no host block (stripped): no names, input scales or metadata")?;
        }
        if let Some(p) = &self.pipeline {
            let window = match p["window"].as_u64() {
                Some(0) | None => "the whole recording".to_string(),
                Some(w) => format!("{w} samples every {} samples", p["hop"]),
            };
            let channels: Vec<String> = p["channels"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| format!("{} (x 10^{})", c["name"].as_str().unwrap_or("?"), c["scale_exp"]))
                .collect();
            writeln!(
                f,
                "pipeline: windows of {window}{}; channels {}; each input is a window statistic",
                p["recording"].as_str().map_or(String::new(), |r| format!(", recordings by column `{r}`")),
                channels.join(", ")
            )?;
        }
        if self.learnable_units == 0 {
            writeln!(f, "on-device learning: nothing to learn (no leaf unit, list entry or linear unit)")?;
        } else {
            writeln!(
                f,
                "on-device learning (feature \"learn\"): {} bytes of RAM for the weights; {} {}",
                self.learn_ram_bytes,
                self.learnable_units,
                if self.learnable_units == 1 { "unit learns" } else { "units learn" }
            )?;
        }
        let features: Vec<String> = self.runtime_features.iter().map(|f| format!("\"{f}\"")).collect();
        writeln!(
            f,
            "runtime features it needs: ltu-runtime = {{ default-features = false, features = [{}] }} (add \"host\" to read names)",
            features.join(", ")
        )?;
        for (k, v) in &self.metadata {
            writeln!(f, "{k}: {v}")?;
        }
        write!(f, "{}", self.text)
    }
}

/// Names for rendering a model to people.
pub(crate) struct Namer<'a> {
    spec: &'a ModelSpec,
}

impl Namer<'_> {
    fn input(&self, i: usize) -> String {
        self.spec.names.as_ref().and_then(|n| n.inputs.get(i).cloned()).unwrap_or_else(|| format!("x{i}"))
    }
    fn value(&self, i: usize, v: i32) -> String {
        let named =
            usize::try_from(v).ok().and_then(|v| self.spec.names.as_ref()?.values.get(i)?.get(v).cloned());
        named.unwrap_or_else(|| v.to_string())
    }
    /// A raw threshold of input `i` in the data's own units.
    fn number(&self, i: usize, raw: i32) -> String {
        match self.spec.inputs.get(i).map(|s| s.kind) {
            Some(InputKind::Numeric { scale_exp, offset }) => {
                format!("{}", ltu::data::encode::from_raw(raw, scale_exp, offset))
            }
            _ => raw.to_string(),
        }
    }
    fn class(&self, c: usize) -> String {
        self.spec
            .names
            .as_ref()
            .and_then(|n| n.classes.get(c).cloned())
            .unwrap_or_else(|| format!("class {c}"))
    }
    fn feature(&self, f: usize) -> String {
        match &self.spec.features[f] {
            Feature::Numeric { attr, .. } => self.input(*attr),
            Feature::Equals { attr, value } => format!("{}={}", self.input(*attr), self.value(*attr, *value)),
            Feature::Greater { attr, value } => {
                format!("{}>{}", self.input(*attr), self.number(*attr, *value))
            }
            Feature::Conjunction(lits) => lits
                .iter()
                .map(|l| {
                    let (op, v) = match l.op {
                        LiteralOp::Eq => ("=", self.value(l.attr, l.value)),
                        LiteralOp::Ne => ("!=", self.value(l.attr, l.value)),
                        LiteralOp::Gt => (">", self.number(l.attr, l.value)),
                        LiteralOp::Le => ("<=", self.number(l.attr, l.value)),
                    };
                    format!("{}{op}{v}", self.input(l.attr))
                })
                .collect::<Vec<_>>()
                .join(" & "),
        }
    }
    /// `w1*f1 + w2*f2 ... + b` with zero terms left out.
    fn row(&self, unit: usize, o: usize) -> String {
        let u = &self.spec.units[unit];
        let row = &u.rows[o];
        let mut s = String::new();
        for (j, &t) in u.terms.iter().enumerate() {
            if row[j] != 0 {
                let _ = write!(s, "{:+}·[{}] ", row[j], self.feature(t));
            }
        }
        let _ = write!(s, "{:+}", row[u.terms.len()]);
        s
    }
    fn unit(&self, unit: usize, indent: &str) -> String {
        let u = &self.spec.units[unit];
        if u.rows.len() == 1 {
            format!(
                "{indent}{} if {} > 0 else {}",
                self.class(u.classes[1]),
                self.row(unit, 0),
                self.class(u.classes[0])
            )
        } else {
            (0..u.rows.len())
                .map(|o| format!("{indent}score {}: {}", self.class(u.classes[o]), self.row(unit, o)))
                .collect::<Vec<_>>()
                .join("\n")
        }
    }
}

pub(crate) fn render_text(spec: &ModelSpec) -> String {
    let n = Namer { spec };
    let mut out = String::new();
    match &spec.structure {
        Structure::Linear(u) => out = n.unit(*u, "  "),
        Structure::List { entries, default } => {
            for (i, &(u, c)) in entries.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  {}if {} > 0 then {}",
                    if i == 0 { "" } else { "else " },
                    n.row(u, 0),
                    n.class(c)
                );
            }
            let _ = write!(out, "  else {}", n.class(*default));
        }
        Structure::Tree(nodes) => {
            // Every line names its node (`#3`), so `same as #3` can be found. A node several
            // links reach (a FRINGE chain's shared exit) is printed once, where it is first
            // reached; later links say `same as #i`, so the text grows with the nodes, not paths.
            fn walk(
                n: &Namer<'_>,
                nodes: &[Node],
                i: usize,
                depth: usize,
                seen: &mut [bool],
                out: &mut String,
            ) {
                let pad = "  ".repeat(depth + 1);
                if std::mem::replace(&mut seen[i], true) && !matches!(nodes[i], Node::Class(_)) {
                    let _ = writeln!(out, "{pad}→ same as #{i}");
                    return;
                }
                match &nodes[i] {
                    Node::Class(c) => {
                        let _ = writeln!(out, "{pad}#{i} → {}", n.class(*c));
                    }
                    Node::Unit(u) => {
                        let _ = writeln!(out, "{}", n.unit(*u, &format!("{pad}#{i} → ")));
                    }
                    Node::Categorical { attr, children, default } => {
                        // Values that lead to the same child share one line.
                        let mut groups: Vec<(usize, Vec<String>)> = Vec::new();
                        for (v, &c) in children.iter().enumerate() {
                            let name = n.value(*attr, v as i32);
                            match groups.iter_mut().find(|(g, _)| *g == c) {
                                Some((_, names)) => names.push(name),
                                None => groups.push((c, vec![name])),
                            }
                        }
                        for (c, names) in groups {
                            let _ = writeln!(out, "{pad}#{i} {} = {}:", n.input(*attr), names.join(", "));
                            walk(n, nodes, c, depth + 1, seen, out);
                        }
                        let _ = writeln!(out, "{pad}#{i} {} unknown: same as #{default}", n.input(*attr));
                    }
                    Node::Threshold { attr, threshold, left, right } => {
                        let t = n.number(*attr, *threshold);
                        let _ = writeln!(out, "{pad}#{i} {} <= {t}:", n.input(*attr));
                        walk(n, nodes, *left, depth + 1, seen, out);
                        let _ = writeln!(out, "{pad}#{i} {} > {t}:", n.input(*attr));
                        walk(n, nodes, *right, depth + 1, seen, out);
                    }
                    Node::UnitSplit { unit, left, right } => {
                        let _ = writeln!(out, "{pad}#{i} {} <= 0:", n.row(*unit, 0));
                        walk(n, nodes, *left, depth + 1, seen, out);
                        let _ = writeln!(out, "{pad}#{i} {} > 0:", n.row(*unit, 0));
                        walk(n, nodes, *right, depth + 1, seen, out);
                    }
                }
            }
            let mut seen = vec![false; nodes.len()];
            walk(&n, nodes, 0, 0, &mut seen, &mut out);
            out.pop();
        }
    }
    out
}

pub(crate) fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Terms shown per unit row in a Graphviz label; the rest are in the node's tooltip.
pub(crate) const DOT_TERMS: usize = 4;

/// Fill colours of classes in Graphviz renderings (cycled).
pub(crate) const DOT_COLOURS: [&str; 8] =
    ["#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9"];

impl Namer<'_> {
    /// Row `o` of a unit with only its `k` largest-magnitude terms, each on its own line, then
    /// the bias and how many terms were left out.
    fn row_summary(&self, unit: usize, o: usize, k: usize) -> Vec<String> {
        let u = &self.spec.units[unit];
        let row = &u.rows[o];
        let mut terms: Vec<(usize, i64)> =
            u.terms.iter().zip(row).filter(|(_, &w)| w != 0).map(|(&t, &w)| (t, w)).collect();
        let total = terms.len();
        // Small units are shown whole; a line saying "2 more terms" would save nothing.
        let k = if total <= k + 2 { total } else { k };
        terms.sort_by_key(|&(t, w)| (std::cmp::Reverse(w.unsigned_abs()), t));
        let mut lines: Vec<String> =
            terms.iter().take(k).map(|&(t, w)| format!("{w:+}·[{}]", self.feature(t))).collect();
        if total > k {
            lines.push(format!("… {} more terms", total - k));
        }
        let mut lines: Vec<String> = lines.iter().map(|l| shorten(l)).collect();
        lines.push(format!("{:+}", row[u.terms.len()]));
        lines
    }

    /// A short multi-line label of a unit (see [`DOT_TERMS`]).
    fn unit_summary(&self, unit: usize) -> Vec<String> {
        let u = &self.spec.units[unit];
        if u.rows.len() == 1 {
            let mut lines = vec![format!("{} if", self.class(u.classes[1]))];
            lines.extend(self.row_summary(unit, 0, DOT_TERMS).into_iter().map(|l| format!("  {l}")));
            lines.push(format!("> 0 else {}", self.class(u.classes[0])));
            lines
        } else {
            // One line per class: its largest term, how many more, and the bias.
            let mut lines = vec!["the class of highest score:".to_string()];
            for o in 0..u.rows.len() {
                let row = &u.rows[o];
                let nonzero = u.terms.iter().zip(row).filter(|(_, &w)| w != 0);
                let top = nonzero.clone().max_by_key(|(&t, &w)| (w.unsigned_abs(), std::cmp::Reverse(t)));
                let mut line = format!("{}: ", self.class(u.classes[o]));
                if let Some((&t, &w)) = top {
                    let _ = write!(line, "{w:+}·[{}] ", self.feature(t));
                }
                let more = nonzero.count().saturating_sub(1);
                if more > 0 {
                    let _ = write!(line, "…{more} more ");
                }
                let _ = write!(line, "{:+}", row[u.terms.len()]);
                lines.push(line);
            }
            lines
        }
    }
}

/// Cuts a label line to at most 80 characters.
pub(crate) fn shorten(line: &str) -> String {
    if line.chars().count() <= 80 {
        line.to_string()
    } else {
        format!("{}…", line.chars().take(79).collect::<String>())
    }
}

/// Joins label lines for Graphviz (left-justified).
pub(crate) fn dot_lines(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{}\\l", dot_escape(&shorten(l)))).collect()
}

/// Graphviz rendering of a model: trees and lists as graphs, a linear model as one node. Every
/// node shows its id (`#3`, as in `ltu inspect`); a unit shows its largest terms, the full unit is
/// its tooltip; constant leaves and list outcomes are coloured by class.
pub fn render_dot(spec: &ModelSpec) -> String {
    let n = Namer { spec };
    let mut out = String::from(
        "digraph ltu {\n  graph [nodesep=0.25, ranksep=0.35];\n  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    let colour = |c: usize| DOT_COLOURS[c % DOT_COLOURS.len()];
    let tooltip = |u: usize| dot_escape(&n.unit(u, "")).replace('\n', "\\n");
    let unit_node = |out: &mut String, id: &str, title: &str, u: usize| {
        let mut lines = vec![title.to_string()];
        lines.extend(n.unit_summary(u));
        let _ = writeln!(out, "  {id} [label=\"{}\", tooltip=\"{}\"];", dot_lines(&lines), tooltip(u));
    };
    let class_node = |out: &mut String, id: &str, title: &str, c: usize| {
        let label = if title.is_empty() { n.class(c) } else { format!("{title}\n{}", n.class(c)) };
        let _ = writeln!(
            out,
            "  {id} [label=\"{}\", shape=ellipse, style=filled, fillcolor=\"{}\"];",
            dot_escape(&label).replace('\n', "\\n"),
            colour(c)
        );
    };
    match &spec.structure {
        Structure::Linear(u) => unit_node(&mut out, "n0", "linear unit", *u),
        Structure::List { entries, default } => {
            for (i, &(u, c)) in entries.iter().enumerate() {
                let mut lines = vec![format!("#{i}")];
                lines.extend(n.row_summary(u, 0, DOT_TERMS));
                lines.push("> 0 ?".into());
                let _ =
                    writeln!(out, "  n{i} [label=\"{}\", tooltip=\"{}\"];", dot_lines(&lines), tooltip(u));
                class_node(&mut out, &format!("c{i}"), "", c);
                let _ = writeln!(out, "  n{i} -> c{i} [label=\"yes\"];");
                let next = if i + 1 < entries.len() { format!("n{}", i + 1) } else { "d".into() };
                let _ = writeln!(out, "  n{i} -> {next} [label=\"no\"];");
            }
            class_node(&mut out, "d", "default", *default);
        }
        Structure::Tree(nodes) => {
            for (i, node) in nodes.iter().enumerate() {
                let id = format!("n{i}");
                let title = format!("#{i}");
                match node {
                    Node::Class(c) => class_node(&mut out, &id, &title, *c),
                    Node::Unit(u) => unit_node(&mut out, &id, &title, *u),
                    Node::Categorical { attr, .. } => {
                        let label = format!("{title}\n{}", n.input(*attr));
                        let _ = writeln!(
                            out,
                            "  {id} [label=\"{}\", style=rounded];",
                            dot_escape(&label).replace('\n', "\\n")
                        );
                    }
                    Node::Threshold { attr, threshold, .. } => {
                        let label = format!("{title}\n{} <= {}", n.input(*attr), n.number(*attr, *threshold));
                        let _ = writeln!(
                            out,
                            "  {id} [label=\"{}\", style=rounded];",
                            dot_escape(&label).replace('\n', "\\n")
                        );
                    }
                    Node::UnitSplit { unit, .. } => {
                        let mut lines = vec![title.clone()];
                        lines.extend(n.row_summary(*unit, 0, DOT_TERMS));
                        lines.push("<= 0 ?".into());
                        let _ = writeln!(
                            out,
                            "  {id} [label=\"{}\", style=rounded, tooltip=\"{}\"];",
                            dot_lines(&lines),
                            dot_escape(&n.row(*unit, 0))
                        );
                    }
                }
                match node {
                    Node::Categorical { attr, children, default } => {
                        for (v, c) in children.iter().enumerate() {
                            let unknown = if c == default { " (and unknown)" } else { "" };
                            let _ = writeln!(
                                out,
                                "  n{i} -> n{c} [label=\"{}{unknown}\"];",
                                dot_escape(&n.value(*attr, v as i32))
                            );
                        }
                        if !children.contains(default) {
                            let _ = writeln!(out, "  n{i} -> n{default} [label=\"unknown\", style=dashed];");
                        }
                    }
                    Node::Threshold { left, right, .. } | Node::UnitSplit { left, right, .. } => {
                        let _ = writeln!(out, "  n{i} -> n{left} [label=\"yes\"];");
                        let _ = writeln!(out, "  n{i} -> n{right} [label=\"no\"];");
                    }
                    _ => {}
                }
            }
        }
    }
    out.push_str("}\n");
    out
}

/// `ltu inspect`: structure, sizes and worst-case cost.
///
/// # Errors
/// The file cannot be read or is not a valid model.
pub fn inspect(model_path: &Path) -> Result<InspectReport> {
    let loaded = LoadedModel::open(model_path)?;
    let model = loaded.model();
    let spec = loaded.spec();
    let repr = model.repr();
    let mut table_bytes = vec![
        ("inputs".to_string(), repr.inputs.len()),
        ("scales".to_string(), repr.scales.len()),
        ("features".to_string(), repr.features.len()),
        ("literals".to_string(), repr.literals.len()),
        ("units".to_string(), repr.units.len()),
        ("terms".to_string(), repr.term_features.len()),
        ("weights".to_string(), repr.weights.len()),
        ("unit classes".to_string(), repr.unit_classes.len()),
    ];
    match repr.structure {
        ltu_runtime::format::StructureRepr::Tree { nodes, children } => {
            table_bytes.push(("nodes".into(), nodes.len()));
            table_bytes.push(("children".into(), children.len()));
        }
        ltu_runtime::format::StructureRepr::List { entries, .. } => {
            table_bytes.push(("entries".into(), entries.len()))
        }
        ltu_runtime::format::StructureRepr::Linear { .. } => {}
    }
    let host = model.host();
    table_bytes.push(("host inputs".into(), host.map_or(0, |h| h.inputs.len())));
    table_bytes.push(("names".into(), host.and_then(|h| h.names).map_or(0, str::len)));
    table_bytes.push(("metadata".into(), host.and_then(|h| h.meta).map_or(0, str::len)));
    let (classes, inputs, units, layout) = describe_model(&spec);
    Ok(InspectReport {
        model: model_path.display().to_string(),
        model_bytes: loaded.bytes.len(),
        structure: format!("{:?}", model.kind()).to_lowercase(),
        // A model without units (a tree of tests) stores no weight, whatever its kind says.
        weights: if model.n_units() == 0 {
            "none".into()
        } else {
            format!("{:?}", model.weight_kind()).to_lowercase()
        },
        n_inputs: model.n_inputs(),
        n_features: model.n_standard_features() + model.n_features(),
        n_classes: model.n_classes(),
        stats: spec.stats(),
        table_bytes,
        host_block: repr.host.is_some(),
        learn_ram_bytes: repr.weights.len(),
        learnable_units: spec.learnable_units(),
        runtime_features: model.features_needed().collect(),
        metadata: loaded.metadata(),
        classes,
        inputs,
        units,
        layout,
        pipeline: spec.pipeline.as_ref().map(describe_pipeline),
        text: render_text(&spec),
    })
}

/// `ltu inspect --dot`.
///
/// # Errors
/// As [`inspect`].
pub fn inspect_dot(model_path: &Path) -> Result<String> {
    Ok(render_dot(&LoadedModel::open(model_path)?.spec()))
}
