// Derived from src/core/mentions/__tests__/processUserContentMentions.spec.ts (Roo Code 3.52.1,
// Zoo Code 3.80.0). The upstream spec mocks `parseMentions` (inside the boundary: the sidecar
// parses in its own process) and checks which blocks were handed to it and how its answer was
// placed. Here the same content goes through the real parse on a temporary workspace (a file
// mention, a folder with a `.rooignore`d entry, a real command file), so "handed to the parse"
// shows as the mention expanded and "placed" as the real file and command blocks. Passes against
// the original (--baseline) and the adapter.
import { describe, it, expect, vi, afterAll } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

vi.mock("vscode", () => ({
	workspace: {
		createFileSystemWatcher: vi.fn(() => ({
			onDidChange: vi.fn(() => ({ dispose: vi.fn() })),
			onDidCreate: vi.fn(() => ({ dispose: vi.fn() })),
			onDidDelete: vi.fn(() => ({ dispose: vi.fn() })),
			dispose: vi.fn(),
		})),
	},
	RelativePattern: vi.fn(),
}))

import { processUserContentMentions } from "../processUserContentMentions"
import { RooIgnoreController } from "../../ignore/RooIgnoreController"

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "user-content-mentions-")))
for (const [name, content] of Object.entries({
	"a.txt": "alpha\n",
	"docs/guide.md": "guide\n",
	"docs/secret.md": "hunter2\n",
	".rooignore": "docs/secret.md\n",
	".roo/commands/run.md": "---\ndescription: Run it\n---\n\nRun the thing.\n",
})) {
	fs.mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true })
	fs.writeFileSync(path.join(cwd, name), content)
}
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const fileBlock = "[read_file for 'a.txt']\nFile: a.txt\n1 | alpha\n2 | "
const commandHelp = '<command name="run">\nDescription: Run it\n\nRun the thing.\n</command>'
const tracker = () => ({ trackFileContext: vi.fn(async () => {}) }) as any

