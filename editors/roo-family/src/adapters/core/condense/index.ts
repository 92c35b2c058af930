// Adapter: Roo's condense module (src/core/condense/index.ts) with the same exports and
// signatures. The history decisions are roo-context's: `getEffectiveApiHistory` and
// `getMessagesSinceLastSummary` (`roo/history/effective`), `cleanupAfterTruncation`
// (`roo/history/cleanup`), and `summarizeConversation` (`roo/context/condense`: the guards, the
// request, the summary message and its tags), during which the sidecar asks the host to write
// the summary (`roo/host/summarize`), answered here with the task's `ApiHandler.createMessage`.
// The host keeps what is the host's: its telemetry, its provider's image transform on the
// outgoing request, its folded file context (handed over as sections) and its provider's token
// count. The helpers of the summarize request (tool blocks as text, synthetic tool results,
// command blocks) are the sidecar's too (`roo/history/toolBlocksAsText`,
// `roo/history/injectSyntheticToolResults`, `roo/history/commandBlocks`); the two thresholds are
// the original's constants, re-exported.

import type { Anthropic } from "@anthropic-ai/sdk"
import type { ApiMessage } from "../task-persistence/apiMessages"
import type { ApiHandler, ApiHandlerCreateMessageMetadata } from "../../api"
import type { RooIgnoreController } from "../ignore/RooIgnoreController"

import { TelemetryService } from "@roo-code/telemetry"

import { maybeRemoveImageBlocks } from "../../api/transform/image-cleaning"
import { generateFoldedFileContext } from "./foldedFileContext"
import { callAsync, callSync, taggedMetadata, withHost, SidecarError, type Target } from "../../../bridge/sidecar"

export { MIN_CONDENSE_THRESHOLD, MAX_CONDENSE_THRESHOLD } from "./index?roo-original"
export type { FoldedFileContextResult, FoldedFileContextOptions } from "./foldedFileContext"

const history: Target = { folders: [] }

export type SummarizeResponse = {
	messages: ApiMessage[]
	summary: string
	cost: number
	newContextTokens?: number
	error?: string
	errorDetails?: string
	condenseId?: string
}

export type SummarizeConversationOptions = {
	messages: ApiMessage[]
	apiHandler: ApiHandler
	systemPrompt: string
	taskId: string
	isAutomaticTrigger?: boolean
	customCondensingPrompt?: string
	metadata?: ApiHandlerCreateMessageMetadata
	environmentDetails?: string
	filesReadByRoo?: string[]
	cwd?: string
	rooIgnoreController?: RooIgnoreController
}

interface CondenseResult {
	changed: boolean
	messages?: ApiMessage[]
	summary: string
	cost: number
	condenseId?: string
	error?: string
	errorDetails?: string
}

/** The host's side of `roo/host/summarize`: one model call with the task's handler. */
function summarizer(apiHandler: ApiHandler, metadata: ApiHandlerCreateMessageMetadata | undefined) {
	return async (method: string, params: any) => {
		if (method !== "roo/host/summarize") throw new SidecarError(-32601, `not answered here: ${method}`)
		if (!apiHandler || typeof apiHandler.createMessage !== "function") {
			console.error("API handler is invalid for condensing. Cannot proceed.")
			throw new SidecarError(-32601, "API handler is invalid for condensing")
		}
		const outgoing = maybeRemoveImageBlocks(params.messages, apiHandler).map(({ role, content }) => ({
			role,
			content,
		}))
		let text = ""
		let cost = 0
		let outputTokens = 0
		try {
			const stream = apiHandler.createMessage(params.systemPrompt, outgoing as any, metadata)
			for await (const chunk of stream) {
				if (chunk.type === "text") text += chunk.text
				else if (chunk.type === "usage") {
					cost = chunk.totalCost ?? 0
					outputTokens = chunk.outputTokens ?? 0
				}
			}
		} catch (error) {
			console.error("Error during condensing API call:", error)
			return { text: "", cost, error: providerError(error) }
		}
		return { text, cost, outputTokens }
	}
}

/** The thrown provider error as the protocol's `HostErrorInfo`. */
function providerError(error: unknown) {
	if (!(error instanceof Error)) return { message: String(error) }
	const fields = error as unknown as Record<string, unknown>
	const info: Record<string, unknown> = { message: error.message }
	for (const key of ["status", "code", "response", "body"]) {
		if (fields[key] === undefined) continue
		try {
			info[key] = JSON.parse(JSON.stringify(fields[key]))
		} catch {
			info[key] = "[Unable to serialize]"
		}
	}
	return info
}

