//! What generated code tells its caller about every number: each input's name, kind, scale,
//! category codes and missing-value substitute, the class names, the sensor channels and the
//! model's provenance, with identifiers for all of them that are valid in C and Rust and unique.
//!
//! [`Contract::of`] gathers it once from the model; the C header and the Rust constants are two
//! renderings of the same contract.

use std::collections::BTreeSet;

use super::About;
use crate::data::encode;
use crate::model::{InputKind, ModelSpec};

/// The upper-case identifier part for `name`: ASCII letters and digits kept (upper-cased), every
/// run of other characters one `_`, no `_` at either end. Empty when `name` has no letter or digit.
pub(super) fn sanitise(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// Identifier parts already given out in one namespace.
#[derive(Default)]
struct Taken(BTreeSet<String>);

impl Taken {
    /// A unique identifier part for `name`, the thing at position `index`: the sanitised name;
    /// if that is empty, the index; if that is taken, suffixed with `_<index>`, then with `_`
    /// until unique. Deterministic: it depends only on the names in order.
    fn claim(&mut self, name: &str, index: usize) -> String {
        let mut s = sanitise(name);
        if s.is_empty() {
            s = index.to_string();
        }
        if self.0.contains(&s) {
            s = format!("{s}_{index}");
        }
        while self.0.contains(&s) {
            s.push('_');
        }
        self.0.insert(s.clone());
        s
    }
}

/// How an input's raw value is obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// A number: `raw = round(value * 10^scale_exp) - offset`
    /// ([`crate::data::encode::to_raw`]); `None` when the model does not store the scale (no
    /// host block).
    Numeric { scale_exp: Option<i8>, offset: i64 },
    /// A category: the code of a value is its position; `values` holds each value's name and
    /// its identifier part (unique across all inputs' values).
    Categorical { values: Vec<(String, String)> },
    /// A statistic of a window of raw samples: `what` says which.
    Window { what: String },
}

/// One raw input of the model.
#[derive(Debug, Clone)]
pub(super) struct Input {
    /// Position in `x`.
    pub(super) index: usize,
    /// The name stored in the model, if any.
    pub(super) name: Option<String>,
    /// Unique upper-case identifier part (`PETAL_LENGTH`, or the index without names).
    pub(super) ident: String,
    pub(super) kind: Kind,
    /// The raw value hosts substitute for a missing one; `None` when the model does not store
    /// it (no host block).
    pub(super) missing: Option<i32>,
}

impl Input {
    /// The name for people: the stored one, or `x<i>`.
    pub(super) fn shown(&self) -> String {
        self.name.clone().unwrap_or_else(|| format!("x{}", self.index))
    }
}

/// A class or channel: its stored name (if any) and identifier part.
#[derive(Debug, Clone)]
pub(super) struct Named {
    pub(super) name: Option<String>,
    pub(super) ident: String,
}

/// One sensor channel of a pipeline.
#[derive(Debug, Clone)]
pub(super) struct Channel {
    pub(super) named: Named,
    /// `sample = round(value * 10^scale_exp)`, clamped to `i16`.
    pub(super) scale_exp: i8,
}

/// Everything generated code documents about the model's interface.
#[derive(Debug, Clone)]
pub(super) struct Contract {
    pub(super) inputs: Vec<Input>,
    pub(super) classes: Vec<Named>,
    /// The pipeline's channels in frame order; empty without a pipeline.
    pub(super) channels: Vec<Channel>,
    /// Whether the model stores names.
    pub(super) named: bool,
    /// Whether the model stores its host block (scales, missing values, metadata).
    pub(super) host_block: bool,
    /// The host block's metadata, `key = value`, in file order.
    pub(super) metadata: Vec<(String, String)>,
}

/// Input identifier parts that would collide with a fixed name (`ltu_input_names` in C,
/// `INPUT_NAMES` in Rust).
const RESERVED_INPUTS: [&str; 1] = ["NAMES"];
/// Class identifier parts that would collide with a fixed name (`CLASS_NAMES` in Rust).
const RESERVED_CLASSES: [&str; 1] = ["NAMES"];

