//! The synthetic trajectories (issue 31's first replay): a seeded generator over a small
//! code-and-prose vocabulary. Kept beside the real corpus (`real.rs`) so the two can be compared.

use serde_json::json;

use roo_context_core::conversation::ApiMessage;

use super::message;

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low) as u64) as usize
    }

    /// Between `low` and `high` words.
    pub fn text(&mut self, low: usize, high: usize) -> String {
        let count = self.range(low, high);
        self.words(count)
    }

    pub fn words(&mut self, count: usize) -> String {
        const WORDS: &[&str] = &[
            "the",
            "context",
            "window",
            "token",
            "file",
            "src/lib.rs",
            "=>",
            "{",
            "}",
            "fn",
            "let",
            "const",
            "return",
            "value",
            "async",
            "await",
            "impl",
            "struct",
            "match",
            "Some",
            "None",
            "\n",
            "    ",
            "// note",
            "path",
            "test",
            "config",
            "parse",
            "request",
            "handler",
            "42",
            "0x1f",
            "user",
            "cache",
            "self",
            "pub",
            "mod",
            "use",
        ];
        let mut out = String::new();
        for _ in 0..count {
            out.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
            out.push(' ');
        }
        out
    }
}

/// One synthetic task: its messages, and for each step the file whose latest read it is (to
/// check the invariant).
pub fn task(seed: u64) -> Vec<ApiMessage> {
    let mut rng = Rng(seed);
    let steps = rng.range(40, 301);
    let mut ts = 1_000u64;
    let mut messages = vec![message(
        json!({"role": "user", "content": format!("<task>{}</task>", rng.words(80)), "ts": ts}),
    )];
    let mut files: Vec<String> = Vec::new();
    for step in 0..steps {
        let id = format!("toolu_{seed}_{step}");
        let roll = rng.range(0, 100);
        let (name, input, output, is_error) = if roll < 20 || files.is_empty() {
            let path = format!("src/module_{}.rs", files.len());
            files.push(path.clone());
            let body = rng.text(300, 3000);
            (
                "read_file",
                json!({"path": path}),
                format!("{path}\n{body}"),
                false,
            )
        } else if roll < 35 {
            let path = files[rng.range(0, files.len())].clone();
            let body = rng.text(300, 3000);
            (
                "read_file",
                json!({"path": path}),
                format!("{path}\n{body}"),
                false,
            )
        } else if roll < 50 {
            let path = files[rng.range(0, files.len())].clone();
            let diff = rng.text(20, 120);
            (
                "apply_diff",
                json!({"path": path, "diff": diff}),
                format!("Changes applied to {path}."),
                false,
            )
        } else if roll < 55 {
            let path = files[rng.range(0, files.len())].clone();
            let content = rng.text(200, 1500);
            (
                "write_to_file",
                json!({"path": path, "content": content}),
                format!("Wrote {path}."),
                false,
            )
        } else if roll < 70 {
            let failing = rng.range(0, 10) < 6;
            let mut out = rng.text(500, 4000);
            if failing {
                out.push_str("\nerror[E0308]: mismatched types\n --> src/lib.rs:42:5\n");
                out.push_str("test result: FAILED. 118 passed; 2 failed; 0 ignored\n");
            } else {
                out.push_str("\ntest result: ok. 120 passed; 0 failed; 0 ignored\n");
            }
            (
                "execute_command",
                json!({"command": "cargo test"}),
                out,
                failing,
            )
        } else if roll < 85 {
            let pattern = rng.words(2);
            (
                "search_files",
                json!({"path": ".", "regex": pattern}),
                rng.text(100, 1500),
                false,
            )
        } else {
            (
                "execute_command",
                json!({"command": "cargo build --verbose"}),
                rng.text(1000, 6000),
                false,
            )
        };
        ts += 1;
        messages.push(message(json!({"role": "assistant", "content": [
            {"type": "text", "text": rng.text(30, 100)},
            {"type": "tool_use", "id": id, "name": name, "input": input}], "ts": ts})));
        ts += 1;
        let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": output});
        if is_error {
            result["is_error"] = json!(true);
        }
        messages.push(message(
            json!({"role": "user", "content": [result], "ts": ts}),
        ));
    }
    messages
}
