// Adapter: Roo's `mergeConsecutiveApiMessages` (src/core/task/mergeConsecutiveApiMessages.ts),
// answered by roo-context (`roo/history/merge`). Like the original, an unchanged history comes
// back as the same array.

import type { ApiMessage } from "../task-persistence"

import { callSync } from "../../../bridge/sidecar"

type Role = ApiMessage["role"]

export function mergeConsecutiveApiMessages(messages: ApiMessage[], options?: { roles?: Role[] }): ApiMessage[] {
	if (messages.length <= 1) {
		return messages
	}
	const answer = callSync<{ changed: boolean; messages: ApiMessage[] }>({ folders: [] }, "roo/history/merge", {
		messages,
		roles: options?.roles ?? ["user"],
	})
	return answer.changed ? answer.messages : messages
}
