// Host services the sidecar asks the editor for, implemented with the VS Code API: summaries
// through the Language Model API (vscode.lm), problems from vscode.languages.getDiagnostics, URLs
// through the bounded fetch and Markdown conversion of src/client/webFetch.ts; terminal output is
// not exposed by the stable API, so it answers "not available".

import * as vscode from "vscode";
import { HostNotAvailableError } from "./client/host";
import { resolveUrlMention } from "./client/webFetch";

/** A message as the sidecar sends it in a summarize request (`{role, content}`, content a string or blocks). */
interface WireMessage {
  role: string;
  content: string | Array<{ type?: string; text?: string }>;
}

function textOf(content: WireMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => (typeof block.text === "string" ? block.text : `[${block.type ?? "block"}]`))
    .join("\n");
}

const inFlight = new Map<string, vscode.CancellationTokenSource>();

/** Answers `roo/host/cancelSummarize`: stops the model call of `requestId`. */
export function cancelSummarize(params: any): void {
  const source = inFlight.get(String(params?.requestId));
  source?.cancel();
}

/**
 * Answers `roo/host/summarize` (`{requestId, systemPrompt, messages, ...}`) with
 * `{text, cost, outputTokens}`, or `{error}` when the provider call fails.
 */
export async function summarizeWithLanguageModel(params: any, modelFamily: string): Promise<unknown> {
  if (params?.shape === "continuation") {
    // Issue 30's continuation replays the agent's own last model request; this extension does
    // not make the agent's requests (an agent host records them with LastRequestRecorder and
    // answers with summarizeCall), so it never sets prefixReuseCondense and refuses one clearly.
    throw new HostNotAvailableError(
      "a continuation summarize request",
      "this extension does not make the agent's model requests, so it has no last request to replay",
    );
  }
  const messages: WireMessage[] = Array.isArray(params?.messages) ? params.messages : [];
  const selector = modelFamily ? { family: modelFamily } : {};
  const [model] = await vscode.lm.selectChatModels(selector);
  if (!model) {
    throw new HostNotAvailableError(
      "summarization",
      `no chat model${modelFamily ? ` of family "${modelFamily}"` : ""} is available through the VS Code Language Model API (install and sign in to a provider such as GitHub Copilot)`,
    );
  }
  // The Language Model API has no system role: the system prompt goes first, as a user message.
  const chat: vscode.LanguageModelChatMessage[] = [];
  if (typeof params?.systemPrompt === "string" && params.systemPrompt) {
    chat.push(vscode.LanguageModelChatMessage.User(params.systemPrompt));
  }
  for (const message of messages) {
    const text = textOf(message.content);
    chat.push(
      message.role === "assistant"
        ? vscode.LanguageModelChatMessage.Assistant(text)
        : vscode.LanguageModelChatMessage.User(text),
    );
  }
  const requestId = String(params?.requestId ?? "");
  const cancel = new vscode.CancellationTokenSource();
  inFlight.set(requestId, cancel);
  try {
    const response = await model.sendRequest(
      chat,
      { justification: "roo-context condenses the agent's conversation to fit the context window." },
      cancel.token,
    );
    let text = "";
    for await (const fragment of response.text) text += fragment;
    const outputTokens = await model.countTokens(text);
    return { text, cost: 0, outputTokens };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof vscode.LanguageModelError ? error.code : undefined;
    return { text: "", cost: 0, error: { message, code } };
  } finally {
    inFlight.delete(requestId);
    cancel.dispose();
  }
}

const SEVERITY = ["Error", "Warning", "Information", "Hint"];

/** The workspace's problems, grouped by file, in the `@problems` mention format. */
export function problemsText(maxMessages = 0): string {
  const lines: string[] = [];
  let count = 0;
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    const relevant = diagnostics.filter(
      (d) => d.severity === vscode.DiagnosticSeverity.Error || d.severity === vscode.DiagnosticSeverity.Warning,
    );
    if (relevant.length === 0) continue;
    lines.push(`\n\n${vscode.workspace.asRelativePath(uri)}`);
    for (const d of relevant) {
      if (maxMessages > 0 && count++ >= maxMessages) break;
      const source = d.source ? `${d.source} ` : "";
      lines.push(`- [${source}${SEVERITY[d.severity]}] ${d.range.start.line + 1}: ${d.message}`);
    }
  }
  return lines.join("\n").trim() || "No errors or warnings detected.";
}

/**
 * Answers a host mention request: `{kind: "problems" | "terminal" | "url", value?}` → `{content}`.
 * `signal` aborts a URL fetch when the sidecar cancels the request.
 */
export async function resolveHostMention(params: any, signal?: AbortSignal): Promise<unknown> {
  const kind = String(params?.kind ?? params?.type ?? "");
  switch (kind) {
    case "problems":
    case "diagnostics":
      if (params?.includeDiagnosticMessages === false) return { content: "" };
      return { content: problemsText(Number(params?.maxDiagnosticMessages ?? 0)) };
    case "url": {
      const url = String(params?.value ?? params?.url ?? "");
      return { content: await resolveUrlMention(url, { signal }) };
    }
    case "terminal":
      throw new HostNotAvailableError(
        "terminal output",
        "the stable VS Code API gives extensions no access to a terminal's output",
      );
    default:
      throw new HostNotAvailableError(`mention kind "${kind}"`, "this host only resolves problems and URLs");
  }
}

/**
 * Host handlers for the server-to-client requests in the generated table, chosen by method family
 * (`summarize`, `mention`), so a newly generated host method is served without editing this file.
 */
export function vscodeHostHandlers(
  serverRequestMethods: readonly string[],
  modelFamily: () => string,
): Record<string, (params: any, signal: AbortSignal) => Promise<unknown>> {
  const handlers: Record<string, (params: any, signal: AbortSignal) => Promise<unknown>> = {};
  for (const method of serverRequestMethods) {
    if (/summar/i.test(method)) handlers[method] = (params) => summarizeWithLanguageModel(params, modelFamily());
    else if (/mention|problems|terminal|url/i.test(method)) handlers[method] = resolveHostMention;
  }
  return handlers;
}
