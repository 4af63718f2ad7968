//! An SVG Gantt chart of a schedule: one row per task (its name at the
//! left), execution boxes coloured per CPU with the CPU number inside when
//! the box is wide enough, release arrows (up), deadline marks (down), the
//! boxes and deadline marks of jobs that missed in red, a small triangle
//! where a job was preempted, a time axis with 1/2/5 × 10^k ticks, and a
//! legend of the CPU colours. Segmented jobs show their segment boundaries
//! (`segment-end`) as ticks across the box, the preemption points a
//! deferred-preemption policy took (`preemption-point` policy events) as
//! diamonds on the box edge where the job left, and self-suspensions
//! (`block` to `resume`) as a dashed line through the row; the legend lists
//! these marks when the trace has them. When the trace carries `server` policy events
//! (RUN's placement of level-0 servers on CPUs), one more row per CPU below
//! the tasks shows which server held the CPU when, so the reduction tree can
//! be seen at work. Pure string building: the same input gives the same bytes. Readable up to about 50 tasks; use a time window for long
//! traces.

use super::{collect, suspensions, Collected};
use crate::{Event, Header, PolicyEvent, SwitchReason, Time};
use schedlab_model::Duration;
use std::borrow::Borrow;
use std::fmt::Write as _;

/// What to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SvgOptions {
    /// Start of the time window (default 0).
    pub start: Option<Time>,
    /// End of the time window (default: the end of the trace).
    pub end: Option<Time>,
    /// Width of the picture in pixels (default 1200).
    pub width: u32,
    /// Height of a task row in pixels (default 24).
    pub row_height: u32,
    /// A title above the chart (default: none).
    pub title: Option<String>,
}

impl Default for SvgOptions {
    fn default() -> SvgOptions {
        SvgOptions { start: None, end: None, width: 1200, row_height: 24, title: None }
    }
}

/// Fill colours of CPUs 0, 1, ... (cycled): ColorBrewer's Set3, light
/// enough for black text, without its red (red marks misses).
pub const CPU_COLORS: [&str; 11] = [
    "#8dd3c7", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5",
    "#ffed6f",
];

/// The colour that marks deadline misses.
pub const MISS_COLOR: &str = "red";

/// The SVG chart of a trace.
pub fn render_svg<E: Borrow<Event>>(header: &Header, events: impl IntoIterator<Item = E>, opts: &SvgOptions) -> String {
    let c = collect(header, events);
    render(header, &c, opts)
}

/// `&`, `<`, `>`, `"` and `'` as XML entities.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The tick spacing for `span` ns and about `target` ticks: the smallest
/// 1, 2 or 5 × 10^k ns that is at least span / target.
pub fn tick_step(span: u64, target: u64) -> u64 {
    let raw = span.div_ceil(target.max(1)).max(1);
    let mut p: u64 = 1;
    loop {
        for m in [1u64, 2, 5] {
            if let Some(s) = m.checked_mul(p) {
                if s >= raw {
                    return s;
                }
            }
        }
        match p.checked_mul(10) {
            Some(q) => p = q,
            None => return raw,
        }
    }
}

const MAX_NAME_CHARS: usize = 32;
const RIGHT: f64 = 24.0;
const TOP: f64 = 58.0;
const AXIS: f64 = 40.0;

struct Geometry {
    start: Time,
    end: Time,
    left: f64,
    plot: f64,
    row: f64,
}

impl Geometry {
    fn x(&self, t: Time) -> f64 {
        let t = t.clamp(self.start, self.end);
        self.left + (t - self.start) as f64 / (self.end - self.start) as f64 * self.plot
    }
    fn row_top(&self, i: usize) -> f64 {
        TOP + i as f64 * self.row
    }
    fn visible(&self, t: Time) -> bool {
        t >= self.start && t <= self.end
    }
}

fn short_name(name: &str) -> String {
    if name.chars().count() <= MAX_NAME_CHARS {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(MAX_NAME_CHARS - 1).collect();
        s.push('…');
        s
    }
}

