use std::any::Any;

/// Exit code of a verb whose standard output was closed under it (`| head`):
/// 128 + SIGPIPE, as if the signal had stopped it.
const EXIT_CLOSED_OUTPUT: i32 = 128 + 13;

/// Whether a panic is `print!`'s on a closed standard output. Rust ignores
/// SIGPIPE, so a write to a closed pipe fails with EPIPE and `print!`
/// panics with this message.
fn closed_output(payload: &(dyn Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    text.starts_with("failed printing to stdout") && text.contains("Broken pipe")
}

fn main() {
    // A closed output pipe ends the verb quietly: no panic message, and
    // the unwinding runs every guard on the way out (a `run` restores the
    // machine as on any other error).
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !closed_output(info.payload()) {
            report(info)
        }
    }));
    let args: Vec<String> = std::env::args().collect();
    let code = match std::panic::catch_unwind(move || schedlab_cli::run(args)) {
        Ok(code) => code,
        Err(payload) if closed_output(&*payload) => EXIT_CLOSED_OUTPUT,
        Err(payload) => std::panic::resume_unwind(payload),
    };
    std::process::exit(code)
}
