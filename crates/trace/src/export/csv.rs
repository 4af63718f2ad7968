//! The per-job table as CSV: a header row, then one row per job with the
//! columns `task, task_index, job, release, deadline, start, finish,
//! response, tardiness, missed, preemptions, migrations, exec, status`.
//! Times are integer ns; an absent value (`start` of a job that never ran,
//! `finish` and `response` of an unfinished job) is an empty field. Fields
//! are quoted as RFC 4180 says (names holding a comma, a quote or a line
//! break are quoted, quotes doubled); lines end with `\n`.
//!
//! [`JobCsvWriter`] is a [`JobSink`], so the table can be streamed straight
//! from the metrics accumulator without holding the jobs in memory.

use crate::metrics::{JobRecord, JobSink, Metrics};
use crate::{Event, Header};
use std::borrow::{Borrow, Cow};
use std::io::{self, Write};

/// The column names, in order.
pub const COLUMNS: [&str; 14] = [
    "task",
    "task_index",
    "job",
    "release",
    "deadline",
    "start",
    "finish",
    "response",
    "tardiness",
    "missed",
    "preemptions",
    "migrations",
    "exec",
    "status",
];

/// Quote a field if RFC 4180 requires it.
pub fn quote(field: &str) -> Cow<'_, str> {
    if field.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", field.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(field)
    }
}

/// Streams job records as CSV rows. As a [`JobSink`] it keeps the first
/// write error and reports it from [`JobCsvWriter::finish`].
pub struct JobCsvWriter<W: Write> {
    w: W,
    names: Vec<String>,
    line: String,
    error: Option<io::Error>,
}

impl<W: Write> JobCsvWriter<W> {
    /// Write the header row; `names` are the task names by index (from
    /// [`Header::task_name`]; missing ones are written `T<index>`).
    pub fn new(mut w: W, names: Vec<String>) -> io::Result<JobCsvWriter<W>> {
        w.write_all(COLUMNS.join(",").as_bytes())?;
        w.write_all(b"\n")?;
        Ok(JobCsvWriter { w, names, line: String::with_capacity(128), error: None })
    }

    /// A writer with the task names of `header`'s spec.
    pub fn for_header(w: W, header: &Header) -> io::Result<JobCsvWriter<W>> {
        JobCsvWriter::new(w, header.spec.tasks.iter().map(|t| t.name.clone()).collect())
    }

    /// Write one row.
    pub fn write(&mut self, r: &JobRecord) -> io::Result<()> {
        use std::fmt::Write as _;
        let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        self.line.clear();
        let fallback;
        let name = match self.names.get(r.task as usize) {
            Some(n) => n.as_str(),
            None => {
                fallback = format!("T{}", r.task);
                fallback.as_str()
            }
        };
        let _ = writeln!(
            self.line,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            quote(name),
            r.task,
            r.job,
            r.release,
            r.deadline,
            opt(r.start),
            opt(r.finish),
            opt(r.response),
            r.tardiness,
            r.missed,
            r.preemptions,
            r.migrations,
            r.exec,
            r.status.name()
        );
        self.w.write_all(self.line.as_bytes())
    }

    /// Flush and give the writer back, or the first error met as a sink.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> JobSink for JobCsvWriter<W> {
    fn job(&mut self, rec: &JobRecord) {
        if self.error.is_none() {
            if let Err(e) = self.write(rec) {
                self.error = Some(e);
            }
        }
    }
}

/// Write the job table of a trace, sorted by (task, job).
pub fn write_jobs_csv<W: Write, E: Borrow<Event>>(
    w: W,
    header: &Header,
    events: impl IntoIterator<Item = E>,
) -> io::Result<W> {
    let mut m = Metrics::from_header(header).with_sink(Vec::new());
    for ev in events {
        m.push(ev.borrow());
    }
    let (_, mut jobs) = m.finish();
    jobs.sort_by_key(|j| (j.task, j.job));
    let mut out = JobCsvWriter::for_header(w, header)?;
    for j in &jobs {
        out.write(j)?;
    }
    out.finish()
}

/// The job table of a trace as a string, sorted by (task, job).
pub fn jobs_csv<E: Borrow<Event>>(header: &Header, events: impl IntoIterator<Item = E>) -> String {
    let out = write_jobs_csv(Vec::new(), header, events).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_as_rfc_4180_says() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
    }
}
