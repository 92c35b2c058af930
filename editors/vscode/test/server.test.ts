// The client library against the REAL built binary over stdio (vscode-jsonrpc): lifecycle, access
// checks, settings, reload notifications, folded views and the host round trip. Cases for methods
// the server does not advertise (capabilities.experimental.rooContext.methods) are skipped, saying so.

import { after, before, test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { RooSession, startSession } from "../src/client/session";
import { HostHandlers, NotificationEvent, onServerNotifications } from "../src/client/host";
import { commandApproval } from "../src/client/commands";
import { HeldHistory, expandCompactAccess } from "../src/client/history";
import { deliverUserDiffs } from "../src/client/userDiffs";
import { CONTEXT_EVENT_NAMES, ROO_REQUEST_METHODS, isContextEvent } from "../src/protocol.generated";
import { APP_TS, serverBinary, waitFor, workspace } from "./fixture";

let root: string;
let session: RooSession;
let stderr = "";

before(async () => {
  root = workspace({
    ".rooignore": "secret/\n*.env\n",
    "src/app.ts": APP_TS,
    "secret/key.txt": "hunter2\n",
    "prod.env": "TOKEN=1\n",
    "README.md": "# fixture\n",
  });
  session = await startSession({
    binary: serverBinary(),
    workspaceFolders: [root],
    initializationOptions: { logLevel: "warn" },
    onStderr: (chunk) => (stderr += chunk),
  });
});

after(async () => {
  const code = await session?.stop();
  assert.equal(code, 0, `server exited with ${code}; stderr:\n${stderr}`);
  fs.rmSync(root, { recursive: true, force: true });
});

test("initialize advertises the custom methods and names the server", () => {
  assert.equal(session.server.serverInfo?.name, "roo-context");
  assert.ok(session.supports("roo/ignore/validateAccess"), JSON.stringify(session.server.methods));
  // Every advertised method is one the generated API knows, so the types are not stale.
  const known = new Set<string>(Object.values(ROO_REQUEST_METHODS));
  const unknown = session.server.methods.filter((m) => !known.has(m));
  assert.deepEqual(unknown, [], "server advertises methods missing from protocol.generated.ts: run npm run gen-types");
});

test("validateAccess allows normal files and blocks ignored ones with the tool error", async () => {
  const { results } = await session.api.ignoreValidateAccess({ paths: ["src/app.ts", "secret/key.txt", "prod.env"] });
  assert.deepEqual(
    results.map((r) => [r.path, r.allowed]),
    [
      ["src/app.ts", true],
      ["secret/key.txt", false],
      ["prod.env", false],
    ],
  );
  assert.equal(results[1].blockedBy?.kind, "ignoreRule");
  assert.equal(results[1].blockedBy?.pattern, "secret/");
  assert.match(results[1].toolError ?? "", /secret\/key\.txt/);
});

test("filterPaths and validateCommand use the same rules", async () => {
  const filtered = await session.api.ignoreFilterPaths({ paths: ["README.md", "secret/key.txt"] });
  assert.deepEqual(filtered.paths, ["README.md"]);
  const command = await session.api.ignoreValidateCommand({ command: "cat secret/key.txt" });
  assert.equal(command.blockedPath, "secret/key.txt");
  const harmless = await session.api.ignoreValidateCommand({ command: "ls src" });
  assert.equal(harmless.blockedPath ?? null, null);
  assert.equal(harmless.verdict, "allowed");
  assert.deepEqual(commandApproval(harmless), { action: "run" });
  assert.equal(command.verdict, "blocked");
  assert.equal(commandApproval(command).action, "refuse");
  const unknown = await session.api.ignoreValidateCommand({ command: "f=secret/key.txt; cat $f" });
  assert.equal(unknown.verdict, "undecidable");
  assert.equal(unknown.construct, "variable");
  assert.equal(unknown.blockedPath ?? null, null);
  const approval = commandApproval(unknown);
  assert.equal(approval.action, "askUser");
});

test("settings update changes protection and shows in workspace status", async () => {
  const before = await session.api.protectCheck({ paths: ["src/app.ts"] });
  assert.equal(before.results[0].isProtected, false);
  await session.api.settingsUpdate({ extraProtectedPatterns: ["src/**"] });
  const after = await session.api.protectCheck({ paths: ["src/app.ts"] });
  assert.equal(after.results[0].isProtected, true);
  const status = await session.api.workspaceStatus({});
  assert.deepEqual(status.settings.extraProtectedPatterns, ["src/**"]);
  assert.equal(status.folders[0].activeIgnoreFile, ".rooignore");
});

test("a changed .rooignore arrives as roo/ignore/didReload and takes effect", async () => {
  const reloaded = waitFor<NotificationEvent>(
    (deliver) => onServerNotifications(session.transport, deliver),
    (event) => event.method === "roo/ignore/didReload" && event.params.ruleCount > 0 && event.params.folder.length > 0,
    "roo/ignore/didReload",
  );
  fs.writeFileSync(path.join(root, ".rooignore"), "secret/\n*.env\nREADME.md\n");
  await reloaded;
  // The notification follows the swap of the rules, so the new rule is in force now.
  const { results } = await session.api.ignoreValidateAccess({ paths: ["README.md"] });
  assert.equal(results[0].allowed, false);
});

test("a wrongly typed request is rejected with an error naming the field", async () => {
  await assert.rejects(
    session.transport.sendRequest("roo/ignore/validateAccess", { paths: "src/app.ts" }),
    (error: Error) => /paths/.test(error.message),
  );
});

test("folded view of a file the agent read (roo/fold/context)", async (t) => {
  if (!session.supports("roo/fold/context")) {
    t.skip("server does not advertise roo/fold/context");
    return;
  }
  const folded = await session.api.foldContext({ paths: ["src/app.ts", "secret/key.txt"] });
  assert.equal(folded.filesProcessed, 1);
  assert.match(folded.content, /class Greeter/);
  assert.match(folded.content, /function shout/);
  assert.doesNotMatch(folded.content, /toUpperCase/, "function bodies are folded away");
  assert.ok(folded.diagnostics.some((d) => d.path === "secret/key.txt" && d.kind === "blocked"), JSON.stringify(folded.diagnostics));
});

test("folding ranges and document symbols (standard LSP) of the same file", async (t) => {
  if (!session.server.capabilities.foldingRangeProvider || !session.server.capabilities.documentSymbolProvider) {
    t.skip("server advertises no foldingRangeProvider/documentSymbolProvider");
    return;
  }
  const uri = pathToFileURL(path.join(root, "src", "app.ts")).href;
  await session.connection.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "typescript", version: 1, text: APP_TS },
  });
  const ranges: any[] = await session.connection.sendRequest("textDocument/foldingRange", { textDocument: { uri } });
  assert.ok(ranges.some((r) => r.startLine === 2), JSON.stringify(ranges));
  const symbols: any[] = await session.connection.sendRequest("textDocument/documentSymbol", { textDocument: { uri } });
  assert.deepEqual(
    symbols.map((s) => s.name),
    ["Greeter", "shout"],
  );
  assert.ok(symbols[0].children.some((c: any) => c.name === "greet"), JSON.stringify(symbols[0]));
});

