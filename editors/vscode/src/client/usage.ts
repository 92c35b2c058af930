// Provider usage for the context trigger (issue 32): the host records how many stored messages
// each request held and the input tokens the provider reported for it; `withUsage` adds them to
// the next `roo/context/willManage` / `roo/context/manage` call as `lastRequest`, with the model
// (`provider`, `modelId`) the sidecar calibrates for. A host that never records sends nothing,
// and the sidecar behaves as before.

import type { LastRequestUsage } from "../protocol.generated";

/** The model a task converses with. */
export interface ConversingModel {
  provider?: string;
  modelId: string;
}

/** What the sidecar needs from the last request, per task. */
export class UsageTracker {
  private readonly sent = new Map<string, number>();
  private readonly usage = new Map<string, LastRequestUsage>();

  /** A request holding the first `messageCount` stored messages was sent. */
  requestSent(taskId: string, messageCount: number): void {
    this.sent.set(taskId, messageCount);
  }

  /**
   * The provider's usage of that request arrived (input tokens including cache reads and
   * writes, as the provider counts them).
   */
  usageReceived(taskId: string, inputTokens: number): void {
    const messageCount = this.sent.get(taskId);
    if (!Number.isFinite(inputTokens) || inputTokens <= 0) return;
    this.usage.set(taskId, messageCount === undefined ? { inputTokens } : { inputTokens, messageCount });
  }

  /** The task's `lastRequest`, when its usage was received. */
  lastRequest(taskId: string): LastRequestUsage | undefined {
    return this.usage.get(taskId);
  }

  /** Forget a task (its history was replaced, or it ended). */
  forget(taskId: string): void {
    this.sent.delete(taskId);
    this.usage.delete(taskId);
  }

  /**
   * `params` with `lastRequest`, `provider` and `modelId` added when known (fields the caller
   * set win).
   */
  withUsage<P extends { taskId?: string | null }>(params: P, model?: ConversingModel): P {
    const extra: Record<string, unknown> = {};
    const last = params.taskId ? this.lastRequest(params.taskId) : undefined;
    if (last) extra.lastRequest = last;
    if (model) {
      extra.modelId = model.modelId;
      if (model.provider) extra.provider = model.provider;
    }
    return { ...extra, ...params };
  }
}
