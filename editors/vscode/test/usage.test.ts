// The usage the host sends with context calls (issue 32), without a server.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { UsageTracker } from "../src/client/usage";

test("nothing recorded adds nothing: old behaviour", () => {
  const tracker = new UsageTracker();
  const params = { taskId: "t", trigger: "automatic" as const };
  assert.deepEqual(tracker.withUsage(params), params);
});

test("the provider's usage of the last request becomes lastRequest with its message count", () => {
  const tracker = new UsageTracker();
  tracker.requestSent("t", 12);
  tracker.usageReceived("t", 89_600);
  const params = tracker.withUsage({ taskId: "t", contextWindow: 128000 }, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  assert.deepEqual(params, {
    taskId: "t",
    contextWindow: 128000,
    lastRequest: { inputTokens: 89_600, messageCount: 12 },
    provider: "anthropic",
    modelId: "claude-sonnet-4-5",
  });
});

test("usage without a recorded request has no message count, and nonsense is ignored", () => {
  const tracker = new UsageTracker();
  tracker.usageReceived("t", 500);
  assert.deepEqual(tracker.lastRequest("t"), { inputTokens: 500 });
  tracker.usageReceived("t", Number.NaN);
  tracker.usageReceived("t", 0);
  assert.deepEqual(tracker.lastRequest("t"), { inputTokens: 500 });
  tracker.forget("t");
  assert.equal(tracker.lastRequest("t"), undefined);
});
