// Adapter: Roo's `checkContextWindowExceededError`
// (src/core/context/context-management/context-error-handling.ts), answered by roo-context
// (`roo/context/classifyError`, the original's three checks over the error as JSON).

import { callSync } from "../../../../bridge/sidecar"

export function checkContextWindowExceededError(error: unknown): boolean {
	return callSync<{ isContextWindowError: boolean }>({ folders: [] }, "roo/context/classifyError", {
		error: asJson(error, new Set(), 0) ?? null,
	}).isContextWindowError
}

/**
 * The error as JSON: own enumerable fields, plus `name` and `message` (an `Error`'s are not
 * enumerable). What JSON cannot hold is left out: functions, cycles, fields whose getter throws
 * (the original reads them in a `try` and gives up that check).
 */
function asJson(value: unknown, seen: Set<object>, depth: number): unknown {
	if (value === null || typeof value !== "object") {
		if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") return undefined
		if (typeof value === "number" && !Number.isFinite(value)) return null
		return value
	}
	if (seen.has(value) || depth > 8) return undefined
	seen.add(value)
	try {
		if (Array.isArray(value)) return value.map((item) => asJson(item, seen, depth + 1) ?? null)
		const out: Record<string, unknown> = {}
		const keys = new Set(Object.keys(value))
		for (const key of ["name", "message"]) if (key in value) keys.add(key)
		for (const key of keys) {
			let field: unknown
			try {
				field = (value as Record<string, unknown>)[key]
			} catch {
				continue
			}
			const json = asJson(field, seen, depth + 1)
			if (json !== undefined) out[key] = json
		}
		return out
	} finally {
		seen.delete(value)
	}
}
