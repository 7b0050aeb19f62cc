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

/// The goals of the runtime, over every model it ran: stack, code size, loading and instructions
/// against the essential work; then model by model and why they miss.
fn runtime_goals(report: &Report, m3: &str) -> String {
    let mut s = String::new();
    // The runtime's goals, over every model it ran.
    let runtime: Vec<(&str, &Entry, &Measure)> = report
        .datasets
        .iter()
        .flat_map(|(name, _, _, entries)| entries.iter().map(move |e| (*name, e)))
        .filter(|(_, e)| e.family == "ltu" && !e.name.contains("codegen"))
        .filter_map(|(n, e)| e.on(m3).map(|m| (n, e, m)))
        .collect();
    if runtime.is_empty() {
        return s;
    }
    let n = runtime.len();
    let stack_ok = runtime.iter().filter(|(_, _, m)| m.stack.iter().all(|&b| b <= 160)).count();
    let stack_max = runtime.iter().flat_map(|(_, _, m)| m.stack.iter().copied()).max().unwrap_or(0);
    let code = |e: &Entry, m: &Measure| m.flash.saturating_sub(e.model_bytes.unwrap_or(0) as u64);
    let code_ok = runtime.iter().filter(|(_, e, m)| code(e, m) <= 3072).count();
    let (code_min, code_max) = (
        runtime.iter().map(|(_, e, m)| code(e, m)).min().unwrap_or(0),
        runtime.iter().map(|(_, e, m)| code(e, m)).max().unwrap_or(0),
    );
    let per_byte =
        |e: &Entry, m: &Measure| m.load.unwrap_or(0) as f64 / e.model_bytes.unwrap_or(1).max(1) as f64;
    let load_ok = runtime.iter().filter(|(_, e, m)| per_byte(e, m) <= 40.0).count();
    let load_max = runtime.iter().map(|(_, e, m)| per_byte(e, m)).fold(0.0, f64::max);
    // Against the generated C of the same model (straight-line code: a stronger baseline than a
    // loop over the same arrays).
    let mut vs_c = Vec::new();
    for (name, e, m) in &runtime {
        let c = report
            .datasets
            .iter()
            .find(|d| d.0 == *name)
            .and_then(|d| d.3.iter().find(|x| x.name == format!("{} codegen-c", e.name)))
            .and_then(|x| x.on(m3));
        if let Some(c) = c {
            vs_c.push(mean(&m.predict) as f64 / mean(&c.predict).max(1) as f64);
        }
    }
    vs_c.sort_by(f64::total_cmp);
    // Against the essential work of the same predictions.
    let mut vs_essential: Vec<(f64, String)> = runtime
        .iter()
        .filter_map(|(name, e, m)| {
            e.essential.map(|w| (mean(&m.predict) as f64 / w.max(1.0), format!("{name} `{}`", e.name)))
        })
        .collect();
    vs_essential.sort_by(|a, b| a.0.total_cmp(&b.0));
    let _ = writeln!(s, "The runtime's goals, over the {n} models run through it:\n");
    let _ = writeln!(s, "- Stack of `predict` ≤ 160 B: {stack_ok} of {n} (largest {stack_max} B).");
    let _ = writeln!(
        s,
        "- Runtime code with one model kind (flash minus the model file) ≤ 3 KB: {code_ok} of {n} ({code_min}–{code_max} B)."
    );
    let _ =
        writeln!(s, "- Loading ≤ 40 instructions per model byte: {load_ok} of {n} (largest {load_max:.1}).");
    if let (Some(lo), Some(hi)) = (vs_c.first(), vs_c.last()) {
        let median = vs_c[vs_c.len() / 2];
        let _ = writeln!(
            s,
            "- Instructions per prediction against `ltu codegen` C of the same model: {lo:.1}–{hi:.1}× (median {median:.1}×); the goal is fewer than a straightforward C evaluator."
        );
    }
    if let (Some(lo), Some(hi)) = (vs_essential.first(), vs_essential.last()) {
        let ok = vs_essential.iter().filter(|(r, _)| *r <= 1.5).count();
        let median = vs_essential[vs_essential.len() / 2].0;
        let _ = writeln!(
            s,
            "- Instructions per prediction ≤ 1.5 × the essential work (`ModelSpec::essential_work`): {ok} of {n}; {:.1}× ({}) to {:.1}× ({}), median {median:.1}×.",
            lo.0, lo.1, hi.0, hi.1
        );
    }
    s.push_str(&runtime_goal_misses(&runtime, code));
    s.push_str(&runtime_goal_table(report, &runtime, code));
    s.push('\n');
    s
}

