// Adapter: Roo's RooIgnoreController (src/core/ignore/RooIgnoreController.ts) with the same
// exports, signatures and synchronous methods, answered by roo-context. The host's part stays
// here: reading `.rooignore` through the host's file system (the one the agent uses, mocked or
// not) and watching it; the text goes to the sidecar (`roo/ignore/setRules`), which decides every
// path and command (`roo/ignore/validateAccess`, `filterPaths`, `validateCommand`) and writes the
// instructions.

import path from "path"
import fs from "fs/promises"
import * as vscode from "vscode"

import { fileExistsAtPath } from "../../utils/fs"
import { callSync, type Target } from "../../../bridge/sidecar"
import { closed } from "../../../bridge/closed"

export const LOCK_TEXT_SYMBOL = "\u{1F512}"

export class RooIgnoreController {
	private cwd: string
	private target: Target
	private disposables: vscode.Disposable[] = []
	rooIgnoreContent: string | undefined

	constructor(cwd: string) {
		this.cwd = cwd
		this.target = { folders: [cwd] }
		this.rooIgnoreContent = undefined
		// Until initialize() reads it, the host has no ignore file for this folder.
		this.setRules(undefined)
		this.setupFileWatcher()
	}

	async initialize(): Promise<void> {
		await this.loadRooIgnore()
	}

	private setupFileWatcher(): void {
		const rooignorePattern = new vscode.RelativePattern(this.cwd, ".rooignore")
		const fileWatcher = vscode.workspace.createFileSystemWatcher(rooignorePattern)
		this.disposables.push(
			fileWatcher.onDidChange(() => {
				this.loadRooIgnore()
			}),
			fileWatcher.onDidCreate(() => {
				this.loadRooIgnore()
			}),
			fileWatcher.onDidDelete(() => {
				this.loadRooIgnore()
			}),
		)
		this.disposables.push(fileWatcher)
	}

	private async loadRooIgnore(): Promise<void> {
		try {
			const ignorePath = path.join(this.cwd, ".rooignore")
			const content = (await fileExistsAtPath(ignorePath)) ? await fs.readFile(ignorePath, "utf8") : undefined
			this.rooIgnoreContent = content
			this.setRules(content)
		} catch (error) {
			console.error("Unexpected error loading .rooignore:", error)
		}
	}

	private setRules(content: string | undefined) {
		// Without the sidecar nothing is read anyway (every check below fails closed).
		closed(
			() => undefined,
			() =>
				callSync(this.target, "roo/ignore/setRules", {
					folder: this.cwd,
					file: ".rooignore",
					content: content ?? null,
				}),
		)
	}

	/** Whether the agent may read `filePath` (relative to cwd); false when the sidecar cannot say. */
	validateAccess(filePath: string): boolean {
		return closed(
			() => false,
			() => {
				const answer = callSync<{ results: Array<{ allowed: boolean }> }>(
					this.target,
					"roo/ignore/validateAccess",
					{ paths: [filePath], cwd: this.cwd },
				)
				return answer.results[0].allowed === true
			},
		)
	}

	/**
	 * The offending argument of a command that would read a blocked file, else undefined. A
	 * command whose reads cannot be known is not allowed either: the construct is returned.
	 */
	validateCommand(command: string): string | undefined {
		return closed(
			() => command,
			() => this.vetCommand(command),
		)
	}

	private vetCommand(command: string): string | undefined {
		const answer = callSync<{ verdict: string; blockedPath?: string | null; snippet?: string; construct?: string }>(
			this.target,
			"roo/ignore/validateCommand",
			{ command, cwd: this.cwd },
		)
		switch (answer.verdict) {
			case "allowed":
				return undefined
			case "blocked":
				return answer.blockedPath ?? command
			default:
				return answer.snippet ?? answer.construct ?? command
		}
	}

	/** The paths the agent may see; none when the sidecar cannot say. */
	filterPaths(paths: string[]): string[] {
		if (paths.length === 0) return []
		return closed(
			() => [],
			() => callSync<{ paths: string[] }>(this.target, "roo/ignore/filterPaths", { paths, cwd: this.cwd }).paths,
		)
	}

	dispose(): void {
		this.disposables.forEach((d) => d.dispose())
		this.disposables = []
	}

	getInstructions(): string | undefined {
		return closed(
			(cause) =>
				`# .rooignore\n\nroo-context cannot run (${cause}): access to every file in this workspace is ` +
				`blocked until it runs again. Do not try to read, list or search files.`,
			() =>
				callSync<{ instructions: string | null }>(this.target, "roo/ignore/instructions", { cwd: this.cwd })
					.instructions ?? undefined,
		)
	}
}
