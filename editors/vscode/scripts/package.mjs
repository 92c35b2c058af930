// Packages roo-context for users, per platform, the way editor-facing Rust tools ship:
//   vsix: the extension with the platform's binary in bin/ (`vsce package --target`), one per target;
//   npm:  @roo-context/client (the VS Code-free client library and the generated protocol types)
//         plus one @roo-context/cli-<target> per target carrying the binary, listed as optional
//         dependencies of the client so npm installs only the host's (as biome and esbuild do).
// The targets come from src/client/platforms.ts (PLATFORMS), read from its compiled output.
//
//   node scripts/package.mjs [--kind vsix,npm] [--targets linux-x64,...] [--binary FILE] [--out DIR]
//
// --binary: the binary for a single target (default: $ROO_CONTEXT_BIN, else
// ../../target/release/roo-context for the host's target and
// ../../target/<rustTarget>/release/roo-context for the others). Binaries are copied and stripped
// (when `strip` exists). --out defaults to ../../target/dist. Prints one line per artifact with
// its size.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const ext = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repo = path.resolve(ext, "../..");
const bin = (name) => path.join(ext, "node_modules", ".bin", name);

function parseArgs(argv) {
  const args = { kind: ["vsix", "npm"], targets: undefined, binary: process.env.ROO_CONTEXT_BIN, out: path.join(repo, "target", "dist") };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${argv[i]} needs a value`);
    switch (argv[i]) {
      case "--kind": args.kind = value.split(","); break;
      case "--targets": args.targets = value.split(","); break;
      case "--binary": args.binary = path.resolve(value); break;
      case "--out": args.out = path.resolve(value); break;
      default: throw new Error(`unknown argument ${argv[i]} (see the header of scripts/package.mjs)`);
    }
    i++;
  }
  for (const kind of args.kind) if (!["vsix", "npm"].includes(kind)) throw new Error(`--kind: unknown ${kind}`);
  return args;
}

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"] }).toString();
const size = (file) => {
  const bytes = fs.statSync(file).size;
  return bytes < 1e6 ? `${(bytes / 1e3).toFixed(0)} kB` : `${(bytes / 1e6).toFixed(1)} MB`;
};

/** Copies the tree of `from` to `to`, leaving out `skip` (names at the top level). */
function copyTree(from, to, skip) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from)) {
    if (skip.includes(entry) || entry.endsWith(".vsix")) continue;
    fs.cpSync(path.join(from, entry), path.join(to, entry), { recursive: true });
  }
}

/** Copies the binary into `dir/bin/` as `name`, stripped, executable. */
function placeBinary(binary, dir, name) {
  const dest = path.join(dir, "bin", name);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  try {
    execFileSync("strip", ["-o", dest, binary], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    if (error.code !== "ENOENT") throw new Error(`strip ${binary}: ${error.stderr ?? error.message}`);
    fs.copyFileSync(binary, dest); // no strip here: a release binary is stripped by its profile anyway
  }
  fs.chmodSync(dest, 0o755);
  return dest;
}

function binaryFor(platform, args, host) {
  if (args.binary) return args.binary;
  const dir = platform === host ? path.join(repo, "target", "release") : path.join(repo, "target", platform.rustTarget, "release");
  return path.join(dir, platform.binary);
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    fail(error.message);
  }
  // The compiled client gives the one platform list; compile first so it is current.
  run(bin("tsc"), ["-p", "tsconfig.client.json"], ext);
  const require = createRequire(import.meta.url);
  const { PLATFORMS, binaryPackageName, platformOf } = require(path.join(ext, "out-client", "client", "platforms.js"));
  const host = platformOf(process.platform, process.arch);
  const targets = args.targets ?? (host ? [host.target] : []);
  const platforms = targets.map((t) => PLATFORMS.find((p) => p.target === t) ?? fail(`unknown target ${t}; known: ${PLATFORMS.map((p) => p.target).join(", ")}`));
  if (platforms.length === 0) fail("no target: this host has no PLATFORMS entry; pass --targets");
  if (args.binary && platforms.length > 1) fail("--binary names one binary: give one target");
  for (const p of platforms) {
    const file = binaryFor(p, args, host);
    if (!fs.existsSync(file)) fail(`no binary for ${p.target} at ${file} (cargo build --release${p === host ? "" : ` --target ${p.rustTarget}`})`);
  }

  const manifest = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8"));
  const stage = path.join(args.out, ".package-stage");
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(args.out, { recursive: true });
  const made = [];

  if (args.kind.includes("vsix")) {
    for (const p of platforms) {
      // A copy of the extension per target, so bin/ holds only that target's binary; node_modules
      // is linked, not copied (vsce reads the production dependencies from it).
      const dir = path.join(stage, `vsix-${p.target}`);
      copyTree(ext, dir, ["node_modules", "out", "out-client", "bin", "e2e", "npm"]);
      fs.symlinkSync(path.join(ext, "node_modules"), path.join(dir, "node_modules"));
      placeBinary(binaryFor(p, args, host), dir, p.binary);
      const file = path.join(args.out, `${manifest.name}-${p.target}-${manifest.version}.vsix`);
      run(bin("vsce"), ["package", "--skip-license", "--target", p.target, "-o", file], dir);
      made.push(file);
    }
  }

  if (args.kind.includes("npm")) {
    const scoped = (name) => `${path.join(args.out, name.replace(/^@/, "").replace("/", "-"))}-${manifest.version}.tgz`;
    for (const p of platforms) {
      const dir = path.join(stage, `cli-${p.target}`);
      placeBinary(binaryFor(p, args, host), dir, p.binary);
      writeJson(path.join(dir, "package.json"), {
        name: binaryPackageName(p),
        version: manifest.version,
        description: `The roo-context sidecar binary for ${p.target} (installed by @roo-context/client).`,
        license: manifest.license,
        repository: manifest.repository,
        os: [p.os],
        cpu: [p.cpu],
        files: ["bin"],
        preferUnplugged: true,
      });
      run("npm", ["pack", "--silent", "--pack-destination", args.out], dir);
      made.push(scoped(binaryPackageName(p)));
    }
    const dir = path.join(stage, "client");
    fs.cpSync(path.join(ext, "out-client"), path.join(dir, "dist"), { recursive: true });
    const runtime = { ...manifest.dependencies };
    delete runtime["vscode-languageclient"]; // the extension's, not the library's
    writeJson(path.join(dir, "package.json"), {
      name: "@roo-context/client",
      version: manifest.version,
      description: "Client library for the roo-context sidecar: spawn it, call its methods with types generated from the protocol.",
      license: manifest.license,
      repository: manifest.repository,
      engines: { node: manifest.engines.node },
      main: "dist/client/index.js",
      types: "dist/client/index.d.ts",
      exports: {
        ".": { types: "./dist/client/index.d.ts", default: "./dist/client/index.js" },
        "./protocol": { types: "./dist/protocol.generated.d.ts", default: "./dist/protocol.generated.js" },
        "./package.json": "./package.json",
      },
      // TypeScript's older `node` resolution (common in VS Code extensions) ignores `exports`.
      typesVersions: { "*": { protocol: ["dist/protocol.generated.d.ts"] } },
      files: ["dist"],
      dependencies: runtime,
      // Every platform this release publishes, so that adding a target to PLATFORMS adds it here.
      optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [binaryPackageName(p), manifest.version])),
    });
    fs.copyFileSync(path.join(ext, "npm", "README.md"), path.join(dir, "README.md"));
    run("npm", ["pack", "--silent", "--pack-destination", args.out], dir);
    made.push(scoped("@roo-context/client"));
  }

  fs.rmSync(stage, { recursive: true, force: true });
  for (const file of made) console.log(`${file}  ${size(file)}`);
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function fail(message) {
  console.error(`package.mjs: ${message}`);
  process.exit(1);
}

main();
