//! The overhead model: kernel overheads by task count and cache-related
//! preemption / migration delay by working-set size (to be filled in by the
//! simulator work; see docs/overheads.md when it lands).
