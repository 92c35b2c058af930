// The host's side of the history held in the sidecar (issue 29, docs/protocol.md "History sync"):
// the host's copy of a task's history with its digest, the ops the sidecar answers applied as the
// protocol defines them, and a session that sends only what changes. Also the expansion of a
// compact `roo/ignore/validateAccess` answer.

import { createHash } from "node:crypto";
import type {
  AccessResult,
  CompactAccess,
  HistoryChanges,
  HistoryOpWire,
} from "../protocol.generated";
import type { RooApi } from "./api";

/** The fields context management writes; a tag change never changes a message's content digest. */
export const TAG_FIELDS = [
  "condenseParent",
  "condenseId",
  "isSummary",
  "truncationParent",
  "truncationId",
  "isTruncationMarker",
] as const;

type Message = Record<string, unknown>;

/** The agreed state every history answer carries (flattened into each result). */
export interface HistoryState {
  version: number;
  length: number;
  digest: string;
}

const MOD = 1n << 64n;

function first8(hash: Buffer): bigint {
  return hash.readBigUInt64BE(0);
}

function u64(value: bigint): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(value);
  return buffer;
}

/** `content(i)`: SHA-256 of the message's JSON without its tags (as JSON.stringify writes it). */
export function contentDigest(message: Message): bigint {
  // No prototype: an own `__proto__` field (JSON.parse makes one) is copied as a field, not
  // taken for the prototype and dropped from the JSON, which the sidecar digests with it.
  const untagged: Message = Object.create(null);
  for (const [key, value] of Object.entries(message)) {
    if (!(TAG_FIELDS as readonly string[]).includes(key)) untagged[key] = value;
  }
  return first8(createHash("sha256").update(JSON.stringify(untagged)).digest());
}

function headDigest(content: bigint, message: Message): bigint {
  const hash = createHash("sha256").update(u64(content));
  for (const tag of TAG_FIELDS) {
    if (tag in message && message[tag] !== undefined) {
      hash.update(`${tag}=${JSON.stringify(message[tag])}\n`);
    }
  }
  return first8(hash.digest());
}

function termDigest(index: number, head: bigint): bigint {
  return first8(createHash("sha256").update(u64(BigInt(index))).update(u64(head)).digest());
}

/** The content digest its creator sent (what the other side computed), else this host's. */
function digestOf(message: unknown, sent: string | null | undefined): bigint {
  return sent ? BigInt(`0x${sent}`) : contentDigest(message as Message);
}

/** A digest as the wire writes it. */
export function digestHex(digest: bigint): string {
  return digest.toString(16).padStart(16, "0");
}

/**
 * The host's copy of one task's history: the messages, each one's content digest (computed once,
 * when the message arrives) and the digest, kept up to date op by op.
 */
export class HistoryMirror {
  private contents: bigint[] = [];
  private terms: bigint[] = [];
  private sum = 0n;

  constructor(public messages: Message[] = []) {
    this.rebuildFrom(0, true);
  }

  /** The digest, 16 hex digits. */
  get digest(): string {
    return digestHex(this.sum);
  }

  /** The digest computed from scratch: differs from `digest` after a change no op reported. */
  recomputedDigest(): string {
    let sum = 0n;
    this.messages.forEach((message, index) => {
      sum = (sum + termDigest(index, headDigest(contentDigest(message), message))) % MOD;
    });
    return digestHex(sum);
  }

  /** Recomputes every digest from the messages (after changes made without an op). */
  rebuild(): void {
    this.contents = [];
    this.terms = [];
    this.sum = 0n;
    this.rebuildFrom(0, true);
  }

  private rebuildFrom(start: number, contentsToo: boolean): void {
    if (contentsToo) {
      this.contents.length = Math.min(this.contents.length, start);
      for (let i = this.contents.length; i < this.messages.length; i++) {
        this.contents.push(contentDigest(this.messages[i]));
      }
    }
    for (let i = start; i < this.terms.length; i++) this.sum = (this.sum - this.terms[i] + MOD) % MOD;
    this.terms.length = Math.min(this.terms.length, start);
    for (let i = start; i < this.messages.length; i++) {
      const term = termDigest(i, headDigest(this.contents[i], this.messages[i]));
      this.terms.push(term);
      this.sum = (this.sum + term) % MOD;
    }
  }

  /** Applies ops in order, as docs/protocol.md defines them. */
  apply(ops: HistoryOpWire[]): void {
    let first = this.messages.length;
    for (const op of ops) {
      switch (op.op) {
        case "append":
          first = Math.min(first, this.messages.length);
          op.messages.forEach((message, i) => {
            this.messages.push(message as Message);
            this.contents.push(digestOf(message, op.contentDigests?.[i]));
          });
          break;
        case "removeLast":
          this.messages.pop();
          this.contents.pop();
          first = Math.min(first, this.messages.length);
          break;
        case "replace":
          this.messages[op.index] = op.message as Message;
          this.contents[op.index] = digestOf(op.message, op.contentDigest);
          first = Math.min(first, op.index);
          break;
        case "truncate":
          this.messages.length = op.length;
          this.contents.length = op.length;
          first = Math.min(first, op.length);
          break;
        case "reset":
          this.messages = [...(op.messages as Message[])];
          this.contents = this.messages.map((m, i) => digestOf(m, op.contentDigests?.[i]));
          first = 0;
          break;
        case "insert":
          this.messages.splice(op.index, 0, op.message as Message);
          this.contents.splice(op.index, 0, digestOf(op.message, op.contentDigest));
          first = Math.min(first, op.index);
          break;
        case "setTags":
          for (const [start, end] of op.ranges) {
            for (const message of this.messages.slice(start, end)) {
              for (const tag of TAG_FIELDS) {
                if (tag in op.tags) message[tag] = op.tags[tag];
                else delete message[tag];
              }
            }
            first = Math.min(first, start);
          }
          break;
      }
    }
    this.rebuildFrom(first, false);
  }

