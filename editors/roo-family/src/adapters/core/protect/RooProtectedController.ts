// Adapter: Roo's RooProtectedController (src/core/protect/RooProtectedController.ts) with the same
// exports and signatures, answered by roo-context (`roo/protect/*`). Translation only: which
// paths are protected, the patterns and the texts are the sidecar's.

import { callSync, type Target } from "../../../bridge/sidecar"
import { closed } from "../../../bridge/closed"

export const SHIELD_SYMBOL = "\u{1F6E1}"

interface ProtectInstructions {
	instructions: string
	patterns: string[]
	message: string
}

export class RooProtectedController {
	private cwd: string
	private target: Target

	constructor(cwd: string) {
		this.cwd = cwd
		this.target = { folders: [cwd] }
	}

	/** Whether `filePath` (relative to cwd) is write-protected. */
	isWriteProtected(filePath: string): boolean {
		return this.check([filePath])[0]
	}

	/** The protected paths among `paths`. */
	getProtectedFiles(paths: string[]): Set<string> {
		const flags = this.check(paths)
		return new Set(paths.filter((_, i) => flags[i]))
	}

	/** Each path with its protection. */
	annotatePathsWithProtection(paths: string[]): Array<{ path: string; isProtected: boolean }> {
		const flags = this.check(paths)
		return paths.map((filePath, i) => ({ path: filePath, isProtected: flags[i] }))
	}

	getProtectionMessage(): string {
		return instructions(this.target).message
	}

	getInstructions(): string {
		return instructions(this.target).instructions
	}

	static getProtectedPatterns(): readonly string[] {
		return instructions({ folders: [process.cwd()] }).patterns
	}

	/** Each path's protection; every path protected when the sidecar cannot say. */
	private check(paths: string[]): boolean[] {
		if (paths.length === 0) return []
		return closed(
			() => paths.map(() => true),
			() => {
				const answer = callSync<{ results: Array<{ isProtected: boolean }> }>(this.target, "roo/protect/check", {
					paths,
					cwd: this.cwd,
				})
				return paths.map((_, i) => answer.results[i]?.isProtected !== false)
			},
		)
	}
}

function instructions(target: Target): ProtectInstructions {
	return closed(
		(cause) => ({
			instructions:
				`# Write protection\n\nroo-context cannot run (${cause}): every file in this workspace is ` +
				`write-protected until it runs again.`,
			patterns: ["**"],
			message: `roo-context cannot run (${cause}): every file is write-protected`,
		}),
		() => callSync<ProtectInstructions>(target, "roo/protect/instructions", {}),
	)
}
