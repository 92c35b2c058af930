// Shared test helpers: the binary under test and a throwaway workspace on disk.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The real built server: ROO_CONTEXT_BIN, else the workspace's debug build. */
export function serverBinary(): string {
  const binary = process.env.ROO_CONTEXT_BIN ?? path.resolve(__dirname, "..", "..", "..", "..", "target", "debug", "roo-context");
  if (!fs.existsSync(binary)) {
    throw new Error(`${binary} does not exist: run \`cargo build -p roo-context\` or set ROO_CONTEXT_BIN`);
  }
  return binary;
}

/** Writes `files` (relative path → content) under a new temporary folder and returns it. */
export function workspace(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "roo-context-vscode-")));
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return root;
}

/** Resolves with the first value `subscribe` delivers that satisfies `accept`, or rejects after `ms`. */
export function waitFor<T>(
  subscribe: (deliver: (value: T) => void) => { dispose(): void },
  accept: (value: T) => boolean,
  what: string,
  ms = 20_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      registration.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const registration = subscribe((value) => {
      if (!accept(value)) return;
      clearTimeout(timer);
      registration.dispose();
      resolve(value);
    });
  });
}

/** A small TypeScript file with two definitions worth folding. */
export const APP_TS = `import { readFileSync } from "node:fs";

export class Greeter {
  constructor(private readonly name: string) {}

  greet(): string {
    const text = readFileSync("greeting.txt", "utf8");
    return text + this.name;
  }
}

export function shout(words: string): string {
  const upper = words.toUpperCase();
  return upper + "!";
}
`;
