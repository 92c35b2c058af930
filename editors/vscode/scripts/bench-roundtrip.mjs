// The cost of one round trip from a Node host (issue 29), side by side in one run:
// - floor: a trivial responder on the same pipes and framing (crates/server/examples/trivial_responder.rs),
//   answering every request with the bytes roo-context answers, so only the server's own work differs;
// - roo-context: `roo/ignore/validateAccess` of one path (allowed and blocked), sequential, as the agents
//   call it (about 36 places, once per path);
// - batches of 1,000 paths (existing files, a tenth blocked), full and compact answers;
// - the original: Roo's RooIgnoreController.validateAccess in process (npm `ignore`, path.resolve,
//   realpathSync, path.relative per path), the loop the agents run over a batch.
// Both processes are driven by the same vscode-jsonrpc connection the extension uses; rounds
// alternate between them so load on a shared machine falls on both alike. Prints p50/p90 in
// microseconds and the ratios.
// Run: cargo build --release -p roo-context --bin roo-context --example trivial_responder &&
//      npm run build && node scripts/bench-roundtrip.mjs
// (ROO_CONTEXT_BIN and TRIVIAL_BIN override the binaries; ROUNDS, CALLS the sample sizes; CASES=0,1
// runs only those cases.)

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { startSession } = require("../out/src/client/session.js");
const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require("vscode-jsonrpc/node");

const release = path.resolve(here, "..", "..", "..", "target", "release");
const binary = process.env.ROO_CONTEXT_BIN ?? path.join(release, "roo-context");
const trivialBinary = process.env.TRIVIAL_BIN ?? path.join(release, "examples", "trivial_responder");
const rounds = Number(process.env.ROUNDS ?? 10);
const calls = Number(process.env.CALLS ?? 500);

const workspace = mkdtempSync(path.join(os.tmpdir(), "roo-roundtrip-"));
writeFileSync(path.join(workspace, ".rooignore"), "secrets/\n*.env\n");
mkdirSync(path.join(workspace, "src"));
writeFileSync(path.join(workspace, "src", "app.ts"), "export const a = 1;\n");
mkdirSync(path.join(workspace, "secrets"));
const batch = Array.from({ length: 1000 }, (_, i) => (i % 10 === 0 ? `secrets/k${i}.json` : `src/f${i}.ts`));
for (const relative of batch) writeFileSync(path.join(workspace, relative), "x\n");

// The original's check, as RooIgnoreController does it (npm `ignore`, when installed here).
let original;
try {
  const ignore = require("ignore");
  const rules = readFileSync(path.join(workspace, ".rooignore"), "utf8");
  original = (paths) => {
    const matcher = ignore().add(rules).add(".rooignore");
    return paths.map((p) => {
      const absolute = path.resolve(workspace, p);
      let real;
      try {
        real = realpathSync(absolute);
      } catch {
        real = absolute;
      }
      return !matcher.ignores(path.relative(workspace, real).split(path.sep).join("/"));
    });
  };
} catch {
  original = undefined;
}
function sampleOriginal(paths, count, out) {
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    original(paths);
    out.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
}

function trivial(result) {
  const child = spawn(trivialBinary, [], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, TRIVIAL_RESULT: JSON.stringify(result) } });
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  connection.listen();
  return {
    connection,
    async stop() {
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
      connection.dispose();
    },
  };
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
async function sample(connection, params, count, out) {
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await connection.sendRequest("roo/ignore/validateAccess", params);
    out.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
}

const session = await startSession({ binary, workspaceFolders: [workspace], initializationOptions: { warmTokenizer: false } });
const cases = [
  ["one allowed path", { paths: ["src/app.ts"] }, calls],
  ["one blocked path", { paths: ["secrets/key.json"] }, calls],
  ["1,000 paths, full answer", { paths: batch }, Math.max(5, calls / 50)],
  ["1,000 paths, compact answer", { paths: batch, compact: true }, Math.max(5, calls / 50)],
];
const only = process.env.CASES?.split(",").map(Number); // indices into `cases`, to profile one
const rows = [];
for (const [name, params, count] of cases.filter((_, i) => !only || only.includes(i))) {
  const answer = await session.connection.sendRequest("roo/ignore/validateAccess", params);
  const floor = trivial(answer);
  await floor.connection.sendRequest("initialize", {});
  const server = [];
  const trivialSamples = [];
  const originalSamples = [];
  for (let round = 0; round < rounds; round++) {
    await sample(session.connection, params, count, server);
    await sample(floor.connection, params, count, trivialSamples);
    if (original) sampleOriginal(params.paths, count, originalSamples);
  }
  await floor.stop();
  const bytes = JSON.stringify({ jsonrpc: "2.0", id: 1, result: answer }).length;
  rows.push({ name, bytes, server, trivial: trivialSamples, original: originalSamples });
}
await session.stop();
rmSync(workspace, { recursive: true, force: true });

const us = (v) => v.toFixed(0).padStart(6);
console.log(`${rounds} alternating rounds; binary ${binary}`);
console.log(
  "case                              answer   roo-context p50/p90 us   floor p50/p90 us   x floor   original p50 us   speed-up vs original",
);
for (const { name, bytes, server, trivial: floor, original: inProcess } of rows) {
  const p50 = percentile(server, 0.5);
  const ratio = p50 / percentile(floor, 0.5);
  const versus = inProcess.length ? `${us(percentile(inProcess, 0.5))}            ${(percentile(inProcess, 0.5) / p50).toFixed(2)}x` : "(npm ignore not installed)";
  console.log(
    `${name.padEnd(32)} ${String(bytes).padStart(7)} B   ${us(p50)} / ${us(percentile(server, 0.9))}        ${us(percentile(floor, 0.5))} / ${us(percentile(floor, 0.9))}     ${ratio.toFixed(2)}x     ${versus}`,
  );
}