fn render(header: &Header, c: &Collected, opts: &SvgOptions) -> String {
    let r = &c.report;
    let start = opts.start.unwrap_or(0);
    let end = opts.end.unwrap_or(r.horizon).max(start.saturating_add(1));
    let names: Vec<String> = r.tasks.iter().map(|t| short_name(&t.name)).collect();
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(1);
    let left = (longest as f64 * 7.0 + 16.0).clamp(60.0, 260.0);
    let width = opts.width.max(200) as f64;
    let g = Geometry { start, end, left, plot: (width - left - RIGHT).max(50.0), row: opts.row_height.max(12) as f64 };
    let lanes = server_lanes(c, r.horizon.max(end));
    let rows = r.tasks.len() + lanes.len();
    let height = TOP + rows as f64 * g.row + AXIS;
    let row_of: std::collections::HashMap<u32, usize> = r.tasks.iter().enumerate().map(|(i, t)| (t.task, i)).collect();
    let box_h = (g.row * 0.6).round();
    let box_off = ((g.row - box_h) / 2.0).round();

    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {w:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"11\">",
        w = width
    );
    let _ = writeln!(s, "<rect x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"white\"/>");
    let title = match &opts.title {
        Some(t) => t.clone(),
        None => {
            let policy = header.spec.policy.as_ref().map(|p| p.name.descriptor().title).unwrap_or("no policy");
            format!("{policy} on {} CPUs, {} to {}", header.spec.platform.cpus, Duration(start), Duration(end))
        }
    };
    let _ = writeln!(s, "<text x=\"8\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{}</text>", escape(&title));

    // Legend: CPU colours, then the marks.
    let mut lx = 8.0;
    let ly = 32.0;
    for cs in &r.cpus {
        let _ = writeln!(
            s,
            "<rect x=\"{lx:.2}\" y=\"{ly:.2}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"#333\" stroke-width=\"0.5\"/><text x=\"{:.2}\" y=\"{:.2}\">CPU {}</text>",
            cpu_color(cs.cpu),
            lx + 16.0,
            ly + 10.0,
            cs.cpu
        );
        lx += 24.0 + 7.0 * format!("CPU {}", cs.cpu).len() as f64;
    }
    lx += 12.0;
    let _ = writeln!(
        s,
        "<path d=\"{}\" stroke=\"black\" fill=\"none\"/><text x=\"{:.2}\" y=\"{:.2}\">release</text>",
        up_arrow(lx + 4.0, ly, ly + 12.0),
        lx + 12.0,
        ly + 10.0
    );
    lx += 62.0;
    let _ = writeln!(
        s,
        "<path d=\"{}\" stroke=\"black\" fill=\"none\"/><text x=\"{:.2}\" y=\"{:.2}\">deadline</text>",
        down_arrow(lx + 4.0, ly, ly + 12.0),
        lx + 12.0,
        ly + 10.0
    );
    lx += 66.0;
    let _ = writeln!(
        s,
        "<path d=\"{}\" fill=\"black\"/><text x=\"{:.2}\" y=\"{:.2}\">preemption</text>",
        preempt_mark(lx + 4.0, ly + 8.0),
        lx + 12.0,
        ly + 10.0
    );
    lx += 80.0;
    if c.others.iter().any(|e| matches!(e, Event::SegmentEnd { .. })) {
        let _ = writeln!(
            s,
            "<line x1=\"{x:.2}\" y1=\"{ly:.2}\" x2=\"{x:.2}\" y2=\"{:.2}\" stroke=\"#333\"/><text x=\"{:.2}\" y=\"{:.2}\">segment end</text>",
            ly + 12.0,
            lx + 10.0,
            ly + 10.0,
            x = lx + 4.0
        );
        lx += 90.0;
    }
    if c.others.iter().any(|e| matches!(e, Event::Policy { event: PolicyEvent::PreemptionPoint { .. }, .. })) {
        let _ = writeln!(
            s,
            "<path d=\"{}\" fill=\"#1f5fbf\"/><text x=\"{:.2}\" y=\"{:.2}\">preemption point taken</text>",
            diamond(lx + 4.0, ly + 6.0),
            lx + 12.0,
            ly + 10.0
        );
        lx += 150.0;
    }
    if c.others.iter().any(|e| matches!(e, Event::Block { .. })) {
        let _ = writeln!(
            s,
            "<line x1=\"{lx:.2}\" y1=\"{y:.2}\" x2=\"{:.2}\" y2=\"{y:.2}\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"3,2\"/><text x=\"{:.2}\" y=\"{:.2}\">suspended</text>",
            lx + 14.0,
            lx + 18.0,
            ly + 10.0,
            y = ly + 6.0
        );
        lx += 84.0;
    }
    let _ = writeln!(
        s,
        "<rect x=\"{lx:.2}\" y=\"{ly:.2}\" width=\"12\" height=\"12\" fill=\"white\" stroke=\"{MISS_COLOR}\" stroke-width=\"1.5\"/><text x=\"{:.2}\" y=\"{:.2}\" fill=\"{MISS_COLOR}\">deadline miss</text>",
        lx + 16.0,
        ly + 10.0
    );

    // Rows and names.
    for (i, name) in names.iter().enumerate() {
        let y = g.row_top(i);
        if i % 2 == 0 {
            let _ = writeln!(
                s,
                "<rect x=\"0\" y=\"{y:.2}\" width=\"{width:.0}\" height=\"{:.2}\" fill=\"#f4f4f4\"/>",
                g.row
            );
        }
        let full = &r.tasks[i].name;
        let tip = if name != full { format!("<title>{}</title>", escape(full)) } else { String::new() };
        let _ = writeln!(
            s,
            "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"end\">{tip}{}</text>",
            g.left - 8.0,
            y + g.row / 2.0 + 4.0,
            escape(name)
        );
    }

    // Server lanes: which server held each CPU.
    for (k, (cpu, spans)) in lanes.iter().enumerate() {
        let i = r.tasks.len() + k;
        let y = g.row_top(i);
        let _ =
            writeln!(s, "<rect x=\"0\" y=\"{y:.2}\" width=\"{width:.0}\" height=\"{:.2}\" fill=\"#e8eef7\"/>", g.row);
        let _ = writeln!(
            s,
            "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"end\" font-style=\"italic\">CPU {cpu} server</text>",
            g.left - 8.0,
            y + g.row / 2.0 + 4.0
        );
        for sp in spans {
            if sp.end <= start || sp.start >= end || sp.end == sp.start {
                continue;
            }
            let (x0, x1) = (g.x(sp.start), g.x(sp.end));
            let w = (x1 - x0).max(0.5);
            let _ = writeln!(
                s,
                "<rect x=\"{x0:.2}\" y=\"{:.2}\" width=\"{w:.2}\" height=\"{box_h:.2}\" fill=\"{}\" stroke=\"#333\" stroke-width=\"0.5\"><title>{} on CPU {cpu}: {} to {}</title></rect>",
                y + box_off,
                CPU_COLORS[sp.color % CPU_COLORS.len()],
                escape(&sp.name),
                Duration(sp.start),
                Duration(sp.end)
            );
            if w >= sp.name.len() as f64 * 7.0 + 4.0 {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"middle\" font-size=\"10\">{}</text>",
                    x0 + w / 2.0,
                    y + box_off + box_h / 2.0 + 3.5,
                    escape(&sp.name)
                );
            }
        }
    }

    // Time axis and grid.
    let bottom = g.row_top(rows);
    let span = end - start;
    let step = tick_step(span, ((g.plot / 100.0) as u64).max(2));
    let mut t = start.div_ceil(step).saturating_mul(step);
    let _ = writeln!(s, "<g stroke=\"#ccc\" stroke-width=\"0.5\">");
    let mut labels = String::new();
    while t <= end {
        let x = g.x(t);
        let _ = writeln!(s, "<line x1=\"{x:.2}\" y1=\"{TOP:.2}\" x2=\"{x:.2}\" y2=\"{:.2}\"/>", bottom + 4.0);
        let _ = writeln!(
            labels,
            "<text x=\"{x:.2}\" y=\"{:.2}\" text-anchor=\"middle\">{}</text>",
            bottom + 16.0,
            Duration(t)
        );
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(
        s,
        "<line x1=\"{:.2}\" y1=\"{bottom:.2}\" x2=\"{:.2}\" y2=\"{bottom:.2}\" stroke=\"black\"/>",
        g.left,
        g.left + g.plot
    );
    s.push_str(&labels);

    // Execution boxes, CPU numbers, preemption marks.
    let missed: std::collections::HashSet<(u32, u64)> =
        c.jobs.iter().filter(|j| j.missed).map(|j| (j.task, j.job)).collect();
    for iv in &c.intervals {
        if iv.end <= start || iv.start >= end || iv.end == iv.start {
            continue;
        }
        let Some(&row) = row_of.get(&iv.task) else { continue };
        let (x0, x1) = (g.x(iv.start), g.x(iv.end));
        let w = (x1 - x0).max(0.5);
        let y = g.row_top(row) + box_off;
        let miss = missed.contains(&(iv.task, iv.job));
        let stroke = if miss {
            format!("stroke=\"{MISS_COLOR}\" stroke-width=\"1.5\"")
        } else {
            "stroke=\"#333\" stroke-width=\"0.5\"".to_string()
        };
        let _ = writeln!(
            s,
            "<rect x=\"{x0:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{box_h:.2}\" fill=\"{}\" {stroke}><title>{} #{} on CPU {}: {} to {}</title></rect>",
            cpu_color(iv.cpu),
            escape(&r.tasks[row].name),
            iv.job,
            iv.cpu,
            Duration(iv.start),
            Duration(iv.end)
        );
        let label = iv.cpu.to_string();
        if w >= label.len() as f64 * 7.0 + 4.0 {
            let _ = writeln!(
                s,
                "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"middle\" font-size=\"10\">{label}</text>",
                x0 + w / 2.0,
                y + box_h / 2.0 + 3.5
            );
        }
        if iv.reason == Some(SwitchReason::Preempt) && g.visible(iv.end) {
            let _ = writeln!(s, "<path d=\"{}\" fill=\"black\"/>", preempt_mark(x1, y));
        }
    }

    // Segments: suspensions as a dashed line through the row, segment
    // boundaries as a tick across the job's box, preemption points taken as
    // a diamond on the box edge where the job left.
    let mid = |row: usize| g.row_top(row) + g.row / 2.0;
    for sp in suspensions(&c.others, r.horizon.max(end)) {
        let Some(&row) = row_of.get(&sp.job.task) else { continue };
        if sp.end <= start || sp.start >= end || sp.end == sp.start {
            continue;
        }
        let _ = writeln!(
            s,
            "<line class=\"suspension\" x1=\"{:.2}\" y1=\"{y:.2}\" x2=\"{:.2}\" y2=\"{y:.2}\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"3,2\"><title>{} #{} suspended: {} to {}</title></line>",
            g.x(sp.start),
            g.x(sp.end),
            escape(&r.tasks[row].name),
            sp.job.job,
            Duration(sp.start),
            Duration(sp.end),
            y = mid(row)
        );
    }
    for ev in &c.others {
        match ev {
            Event::SegmentEnd { t, task, job, segment, .. } if g.visible(*t) => {
                let Some(&row) = row_of.get(task) else { continue };
                let (x, y) = (g.x(*t), g.row_top(row) + box_off);
                let _ = writeln!(
                    s,
                    "<line class=\"segment-end\" x1=\"{x:.2}\" y1=\"{:.2}\" x2=\"{x:.2}\" y2=\"{:.2}\" stroke=\"#333\" stroke-width=\"1\"><title>{} #{job}: end of segment {segment} at {}</title></line>",
                    y - 2.0,
                    y + box_h + 2.0,
                    escape(&r.tasks[row].name),
                    Duration(*t)
                );
            }
            Event::Policy { t, event: PolicyEvent::PreemptionPoint { task, job, segment }, .. } if g.visible(*t) => {
                let Some(&row) = row_of.get(task) else { continue };
                let _ = writeln!(
                    s,
                    "<path class=\"preemption-point\" d=\"{}\" fill=\"#1f5fbf\"><title>{} #{job}: preempted at the point after segment {segment}, {}</title></path>",
                    diamond(g.x(*t), g.row_top(row) + box_off + box_h / 2.0),
                    escape(&r.tasks[row].name),
                    Duration(*t)
                );
            }
            _ => {}
        }
    }

    // Releases and deadlines.
    for j in &c.jobs {
        let Some(&row) = row_of.get(&j.task) else { continue };
        let (top, bot) = (g.row_top(row) + 1.0, g.row_top(row) + g.row - 1.0);
        if g.visible(j.release) {
            let _ = writeln!(s, "<path d=\"{}\" stroke=\"black\" fill=\"none\"/>", up_arrow(g.x(j.release), top, bot));
        }
        if g.visible(j.deadline) {
            if j.missed {
                let _ = writeln!(
                    s,
                    "<path class=\"miss\" d=\"{}\" stroke=\"{MISS_COLOR}\" stroke-width=\"1.5\" fill=\"none\"><title>{} #{} missed its deadline</title></path>",
                    down_arrow(g.x(j.deadline), top, bot),
                    escape(&r.tasks[row].name),
                    j.job
                );
            } else {
                let _ = writeln!(
                    s,
                    "<path d=\"{}\" stroke=\"black\" fill=\"none\"/>",
                    down_arrow(g.x(j.deadline), top, bot)
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

/// A span during which a server held a CPU.
struct ServerSpan {
    start: Time,
    end: Time,
    name: String,
    /// Index of the server in order of first appearance (its colour).
    color: usize,
}

/// Per CPU (in CPU order), the spans of the `server` policy events: each
/// event `{"kind": "server", "server": name}` on a CPU starts a span that the
/// CPU's next `server` event (or the end) closes; `"server": null` leaves the CPU
/// without a server. Empty when the trace has no such events.
fn server_lanes(c: &Collected, end: Time) -> Vec<(u32, Vec<ServerSpan>)> {
    let mut lanes: std::collections::BTreeMap<u32, Vec<ServerSpan>> = std::collections::BTreeMap::new();
    let mut colors: Vec<String> = Vec::new();
    for ev in &c.others {
        let Event::Policy { t, cpu: Some(cpu), event: PolicyEvent::Server { server } } = ev else { continue };
        let lane = lanes.entry(*cpu).or_default();
        if let Some(last) = lane.last_mut() {
            if last.end == Time::MAX {
                last.end = *t;
            }
        }
        if let Some(server) = server.as_deref() {
            let color = match colors.iter().position(|n| n == server) {
                Some(i) => i,
                None => {
                    colors.push(server.to_string());
                    colors.len() - 1
                }
            };
            lane.push(ServerSpan { start: *t, end: Time::MAX, name: server.to_string(), color });
        }
    }
    for lane in lanes.values_mut() {
        for sp in lane.iter_mut() {
            if sp.end == Time::MAX {
                sp.end = end.max(sp.start);
            }
        }
    }
    lanes.into_iter().collect()
}

fn cpu_color(cpu: u32) -> &'static str {
    CPU_COLORS[cpu as usize % CPU_COLORS.len()]
}

/// A vertical arrow from `bot` up to `top`, its head at the top.
fn up_arrow(x: f64, top: f64, bot: f64) -> String {
    format!("M{x:.2},{bot:.2}V{top:.2}M{:.2},{:.2}L{x:.2},{top:.2}L{:.2},{:.2}", x - 3.0, top + 4.0, x + 3.0, top + 4.0)
}

/// A vertical arrow from `top` down to `bot`, its head at the bottom.
fn down_arrow(x: f64, top: f64, bot: f64) -> String {
    format!("M{x:.2},{top:.2}V{bot:.2}M{:.2},{:.2}L{x:.2},{bot:.2}L{:.2},{:.2}", x - 3.0, bot - 4.0, x + 3.0, bot - 4.0)
}

/// A small diamond centred on (x, y).
fn diamond(x: f64, y: f64) -> String {
    format!("M{x:.2},{:.2}L{:.2},{y:.2}L{x:.2},{:.2}L{:.2},{y:.2}Z", y - 4.0, x + 4.0, y + 4.0, x - 4.0)
}

/// A small downward triangle whose tip touches (x, y).
fn preempt_mark(x: f64, y: f64) -> String {
    format!("M{:.2},{:.2}L{:.2},{:.2}L{x:.2},{y:.2}Z", x - 3.5, y - 6.0, x + 3.5, y - 6.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_one_two_five_times_a_power_of_ten() {
        assert_eq!(tick_step(10_000_000, 10), 1_000_000);
        assert_eq!(tick_step(10_000_000, 6), 2_000_000);
        assert_eq!(tick_step(10_000_000, 3), 5_000_000);
        assert_eq!(tick_step(7, 10), 1);
        assert_eq!(tick_step(u64::MAX, 2), 10_000_000_000_000_000_000);
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    }
}
