fn main() {
    std::process::exit(schedlab_cli::run(std::env::args().collect()))
}
