//! Export to the model IR ([`ModelSpec`]) and the text rendering of a tree.

use std::fmt;

use super::refit::drop_unseen_classes;
use super::{ltu_n_values, Ltu, NodeState, PerceptronTree, Test};
use crate::model::{Feature, ModelSpec, Node, Structure, Unit, WeightKind};

impl PerceptronTree {
    /// The tree as a [`ModelSpec`] over the space's inputs: decision nodes become
    /// [`Node::Categorical`] / [`Node::Threshold`], LTUs [`Node::Unit`] over exactly their
    /// features, missing branches [`Node::Class`] with the node's majority class. Only the
    /// features some unit reads are kept. Weights are stored as-is with [`WeightKind::I32`];
    /// `learn::finish` chooses the final width.
    pub fn to_model_spec(&self) -> ModelSpec {
        // Keep the features that reachable LTUs read, in their original order.
        let mut used = vec![false; self.space.features.len()];
        let mut stack = vec![0usize];
        while let Some(id) = stack.pop() {
            match &self.nodes[id] {
                NodeState::Ltu(l) if self.constant_leaf(l).is_none() => {
                    l.active.iter().for_each(|&f| used[f as usize] = true);
                }
                NodeState::Ltu(_) => {}
                NodeState::Decision(d) => stack.extend(d.children.iter().flatten()),
                NodeState::Empty { .. } => {}
            }
        }
        let mut remap = vec![usize::MAX; used.len()];
        let mut features = Vec::new();
        for (i, f) in self.space.features.iter().enumerate() {
            if used[i] {
                remap[i] = features.len();
                features.push(f.clone());
            }
        }
        let mut nodes = Vec::new();
        let mut units = Vec::new();
        self.emit(0, &remap, &mut nodes, &mut units);
        ModelSpec {
            pipeline: None,
            n_classes: self.n_classes,
            weight_kind: WeightKind::I32,
            inputs: self.space.inputs.clone(),
            features,
            units,
            structure: Structure::Tree(nodes),
            names: None,
        }
    }

    /// The class of a leaf LTU that saw training instances of one class only, when leaves are
    /// compacted; the majority class of any leaf under [`super::Params::constant_leaves`].
    fn constant_leaf(&self, l: &Ltu) -> Option<usize> {
        if self.constant_leaves {
            Some(l.majority())
        } else if self.compact_leaves {
            l.only_class()
        } else {
            None
        }
    }

    /// Emits node `id` and its subtree in preorder (links point forward); returns its index.
    fn emit(&self, id: usize, remap: &[usize], nodes: &mut Vec<Node>, units: &mut Vec<Unit>) -> usize {
        let me = nodes.len();
        nodes.push(Node::Class(0));
        nodes[me] = match &self.nodes[id] {
            NodeState::Empty { .. } => Node::Class(0),
            NodeState::Ltu(l) => {
                if self.n_classes < 2 {
                    Node::Class(0)
                } else if let Some(class) = self.constant_leaf(l) {
                    Node::Class(class)
                } else {
                    let mut unit = l.to_unit(remap, self.n_classes, self.pocket);
                    if self.compact_leaves {
                        drop_unseen_classes(&mut unit, &l.class_counts);
                    }
                    units.push(unit);
                    Node::Unit(units.len() - 1)
                }
            }
            NodeState::Decision(d) => {
                let mut fallback = None;
                let mut kids = Vec::with_capacity(d.children.len());
                for c in &d.children {
                    let k = match c {
                        Some(c) => self.emit(*c, remap, nodes, units),
                        None => *fallback.get_or_insert_with(|| {
                            nodes.push(Node::Class(d.fallback));
                            nodes.len() - 1
                        }),
                    };
                    kids.push(k);
                }
                match d.test {
                    Test::Categorical { attr } => {
                        let default = kids[d.default_branch()];
                        Node::Categorical { attr, children: kids, default }
                    }
                    Test::Value { attr, value } => {
                        let n = usize::from(ltu_n_values(&self.space, attr));
                        let children = (0..n).map(|v| kids[usize::from(v as i32 != value)]).collect();
                        Node::Categorical { attr, children, default: kids[1] }
                    }
                    Test::Threshold { attr, threshold } => {
                        Node::Threshold { attr, threshold, left: kids[0], right: kids[1] }
                    }
                }
            }
        };
        me
    }
}

impl fmt::Display for PerceptronTree {
    /// An indented listing: decision nodes with their tests, LTUs with their weights per
    /// feature (like Figure 2 of the paper).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut stack = vec![(0usize, 0usize, String::new())];
        while let Some((id, depth, label)) = stack.pop() {
            let pad = "  ".repeat(depth);
            match &self.nodes[id] {
                NodeState::Empty { .. } => writeln!(f, "{pad}{label}empty")?,
                NodeState::Ltu(l) => {
                    let w = l.predicting_weights(self.pocket);
                    let dim = l.active.len() + 1;
                    write!(f, "{pad}{label}LTU")?;
                    for row in w.chunks(dim) {
                        write!(f, " [")?;
                        for (j, &f_idx) in l.active.iter().enumerate() {
                            let name = match &self.space.features[f_idx as usize] {
                                Feature::Equals { attr, value } => format!("x{attr}={value}"),
                                Feature::Numeric { attr, .. } => format!("x{attr}"),
                                Feature::Greater { attr, value } => format!("x{attr}>{value}"),
                                Feature::Conjunction(_) => format!("f{f_idx}"),
                            };
                            write!(f, "{name}:{} ", row[j])?;
                        }
                        write!(f, "θ:{}]", row[dim - 1])?;
                    }
                    writeln!(f)?;
                }
                NodeState::Decision(d) => {
                    match d.test {
                        Test::Categorical { attr } => writeln!(f, "{pad}{label}test x{attr}")?,
                        Test::Value { attr, value } => writeln!(f, "{pad}{label}test x{attr} = {value}")?,
                        Test::Threshold { attr, threshold } => {
                            writeln!(f, "{pad}{label}test x{attr} <= {threshold}")?
                        }
                    }
                    for (b, c) in d.children.iter().enumerate().rev() {
                        let lab = match d.test {
                            Test::Categorical { attr } => format!("x{attr}={b}: "),
                            Test::Value { .. } | Test::Threshold { .. } => {
                                (if b == 0 { "yes: " } else { "no: " }).to_string()
                            }
                        };
                        match c {
                            Some(c) => stack.push((*c, depth + 1, lab)),
                            None => writeln!(f, "{pad}  {lab}(no branch: class {})", d.fallback)?,
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
