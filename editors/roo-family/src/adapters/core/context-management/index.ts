// Adapter: Roo's context management (src/core/context-management/index.ts) with the same
// exports and signatures. roo-context decides: `willManageContext` and the plan of
// `manageContext` (whether to condense first, whether the history is over budget and how much
// the fallback truncation hides: `roo/context/willManage`), and the sliding window itself
// (`truncateConversation`: `roo/history/truncate`). The host runs the plan with its own parts:
// the condense module's `summarizeConversation` (itself answered by the sidecar) and its
// provider's token counts (`estimateTokenCount`, the original's, re-exported).

import type { ApiMessage } from "../task-persistence/apiMessages"
import type { ApiHandler, ApiHandlerCreateMessageMetadata } from "../../api"
import type { RooIgnoreController } from "../ignore/RooIgnoreController"

import { TelemetryService } from "@roo-code/telemetry"

import { summarizeConversation, type SummarizeResponse } from "../condense"
import { callSync, type Target } from "../../../bridge/sidecar"

export { TOKEN_BUFFER_PERCENTAGE, estimateTokenCount } from "./index?roo-original"
import { estimateTokenCount } from "./index?roo-original"

const context: Target = { folders: [] }

export type TruncationResult = {
	messages: ApiMessage[]
	truncationId: string
	messagesRemoved: number
}

interface TruncateAnswer {
	messages: ApiMessage[]
	changed: boolean
	truncationId: string
	messagesRemoved: number
	visibleIndices: number[]
}

function truncate(messages: ApiMessage[], fracToRemove: number): TruncateAnswer {
	const answer = callSync<TruncateAnswer>(context, "roo/history/truncate", { messages, fraction: fracToRemove })
	return answer.changed ? answer : { ...answer, messages }
}

export function truncateConversation(messages: ApiMessage[], fracToRemove: number, taskId: string): TruncationResult {
	TelemetryService.instance.captureSlidingWindowTruncation(taskId)
	const { messages: result, truncationId, messagesRemoved } = truncate(messages, fracToRemove)
	return { messages: result, truncationId, messagesRemoved }
}

export type WillManageContextOptions = {
	totalTokens: number
	contextWindow: number
	maxTokens?: number | null
	autoCondenseContext: boolean
	autoCondenseContextPercent: number
	profileThresholds: Record<string, number>
	currentProfileId: string
	lastMessageTokens: number
	/** Zoo Code 3.80 (VS Code LM): the condense percentage is of the window minus the reserved output. */
	useAvailableInputForContextPercent?: boolean
}

interface Plan {
	willManage: boolean
	prevContextTokens: number
	allowedTokens: number
	shouldCondense: boolean
	overBudget: boolean
	truncateFraction: number
	warnings?: string[]
}

function plan(options: WillManageContextOptions): Plan {
	return callSync<Plan>(context, "roo/context/willManage", {
		totalTokens: options.totalTokens,
		lastMessageTokens: options.lastMessageTokens,
		contextWindow: options.contextWindow,
		maxTokens: options.maxTokens ?? undefined,
		autoCondenseContext: options.autoCondenseContext,
		autoCondenseContextPercent: options.autoCondenseContextPercent,
		profileThresholds: options.profileThresholds,
		currentProfileId: options.currentProfileId,
		useAvailableInputForContextPercent: options.useAvailableInputForContextPercent,
	})
}

export function willManageContext(options: WillManageContextOptions): boolean {
	return plan(options).willManage
}

export type ContextManagementOptions = {
	messages: ApiMessage[]
	totalTokens: number
	contextWindow: number
	maxTokens?: number | null
	apiHandler: ApiHandler
	autoCondenseContext: boolean
	autoCondenseContextPercent: number
	systemPrompt: string
	taskId: string
	customCondensingPrompt?: string
	profileThresholds: Record<string, number>
	currentProfileId: string
	metadata?: ApiHandlerCreateMessageMetadata
	environmentDetails?: string
	filesReadByRoo?: string[]
	cwd?: string
	rooIgnoreController?: RooIgnoreController
	/** Zoo Code 3.80 (VS Code LM): the condense percentage is of the window minus the reserved output. */
	useAvailableInputForContextPercent?: boolean
}

export type ContextManagementResult = SummarizeResponse & {
	prevContextTokens: number
	truncationId?: string
	messagesRemoved?: number
	newContextTokensAfterTruncation?: number
}

export async function manageContext({
	messages,
	totalTokens,
	contextWindow,
	maxTokens,
	apiHandler,
	autoCondenseContext,
	autoCondenseContextPercent,
	systemPrompt,
	taskId,
	customCondensingPrompt,
	profileThresholds,
	currentProfileId,
	metadata,
	environmentDetails,
	filesReadByRoo,
	cwd,
	rooIgnoreController,
	useAvailableInputForContextPercent,
}: ContextManagementOptions): Promise<ContextManagementResult> {
	let error: string | undefined
	let errorDetails: string | undefined
	let cost = 0
	// The last message (always the user's) counted by the task's provider.
	const lastContent = messages[messages.length - 1].content
	const lastMessageTokens = await estimateTokenCount(
		Array.isArray(lastContent) ? lastContent : [{ type: "text", text: lastContent as string }],
		apiHandler,
	)
	const decided = plan({
		totalTokens,
		contextWindow,
		maxTokens,
		autoCondenseContext,
		autoCondenseContextPercent,
		profileThresholds,
		currentProfileId,
		lastMessageTokens,
		useAvailableInputForContextPercent,
	})
	for (const warning of decided.warnings ?? []) console.warn(warning)
	const prevContextTokens = decided.prevContextTokens

	if (decided.shouldCondense) {
		const result = await summarizeConversation({
			messages,
			apiHandler,
			systemPrompt,
			taskId,
			isAutomaticTrigger: true,
			customCondensingPrompt,
			metadata,
			environmentDetails,
			filesReadByRoo,
			cwd,
			rooIgnoreController,
		})
		if (!result.error) return { ...result, prevContextTokens }
		error = result.error
		errorDetails = result.errorDetails
		cost = result.cost
	}

	if (decided.overBudget) {
		TelemetryService.instance.captureSlidingWindowTruncation(taskId)
		const truncated = truncate(messages, decided.truncateFraction)
		// What the model still sees, counted by the task's provider with the system prompt.
		let newContextTokensAfterTruncation = await estimateTokenCount([{ type: "text", text: systemPrompt }], apiHandler)
		for (const index of truncated.visibleIndices) {
			const content = truncated.messages[index].content
			newContextTokensAfterTruncation += Array.isArray(content)
				? await estimateTokenCount(content, apiHandler)
				: await estimateTokenCount([{ type: "text", text: content as string }], apiHandler)
		}
		return {
			messages: truncated.messages,
			prevContextTokens,
			summary: "",
			cost,
			error,
			errorDetails,
			truncationId: truncated.truncationId,
			messagesRemoved: truncated.messagesRemoved,
			newContextTokensAfterTruncation,
		}
	}
	return { messages, summary: "", cost, prevContextTokens, error, errorDetails }
}
