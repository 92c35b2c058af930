// Adapter: Roo's generateFoldedFileContext (src/core/condense/foldedFileContext.ts), answered by
// roo-context (`roo/fold/context` with `prioritize: false`: the original's order, budget, stop
// and truncate rules, and section format). The sidecar reads, judges and outlines every file.

import type { RooIgnoreController } from "../ignore/RooIgnoreController"
import { callAsync } from "../../../bridge/sidecar"

export interface FoldedFileContextResult {
	content: string
	sections: string[]
	filesProcessed: number
	filesSkipped: number
	characterCount: number
}

export interface FoldedFileContextOptions {
	maxCharacters?: number
	cwd: string
	rooIgnoreController?: RooIgnoreController
}

export async function generateFoldedFileContext(
	filePaths: string[],
	options: FoldedFileContextOptions,
): Promise<FoldedFileContextResult> {
	const { maxCharacters = 50000, cwd } = options
	const result = await callAsync<
		FoldedFileContextResult & { diagnostics: Array<{ path: string; kind: string; message: string }> }
	>({ folders: [cwd] }, "roo/fold/context", { paths: filePaths, cwd, maxChars: maxCharacters, prioritize: false })
	const failed = result.diagnostics.filter((d) => d.kind === "parseWorkerFailed")
	if (failed.length > 0) {
		console.warn(
			`Folded context generation: skipped ${failed.length} file(s) due to errors: ${failed
				.slice(0, 5)
				.map((d) => d.path)
				.join(", ")}${failed.length > 5 ? ` and ${failed.length - 5} more` : ""}`,
		)
	}
	return {
		content: result.content,
		sections: result.sections,
		filesProcessed: result.filesProcessed,
		filesSkipped: result.filesSkipped,
		characterCount: result.characterCount,
	}
}
