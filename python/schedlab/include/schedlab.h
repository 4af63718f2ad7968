/* schedlab.h: the job of a C job body for `schedlab run --workload c:LIB:SYMBOL[:ARG]`
 * (docs/runtime.md, "Workloads"). schedlab loads LIB with dlopen before the run and
 * calls SYMBOL once per job, on the task's real-time thread:
 *
 *     #include <schedlab.h>
 *     int my_job(const struct schedlab_job *job) {
 *         for (uint32_t i = 0; i < job->n_segments; i++) {
 *             if (i > 0 && job->preemption_point(job)) return 0;   // the job must end now
 *             do_work(job->segments[i].demand_ns);
 *         }
 *         return 0;   // 0: done; other: the body failed (the run ends)
 *     }
 *
 * Build: cc -shared -fPIC -I "$(python3 -c 'import schedlab, pathlib; print(pathlib.Path(schedlab.__file__).parent / "include")')" job.c -o libjob.so
 */
#ifndef SCHEDLAB_H
#define SCHEDLAB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A segment's kind (the task's `segments:` / `subjobs:` in the spec). */
enum schedlab_segment_kind { SCHEDLAB_EXEC = 0, SCHEDLAB_MEMORY = 1, SCHEDLAB_SUSPEND = 2 };

/* One segment of this job: its demand as the job model drew it (CPU time for
 * exec and memory, wall-clock time for a suspension), the same as a simulation
 * with the same seed draws. */
struct schedlab_segment {
    uint32_t kind;
    uint64_t demand_ns;
};

/* A violated timing scope (see the timing scopes in struct schedlab_job). */
enum schedlab_limit { SCHEDLAB_DEADLINE = 0, SCHEDLAB_WCET = 1 };
struct schedlab_violation {
    uint32_t kind;        /* enum schedlab_limit */
    uint32_t depth;       /* nesting depth of the scope (0: outermost) */
    uint64_t scope;       /* the scope's id */
    uint64_t limit_ns;    /* the absolute deadline (CLOCK_MONOTONIC) or the budget (CPU ns) */
    uint64_t lateness_ns; /* when noticed: wall ns past the deadline, CPU ns past the budget */
};

struct schedlab_job {
    uint32_t task;        /* the task's index in the spec */
    uint64_t job;         /* 0-based job number */
    uint64_t release_ns;  /* CLOCK_MONOTONIC */
    uint64_t deadline_ns; /* CLOCK_MONOTONIC */
    uint64_t exec_ns;     /* CPU time this job should consume (the segments' CPU total) */
    uint64_t wcet_ns;
    const char *arg;      /* ARG from the workload, or NULL */
    /* The job's segments on the dispatch backend when the task declares
     * segments; 0 and NULL otherwise. */
    uint32_t n_segments;
    const struct schedlab_segment *segments;
    /* A preemption point: the job ends its current segment. Returns at once
     * (one atomic load) unless the dispatcher wants the CPU: then a policy that
     * preempts at points (fpds, g-fpds) decides, and the job may be switched
     * away here and resume later. 0: go on; other: the job must end now (the
     * run is stopping, the job is aborted at its deadline, or a timing
     * exception: with timing scopes open, unwind to their ends as after
     * check() returning 1): return from the body. */
    int (*preemption_point)(const struct schedlab_job *job);
    /* A self-suspension of ns nanoseconds (the job blocks, its CPU goes to
     * another job, it resumes when dispatched again). Returns as above. On the
     * kernel backend both return 0 at once. */
    int (*suspend)(const struct schedlab_job *job, uint64_t ns);
    void *schedlab; /* schedlab's own; do not touch */

    /* Timing scopes, after OML (docs/runtime.md, "Timing exceptions"): a
     * deadline on CLOCK_MONOTONIC (absolute, or relative to now) or a WCET
     * budget of thread CPU time. Each begin returns the scope's id (0 when the
     * job must end: return from the body); `label` (may be NULL) names the
     * scope for `schedlab run --timing benchmark`, which never raises and
     * records each scope's duration instead.
     *
     * Nesting: end scopes in the reverse order of their begin (ending a scope
     * also ends the scopes opened inside it that are still open). A violation
     * belongs to the scope whose limit was violated (OML's rule): when
     * check() returns 1, unwind to the ends of the open scopes, innermost
     * first; end() returns 1 for the scope that owns the violation (and fills
     * *v when v is not NULL) — handle it there — and -1 for an inner scope
     * while an outer one is violated or when the job must end: keep unwinding.
     * A scope the body leaves open is ended after the body returns; its
     * violation then ends the job as an unhandled exception.
     *
     *     uint64_t s = job->wcet(job, 2000000, "decode");
     *     int rc = 0;
     *     while (more_work() && (rc = job->check(job)) == 0) step();
     *     struct schedlab_violation v;
     *     switch (job->end(job, s, &v)) {
     *     case 1: fall_back(v.lateness_ns); break;   // this budget was overrun
     *     case -1: return 0;                         // an outer scope or the run: unwind
     *     }
     *
     * check(): 0 go on; 1 a timing scope is violated (unwind to the ends);
     * -1 the job must end now (the run is stopping, or it is aborted at its
     * deadline). The cooperative mode (default) reads the clocks in check();
     * with `--timing async` a timer signal (SIGEV_THREAD_ID) sets a flag that
     * check() reads, and blocking calls return EINTR.
     *
     * protect_begin() / protect_end(): a protected section (nested sections
     * count): inside it check() reports no violation and the asynchronous
     * signal is held; protect_end() of the outermost section returns what
     * came meanwhile, as check() does. A scope begun and ended inside the
     * section reports nothing (leaving it cancels its enforcement). */
    uint64_t (*within_abs)(const struct schedlab_job *job, uint64_t deadline_ns, const char *label);
    uint64_t (*within_rel)(const struct schedlab_job *job, uint64_t rel_ns, const char *label);
    uint64_t (*wcet)(const struct schedlab_job *job, uint64_t budget_ns, const char *label);
    int (*end)(const struct schedlab_job *job, uint64_t scope, struct schedlab_violation *v);
    int (*check)(const struct schedlab_job *job);
    void (*protect_begin)(const struct schedlab_job *job);
    int (*protect_end)(const struct schedlab_job *job);
};

#ifdef __cplusplus
}
#endif

#endif /* SCHEDLAB_H */
