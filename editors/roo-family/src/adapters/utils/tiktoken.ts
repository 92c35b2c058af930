// Adapter: Roo's `tiktoken` (src/utils/tiktoken.ts), answered by roo-context (`roo/tokens/count`
// in `estimate` mode: the original's serialization of tool blocks, its image rule and its 1.5
// factor, counted with the same o200k_base encoding).

import type { Anthropic } from "@anthropic-ai/sdk"

import { callSync, type Target } from "../../bridge/sidecar"

const tokens: Target = { folders: [] }

export async function tiktoken(content: Anthropic.Messages.ContentBlockParam[]): Promise<number> {
	return tiktokenSync(content)
}

/** The synchronous form (token counting never calls back into the host). */
export function tiktokenSync(content: Anthropic.Messages.ContentBlockParam[]): number {
	if (content.length === 0) return 0
	return callSync<{ total: number }>(tokens, "roo/tokens/count", { blocks: content, mode: "estimate" }).total
}
