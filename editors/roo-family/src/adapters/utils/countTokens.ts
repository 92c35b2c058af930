// Adapter: Roo's `countTokens` (src/utils/countTokens.ts). The original moves counting to a worker
// pool to keep the extension host responsive; the sidecar is that worker, so both options give
// the same answer from `roo/tokens/count`.

import type { Anthropic } from "@anthropic-ai/sdk"

import { tiktoken } from "./tiktoken"

export type CountTokensOptions = {
	useWorker?: boolean
}

export async function countTokens(
	content: Anthropic.Messages.ContentBlockParam[],
	_options: CountTokensOptions = {},
): Promise<number> {
	return tiktoken(content)
}
