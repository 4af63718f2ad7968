//! Random cases for the oracle tests: a spec (from the model's generator,
//! with the policy's own parameters and some per-task extras) and a
//! simulator configuration, both a pure function of one seed; running a case
//! through the simulator and the validator.

use schedlab_gen::{generate, GenOptions};
use schedlab_model::overheads::Cpmd;
use schedlab_model::rng::Rng;
use schedlab_model::spec::Domains;
use schedlab_model::{exact::hyperperiod, Duration, Packing, PolicyName, Priorities, Segment, SegmentKind, Spec};
use schedlab_sim::{
    header, simulate, Arrivals, Costs, Execution, MissPolicy, Overheads, ReleaseCpu, SimConfig, Sporadic,
};
use schedlab_trace::{Event, Header};
use schedlab_validate::{validate, Options, Report};

pub const MS: u64 = 1_000_000;
pub const US: u64 = 1_000;

/// The policies `schedlab_policy::build` provides.
pub const POLICIES: &[PolicyName] = &[
    PolicyName::Gedf,
    PolicyName::Pedf,
    PolicyName::Cedf,
    PolicyName::Gfp,
    PolicyName::Pfp,
    PolicyName::Cfp,
    PolicyName::NpGedf,
    PolicyName::Llf,
    PolicyName::Pllf,
    PolicyName::Edzl,
    PolicyName::Pd2,
    PolicyName::Run,
    PolicyName::Fpds,
    PolicyName::GFpds,
    PolicyName::Fpns,
    PolicyName::Hcbs,
    PolicyName::CaGedf,
    PolicyName::Mcs,
];

/// H-CBS groups for a random set: 1 to 3 top-level groups sharing 90 % of
/// each CPU (periods 2, 5 or 10 ms), each task in one of them or in the
/// background, and sometimes a subgroup holding half of a group's tasks
/// (half its budget; a leaf queue with the other half serves the rest).
fn random_groups(r: &mut Rng, spec: &Spec) -> Option<Vec<schedlab_model::Group>> {
    use schedlab_model::Group;
    let k = r.range_u64(1, 3);
    let mut groups: Vec<Group> = (0..k)
        .map(|g| {
            let period = pick(r, &[2 * MS, 5 * MS, 10 * MS]);
            Group::new(format!("g{g}"), Duration((period * 9 / (10 * k)).max(1)), Duration(period))
        })
        .collect();
    for t in &spec.tasks {
        let g = r.range_u64(0, k) as usize;
        if g < groups.len() {
            groups[g].tasks.push(t.name.clone());
        }
    }
    let g = &mut groups[r.range_u64(0, k - 1) as usize];
    if g.tasks.len() >= 2 && chance(r, 0.5) {
        let budget = g.budget.unwrap().0;
        let half = g.tasks.split_off(g.tasks.len() / 2);
        let mut sub = Group::new(format!("{}-sub", g.name), Duration((budget / 2).max(1)), g.period);
        sub.tasks = half;
        g.leaf_budget = Some(Duration((budget / 2).max(1)));
        g.groups.push(sub);
    }
    Some(groups)
}

