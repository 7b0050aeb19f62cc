//! The pictures of the report: per dataset, accuracy against instructions per prediction and
//! against flash, with the Pareto front.

use std::fmt::Write as _;

use crate::bench::device::figures::{mean, Entry};
use crate::firmware::TARGETS;

fn colour(group: &str) -> &'static str {
    match group {
        "ptree" => "#1f77b4",
        "ndl" => "#ff7f0e",
        "hsi" => "#9467bd",
        "sparse" => "#2ca02c",
        "DT" => "#7f7f7f",
        "RF10" => "#d62728",
        "oblique" => "#8c564b",
        "fringe" => "#e377c2",
        _ => "#000000",
    }
}

/// A point's label in the pictures: `ptree d≤2`, `RF10 ld`.
fn short_label(name: &str) -> String {
    name.replace(" --max-depth ", " d≤")
        .replace(" --max-nodes ", " n≤")
        .replace(" --rounds ", " r=")
        .replace(" --prune-z ", " z=")
        .replace(" codegen-rs", " rs")
        .replace(" codegen-c", " c")
        .replace(" inline", "")
        .replace(" loadable", " ld")
}

/// Indices of the Pareto-optimal points: no other point is at least as cheap and at least as
/// accurate, and strictly better in one.
fn pareto(points: &[(f64, f64)]) -> Vec<usize> {
    (0..points.len())
        .filter(|&i| {
            let (c, a) = points[i];
            !points.iter().any(|&(c2, a2)| c2 <= c && a2 >= a && (c2 < c || a2 > a))
        })
        .collect()
}

/// A point of the pictures: the model, its instructions per prediction and flash bytes (each at
/// least 1, for the log scales), and its accuracy in percent.
type Point<'a> = (&'a Entry, f64, f64, f64);

/// The picture's width and height, each panel's width and height, and the first panel's left and
/// top edges.
const LAYOUT: (f64, f64, f64, f64, f64, f64) = (980.0, 470.0, 380.0, 300.0, 70.0, 40.0);

/// A panel's scales: log10 of cost from `lmin` to `lmax` across, accuracy from `amax` down to
/// `amin`.
struct Scale {
    x0: f64,
    lmin: f64,
    lmax: f64,
    amin: f64,
    amax: f64,
}

impl Scale {
    fn x(&self, c: f64) -> f64 {
        let (_, _, pw, ..) = LAYOUT;
        self.x0 + (c.log10() - self.lmin) / (self.lmax - self.lmin) * pw
    }

    fn y(&self, a: f64) -> f64 {
        let (_, _, _, ph, _, top) = LAYOUT;
        top + (self.amax - a) / (self.amax - self.amin) * ph
    }
}

/// Two panels: accuracy against instructions per prediction, and against flash (log scales),
/// every model measured on the Cortex-M3, the Pareto front drawn and its points ringed.
pub fn pareto_svg(name: &str, entries: &[Entry]) -> String {
    let m3 = TARGETS[0].triple;
    let pts: Vec<(&Entry, f64, f64, f64)> = entries
        .iter()
        .filter_map(|e| {
            let m = e.on(m3)?;
            Some((e, mean(&m.predict).max(1) as f64, m.flash.max(1) as f64, 100.0 * e.accuracy?))
        })
        .collect();
    let (w, h, ..) = LAYOUT;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" font-size="14" text-anchor="middle">{name}: 10-fold CV accuracy against cost on a Cortex-M3 (up and left is better)</text>"#,
        w / 2.0
    );
    if pts.is_empty() {
        s.push_str("</svg>\n");
        return s;
    }
    let (amin, amax) = pts.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.3), hi.max(p.3)));
    let (amin, amax) = ((amin - 1.0).floor(), (amax + 1.0).ceil().min(100.0).max(amin + 1.0));
    for (panel, xlabel) in [
        (0usize, "instructions per prediction (mean, log scale)"),
        (1, "flash bytes: runtime + model (log scale)"),
    ] {
        draw_panel(&mut s, &pts, panel, xlabel, (amin, amax));
    }
    legend(&mut s, &pts);
    s.push_str("</svg>\n");
    s
}

/// One panel (0: instructions, 1: flash): the axes, the Pareto front, and every point.
fn draw_panel(s: &mut String, pts: &[Point], panel: usize, xlabel: &str, (amin, amax): (f64, f64)) {
    let (_, _, pw, _, left, _) = LAYOUT;
    let x0 = left + panel as f64 * (pw + 110.0);
    let cost = |p: &Point| if panel == 0 { p.1 } else { p.2 };
    let (cmin, cmax) =
        pts.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(cost(p)), hi.max(cost(p))));
    let (lmin, lmax) = ((cmin.log10() - 0.1).floor(), (cmax.log10() + 0.1).ceil());
    let scale = Scale { x0, lmin, lmax, amin, amax };
    axes(s, &scale, xlabel);
    let coords: Vec<(f64, f64)> = pts.iter().map(|p| (cost(p), p.3)).collect();
    let mut front = pareto(&coords);
    front.sort_by(|&i, &j| coords[i].0.partial_cmp(&coords[j].0).unwrap());
    let mut path = String::new();
    for (k, &i) in front.iter().enumerate() {
        let (x, y) = (scale.x(coords[i].0), scale.y(coords[i].1));
        if k == 0 {
            let _ = write!(path, "M{x:.1},{y:.1}");
        } else {
            let _ = write!(path, " H{x:.1} V{y:.1}");
        }
    }
    let _ = writeln!(s, r##"<path d="{path}" fill="none" stroke="#222" stroke-dasharray="4 3"/>"##);
    for (i, p) in pts.iter().enumerate() {
        let (x, y) = (scale.x(cost(p)), scale.y(p.3));
        marker(s, p, x, y, cost(p));
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="#333">{}</text>"##,
            x + 7.0,
            y - 6.0,
            short_label(&p.0.name)
        );
        if front.contains(&i) {
            let _ = writeln!(
                s,
                r##"<circle cx="{x:.1}" cy="{y:.1}" r="9" fill="none" stroke="#222" stroke-width="1"/>"##
            );
        }
    }
}

