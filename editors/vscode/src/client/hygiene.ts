// Tool-output hygiene on the host's side (issue 31): a host that builds its request from its own
// copy of a held history (`effectiveRanges`) applies the sidecar's `contextHygiene` decisions the
// way the sidecar's effective history does: each named `tool_result` is sent with `content`
// replaced by the entry's `text`. The stored message is never changed.

type Message = Record<string, unknown>;

/** The message as the model sees it: a copy with the hygiene placeholders, or the message itself. */
export function withContextHygiene(message: Message): Message {
  const entries = message.contextHygiene;
  const content = message.content;
  if (!Array.isArray(entries) || !Array.isArray(content)) return message;
  const texts = new Map<string, string>();
  for (const entry of entries) {
    if (entry && typeof entry === "object" && typeof entry.toolUseId === "string" && typeof entry.text === "string") {
      texts.set(entry.toolUseId, entry.text);
    }
  }
  if (texts.size === 0) return message;
  let changed = false;
  const shaped = content.map((block: unknown) => {
    if (!block || typeof block !== "object") return block;
    const b = block as Record<string, unknown>;
    if (b.type !== "tool_result" || typeof b.tool_use_id !== "string" || !texts.has(b.tool_use_id)) return block;
    changed = true;
    return { ...b, content: texts.get(b.tool_use_id) };
  });
  return changed ? { ...message, content: shaped } : message;
}
