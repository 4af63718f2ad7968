//! Drawing segment demands allocates nothing once the buffers exist, so the
//! runtime's dispatcher can draw each job's segments after start-up. The
//! allocations of this thread are counted by a wrapping global allocator.

use schedlab_jobs::{Execution, JobModel};
use schedlab_model::{Duration, Segment, SegmentKind, Task};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn drawing_segments_does_not_allocate() {
    let seg = |kind, ms: u64| Segment { kind, length: Duration(ms * 1_000_000), preemptible: true };
    let segmented = Task {
        bcet: Some(Duration(2_000_000)),
        executions: None,
        segments: Some(vec![seg(SegmentKind::Memory, 1), seg(SegmentKind::Exec, 2), seg(SegmentKind::Suspend, 1)]),
        ..Task::new("a", Duration(3_000_000), Duration(10_000_000))
    };
    let listed = Task { executions: Some(vec![Duration(1_000_000), Duration(3_000_000)]), ..segmented.clone() };
    let plain = Task::new("b", Duration(3_000_000), Duration(10_000_000));
    for execution in [Execution::Wcet, Execution::Uniform, Execution::Fraction(0.5)] {
        let m = JobModel { seed: 3, execution, ..JobModel::default() };
        for t in [&segmented, &listed, &plain] {
            let (mut a, mut b, mut c) = (m.segment_demands(t, 0), m.segment_demands(t, 0), m.demands(t, 0));
            let mut buf = Vec::with_capacity(b.segments_per_job());
            let before = allocations();
            let mut sum = 0;
            for _ in 0..1000 {
                sum += a.next_job().len();
                b.draw_into(&mut buf);
                sum += buf.len() + c.draw() as usize;
            }
            assert_eq!(allocations(), before, "{execution:?}, task {}", t.name);
            assert!(sum > 0);
        }
    }
}