test("summarize round trip: roo/context/manage asks the host (this test) for the summary", async (t) => {
  if (!session.supports("roo/context/manage")) {
    t.skip("server does not advertise roo/context/manage");
    return;
  }
  const asked: any[] = [];
  const host = {
    "roo/host/summarize": async (params: any) => {
      asked.push(params);
      return { text: "SUMMARY-FROM-TEST: the user greets and shouts.", cost: 0.25, outputTokens: 9 };
    },
  } as HostHandlers;
  const condenser = await startSession({
    binary: serverBinary(),
    workspaceFolders: [root],
    host,
    extraServerRequests: ["roo/host/summarize"],
    onStderr: (chunk) => (stderr += chunk),
  });
  try {
    const messages = [
      { role: "user", content: [{ type: "text", text: "Please read src/app.ts" }], ts: 1 },
      { role: "assistant", content: [{ type: "text", text: "It defines Greeter and shout." }], ts: 2 },
      { role: "user", content: [{ type: "text", text: "Make shout quieter." }], ts: 3 },
      { role: "assistant", content: [{ type: "text", text: "Done: shout now whispers." }], ts: 4 },
      { role: "user", content: [{ type: "text", text: "Thanks, now condense." }], ts: 5 },
    ];
    const result: any = await condenser.transport.sendRequest("roo/context/manage", {
      trigger: "manual",
      messages,
      systemPrompt: "You are a coding agent.",
      contextWindow: 200000,
      taskId: "task-1",
    });
    assert.equal(asked.length, 1, "the host was asked exactly once");
    assert.equal(typeof asked[0].requestId, "string");
    assert.ok(asked[0].systemPrompt.length > 0, "a summarizer system prompt is sent");
    assert.ok(asked[0].messages.length >= 2, JSON.stringify(asked[0].messages));
    assert.equal(asked[0].taskId, "task-1");
    assert.equal(result.action, "condensed", JSON.stringify(result));
    assert.equal(result.changed, true);
    assert.match(result.summary, /SUMMARY-FROM-TEST/);
    assert.equal(result.cost, 0.25);
    assert.ok(JSON.stringify(result.messages).includes("SUMMARY-FROM-TEST"), "the new history carries the summary");
    assert.ok(result.events.some((e: any) => e.say === "condense_context"), JSON.stringify(result.events));
    // The generated type guard recognises the server's real events and narrows their payload.
    assert.ok(result.events.every((e: unknown) => isContextEvent(e)), JSON.stringify(result.events));
    const condensed = (result.events as unknown[]).filter((e) => isContextEvent(e, "condense_context"));
    assert.equal(condensed.length, 1);
    if (isContextEvent(condensed[0], "condense_context")) {
      assert.equal(condensed[0].contextCondense.condenseId, result.condenseId);
    }
    assert.equal((result.events as unknown[]).filter((e) => isContextEvent(e, "sliding_window_truncation")).length, 0);
  } finally {
    assert.equal(await condenser.stop(), 0);
  }
});