/// A panel's frame, its log-scale cost grid and labels, its accuracy grid and labels.
fn axes(s: &mut String, scale: &Scale, xlabel: &str) {
    let (_, _, pw, ph, _, top) = LAYOUT;
    let Scale { x0, lmin, lmax, amin, amax } = *scale;
    let sx = |c: f64| scale.x(c);
    let sy = |a: f64| scale.y(a);
    let _ =
        writeln!(s, r##"<rect x="{x0}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##);
    let mut decade = lmin;
    while decade <= lmax {
        for k in 1..10 {
            let c = 10f64.powf(decade) * f64::from(k);
            if c.log10() > lmax + 1e-9 {
                break;
            }
            let x = sx(c);
            let major = k == 1;
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{}" stroke="{}" stroke-width="0.5"/>"##,
                top + ph,
                if major { "#bbb" } else { "#eee" }
            );
            if major {
                let _ = writeln!(
                    s,
                    r#"<text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
                    top + ph + 14.0,
                    c as u64
                );
            }
        }
        decade += 1.0;
    }
    let step = if amax - amin > 20.0 {
        5.0
    } else if amax - amin > 8.0 {
        2.0
    } else {
        1.0
    };
    let mut a = (amin / step).ceil() * step;
    while a <= amax {
        let y = sy(a);
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#eee" stroke-width="0.5"/>"##,
            x0 + pw
        );
        let _ = writeln!(s, r#"<text x="{}" y="{:.1}" text-anchor="end">{a}</text>"#, x0 - 4.0, y + 4.0);
        a += step;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{xlabel}</text>"#,
        x0 + pw / 2.0,
        top + ph + 32.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">accuracy %</text>"#,
        x0 - 40.0,
        top + ph / 2.0,
        x0 - 40.0,
        top + ph / 2.0
    );
}

/// One point: circle (ltu runtime), diamond (generated Rust), triangle (generated C) or square
/// (emlearn), hollow for budget options and emlearn's loadable models.
fn marker(s: &mut String, p: &Point, x: f64, y: f64, cost: f64) {
    let c = colour(&p.0.group);
    let hollow = p.0.name.ends_with("loadable") || p.0.name.contains("--");
    let fill = if hollow { "white" } else { c };
    if p.0.name.ends_with("codegen-c") {
        let _ = writeln!(
            s,
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{fill}" stroke="{c}" stroke-width="2"><title>ltu {} — {:.1}%, {}</title></polygon>"#,
            x,
            y - 6.5,
            x + 6.0,
            y + 5.0,
            x - 6.0,
            y + 5.0,
            p.0.name,
            p.3,
            cost as u64
        );
    } else if p.0.name.ends_with("codegen-rs") {
        let _ = writeln!(
            s,
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{fill}" stroke="{c}" stroke-width="2"><title>ltu {} — {:.1}%, {}</title></polygon>"#,
            x,
            y - 6.5,
            x + 6.5,
            y,
            x,
            y + 6.5,
            x - 6.5,
            y,
            p.0.name,
            p.3,
            cost as u64
        );
    } else if p.0.family == "ltu" {
        let _ = writeln!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="{fill}" stroke="{c}" stroke-width="2"><title>ltu {} — {:.1}%, {}</title></circle>"#,
            p.0.name, p.3, cost as u64
        );
    } else {
        let _ = writeln!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="9" height="9" fill="{fill}" stroke="{c}" stroke-width="2"><title>emlearn {} — {:.1}%, {}</title></rect>"#,
            x - 4.5,
            y - 4.5,
            p.0.name,
            p.3,
            cost as u64
        );
    }
}

/// The legend: one swatch per family and group, and what the shapes mean.
fn legend(s: &mut String, pts: &[Point]) {
    let (w, _, _, ph, left, top) = LAYOUT;
    let mut ly = top + ph + 52.0;
    let mut lx = left;
    let groups: Vec<(&str, &str)> = {
        let mut g: Vec<(&str, &str)> = Vec::new();
        for p in pts {
            let key = (p.0.family, p.0.group.as_str());
            if !g.contains(&key) {
                g.push(key);
            }
        }
        g
    };
    for (family, group) in groups {
        let c = colour(group);
        if family == "ltu" {
            let _ = writeln!(s, r#"<circle cx="{lx}" cy="{ly}" r="5" fill="{c}"/>"#);
        } else {
            let _ =
                writeln!(s, r#"<rect x="{}" y="{}" width="9" height="9" fill="{c}"/>"#, lx - 4.5, ly - 4.5);
        }
        let _ = writeln!(s, r#"<text x="{}" y="{}">{family} {group}</text>"#, lx + 10.0, ly + 4.0);
        lx += 130.0;
        if lx > w - 150.0 {
            lx = left;
            ly += 18.0;
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}">circle: ltu runtime + model file; diamond / triangle: ltu codegen, Rust / C; square: emlearn</text>"#,
        ly + 20.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}">filled: defaults / emlearn inline; hollow: budget option / emlearn loadable; ringed: on the Pareto front (dashed)</text>"#,
        ly + 36.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_keeps_only_undominated_points() {
        let pts = [(10.0, 90.0), (20.0, 95.0), (15.0, 80.0), (30.0, 95.0), (5.0, 70.0)];
        assert_eq!(pareto(&pts), [0, 1, 4]);
    }
}