/// The base seed of every campaign; `SCHEDLAB_ORACLE_SEED` explores others.
pub fn base_seed() -> u64 {
    std::env::var("SCHEDLAB_ORACLE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_2024)
}

/// `default`, or `SCHEDLAB_ORACLE_SETS` when set (to explore more cases).
pub fn sets(default: usize) -> usize {
    std::env::var("SCHEDLAB_ORACLE_SETS").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// The seed of case `i` of `policy` in a campaign (`salt` keeps campaigns apart).
pub fn case_seed(salt: u64, policy: PolicyName, i: usize) -> u64 {
    let p = POLICIES.iter().position(|&q| q == policy).unwrap_or(99) as u64;
    base_seed() ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (p << 40) ^ i as u64
}

/// How big the cases are.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    pub max_cpus: u64,
    pub max_tasks: u64,
    /// Horizon: min(`hyper` hyperperiods, `periods` × the largest period).
    pub hyper: u64,
    pub periods: u64,
}

pub const FULL: Size = Size { max_cpus: 16, max_tasks: 20, hyper: 1, periods: 20 };
pub const SMALL: Size = Size { max_cpus: 6, max_tasks: 10, hyper: 1, periods: 4 };

/// A spec and a simulator configuration.
#[derive(Debug, Clone)]
pub struct Case {
    pub seed: u64,
    pub spec: Spec,
    pub config: SimConfig,
}

impl Case {
    /// Everything needed to reproduce the case.
    pub fn describe(&self) -> String {
        let mut c = self.config.clone();
        let o = c.overheads.take();
        format!(
            "case seed {:#x}\n--- spec ---\n{}--- config (overheads below) ---\n{c:?}\noverheads: {}\n",
            self.seed,
            schedlab_model::emit::to_yaml(&self.spec),
            match o {
                None => "none".to_string(),
                Some(o) => format!("{:?}, cpmd {:?}", o.costs(1), o.cpmd),
            }
        )
    }
}

fn pick<T: Copy>(r: &mut Rng, v: &[T]) -> T {
    *r.choose(v).expect("non-empty")
}

fn chance(r: &mut Rng, p: f64) -> bool {
    r.f64() < p
}

/// A random case for `policy`: m = 1..`max_cpus` CPUs (clusters of a size
/// dividing m for clustered policies), n = 1..`max_tasks` tasks, total
/// utilisation from 0.05·m to 1.1·m (at most 0.95·n), harmonic or listed
/// periods, implicit or constrained deadlines; sometimes offsets, release
/// jitter, per-job execution lists (some above the WCET), sporadic arrivals,
/// uniform execution times, abort or skip on a miss, and a constant overhead
/// model with every kind (CPMD included). PD^2 gets implicit deadlines and
/// offsets in whole quanta (1 ms). RUN gets implicit deadlines and WCETs cut
/// by 1 % steps until the total utilisation is at most m (it refuses more).
pub fn random_case(policy: PolicyName, seed: u64, size: Size) -> Case {
    let mut r = Rng::new(seed);
    let m = r.range_u64(1, size.max_cpus) as u32;
    let cluster_size = (policy.domains() == Domains::PerCluster).then(|| {
        let divisors: Vec<u32> = (1..=m).filter(|&k| m.is_multiple_of(k)).collect();
        pick(&mut r, &divisors)
    });
    let n = r.range_u64(1, size.max_tasks) as u32;
    let util = (r.uniform(0.05, 1.1) * m as f64).min(0.95 * n as f64);
    let method =
        if util > 0.5 * n as f64 { "randfixedsum" } else { pick(&mut r, &["uunifast-discard", "randfixedsum", "drs"]) };
    let (periods, harmonic) = pick(
        &mut r,
        &[
            ("uniform:2ms-64ms", true),
            ("uniform:5ms-100ms", true),
            ("list:10ms,20ms,25ms,40ms,50ms,100ms", false),
            ("list:4ms,6ms,8ms,12ms,24ms", false),
        ],
    );
    let deadlines = pick(&mut r, &["implicit", "constrained"]);
    let options = GenOptions {
        seed: Some(r.next_u64()),
        cpus: Some(m),
        cluster_size,
        policy: Some(policy),
        utils: Some(method.into()),
        tasks: Some(n),
        util: Some(util),
        periods: Some(periods.into()),
        harmonic: Some(harmonic),
        deadlines: Some(deadlines.into()),
        wss: Some("uniform:4KiB-128KiB".into()),
        // The cache-aware policy compares the working sets with a cache.
        cache: (policy == PolicyName::CaGedf).then(|| "512KiB/16/64B".into()),
        ..GenOptions::default()
    };
    let params = options.into_params().expect("valid generator options");
    let mut spec = generate(&params).unwrap_or_else(|e| panic!("seed {seed:#x}: {e} ({})", params.to_args()));
    // PD^2 admits implicit deadlines only, and periods and offsets on its
    // quantum grid (1 ms): the generated periods are whole ms.
    let pfair = policy == PolicyName::Pd2;
    if pfair {
        for t in &mut spec.tasks {
            t.deadline = None;
            assert!(t.period.0.is_multiple_of(MS), "seed {seed:#x}: period {} off the PD^2 quantum grid", t.period);
        }
    }
    if policy == PolicyName::Run {
        for t in &mut spec.tasks {
            t.deadline = None;
        }
        while !util_at_most(&spec, m as u128, 1) {
            for t in &mut spec.tasks {
                t.wcet = Duration((t.wcet.0 - t.wcet.0 / 100).max(1));
            }
        }
    }

    let pol = spec.policy.as_mut().expect("generated specs name the policy");
    if policy.is_fixed_priority() {
        let how = pick(&mut r, &[Priorities::Rm, Priorities::Dm, Priorities::Explicit]);
        pol.priorities = Some(how);
        if how == Priorities::Explicit {
            for t in &mut spec.tasks {
                t.priority = Some(r.range_u64(1, n as u64) as u32);
            }
        }
    }
    if policy.domains() != Domains::Global && chance(&mut r, 0.7) {
        use Packing::*;
        pol.partitioning = Some(pick(&mut r, &[Ff, Bf, Wf, Nf, Ffd, Bfd, Wfd, Nfd]));
    }

    let execution = if chance(&mut r, 0.35) { Execution::Uniform } else { Execution::Wcet };
    let offsets = chance(&mut r, 0.2);
    let jitter = chance(&mut r, 0.2);
    let lists = chance(&mut r, 0.1);
    for t in &mut spec.tasks {
        let (c, p) = (t.wcet.0, t.period.0);
        if execution == Execution::Uniform {
            t.bcet = Some(Duration(r.range_u64(1, c)));
        }
        if offsets && chance(&mut r, 0.5) {
            let grid = if pfair { MS } else { US };
            t.offset = Duration(r.range_u64(0, p / grid) * grid);
        }
        if jitter && chance(&mut r, 0.5) {
            t.jitter = Duration(r.range_u64(0, p / 4 / US) * US);
        }
        if lists && chance(&mut r, 0.5) {
            let k = r.range_u64(1, 4);
            t.executions = Some((0..k).map(|_| Duration(r.range_u64(1, c + c / 5))).collect());
        }
    }

    // Deferred preemption: each WCET in 1 to 4 subjobs, a quarter of the
    // tasks with a self-suspension between two (from a stream of its own,
    // so the other draws stay as they were).
    if matches!(policy, PolicyName::Fpds | PolicyName::GFpds | PolicyName::Fpns | PolicyName::Hcbs) {
        let mut rs = Rng::new(seed ^ 0x5ab_0b5);
        for t in &mut spec.tasks {
            let k = rs.range_u64(1, 4).min(t.wcet.0);
            let mut cuts: Vec<u64> = (1..k).map(|_| rs.range_u64(1, t.wcet.0 - 1)).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut prev = 0;
            let mut subjobs = Vec::new();
            for c in cuts.into_iter().chain([t.wcet.0]) {
                subjobs.push(Duration(c - prev));
                prev = c;
            }
            // Some tasks suspend themselves between two subjobs.
            if subjobs.len() > 1 && rs.below(4) == 0 {
                let at = rs.range_u64(1, subjobs.len() as u64 - 1) as usize;
                let mut segments: Vec<Segment> = subjobs.iter().map(|&d| Segment::exec(d)).collect();
                let length = Duration(rs.range_u64(1, t.period.0 / 4));
                segments.insert(at, Segment { kind: SegmentKind::Suspend, length, preemptible: true });
                t.segments = Some(segments);
            } else {
                t.subjobs = Some(subjobs);
            }
        }
    }

    if policy == PolicyName::Hcbs {
        spec.reservations = random_groups(&mut Rng::new(seed ^ 0x4cb5), &spec);
        // A third of the tasks have a non-preemptive section (boosted under H-CBS).
        let mut rb = Rng::new(seed ^ 0xb005);
        for t in &mut spec.tasks {
            let mut segments: Vec<Segment> = t.segments().into_owned();
            let cpu: Vec<usize> = (0..segments.len()).filter(|&i| segments[i].kind.on_cpu()).collect();
            if rb.below(3) == 0 && !cpu.is_empty() {
                let i = cpu[rb.below(cpu.len() as u64) as usize];
                segments[i].preemptible = false;
                t.subjobs = None;
                t.segments = Some(segments);
            }
        }
    }

    // Memory-centric scheduling: each WCET as 1 to 3 PREM Sections (P, E,
    // W; a P or W sometimes missing, sometimes non-preemptive), memory
    // priorities given or from the task priorities, sometimes the
    // Contention baseline or non-preemptive memory phases throughout.
    if policy == PolicyName::Mcs {
        let mut rm = Rng::new(seed ^ 0x3c5);
        let explicit = rm.below(2) == 0;
        let mode = rm.below(5);
        for t in &mut spec.tasks {
            let c = t.wcet.0;
            let k = rm.range_u64(1, 3).min((c / 3).max(1));
            let mut segments = Vec::new();
            let mut left = c;
            for s in 0..k {
                let share = if s + 1 == k { left } else { c / k };
                left -= share;
                let (p, w) = if share >= 3 { (rm.range_u64(0, share / 3), rm.range_u64(0, share / 3)) } else { (0, 0) };
                let e = share - p - w;
                let mem = |len: u64, rm: &mut Rng| Segment {
                    kind: SegmentKind::Memory,
                    length: Duration(len),
                    preemptible: rm.below(5) != 0,
                };
                if p > 0 {
                    segments.push(mem(p, &mut rm));
                }
                segments.push(Segment::exec(Duration(e)));
                if w > 0 {
                    segments.push(mem(w, &mut rm));
                }
            }
            // A third of those that start with a prefetch use A-MP (the worker).
            let amp = mode != 0 && segments[0].kind == SegmentKind::Memory && rm.below(3) == 0;
            t.subjobs = None;
            t.segments = Some(segments);
            if amp {
                t.memory_mode = Some(schedlab_model::MemoryMode::Amp);
            }
            if explicit {
                t.memory_priority = Some(rm.range_u64(1, 4) as u32);
            }
        }
        let pol = spec.policy.as_mut().expect("named");
        match mode {
            0 => pol.mps = Some(false),
            1 => pol.memory_preemption = Some(false),
            _ => {}
        }
    }

    let hp = hyperperiod(spec.tasks.iter().map(|t| t.period.0)).expect("small periods");
    let max_p = spec.tasks.iter().map(|t| t.period.0).max().unwrap_or(MS);
    let max_o = spec.tasks.iter().map(|t| t.offset.0).max().unwrap_or(0);
    let horizon = (size.hyper * hp).min(size.periods * max_p) + max_o;

    let sporadic = match r.below(4) {
        0 => Sporadic::Uniform { max: r.range_u64(1, 5) * MS },
        1 => Sporadic::Exponential { mean: r.range_u64(1, 3) * MS },
        _ => Sporadic::None,
    };
    let miss = match r.below(5) {
        0 => MissPolicy::Abort,
        1 => MissPolicy::Skip,
        _ => MissPolicy::Continue,
    };
    let (overheads, tick) = if chance(&mut r, 0.5) {
        let mut o = Overheads::constant(Costs {
            release: r.range_u64(0, 3 * US),
            schedule: r.range_u64(0, 3 * US),
            context_switch: r.range_u64(0, 2 * US),
            ipi: r.range_u64(0, 2 * US),
            tick: r.range_u64(0, US),
            release_latency: r.range_u64(0, 2 * US),
        });
        // CPMD: 0.25 to 5 ns per 64-byte line of the working set (4 to 128 KiB).
        o.cpmd = Cpmd::Bound { line: 64, miss_num: r.range_u64(1, 20), miss_den: 4 };
        (Some(o), pick(&mut r, &[MS, MS / 2, 4 * MS]))
    } else {
        (None, schedlab_sim::DEFAULT_TICK)
    };
    let config = SimConfig {
        horizon: Some(horizon),
        seed: r.next_u64(),
        arrivals: Arrivals { sporadic, ignore_jitter: false },
        execution,
        miss,
        overheads,
        spec_overheads: false,
        tick,
        release_cpu: if chance(&mut r, 0.5) { ReleaseCpu::Scheduled } else { ReleaseCpu::DomainFirst },
        ..SimConfig::default()
    };
    Case { seed, spec, config }
}

/// A simulated schedule.
pub struct Run {
    pub header: Header,
    pub events: Vec<Event>,
}

/// Builds the spec's policy and simulates the case; `None` when admission
/// fails (a partitioned or clustered set that does not pack).
pub fn simulate_case(case: &Case) -> Option<Run> {
    let mut policy = match schedlab_policy::build(&case.spec, None) {
        Ok(p) => p,
        Err(e) if e.path == "policy.partitioning" => return None,
        Err(e) => panic!("admission failed: {e}\n{}", case.describe()),
    };
    let header = header(&case.spec, policy.info(), &case.config);
    let mut events = Vec::new();
    simulate(&case.spec, policy.as_mut(), &case.config, &mut |e| events.push(e.clone()))
        .unwrap_or_else(|e| panic!("simulation failed: {e}\n{}", case.describe()));
    Some(Run { header, events })
}

/// Validates at tolerance 0 against the policy the spec names.
pub fn check(run: &Run, events: Vec<Event>) -> Report {
    validate(&run.header, events, &Options::default()).unwrap_or_else(|e| panic!("the trace cannot be validated: {e}"))
}

/// Integer utilisation test: Σ Cᵢ/Tᵢ ≤ num/den exactly (in u128 over the
/// hyperperiod).
pub fn util_at_most(spec: &Spec, num: u128, den: u128) -> bool {
    let h = hyperperiod(spec.tasks.iter().map(|t| t.period.0)).expect("small periods") as u128;
    let work: u128 = spec.tasks.iter().map(|t| t.wcet.0 as u128 * (h / t.period.0 as u128)).sum();
    work * den <= num * h
}

/// The deadline misses the simulator recorded.
pub fn misses(events: &[Event]) -> usize {
    events.iter().filter(|e| matches!(e, Event::DeadlineMiss { .. })).count()
}