export async function summarizeConversation(options: SummarizeConversationOptions): Promise<SummarizeResponse> {
	const {
		messages,
		apiHandler,
		systemPrompt,
		taskId,
		isAutomaticTrigger,
		customCondensingPrompt,
		metadata,
		environmentDetails,
		filesReadByRoo,
		cwd,
		rooIgnoreController,
	} = options
	TelemetryService.instance.captureContextCondensed(
		taskId,
		isAutomaticTrigger ?? false,
		!!customCondensingPrompt?.trim(),
	)
	// The host's folded file context (its tree-sitter service and its ignore controller),
	// handed to the sidecar as sections.
	let foldedFileSections: string[] | undefined
	if (filesReadByRoo && filesReadByRoo.length > 0 && cwd) {
		try {
			foldedFileSections = (await generateFoldedFileContext(filesReadByRoo, { cwd, rooIgnoreController }))
				.sections
		} catch (error) {
			console.error("[summarizeConversation] Failed to generate folded file context:", error)
		}
	}
	const model = (() => {
		try {
			return apiHandler?.getModel?.()?.info
		} catch {
			return undefined
		}
	})()
	const result = await withHost(summarizer(apiHandler, metadata), (tag) =>
		callAsync<CondenseResult>(history, "roo/context/condense", {
			messages,
			automatic: isAutomaticTrigger ?? false,
			customCondensingPrompt,
			environmentDetails,
			foldedFileSections: foldedFileSections ?? [],
			summarizer: model
				? { contextWindow: model.contextWindow, maxTokens: model.maxTokens ?? undefined, supportsImages: !!model.supportsImages }
				: { supportsImages: true },
			taskId,
			metadata: taggedMetadata(tag, metadata),
		}),
	)
	if (!result.changed || !result.messages) {
		const response: SummarizeResponse = { messages, summary: "", cost: result.cost, error: result.error }
		if (result.errorDetails !== undefined) response.errorDetails = result.errorDetails
		return response
	}
	// Counted by the task's provider, as the next request will be: the system prompt, the
	// summary (all the model sees of the history now) and the tool definitions.
	const summaryMessage = result.messages[result.messages.length - 1]
	const summaryBlocks = typeof summaryMessage.content === "string" ? [{ type: "text" as const, text: summaryMessage.content }] : summaryMessage.content
	const messageTokens = await apiHandler.countTokens([{ type: "text", text: systemPrompt }, ...summaryBlocks])
	let toolTokens = 0
	if (metadata?.tools && metadata.tools.length > 0) {
		toolTokens = await apiHandler.countTokens([{ type: "text", text: JSON.stringify(metadata.tools) }])
	}
	return {
		messages: result.messages,
		summary: result.summary,
		cost: result.cost,
		newContextTokens: messageTokens + toolTokens,
		condenseId: result.condenseId,
	}
}

interface EffectiveResult {
	messages: ApiMessage[]
	sourceIndices: number[]
	changed: boolean
	sinceLastSummaryCount?: number
}

/** The sidecar's message where it differs from the host's, else the host's own object. */
function same(original: ApiMessage, returned: ApiMessage): ApiMessage {
	return JSON.stringify(original) === JSON.stringify(returned) ? original : returned
}

export function getMessagesSinceLastSummary(messages: ApiMessage[]): ApiMessage[] {
	const answer = callSync<EffectiveResult>(history, "roo/history/effective", {
		messages,
		includeSinceLastSummary: true,
	})
	const count = answer.sinceLastSummaryCount ?? messages.length
	return count === messages.length ? messages : messages.slice(messages.length - count)
}

export function getEffectiveApiHistory(messages: ApiMessage[]): ApiMessage[] {
	const answer = callSync<EffectiveResult>(history, "roo/history/effective", { messages })
	return answer.messages.map((message, i) => same(messages[answer.sourceIndices[i]], message))
}

export function cleanupAfterTruncation(messages: ApiMessage[]): ApiMessage[] {
	const answer = callSync<{ messages: ApiMessage[]; changed: boolean; changedIndices: number[] }>(
		history,
		"roo/history/cleanup",
		{ messages },
	)
	const changed = new Set(answer.changedIndices)
	return messages.map((message, i) => (changed.has(i) ? answer.messages[i] : message))
}

type Content = string | Anthropic.Messages.ContentBlockParam[]

/** Tool blocks as text blocks (the other fields of each message kept). */
function toolBlocksAsText<T>(messages: T[]): T[] {
	return callSync<{ messages: T[] }>(history, "roo/history/toolBlocksAsText", { messages }).messages
}

export function toolUseToText(block: Anthropic.Messages.ToolUseBlockParam): string {
	return (toolBlocksAsText([{ role: "assistant", content: [block] }])[0].content as any)[0].text
}

export function toolResultToText(block: Anthropic.Messages.ToolResultBlockParam): string {
	return (toolBlocksAsText([{ role: "user", content: [block] }])[0].content as any)[0].text
}

export function convertToolBlocksToText(content: Content): Content {
	if (typeof content === "string") return content
	return toolBlocksAsText([{ role: "user", content }])[0].content
}

export function transformMessagesForCondensing<
	T extends { role: string; content: string | Anthropic.Messages.ContentBlockParam[] },
>(messages: T[]): T[] {
	return toolBlocksAsText(messages)
}

export function injectSyntheticToolResults(messages: ApiMessage[]): ApiMessage[] {
	const answer = callSync<{ messages: ApiMessage[]; changed: boolean }>(
		history,
		"roo/history/injectSyntheticToolResults",
		{ messages },
	)
	if (!answer.changed) return messages
	// The input's messages as they were, then the sidecar's answers to the orphan tool uses.
	return [...messages, ...answer.messages.slice(messages.length)]
}

export function extractCommandBlocks(message: ApiMessage): string {
	return callSync<{ text: string }>(history, "roo/history/commandBlocks", { message }).text
}
