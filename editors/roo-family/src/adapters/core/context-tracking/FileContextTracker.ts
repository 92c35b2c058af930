// Adapter: Roo's FileContextTracker (src/core/context-tracking/FileContextTracker.ts) with the same
// exports and signatures, answered by roo-context (`roo/files/*`). The sidecar owns the task's
// `task_metadata.json` (the original's format, written crash-safe), the watcher, the
// recently-modified and checkpoint-possible sets and the telling of the agent's writes from the
// user's; the adapter translates. What the original keeps as I/O helpers (reading the metadata
// file) stays I/O: it reads the file the sidecar wrote.

import * as path from "path"
import * as vscode from "vscode"
import fs from "fs/promises"

import { getTaskDirectoryPath } from "../../utils/storage"
import { GlobalFileNames } from "../../shared/globalFileNames"
import { fileExistsAtPath } from "../../utils/fs"
import type { ContextProxy } from "../config/ContextProxy"
import type { ClineProvider } from "../webview/ClineProvider"
import type { RecordSource, TaskMetadata } from "./FileContextTrackerTypes"
import { callAsync, callSync, type Target } from "../../../bridge/sidecar"

export class FileContextTracker {
	readonly taskId: string
	private providerRef: WeakRef<ClineProvider>
	/** The task folder, once known (the sidecar opens the task from it on the first call). */
	private taskDir: string | undefined

	constructor(provider: ClineProvider, taskId: string) {
		this.providerRef = new WeakRef(provider)
		this.taskId = taskId
	}

	private getCwd(): string | undefined {
		const cwd = vscode.workspace.workspaceFolders?.map((folder) => folder.uri.fsPath).at(0)
		if (!cwd) {
			console.info("No workspace folder available - cannot determine current working directory")
		}
		return cwd
	}

	private target(cwd: string): Target {
		return { folders: [cwd] }
	}

	private async storageDir(taskId: string): Promise<string> {
		const globalStoragePath = this.getContextProxy()?.globalStorageUri.fsPath ?? ""
		const dir = await getTaskDirectoryPath(globalStoragePath, taskId)
		if (taskId === this.taskId) this.taskDir = dir
		return dir
	}

	/** The sidecar watches every tracked file itself (one recursive watcher, not one per file). */
	async setupFileWatcher(_filePath: string) {}

	async trackFileContext(filePath: string, operation: RecordSource) {
		try {
			if (!this.getCwd()) return
			await this.addFileToFileContextTracker(this.taskId, filePath, operation)
		} catch (error) {
			console.error("Failed to track file operation:", error)
		}
	}

	public getContextProxy(): ContextProxy | undefined {
		const provider = this.providerRef.deref()
		if (!provider) {
			console.error("ClineProvider reference is no longer valid")
			return undefined
		}
		const context = provider.contextProxy
		if (!context) {
			console.error("Context is not available")
			return undefined
		}
		return context
	}

	/** The task's metadata as the sidecar last wrote it. */
	async getTaskMetadata(taskId: string): Promise<TaskMetadata> {
		const filePath = path.join(await this.storageDir(taskId), GlobalFileNames.taskMetadata)
		try {
			if (await fileExistsAtPath(filePath)) {
				return JSON.parse(await fs.readFile(filePath, "utf8"))
			}
		} catch (error) {
			console.error("Failed to read task metadata:", error)
		}
		return { files_in_context: [] }
	}

	/**
	 * The sidecar is the only writer of `task_metadata.json` (a second writer would lose records
	 * under concurrent tracks, the original's race): saving a whole metadata object from outside
	 * is refused rather than done behind its back.
	 */
	async saveTaskMetadata(_taskId: string, _metadata: TaskMetadata) {
		console.error("Failed to save task metadata: roo-context owns task_metadata.json; use trackFileContext")
	}

	async addFileToFileContextTracker(taskId: string, filePath: string, source: RecordSource) {
		try {
			const cwd = this.getCwd()
			if (!cwd) return
			await callAsync(this.target(cwd), "roo/files/track", {
				taskId,
				storageDir: await this.storageDir(taskId),
				path: filePath,
				source,
				cwd,
			})
		} catch (error) {
			console.error("Failed to add file to metadata:", error)
		}
	}

	getAndClearRecentlyModifiedFiles(): string[] {
		return this.take("roo/files/takeRecentlyModified")
	}

	async getFilesReadByRoo(sinceTimestamp?: number): Promise<string[]> {
		try {
			const cwd = this.getCwd()
			if (!cwd) return []
			const answer = await callAsync<{ paths: string[] }>(this.target(cwd), "roo/files/read", {
				taskId: this.taskId,
				storageDir: await this.storageDir(this.taskId),
				...(sinceTimestamp ? { since: sinceTimestamp } : {}),
			})
			return answer.paths
		} catch (error) {
			console.error("Failed to get files read by Roo:", error)
			return []
		}
	}

	getAndClearCheckpointPossibleFile(): string[] {
		return this.take("roo/files/takeCheckpointPossible")
	}

	/** Synchronous, as the original: the mark is in place before the caller writes the file. */
	markFileAsEditedByRoo(filePath: string): void {
		const cwd = this.getCwd()
		if (!cwd || !this.taskDir) return
		try {
			callSync(this.target(cwd), "roo/files/markRooEdited", { taskId: this.taskId, path: filePath, cwd })
		} catch (error) {
			console.error("Failed to mark file as edited by Roo:", error)
		}
	}

	dispose(): void {
		const cwd = this.getCwd()
		if (!cwd || !this.taskDir) return
		callAsync(this.target(cwd), "roo/files/disposeTask", { taskId: this.taskId }).catch((error) =>
			console.error("Failed to dispose file context tracking:", error),
		)
	}

	/** A get-and-clear set of a task the sidecar knows (none before the first track). */
	private take(method: "roo/files/takeRecentlyModified" | "roo/files/takeCheckpointPossible"): string[] {
		const cwd = this.getCwd()
		if (!cwd || !this.taskDir) return []
		try {
			return callSync<{ paths: string[] }>(this.target(cwd), method, { taskId: this.taskId }).paths
		} catch (error) {
			console.error(`Failed to take ${method}:`, error)
			return []
		}
	}
}
