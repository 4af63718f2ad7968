//! Grid expansion: the generator options whose value is a list or a range
//! are the axes; a point is one value per axis, nested in the order of the
//! [`Generator`] fields (so `util`, the cap, varies fastest). Each point is a
//! full `schedlab gen` setting ([`GenParams`]) and its canonical option
//! string, from which its sets' seeds derive.

use crate::file::{Generator, Param};
use schedlab_gen::{GenOptions, GenParams};

/// One value of an axis.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(u32),
    Num(f64),
    Text(String),
    Bool(bool),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Num(v) => write!(f, "{v}"),
            Value::Text(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
        }
    }
}

/// An axis: the option's name and its values in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub name: &'static str,
    pub values: Vec<Value>,
}

/// A grid point.
#[derive(Debug, Clone)]
pub struct Point {
    /// Index in grid order.
    pub index: usize,
    /// The value of each axis (same order as [`Grid::axes`]).
    pub values: Vec<Value>,
    pub params: GenParams,
    /// The canonical option string (`GenParams::to_args`), the point's identity.
    pub key: String,
}

/// The expanded grid.
#[derive(Debug, Clone)]
pub struct Grid {
    pub axes: Vec<Axis>,
    pub points: Vec<Point>,
}

/// Most points a grid may have.
pub const MAX_POINTS: usize = 10_000_000;

/// Values of a range `from..=to` by `step`, rounded to 10 decimals (so that
/// 2.0 + 3 × 0.1 is 2.3).
fn range(from: f64, to: f64, step: f64) -> Result<Vec<f64>, String> {
    if !(from.is_finite() && to.is_finite() && step.is_finite() && step > 0.0 && from <= to) {
        return Err(format!("range {{from: {from}, to: {to}, step: {step}}} needs from ≤ to and step > 0"));
    }
    let n = ((to - from) / step + 1e-9).floor() as usize + 1;
    if n > MAX_POINTS {
        return Err(format!("the range has {n} values; at most {MAX_POINTS}"));
    }
    Ok((0..n).map(|i| ((from + i as f64 * step) * 1e10).round() / 1e10).collect())
}

fn values<T: Clone>(
    p: &Param<T>,
    wrap: impl Fn(T) -> Value,
    from_f: Option<fn(f64) -> Value>,
) -> Result<(Vec<Value>, bool), String> {
    match p {
        Param::One(v) => Ok((vec![wrap(v.clone())], false)),
        Param::Many(v) if v.is_empty() => Err("an empty list; give at least one value".into()),
        Param::Many(v) => Ok((v.iter().cloned().map(wrap).collect(), true)),
        Param::Range { from, to, step } => match from_f {
            Some(f) => Ok((range(*from, *to, *step)?.into_iter().map(f).collect(), true)),
            None => Err("a range applies to numbers only; give a list".into()),
        },
    }
}

fn int(v: f64) -> Value {
    Value::Int(v.round().max(0.0) as u32)
}

