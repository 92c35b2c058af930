// The binary lookup order: environment variable, then setting, then the bundled copy.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { resolveServerBinary } from "../src/client/binary";

const base = { extensionPath: "/ext", platform: "linux", exists: () => true };

test("environment variable wins over the setting and the bundled copy", () => {
  const found = resolveServerBinary({ ...base, env: { ROO_CONTEXT_PATH: "/env/roo-context" }, setting: "/setting/roo" });
  assert.deepEqual(found, { path: "/env/roo-context", source: "env" });
});

test("setting is used when the environment variable is empty", () => {
  const found = resolveServerBinary({ ...base, env: { ROO_CONTEXT_PATH: "  " }, setting: "/setting/roo" });
  assert.deepEqual(found, { path: "/setting/roo", source: "setting" });
});

test("bundled copy is the fallback, with .exe on Windows", () => {
  assert.deepEqual(resolveServerBinary({ ...base, env: {}, setting: "" }), {
    path: path.join("/ext", "bin", "roo-context"),
    source: "bundled",
  });
  assert.equal(resolveServerBinary({ ...base, platform: "win32", env: {}, setting: undefined }).path, path.join("/ext", "bin", "roo-context.exe"));
});

test("missing bundled copy names every place that was tried", () => {
  assert.throws(
    () => resolveServerBinary({ ...base, exists: () => false, env: {}, setting: "" }),
    /ROO_CONTEXT_PATH.*roo-context\.serverPath.*bin/,
  );
});
