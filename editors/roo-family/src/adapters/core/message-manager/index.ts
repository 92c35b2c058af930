// Adapter: Roo's MessageManager (src/core/message-manager/index.ts) with the same exports and
// signatures. The rewind is roo-context's (`roo/history/rewind`: which UI events stay, the
// cutoff with the streaming race fix, the summaries and markers whose events are removed); the
// cleanup of dangling tags goes through the condense module's `cleanupAfterTruncation` (also the
// sidecar's), as in the original. The host keeps its storage: writing both lists and removing
// command-output artifacts no remaining message refers to.

import * as path from "path"

import type { Task } from "../task/Task"
import type { ApiMessage } from "../task-persistence/apiMessages"

import { cleanupAfterTruncation } from "../condense"
import { OutputInterceptor } from "../../integrations/terminal/OutputInterceptor"
import { getTaskDirectoryPath } from "../../utils/storage"
import { callSync } from "../../../bridge/sidecar"

export interface RewindOptions {
	/** Whether to include the target message in deletion (edit=true, delete=false) */
	includeTargetMessage?: boolean
	/** Skip cleanup for special cases (default: false) */
	skipCleanup?: boolean
}

interface RewindAnswer {
	uiMessagesKept: number
	apiMessages: ApiMessage[]
	changed: boolean
	removedCondenseIds: string[]
	removedTruncationIds: string[]
}

export class MessageManager {
	constructor(private task: Task) {}

	async rewindToTimestamp(ts: number, options: RewindOptions = {}): Promise<void> {
		const { includeTargetMessage = false, skipCleanup = false } = options
		await this.performRewind({ ts, includeTargetMessage }, skipCleanup)
	}

	async rewindToIndex(toIndex: number, options: RewindOptions = {}): Promise<void> {
		await this.performRewind({ index: toIndex }, options.skipCleanup ?? false)
	}

	private async performRewind(
		target: { ts: number; includeTargetMessage: boolean } | { index: number },
		skipCleanup: boolean,
	): Promise<void> {
		const originalHistory = this.task.apiConversationHistory
		let answer: RewindAnswer
		try {
			answer = callSync<RewindAnswer>({ folders: [] }, "roo/history/rewind", {
				uiMessages: this.task.clineMessages,
				apiMessages: originalHistory,
				...target,
				// The dangling tags are cleared below, through the condense module.
				skipCleanup: true,
			})
		} catch (error: any) {
			// The sidecar's -32602 names the field; the original's error is the sentence alone.
			const sentence = /Message with timestamp .* not found in clineMessages/.exec(String(error?.message))
			throw sentence ? new Error(sentence[0]) : error
		}
		for (const id of answer.removedCondenseIds) {
			console.log(`[MessageManager] Found condense_context to remove: ${id}`)
		}
		for (const id of answer.removedTruncationIds) {
			console.log(`[MessageManager] Found sliding_window_truncation to remove: ${id}`)
		}
		await this.task.overwriteClineMessages(this.task.clineMessages.slice(0, answer.uiMessagesKept))

		// The sidecar's copies where they equal the host's messages are the host's own objects.
		const byJson = new Map<string, ApiMessage[]>()
		for (const message of originalHistory) {
			const key = JSON.stringify(message)
			byJson.set(key, [...(byJson.get(key) ?? []), message])
		}
		let apiHistory = answer.apiMessages.map((message) => byJson.get(JSON.stringify(message))?.shift() ?? message)
		if (!skipCleanup) {
			apiHistory = cleanupAfterTruncation(apiHistory)
			const validIds = new Set<string>()
			for (const msg of this.task.clineMessages) if (msg.ts) validIds.add(String(msg.ts))
			for (const msg of apiHistory) if (msg.ts) validIds.add(String(msg.ts))
			this.cleanupOrphanedArtifacts(validIds).catch((error) => {
				console.error("[MessageManager] Error cleaning up orphaned command output artifacts:", error)
			})
		}
		const historyChanged =
			apiHistory.length !== originalHistory.length || apiHistory.some((msg, i) => msg !== originalHistory[i])
		if (historyChanged) {
			await this.task.overwriteApiConversationHistory(apiHistory)
		}
	}

	private async cleanupOrphanedArtifacts(validIds: Set<string>): Promise<void> {
		try {
			const task = this.task as any
			const globalStoragePath = task.globalStoragePath
			const taskId = task.taskId
			if (!globalStoragePath || !taskId) {
				return
			}
			const taskDir = await getTaskDirectoryPath(globalStoragePath, taskId)
			const outputDir = path.join(taskDir, "command-output")
			await OutputInterceptor.cleanupByIds(outputDir, validIds)
		} catch (error) {
			console.debug("[MessageManager] Artifact cleanup skipped:", error)
		}
	}
}
