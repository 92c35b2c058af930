// What a project that depends on @roo-context/client does: finds the sidecar through the
// package's binary lookup (the platform package npm installed as an optional dependency), starts
// it and calls a few methods, typed from the generated protocol types. Compiled and run by
// install-test.sh in a scratch project outside any repository; exits non-zero on a wrong answer.

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { convertHtmlOffThread, resolvePackagedBinary, startSession } from "@roo-context/client";
import type { FoldOutlineResult, ValidateAccessResult } from "@roo-context/client/protocol";

async function main(): Promise<void> {
  const binary = resolvePackagedBinary({ env: {} });
  console.log(`binary: ${path.relative(process.cwd(), binary.path)} (from ${binary.source})`);
  assert.equal(binary.source, "package");

  const root = fs.mkdtempSync(path.join(os.tmpdir(), "roo-context-smoke-"));
  fs.writeFileSync(path.join(root, ".rooignore"), "# secrets\n*.env\n");
  fs.writeFileSync(path.join(root, "prod.env"), "TOKEN=1\n");
  fs.writeFileSync(
    path.join(root, "app.ts"),
    "export class Greeter {\n  constructor(private name: string) {}\n\n  greet(): string {\n    const text = 'hello';\n    return text + this.name;\n  }\n}\n",
  );
  const session = await startSession({ binary: binary.path, workspaceFolders: [root], initializationOptions: { logLevel: "warn" } });
  try {
    const server = session.server.serverInfo;
    console.log(`initialize: ${server?.name} ${server?.version}, ${session.server.methods.length} custom methods`);
    assert.equal(server?.name, "roo-context");
    assert.ok(session.supports("roo/fold/outline"));

    const outline: FoldOutlineResult = await session.api.foldOutline({ path: "app.ts", cwd: root });
    console.log(`roo/fold/outline app.ts (${outline.language}):\n${outline.text.trimEnd()}`);
    assert.equal(outline.language, "typescript");
    assert.ok(outline.definitions.length >= 2, JSON.stringify(outline.definitions));

    const access: ValidateAccessResult = await session.api.ignoreValidateAccess({ paths: ["app.ts", "prod.env"], cwd: root });
    for (const r of access.results) {
      const by = r.blockedBy ? ` by ${r.blockedBy.pattern} (${path.basename(r.blockedBy.file ?? "")}:${r.blockedBy.line})` : "";
      console.log(`roo/ignore/validateAccess ${r.path}: ${r.allowed ? "allowed" : "blocked"}${by}`);
    }
    assert.deepEqual(access.results.map((r) => r.allowed), [true, false]);
    assert.equal(access.results[1].blockedBy?.line, 2);

    // The URL-mention converter runs in a worker thread loaded from the package's own files, with
    // turndown and domino from its dependencies.
    const markdown = await convertHtmlOffThread("<h1>Title</h1><p>a <a href='/x'>link</a></p>", "https://example.test/a/", new AbortController().signal);
    console.log(`convertHtmlOffThread (worker): ${JSON.stringify(markdown)}`);
    assert.equal(markdown, "# Title\n\na [link](https://example.test/x)");
  } finally {
    const code = await session.stop();
    console.log(`shutdown: exit code ${code}`);
    fs.rmSync(root, { recursive: true, force: true });
    assert.equal(code, 0);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
