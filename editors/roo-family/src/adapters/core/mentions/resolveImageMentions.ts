// Adapter: Roo's resolveImageMentions (src/core/mentions/resolveImageMentions.ts), answered by
// roo-context (`roo/mentions/resolveImages`): the sidecar finds the image mentions, judges each
// path (inside cwd, the ignore rules the host gave it, the read gate), applies the size limits
// and reads the files as data URLs.

import { callAsync } from "../../../bridge/sidecar"

export interface ResolveImageMentionsOptions {
	text: string
	images?: string[]
	cwd: string
	rooIgnoreController?: { validateAccess: (filePath: string) => boolean }
	supportsImages?: boolean
	maxImageFileSize?: number
	maxTotalImageSize?: number
}

export interface ResolveImageMentionsResult {
	text: string
	images: string[]
}

export async function resolveImageMentions({
	text,
	images,
	cwd,
	supportsImages = true,
	maxImageFileSize,
	maxTotalImageSize,
}: ResolveImageMentionsOptions): Promise<ResolveImageMentionsResult> {
	// Callers without a workspace pass no cwd (the original only used it once it had a mention).
	return callAsync<ResolveImageMentionsResult>({ folders: cwd ? [cwd] : [] }, "roo/mentions/resolveImages", {
		text,
		images: Array.isArray(images) ? images : undefined,
		cwd,
		supportsImages,
		maxImageFileSize,
		maxTotalImageSize,
	})
}
