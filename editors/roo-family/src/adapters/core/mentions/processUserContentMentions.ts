// Adapter: Roo's processUserContentMentions (src/core/mentions/processUserContentMentions.ts),
// answered by roo-context (`roo/mentions/processUserContent`): the sidecar chooses which blocks
// are user-authored, expands them and places the file and command blocks after each.

import Anthropic from "@anthropic-ai/sdk"
import * as vscode from "vscode"

import { diagnosticsToProblemsString } from "../../integrations/diagnostics"
import type { FileContextTracker } from "../context-tracking/FileContextTracker"
import type { SkillLookup } from "../../services/skills/skillInvocation"
import { callAsync, taggedMetadata, withHost, type HostHandler } from "../../../bridge/sidecar"
import { getLatestTerminalOutput } from "./index?roo-original"

/** The options both mention methods share, as the sidecar names them. */
export function mentionOptions(
	cwd: string,
	showRooIgnoredFiles: boolean,
	includeDiagnosticMessages: boolean,
	maxDiagnosticMessages: number,
	currentMode: string,
	tag: string,
) {
	return {
		cwd,
		showRooIgnoredFiles,
		includeDiagnosticMessages,
		maxDiagnosticMessages,
		currentMode,
		// Roo Code 3.52 and Zoo Code 3.80 do not fetch URLs: the mention is only quoted.
		fetchUrls: false,
		metadata: taggedMetadata(tag, undefined),
	}
}

/** The host's answers to `roo/host/resolveMention`: what only the editor knows. */
export function mentionHost(cwd: string): HostHandler {
	return async (method, params) => {
		if (method !== "roo/host/resolveMention") throw new Error(`unexpected host request ${method}`)
		switch (params.kind) {
			case "problems":
				return { content: await workspaceProblems(cwd, params.includeDiagnosticMessages, params.maxDiagnosticMessages) }
			case "terminal":
				return { content: await getLatestTerminalOutput() }
			default:
				throw new Error(`the host does not resolve ${params.kind} mentions`)
		}
	}
}

async function workspaceProblems(cwd: string, includeMessages: boolean, maxMessages: number): Promise<string> {
	const diagnostics = vscode.languages.getDiagnostics()
	const result = await diagnosticsToProblemsString(
		diagnostics,
		[vscode.DiagnosticSeverity.Error, vscode.DiagnosticSeverity.Warning],
		cwd,
		includeMessages,
		maxMessages,
	)
	return result || "No errors or warnings detected."
}

/** Records the files the sidecar read for the mentions, as the original does while reading. */
export async function trackMentioned(tracker: FileContextTracker | undefined, files: string[]) {
	if (!tracker) return
	for (const file of files) await tracker.trackFileContext(file, "file_mentioned")
}


export interface ProcessUserContentMentionsResult {
	content: Anthropic.Messages.ContentBlockParam[]
	mode?: string
}

export async function processUserContentMentions({
	userContent,
	cwd,
	fileContextTracker,
	showRooIgnoredFiles = false,
	includeDiagnosticMessages = true,
	maxDiagnosticMessages = 50,
	currentMode = "code",
}: {
	userContent: Anthropic.Messages.ContentBlockParam[]
	cwd: string
	fileContextTracker: FileContextTracker
	rooIgnoreController?: any
	showRooIgnoredFiles?: boolean
	includeDiagnosticMessages?: boolean
	maxDiagnosticMessages?: number
	skillsManager?: SkillLookup
	currentMode?: string
}): Promise<ProcessUserContentMentionsResult> {
	const result = await withHost(mentionHost(cwd), (tag) =>
		callAsync<{ content: Anthropic.Messages.ContentBlockParam[]; mode?: string; mentionedFiles: string[] }>(
			{ folders: [cwd] },
			"roo/mentions/processUserContent",
			{
				content: userContent,
				...mentionOptions(cwd, showRooIgnoredFiles, includeDiagnosticMessages, maxDiagnosticMessages, currentMode, tag),
			},
		),
	)
	await trackMentioned(fileContextTracker, result.mentionedFiles)
	return { content: result.content, mode: result.mode ?? undefined }
}
