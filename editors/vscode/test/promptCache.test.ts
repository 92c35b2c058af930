// The prompt-cache helpers: a continuation is the recorded request with the sidecar's messages
// appended, byte for byte a prefix of it; a standalone request is passed as it is.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { LastRequestRecorder, summarizeCall } from "../src/client/promptCache";

const last = {
  model: "claude-sonnet-4-5",
  system: [{ type: "text", text: "You are Roo.", cache_control: { type: "ephemeral" } }],
  tools: [{ name: "read_file", input_schema: { type: "object" } }],
  tool_choice: { type: "auto" },
  messages: [{ role: "user", content: [{ type: "text", text: "<task>fix</task>", cache_control: { type: "ephemeral" } }] }],
};

const base = { requestId: "r1", trigger: "automatic" as const, requestTokens: 10, tokenLimit: 100 };

test("a continuation replays the last request and appends the sidecar's messages", () => {
  const appended = [{ role: "user", content: [{ type: "text", text: "Summarize. Do not call any tool." }] }];
  const call = summarizeCall({ ...base, systemPrompt: "", messages: appended, shape: "continuation" }, last);
  assert.equal(call.shape, "continuation");
  if (call.shape !== "continuation") return;
  assert.deepEqual(call.request.tool_choice, last.tool_choice);
  assert.deepEqual(call.request.messages, [...last.messages, ...appended]);
  const before = JSON.stringify(last);
  const after = JSON.stringify(call.request);
  const prefix = before.slice(0, -2); // up to the last message, before `]}`
  assert.ok(after.startsWith(prefix), "the replay is a byte-identical prefix");
});

test("a standalone request is passed through and a continuation needs a recorded request", () => {
  const call = summarizeCall({ ...base, systemPrompt: "S", messages: [{ role: "user", content: "x" }] }, undefined);
  assert.deepEqual(call, { shape: "standalone", systemPrompt: "S", messages: [{ role: "user", content: "x" }] });
  assert.throws(
    () => summarizeCall({ ...base, systemPrompt: "", messages: [], shape: "continuation" }, undefined),
    /no last request was recorded/,
  );
});

test("the recorder's cache params ask for continuations only once a request was recorded", () => {
  const recorder = new LastRequestRecorder();
  assert.deepEqual(recorder.cacheParams(), { prefixReuse: false, ttlMs: 300000 });
  recorder.record(last, 1234);
  assert.deepEqual(recorder.cacheParams({ defer: true }), {
    prefixReuse: true,
    ttlMs: 300000,
    lastRequestAtMs: 1234,
    defer: {},
  });
  assert.equal(recorder.lastRequest(), last);
});