  /** Whether an answer's state is this copy's. */
  agrees(state: HistoryState): boolean {
    return state.length === this.messages.length && state.digest === this.digest;
  }
}

/** The sidecar's answer named a state the host does not hold (or the reverse). */
export class HistoryOutOfSyncError extends Error {}

/**
 * One task's history held in the sidecar: opened once, then changed by ops; `manage` by reference
 * applies the answered ops to the local copy and checks the digest. A mismatch resyncs once.
 */
export class HeldHistory {
  version = 0;

  private constructor(
    private readonly api: RooApi,
    readonly taskId: string,
    readonly mirror: HistoryMirror,
  ) {}

  /** Opens `messages` in the sidecar; with `persist: "sidecar"` it writes `storageDir`'s history file. */
  static async open(
    api: RooApi,
    taskId: string,
    messages: Message[],
    options: { persist?: "host" | "sidecar"; storageDir?: string } = {},
  ): Promise<HeldHistory> {
    const held = new HeldHistory(api, taskId, new HistoryMirror(messages.map((m) => structuredClone(m))));
    const state = await api.historyOpen({
      taskId,
      ...options,
      messages: held.mirror.messages,
      contentDigests: held.mirror.messages.map((m) => digestHex(contentDigest(m))),
    });
    held.accept(state);
    return held;
  }

  private accept(state: HistoryState): void {
    if (!this.mirror.agrees(state)) {
      throw new HistoryOutOfSyncError(
        `history ${this.taskId}: sidecar has ${state.length} messages (${state.digest}), host ${this.mirror.messages.length} (${this.mirror.digest})`,
      );
    }
    this.version = state.version;
  }

  /**
   * Sends ops the host made (applied to the local copy first), each new message with the
   * content digest of the JSON this host wrote, so both sides agree whatever the sidecar's own
   * serialisation would spell differently (`1e+21` is `1e21` in Rust).
   */
  async change(ops: HistoryOpWire[]): Promise<void> {
    ops = ops.map(withContentDigests);
    // Applied locally only once the sidecar took them: a refused batch (-32602) changes neither.
    const state = await this.api.historyChange({ taskId: this.taskId, baseVersion: this.version, ops });
    this.mirror.apply(ops);
    this.accept(state);
  }

  async append(...messages: Message[]): Promise<void> {
    await this.change([{ op: "append", messages }]);
  }

  /** Applies what `roo/context/manage` (or another by-reference method) changed. */
  applyChanges(changes: HistoryChanges): void {
    this.mirror.apply(changes.ops);
    this.accept(changes);
  }

  /** The reference to put in `history`. */
  get ref(): { taskId: string; version: number } {
    return { taskId: this.taskId, version: this.version };
  }

  /** One full resync: the host's copy (its digests recomputed) replaces the sidecar's. */
  async resync(): Promise<void> {
    this.mirror.rebuild();
    const state = await this.api.historyRead({ taskId: this.taskId, from: 0, to: 0 });
    const reset = await this.api.historyChange({
      taskId: this.taskId,
      baseVersion: state.version,
      ops: [withContentDigests({ op: "reset", messages: this.mirror.messages })],
    });
    this.accept(reset);
  }
}

/** `op` with the host's content digest of each message it carries (when it has none). */
function withContentDigests(op: HistoryOpWire): HistoryOpWire {
  const hex = (message: unknown) => digestHex(contentDigest(message as Message));
  switch (op.op) {
    case "append":
    case "reset":
      return op.contentDigests ? op : { ...op, contentDigests: op.messages.map(hex) };
    case "replace":
    case "insert":
      return op.contentDigest ? op : { ...op, contentDigest: hex(op.message) };
    default:
      return op;
  }
}

/** The placeholder of a compact rule's `toolErrorTemplate`. */
export const TOOL_ERROR_PATH_PLACEHOLDER = "{path}";

/**
 * The full `results` of a compact `validateAccess` answer (`matchedPath` and `via` of a rule are
 * not in the compact form). `paths` are the request's, in order.
 */
export function expandCompactAccess(paths: string[], compact: CompactAccess): AccessResult[] {
  if (compact.count !== paths.length) {
    throw new Error(`compact answer decides ${compact.count} paths, the request had ${paths.length}`);
  }
  const results: AccessResult[] = paths.map((path) => ({ path, allowed: true }));
  for (const [index, ruleIndex] of compact.blocked) {
    const rule = compact.rules[ruleIndex];
    const escaped = JSON.stringify(paths[index]).slice(1, -1);
    results[index] = {
      path: paths[index],
      allowed: false,
      blockedBy: rule.blockedBy,
      toolError: rule.toolErrorTemplate.split(TOOL_ERROR_PATH_PLACEHOLDER).join(escaped),
    };
  }
  return results;
}
