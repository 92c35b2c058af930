// The host side of the protocol: answering the server's requests (summarize, mention resolution)
// and presenting its notifications. Handlers are keyed by the generated method tables; anything the
// host cannot do answers with a clear "not available" error instead of hanging the server.

import { ROO_SERVER_NOTIFICATION_METHODS, RooServerNotifications, RooServerRequests } from "../protocol.generated";
import { CancellationLike, Disposable, RooTransport } from "./transport";

/** JSON-RPC error code used when the host cannot provide a service. */
export const HOST_NOT_AVAILABLE = -32001;

/** Thrown by a host handler when the editor cannot provide what was asked. */
export class HostNotAvailableError extends Error {
  readonly code = HOST_NOT_AVAILABLE;
  constructor(what: string, why: string) {
    super(`${what} is not available in this host: ${why}`);
  }
}

/**
 * Answers for server-to-client requests; a missing entry answers "not available". `signal` aborts
 * when the server cancels the request (`$/cancelRequest`), so long work (a URL fetch) stops.
 */
export type HostHandlers = {
  [M in keyof RooServerRequests]?: (
    params: RooServerRequests[M]["params"],
    signal: AbortSignal,
  ) => Promise<RooServerRequests[M]["result"]> | RooServerRequests[M]["result"];
};

/**
 * An AbortSignal that aborts when `token` is cancelled (at once if it already is); `dispose`
 * drops the listener once the request is answered.
 */
export function abortSignalOf(token: CancellationLike | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const cancelled = () => controller.abort(new Error("the server cancelled the request"));
  if (!token) return { signal: controller.signal, dispose: () => {} };
  if (token.isCancellationRequested) {
    cancelled();
    return { signal: controller.signal, dispose: () => {} };
  }
  const registration = token.onCancellationRequested(cancelled);
  return { signal: controller.signal, dispose: () => registration.dispose() };
}

/** A JSON-RPC error as vscode-jsonrpc serialises it when a handler throws a ResponseError-like value. */
export interface HostErrorShape {
  code: number;
  message: string;
}

/** Runs one handler and converts failures into a JSON-RPC error object with a readable message. */
export async function answerHostRequest(
  method: string,
  handler: ((params: any, signal: AbortSignal) => unknown) | undefined,
  params: unknown,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ result: unknown } | { error: HostErrorShape }> {
  if (!handler) {
    return { error: { code: HOST_NOT_AVAILABLE, message: `${method} is not available in this host` } };
  }
  try {
    return { result: await handler(params, signal) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof HostNotAvailableError ? error.code : -32603;
    return { error: { code, message: `${method}: ${message}` } };
  }
}

/**
 * Registers `handlers` for every server-to-client request in the method table (and any extra
 * method names given), converting thrown errors with `toError` (the transport's error type). The
 * transport's cancellation token reaches each handler as an AbortSignal.
 */
export function registerHostHandlers(
  transport: RooTransport,
  handlers: HostHandlers,
  serverRequestMethods: readonly string[],
  toError: (error: HostErrorShape) => unknown,
): Disposable {
  const table = handlers as Record<string, ((params: any, signal: AbortSignal) => unknown) | undefined>;
  const registrations = serverRequestMethods.map((method) =>
    transport.onRequest(method, async (params: unknown, token?: CancellationLike) => {
      const cancellation = abortSignalOf(token);
      try {
        const outcome = await answerHostRequest(method, table[method], params, cancellation.signal);
        if ("error" in outcome) return toError(outcome.error);
        return outcome.result;
      } finally {
        cancellation.dispose();
      }
    }),
  );
  return { dispose: () => registrations.forEach((r) => r.dispose()) };
}

/** One server notification, for display. */
export type NotificationEvent = {
  [M in keyof RooServerNotifications]: { method: M; params: RooServerNotifications[M] };
}[keyof RooServerNotifications];

/** Subscribes to every server notification of the method table. */
export function onServerNotifications(
  transport: RooTransport,
  listener: (event: NotificationEvent) => void,
): Disposable {
  const registrations = Object.values(ROO_SERVER_NOTIFICATION_METHODS).map((method) =>
    transport.onNotification(method, (params) => listener({ method, params } as NotificationEvent)),
  );
  return { dispose: () => registrations.forEach((r) => r.dispose()) };
}

/** How a notification is shown: a popup for what the user should notice, else a log line. */
export interface Presentation {
  level: "popup" | "log";
  text: string;
}

/**
 * ` (+2 -1, 1 hunk)` for the `diffStat` of a `roo/files/didChange` (issue 19): how much differs from
 * what the agent last saw. Empty when absent or malformed (blocked, binary, oversized files have none).
 */
export function describeDiffStat(stat: unknown): string {
  const s = stat as { added?: unknown; removed?: unknown; hunks?: unknown } | null | undefined;
  if (!s || typeof s.added !== "number" || typeof s.removed !== "number" || typeof s.hunks !== "number") return "";
  return ` (+${s.added} -${s.removed}, ${s.hunks} hunk${s.hunks === 1 ? "" : "s"})`;
}

/** Describes a server notification for the user, without knowing every method by hand. */
export function describeNotification(method: string, params: unknown): Presentation {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === "roo/ignore/didReload") {
    const error = typeof p.error === "string" ? ` (error: ${p.error}; previous rules kept)` : "";
    const file = p.activeIgnoreFile ?? "no ignore file";
    return { level: p.error ? "popup" : "log", text: `roo-context: ${p.folder}: ${file}, ${p.ruleCount} rules${error}` };
  }
  if (method === "roo/workspace/didWatch") {
    const folders = Array.isArray(p.folders) ? (p.folders as { folder?: unknown; recursive?: unknown }[]) : [];
    const unwatched = folders.filter((f) => f.recursive !== true).map((f) => String(f.folder));
    if (unwatched.length > 0) {
      return { level: "popup", text: `roo-context: changes below ${unwatched.join(", ")} are not seen (the folder could not be watched; the system's watch limit?)` };
    }
    return { level: "log", text: `roo-context: watching ${folders.map((f) => String(f.folder)).join(", ")}` };
  }
  if (method === "roo/files/didChange") {
    const moved = typeof p.newPath === "string" ? ` to ${p.newPath}` : "";
    return { level: "popup", text: `roo-context: ${p.path} was ${p.kind ?? "changed"}${moved}${describeDiffStat(p.diffStat)} outside the agent (task ${p.taskId})` };
  }
  const popup = /user.?edit|didEdit|userChange|condense|summar/i.test(method);
  const details = JSON.stringify(params);
  const short = details.length > 300 ? `${details.slice(0, 300)}…` : details;
  return { level: popup ? "popup" : "log", text: `roo-context: ${method} ${short}` };
}

