//! Evaluation figures: per-class precision, recall and F1 from a confusion matrix, with their
//! macro averages.

use serde::Serialize;

/// Per-class figures of an evaluation.
#[derive(Debug, Serialize)]
pub struct ClassReport {
    /// Class name.
    pub class: String,
    /// Rows of this class.
    pub support: usize,
    /// Correct / predicted as this class (0 when nothing was predicted as it).
    pub precision: f64,
    /// Correct / rows of this class (0 when it has no rows).
    pub recall: f64,
    /// Harmonic mean of precision and recall (0 when both are 0).
    pub f1: f64,
}

/// Per-class precision, recall and F1 from `confusion[true][predicted]` (which may have more rows
/// than `classes`: rows of classes the model does not know), and their macro averages over the
/// classes that occur in the data or in the predictions.
pub fn class_figures(confusion: &[Vec<usize>], classes: &[String]) -> (Vec<ClassReport>, [f64; 3]) {
    let per_class: Vec<ClassReport> = classes
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let predicted: usize = confusion.iter().map(|r| r[c]).sum();
            let support: usize = confusion[c].iter().sum();
            let hit = confusion[c][c];
            let precision = if predicted == 0 { 0.0 } else { hit as f64 / predicted as f64 };
            let recall = if support == 0 { 0.0 } else { hit as f64 / support as f64 };
            let f1 =
                if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
            ClassReport { class: name.clone(), support, precision, recall, f1 }
        })
        .collect();
    let counted: Vec<&ClassReport> = per_class
        .iter()
        .enumerate()
        .filter(|(c, r)| r.support > 0 || confusion.iter().any(|row| row[*c] > 0))
        .map(|(_, r)| r)
        .collect();
    let n = counted.len().max(1) as f64;
    let macros = [
        counted.iter().map(|r| r.precision).sum::<f64>() / n,
        counted.iter().map(|r| r.recall).sum::<f64>() / n,
        counted.iter().map(|r| r.f1).sum::<f64>() / n,
    ];
    (per_class, macros)
}

/// Mean and sample standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n.max(1.0);
    let var = if xs.len() > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::class_figures;

    #[test]
    fn figures_of_a_confusion_matrix() {
        // Rows: true class; the third row is a class the model does not know.
        let confusion = vec![vec![8, 2], vec![1, 9], vec![0, 5]];
        let classes = ["a".to_string(), "b".to_string()];
        let (per_class, macros) = class_figures(&confusion, &classes);
        assert_eq!(per_class[0].support, 10);
        assert!((per_class[0].precision - 8.0 / 9.0).abs() < 1e-12);
        assert!((per_class[0].recall - 0.8).abs() < 1e-12);
        assert!((per_class[1].precision - 9.0 / 16.0).abs() < 1e-12);
        let f1 = 2.0 * (8.0 / 9.0) * 0.8 / (8.0 / 9.0 + 0.8);
        assert!((per_class[0].f1 - f1).abs() < 1e-12);
        assert!((macros[1] - (0.8 + 0.9) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_class_never_seen_nor_predicted_is_left_out_of_the_macro_average() {
        let confusion = vec![vec![5, 0, 0], vec![0, 5, 0], vec![0, 0, 0]];
        let classes = ["a".to_string(), "b".to_string(), "c".to_string()];
        let (per_class, macros) = class_figures(&confusion, &classes);
        assert_eq!(per_class[2].f1, 0.0);
        assert_eq!(macros, [1.0, 1.0, 1.0]);
    }
}
