pub fn run(_args: Vec<String>) -> i32 { 0 }
