// The host's side of tool-output hygiene: the placeholders the sidecar decided, applied to a copy.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { withContextHygiene } from "../src/client/hygiene";

test("a tool result named by a contextHygiene entry is sent as its text; the stored message is kept", () => {
  const stored = {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "t1", content: "huge output", is_error: true },
      { type: "tool_result", tool_use_id: "t2", content: "kept" },
      { type: "text", text: "<environment_details>" },
    ],
    ts: 5,
    contextHygiene: [{ toolUseId: "t1", kind: "masked", tool: "execute_command", tokens: 9000, text: "[masked]", decidedAtTs: 9 }],
  };
  const before = JSON.stringify(stored);
  const seen = withContextHygiene(stored);
  assert.deepEqual(seen.content, [
    { type: "tool_result", tool_use_id: "t1", content: "[masked]", is_error: true },
    { type: "tool_result", tool_use_id: "t2", content: "kept" },
    { type: "text", text: "<environment_details>" },
  ]);
  assert.equal(JSON.stringify(stored), before);
});

test("a message without entries is returned as it is", () => {
  const message = { role: "user", content: "hi" };
  assert.equal(withContextHygiene(message), message);
  const blocks = { role: "user", content: [{ type: "tool_result", tool_use_id: "t9", content: "x" }], contextHygiene: [] };
  assert.equal(withContextHygiene(blocks), blocks);
});
