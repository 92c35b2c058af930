// How a host acts on `roo/ignore/validateCommand`: only `allowed` may be auto-approved; `blocked`
// is refused with the tool error; `undecidable` (the sidecar cannot know what the command reads)
// goes to the user. Kept here, beside the generated types, so every host decides the same way.

import { ValidateCommandResult } from "../protocol.generated";

/** What a host does with a command before running it. */
export type CommandApproval =
  | { action: "run" }
  | { action: "refuse"; argument: string; toolError?: string | null }
  | { action: "askUser"; reason: string; construct?: string | null; snippet?: string | null };

/** Maps a validateCommand result to the host's action. A result without `verdict` (an older
 * server) is judged by `blockedPath` alone. */
export function commandApproval(result: ValidateCommandResult): CommandApproval {
  const verdict = result.verdict ?? (result.blockedPath ? "blocked" : "allowed");
  switch (verdict) {
    case "allowed":
      return { action: "run" };
    case "blocked":
      return { action: "refuse", argument: result.blockedPath ?? "", toolError: result.toolError };
    default:
      return {
        action: "askUser",
        reason: result.reason ?? "roo-context cannot tell which files this command reads",
        construct: result.construct,
        snippet: result.snippet,
      };
  }
}
