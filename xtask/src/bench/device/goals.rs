//! The device goals, checked on a run's Cortex-M3 figures, and against emlearn's forest on RISC-V:
//! the "## Goals" sections of the report.

use std::fmt::Write as _;

use crate::bench::device::figures::{mean, pct, Entry, Measure, Report};
use crate::bench::device::pipeline::{per_sample, PipelineReport, WindowEntry};
use crate::firmware::inputs::CHANNELS;
use crate::firmware::{QEMU_RISCV32, TARGETS};

/// The goal of the pictures, as a check: ltu's Pareto front lies left of emlearn's when every
/// emlearn model is dominated by some ltu model, at least as accurate and no more costly, in
/// each picture (instructions per prediction; flash).
fn pareto_goal(report: &Report, m3: &str) -> String {
    let mut s = String::from(
        "The pictures' goal: ltu's Pareto front lies left of emlearn's when every emlearn model has an ltu model \
         at least as accurate with no more instructions per prediction (left picture) and one at least as accurate \
         with no more flash (right picture).\n\n",
    );
    let mut left = 0;
    let mut lines = Vec::new();
    for (name, _, _, entries) in &report.datasets {
        let ltu: Vec<(f64, u64, u64)> = entries
            .iter()
            .filter(|e| e.family == "ltu")
            .filter_map(|e| Some((e.accuracy?, e.on(m3)?)))
            .map(|(a, m)| (a, mean(&m.predict), m.flash))
            .collect();
        let mut misses = Vec::new();
        let mut peers = 0;
        for e in entries.iter().filter(|e| e.family == "emlearn") {
            let (Some(acc), Some(m)) = (e.accuracy, e.on(m3)) else { continue };
            peers += 1;
            let (instr, flash) = (mean(&m.predict), m.flash);
            let as_good = || ltu.iter().filter(|l| l.0 >= acc - 1e-9);
            if !as_good().any(|l| l.1 <= instr) {
                misses.push(format!(
                    "`{}` ({} %, {instr} instructions): no ltu model as accurate with as few instructions",
                    e.name,
                    pct(Some(acc))
                ));
            }
            if !as_good().any(|l| l.2 <= flash) {
                misses.push(format!(
                    "`{}` ({} %, {flash} B): no ltu model as accurate in as little flash",
                    e.name,
                    pct(Some(acc))
                ));
            }
        }
        if peers == 0 {
            continue;
        }
        if misses.is_empty() {
            left += 1;
            lines.push(format!("- {name}: **left** of emlearn's {peers} models in both pictures"));
        } else {
            lines.push(format!("- {name}: not left of emlearn's: {}", misses.join("; ")));
        }
    }
    let _ = writeln!(s, "Left on {left} of {} datasets:\n", lines.len());
    for l in lines {
        let _ = writeln!(s, "{l}");
    }
    s.push('\n');
    s
}

/// The device goals, checked on this run's Cortex-M3 figures; then, when the run measured RISC-V,
/// the forest goal there for ltu compiled in.
pub fn goals(report: &Report, m3: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## Goals (Cortex-M3)\n");
    s.push_str(&forest_goal(report, m3, false));
    s.push_str(&pareto_goal(report, m3));
    s.push_str(&runtime_goals(report, m3));
    let riscv = TARGETS.iter().find(|t| t.machine.qemu == QEMU_RISCV32).map(|t| (t.triple, t.core));
    if let Some((rv, core)) = riscv.filter(|(rv, _)| measured_on(report, rv)) {
        let _ = writeln!(s, "## Goals ({core})\n");
        s.push_str(&forest_goal(report, rv, true));
    }
    s
}

/// Whether any model of the report ran on the target `triple`.
fn measured_on(report: &Report, triple: &str) -> bool {
    report.datasets.iter().any(|d| d.3.iter().any(|e| e.on(triple).is_some()))
}

