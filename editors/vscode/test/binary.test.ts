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

// The npm client's lookup: the platform package installed as an optional dependency.
import { PLATFORMS, binaryPackageName, resolvePackagedBinary } from "../src/client/platforms";

test("npm lookup: the environment variable wins over the platform package", () => {
  const found = resolvePackagedBinary({ env: { ROO_CONTEXT_PATH: "/env/rc" }, os: "linux", cpu: "x64", resolve: () => assert.fail("resolved") });
  assert.deepEqual(found, { path: "/env/rc", source: "env" });
});

test("npm lookup: the binary sits in bin/ of the host's platform package", () => {
  const asked: string[] = [];
  const found = resolvePackagedBinary({
    env: {},
    os: "linux",
    cpu: "x64",
    resolve: (request) => (asked.push(request), `/app/node_modules/${request}`),
  });
  assert.deepEqual(asked, ["@roo-context/cli-linux-x64/package.json"]);
  assert.deepEqual(found, { path: path.join("/app/node_modules/@roo-context/cli-linux-x64", "bin", "roo-context"), source: "package" });
});

test("npm lookup: an unpublished platform and a missing package are errors naming what to do", () => {
  assert.throws(() => resolvePackagedBinary({ env: {}, os: "plan9", cpu: "mips", resolve: () => "/x" }), /no binary for plan9-mips.*ROO_CONTEXT_PATH/);
  assert.throws(
    () => resolvePackagedBinary({ env: {}, os: "linux", cpu: "x64", resolve: () => { throw new Error("MODULE_NOT_FOUND"); } }),
    /@roo-context\/cli-linux-x64 is not installed.*ROO_CONTEXT_PATH/,
  );
});

test("every platform has a distinct target and package name", () => {
  const names = PLATFORMS.map(binaryPackageName);
  assert.equal(new Set(names).size, PLATFORMS.length);
  assert.equal(new Set(PLATFORMS.map((p) => `${p.os}-${p.cpu}`)).size, PLATFORMS.length);
});
