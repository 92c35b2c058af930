// Host request dispatch and notification presentation, without a server.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import {
  HOST_NOT_AVAILABLE,
  HostNotAvailableError,
  abortSignalOf,
  answerHostRequest,
  describeContextEvents,
  describeDiffStat,
  describeVerification,
  describeNotification,
} from "../src/client/host";
import { describeUserDiffs } from "../src/client/userDiffs";

test("a request without a handler answers not available", async () => {
  const outcome = await answerHostRequest("roo/host/somethingNew", undefined, {});
  assert.deepEqual(outcome, {
    error: { code: HOST_NOT_AVAILABLE, message: "roo/host/somethingNew is not available in this host" },
  });
});

test("a handler that cannot serve says why", async () => {
  const outcome = await answerHostRequest(
    "roo/host/resolveMention",
    () => {
      throw new HostNotAvailableError("terminal output", "VS Code does not expose it");
    },
    {},
  );
  assert.ok("error" in outcome);
  assert.equal(outcome.error.code, HOST_NOT_AVAILABLE);
  assert.match(outcome.error.message, /terminal output is not available in this host: VS Code does not expose it/);
});

test("a handler's result is passed through", async () => {
  assert.deepEqual(await answerHostRequest("m", async (p: { n: number }) => p.n + 1, { n: 1 }), { result: 2 });
});

test("a cancellation token becomes an AbortSignal, also when it is cancelled already", () => {
  const listeners: Array<() => void> = [];
  let disposed = 0;
  const token = {
    isCancellationRequested: false,
    onCancellationRequested(listener: () => void) {
      listeners.push(listener);
      return { dispose: () => disposed++ };
    },
  };
  const live = abortSignalOf(token);
  assert.equal(live.signal.aborted, false);
  listeners.forEach((listener) => listener());
  assert.equal(live.signal.aborted, true);
  assert.equal((live.signal.reason as Error).message, "the server cancelled the request");
  live.dispose();
  assert.equal(disposed, 1);
  assert.equal(abortSignalOf({ ...token, isCancellationRequested: true }).signal.aborted, true);
  assert.equal(abortSignalOf(undefined).signal.aborted, false);
});

test("a handler receives the request's signal", async () => {
  const controller = new AbortController();
  const outcome = await answerHostRequest("m", (_p: unknown, signal: AbortSignal) => signal === controller.signal, {}, controller.signal);
  assert.deepEqual(outcome, { result: true });
});

test("reload errors pop up, clean reloads only log", () => {
  const ok = describeNotification("roo/ignore/didReload", { folder: "/w", activeIgnoreFile: ".rooignore", ruleCount: 3, error: null });
  assert.deepEqual(ok, { level: "log", text: "roo-context: /w: .rooignore, 3 rules" });
  const failed = describeNotification("roo/ignore/didReload", { folder: "/w", activeIgnoreFile: null, ruleCount: 0, error: "denied" });
  assert.equal(failed.level, "popup");
  assert.match(failed.text, /error: denied; previous rules kept/);
});

test("a folder that could not be watched pops up; a watched one is logged", () => {
  assert.deepEqual(describeNotification("roo/workspace/didWatch", { folders: [{ folder: "/w", recursive: true }] }), {
    level: "log",
    text: "roo-context: watching /w",
  });
  const unwatched = describeNotification("roo/workspace/didWatch", {
    folders: [{ folder: "/w", recursive: true }, { folder: "/big", recursive: false }],
  });
  assert.equal(unwatched.level, "popup");
  assert.match(unwatched.text, /changes below \/big are not seen/);
});

