// Per-request cost of the history from a Node host over stdio (issue 29), side by side in one run:
// - original: what Roo Code does per API request (two full saves: structuredClone, JSON.stringify,
//   write a temp file, rename), a lower bound of its safeWriteJson;
// - full form: roo/context/manage with the whole `messages` array (nothing due, totalTokens given),
//   which is what an adapter sends today;
// - held form: the history held in the sidecar: per request one append (the user's tool results),
//   manage by reference, one append (the assistant's answer), with the host's digest checked.
// Histories of 2, 50 and 200 MB (SIZES_MB), synthetic read_file turns. Prints p50/p90 in ms and
// the bytes each form sends per request. Run: npm run build && node scripts/bench-history.mjs
// (ROO_CONTEXT_BIN: the binary; a release build measures what users run).

import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { startSession } = require("../out/src/client/session.js");
const { HeldHistory } = require("../out/src/client/history.js");

const binary = process.env.ROO_CONTEXT_BIN ?? path.resolve(here, "..", "..", "..", "target", "release", "roo-context");
const sizes = (process.env.SIZES_MB ?? "2,50,200").split(",").map(Number);
const runs = Number(process.env.RUNS ?? 15);
const fullRuns = Number(process.env.FULL_RUNS ?? 5);

const line = (i) => `export function f${i}(a: number, b: number): number { return a * b + ${i}; }\n`;
function turnPair(i) {
  const lines = 2 + (i % 211);
  let text = "";
  for (let l = 0; l < lines; l++) text += line(l);
  return [
    { role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read_file", input: { path: `src/f${i}.ts` } }], ts: 1000 + 2 * i },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: `toolu_${i}`, content: text },
        { type: "text", text: `<environment_details>\n# Current Time\n${i}\n</environment_details>` },
      ],
      ts: 1001 + 2 * i,
    },
  ];
}
function history(megabytes) {
  const messages = [{ role: "user", content: [{ type: "text", text: "<task>read the code</task>" }], ts: 1 }];
  let bytes = 0;
  for (let i = 0; bytes < megabytes * 1e6; i++) {
    for (const message of turnPair(i)) {
      messages.push(message);
      bytes += JSON.stringify(message).length;
    }
  }
  return messages;
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
async function sample(count, work) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await work(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { p50: percentile(samples, 0.5), p90: percentile(samples, 0.9) };
}
const fmt = ({ p50, p90 }) => `${p50.toFixed(1)} / ${p90.toFixed(1)}`;

const dir = mkdtempSync(path.join(os.tmpdir(), "bench-history-"));
const session = await startSession({ binary, workspaceFolders: [dir] });
const manageParams = { trigger: "automatic", contextWindow: 1_000_000_000, maxTokens: 8192, totalTokens: 1000 };
console.log(`| history | original: 2 saves (ms p50 / p90) | full form: manage (ms) | held form: append + manage + append (ms) | held, persisted by the sidecar (fsync per append) | ratio original / held persisted | bytes sent per request, full / held |`);
console.log(`| --- | ---: | ---: | ---: | ---: | ---: | ---: |`);
try {
  for (const megabytes of sizes) {
    const messages = history(megabytes);
    const file = path.join(dir, "api_conversation_history.json");
    const original = await sample(Math.max(3, Math.floor(runs / 3)), async () => {
      for (let save = 0; save < 2; save++) {
        const json = JSON.stringify(structuredClone(messages));
        writeFileSync(`${file}.tmp`, json);
        renameSync(`${file}.tmp`, file);
      }
    });
    const full = await sample(fullRuns, () => session.api.contextManage({ ...manageParams, messages }));
    const fullBytes = JSON.stringify({ ...manageParams, messages }).length;
    const held = await HeldHistory.open(session.api, `bench-${megabytes}`, messages);
    let heldBytes = 0;
    const heldCost = await sample(runs, async (i) => {
      const [assistant, user] = turnPair(100000 + i);
      heldBytes = JSON.stringify(user).length + JSON.stringify(assistant).length;
      await held.append(user);
      const result = await session.api.contextManage({ ...manageParams, history: held.ref });
      held.applyChanges(result.history);
      await held.append(assistant);
    });
    await session.api.historyClose({ taskId: `bench-${megabytes}` });
    const storageDir = mkdtempSync(path.join(dir, "task-"));
    const persisted = await HeldHistory.open(session.api, `bench-p-${megabytes}`, messages, { persist: "sidecar", storageDir });
    const persistedCost = await sample(runs, async (i) => {
      const [assistant, user] = turnPair(200000 + i);
      await persisted.append(user);
      const result = await session.api.contextManage({ ...manageParams, history: persisted.ref });
      persisted.applyChanges(result.history);
      await persisted.append(assistant);
    });
    await session.api.historyClose({ taskId: `bench-p-${megabytes}` });
    console.log(
      `| ${megabytes} MB (${messages.length} messages) | ${fmt(original)} | ${fmt(full)} | ${fmt(heldCost)} | ${fmt(persistedCost)} | ` +
        `${(original.p50 / persistedCost.p50).toFixed(0)}x | ${(fullBytes / 1e6).toFixed(1)} MB / ${(heldBytes / 1e3).toFixed(1)} KB |`,
    );
  }
} finally {
  await session.stop();
  rmSync(dir, { recursive: true, force: true });
}
