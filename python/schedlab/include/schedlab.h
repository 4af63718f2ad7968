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
     * exception): return from the body. */
    int (*preemption_point)(const struct schedlab_job *job);
    /* A self-suspension of ns nanoseconds (the job blocks, its CPU goes to
     * another job, it resumes when dispatched again). Returns as above. On the
     * kernel backend both return 0 at once. */
    int (*suspend)(const struct schedlab_job *job, uint64_t ns);
    void *schedlab; /* schedlab's own; do not touch */
};

#ifdef __cplusplus
}
#endif

#endif /* SCHEDLAB_H */