/// The goal against emlearn's forest on the target `triple`: on every dataset some ltu model
/// within 1 point of RF10 (inline) with at most half its instructions per prediction and at most
/// its flash; with `compiled_in`, only ltu's generated code counts (C or Rust, `ltu codegen`).
fn forest_goal(report: &Report, triple: &str, compiled_in: bool) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "Against emlearn's forest: on every dataset some ltu model{} within 1 point of emlearn's RF10 (inline) in \
         accuracy, with at most half its instructions per prediction and at most its flash.\n\n",
        if compiled_in { " compiled in (`ltu codegen`, generated C or Rust)" } else { "" }
    );
    let mut met = 0;
    let mut lines = Vec::new();
    for (name, _, _, entries) in &report.datasets {
        let Some((rf, rfm)) =
            entries.iter().find(|e| e.name == "RF10 inline").and_then(|e| e.on(triple).map(|m| (e, m)))
        else {
            continue;
        };
        let (acc, instr, flash) = (rf.accuracy.unwrap_or(0.0) - 0.01, mean(&rfm.predict), rfm.flash);
        let candidates: Vec<(&Entry, &Measure)> = entries
            .iter()
            .filter(|e| e.family == "ltu" && e.accuracy.is_some_and(|a| a >= acc - 1e-9))
            .filter(|e| !compiled_in || e.name.contains("codegen"))
            .filter_map(|e| e.on(triple).map(|m| (e, m)))
            .collect();
        let ok = candidates
            .iter()
            .filter(|(_, m)| 2 * mean(&m.predict) <= instr && m.flash <= flash)
            .min_by_key(|(_, m)| mean(&m.predict));
        let line = match ok {
            Some((e, m)) => {
                met += 1;
                format!("- {name}: **met** by `{}` ({} %, {} instructions, {} B; RF10 {} %, {instr}, {flash} B)", e.name, pct(e.accuracy), mean(&m.predict), m.flash, pct(rf.accuracy))
            }
            None => match candidates.iter().min_by_key(|(_, m)| mean(&m.predict)) {
                Some((e, m)) => format!(
                    "- {name}: not met; the cheapest ltu model within 1 point is `{}` ({} %, {} instructions, {} B) against at most {} instructions and {flash} B",
                    e.name, pct(e.accuracy), mean(&m.predict), m.flash, instr / 2
                ),
                None => format!("- {name}: not met; no ltu model within 1 point of RF10's {} %", pct(rf.accuracy)),
            },
        };
        lines.push(line);
    }
    let _ = writeln!(s, "Met on {met} of {} datasets:\n", lines.len());
    for l in lines {
        let _ = writeln!(s, "{l}");
    }
    s.push('\n');
    s
}

/// Most bytes of stack `predict` may use, on every model.
const STACK_GOAL: u64 = 160;
/// Most bytes of runtime code (loader, predict, checksum) for one model kind.
const CODE_GOAL: u64 = 3072;
/// Most instructions of `Model::from_bytes` per model byte.
const LOAD_GOAL: f64 = 40.0;
/// Most instructions per prediction against the same model compiled in as generated C
/// (`ltu codegen`), on every model; and the most for the median model.
const VS_C_GOAL: f64 = 3.0;
const VS_C_MEDIAN_GOAL: f64 = 2.0;
/// Most instructions per threshold node of a tree of tests.
const NODE_GOAL: f64 = 10.0;
/// Most Cortex-M0 instructions per prediction against the Cortex-M3's.
const M0_GOAL: f64 = 1.5;
/// The Cortex-M0 target, measured for the learners' defaults in a full run.
const M0: &str = "thumbv6m-none-eabi";

/// One model run through the runtime, with its figures against the runtime's goals.
struct RuntimeModel<'r> {
    dataset: &'r str,
    entry: &'r Entry,
    stack: u64,
    /// Flash minus the model file: loader, predict and checksum with what they call.
    code: u64,
    load_per_byte: f64,
    /// Instructions per prediction over the same model's as generated C.
    vs_c: Option<f64>,
    /// Instructions per threshold node (trees of threshold tests whose rows' paths differ).
    per_node: Option<f64>,
    /// The instructions of a prediction besides its threshold nodes (the same fit's intercept).
    fixed: Option<f64>,
    /// Cortex-M0 instructions per prediction over the Cortex-M3's (when run on both).
    m0: Option<f64>,
    /// Instructions per prediction over the essential work (information: no goal).
    vs_essential: Option<f64>,
    /// The same model as generated C on the Cortex-M3.
    generated: Option<(&'r Entry, &'r Measure)>,
}

