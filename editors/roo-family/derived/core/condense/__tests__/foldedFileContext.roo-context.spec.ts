// Derived from src/core/condense/__tests__/foldedFileContext.spec.ts (Roo Code 3.52.1, Zoo Code
// 3.80.0), its generateFoldedFileContext cases: the same files, budgets and expectations, but
// the definitions come from real source files in a temporary folder instead of a mocked
// `parseSourceCodeDefinitionsForFile` (the sidecar reads and outlines the files in its own
// process). The upstream mock's definitions are reproduced by files that have them; a file the
// mock made "throw" is a folder, and the mock's error strings are a missing file and an
// unsupported extension. Passes against the original (--baseline) and the adapter.
import { describe, it, expect, beforeAll, afterAll } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"

import { generateFoldedFileContext } from "../foldedFileContext"

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "folded-context-")))
const at = (name: string) => path.join(cwd, name)
const files: Record<string, string> = {
	"user.ts":
		"export interface User {\n  id: string\n  name: string\n}\n\nexport function createUser(name: string): User {\n  const id = String(Date.now())\n  const user = { id, name }\n  return user\n}\n\nexport class UserService {\n  private users: User[] = []\n\n  add(user: User): void {\n    this.users.push(user)\n  }\n}\n",
	"utils.js":
		"function greet(name) {\n  const text = `Hello ${name}`\n  console.log(text)\n  return text\n}\n\nclass Calculator {\n  add(a, b) {\n    const sum = a + b\n    return sum\n  }\n}\n",
	"existing.ts": "export function x() {\n  const value = 1\n  return value\n}\n",
	"unsupported.txt": "plain text\n",
	"person.py":
		"def greet(name):\n    text = f'Hello {name}'\n    print(text)\n    return text\n\nclass Person:\n    def __init__(self, name):\n        self.name = name\n\n    def hello(self):\n        return greet(self.name)\n",
	"src/utils/helpers.ts": "export function helper() {\n  const value = 1\n  return value\n}\n",
	"api.ts": "export async function fetchData(url: string): Promise<any> {\n  const response = await fetch(url)\n  const body = await response.json()\n  return body\n}\n",
	"models.ts": "export interface DataModel {\n  id: string\n  value: number\n  label: string\n}\n",
	"file.xyz": "unsupported\n",
}
const longFile = (n: number) =>
	[1, 2, 3]
		.map((i) => `export function longFunctionName${n}_${i}() {\n  const value = ${i}\n  const other = value * 2\n  return other\n}\n`)
		.join("\n")

beforeAll(async () => {
	for (const [name, content] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(at(name)), { recursive: true })
		fs.writeFileSync(at(name), content)
	}
	for (const n of [1, 2, 3]) fs.writeFileSync(at(`file${n}.ts`), longFile(n))
	fs.writeFileSync(at("wide1.ts"), `export function wide() {\n  const x = "${"x".repeat(300)}"\n  return x\n}\n`)
	fs.writeFileSync(at("wide2.ts"), `export function wide() {\n  const x = "${"x".repeat(300)}"\n  return x\n}\n`)
	fs.mkdirSync(at("non-existent.ts"))
	// As the upstream tree-sitter helpers do: the grammars are built into dist/.
	// The original loads them with `require("web-tree-sitter")`, so its CommonJS instance is patched.
	const { Language } = createRequire(__filename)("web-tree-sitter")
	if (!Language.load.redirected) {
		const load = Language.load
		Language.load = async (wasmPath: string) => load(path.join(process.cwd(), "dist", path.basename(wasmPath)))
		Language.load.redirected = true
	}
})
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