/// An option: its name, its values, and whether it is a grid axis.
type Opt = (&'static str, Vec<Value>, bool);

/// Every option of `g`, in field order.
fn options(g: &Generator) -> Result<Vec<Opt>, (String, String)> {
    let mut out = Vec::new();
    macro_rules! opt {
        ($field:ident, $wrap:expr, $num:expr) => {
            if let Some(p) = &g.$field {
                let (v, axis) = values(p, $wrap, $num).map_err(|m| (stringify!($field).to_string(), m))?;
                out.push((stringify!($field), v, axis));
            }
        };
    }
    opt!(cpus, Value::Int, Some(int));
    opt!(utils, Value::Text, None);
    opt!(periods, Value::Text, None);
    opt!(deadlines, Value::Text, None);
    opt!(wss, Value::Text, None);
    opt!(prem, Value::Text, None);
    opt!(tasks, Value::Int, Some(int));
    opt!(slack, Value::Num, Some(Value::Num));
    opt!(umin, Value::Num, Some(Value::Num));
    opt!(umax, Value::Num, Some(Value::Num));
    opt!(period_granularity, Value::Text, None);
    opt!(wcet_granularity, Value::Text, None);
    opt!(harmonic, Value::Bool, None);
    opt!(slack_per_cpu, Value::Num, Some(Value::Num));
    opt!(util, Value::Num, Some(Value::Num));
    opt!(util_per_cpu, Value::Num, Some(Value::Num));
    if g.util.is_some() && g.util_per_cpu.is_some() {
        return Err(("util_per_cpu".into(), "give `util` or `util_per_cpu`, not both".into()));
    }
    if g.slack.is_some() && g.slack_per_cpu.is_some() {
        return Err(("slack_per_cpu".into(), "give `slack` or `slack_per_cpu`, not both".into()));
    }
    Ok(out)
}

fn set(o: &mut GenOptions, name: &str, v: &Value) {
    let text = |v: &Value| v.to_string();
    let num = |v: &Value| match v {
        Value::Num(x) => *x,
        Value::Int(x) => *x as f64,
        _ => f64::NAN,
    };
    let uint = |v: &Value| match v {
        Value::Int(x) => *x,
        Value::Num(x) => *x as u32,
        _ => 0,
    };
    match name {
        "cpus" => o.cpus = Some(uint(v)),
        "utils" => o.utils = Some(text(v)),
        "periods" => o.periods = Some(text(v)),
        "deadlines" => o.deadlines = Some(text(v)),
        "wss" => o.wss = Some(text(v)),
        "prem" => {
            // `schedlab gen --prem` draws PREM sets for `mcs` only.
            o.prem = Some(text(v));
            o.policy = Some(schedlab_model::PolicyName::Mcs);
        }
        "tasks" => o.tasks = Some(uint(v)),
        "slack" => o.slack = Some(num(v)),
        "umin" => o.umin = Some(num(v)),
        "umax" => o.umax = Some(num(v)),
        "period_granularity" => o.period_granularity = Some(text(v)),
        "wcet_granularity" => o.wcet_granularity = Some(text(v)),
        "harmonic" => o.harmonic = Some(matches!(v, Value::Bool(true))),
        "util" => o.util = Some(num(v)),
        // Scaled by the CPUs once every option is set (`per_cpu`).
        "util_per_cpu" | "slack_per_cpu" => {}
        _ => unreachable!("every option is listed in `options`"),
    }
}

/// `util_per_cpu` and `slack_per_cpu` times the point's CPUs (rounded to 10 decimals).
fn per_cpu(o: &mut GenOptions, opts: &[Opt], axes: &[Axis], values: &[Value]) {
    let value = |name: &str| {
        axes.iter()
            .position(|a| a.name == name)
            .map(|i| values[i].clone())
            .or_else(|| opts.iter().find(|x| x.0 == name && !x.2).map(|x| x.1[0].clone()))
    };
    let cpus = o.cpus.unwrap_or(GenParams::default().cpus) as f64;
    let scaled = |v: Value| match v {
        Value::Num(f) => Some(((f * cpus) * 1e10).round() / 1e10),
        _ => None,
    };
    if let Some(u) = value("util_per_cpu").and_then(scaled) {
        o.util = Some(u);
    }
    if let Some(s) = value("slack_per_cpu").and_then(scaled) {
        o.slack = Some(s);
    }
}

/// Expands the grid. Errors: (field, message).
pub fn expand(g: &Generator) -> Result<Grid, (String, String)> {
    let opts = options(g)?;
    let total: usize = opts.iter().map(|o| o.1.len()).try_fold(1usize, |a, n| a.checked_mul(n)).unwrap_or(usize::MAX);
    if total > MAX_POINTS {
        return Err(("util".into(), format!("the grid has {total} points; at most {MAX_POINTS}")));
    }
    let axes: Vec<Axis> = opts.iter().filter(|o| o.2).map(|o| Axis { name: o.0, values: o.1.clone() }).collect();
    let mut base = GenOptions::default();
    for (name, v, axis) in &opts {
        if !axis {
            set(&mut base, name, &v[0]);
        }
    }
    let mut points = Vec::with_capacity(total);
    let mut idx = vec![0usize; axes.len()];
    for index in 0..total {
        let mut o = base.clone();
        let values: Vec<Value> = axes.iter().zip(&idx).map(|(a, &i)| a.values[i].clone()).collect();
        for (a, v) in axes.iter().zip(&values) {
            set(&mut o, a.name, v);
        }
        per_cpu(&mut o, &opts, &axes, &values);
        let params = o.into_params().map_err(|m| {
            let field = m.split(':').next().unwrap_or("").to_string();
            let at: Vec<String> = axes.iter().zip(&values).map(|(a, v)| format!("{}={v}", a.name)).collect();
            (field, format!("{m} (at the point {})", at.join(", ")))
        })?;
        let key = params.to_args();
        points.push(Point { index, values, params, key });
        // Odometer: the last axis varies fastest.
        for k in (0..axes.len()).rev() {
            idx[k] += 1;
            if idx[k] < axes[k].values.len() {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(Grid { axes, points })
}

/// Checks that the grid expands (for the file's checks).
pub fn check(g: &Generator) -> Result<(), (String, String)> {
    let grid = expand(g)?;
    for p in &grid.points {
        if p.params.utils.is_vector() && p.params.slack.is_some() {
            return Err(("slack".into(), "applies only to the named distributions (uni-*, exp-*, bimo-*)".into()));
        }
        if !p.params.utils.is_vector() && p.params.tasks.is_some() {
            return Err((
                "tasks".into(),
                "does not apply to a named distribution: it draws tasks until the cap `util`".into(),
            ));
        }
        if p.params.cpus == 0 {
            return Err(("cpus".into(), "must be at least 1".into()));
        }
    }
    crate::prem::check_points(&grid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_rounded_and_inclusive() {
        let v = range(2.0, 8.0, 0.1).unwrap();
        assert_eq!(v.len(), 61);
        assert_eq!(v[3], 2.3);
        assert_eq!(*v.last().unwrap(), 8.0);
        assert!(range(3.0, 2.0, 0.1).is_err());
        assert!(range(2.0, 3.0, 0.0).is_err());
    }

    #[test]
    fn the_last_axis_varies_fastest_and_keys_differ() {
        let g = Generator {
            cpus: Some(Param::One(8)),
            utils: Some(Param::Many(vec!["uni-light".into(), "uni-heavy".into()])),
            util: Some(Param::Range { from: 2.0, to: 2.2, step: 0.1 }),
            ..Generator::default()
        };
        let grid = expand(&g).unwrap();
        assert_eq!(grid.axes.iter().map(|a| a.name).collect::<Vec<_>>(), ["utils", "util"]);
        assert_eq!(grid.points.len(), 6);
        assert_eq!(grid.points[1].values, vec![Value::Text("uni-light".into()), Value::Num(2.1)]);
        assert_eq!(grid.points[3].values[0], Value::Text("uni-heavy".into()));
        let keys: std::collections::HashSet<_> = grid.points.iter().map(|p| p.key.clone()).collect();
        assert_eq!(keys.len(), 6);
        assert!(grid.points[0].key.contains("--utils uni-light") && grid.points[0].key.contains("--util 2"));
    }

    #[test]
    fn per_cpu_fractions_scale_with_the_points_cpus() {
        let g = Generator {
            cpus: Some(Param::Many(vec![4, 16])),
            utils: Some(Param::One("bimo-heavy".into())),
            util_per_cpu: Some(Param::Many(vec![0.5, 0.95])),
            slack_per_cpu: Some(Param::One(0.01)),
            ..Generator::default()
        };
        let grid = expand(&g).unwrap();
        let got: Vec<(u32, f64, f64)> =
            grid.points.iter().map(|p| (p.params.cpus, p.params.util.unwrap(), p.params.slack.unwrap())).collect();
        assert_eq!(got, vec![(4, 2.0, 0.04), (4, 3.8, 0.04), (16, 8.0, 0.16), (16, 15.2, 0.16)]);
        let both = Generator { util: Some(Param::One(2.0)), ..g };
        assert_eq!(expand(&both).unwrap_err().0, "util_per_cpu");
    }

    #[test]
    fn bad_words_name_the_option_and_the_point() {
        let g =
            Generator { utils: Some(Param::Many(vec!["uni-light".into(), "uni-hevy".into()])), ..Generator::default() };
        let (field, msg) = expand(&g).unwrap_err();
        assert_eq!(field, "utils");
        assert!(msg.contains("uni-hevy"), "{msg}");
        let g = Generator { utils: Some(Param::Range { from: 1.0, to: 2.0, step: 1.0 }), ..Generator::default() };
        assert_eq!(expand(&g).unwrap_err().0, "utils");
    }
}