test("user edits and condense events pop up; unknown notifications are logged", () => {
  assert.deepEqual(describeNotification("roo/files/didChange", { taskId: "t1", path: "a.ts", kind: "modified" }), {
    level: "popup",
    text: "roo-context: a.ts was modified outside the agent (task t1)",
  });
  // The stat of the change against what the agent last saw (issue 19), when the server sends one.
  const stat = { added: 2, removed: 1, hunks: 1 };
  assert.deepEqual(describeNotification("roo/files/didChange", { taskId: "t1", path: "a.ts", kind: "modified", diffStat: stat }), {
    level: "popup",
    text: "roo-context: a.ts was modified (+2 -1, 1 hunk) outside the agent (task t1)",
  });
  assert.equal(describeDiffStat({ added: 0, removed: 3, hunks: 2 }), " (+0 -3, 2 hunks)");
  for (const bad of [null, undefined, {}, { added: "1", removed: 0, hunks: 1 }]) assert.equal(describeDiffStat(bad), "");
  assert.equal(describeNotification("roo/files/userEdit", { path: "a.ts" }).level, "popup");
  assert.equal(describeNotification("roo/context/didCondense", { tokens: 1 }).level, "popup");
});

test("condense, truncation and condense errors of a manage result are shown", () => {
  const shown = describeContextEvents({
    events: [
      { say: "condense_context_error", text: "Not enough messages" },
      { say: "condense_context", contextCondense: { cost: 0.1, prevContextTokens: 900, newContextTokens: 200, summary: "s", condenseId: "c" } },
      { say: "sliding_window_truncation", contextTruncation: { truncationId: "t", messagesRemoved: 4, prevContextTokens: 900, newContextTokens: 500 } },
    ],
  });
  assert.deepEqual(shown, [
    { level: "popup", text: "roo-context: condensing failed: Not enough messages" },
    { level: "popup", text: "roo-context: context condensed from 900 to 200 tokens (cost 0.1)" },
    { level: "popup", text: "roo-context: context truncated, 4 messages hidden (900 to 500 tokens)" },
  ]);
  assert.deepEqual(describeContextEvents({ paths: [] }), []);
});

test("a summary verification that did not pass is shown as a warning after the condense", () => {
  const verification = {
    passed: false, repaired: true, retries: 0, addendumTokens: 61,
    checks: [
      { id: "sections", passed: true, missingCount: 0 },
      { id: "files", passed: false, missing: ["src/shapes.ts"], missingCount: 1 },
      { id: "todos", passed: false, skipped: "no TODO list", missingCount: 0 },
    ],
  };
  const shown = describeContextEvents({
    events: [{ say: "condense_context", contextCondense: { cost: 0, prevContextTokens: 900, newContextTokens: 200, summary: "s", condenseId: "c", verification } }],
  });
  assert.deepEqual(shown[1], {
    level: "popup",
    text: "roo-context: summary verification warning: files: 1 missing (e.g. src/shapes.ts) — restored by a 61-token addendum",
  });
  assert.equal(describeVerification(undefined), undefined);
  // Passed: no warning.
  const passed = { ...verification, passed: true };
  assert.equal(describeContextEvents({ events: [{ say: "condense_context", contextCondense: { verification: passed } }] }).length, 1);
  // Refused because of it: the result's report is shown after the error.
  const refused = describeContextEvents({
    events: [{ say: "condense_context_error", text: "The summary lost context" }],
    verification: { ...verification, repaired: false },
  });
  assert.equal(refused.length, 2);
  assert.match(refused[1].text, /not restored$/);
});

test("a change of a partly read file says so in the output channel", () => {
  const lines = describeUserDiffs("t1", {
    paths: ["a.ts", "b.ts"],
    changes: [
      { path: "a.ts", kind: "modified", diff: "@@ -1 +1 @@\n-a\n+b\n", diffStat: { added: 1, removed: 1, hunks: 1 }, partial: true },
      { path: "b.ts", kind: "modified", fallback: "tooLarge" },
    ],
  });
  assert.deepEqual(lines, [
    "roo-context: task t1: a.ts modified (+1 -1) [the agent read only part of this file] outside the agent:\n@@ -1 +1 @@\n-a\n+b\n",
    "roo-context: task t1: b.ts modified, no diff (tooLarge)",
  ]);
});
