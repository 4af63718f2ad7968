//! `cmd:PROGRAM ARGS...`: an external command run once per job (only with
//! an explicit `--allow-command`: it runs with the task's real-time class).
//! The child starts in the worker's class (SCHED_FIFO), or SCHED_OTHER when
//! the worker is SCHED_DEADLINE (deadline threads cannot fork without
//! reset-on-fork, which schedlab sets). The job waits for it; when the job
//! must end (abort at deadline, a stopping run) the child is killed — the
//! one truly asynchronous abort schedlab offers. Environment:
//! `SCHEDLAB_TASK`, `SCHEDLAB_JOB`, `SCHEDLAB_EXEC_NS`, `SCHEDLAB_DEADLINE_NS`.
//! The child is killed (SIGKILL) when the worker thread that started it
//! dies, so a run killed with SIGKILL leaves no real-time command behind.

use crate::job::{JobCtx, JobError};
use crate::workload::JobBody;
use std::os::unix::process::CommandExt;
use std::process::{Command as Proc, Stdio};

pub struct Command {
    pub argv: Vec<String>,
}

impl JobBody for Command {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        ctx.check()?;
        let mut child = Proc::new(&self.argv[0]);
        child
            .args(&self.argv[1..])
            .env("SCHEDLAB_TASK", ctx.task.to_string())
            .env("SCHEDLAB_JOB", ctx.job.to_string())
            .env("SCHEDLAB_EXEC_NS", ctx.exec.to_string())
            .env("SCHEDLAB_DEADLINE_NS", ctx.deadline.to_string())
            .stdin(Stdio::null());
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: between fork and exec only async-signal-safe calls: prctl,
        // getppid, raise. PR_SET_PDEATHSIG fires when the forking thread
        // exits; a parent already gone before the prctl shows as a changed
        // parent PID.
        unsafe {
            child.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0
                    || libc::getppid() != parent
                {
                    libc::raise(libc::SIGKILL);
                }
                Ok(())
            });
        }
        let mut child = child.spawn().map_err(|e| JobError::Failed(format!("cannot run {}: {e}", self.argv[0])))?;
        loop {
            match child.try_wait() {
                Ok(Some(st)) if st.success() => return Ok(()),
                Ok(Some(st)) => return Err(JobError::Failed(format!("{} exited with {st}", self.argv[0]))),
                Ok(None) => {}
                Err(e) => return Err(JobError::Failed(format!("waiting for {}: {e}", self.argv[0]))),
            }
            if let Err(e) = ctx.check() {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
            crate::clock::sleep_until(crate::clock::now() + 200_000);
        }
    }
}
