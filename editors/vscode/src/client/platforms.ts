// The platforms roo-context ships a binary for, and how an npm user finds theirs: the one list that
// the packaging script (scripts/package.mjs: one .vsix and one npm binary package per entry) and
// the runtime lookup below both read. Adding a target is one entry here plus its built binary.

import * as path from "node:path";

/** One shipped platform. */
export interface Platform {
  /** `vsce package --target` name and the suffix of the npm binary package (`linux-x64`). */
  target: string;
  /** `process.platform` / `process.arch` of a Node host on this platform (npm's `os` / `cpu`). */
  os: NodeJS.Platform;
  cpu: string;
  /** Rust target triple; a cross build puts the binary in `target/<triple>/release/`. */
  rustTarget: string;
  /** File name of the binary. */
  binary: string;
}

/** Every platform a binary is published for. Only linux-x64 is built on the project's machines. */
export const PLATFORMS: readonly Platform[] = [
  { target: "linux-x64", os: "linux", cpu: "x64", rustTarget: "x86_64-unknown-linux-gnu", binary: "roo-context" },
];

/** npm scope of the client library and its binary packages. */
export const NPM_SCOPE = "@roo-context";

/** The npm package that carries the binary of `platform` (`@roo-context/cli-linux-x64`). */
export function binaryPackageName(platform: Platform): string {
  return `${NPM_SCOPE}/cli-${platform.target}`;
}

/** The platform entry of a Node host, or undefined when no binary is published for it. */
export function platformOf(os: string, cpu: string): Platform | undefined {
  return PLATFORMS.find((p) => p.os === os && p.cpu === cpu);
}

/** Inputs of {@link resolvePackagedBinary}; everything is injectable for tests. */
export interface PackagedBinaryLookup {
  env?: Record<string, string | undefined>;
  os?: string;
  cpu?: string;
  /** Resolves a module request to a file (`require.resolve` of the caller by default). */
  resolve?: (request: string) => string;
}

/**
 * The binary an npm user runs: `ROO_CONTEXT_PATH` when set, else the binary inside the installed
 * platform package (an optional dependency of `@roo-context/client`, installed by npm only on its
 * own `os`/`cpu`). Throws an error naming the package it looked for.
 */
export function resolvePackagedBinary(lookup: PackagedBinaryLookup = {}): { path: string; source: "env" | "package" } {
  const env = lookup.env ?? process.env;
  const fromEnv = env.ROO_CONTEXT_PATH?.trim();
  if (fromEnv) return { path: fromEnv, source: "env" };
  const os = lookup.os ?? process.platform;
  const cpu = lookup.cpu ?? process.arch;
  const platform = platformOf(os, cpu);
  if (!platform) {
    const known = PLATFORMS.map((p) => p.target).join(", ");
    throw new Error(`roo-context publishes no binary for ${os}-${cpu} (only ${known}): set ROO_CONTEXT_PATH`);
  }
  const name = binaryPackageName(platform);
  const resolve = lookup.resolve ?? require.resolve;
  let manifest: string;
  try {
    manifest = resolve(`${name}/package.json`);
  } catch {
    throw new Error(
      `roo-context binary package ${name} is not installed (npm skips optional dependencies with --no-optional or ` +
        `--omit=optional): install it, or set ROO_CONTEXT_PATH`,
    );
  }
  return { path: path.join(path.dirname(manifest), "bin", platform.binary), source: "package" };
}