describe("processUserContentMentions (real parse)", () => {
	describe("content processing", () => {
		it("should process text blocks with <user_message> tags", async () => {
			const fileContextTracker = tracker()
			const result = await processUserContentMentions({
				userContent: [{ type: "text" as const, text: "<user_message>\nDo something with @/a.txt\n</user_message>" }],
				cwd,
				fileContextTracker,
			})
			expect(result.content).toEqual([
				{ type: "text", text: "<user_message>\nDo something with 'a.txt'\n</user_message>" },
				{ type: "text", text: fileBlock },
			])
			expect(fileContextTracker.trackFileContext).toHaveBeenCalledWith("a.txt", "file_mentioned")
			expect(result.mode).toBeUndefined()
		})

		it("should not process text blocks without user_message tags", async () => {
			const userContent = [{ type: "text" as const, text: "Regular text without special tags @/a.txt" }]
			const fileContextTracker = tracker()
			const result = await processUserContentMentions({ userContent, cwd, fileContextTracker })
			expect(result.content[0]).toEqual(userContent[0])
			expect(result.content).toHaveLength(1)
			expect(fileContextTracker.trackFileContext).not.toHaveBeenCalled()
			expect(result.mode).toBeUndefined()
		})

		it("should process tool_result blocks with string content", async () => {
			const result = await processUserContentMentions({
				userContent: [
					{ type: "tool_result" as const, tool_use_id: "123", content: "<user_message>\nTool feedback @/a.txt\n</user_message>" },
				],
				cwd,
				fileContextTracker: tracker(),
			})
			expect(result.content[0]).toEqual({
				type: "tool_result",
				tool_use_id: "123",
				content: [
					{ type: "text", text: "<user_message>\nTool feedback 'a.txt'\n</user_message>" },
					{ type: "text", text: fileBlock },
				],
			})
			expect(result.mode).toBeUndefined()
		})

		it("should process tool_result blocks with array content", async () => {
			const result = await processUserContentMentions({
				userContent: [
					{
						type: "tool_result" as const,
						tool_use_id: "123",
						content: [
							{ type: "text" as const, text: "<user_message>\nArray task @/a.txt\n</user_message>" },
							{ type: "text" as const, text: "Regular text @/a.txt" },
						],
					},
				],
				cwd,
				fileContextTracker: tracker(),
			})
			expect(result.content[0]).toEqual({
				type: "tool_result",
				tool_use_id: "123",
				content: [
					{ type: "text", text: "<user_message>\nArray task 'a.txt'\n</user_message>" },
					{ type: "text", text: fileBlock },
					{ type: "text", text: "Regular text @/a.txt" },
				],
			})
			expect(result.mode).toBeUndefined()
		})

		it("should handle mixed content types (text + image)", async () => {
			const userContent = [
				{ type: "text" as const, text: "<user_message>\nFirst task @/a.txt\n</user_message>" },
				{ type: "image" as const, image: "base64data", mediaType: "image/png" },
			]
			const result = await processUserContentMentions({ userContent: userContent as any, cwd, fileContextTracker: tracker() })
			expect(result.content).toHaveLength(3)
			expect(result.content[0]).toEqual({ type: "text", text: "<user_message>\nFirst task 'a.txt'\n</user_message>" })
			expect(result.content[1]).toEqual({ type: "text", text: fileBlock })
			expect(result.content[2]).toEqual(userContent[1])
			expect(result.mode).toBeUndefined()
		})
	})

	describe("showRooIgnoredFiles parameter", () => {
		async function folderListing(showRooIgnoredFiles?: boolean) {
			const rooIgnoreController = new RooIgnoreController(cwd)
			await rooIgnoreController.initialize()
			const result = await processUserContentMentions({
				userContent: [{ type: "text" as const, text: "<user_message>\nTest @/docs/\n</user_message>" }],
				cwd,
				fileContextTracker: tracker(),
				rooIgnoreController,
				...(showRooIgnoredFiles === undefined ? {} : { showRooIgnoredFiles }),
			})
			rooIgnoreController.dispose()
			return (result.content[1] as any).text as string
		}

		it("should default showRooIgnoredFiles to false", async () => {
			const listing = await folderListing()
			expect(listing).toContain("[read_file for folder 'docs/']\nFolder listing:\n")
			expect(listing).toContain("guide.md")
			expect(listing).not.toContain("secret.md")
			expect(listing).not.toContain("hunter2")
		})

		it("should respect showRooIgnoredFiles when explicitly set to false", async () => {
			const listing = await folderListing(false)
			expect(listing).toContain("guide.md")
			expect(listing).not.toContain("secret.md")
			// Shown with the lock when asked for, and still not read.
			const shown = await folderListing(true)
			expect(shown).toContain("\u{1F512} secret.md")
			expect(shown).not.toContain("hunter2")
		})
	})

	describe("slash command content processing", () => {
		it("should separate slash command content into a new block", async () => {
			const result = await processUserContentMentions({
				userContent: [{ type: "text" as const, text: "<user_message>\nRun command /run\n</user_message>" }],
				cwd,
				fileContextTracker: tracker(),
			})
			expect(result.content).toHaveLength(2)
			expect((result.content[0] as any).text).toContain("Command 'run' (see below for command content)")
			expect(result.content[1]).toEqual({ type: "text", text: commandHelp })
		})

		it("should include slash command content in tool_result string content", async () => {
			const result = await processUserContentMentions({
				userContent: [{ type: "tool_result" as const, tool_use_id: "123", content: "<user_message>\nTool output /run\n</user_message>" }],
				cwd,
				fileContextTracker: tracker(),
			})
			expect(result.content).toHaveLength(1)
			const content = (result.content[0] as any).content
			expect(content).toHaveLength(2)
			expect(content[0].text).toContain("Command 'run' (see below for command content)")
			expect(content[1]).toEqual({ type: "text", text: commandHelp })
		})

		it("should include slash command content in tool_result array content", async () => {
			const result = await processUserContentMentions({
				userContent: [
					{
						type: "tool_result" as const,
						tool_use_id: "123",
						content: [{ type: "text" as const, text: "<user_message>\nArray item /run\n</user_message>" }],
					},
				],
				cwd,
				fileContextTracker: tracker(),
			})
			expect(result.content).toHaveLength(1)
			const content = (result.content[0] as any).content
			expect(content).toHaveLength(2)
			expect(content[0].text).toContain("Command 'run' (see below for command content)")
			expect(content[1]).toEqual({ type: "text", text: commandHelp })
		})
	})
})
