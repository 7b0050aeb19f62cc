//! Stack use of evaluation, measured on the host, and the claim that it does not depend on the
//! model's size (evaluation is a loop, not a recursion).
//!
//! Method: the input source passed to `predict_with` is called from the deepest point of the
//! evaluation (`evaluate -> decide -> features_into -> source` for a machine; a binary unit's
//! row scoring is inlined into `decide`). It records the address
//! of one of its own locals; the distance from a local of the caller just before the call is
//! the stack that evaluation occupies down to that point (plus the source's own small frame).
//! Only addresses are compared, no memory is read, so the method is sound in safe Rust; it
//! measures this build on this host (x86_64). The bound for thumbv7m comes from the generated
//! code instead: `tests/thumbv7m/check.sh` (see docs/FORMAT.md, "Resource use").

use std::cell::Cell;
use std::hint::black_box;

use ltu_runtime::format::{
    self, node_kind, InputRec, ModelRepr, NodeRec, ScaleRec, StructureRepr, UnitRec, WeightKind,
};
use ltu_runtime::Model;

/// A chain of `depth` threshold nodes ending in a leaf decided by a dense unit over `n_features`
/// numeric inputs.
fn chain(depth: usize, n_features: usize) -> Vec<u8> {
    let inputs: Vec<u8> = (0..n_features).flat_map(|_| InputRec { n_values: 0 }.to_bytes()).collect();
    let scale = ScaleRec { offset: 0, mul: 1, max_abs: 100, shift: 0 };
    let scales: Vec<u8> = (0..n_features).flat_map(|_| scale.to_bytes()).collect();
    let unit = UnitRec {
        flags: 0,
        n_out: 1,
        n_terms: n_features as u16,
        term_start: 0,
        class_start: 0,
        weight_start: 0,
    };
    let weights = vec![1u8; n_features + 1];
    let mut nodes: Vec<u8> = (0..depth)
        .flat_map(|i| {
            let next = (i + 1) as u16;
            NodeRec { head: 0, link: next, value: i as i32 }.to_bytes()
        })
        .collect();
    nodes.extend(NodeRec { head: node_kind::UNIT, link: 0, value: 0 }.to_bytes());
    let repr = ModelRepr {
        n_classes: 2,
        weight_kind: WeightKind::I8,
        inputs: &inputs,
        scales: &scales,
        features: &[],
        literals: &[],
        units: &unit.to_bytes(),
        term_features: &[],
        weights: &weights,
        unit_classes: &[0, 0, 1, 0],
        structure: StructureRepr::Tree { nodes: &nodes, children: &[] },
        pipeline: None,
        host: None,
    };
    let mut out = vec![0; 64 + inputs.len() + scales.len() + nodes.len() + weights.len()];
    let n = format::encode(&repr, &mut out).unwrap();
    out.truncate(n);
    out
}

/// Bytes of stack between the caller of `predict_with` and the deepest input read.
#[inline(never)]
fn stack_used(model: &Model<'_>) -> usize {
    let deepest = Cell::new(usize::MAX);
    let top = black_box(0u64);
    let top_addr = &top as *const u64 as usize;
    let class = model
        .predict_with(|_| {
            let probe = black_box(0u64);
            deepest.set(deepest.get().min(&probe as *const u64 as usize));
            Some(5i32)
        })
        .unwrap();
    black_box(class);
    top_addr - deepest.get()
}

#[test]
fn stack_use_does_not_grow_with_model_size() {
    let shapes = [(1, 1), (2, 1), (100, 1), (5000, 1), (1, 1000), (3000, 3000)];
    let models: Vec<Vec<u8>> = shapes.iter().map(|&(d, f)| chain(d, f)).collect();
    // One call site for every model, so the caller's frame is the same each time.
    let used: Vec<usize> = models.iter().map(|b| stack_used(&Model::from_bytes(b).unwrap())).collect();
    for (shape, u) in shapes.iter().zip(&used) {
        assert_eq!(*u, used[0], "(depth, features) {shape:?}: {u} bytes vs {} for {:?}", used[0], shapes[0]);
    }
    // Generous absolute ceiling, so a large stack buffer added to evaluation is noticed.
    let ceiling = if cfg!(debug_assertions) { 8 * 1024 } else { 2 * 1024 };
    assert!(used[0] < ceiling, "evaluation uses {} bytes of stack on this host", used[0]);
    println!("host stack at the deepest input read: {} bytes", used[0]);
}
