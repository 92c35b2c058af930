//! A small Rust module in the demo workspace.

pub struct Counter {
    count: u64,
}

impl Counter {
    pub fn new() -> Self {
        Counter { count: 0 }
    }

    pub fn increment(&mut self) -> u64 {
        self.count += 1;
        self.count
    }
}