impl RuntimeModel<'_> {
    /// The goals this model misses.
    fn misses(&self) -> Vec<&'static str> {
        let mut misses = Vec::new();
        if self.stack > STACK_GOAL {
            misses.push("stack");
        }
        if self.code > CODE_GOAL {
            misses.push("code");
        }
        if self.load_per_byte > LOAD_GOAL {
            misses.push("loading");
        }
        if self.vs_c.is_none_or(|r| r > VS_C_GOAL) {
            misses.push("instructions");
        }
        if self.per_node.is_some_and(|n| n > NODE_GOAL) {
            misses.push("per node");
        }
        if self.m0.is_some_and(|r| r > M0_GOAL) {
            misses.push("Cortex-M0");
        }
        misses
    }
}

/// Every model the runtime ran on the Cortex-M3 (`m3`), with its figures.
fn runtime_models<'r>(report: &'r Report, m3: &str) -> Vec<RuntimeModel<'r>> {
    let mut models = Vec::new();
    for (dataset, _, _, entries) in &report.datasets {
        for e in entries.iter().filter(|e| e.family == "ltu" && !e.name.contains("codegen")) {
            let Some(m) = e.on(m3) else { continue };
            let predict = mean(&m.predict) as f64;
            let generated = entries
                .iter()
                .find(|x| x.name == format!("{} codegen-c", e.name))
                .and_then(|x| x.on(m3).map(|cm| (x, cm)));
            models.push(RuntimeModel {
                dataset,
                entry: e,
                stack: m.stack.iter().copied().max().unwrap_or(0),
                code: m.flash.saturating_sub(e.model_bytes.unwrap_or(0) as u64),
                load_per_byte: m.load.unwrap_or(0) as f64 / e.model_bytes.unwrap_or(1).max(1) as f64,
                vs_c: generated.map(|(_, cm)| predict / mean(&cm.predict).max(1) as f64),
                per_node: per_node(&e.path_nodes, &m.predict).map(|(slope, _)| slope),
                fixed: per_node(&e.path_nodes, &m.predict).map(|(_, intercept)| intercept),
                m0: e.on(M0).map(|m0| mean(&m0.predict) as f64 / predict.max(1.0)),
                vs_essential: e.essential.map(|w| predict / w.max(1.0)),
                generated,
            });
        }
    }
    models
}

/// The least-squares line of a prediction's instructions over the nodes on its path: its slope
/// (what one more node costs) and intercept (what a prediction costs besides its nodes). `None`
/// unless the rows' paths have at least two lengths.
fn per_node(nodes: &[u64], instructions: &[u64]) -> Option<(f64, f64)> {
    if nodes.len() != instructions.len() || nodes.is_empty() {
        return None;
    }
    let n = nodes.len() as f64;
    let mx = nodes.iter().sum::<u64>() as f64 / n;
    let my = instructions.iter().sum::<u64>() as f64 / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (&x, &y) in nodes.iter().zip(instructions) {
        sxy += (x as f64 - mx) * (y as f64 - my);
        sxx += (x as f64 - mx) * (x as f64 - mx);
    }
    (sxx > 0.0).then(|| (sxy / sxx, my - sxy / sxx * mx))
}

