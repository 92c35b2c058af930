// Derived from Zoo Code 3.80.0's src/core/context-tracking/__tests__/FileContextTracker.spec.ts:
// the same inputs and the same expected records, but on real temporary files instead of mocked
// `safeWriteJson` and `fs/promises` (a sidecar writes the file in another process, where those
// mocks cannot see). run.sh copies this file next to the upstream specs; it passes against the
// original module (--baseline) and against the adapter, which is the parity being checked.
import { describe, it, expect, vi, beforeEach } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const dirs = vi.hoisted(() => {
	const fs = require("node:fs") as typeof import("node:fs")
	const os = require("node:os") as typeof import("node:os")
	const path = require("node:path") as typeof import("node:path")
	const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fct-workspace-")))
	const storage = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fct-storage-")))
	return { workspace, storage }
})

vi.mock("vscode", () => ({
	workspace: {
		workspaceFolders: [{ uri: { fsPath: dirs.workspace } }],
		createFileSystemWatcher: vi.fn().mockReturnValue({
			onDidChange: vi.fn(),
			onDidCreate: vi.fn(),
			onDidDelete: vi.fn(),
			dispose: vi.fn(),
		}),
	},
	Uri: { file: vi.fn((p: string) => ({ fsPath: p })) },
	RelativePattern: vi.fn(),
}))

vi.mock("../../../utils/storage", () => ({
	getTaskDirectoryPath: vi.fn(async (_global: string, taskId: string) => {
		const dir = path.join(dirs.storage, "tasks", taskId)
		fs.mkdirSync(dir, { recursive: true })
		return dir
	}),
}))

import { FileContextTracker } from "../FileContextTracker"

const provider = { contextProxy: { globalStorageUri: { fsPath: dirs.storage } } } as any
let taskNumber = 0

/** Returns once the clock has moved to the next millisecond (records are dated in ms). */
function nextMillisecond() {
	const now = Date.now()
	while (Date.now() === now) {}
}

function metadataOf(taskId: string) {
	return JSON.parse(fs.readFileSync(path.join(dirs.storage, "tasks", taskId, "task_metadata.json"), "utf8"))
}

describe("FileContextTracker.addFileToFileContextTracker (derived, real files)", () => {
	let taskId: string
	let tracker: FileContextTracker

	beforeEach(() => {
		taskId = `task-${++taskNumber}`
		fs.writeFileSync(path.join(dirs.workspace, "foo.ts"), "export const foo = 1\n")
		tracker = new FileContextTracker(provider, taskId)
	})

	it("creates a new active entry with record_source set to the given source", async () => {
		await tracker.addFileToFileContextTracker(taskId, "foo.ts", "read_tool")

		const entry = metadataOf(taskId).files_in_context[0]
		expect(metadataOf(taskId).files_in_context).toHaveLength(1)
		expect(entry.path).toBe("foo.ts")
		expect(entry.record_state).toBe("active")
		expect(entry.record_source).toBe("read_tool")
		expect(entry.roo_read_date).toBeTypeOf("number")
		tracker.dispose()
	})

	it("marks existing active entries as stale before adding the new entry", async () => {
		const dir = path.join(dirs.storage, "tasks", taskId)
		fs.mkdirSync(dir, { recursive: true })
		fs.writeFileSync(
			path.join(dir, "task_metadata.json"),
			JSON.stringify({ files_in_context: [{ path: "foo.ts", record_state: "active", record_source: "read_tool" }] }),
		)

		await tracker.addFileToFileContextTracker(taskId, "foo.ts", "roo_edited")

		const written = metadataOf(taskId)
		expect(written.files_in_context[0].record_state).toBe("stale")
		expect(written.files_in_context[1].record_state).toBe("active")
		expect(written.files_in_context[1].record_source).toBe("roo_edited")
		expect(tracker.getAndClearCheckpointPossibleFile()).toEqual(["foo.ts"])
		expect(tracker.getAndClearCheckpointPossibleFile()).toEqual([])
		tracker.dispose()
	})

	it("lists the files read, newest first, each once, and not the ones only edited", async () => {
		fs.writeFileSync(path.join(dirs.workspace, "bar.ts"), "export const bar = 2\n")
		fs.writeFileSync(path.join(dirs.workspace, "baz.ts"), "export const baz = 3\n")
		await tracker.addFileToFileContextTracker(taskId, "foo.ts", "read_tool")
		await tracker.addFileToFileContextTracker(taskId, "baz.ts", "roo_edited")
		nextMillisecond() // distinct read dates
		await tracker.addFileToFileContextTracker(taskId, "bar.ts", "file_mentioned")
		nextMillisecond()
		await tracker.addFileToFileContextTracker(taskId, "foo.ts", "read_tool")

		expect(await tracker.getFilesReadByRoo()).toEqual(["foo.ts", "bar.ts"])
		tracker.dispose()
	})
})
