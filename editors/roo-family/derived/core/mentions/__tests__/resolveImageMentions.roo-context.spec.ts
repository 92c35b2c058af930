// Derived from src/core/mentions/__tests__/resolveImageMentions.spec.ts (Roo Code 3.52.1, Zoo
// Code 3.80.0): the same messages and expectations, but on real image files in a temporary
// workspace (with a real `.rooignore` and RooIgnoreController, and real size limits) instead of
// mocked `imageHelpers`: the sidecar reads and measures the files in its own process, where
// those mocks cannot reach. Passes against the original (--baseline) and the adapter.
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

import { resolveImageMentions } from "../resolveImageMentions"
import { RooIgnoreController } from "../../ignore/RooIgnoreController"

const made: string[] = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

function workspace(files: Record<string, string>): string {
	const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "image-mentions-")))
	made.push(cwd)
	for (const [name, content] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true })
		fs.writeFileSync(path.join(cwd, name), content)
	}
	return cwd
}

const dataUrl = (mime: string, bytes: string) => `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`

describe("resolveImageMentions (real files)", () => {
	it("should append a data URL when a local png mention is present", async () => {
		const cwd = workspace({ "assets/cat.png": "png-bytes" })
		const result = await resolveImageMentions({ text: "Please look at @/assets/cat.png", images: [], cwd })
		expect(result.text).toBe("Please look at @/assets/cat.png")
		expect(result.images).toEqual([dataUrl("image/png", "png-bytes")])
	})

	it("should support gif images (matching read_file)", async () => {
		const cwd = workspace({ "animation.gif": "gif-bytes" })
		const result = await resolveImageMentions({ text: "See @/animation.gif", images: [], cwd })
		expect(result.images).toEqual([dataUrl("image/gif", "gif-bytes")])
	})

	it("should support svg images (matching read_file)", async () => {
		const cwd = workspace({ "icon.svg": "svg-bytes" })
		const result = await resolveImageMentions({ text: "See @/icon.svg", images: [], cwd })
		expect(result.images).toEqual([dataUrl("image/svg+xml", "svg-bytes")])
	})

	it("should ignore non-image mentions", async () => {
		const cwd = workspace({ "src/index.ts": "export {}" })
		const result = await resolveImageMentions({ text: "See @/src/index.ts", images: [], cwd })
		expect(result.images).toEqual([])
	})

	it("should skip unreadable files (fail-soft)", async () => {
		const cwd = workspace({})
		const result = await resolveImageMentions({ text: "See @/missing.webp", images: [], cwd })
		expect(result.images).toEqual([])
	})

	it("should respect rooIgnoreController", async () => {
		const cwd = workspace({ "secret.jpg": "jpg-bytes", ".rooignore": "secret.jpg\n" })
		const rooIgnoreController = new RooIgnoreController(cwd)
		await rooIgnoreController.initialize()
		const result = await resolveImageMentions({ text: "See @/secret.jpg", images: [], cwd, rooIgnoreController })
		expect(result.images).toEqual([])
		rooIgnoreController.dispose()
	})

	it("should dedupe when mention repeats", async () => {
		const cwd = workspace({ "a.png": "png-bytes" })
		const result = await resolveImageMentions({ text: "@/a.png and again @/a.png", images: [], cwd })
		expect(result.images).toHaveLength(1)
	})

	it("should skip images when supportsImages is false", async () => {
		const cwd = workspace({ "cat.png": "png-bytes" })
		const result = await resolveImageMentions({ text: "See @/cat.png", images: [], cwd, supportsImages: false })
		expect(result.images).toEqual([])
	})

	it("should skip images that exceed size limits", async () => {
		// 2 KiB against a per-image limit of 1 KiB.
		const cwd = workspace({ "huge.png": "x".repeat(2048) })
		const result = await resolveImageMentions({ text: "See @/huge.png", images: [], cwd, maxImageFileSize: 1 / 1024 })
		expect(result.images).toEqual([])
	})

	it("should skip images that would exceed memory limit", async () => {
		// Within the per-image limit, beyond the total of 1 KiB.
		const cwd = workspace({ "large.png": "x".repeat(2048) })
		const result = await resolveImageMentions({ text: "See @/large.png", images: [], cwd, maxTotalImageSize: 1 / 1024 })
		expect(result.images).toEqual([])
	})

	it("should pass custom size limits to validation", async () => {
		// 2 KiB: refused at 1 KiB, accepted with the custom limits of the upstream test.
		const cwd = workspace({ "cat.png": "x".repeat(2048) })
		const small = await resolveImageMentions({ text: "See @/cat.png", images: [], cwd, maxImageFileSize: 1 / 1024 })
		expect(small.images).toEqual([])
		const result = await resolveImageMentions({
			text: "See @/cat.png",
			images: [],
			cwd,
			maxImageFileSize: 10,
			maxTotalImageSize: 50,
		})
		expect(result.images).toEqual([dataUrl("image/png", "x".repeat(2048))])
	})
})