test("a host that cannot summarize makes the condense fail cleanly, history unchanged", async (t) => {
  if (!session.supports("roo/context/manage")) {
    t.skip("server does not advertise roo/context/manage");
    return;
  }
  // No handler: the client library answers "not available" (a JSON-RPC error) for the request.
  const bare = await startSession({ binary: serverBinary(), workspaceFolders: [root], extraServerRequests: ["roo/host/summarize"] });
  try {
    const messages = [1, 2, 3, 4, 5].map((n) => ({ role: n % 2 ? "user" : "assistant", content: `message ${n}`, ts: n }));
    const result: any = await bare.transport.sendRequest("roo/context/manage", {
      trigger: "manual",
      messages,
      contextWindow: 200000,
    });
    assert.equal(result.changed, false, JSON.stringify(result));
    assert.ok(result.error, "an error is reported");
    assert.match(String(result.errorDetails ?? result.error), /not available/);
    const errors = (result.events as unknown[]).filter((e) => isContextEvent(e, "condense_context_error"));
    assert.equal(errors.length, 1, JSON.stringify(result.events));
    if (isContextEvent(errors[0], "condense_context_error")) assert.equal(errors[0].text, result.error);
  } finally {
    assert.equal(await bare.stop(), 0);
  }
});

test("context event names and the type guard match the original's spelling and payloads", () => {
  assert.deepEqual([...CONTEXT_EVENT_NAMES], ["condense_context", "condense_context_error", "sliding_window_truncation"]);
  assert.equal(isContextEvent({ say: "condense_context_error", text: "boom" }), true);
  assert.equal(isContextEvent({ say: "condense_context_error", text: "boom" }, "condense_context"), false);
  assert.equal(isContextEvent({ say: "condense_context" }), false, "a condense event without contextCondense");
  assert.equal(isContextEvent({ say: "sliding_window_truncation", contextTruncation: null }), false);
  assert.equal(isContextEvent({ say: "api_req_started", text: "{}" }), false, "other say names are not context events");
  assert.equal(isContextEvent({ say: "toString", text: "x" }), false);
  for (const value of [null, undefined, "condense_context", 3, []]) assert.equal(isContextEvent(value), false);
});

