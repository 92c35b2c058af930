// Generates src/protocol.generated.ts from the Rust protocol crate's JSON Schema, so no protocol type
// is ever mirrored by hand. `--check` regenerates in memory and fails when the committed file differs.
//
// The schema comes from `cargo run -p roo-context-protocol --features schema --bin roo-context-schema`
// (or from the file named by ROO_CONTEXT_SCHEMA, for machines without cargo).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionRoot = path.resolve(here, "..");
const repositoryRoot = path.resolve(extensionRoot, "..", "..");
const output = path.join(extensionRoot, "src", "protocol.generated.ts");
const check = process.argv.includes("--check");

function loadSchema() {
  const file = process.env.ROO_CONTEXT_SCHEMA;
  if (file) return JSON.parse(fs.readFileSync(file, "utf8"));
  const stdout = execFileSync(
    "cargo",
    ["run", "-q", "-p", "roo-context-protocol", "--features", "schema", "--bin", "roo-context-schema"],
    { cwd: repositoryRoot, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 << 20 },
  );
  return JSON.parse(stdout);
}

/** `roo/ignore/validateAccess` → `ignoreValidateAccess`. */
function apiName(method) {
  const words = method.replace(/^roo\//, "").split(/[/_-]/).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
}

function tables(methods) {
  const lines = [];
  const pick = (direction, kind) =>
    methods.filter((m) => m.direction === direction && m.kind === kind);
  const requestInterface = (name, doc, entries) => {
    lines.push(`/** ${doc} */`, `export interface ${name} {`);
    for (const m of entries) {
      lines.push(`  ${JSON.stringify(m.method)}: { params: ${m.params}; result: ${m.result} };`);
    }
    lines.push("}", "");
  };
  const notificationInterface = (name, doc, entries) => {
    lines.push(`/** ${doc} */`, `export interface ${name} {`);
    for (const m of entries) lines.push(`  ${JSON.stringify(m.method)}: ${m.params};`);
    lines.push("}", "");
  };
  const nameMap = (name, doc, entries) => {
    lines.push(`/** ${doc} */`, `export const ${name} = {`);
    for (const m of entries) lines.push(`  ${apiName(m.method)}: ${JSON.stringify(m.method)},`);
    lines.push("} as const;", "");
  };
  const clientRequests = pick("clientToServer", "request");
  const clientNotifications = pick("clientToServer", "notification");
  const serverRequests = pick("serverToClient", "request");
  const serverNotifications = pick("serverToClient", "notification");
  requestInterface("RooRequests", "Client-to-server requests: method → params and result.", clientRequests);
  notificationInterface("RooClientNotifications", "Client-to-server notifications: method → params.", clientNotifications);
  requestInterface("RooServerRequests", "Server-to-client requests (host services): method → params and result.", serverRequests);
  notificationInterface("RooServerNotifications", "Server-to-client notifications: method → params.", serverNotifications);
  nameMap("ROO_REQUEST_METHODS", "One API function name per client-to-server request.", clientRequests);
  nameMap("ROO_CLIENT_NOTIFICATION_METHODS", "One API function name per client-to-server notification.", clientNotifications);
  nameMap("ROO_SERVER_REQUEST_METHODS", "Server-to-client requests the host answers.", serverRequests);
  nameMap("ROO_SERVER_NOTIFICATION_METHODS", "Server-to-client notifications the host may show.", serverNotifications);
  return lines.join("\n");
}

/** The string values of a unit enum's schema (`enum`, or `oneOf` of `const` when variants have docs). */
function enumValues(schema) {
  if (Array.isArray(schema?.enum)) return schema.enum;
  const variants = schema?.oneOf ?? schema?.anyOf ?? [];
  return variants.map((v) => v.const ?? v.enum?.[0]).filter((v) => typeof v === "string");
}

/** Event names and a type guard for `events` of `roo/context/manage`, from the schema. */
function contextEventGuard(definitions) {
  const names = enumValues(definitions.ContextEventName);
  if (names.length === 0) throw new Error("the schema has no ContextEventName values");
  const payload = {
    condense_context: `typeof (value as { contextCondense?: unknown }).contextCondense === "object" && (value as { contextCondense?: unknown }).contextCondense !== null`,
    condense_context_error: `typeof (value as { text?: unknown }).text === "string"`,
    sliding_window_truncation: `typeof (value as { contextTruncation?: unknown }).contextTruncation === "object" && (value as { contextTruncation?: unknown }).contextTruncation !== null`,
  };
  for (const name of names) {
    if (!payload[name]) throw new Error(`no payload check for context event ${name}`);
  }
  return [
    "/** The `say` names of context-management events (`condense_context`, ...), as the original spells them. */",
    `export const CONTEXT_EVENT_NAMES = ${JSON.stringify(names)} as const;`,
    "",
    "/** A context-management event of one name, with the payload that name carries. */",
    "export type ContextEventOf<N extends ContextEventName> = ContextEventMessage & { say: N } & (N extends \"condense_context\"",
    "  ? { contextCondense: ContextCondense }",
    "  : N extends \"sliding_window_truncation\"",
    "    ? { contextTruncation: ContextTruncation }",
    "    : N extends \"condense_context_error\"",
    "      ? { text: string }",
    "      : never);",
    "",
    "/**",
    " * Whether `value` is a context-management event (of `name`, when given) with its payload:",
    " * `contextCondense` on `condense_context`, `text` on `condense_context_error`,",
    " * `contextTruncation` on `sliding_window_truncation`.",
    " */",
    "export function isContextEvent<N extends ContextEventName = ContextEventName>(",
    "  value: unknown,",
    "  name?: N,",
    "): value is ContextEventOf<N> {",
    "  if (typeof value !== \"object\" || value === null) return false;",
    "  const say = (value as { say?: unknown }).say;",
    "  if (typeof say !== \"string\" || !(CONTEXT_EVENT_NAMES as readonly string[]).includes(say)) return false;",
    "  if (name !== undefined && say !== name) return false;",
    "  switch (say as ContextEventName) {",
    ...names.map((n) => `    case ${JSON.stringify(n)}:\n      return ${payload[n]};`),
    "  }",
    "  return false;",
    "}",
    "",
  ].join("\n");
}

async function generate() {
  const schema = loadSchema();
  const definitions = schema.definitions;
  const names = Object.keys(definitions);
  const root = {
    title: "RooProtocolDefinitions",
    description: "Every wire type of the protocol, by name.",
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(names.map((n) => [n, { $ref: `#/definitions/${n}` }])),
    required: names,
    definitions,
  };
  const types = await compile(root, "RooProtocolDefinitions", {
    bannerComment: "",
    additionalProperties: false,
    unreachableDefinitions: true,
    format: true,
  });
  const banner = [
    "// GENERATED by editors/vscode/scripts/gen-types.mjs from crates/protocol (feature `schema`).",
    "// Do not edit: run `npm run gen-types` after changing a wire type or the method table.",
    "/* eslint-disable */",
    "",
  ].join("\n");
  const initialization = `/** \`initializationOptions\` of \`initialize\`. */\nexport type InitializationOptions = ${schema.initializationOptions};\n`;
  return `${banner}\n${types}\n${tables(schema.methods)}\n${initialization}\n${contextEventGuard(definitions)}`;
}

const text = await generate();
if (check) {
  const current = fs.existsSync(output) ? fs.readFileSync(output, "utf8") : "";
  if (current !== text) {
    console.error(
      `${path.relative(process.cwd(), output)} is out of date with crates/protocol; run \`npm run gen-types\` in editors/vscode.`,
    );
    process.exit(1);
  }
  console.log("protocol.generated.ts is up to date");
} else {
  fs.mkdirSync(path.dirname(output), { recursive: true });
  fs.writeFileSync(output, text);
  console.log(`wrote ${path.relative(process.cwd(), output)}`);
}
