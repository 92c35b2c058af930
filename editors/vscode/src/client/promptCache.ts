// Prompt-cache helpers for an agent host (issue 30): record the model request the host last sent,
// and turn a `roo/host/summarize` request into the call to make. A continuation is the recorded
// request replayed exactly (system prompt, tools, tool choice, response format, messages, cache
// breakpoints where they were) with the sidecar's messages appended, so the provider reads the
// whole prefix from its cache; a standalone request is today's shape.

import type { CacheParams, HostSummarizeParams } from "../protocol.generated";

/** A provider request as the host sent it; every field but `messages` is passed through untouched. */
export interface ProviderRequest {
  messages: unknown[];
  [field: string]: unknown;
}

/** What to send to the model for one summarize request. */
export type SummarizeCall =
  | { shape: "continuation"; request: ProviderRequest }
  | { shape: "standalone"; systemPrompt: string; messages: unknown[] };

/** Keeps the host's last model request and when it was sent. */
export class LastRequestRecorder {
  private last?: { request: ProviderRequest; atMs: number };

  /** Call right before (or after) each model request of the agent, with the exact request. */
  record(request: ProviderRequest, atMs: number = Date.now()): void {
    this.last = { request, atMs };
  }

  /** The recorded request, if any. */
  lastRequest(): ProviderRequest | undefined {
    return this.last?.request;
  }

  /**
   * `cache` params for `roo/context/manage`: ask for continuations when a request was recorded, with
   * the cache clock (`ttlMs`, Anthropic's default 5 minutes) and deferral when `defer` is set.
   */
  cacheParams(options: { ttlMs?: number; defer?: boolean } = {}): CacheParams {
    const params: CacheParams = { prefixReuse: this.last !== undefined, ttlMs: options.ttlMs ?? 300_000 };
    if (this.last) params.lastRequestAtMs = this.last.atMs;
    if (options.defer) params.defer = {};
    return params;
  }
}

/**
 * The call to make for `params`: with `shape: "continuation"` the recorded request with
 * `params.messages` appended (nothing else changes: no tool-choice or response-format edits),
 * else the standalone request. A continuation without a recorded request cannot be made: it
 * throws, and the sidecar reports the failed call.
 */
export function summarizeCall(params: HostSummarizeParams, last: ProviderRequest | undefined): SummarizeCall {
  if (params.shape !== "continuation") {
    return { shape: "standalone", systemPrompt: params.systemPrompt, messages: params.messages };
  }
  if (!last) {
    throw new Error("roo/host/summarize asked for a continuation, but no last request was recorded");
  }
  return { shape: "continuation", request: { ...last, messages: [...last.messages, ...params.messages] } };
}
