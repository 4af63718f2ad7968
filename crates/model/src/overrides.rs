//! Changing a loaded spec for one call: `--policy NAME` and `--set KEY=VALUE`
//! (and `policy=` in Python), and the rule that a `priority` on the tasks
//! means explicit priorities.
//!
//! Replacing the policy keeps the parameters that apply to the new one and
//! drops the others with a notice, so that comparing policies is one loop
//! over names; a `--set` key that the policy does not take is an error naming
//! the keys it does take.

use crate::spec::{Domains, PolicyName, PolicySpec, Priorities, Spec};
use crate::Diagnostic;

/// Whether policy `p` takes the parameter `policy.KEY` (its descriptor says).
pub fn applies(key: &str, p: PolicyName) -> bool {
    p.descriptor().param(key).is_some()
}

/// The keys `p` takes.
pub fn keys_of(p: PolicyName) -> Vec<&'static str> {
    p.descriptor().params.iter().map(|p| p.key).collect()
}

/// Parses a policy name, or says which exist.
pub fn policy_name(s: &str) -> Result<PolicyName, String> {
    PolicyName::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = PolicyName::ALL.iter().map(|p| p.name()).collect();
        format!("unknown policy `{s}`; use one of {}", names.join(", "))
    })
}

/// Replaces the spec's policy by `name` (when given) and sets `KEY=VALUE`
/// parameters. Returns the notices (parameters dropped, pins dropped); an
/// error is a [`Diagnostic`] whose path is the option (`--policy`, `--set`).
pub fn apply(spec: &mut Spec, name: Option<&str>, set: &[String]) -> Result<Vec<String>, Diagnostic> {
    let mut notices = Vec::new();
    if let Some(n) = name {
        let new = policy_name(n).map_err(|m| Diagnostic::new("--policy", m))?;
        let old = spec.policy.clone();
        let mut pol = PolicySpec::named(new);
        if let Some(o) = old {
            if o.name != new {
                let v = serde_json::to_value(&o).expect("a policy serializes");
                let mut kept = serde_json::Map::new();
                kept.insert("name".into(), serde_json::json!(new.name()));
                for (k, val) in v.as_object().expect("an object") {
                    if k == "name" {
                        continue;
                    }
                    if applies(k, new) {
                        kept.insert(k.clone(), val.clone());
                    } else {
                        notices.push(format!(
                            "policy.{k}: dropped, `{}` does not take it (it had `{}`)",
                            new.name(),
                            o.name.name()
                        ));
                    }
                }
                pol = serde_json::from_value(serde_json::Value::Object(kept)).expect("kept keys deserialize");
            } else {
                pol = o;
            }
        }
        // Pins of another kind of placement do not apply.
        let domains = new.domains();
        let pinned_cpu = spec.tasks.iter().filter(|t| t.cpu.is_some()).count();
        let pinned_cluster = spec.tasks.iter().filter(|t| t.cluster.is_some()).count();
        if domains == Domains::Global && pinned_cpu + pinned_cluster > 0 {
            for t in &mut spec.tasks {
                t.cpu = None;
                t.cluster = None;
            }
            notices.push(format!(
                "tasks[*].cpu, tasks[*].cluster: the pins of {} task(s) dropped, `{}` is global",
                pinned_cpu.max(pinned_cluster),
                new.name()
            ));
        } else if domains == Domains::PerCluster && pinned_cpu > 0 && spec.platform.clusters.is_none() {
            // Reported by validation (clusters needed).
        } else if domains == Domains::PerCpu && pinned_cluster > 0 {
            for t in &mut spec.tasks {
                t.cluster = None;
            }
            notices.push(format!("tasks[*].cluster: dropped, `{}` partitions onto CPUs", new.name()));
        }
        spec.policy = Some(pol);
    }
    for kv in set {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(Diagnostic::new("--set", format!("`{kv}` is not KEY=VALUE, e.g. `--set quantum=500us`")));
        };
        let k = k.trim().trim_start_matches("policy.").replace('-', "_");
        let Some(pol) = spec.policy.as_mut() else {
            return Err(Diagnostic::new("--set", "the spec has no `policy`; give --policy NAME first"));
        };
        if !applies(&k, pol.name) {
            return Err(Diagnostic::new("--set", crate::validate::not_a_param(&k, pol.name)));
        }
        let mut obj = serde_json::to_value(&*pol).expect("a policy serializes");
        let value: serde_json::Value = match v.trim() {
            "true" => serde_json::json!(true),
            "false" => serde_json::json!(false),
            s => serde_json::json!(s),
        };
        // A number or a list (`threshold=4`, `throttle_range=[1, 3]`) is
        // tried as such first, then as text (`quantum=10ms`, `capacity=ll`).
        let typed = serde_json::from_str::<serde_json::Value>(v.trim())
            .ok()
            .filter(|x| x.is_number() || x.is_array())
            .and_then(|x| {
                let mut o = obj.clone();
                o[&k] = x;
                serde_json::from_value::<PolicySpec>(o).ok()
            });
        obj[&k] = value;
        *pol = match typed {
            Some(p) => p,
            None => serde_json::from_value(obj).map_err(|e| Diagnostic::new("--set", format!("{k}={v}: {e}")))?,
        };
    }
    resolve_priorities(spec);
    let errors: Vec<_> = crate::validate::validate(spec)
        .into_iter()
        .filter(|i| i.severity == crate::validate::Severity::Error)
        .collect();
    if let Some(e) = errors.first() {
        return Err(Diagnostic::new(e.path.clone(), e.message.clone()));
    }
    Ok(notices)
}

/// A `priority` on the tasks means explicit priorities: a fixed-priority
/// policy without `priorities` gets `explicit` when every task has one (a
/// mix is reported by validation, naming the tasks without).
pub fn resolve_priorities(spec: &mut Spec) {
    let all = !spec.tasks.is_empty() && spec.tasks.iter().all(|t| t.priority.is_some());
    if let Some(pol) = spec.policy.as_mut() {
        if pol.name.is_fixed_priority() && pol.priorities.is_none() && all {
            pol.priorities = Some(Priorities::Explicit);
        }
    }
}

/// How a spec's fixed priorities are assigned, for `check`: `None` when the
/// policy does not use fixed priorities.
pub fn priority_source(spec: &Spec) -> Option<&'static str> {
    let pol = spec.policy.as_ref()?;
    if !pol.name.is_fixed_priority() {
        return None;
    }
    Some(match pol.priorities.unwrap_or_default() {
        Priorities::Explicit => "explicit (the tasks' `priority`)",
        Priorities::Rm => "derived: rate monotonic",
        Priorities::Dm => "derived: deadline monotonic",
    })
}