/// The smallest and largest of the values, with the models they belong to, e.g.
/// ``5.0× (iris `fringe`) to 10.3× (iris `oblique`)``; `decimals` digits after the point.
fn range_of(
    models: &[&RuntimeModel<'_>],
    value: impl Fn(&RuntimeModel<'_>) -> Option<f64>,
    decimals: usize,
    unit: &str,
) -> String {
    let mut v: Vec<(f64, String)> = models
        .iter()
        .filter_map(|m| value(m).map(|x| (x, format!("{} `{}`", m.dataset, m.entry.name))))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    match (v.first(), v.last()) {
        (Some(lo), Some(hi)) => {
            format!("{:.decimals$}{unit} ({}) to {:.decimals$}{unit} ({})", lo.0, lo.1, hi.0, hi.1)
        }
        _ => "none measured".into(),
    }
}

/// The median of the values (the upper one of an even count).
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// The goals of the runtime over every model it ran: instructions against generated C, per
/// threshold node and on the Cortex-M0; stack, code size and loading; then which models miss
/// which goal, and model by model.
fn runtime_goals(report: &Report, m3: &str) -> String {
    let mut s = String::new();
    let models = runtime_models(report, m3);
    if models.is_empty() {
        return s;
    }
    let all: Vec<&RuntimeModel<'_>> = models.iter().collect();
    let n = models.len();
    let count = |ok: &dyn Fn(&RuntimeModel<'_>) -> Option<bool>| {
        let judged: Vec<bool> = models.iter().filter_map(ok).collect();
        (judged.iter().filter(|&&b| b).count(), judged.len())
    };
    let _ = writeln!(s, "The runtime's goals, over the {n} models run through it:\n");
    let (ok, of) = count(&|m| Some(m.vs_c.is_some_and(|r| r <= VS_C_GOAL)));
    let med = median(models.iter().filter_map(|m| m.vs_c).collect());
    let _ = writeln!(
        s,
        "- Instructions per prediction ≤ {VS_C_GOAL}× the same model compiled in (`ltu codegen`, generated C): {ok} of {of}; {}. Median ≤ {VS_C_MEDIAN_GOAL}×: {}.",
        range_of(&all, |m| m.vs_c, 1, "×"),
        med.map_or("not measured".into(), |r| format!(
            "**{}** ({r:.1}×)",
            if r <= VS_C_MEDIAN_GOAL { "met" } else { "missed" }
        )),
    );
    let (ok, of) = count(&|m| m.per_node.map(|x| x <= NODE_GOAL));
    let _ = writeln!(
        s,
        "- Instructions per threshold node ≤ {NODE_GOAL} on trees of tests (the slope of a prediction's instructions over the threshold nodes on its path, for trees of threshold tests whose rows take paths of different lengths): {ok} of {of}; {}.",
        range_of(&all, |m| m.per_node, 1, ""),
    );
    let (ok, of) = count(&|m| Some(m.stack <= STACK_GOAL));
    let largest = models.iter().map(|m| m.stack).max().unwrap_or(0);
    let _ = writeln!(s, "- Stack of `predict` ≤ {STACK_GOAL} B: {ok} of {of} (largest {largest} B).");
    let (ok, of) = count(&|m| Some(m.code <= CODE_GOAL));
    let _ = writeln!(
        s,
        "- Runtime code with one model kind (flash minus the model file) ≤ 3 KB: {ok} of {of}; {}.",
        range_of(&all, |m| Some(m.code as f64), 0, " B"),
    );
    let (ok, of) = count(&|m| Some(m.load_per_byte <= LOAD_GOAL));
    let _ = writeln!(
        s,
        "- Loading ≤ {LOAD_GOAL} instructions per model byte: {ok} of {of}; {}.",
        range_of(&all, |m| Some(m.load_per_byte), 1, ""),
    );
    let (ok, of) = count(&|m| m.m0.map(|r| r <= M0_GOAL));
    if of == 0 {
        let _ = writeln!(
            s,
            "- Cortex-M0 within {M0_GOAL}× of the Cortex-M3's instructions: not measured in this run (a full run measures the learners' defaults on the Cortex-M0)."
        );
    } else {
        let _ = writeln!(
            s,
            "- Cortex-M0 within {M0_GOAL}× of the Cortex-M3's instructions: {ok} of the {of} models run on both; {}.",
            range_of(&all, |m| m.m0, 2, "×"),
        );
    }
    let med = median(models.iter().filter_map(|m| m.vs_essential).collect());
    let _ = writeln!(
        s,
        "- For comparison, instructions per prediction over the essential work (`ModelSpec::essential_work`): {}, median {}.",
        range_of(&all, |m| m.vs_essential, 1, "×"),
        med.map_or("—".into(), |r| format!("{r:.1}×")),
    );
    s.push_str(&runtime_goal_misses(&models));
    s.push_str(&runtime_goal_table(&models));
    s.push('\n');
    s
}

/// Which of the runtime's goals its models miss, by kind of model: trees of tests (no unit:
/// every FRINGE model) and models with units, with the figures of each group and why.
fn runtime_goal_misses(models: &[RuntimeModel<'_>]) -> String {
    let mut s = String::from(
        "\nWhich models miss which goal, and why (docs/FORMAT.md section 9 profiles where the instructions go):\n\n",
    );
    for (tests, what) in
        [(true, "Trees of tests (no unit: every FRINGE model)"), (false, "Models with units")]
    {
        let group: Vec<&RuntimeModel<'_>> = models.iter().filter(|m| (m.entry.units == 0) == tests).collect();
        if group.is_empty() {
            continue;
        }
        let mut names: Vec<&str> = group.iter().map(|m| m.entry.group.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let names: Vec<String> = names.iter().map(|g| format!("`{g}`")).collect();
        let mut missed: Vec<(&str, usize)> = Vec::new();
        for m in &group {
            for miss in m.misses() {
                match missed.iter_mut().find(|(x, _)| *x == miss) {
                    Some((_, k)) => *k += 1,
                    None => missed.push((miss, 1)),
                }
            }
        }
        let missed = if missed.is_empty() {
            "every goal met".to_string()
        } else {
            let v: Vec<String> = missed.iter().map(|(g, k)| format!("{g} by {k}")).collect();
            format!("missed: {}", v.join(", "))
        };
        let per_node = if group.iter().any(|m| m.per_node.is_some()) {
            format!(
                "; per threshold node {}, besides them per prediction {}",
                range_of(&group, |m| m.per_node, 1, ""),
                range_of(&group, |m| m.fixed, 0, ""),
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "- {what}, {} models ({}): {missed}. Stack {}; runtime code {}; against generated C {}{per_node}.",
            group.len(),
            names.join(", "),
            range_of(&group, |m| Some(m.stack as f64), 0, " B"),
            range_of(&group, |m| Some(m.code as f64), 0, " B"),
            range_of(&group, |m| m.vs_c, 1, "×"),
        );
        let why = if tests {
            "  Generated C compares an input with a constant in the code, two or three instructions per node; the \
             runtime reads each node's record from the model file, tests the record's index against the table and \
             the input's against the inputs served (safe Rust keeps both), and pays a fixed cost per prediction \
             (the call through `predict`, the model's structure, the table's bounds), which weighs most on shallow \
             trees."
        } else {
            "  A unit's rows and weights are read from the file through bounds-tested slices and each numeric input \
             is scaled through its record at run time, where generated C has the scaled constants in its code; the \
             unit evaluator's state (the cache of numeric features) and the loader's proofs (accumulator bound, \
             feature table) set the stack and code figures."
        };
        let _ = writeln!(s, "{why}");
    }
    if models.iter().any(|m| m.m0.is_some_and(|r| r > M0_GOAL)) {
        s.push_str(
            "- The Cortex-M0 has no unaligned loads, and a record lies at any address of the model file: each field \
             of wider than a byte is read byte by byte.\n",
        );
    }
    s.push_str(
        "\nFor a fixed model `ltu codegen` meets every instruction goal (docs/CODEGEN.md); the runtime is for models \
         that arrive at run time.\n",
    );
    s
}

/// The runtime's goals model by model: each goal's figure (✗ where missed), the goals missed, and
/// the same model compiled to C (`ltu codegen`).
fn runtime_goal_table(models: &[RuntimeModel<'_>]) -> String {
    let mut s = format!(
        "\nModel by model (Cortex-M3; ✗ marks a missed goal: stack ≤ {STACK_GOAL} B, runtime code ≤ {CODE_GOAL} B, \
         loading ≤ {LOAD_GOAL} instructions per model byte, instructions ≤ {VS_C_GOAL}× the generated C's, ≤ {NODE_GOAL} \
         per threshold node, Cortex-M0 ≤ {M0_GOAL}× the Cortex-M3; the last columns are for comparison):\n\n\
         | dataset | model | stack B | runtime code B | load / byte | × generated C | instr / threshold node | Cortex-M0 / M3 | misses | instr / essential | generated C: instr / essential · stack B |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mark = |ok: bool| if ok { "" } else { " ✗" };
    let figure = |v: Option<f64>, limit: f64, unit: &str| {
        v.map_or("—".to_string(), |x| format!("{x:.1}{unit}{}", mark(x <= limit)))
    };
    for m in models {
        let misses = m.misses();
        let generated = m.generated.map_or("—".to_string(), |(x, cm)| {
            let r = x.essential.map_or(f64::NAN, |w| mean(&cm.predict) as f64 / w.max(1.0));
            format!("{r:.2}× · {}", cm.stack.iter().copied().max().unwrap_or(0))
        });
        let _ = writeln!(
            s,
            "| {} | `{}` | {}{} | {}{} | {:.1}{} | {} | {} | {} | {} | {} | {generated} |",
            m.dataset,
            m.entry.name,
            m.stack,
            mark(m.stack <= STACK_GOAL),
            m.code,
            mark(m.code <= CODE_GOAL),
            m.load_per_byte,
            mark(m.load_per_byte <= LOAD_GOAL),
            m.vs_c.map_or("— ✗".to_string(), |r| format!("{r:.1}×{}", mark(r <= VS_C_GOAL))),
            figure(m.per_node, NODE_GOAL, ""),
            figure(m.m0, M0_GOAL, "×"),
            if misses.is_empty() { "none".to_string() } else { misses.join(", ") },
            m.vs_essential.map_or("—".to_string(), |r| format!("{r:.2}×")),
        );
    }
    s
}

/// Most Cortex-M3 instructions per window, from raw samples to a class, for the firmware's model.
pub const WINDOW_GOAL: u64 = 3000;
/// Most Cortex-M3 instructions per sample per channel of a streaming push.
pub const STREAM_GOAL: f64 = 20.0;

/// The sensor pipeline's goals, checked on the Cortex-M3 figures of the section: per window, the
/// firmware's model from raw samples to a class; per sample, the streaming update. A goal
/// without a Cortex-M3 figure is reported as not measured.
pub fn pipeline_goals(p: &PipelineReport) -> String {
    let m3 = TARGETS[0].triple;
    let met = |ok: bool| if ok { "**met**" } else { "**missed**" };
    let mut s = String::new();
    let firmware: Vec<&WindowEntry> = p.windows.iter().filter(|e| e.firmware).collect();
    let accuracy = firmware.first().map(|e| e.accuracy);
    let _ = writeln!(
        s,
        "- The firmware's model (`{}`, {} % on TEST), extraction and classification per window ≤ {WINDOW_GOAL} \
         instructions (mean over the TEST windows, largest in brackets):",
        firmware.first().map_or("—", |e| e.model.as_str()),
        pct(accuracy)
    );
    for e in &firmware {
        match e.measures.iter().find(|m| m.target.triple == m3) {
            Some(m) => {
                let n = mean(&m.predict);
                let _ = writeln!(
                    s,
                    "  - {}: {} ({n}, largest {})",
                    e.path,
                    met(n <= WINDOW_GOAL),
                    m.predict.iter().max().unwrap_or(&0)
                );
            }
            None => {
                let _ = writeln!(s, "  - {}: not measured", e.path);
            }
        }
    }
    let _ = writeln!(
        s,
        "- Streaming ≤ {STREAM_GOAL:.0} instructions per sample per channel (a push that completes no window, \
         mean, divided by the {CHANNELS} channels):"
    );
    for e in &p.streams {
        match e.measures.iter().find(|m| m.target.triple == m3) {
            Some(m) => {
                let updates = m.updates();
                let x = per_sample(&updates);
                let largest = *updates.iter().max().unwrap_or(&0) as f64 / CHANNELS as f64;
                let _ =
                    writeln!(s, "  - {}: {} ({x:.1}, largest {largest:.1})", e.path, met(x <= STREAM_GOAL));
            }
            None => {
                let _ = writeln!(s, "  - {}: not measured", e.path);
            }
        }
    }
    if p.streams.is_empty() {
        s.push_str("  - not measured\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One measured model of a test report: `predict` instructions and `flash` bytes on `target`.
    fn entry(
        target: crate::firmware::Target,
        family: &'static str,
        name: &str,
        accuracy: f64,
        predict: u64,
        flash: u64,
    ) -> Entry {
        Entry {
            family,
            name: name.into(),
            group: name.into(),
            accuracy: Some(accuracy),
            model_bytes: None,
            essential: None,
            units: 0,
            path_nodes: Vec::new(),
            measures: vec![Measure {
                target,
                load: None,
                predict: vec![predict],
                stack: vec![16],
                flash,
                agree: 1,
            }],
            notes: Vec::new(),
        }
    }

    /// A test report of one dataset.
    fn report(entries: Vec<Entry>) -> Report {
        Report {
            commit: "test".into(),
            datasets: vec![("d", 10, 10, entries)],
            versions: Vec::new(),
            quick: false,
            pipeline: None,
        }
    }
    use crate::bench::device::figures::Measure;

    #[test]
    fn pareto_goal_needs_a_dominating_ltu_model_in_each_picture() {
        let entry = |family, name, accuracy, predict, flash| {
            entry(TARGETS[0], family, name, accuracy, predict, flash)
        };
        let m3 = TARGETS[0].triple;
        // One ltu model cheaper on instructions, another as accurate in less flash: left.
        let left = report(vec![
            entry("ltu", "fast", 0.95, 50, 900),
            entry("ltu", "small", 0.96, 400, 200),
            entry("emlearn", "DT inline", 0.95, 100, 300),
        ]);
        assert!(pareto_goal(&left, m3).contains("Left on 1 of 1 datasets"), "{}", pareto_goal(&left, m3));
        // Both misses of one emlearn model are reported.
        let not =
            report(vec![entry("ltu", "big", 0.95, 150, 900), entry("emlearn", "DT inline", 0.95, 100, 300)]);
        let text = pareto_goal(&not, m3);
        assert!(text.contains("Left on 0 of 1 datasets"), "{text}");
        assert!(text.contains("as few instructions") && text.contains("as little flash"), "{text}");
    }

    #[test]
    fn forest_goal_compiled_in_counts_only_generated_code_on_its_target() {
        let rv = TARGETS.iter().copied().find(|t| t.machine.qemu == QEMU_RISCV32).unwrap();
        let entry =
            |family, name, accuracy, predict, flash| entry(rv, family, name, accuracy, predict, flash);
        // The runtime model is cheap enough; the compiled-in one is not: missed when compiled in.
        let runtime_only = report(vec![
            entry("ltu", "fringe", 0.95, 40, 900),
            entry("ltu", "fringe codegen-c", 0.95, 60, 100),
            entry("emlearn", "RF10 inline", 0.955, 100, 1000),
        ]);
        let text = forest_goal(&runtime_only, rv.triple, false);
        assert!(text.contains("Met on 1 of 1") && text.contains("by `fringe`"), "{text}");
        let text = forest_goal(&runtime_only, rv.triple, true);
        assert!(text.contains("Met on 0 of 1") && text.contains("`fringe codegen-c`"), "{text}");
        assert!(text.contains("at most 50 instructions and 1000 B"), "{text}");
        // Not measured on the Cortex-M3: no line there.
        assert!(forest_goal(&runtime_only, TARGETS[0].triple, false).contains("Met on 0 of 0"));
        let goals = goals(&runtime_only, TARGETS[0].triple);
        assert!(goals.contains("## Goals (RV32IMAC)"), "{goals}");
    }

    #[test]
    fn pipeline_goals_show_met_and_missed() {
        use crate::bench::device::pipeline::{StreamEntry, StreamMeasure};
        use crate::firmware::inputs::WINDOW;
        let measure = |predict: Vec<u64>| Measure {
            target: TARGETS[0],
            load: None,
            stack: vec![0; predict.len()],
            agree: predict.len(),
            predict,
            flash: 1000,
        };
        let window = |path: &'static str, predict: Vec<u64>| WindowEntry {
            family: "ltu",
            model: "fringe".into(),
            path,
            firmware: true,
            accuracy: 0.9,
            statistics: vec!["ch1_spread".into()],
            model_bytes: None,
            measures: vec![measure(predict)],
        };
        // Pushes after the window filled that complete no window: 6 channels at 10 or 30 each.
        let stream = |path: &'static str, per_frame: u64| StreamEntry {
            model: "fringe".into(),
            path,
            measures: vec![StreamMeasure {
                target: TARGETS[0],
                pushes: vec![per_frame * CHANNELS as u64; WINDOW + 2],
                ready: (0..WINDOW + 2).map(|f| f == WINDOW - 1).collect(),
                flash: 1000,
                stack: 64,
                agree: 1,
                windows: 1,
            }],
        };
        let report = PipelineReport {
            windows: vec![window("runtime", vec![2900, 3100]), window("generated", vec![3000, 3100])],
            streams: vec![stream("fast", 10), stream("slow", 30)],
            n_windows: 2,
            stream_frames: WINDOW + 2,
            versions: Vec::new(),
        };
        let text = pipeline_goals(&report);
        assert!(text.contains("  - runtime: **met** (3000, largest 3100)"), "{text}");
        assert!(text.contains("  - generated: **missed** (3050, largest 3100)"), "{text}");
        assert!(text.contains("  - fast: **met** (10.0, largest 10.0)"), "{text}");
        assert!(text.contains("  - slow: **missed** (30.0, largest 30.0)"), "{text}");
    }

    #[test]
    fn runtime_goals_judge_each_model_against_generated_c_per_node_and_the_cortex_m0() {
        let m0 = TARGETS.iter().copied().find(|t| t.triple == M0).unwrap();
        let measure = |target, predict: Vec<u64>, stack: u64, flash: u64| Measure {
            target,
            load: Some(100 * 25),
            stack: vec![stack; predict.len()],
            agree: predict.len(),
            predict,
            flash,
        };
        let entry = |name: &str, units: usize, path_nodes: Vec<u64>, measures: Vec<Measure>| Entry {
            family: "ltu",
            name: name.into(),
            group: name.split(' ').next().unwrap().into(),
            accuracy: Some(1.0),
            model_bytes: Some(100),
            essential: Some(20.0),
            units,
            path_nodes,
            measures,
            notes: Vec::new(),
        };
        let m3 = TARGETS[0];
        // A tree of tests: 12 instructions per node over a fixed 20, 2.0× its generated C, 1.6×
        // on the Cortex-M0.
        let fringe = entry(
            "fringe",
            0,
            vec![1, 2, 3],
            vec![measure(m3, vec![32, 44, 56], 48, 2900), measure(m0, vec![70, 70, 70], 48, 2900)],
        );
        let fringe_c = entry("fringe codegen-c", 0, Vec::new(), vec![measure(m3, vec![22; 3], 16, 40)]);
        // A model with units: 4× its generated C, too much stack and code.
        let ptree = entry("ptree", 1, Vec::new(), vec![measure(m3, vec![400; 3], 264, 5100)]);
        let ptree_c = entry("ptree codegen-c", 1, Vec::new(), vec![measure(m3, vec![100; 3], 16, 300)]);
        let report = report(vec![fringe, fringe_c, ptree, ptree_c]);
        let models = runtime_models(&report, m3.triple);
        assert_eq!(models.len(), 2);
        let slope = models[0].per_node.unwrap();
        assert!((slope - 12.0).abs() < 1e-9, "{slope}");
        assert_eq!(models[0].vs_c, Some(2.0));
        assert_eq!(models[0].misses(), ["per node", "Cortex-M0"]);
        assert_eq!(models[1].misses(), ["stack", "code", "instructions"]);
        let text = runtime_goals(&report, m3.triple);
        assert!(
            text.contains(
                "generated C): 1 of 2; 2.0× (d `fringe`) to 4.0× (d `ptree`). Median ≤ 2×: **missed** (4.0×)"
            ),
            "{text}"
        );
        assert!(
            text.contains("≤ 10 on trees of tests") && text.contains("0 of 1; 12.0 (d `fringe`)"),
            "{text}"
        );
        assert!(text.contains("Stack of `predict` ≤ 160 B: 1 of 2 (largest 264 B)"), "{text}");
        assert!(text.contains("Cortex-M3's instructions: 0 of the 1 models run on both; 1.59×"), "{text}");
        assert!(text.contains("Trees of tests (no unit: every FRINGE model), 1 models (`fringe`): missed: per node by 1, Cortex-M0 by 1."), "{text}");
        assert!(
            text.contains(
                "Models with units, 1 models (`ptree`): missed: stack by 1, code by 1, instructions by 1."
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "| d | `fringe` | 48 | 2800 | 25.0 | 2.0× | 12.0 ✗ | 1.6× ✗ | per node, Cortex-M0 |"
            ),
            "{text}"
        );
        // Rows that all take paths of one length give no slope.
        assert_eq!(models[0].fixed.map(f64::round), Some(20.0));
        assert_eq!(per_node(&[2, 2], &[30, 31]), None);
    }
}