describe("foldedFileContext (real files)", () => {
	describe("generateFoldedFileContext", () => {
		it("should return empty content for empty file list", async () => {
			const result = await generateFoldedFileContext([], { cwd })
			expect(result.content).toBe("")
			expect(result.sections).toEqual([])
			expect(result.filesProcessed).toBe(0)
			expect(result.filesSkipped).toBe(0)
			expect(result.characterCount).toBe(0)
		})

		it("should generate folded context for a TypeScript file with its own system-reminder block", async () => {
			const result = await generateFoldedFileContext([at("user.ts")], { cwd })
			expect(result.content).toContain("<system-reminder>")
			expect(result.content).toContain("</system-reminder>")
			expect(result.content).toContain(`## File Context: ${at("user.ts")}`)
			expect(result.content).toContain("interface User")
			expect(result.content).toContain("function createUser")
			expect(result.content).toContain("class UserService")
			expect(result.filesProcessed).toBe(1)
			expect(result.filesSkipped).toBe(0)
		})

		it("should generate folded context for a JavaScript file with its own system-reminder block", async () => {
			const result = await generateFoldedFileContext([at("utils.js")], { cwd })
			expect(result.content).toContain("<system-reminder>")
			expect(result.content).toContain(`## File Context: ${at("utils.js")}`)
			expect(result.content).toContain("function greet")
			expect(result.content).toContain("class Calculator")
			expect(result.filesProcessed).toBe(1)
		})

		it("should skip files when parseSourceCodeDefinitions returns undefined", async () => {
			const result = await generateFoldedFileContext([at("existing.ts"), at("unsupported.txt")], { cwd })
			expect(result.filesProcessed).toBe(1)
			expect(result.filesSkipped).toBe(1)
		})

		it("should skip files when parseSourceCodeDefinitions throws an error", async () => {
			const result = await generateFoldedFileContext([at("existing.ts"), at("non-existent.ts")], { cwd })
			expect(result.filesProcessed).toBe(1)
			expect(result.filesSkipped).toBe(1)
		})

		it("should skip files when parseSourceCodeDefinitions returns error strings", async () => {
			const result = await generateFoldedFileContext([at("existing.ts"), at("missing.ts"), at("file.xyz")], { cwd })
			expect(result.filesProcessed).toBe(1)
			expect(result.filesSkipped).toBe(2)
			expect(result.content).not.toContain("does not exist")
			expect(result.content).not.toContain("do not have permission")
			expect(result.content).not.toContain("Unsupported file type")
			expect(result.content).toContain(`## File Context: ${at("existing.ts")}`)
			expect(result.content).toContain("export function x()")
		})

		it("should respect character budget limit", async () => {
			// Relative paths: the headers as short as the upstream's `/test/file1.ts` (the original
			// does not re-check the cap after truncating, so a long header could pass it).
			const result = await generateFoldedFileContext(["file1.ts", "file2.ts", "file3.ts"], {
				cwd,
				maxCharacters: 200,
			})
			expect(result.characterCount).toBeLessThanOrEqual(200)
			expect(result.filesSkipped).toBeGreaterThan(0)
		})

		it("should handle Python files with its own system-reminder block", async () => {
			const result = await generateFoldedFileContext([at("person.py")], { cwd })
			expect(result.content).toContain("<system-reminder>")
			expect(result.content).toContain(`## File Context: ${at("person.py")}`)
			expect(result.content).toContain("def greet")
			expect(result.content).toContain("class Person")
			expect(result.filesProcessed).toBe(1)
		})

		it("should include file path in the File Context header", async () => {
			const result = await generateFoldedFileContext([at("src/utils/helpers.ts")], { cwd })
			expect(result.content).toContain(`## File Context: ${at("src/utils/helpers.ts")}`)
		})

		it("should generate separate system-reminder blocks for multiple files", async () => {
			const result = await generateFoldedFileContext([at("api.ts"), at("models.ts")], { cwd })
			expect(result.content.match(/<system-reminder>/g)).toHaveLength(2)
			expect(result.sections).toHaveLength(2)
			expect(result.sections[0]).toContain(`## File Context: ${at("api.ts")}`)
			expect(result.sections[1]).toContain(`## File Context: ${at("models.ts")}`)
			expect(result.content).toContain("fetchData")
			expect(result.content).toContain("interface DataModel")
			expect(result.filesProcessed).toBe(2)
		})

		it("should truncate content when approaching character limit", async () => {
			const result = await generateFoldedFileContext([at("wide1.ts"), at("wide2.ts")], { cwd, maxCharacters: 350 })
			expect(result.filesProcessed + result.filesSkipped).toBe(2)
		})
	})
})
