# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_schedlab_global_optspecs
    string join \n json h/help V/version
end

function __fish_schedlab_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_schedlab_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_schedlab_using_subcommand
    set -l cmd (__fish_schedlab_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c schedlab -n "__fish_schedlab_needs_command" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_needs_command" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_needs_command" -s V -l version -d 'Print version'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "gen" -d 'Generate a random task set. Every option has a default, so `schedlab gen --seed 7` alone prints a valid spec; the seed and the options are recorded in `meta`, and the same seed gives byte-identical output'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "check" -d 'Validate a spec and print its summary: tasks, utilisation, density, hyperperiod and a row per task. Problems are reported with file, line, column and field path; exit code 2 if the spec is invalid'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "analyze" -d 'Run schedulability tests on a spec and explain each verdict: the deciding task, the value and the bound compared, the slack. By default the tests about the spec\'s policy run; `--test` picks tests by ID (`schedlab tests` lists them), `--all` runs every test. With an overhead model (the spec\'s `overheads`, or `--overheads`), WCETs are first inflated by the kernel overheads (docs/overheads.md). The answer is *proven* when a hard real-time test about the spec\'s policy shows that every deadline is met (docs/analysis.md, "What the verdict means"). Exit code 0 proven, 1 not proven (inconclusive or unschedulable; the last line says which), 2 bad input'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "tests" -d 'List the schedulability tests: ID, what they are about, the task model they assume, exact or sufficient, and where they come from. The IDs are what `schedlab analyze --test` takes'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "partition" -d 'Partition the spec\'s tasks onto CPUs (partitioned policies) or clusters (clustered policies): each task goes where the heuristic puts it among the bins that stay schedulable under the test (test-driven packing). Prints the partition and every bin\'s verdict; with -o, writes the spec with every task pinned (`cpu` or `cluster`), the policy used and the heuristic that succeeded recorded, ready for `simulate`, `run` and `analyze` as it is. A global spec is partitioned with `--policy pedf` (or another partitioned or clustered policy). Exit code 0 when every task was placed and every bin passes, 1 otherwise, 2 for bad input'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "reduce" -d 'Print RUN\'s reduction tree of a spec: every server with its name, level, exact rate (fraction and decimal) and children (tasks, or other servers\' duals), the number of reduction levels and the packing and slack policies used (the spec\'s `policy.partitioning` and `policy.slack` when its policy is `run`, else wfd and greedy). Exit code 2 for a spec RUN cannot schedule (a utilisation above 1, a total above the CPU count, a deadline other than the period), naming the field and the fix'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "simulate" -d 'Simulate the spec under its policy. Prints per-task statistics (jobs, misses, response times, tardiness, preemptions, migrations) and writes the trace and its exports on request. Memory stays flat in the number of jobs unless --perfetto or --svg asks for the whole schedule. Exit code 0, or 1 when --validate finds a violation or, with --fail-on-miss, an `hrt` task misses a deadline; 2 for bad input (nothing written)'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "run" -d 'Run the spec on real threads (SCHED_FIFO / SCHED_DEADLINE, needs root or CAP_SYS_NICE), restore the machine, and print per-task statistics. Exit codes: 0 ok, 1 failure (kernel refusal, job failure, watchdog, validation, an `hrt` deadline miss under --fail-on-miss), 2 bad input (nothing touched), 3 missing privileges (nothing touched), 128+N after signal N (the machine was restored)'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "probe" -d 'Measure what the platform gives before trusting a run'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "restore" -d 'Restore what killed schedlab runs left on the machine (from their journals in /run/schedlab), and print what was restored. Exit codes: 0 restored (or nothing to restore), 1 something could not be restored or another run holds the run lock'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "overheads" -d 'Measure kernel / dispatcher overheads as a function of the task count'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "validate" -d 'Check a trace against its policy: generic invariants (no job before its release, on two CPUs, outside its placement, ...) and policy conformance (the running jobs are the highest-priority eligible ones; replay for PD^2 and RUN). Reports the first violation with its context. Exit code 0 when the schedule is valid, 1 when it is not, 2 when the trace cannot be read'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "stats" -d 'Print per-task statistics of a trace: jobs, misses, response times, tardiness, preemptions, migrations; per-CPU utilisation and overheads'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "export" -d 'Export a trace: Chrome/Perfetto JSON (open it at ui.perfetto.dev), an SVG Gantt chart, the per-job CSV table, or a re-encoded trace'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "import" -d 'Import another tool\'s file: a trace, an overhead CSV or a spec'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "schema" -d 'Print the JSON Schema of the spec (the same file ships as docs/spec.schema.json)'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "sweep" -d 'Run an experiment: one row per (task set, evaluation), written as Parquet or CSV; resumable (a checkpoint `OUTPUT.ckpt` is kept until the end)'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "plot" -d 'Plot sweep results: schedulability curves with confidence bands, weighted schedulability, simulation metrics (PNG, SVG or PDF)'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "report" -d 'Write a self-contained HTML report of sweep results (opens offline)'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish)'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "man" -d 'Print the man page'