/**
 * The warning for a summary verification that did not pass (issue 19): which checks failed,
 * what was missing, and whether the addendum restored it. `undefined` when it passed or is absent.
 */
export function describeVerification(verification: unknown): Presentation | undefined {
  const v = verification as
    | { passed?: boolean; repaired?: boolean; retries?: number; addendumTokens?: number; checks?: Array<{ id?: string; passed?: boolean; skipped?: string; missingCount?: number; missing?: string[] }> }
    | null
    | undefined;
  if (!v || v.passed !== false) return undefined;
  const failed = (v.checks ?? [])
    .filter((check) => check.passed === false && !check.skipped)
    .map((check) => {
      const count = check.missingCount ?? check.missing?.length ?? 0;
      const first = check.missing?.[0];
      const example = first ? ` (e.g. ${first.length > 60 ? `${first.slice(0, 60)}…` : first})` : "";
      return count > 0 ? `${check.id}: ${count} missing${example}` : `${check.id}`;
    });
  const repair = v.repaired
    ? `restored by a ${v.addendumTokens ?? 0}-token addendum`
    : "not restored";
  const retried = v.retries ? `, after ${v.retries} retry` : "";
  return { level: "popup", text: `roo-context: summary verification warning: ${failed.join("; ") || "checks failed"} — ${repair}${retried}` };
}

/** The UI events of a `roo/context/manage` result (condensed, truncated, failed), for display. */
export function describeContextEvents(result: unknown): Presentation[] {
  const events = (result as { events?: unknown } | null | undefined)?.events;
  if (!Array.isArray(events)) return [];
  const shown: Presentation[] = [];
  for (const event of events as any[]) {
    shown.push(describeContextEvent(event));
    const warning = event?.say === "condense_context" ? describeVerification(event.contextCondense?.verification) : undefined;
    if (warning) shown.push(warning);
  }
  // A condense refused because of its verification has no condense_context event: the result
  // carries the report.
  const hasCondense = (events as any[]).some((event) => event?.say === "condense_context");
  const refused = hasCondense ? undefined : describeVerification((result as { verification?: unknown }).verification);
  if (refused) shown.push(refused);
  return shown;
}

function describeContextEvent(event: any): Presentation {
    switch (event?.say) {
      case "condense_context": {
        const c = event.contextCondense ?? {};
        return { level: "popup", text: `roo-context: context condensed from ${c.prevContextTokens} to ${c.newContextTokens} tokens (cost ${c.cost ?? 0})` };
      }
      case "sliding_window_truncation": {
        const t = event.contextTruncation ?? {};
        return { level: "popup", text: `roo-context: context truncated, ${t.messagesRemoved} messages hidden (${t.prevContextTokens} to ${t.newContextTokens} tokens)` };
      }
      case "condense_context_error":
        return { level: "popup", text: `roo-context: condensing failed: ${event.text ?? "unknown error"}` };
      default:
        return { level: "log", text: `roo-context: ${JSON.stringify(event)}` };
    }
}