/// The runtime's goals model by model: what each runtime model measured against each goal, the goals
/// it misses, and the same model compiled to C (`ltu codegen`) against the goals that apply to it.
fn runtime_goal_table(
    report: &Report,
    runtime: &[(&str, &Entry, &Measure)],
    code: impl Fn(&Entry, &Measure) -> u64,
) -> String {
    let m3 = TARGETS[0].triple;
    let mut s = String::from(
        "\nModel by model (✗ marks a missed goal: stack ≤ 160 B, runtime code ≤ 3072 B, loading ≤ 40 \
         instructions per model byte, instructions ≤ 1.5 × the essential work; the last column is the same model \
         as generated C, whose stack and instructions the same goals apply to):\n\n\
         | dataset | model | stack B | runtime code B | load / byte | instr / essential | runtime / generated C | misses | generated C: instr / essential · stack B |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let mark = |ok: bool| if ok { "" } else { " ✗" };
    for (name, e, m) in runtime {
        let stack = m.stack.iter().copied().max().unwrap_or(0);
        let bytes = code(e, m);
        let per_byte = m.load.unwrap_or(0) as f64 / e.model_bytes.unwrap_or(1).max(1) as f64;
        let ratio = e.essential.map(|w| mean(&m.predict) as f64 / w.max(1.0));
        let c = report
            .datasets
            .iter()
            .find(|d| d.0 == *name)
            .and_then(|d| d.3.iter().find(|x| x.name == format!("{} codegen-c", e.name)))
            .and_then(|x| x.on(m3).map(|cm| (x, cm)));
        let mut misses = Vec::new();
        if stack > 160 {
            misses.push("stack");
        }
        if bytes > 3072 {
            misses.push("code");
        }
        if per_byte > 40.0 {
            misses.push("loading");
        }
        if ratio.is_none_or(|r| r > 1.5) {
            misses.push("instructions");
        }
        let vs_c = c.map_or("—".to_string(), |(_, cm)| {
            format!("{:.1}×", mean(&m.predict) as f64 / mean(&cm.predict).max(1) as f64)
        });
        let generated = c.map_or("—".to_string(), |(x, cm)| {
            let r = x.essential.map_or(f64::NAN, |w| mean(&cm.predict) as f64 / w.max(1.0));
            let st = cm.stack.iter().copied().max().unwrap_or(0);
            format!("{r:.2}×{} · {st}{}", mark(r <= 1.5), mark(st <= 160))
        });
        let _ = writeln!(
            s,
            "| {name} | `{}` | {stack}{} | {bytes}{} | {per_byte:.1}{} | {}{} | {vs_c} | {} | {generated} |",
            e.name,
            mark(stack <= 160),
            mark(bytes <= 3072),
            mark(per_byte <= 40.0),
            ratio.map_or("—".to_string(), |r| format!("{r:.2}×")),
            mark(ratio.is_some_and(|r| r <= 1.5)),
            if misses.is_empty() { "none".to_string() } else { misses.join(", ") },
        );
    }
    s
}

/// Which of the runtime's goals its models miss and why, by kind of model: trees of tests
/// (no unit: every FRINGE model) and models with units.
fn runtime_goal_misses(
    runtime: &[(&str, &Entry, &Measure)],
    code: impl Fn(&Entry, &Measure) -> u64,
) -> String {
    let mut s = String::from(
        "\nWhich models miss which goal, and why (docs/FORMAT.md section 9 has the profiles):\n\n",
    );
    for (tests, what) in
        [(true, "Trees of tests (no unit: every FRINGE model)"), (false, "Models with units")]
    {
        let group: Vec<_> = runtime.iter().filter(|(_, e, _)| (e.units == 0) == tests).collect();
        if group.is_empty() {
            continue;
        }
        let range = |v: Vec<f64>| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            (lo, hi)
        };
        let stack =
            range(group.iter().map(|(_, _, m)| m.stack.iter().copied().max().unwrap_or(0) as f64).collect());
        let bytes = range(group.iter().map(|(_, e, m)| code(e, m) as f64).collect());
        let ratio = range(
            group
                .iter()
                .filter_map(|(_, e, m)| e.essential.map(|w| mean(&m.predict) as f64 / w.max(1.0)))
                .collect(),
        );
        let names: Vec<String> = {
            let mut g: Vec<&str> = group.iter().map(|(_, e, _)| e.group.as_str()).collect();
            g.sort_unstable();
            g.dedup();
            g.iter().map(|g| format!("`{g}`")).collect()
        };
        let _ = writeln!(
            s,
            "- {what}, {} models ({}): stack {:.0}–{:.0} B, runtime code {:.0}–{:.0} B, {:.1}–{:.1}× the essential work.",
            group.len(),
            names.join(", "),
            stack.0,
            stack.1,
            bytes.0,
            bytes.1,
            ratio.0,
            ratio.1
        );
        let why = if tests {
            "  They meet the stack and code goals (a build with the `tree` feature alone links the walk and the \
             loader). They miss 1.5× the essential work: the walk over 12-byte node records costs 19 instructions per \
             threshold node (fetch with one bounds test 5, kind 4, input 3, compare 2, taken link 4, loop 1) where the \
             yardstick allows 9, and no layout read by safe Rust through bounds-tested slices gets under about 10."
        } else {
            "  They miss the stack goal: three frames (the walk; the unit evaluator, which holds the 64-byte cache of \
             numeric features; the row scorer) with 36 bytes of saved registers each. They miss the code goal: the \
             loader's checks and accumulator proof (about 2 KB) and the unit and feature evaluators. They miss 1.5× the essential work: per unit about 35 instructions of record \
             decoding and best-row bookkeeping, per row about 45 before its first weight, per numeric input about 30, \
             where the yardstick allows 8 per row and 15 per input."
        };
        let _ = writeln!(s, "{why}");
    }
    s.push_str(
        "\nFor a fixed model `ltu codegen` meets every instruction goal (docs/CODEGEN.md); the runtime is for models \
         that arrive at run time.\n",
    );
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
    fn runtime_goal_misses_group_trees_of_tests_and_models_with_units() {
        let entry = |group: &str, units: usize, model_bytes: usize| Entry {
            family: "ltu",
            name: group.into(),
            group: group.into(),
            accuracy: Some(1.0),
            model_bytes: Some(model_bytes),
            essential: Some(20.0),
            units,
            measures: Vec::new(),
            notes: Vec::new(),
        };
        let measure = |predict: u64, stack: u64, flash: u64| Measure {
            target: TARGETS[0],
            load: Some(100),
            predict: vec![predict],
            stack: vec![stack],
            flash,
            agree: 1,
        };
        let (fringe, ptree, ndl) = (entry("fringe", 0, 100), entry("ptree", 1, 200), entry("ndl", 3, 300));
        let (a, b, c) = (measure(60, 48, 2900), measure(100, 276, 6200), measure(200, 216, 5300));
        let runtime = [("iris", &fringe, &a), ("iris", &ptree, &b), ("car", &ndl, &c)];
        let code = |e: &Entry, m: &Measure| m.flash - e.model_bytes.unwrap() as u64;
        let text = runtime_goal_misses(&runtime, code);
        assert!(
            text.contains("Trees of tests (no unit: every FRINGE model), 1 models (`fringe`): stack 48–48 B, runtime code 2800–2800 B, 3.0–3.0×"),
            "{text}"
        );
        assert!(
            text.contains("Models with units, 2 models (`ndl`, `ptree`): stack 216–276 B, runtime code 5000–6000 B, 5.0–10.0×"),
            "{text}"
        );
    }
}