impl Contract {
    pub(super) fn of(spec: &ModelSpec, about: &About) -> Contract {
        let names = spec.names.as_ref();
        let pipeline = spec.pipeline.as_ref();
        let mut taken_inputs = Taken(RESERVED_INPUTS.iter().map(|s| s.to_string()).collect());
        let mut taken_values = Taken::default();
        let inputs = spec
            .inputs
            .iter()
            .enumerate()
            .map(|(i, inp)| {
                let window = pipeline.and_then(|p| p.features.get(i).map(|f| (p, f)));
                let name = names
                    .and_then(|n| n.inputs.get(i).cloned())
                    .or_else(|| window.map(|(p, f)| crate::data::recordings::feature_name(p, f)));
                let ident = taken_inputs.claim(name.as_deref().unwrap_or(""), i);
                let kind = match (window, inp.kind) {
                    (Some((p, f)), _) => {
                        let channel = p.channels.get(usize::from(f.channel)).map_or("?", |c| c.name.as_str());
                        let segment = if f.segments == 1 {
                            "the whole window".to_string()
                        } else {
                            format!(
                                "segment {} (from 0) of {} equal parts of the window",
                                f.segment, f.segments
                            )
                        };
                        Kind::Window {
                            what: format!(
                                "{} of channel {} ({}) over {segment}",
                                f.stat,
                                f.channel,
                                quoted(channel)
                            ),
                        }
                    }
                    (None, InputKind::Numeric { scale_exp, offset }) => {
                        Kind::Numeric { scale_exp: about.host_block.then_some(scale_exp), offset }
                    }
                    (None, InputKind::Categorical { n_values }) => Kind::Categorical {
                        values: (0..usize::from(n_values))
                            .map(|v| {
                                let value = names
                                    .and_then(|n| n.values.get(i)?.get(v).cloned())
                                    .unwrap_or_else(|| v.to_string());
                                let id = taken_values.claim(&format!("{ident}_{}", sanitise(&value)), v);
                                (value, id)
                            })
                            .collect(),
                    },
                };
                Input { index: i, name, ident, kind, missing: about.host_block.then_some(inp.missing) }
            })
            .collect();
        let mut taken_classes = Taken(RESERVED_CLASSES.iter().map(|s| s.to_string()).collect());
        let classes = (0..spec.n_classes)
            .map(|c| {
                let name = names.and_then(|n| n.classes.get(c).cloned());
                Named { ident: taken_classes.claim(name.as_deref().unwrap_or(""), c), name }
            })
            .collect();
        let mut taken_channels = Taken::default();
        let channels = pipeline
            .map(|p| {
                p.channels
                    .iter()
                    .enumerate()
                    .map(|(c, ch)| Channel {
                        named: Named {
                            name: Some(ch.name.clone()),
                            ident: taken_channels.claim(&ch.name, c),
                        },
                        scale_exp: ch.scale_exp,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Contract {
            inputs,
            classes,
            channels,
            named: names.is_some(),
            host_block: about.host_block,
            metadata: about.metadata.clone(),
        }
    }

    /// Lines describing how the model was made, for a comment.
    pub(super) fn provenance(&self, about: &About) -> Vec<String> {
        let mut out = vec![format!("Model file: {:?}.", about.name)];
        if !self.host_block {
            out.push("The model has no host block (trained with --strip): it stores no names, input".into());
            out.push(
                "scales, missing-value substitutes or training metadata, so none are given here.".into(),
            );
        } else if self.metadata.is_empty() {
            out.push("The model stores no training metadata.".into());
        } else {
            out.push("Training metadata stored in the model:".into());
            for (k, v) in &self.metadata {
                out.push(format!("  {} = {}", quoted(k), quoted(v)));
            }
        }
        if self.host_block && !self.named {
            out.push("The model stores no names (trained with --no-names): inputs and classes are".into());
            out.push("known by index only.".into());
        }
        out
    }

    /// The comment lines of one input (its name, kind, scale, range, codes and missing value).
    pub(super) fn input_lines(&self, input: &Input) -> Vec<String> {
        let mut out = vec![format!("x[{}]: {}", input.index, quoted(&input.shown()))];
        match &input.kind {
            Kind::Numeric { scale_exp: Some(k), offset } => {
                out.push(format!(
                    "numeric; x = {}, saturated to the int32 range",
                    encode::formula("value", *k, *offset)
                ));
                out.push(
                    "valid range: any 32-bit integer (the model file does not store the training range)"
                        .into(),
                );
            }
            Kind::Numeric { scale_exp: None, .. } => {
                out.push("numeric; the model does not store its decimal scale (no host block)".into());
                out.push("valid range: any 32-bit integer".into());
            }
            Kind::Categorical { values } => {
                out.push(format!("categorical; codes 0 to {}:", values.len().saturating_sub(1)));
                let codes: Vec<String> = values
                    .iter()
                    .enumerate()
                    .map(|(v, (name, _))| format!("{v} = {}", quoted(name)))
                    .collect();
                for chunk in codes.chunks(6) {
                    out.push(format!("  {}", chunk.join(", ")));
                }
                out.push("any other value is an unknown category (no equality test matches it)".into());
            }
            Kind::Window { what } => {
                out.push(format!("window statistic: {what};"));
                out.push(
                    "an integer the pipeline computes from raw samples (ltu_classify_window, ltu_push)"
                        .into(),
                );
            }
        }
        match (input.missing, &input.kind) {
            (None, _) => out.push("missing value: not stored in the model (no host block)".into()),
            (Some(m), Kind::Categorical { values }) if usize::try_from(m).is_ok_and(|m| m < values.len()) => {
                out.push(format!("missing value: pass {m} ({})", quoted(&values[m as usize].0)));
            }
            (Some(m), Kind::Categorical { .. }) => {
                out.push(format!("missing value: pass {m} (an unknown category)"));
            }
            (Some(m), Kind::Numeric { scale_exp: Some(k), offset }) => {
                out.push(format!(
                    "missing value: pass {m} (= {}, what the trainer substituted)",
                    encode::raw_decimal(m, *k, *offset)
                ));
            }
            (Some(m), _) => out.push(format!("missing value: pass {m} (what the trainer substituted)")),
        }
        out
    }
}

/// A name in double quotes, with anything that could end, open or break a comment escaped.
pub(super) fn quoted(s: &str) -> String {
    format!("{s:?}").replace("*/", "*\\/").replace("/*", "/\\*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_sanitised_and_unique_in_order() {
        let mut t = Taken(["NAMES".to_string()].into_iter().collect());
        let got: Vec<String> = ["petal length", "Petal-Length", "", "2", "names", "x__y!", "é"]
            .iter()
            .enumerate()
            .map(|(i, n)| t.claim(n, i))
            .collect();
        assert_eq!(got, ["PETAL_LENGTH", "PETAL_LENGTH_1", "2", "2_3", "NAMES_4", "X_Y", "6"]);
    }
}
