//! `$/cancelRequest` stops real heavy work, not just the test-only `roo/debug/hold`: a cancelled
//! `roo/fold/context` over many files gives its blocking-pool slot back between windows of files,
//! so the next heavy request is answered instead of waiting for the whole folding to finish.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

/// Enough files that folding them all takes minutes in a debug build (far past the harness's
/// deadline), while one window of them takes a moment.
const FILES: usize = 600;

fn source() -> String {
    (0..500)
        .map(|i| {
            format!(
                "export function f{i}(a: number): number {{\n  const b = a + {i};\n  if (b > 3) {{\n    return b;\n  }}\n  return a;\n}}\n"
            )
        })
        .collect()
}

#[test]
fn a_cancelled_fold_frees_its_slot_for_the_next_heavy_request() {
    let body = source();
    let names: Vec<String> = (0..FILES).map(|i| format!("src/f{i}.ts")).collect();
    let mut files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), body.as_str())).collect();
    files.push(("src/small.ts", "export const small = 1;\n"));
    let fixture = Fixture::new(&files);
    let mut server = Server::spawn_with_env(&[("ROO_CONTEXT_HEAVY_SLOTS", "1")]);
    server.initialize(&[fixture.root()], Value::Null).unwrap();
    let heavy = server.send_request(
        "roo/fold/context",
        json!({"paths": names, "maxChars": u32::MAX}),
    );
    // Let the folding take the only slot and start (if it has not, the test passes trivially).
    std::thread::sleep(std::time::Duration::from_secs(1));
    server.notify("$/cancelRequest", json!({"id": heavy}));
    assert_eq!(server.response(heavy)["error"]["code"], -32800);
    // Needs the slot the cancelled folding held: without stopping, this misses the deadline.
    let outline = server.call("roo/fold/outline", json!({"path": "src/small.ts"}));
    assert_eq!(outline["language"], "typescript", "{outline}");
}