complete -c schedlab -n "__fish_schedlab_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l seed -d 'Seed of the random generator (recorded in the output)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l cpus -d 'Number of CPUs' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l cluster-size -d 'Split the CPUs into clusters of this size' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l policy -d 'Policy written into the spec' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l utils -d 'Utilisation method or distribution (see below)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -s n -l tasks -d 'Number of tasks, for uunifast, uunifast-discard, randfixedsum, drs [default: 10]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -s u -l util -d 'Total utilisation, or the cap for named distributions [default: cpus / 2]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l slack -d 'Named distributions: the set\'s utilisation lands in [util − slack, util] [default: 0.07 light/medium, 0.1 heavy]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l umin -d 'Lower bound of each task\'s utilisation (randfixedsum, drs)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l umax -d 'Upper bound of each task\'s utilisation (randfixedsum, drs)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l periods -d 'Period distribution (see below)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l period-granularity -d 'Periods are multiples of this' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l deadlines -d '`implicit` (D = T) or `constrained` (D uniform in [C, T])' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l wcet-granularity -d 'WCETs are u·T rounded up to a multiple of this' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l wss -d 'Working-set sizes: uniform:LO-HI or list:S1,S2,...' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l cache -d 'Shared cache geometry SIZE/WAYS/LINE, e.g. 8MiB/16/64B' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l colors-per-task -d 'Give each task this many distinct random cache colours (needs --cache)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l mtt -d 'Draw multithreaded tasks until --util instead of independent tasks: `threads=LO-HI,util=LO-HI,wss=uni:LO-HI|tc:LO-HI`, or `default` (see below)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l prem -d 'PREM tasks for memory-centric scheduling (with --policy mcs): one task per CPU, --wss its data, split into Sections: key=value pairs mode, partition, section, bandwidth, compute, write, or `default`' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l format -d 'Output format: yaml or json [default: from the -o extension, else yaml]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -s o -l output -d 'Write to this file instead of stdout (with --json, stdout gets `{"file", "spec"}` as well)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l harmonic -d 'Make every period divide the longer ones (small hyperperiods)'
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand gen" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand check" -s q -l quiet -d 'Print only problems (and nothing when the spec is valid)'
complete -c schedlab -n "__fish_schedlab_using_subcommand check" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand check" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l policy -d 'Use this policy instead of the spec\'s (parameters it does not take are dropped with a notice)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l set -d 'Set a policy parameter for this call, e.g. `--set quantum=500us` (repeatable)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l test -d 'Run this test (repeatable), by registry ID' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l overheads -d 'Overhead model CSV (instead of the spec\'s `overheads`)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l accounting -d 'Accounting method: `epos` (Eq. 2/3) or `per-task-release`' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l tick -d 'Tick period Q for the accounting (0: no periodic tick)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l period -d 'With `--select-budgets`: this period for every group (and leaf queue) instead of the spec\'s' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l lookup -d 'Look-up of overheads by task count: `step` (the row above), `linear` or `floor` (the row below, the EPOS rule)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l explain -d 'Every test\'s compared value, bound and supporting lines'
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l exact -d 'Exact fractions instead of durations and decimals'
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l all -d 'Run every test in the registry'
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l no-overheads -d 'Ignore the spec\'s overhead model'
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l select-budgets -d 'Instead of testing the spec\'s reservations, choose them: for each group, the least budget with which the H-CBS group test (`hcbs.msf`) accepts its tasks, at its period (exit 0 when every group has one and they fit the CPUs, 1 otherwise)'
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand analyze" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand tests" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand tests" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -l policy -d 'Use this policy instead of the spec\'s (parameters it does not take are dropped with a notice)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -l set -d 'Set a policy parameter for this call, e.g. `--set quantum=500us` (repeatable)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -l heuristic -d 'Packing heuristic (repeatable: tried in turn, the first that succeeds wins): ff, bf, wf, nf, ffd, bfd, wfd, nfd [default: the spec\'s `partitioning`, else wfd]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -l test -d 'The partitioned or clustered test (registry ID) [default: pedf.qpa, pfp.rta, pllf.util, pfpds.rta, cedf.global or cfp.global by policy]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -l admission -d 'For partitioned tests with `admit`: the uniprocessor test admitting each task onto a CPU (e.g. uni.edf.qpa)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -s o -l output -d 'Write the spec with every task pinned to this file (.yaml or .json)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand partition" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand reduce" -l policy -d 'Use this policy instead of the spec\'s (parameters it does not take are dropped with a notice)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand reduce" -l set -d 'Set a policy parameter for this call, e.g. `--set quantum=500us` (repeatable)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand reduce" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand reduce" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l policy -d 'Use this policy instead of the spec\'s (parameters it does not take are dropped with a notice)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l set -d 'Set a policy parameter for this call, e.g. `--set quantum=500us` (repeatable)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l horizon -d 'End of the simulation [default: hyperperiod + largest offset, capped by --horizon-cap]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l horizon-cap -d 'Cap on the computed horizon' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l seed -d 'Seed of every random choice (sporadic arrivals, execution times, jitter)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l exec -d 'Execution time of each job: `wcet`, or `uniform` in [bcet, wcet] (a task\'s `executions` list always wins)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l sporadic -d 'Extra inter-arrival beyond the period: `none`, `uniform:MAX` or `exponential:MEAN`' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l miss -d 'A job that misses its deadline: `continue` (default), `abort` at the deadline, or `skip` releases while it is late' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l miss-cycles -d 'The platform model\'s cost of a shared-cache miss, in cycles (default 200); 0 counts misses without slowing jobs' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l tick -d 'Tick period for tick overhead (0 disables ticks)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l trace -d 'Write the trace (.jsonl text or .sltrace binary)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l perfetto -d 'Write Chrome / Perfetto trace JSON' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l svg -d 'Write an SVG Gantt chart' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l csv -d 'Write the per-job table as CSV' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l no-jitter -d 'Ignore the tasks\' release jitter'
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l no-overheads -d 'Ignore the spec\'s overhead model'
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l no-platform-model -d 'Ignore the spec\'s cache: no platform model (no slowdowns, no model CPMD, no counters)'
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l validate -d 'Check the schedule with the validator while simulating (exit 1 on a violation)'
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l fail-on-miss -d 'Exit 1 when a task of class `hrt` misses a deadline'
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand simulate" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l policy -d 'Use this policy instead of the spec\'s (parameters it does not take are dropped with a notice)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l set -d 'Set a policy parameter for this call, e.g. `--set quantum=500us` (repeatable)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l duration -d 'How long jobs are released for; jobs in progress then complete' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l backend -d '`kernel` (Linux classes) or `dispatch` (user-space dispatcher)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l seed -d 'Seed of every random choice (sporadic arrivals, execution times, jitter, memory walks)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l exec -d 'Execution time of each job: `wcet`, `uniform` in [bcet, wcet], or `fraction:F` of the WCET' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l sporadic -d 'Extra inter-arrival beyond the period: `none`, `uniform:MAX` or `exponential:MEAN`' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l miss -d 'A job still running at its deadline: `continue`, `skip` releases while late, or `abort` it' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l workload -d 'Workload, for every task (`KIND`) or one task (`TASK=KIND`, TASK a name or index): spin, spin-cpu, memwalk[:seq|random|strided[:BYTES]], prem, c:LIB:SYMBOL[:ARG], cmd:PROGRAM ARGS' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l job-timeout -d 'A job running longer than this is declared hung by the watchdog [default: max(5s, 20 periods + deadline)]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l dl-slack -d 'SCHED_DEADLINE runtime = WCET + this + --dl-slack-ratio × WCET (at most the deadline)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l dl-slack-ratio -d 'The part of the SCHED_DEADLINE slack proportional to the WCET (interrupt time charged to the job)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l start-margin -d 'Setup time before the synchronous release' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l trace -d 'Write the trace (.sltrace binary or .jsonl text)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l overheads-out -d 'Write the measured overheads as an overhead CSV (for `analyze --overheads`)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l perfetto -d 'Write Chrome / Perfetto trace JSON' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l svg -d 'Write an SVG Gantt chart' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l csv -d 'Write the per-job table as CSV' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l tolerance -d 'The validator\'s tolerance for a recorded schedule (the decision latency)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l timing -d 'Job bodies\' timing scopes (try_within / try_wcet): `cooperative` checks, `async` notification, or `benchmark` (never raise; record each scope\'s duration: per-label count, max, mean, p99 in the output)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l counters -d 'Where the dispatch backend\'s counters (`Kernel::counters`) come from: `auto` (perf\'s hardware events where the machine has them, else what the workloads publish), `perf` or `workload`' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l idle -d 'What idle CPUs do during the run: `poll` (a 0 µs wake-up latency request on /dev/cpu_dma_latency, as cyclictest makes: idle CPUs poll, and waking one needs no interrupt) or `kernel` (the kernel\'s idle states)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l no-jitter -d 'Ignore the tasks\' release jitter'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l allow-command -d 'Allow `cmd:` workloads (external commands at real-time priority)'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l no-kernel-trace -d 'Do not read the kernel\'s sched events from tracefs (then preemptions and migrations are not in the trace)'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l no-dl-reclaim -d 'Strict CBS: no SCHED_FLAG_RECLAIM (a job past its runtime is throttled to its next period even while CPUs idle)'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l recalibrate -d 'Measure the spin calibration again instead of using the cached one'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l validate -d 'Check the recorded schedule with the validator (exit 1 on a violation)'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l fail-on-miss -d 'Exit 1 when a task of class `hrt` misses a deadline'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l wait -d 'Wait for another schedlab run that holds the run lock to end (default: fail at once, naming its PID)'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand run" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and not __fish_seen_subcommand_from latency help" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and not __fish_seen_subcommand_from latency help" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and not __fish_seen_subcommand_from latency help" -f -a "latency" -d 'Timer wake-up latency (cyclictest -m -S -p PRIO -i INTERVAL), idle and loaded; IRQ threads'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and not __fish_seen_subcommand_from latency help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from latency" -l interval -d 'Wake-up interval' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from latency" -l duration -d 'Duration of each phase (idle, loaded)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from latency" -l priority -d 'SCHED_FIFO priority of the probe threads' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from latency" -l no-load -d 'Skip the loaded phase'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from latency" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from latency" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from help" -f -a "latency" -d 'Timer wake-up latency (cyclictest -m -S -p PRIO -i INTERVAL), idle and loaded; IRQ threads'
complete -c schedlab -n "__fish_schedlab_using_subcommand probe; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand restore" -l wait -d 'Wait for a schedlab run that holds the run lock to end (default: fail at once, naming its PID)'
complete -c schedlab -n "__fish_schedlab_using_subcommand restore" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand restore" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and not __fish_seen_subcommand_from measure help" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and not __fish_seen_subcommand_from measure help" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and not __fish_seen_subcommand_from measure help" -f -a "measure" -d 'Run synthetic sets of growing size and write the overhead CSV (TASK-COUNT, RELEASE, SCHEDULE, CXS, IPI-LATENCY, TICK, RELEASE-LATENCY; µs)'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and not __fish_seen_subcommand_from measure help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l sizes -d 'Task counts to measure, in increasing order' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l backend -d '`dispatch` (schedlab\'s own scheduling decisions) or `kernel` (Linux\'s, read from tracefs)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l policy -d 'The policy of the synthetic sets (`gedf` runs on both backends)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l duration -d 'How long each size runs' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l utilization -d 'Total utilisation of each synthetic set (over all CPUs)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l cpus -d 'CPUs of the synthetic sets\' platform [default: the online CPUs]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l percentile -d 'Write this percentile of each overhead instead of the maximum (e.g. 99.9)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l workload -d 'Workload of every job (see `schedlab run --workload`)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -s o -l output -d 'Where to write the CSV [default: standard output]' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from measure" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from help" -f -a "measure" -d 'Run synthetic sets of growing size and write the overhead CSV (TASK-COUNT, RELEASE, SCHEDULE, CXS, IPI-LATENCY, TICK, RELEASE-LATENCY; µs)'
complete -c schedlab -n "__fish_schedlab_using_subcommand overheads; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand validate" -l tolerance -d 'Decisions may lag events by up to this much (0 for simulator traces)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand validate" -l mode -d 'Which checks: `auto` (by the policy\'s kind), `priority`, `replay` or `generic`' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand validate" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand validate" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand stats" -l jobs-csv -d 'Write the per-job table as CSV to this file as well' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand stats" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand stats" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l perfetto -d 'Chrome / Perfetto trace-event JSON' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l svg -d 'SVG Gantt chart' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l csv -d 'Per-job CSV table' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l trace -d 'The trace re-encoded (the extension chooses: .jsonl text, .sltrace binary)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l start -d 'SVG: first instant shown' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l end -d 'SVG: last instant shown' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l width -d 'SVG: width in pixels' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -a "rt-app" -d 'A spec as an rt-app workload (SCHED_FIFO for gfp / pfp, SCHED_DEADLINE for gedf)'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -a "simso" -d 'A spec as a SimSo configuration (XML)'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -a "sched-trace" -d 'A trace as LITMUS^RT sched_trace files, one per CPU (DIR/st-<cpu>.bin)'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and not __fish_seen_subcommand_from rt-app simso sched-trace help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from rt-app" -l duration -d 'How long the workload runs (each thread runs ⌈duration / period⌉ steps, its jobs)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from rt-app" -l fill -d 'The share of the WCET each job executes, in (0, 1]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from rt-app" -s o -l output -d 'The workload [default: standard output]' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from rt-app" -l ftrace -d 'Ask rt-app to write its own trace_marker lines'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from rt-app" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from rt-app" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from simso" -l duration -d 'The simulated duration' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from simso" -s o -l output -d 'The configuration [default: standard output]' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from simso" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from simso" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from sched-trace" -s o -l output -d 'The folder for the files (created if missing)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from sched-trace" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from sched-trace" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from help" -f -a "rt-app" -d 'A spec as an rt-app workload (SCHED_FIFO for gfp / pfp, SCHED_DEADLINE for gedf)'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from help" -f -a "simso" -d 'A spec as a SimSo configuration (XML)'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from help" -f -a "sched-trace" -d 'A trace as LITMUS^RT sched_trace files, one per CPU (DIR/st-<cpu>.bin)'
complete -c schedlab -n "__fish_schedlab_using_subcommand export; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "sched-trace" -d 'LITMUS^RT sched_trace files (st-*.bin, one per CPU) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "feather-trace" -d 'feather-trace overhead samples (ft2csv\'s input) → the overhead CSV'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "ftrace" -d 'A Linux scheduler recording (tracefs `trace`, `trace-cmd report`, `perf script`) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "trace-cmd" -d 'A Linux scheduler recording (tracefs `trace`, `trace-cmd report`, `perf script`) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "perf" -d 'A Linux scheduler recording (tracefs `trace`, `trace-cmd report`, `perf script`) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "rt-app" -d 'An rt-app workload (JSON) → a spec'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "simso" -d 'A SimSo configuration (XML) → a spec'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and not __fish_seen_subcommand_from sched-trace feather-trace ftrace trace-cmd perf rt-app simso help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from sched-trace" -l plugin -d 'The LITMUS^RT plugin of the run (or a schedlab policy name)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from sched-trace" -l cpus -d 'CPUs of the platform [default: the highest CPU in the records + 1]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from sched-trace" -l cluster-size -d 'C-EDF: CPUs per cluster' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from sched-trace" -s o -l output -d 'The trace to write (.jsonl or .sltrace)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from sched-trace" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from sched-trace" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from feather-trace" -l tasks -d 'The TASK-COUNT of the row: the number of tasks of the measured system' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from feather-trace" -l cycles-per-us -d 'Clock rate of the timestamps (the TSC): cycles per µs' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from feather-trace" -l percentile -d 'Write this percentile instead of the maximum' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from feather-trace" -l iqr -d 'Remove samples above Q3 + K·IQR first' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from feather-trace" -s o -l output -d 'The CSV [default: standard output]' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from feather-trace" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from feather-trace" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -l spec -d 'The spec the threads run (tasks, policy, platform)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -l map -d 'PATTERN=TASK: threads whose name matches the glob (or pid:N) are TASK. Repeat. Default: a thread named like a task' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -l release -d 'Where releases come from: `wakeup`, `marker`, or `rt-app` (rt-app\'s own job markers)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -l marker -d 'With `--release marker`: the prefix of the trace_marker text that marks a release' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -l skip -d 'Leave out this much of the schedule after the threads\' set-up (a warm-up)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -s o -l output -d 'The trace to write (.jsonl or .sltrace)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from ftrace" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -l spec -d 'The spec the threads run (tasks, policy, platform)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -l map -d 'PATTERN=TASK: threads whose name matches the glob (or pid:N) are TASK. Repeat. Default: a thread named like a task' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -l release -d 'Where releases come from: `wakeup`, `marker`, or `rt-app` (rt-app\'s own job markers)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -l marker -d 'With `--release marker`: the prefix of the trace_marker text that marks a release' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -l skip -d 'Leave out this much of the schedule after the threads\' set-up (a warm-up)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -s o -l output -d 'The trace to write (.jsonl or .sltrace)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from trace-cmd" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -l spec -d 'The spec the threads run (tasks, policy, platform)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -l map -d 'PATTERN=TASK: threads whose name matches the glob (or pid:N) are TASK. Repeat. Default: a thread named like a task' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -l release -d 'Where releases come from: `wakeup`, `marker`, or `rt-app` (rt-app\'s own job markers)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -l marker -d 'With `--release marker`: the prefix of the trace_marker text that marks a release' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -l skip -d 'Leave out this much of the schedule after the threads\' set-up (a warm-up)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -s o -l output -d 'The trace to write (.jsonl or .sltrace)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from perf" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from rt-app" -l cpus -d 'CPUs of the platform [default: the highest CPU in `cpus` + 1]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from rt-app" -s o -l output -d 'The spec to write (.yaml or .json) [default: standard output, YAML]' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from rt-app" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from rt-app" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from simso" -s o -l output -d 'The spec to write (.yaml or .json) [default: standard output, YAML]' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from simso" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from simso" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "sched-trace" -d 'LITMUS^RT sched_trace files (st-*.bin, one per CPU) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "feather-trace" -d 'feather-trace overhead samples (ft2csv\'s input) → the overhead CSV'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "ftrace" -d 'A Linux scheduler recording (tracefs `trace`, `trace-cmd report`, `perf script`) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "rt-app" -d 'An rt-app workload (JSON) → a spec'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "simso" -d 'A SimSo configuration (XML) → a spec'
complete -c schedlab -n "__fish_schedlab_using_subcommand import; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand schema" -s o -l output -d 'Write to this file instead of stdout' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand schema" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand schema" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -s o -l output -d 'The results file: `.parquet` or `.csv`' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -l threads -d 'Worker threads (default: every core)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -l samples -d 'Override the experiment\'s samples per point (e.g. a reduced local run)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -l ray -d 'Run the chunks on the Ray cluster at ADDRESS (needs `pip install schedlab[ray]`; see docs/experiments.md)' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -l dry-run -d 'Print the sweep\'s size and a time estimate; run nothing'
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -l restart -d 'Ignore (and replace) a checkpoint of an interrupted run'
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand sweep" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand plot" -s o -l output -d 'The figure file (.png, .svg or .pdf); several plots get -1, -2, ... suffixes' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand plot" -l kind -d 'auto, schedulability, weighted or simulation[:METRIC]' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand plot" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand plot" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand report" -s o -l output -d 'The HTML file' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand report" -l experiment -d 'The experiment file (default: the one a Parquet results file records)' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand report" -l title -d 'The page\'s title' -r
complete -c schedlab -n "__fish_schedlab_using_subcommand report" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand report" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand completions" -s o -l output -d 'Write to this file instead of stdout' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand completions" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand completions" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand man" -s o -l output -d 'Write to this file instead of stdout' -r -F
complete -c schedlab -n "__fish_schedlab_using_subcommand man" -l json -d 'Print machine-readable JSON instead of text'
complete -c schedlab -n "__fish_schedlab_using_subcommand man" -s h -l help -d 'Print help'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "gen" -d 'Generate a random task set. Every option has a default, so `schedlab gen --seed 7` alone prints a valid spec; the seed and the options are recorded in `meta`, and the same seed gives byte-identical output'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "check" -d 'Validate a spec and print its summary: tasks, utilisation, density, hyperperiod and a row per task. Problems are reported with file, line, column and field path; exit code 2 if the spec is invalid'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "analyze" -d 'Run schedulability tests on a spec and explain each verdict: the deciding task, the value and the bound compared, the slack. By default the tests about the spec\'s policy run; `--test` picks tests by ID (`schedlab tests` lists them), `--all` runs every test. With an overhead model (the spec\'s `overheads`, or `--overheads`), WCETs are first inflated by the kernel overheads (docs/overheads.md). The answer is *proven* when a hard real-time test about the spec\'s policy shows that every deadline is met (docs/analysis.md, "What the verdict means"). Exit code 0 proven, 1 not proven (inconclusive or unschedulable; the last line says which), 2 bad input'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "tests" -d 'List the schedulability tests: ID, what they are about, the task model they assume, exact or sufficient, and where they come from. The IDs are what `schedlab analyze --test` takes'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "partition" -d 'Partition the spec\'s tasks onto CPUs (partitioned policies) or clusters (clustered policies): each task goes where the heuristic puts it among the bins that stay schedulable under the test (test-driven packing). Prints the partition and every bin\'s verdict; with -o, writes the spec with every task pinned (`cpu` or `cluster`), the policy used and the heuristic that succeeded recorded, ready for `simulate`, `run` and `analyze` as it is. A global spec is partitioned with `--policy pedf` (or another partitioned or clustered policy). Exit code 0 when every task was placed and every bin passes, 1 otherwise, 2 for bad input'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "reduce" -d 'Print RUN\'s reduction tree of a spec: every server with its name, level, exact rate (fraction and decimal) and children (tasks, or other servers\' duals), the number of reduction levels and the packing and slack policies used (the spec\'s `policy.partitioning` and `policy.slack` when its policy is `run`, else wfd and greedy). Exit code 2 for a spec RUN cannot schedule (a utilisation above 1, a total above the CPU count, a deadline other than the period), naming the field and the fix'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "simulate" -d 'Simulate the spec under its policy. Prints per-task statistics (jobs, misses, response times, tardiness, preemptions, migrations) and writes the trace and its exports on request. Memory stays flat in the number of jobs unless --perfetto or --svg asks for the whole schedule. Exit code 0, or 1 when --validate finds a violation or, with --fail-on-miss, an `hrt` task misses a deadline; 2 for bad input (nothing written)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "run" -d 'Run the spec on real threads (SCHED_FIFO / SCHED_DEADLINE, needs root or CAP_SYS_NICE), restore the machine, and print per-task statistics. Exit codes: 0 ok, 1 failure (kernel refusal, job failure, watchdog, validation, an `hrt` deadline miss under --fail-on-miss), 2 bad input (nothing touched), 3 missing privileges (nothing touched), 128+N after signal N (the machine was restored)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "probe" -d 'Measure what the platform gives before trusting a run'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "restore" -d 'Restore what killed schedlab runs left on the machine (from their journals in /run/schedlab), and print what was restored. Exit codes: 0 restored (or nothing to restore), 1 something could not be restored or another run holds the run lock'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "overheads" -d 'Measure kernel / dispatcher overheads as a function of the task count'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "validate" -d 'Check a trace against its policy: generic invariants (no job before its release, on two CPUs, outside its placement, ...) and policy conformance (the running jobs are the highest-priority eligible ones; replay for PD^2 and RUN). Reports the first violation with its context. Exit code 0 when the schedule is valid, 1 when it is not, 2 when the trace cannot be read'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "stats" -d 'Print per-task statistics of a trace: jobs, misses, response times, tardiness, preemptions, migrations; per-CPU utilisation and overheads'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "export" -d 'Export a trace: Chrome/Perfetto JSON (open it at ui.perfetto.dev), an SVG Gantt chart, the per-job CSV table, or a re-encoded trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "import" -d 'Import another tool\'s file: a trace, an overhead CSV or a spec'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "schema" -d 'Print the JSON Schema of the spec (the same file ships as docs/spec.schema.json)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "sweep" -d 'Run an experiment: one row per (task set, evaluation), written as Parquet or CSV; resumable (a checkpoint `OUTPUT.ckpt` is kept until the end)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "plot" -d 'Plot sweep results: schedulability curves with confidence bands, weighted schedulability, simulation metrics (PNG, SVG or PDF)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "report" -d 'Write a self-contained HTML report of sweep results (opens offline)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "man" -d 'Print the man page'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and not __fish_seen_subcommand_from gen check analyze tests partition reduce simulate run probe restore overheads validate stats export import schema sweep plot report completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from probe" -f -a "latency" -d 'Timer wake-up latency (cyclictest -m -S -p PRIO -i INTERVAL), idle and loaded; IRQ threads'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from overheads" -f -a "measure" -d 'Run synthetic sets of growing size and write the overhead CSV (TASK-COUNT, RELEASE, SCHEDULE, CXS, IPI-LATENCY, TICK, RELEASE-LATENCY; µs)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from export" -f -a "rt-app" -d 'A spec as an rt-app workload (SCHED_FIFO for gfp / pfp, SCHED_DEADLINE for gedf)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from export" -f -a "simso" -d 'A spec as a SimSo configuration (XML)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from export" -f -a "sched-trace" -d 'A trace as LITMUS^RT sched_trace files, one per CPU (DIR/st-<cpu>.bin)'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "sched-trace" -d 'LITMUS^RT sched_trace files (st-*.bin, one per CPU) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "feather-trace" -d 'feather-trace overhead samples (ft2csv\'s input) → the overhead CSV'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "ftrace" -d 'A Linux scheduler recording (tracefs `trace`, `trace-cmd report`, `perf script`) → a schedlab trace'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "rt-app" -d 'An rt-app workload (JSON) → a spec'
complete -c schedlab -n "__fish_schedlab_using_subcommand help; and __fish_seen_subcommand_from import" -f -a "simso" -d 'A SimSo configuration (XML) → a spec'
