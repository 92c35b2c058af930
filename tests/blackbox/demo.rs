//! The README's main job: `roo-context demo` on the bundled example workspace runs every step
//! against the real server and prints the transcript.

use crate::harness::binary;

#[test]
fn demo_runs_every_step_on_the_example_workspace() {
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo-workspace");
    let output = std::process::Command::new(binary())
        .args(["demo", "--workspace", workspace])
        .output()
        .unwrap();
    let transcript = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{transcript}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for expected in [
        "→ roo/ignore/validateAccess",
        "blocked  src/config-link.json",
        "(symlink to secrets/api.json)",
        "protected .roo/mcp.json",
        "→ roo/mentions/parse",
        "← roo/files/didChange (notification): task demo-task file src/app.ts was modified",
        "## File Context: src/app.ts",
        "tokens exactly",
        "the server asked roo/host/summarize",
        "## Conversation Summary",
        "exit code 0",
    ] {
        assert!(
            transcript.contains(expected),
            "missing {expected:?} in:\n{transcript}"
        );
    }
    assert!(
        !transcript.contains("API_KEY=super-secret"),
        "an ignored file leaked"
    );
}
