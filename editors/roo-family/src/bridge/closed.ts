// What the host does when the sidecar cannot answer: access checks and write protection fail
// closed (every path blocked, every file protected: the adapters return `closed(...)`'s fallback),
// and the user sees one error per outage that names the cause and offers a restart. The sidecar is
// never restarted behind the user's back (sidecar.ts latches the outage), so access that was closed
// stays closed until the user reopens it.

import * as vscode from "vscode"

import { onUnavailable, restart, unavailable } from "./sidecar"

export const RESTART = "Restart roo-context"

let noticeRegistered = false

/** Shows the outage to the user once per outage (registered by the first adapter that needs it). */
export function registerNotice(): void {
	if (noticeRegistered) return
	noticeRegistered = true
	onUnavailable((cause) => {
		const text =
			`roo-context cannot run (${cause}). File access and write protection are closed: ` +
			`every file is blocked and protected until it runs again.`
		console.error(text)
		Promise.resolve(vscode.window.showErrorMessage(text, RESTART)).then(
			(choice) => {
				if (choice === RESTART) restart()
			},
			() => {},
		)
	})
}

/** The cause to name in a closed answer's text. */
export function cause(error: unknown): string {
	return unavailable() ?? String((error as Error)?.message ?? error)
}

/**
 * Runs an access or protection check; any failure (the sidecar unavailable, or an answer that
 * is not what was asked) gives `fallback`, the closed answer, never an open one.
 */
export function closed<T>(fallback: (cause: string) => T, check: () => T): T {
	registerNotice()
	try {
		return check()
	} catch (error) {
		// The negative control (run.sh --control) must see every call that reached the sidecar
		// fail; a closed answer could match what a test expects, so there the error stays an error
		// (which is not an open answer either).
		if (process.env.ROO_FAMILY_CONTROL === "1") throw error
		console.error(`roo-context: failing closed: ${cause(error)}`)
		return fallback(cause(error))
	}
}