test("the user's edit comes back as a diff, is shown, and is repeated until delivered (withDiffs + ackNotice)", async (t) => {
  if (!session.supports("roo/files/ackNotice")) return t.skip("server does not advertise roo/files/ackNotice");
  const storageDir = fs.mkdtempSync(path.join(root, "..", "task-"));
  const file = path.join(root, "src", "diffed.ts");
  const original = Array.from({ length: 12 }, (_, i) => `export const v${i} = ${i};\n`).join("");
  fs.writeFileSync(file, original);
  await session.api.filesTrack({ taskId: "diff-task", storageDir, path: "src/diffed.ts", source: "read_tool" });
  const changed = waitFor<NotificationEvent>(
    (deliver) => onServerNotifications(session.transport, deliver),
    (event) => event.method === "roo/files/didChange" && event.params.path === "src/diffed.ts",
    "roo/files/didChange",
  );
  fs.writeFileSync(file, original.replace("v5 = 5", "v5 = 55"));
  const change = await changed;
  // The notification already says how much changed against what the agent read.
  assert.deepEqual((change.params as { diffStat?: unknown }).diffStat, { added: 1, removed: 1, hunks: 1 });
  const log: string[] = [];
  // A deadline no loaded machine reaches: the test does not depend on time.
  const patient = { timeoutMs: 10_000 };
  // The delivery fails (the message never reached the model): no ack, the next take repeats it.
  await assert.rejects(deliverUserDiffs(session.api, "diff-task", async () => { throw new Error("condensed away"); }, (l) => log.push(l), patient));
  const delivered: string[] = [];
  const notice = await deliverUserDiffs(session.api, "diff-task", async (text) => { delivered.push(text); }, (l) => log.push(l), patient);
  assert.equal(notice.changes?.[0].diffStat?.added, 1);
  // One context line by default, and no (+1 -1) after the path: the hunk header has the counts.
  assert.match(delivered[0], /# Changes Since You Last Read\n[^]*\n## src\/diffed\.ts\n```diff\n@@ -5,3 \+5,3 @@\n export const v4 = 4;\n-export const v5 = 5;\n\+export const v5 = 55;\n export const v6 = 6;\n```$/);
  assert.equal(log.length, 2, "shown on both takes");
  assert.match(log[1], /src\/diffed\.ts modified \(\+1 -1\) outside the agent:\n@@ /);
  // Acknowledged: nothing more to tell.
  const after = await deliverUserDiffs(session.api, "diff-task", async () => assert.fail("nothing to deliver"), undefined, patient);
  assert.deepEqual(after, { paths: [], changes: [], text: "" });
  await session.api.filesDisposeTask({ taskId: "diff-task" });
  fs.rmSync(storageDir, { recursive: true, force: true });
});

test("a history held in the sidecar: the host's digest agrees op by op, and manage answers ops", async (t) => {
  if (!session.supports("roo/history/open")) {
    t.skip("server does not advertise roo/history/open");
    return;
  }
  const turn = (i: number, words: number) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: [{ type: "text", text: `turn ${i} ${"word ".repeat(words)}` }],
    ts: 1000 + i,
    providerField: { keep: [1.5, 2], "ünï\u2028code": "\u0007" },
  });
  const held = await HeldHistory.open(session.api, "node-held", [turn(0, 400), turn(1, 400)]);
  for (let i = 2; i < 11; i++) await held.append(turn(i, 400));
  // A number JSON.stringify spells differently from Rust (`1e+21`): the host's digest is sent.
  await held.append({ role: "user", content: "numbers", ts: 1e21, ratio: 1e-7 });
  assert.ok(held.mirror.agrees(await session.api.historyRead({ taskId: "node-held", from: 0, to: 0 })));
  // A refused batch leaves the host's copy as it was.
  const before = held.mirror.digest;
  await assert.rejects(held.change([{ op: "truncate", length: 999 }]), /ops\[0\]\.length/);
  assert.equal(held.mirror.digest, before);
  const result = await session.api.contextManage({
    trigger: "automatic",
    contextWindow: 7000,
    maxTokens: 500,
    autoCondenseContext: false,
    history: held.ref,
  });
  assert.equal(result.action, "truncated", JSON.stringify(result));
  assert.equal(result.messages, undefined, "no array on the wire");
  held.applyChanges(result.history!);
  const read = await session.api.historyRead({ taskId: "node-held" });
  assert.deepEqual(read.messages, held.mirror.messages);
  assert.equal(held.mirror.recomputedDigest(), held.mirror.digest);
  // An edit the host made in place without an op is caught by the digest; one resync mends it.
  (held.mirror.messages[9].content as any)[0].text = "rewritten";
  assert.notEqual(held.mirror.recomputedDigest(), read.digest);
  await held.resync();
  assert.deepEqual((await session.api.historyRead({ taskId: "node-held" })).messages, held.mirror.messages);
});

test("numbers JSON.stringify writes its own way and an own __proto__ field digest alike on both sides", async (t) => {
  if (!session.supports("roo/history/open")) {
    t.skip("server does not advertise roo/history/open");
    return;
  }
  // Red team: serde_json writes 1e21 as `1e21` and 1e-6 as `1e-6`; JSON.stringify `1e+21`, `0.000001`.
  const messages = JSON.parse(
    '[{"role":"user","content":"n","ts":1,"n":[1e21,1e-7,0.000001,123456789012345680000,18446744073709551615,-0,1.5]},' +
      '{"role":"assistant","content":"p","ts":2,"__proto__":{"x":1}}]',
  );
  const held = await HeldHistory.open(session.api, "node-numbers", messages);
  assert.ok(held.mirror.agrees(await session.api.historyRead({ taskId: "node-numbers", from: 0, to: 0 })));
  await held.append({ role: "user", content: "more", ts: 3, big: 2 ** 70, tiny: 5e-324 });
  assert.equal(held.mirror.recomputedDigest(), held.mirror.digest);
});

test("a compact validateAccess answer expands to the full one", async () => {
  const paths = ["src/app.ts", "secret/key.txt", 'secret/"q"\\b\n.txt', "prod.env", "README.md"];
  const full = await session.api.ignoreValidateAccess({ paths });
  const compact = await session.api.ignoreValidateAccess({ paths, compact: true });
  const expanded = expandCompactAccess(paths, compact.compact!);
  const withoutPerPath = full.results.map((r) => {
    if (!r.blockedBy) return { path: r.path, allowed: r.allowed };
    const { matchedPath, via, ...rule } = r.blockedBy as any;
    return { path: r.path, allowed: r.allowed, blockedBy: rule, toolError: r.toolError };
  });
  assert.deepEqual(expanded, withoutPerPath);
});
