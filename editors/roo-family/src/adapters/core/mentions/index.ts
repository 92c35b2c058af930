// Adapter: Roo's @-mention expansion (src/core/mentions/index.ts) with the same exports and
// signatures, answered by roo-context (`roo/mentions/parse`). The sidecar decides everything a
// mention means: the grammar, the command and skill lookup, which files may be read and how they
// are shown, git state, the sections and the command help. The host keeps what only it can do:
// its diagnostics for `@problems` and its terminal's text for `@terminal` (asked by the sidecar
// with `roo/host/resolveMention`), recording the files the sidecar read in its tracker, and the
// editor actions of `openMention` (the original's, unchanged).

import type { FileContextTracker } from "../context-tracking/FileContextTracker"
import type { RooIgnoreController } from "../ignore/RooIgnoreController"
import type { SkillLookup } from "../../services/skills/skillInvocation"
import { callAsync, withHost } from "../../../bridge/sidecar"
// The helpers live in the other adapter: suites mock this module (`vi.mock("../../mentions")`)
// while the task still calls processUserContentMentions, which must not depend on the mock.
import { mentionHost, mentionOptions, trackMentioned } from "./processUserContentMentions"

export { openMention, getLatestTerminalOutput } from "./index?roo-original"

/** A content block generated from an @ mention (only `file` and `folder` are produced). */
export interface MentionContentBlock {
	type: "file" | "folder" | "url" | "diagnostics" | "git_changes" | "git_commit" | "terminal" | "command"
	path?: string
	content: string
	metadata?: {
		totalLines: number
		returnedLines: number
		wasTruncated: boolean
		linesShown?: [number, number]
	}
}

export interface ParseMentionsResult {
	text: string
	contentBlocks: MentionContentBlock[]
	slashCommandHelp?: string
	mode?: string
}

export async function parseMentions(
	text: string,
	cwd: string,
	fileContextTracker?: FileContextTracker,
	// The sidecar judges every path with the rules the host gave it for `cwd` (the
	// RooIgnoreController adapter's `roo/ignore/setRules`), not by calling this object.
	_rooIgnoreController?: RooIgnoreController,
	showRooIgnoredFiles: boolean = false,
	includeDiagnosticMessages: boolean = true,
	maxDiagnosticMessages: number = 50,
	// Skills are read by the sidecar from the same folders the SkillsManager reads.
	_skillsManager?: SkillLookup,
	currentMode: string = "code",
): Promise<ParseMentionsResult> {
	const result = await withHost(mentionHost(cwd), (tag) =>
		callAsync<ParseMentionsResult & { mentionedFiles: string[] }>({ folders: [cwd] }, "roo/mentions/parse", {
			text,
			...mentionOptions(cwd, showRooIgnoredFiles, includeDiagnosticMessages, maxDiagnosticMessages, currentMode, tag),
		}),
	)
	await trackMentioned(fileContextTracker, result.mentionedFiles)
	return {
		text: result.text,
		contentBlocks: result.contentBlocks,
		mode: result.mode ?? undefined,
		slashCommandHelp: result.slashCommandHelp ?? undefined,
	}
}

export { processUserContentMentions } from "./processUserContentMentions"
export type { ProcessUserContentMentionsResult } from "./processUserContentMentions"
