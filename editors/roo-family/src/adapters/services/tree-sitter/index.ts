// Adapter: Roo's tree-sitter definitions (src/services/tree-sitter/index.ts) with the same
// exports and signatures, answered by roo-context (`roo/fold/outline`): the sidecar decides the
// language, parses, runs the queries and makes the `start--end | first line` lines. The host
// keeps its own existence check (the original's message for a missing file) and the `# <name>`
// heading of the original's output. `extensions` is the agent's list, re-exported as data (the
// code index reads it).

import * as path from "path"

import { fileExistsAtPath } from "../../utils/fs"
import type { RooIgnoreController } from "../../core/ignore/RooIgnoreController"
import { callAsync, SidecarError } from "../../../bridge/sidecar"

export { extensions } from "./index?roo-original"

const DEFAULT_MIN_COMPONENT_LINES_VALUE = 4
let currentMinComponentLines = DEFAULT_MIN_COMPONENT_LINES_VALUE

export function getMinComponentLines(): number {
	return currentMinComponentLines
}

export function setMinComponentLines(value: number): void {
	currentMinComponentLines = value
}

export async function parseSourceCodeDefinitionsForFile(
	filePath: string,
	rooIgnoreController?: RooIgnoreController,
): Promise<string | undefined> {
	const absolute = path.resolve(filePath)
	if (!(await fileExistsAtPath(absolute))) {
		return "This file does not exist or you do not have permission to access it."
	}
	// The rules the host gave the sidecar are the controller's folder's (roo/ignore/setRules).
	const folder: string = (rooIgnoreController as any)?.cwd ?? path.dirname(absolute)
	try {
		const outline = await callAsync<{ text: string }>({ folders: [folder] }, "roo/fold/outline", {
			path: absolute,
			minComponentLines: currentMinComponentLines,
		})
		return outline.text ? `# ${path.basename(filePath)}\n${outline.text}` : undefined
	} catch (error) {
		// Blocked, no grammar or unreadable (-32602), or a parse stopped by a cap (-32803): the
		// original's undefined. No answer at all (the bridge's -32099) is an error, as it is.
		if (error instanceof SidecarError && (error.code === -32602 || error.code === -32803)) return undefined
		throw error
	}
}
