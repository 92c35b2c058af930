// Where the roo-context binary comes from: the environment variable, then the setting, then the
// copy bundled with the extension. Pure, so it is tested without VS Code.

import * as path from "node:path";

/** Inputs of the lookup; `exists` is injected for tests. */
export interface BinaryLookup {
  env: Record<string, string | undefined>;
  setting: string | undefined;
  extensionPath: string;
  platform: string;
  exists: (file: string) => boolean;
}

/** The chosen binary and why it was chosen (shown in the output channel). */
export interface ResolvedBinary {
  path: string;
  source: "env" | "setting" | "bundled";
}

/** The environment variable that overrides everything. */
export const BINARY_ENV = "ROO_CONTEXT_PATH";

/** Resolves the binary or throws an error that says what was tried. */
export function resolveServerBinary(lookup: BinaryLookup): ResolvedBinary {
  const fromEnv = lookup.env[BINARY_ENV]?.trim();
  if (fromEnv) return { path: fromEnv, source: "env" };
  const fromSetting = lookup.setting?.trim();
  if (fromSetting) return { path: fromSetting, source: "setting" };
  const name = lookup.platform === "win32" ? "roo-context.exe" : "roo-context";
  const bundled = path.join(lookup.extensionPath, "bin", name);
  if (lookup.exists(bundled)) return { path: bundled, source: "bundled" };
  throw new Error(
    `roo-context binary not found: set ${BINARY_ENV} or the setting roo-context.serverPath, or bundle it at ${bundled}`,
  );
}
