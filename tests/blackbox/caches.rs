//! Caches never outlive the truth: a folder outside the workspace swapped for a link into it, an
//! ignore file that is a link whose target changes, and a workspace folder deleted and created
//! again. Tests wait for `roo/ignore/didReload`, never for a fixed time.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const RELOADED: &str = "roo/ignore/didReload";

fn allowed(server: &mut Server, path: &str) -> bool {
    let result = server.call("roo/ignore/validateAccess", json!({"paths": [path]}));
    result["results"][0]["allowed"].as_bool().unwrap()
}

#[test]
fn an_outside_folder_swapped_for_a_link_into_secrets_is_blocked_at_once() {
    let workspace = Fixture::new(&[(".rooignore", "secrets/**\n"), ("secrets/k", "x")]);
    let outside = Fixture::new(&[("dir/k", "public")]);
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    let through_outside = outside.path("dir/k");
    let through_outside = through_outside.to_str().unwrap();
    for _ in 0..3 {
        assert!(allowed(&mut server, through_outside));
    }
    // No watcher sees this folder: the answer must not come from a cache.
    std::fs::remove_dir_all(outside.path("dir")).unwrap();
    std::os::unix::fs::symlink(workspace.path("secrets"), outside.path("dir")).unwrap();
    assert!(!allowed(&mut server, through_outside));
    // And back: a real folder again is allowed again.
    std::fs::remove_file(outside.path("dir")).unwrap();
    std::fs::create_dir(outside.path("dir")).unwrap();
    assert!(allowed(&mut server, through_outside));
}

#[test]
fn an_ignore_file_that_is_a_link_reloads_when_its_target_changes() {
    let workspace = Fixture::new(&[("a.txt", "x"), ("b.txt", "x"), ("c.txt", "x")]);
    let shared = Fixture::new(&[("rules/ignore", "a.txt\n")]);
    std::os::unix::fs::symlink(shared.path("rules/ignore"), workspace.path(".rooignore")).unwrap();
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    assert!(!allowed(&mut server, "a.txt"));

    // Saved in place, as some editors do.
    std::fs::write(shared.path("rules/ignore"), "b.txt\n").unwrap();
    server.wait_until(RELOADED, |s| {
        (allowed(s, "a.txt") && !allowed(s, "b.txt")).then_some(())
    });
    // Saved atomically (write a sibling, rename over).
    shared.replace("rules/ignore", "c.txt\n");
    server.wait_until(RELOADED, |s| {
        (allowed(s, "b.txt") && !allowed(s, "c.txt")).then_some(())
    });
    // The link re-pointed: the new target is watched from then on.
    shared.write("other/ignore", "a.txt\n");
    std::fs::remove_file(workspace.path(".rooignore")).unwrap();
    std::os::unix::fs::symlink(shared.path("other/ignore"), workspace.path(".rooignore")).unwrap();
    server.wait_until(RELOADED, |s| (!allowed(s, "a.txt")).then_some(()));
    std::fs::write(shared.path("other/ignore"), "b.txt\n").unwrap();
    server.wait_until(RELOADED, |s| {
        (allowed(s, "a.txt") && !allowed(s, "b.txt")).then_some(())
    });
}

#[test]
fn a_workspace_folder_deleted_and_cloned_again_is_watched_again() {
    let parent = Fixture::new(&[("ws/.rooignore", "a.txt\n"), ("ws/a.txt", "x")]);
    let root = parent.path("ws");
    let mut server = Server::start_in_process(&[&root], Value::Null);
    assert!(!allowed(&mut server, "a.txt"));

    std::fs::remove_dir_all(&root).unwrap();
    // A re-clone: the folder first, its files after.
    std::fs::create_dir(&root).unwrap();
    parent.write("ws/b.txt", "x");
    parent.write("ws/.rooignore", "b.txt\n");
    server.wait_until(RELOADED, |s| {
        (allowed(s, "a.txt") && !allowed(s, "b.txt")).then_some(())
    });
    // Announced twice: once after `initialize`, once for the folder watched again.
    for _ in 0..2 {
        let watching = server.notification("roo/workspace/didWatch");
        assert_eq!(
            watching,
            json!({"folders": [{"folder": root.to_string_lossy(), "recursive": true}]})
        );
    }
    // Still watched afterwards.
    parent.replace("ws/.rooignore", "a.txt\n");
    server.wait_until(RELOADED, |s| {
        (!allowed(s, "a.txt") && allowed(s, "b.txt")).then_some(())
    });
}

#[test]
fn a_workspace_folder_renamed_away_and_replaced_is_watched_again() {
    let parent = Fixture::new(&[("ws/.rooignore", "a.txt\n")]);
    let root = parent.path("ws");
    let mut server = Server::start_in_process(&[&root], Value::Null);
    assert!(!allowed(&mut server, "a.txt"));
    std::fs::rename(&root, parent.path("ws.old")).unwrap();
    parent.write("staging/.rooignore", "b.txt\n");
    std::fs::rename(parent.path("staging"), &root).unwrap();
    server.wait_until(RELOADED, |s| {
        (allowed(s, "a.txt") && !allowed(s, "b.txt")).then_some(())
    });
    // Edits to the old, moved folder no longer count.
    parent.replace("ws.old/.rooignore", "c.txt\n");
    parent.replace("ws/.rooignore", "d.txt\n");
    server.wait_until(RELOADED, |s| (!allowed(s, "d.txt")).then_some(()));
    assert!(allowed(&mut server, "c.txt"));
}
