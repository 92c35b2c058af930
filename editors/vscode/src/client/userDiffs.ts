// The user's diff (`roo/files/takeRecentlyModified` with `withDiffs`, then `roo/files/ackNotice`):
// take the notice, hand its text to the agent, and acknowledge only once that worked, so a notice
// that never reached the model is repeated by the next take. VS Code-free, tested against the binary.

import type { DiffLimits, FileChange, FilesTakeResult } from "../protocol.generated";
import type { RooApi } from "./api";

/** Output-channel lines for one notice: each file with its diff, or the reason it has none. */
export function describeUserDiffs(taskId: string, notice: FilesTakeResult): string[] {
  const changes: FileChange[] = notice.changes ?? [];
  return changes.map((change) => {
    const stat = change.diffStat ? ` (+${change.diffStat.added} -${change.diffStat.removed})` : "";
    // The agent read only part of the file: lines outside the diff may be new to it too.
    const partial = change.partial ? " [the agent read only part of this file]" : "";
    if (change.diff) return `roo-context: task ${taskId}: ${change.path} ${change.kind}${stat}${partial} outside the agent:\n${change.diff}`;
    return `roo-context: task ${taskId}: ${change.path} ${change.kind}${stat}${partial}, no diff (${change.fallback ?? "unknown"})`;
  });
}

/**
 * Takes the task's notice with diffs, shows it through `log`, passes its `text` to `deliver` (the
 * agent appends it to the message it sends to the model) and acknowledges it once `deliver`
 * resolved. When `deliver` throws, nothing is acknowledged and the next call repeats the files.
 */
export async function deliverUserDiffs(
  api: RooApi,
  taskId: string,
  deliver: (text: string) => Promise<void>,
  log: (line: string) => void = () => {},
  limits?: DiffLimits,
): Promise<FilesTakeResult> {
  const notice = await api.filesTakeRecentlyModified({ taskId, withDiffs: true, ...(limits ? { limits } : {}) });
  describeUserDiffs(taskId, notice).forEach(log);
  if (!notice.noticeId || !notice.text) return notice;
  await deliver(notice.text);
  await api.filesAckNotice({ taskId, noticeId: notice.noticeId });
  return notice;
}
