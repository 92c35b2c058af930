// Differential suite for parseSourceCodeDefinitionsForFile (src/services/tree-sitter/index.ts).
// The tree-sitter service's own specs inject a wasm parser and query into a mocked
// `loadRequiredLanguageParsers` and a mocked `fs`, which a sidecar parsing in its own process
// cannot see. Here every upstream fixture (`fixtures/sample-*.ts`, plus the Markdown of
// markdownIntegration.spec.ts) is written to a real file and given to the original, loaded
// un-swapped with `?roo-original` and running its real parser loader, and to the module the
// suite imports (the adapter when swapped, the original again under --baseline), at the
// production minimum (4 lines) and at the upstream specs' minimum (0). Outputs must be equal,
// except where DIFFERENCES argues why the sidecar's output differs; an argued difference must
// still be a difference (so the list cannot go stale). Per-language agreement (lines in both
// outputs over lines in either) is written to ROO_FAMILY_DIFFERENTIAL when set.
import { describe, it, expect, beforeAll, afterAll } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Language } from "web-tree-sitter"

import * as swapped from "../index"
import * as original from "../index?roo-original"

const fixtures = path.join(__dirname, "fixtures")
const EXTENSION: Record<string, string> = {
	"c-sharp": "cs", c: "c", cpp: "cpp", css: "css", dart: "dart", elisp: "el", elixir: "ex",
	embedded_template: "ejs", go: "go", html: "html", java: "java", javascript: "js", json: "json",
	kotlin: "kt", lua: "lua", ocaml: "ml", php: "php", python: "py", ruby: "rb", rust: "rs",
	scala: "scala", solidity: "sol", swift: "swift", systemrdl: "rdl", tlaplus: "tla", toml: "toml",
	tsx: "tsx", typescript: "ts", vue: "vue", zig: "zig",
}
const MARKDOWN =
	"# Main Header\n\nThis is some content under the main header.\nIt spans multiple lines to meet the minimum section length.\n\n## Section 1\n\nThis is content for section 1.\nIt also spans multiple lines.\n\n### Subsection 1.1\n\nThis is a subsection with enough lines\nto meet the minimum section length requirement.\n\n## Section 2\n\nFinal section content.\nWith multiple lines.\n"

/** `<language>@<min lines>` → why the sidecar's output differs from the original's. */
const DIFFERENCES: Record<string, string> = {}

const swappedRun = process.env.ROO_FAMILY_SWAP === "1"
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fold-differential-")))
const agreement: Record<string, { same: number; either: number; equal: boolean }> = {}

const languages = fs
	.readdirSync(fixtures)
	.map((name) => /^sample-(.+)\.ts$/.exec(name)?.[1])
	.filter((language): language is string => !!language && language in EXTENSION)
	.sort()

beforeAll(async () => {
	// As the upstream helpers do: the grammars are built into dist/, not next to the module.
	const load = Language.load
	;(Language as any).load = async (wasmPath: string) => load(path.join(process.cwd(), "dist", path.basename(wasmPath)))
})

afterAll(() => {
	fs.rmSync(dir, { recursive: true, force: true })
	if (process.env.ROO_FAMILY_DIFFERENTIAL) {
		fs.writeFileSync(process.env.ROO_FAMILY_DIFFERENTIAL, JSON.stringify(agreement, null, 2))
	}
})

async function both(file: string, minLines: number) {
	original.setMinComponentLines(minLines)
	swapped.setMinComponentLines(minLines)
	try {
		return {
			expected: await original.parseSourceCodeDefinitionsForFile(file),
			actual: await swapped.parseSourceCodeDefinitionsForFile(file),
		}
	} finally {
		original.setMinComponentLines(4)
		swapped.setMinComponentLines(4)
	}
}

function compare(key: string, expected: string | undefined, actual: string | undefined) {
	const a = new Set((expected ?? "").split("\n").filter(Boolean))
	const b = new Set((actual ?? "").split("\n").filter(Boolean))
	const same = [...a].filter((line) => b.has(line)).length
	agreement[key] = { same, either: new Set([...a, ...b]).size, equal: expected === actual }
	if (swappedRun && key in DIFFERENCES) expect(actual, DIFFERENCES[key]).not.toBe(expected)
	else expect(actual).toBe(expected)
}

describe("parseSourceCodeDefinitionsForFile: the sidecar against the original", () => {
	for (const language of [...languages, "markdown"]) {
		for (const minLines of [4, 0]) {
			it(`${language} (min ${minLines} lines)`, async () => {
				const file = path.join(dir, `file.${language === "markdown" ? "md" : EXTENSION[language]}`)
				const content =
					language === "markdown"
						? MARKDOWN
						: ((await import(path.join(fixtures, `sample-${language}.ts`))).default as string)
				fs.writeFileSync(file, content)
				const { expected, actual } = await both(file, minLines)
				compare(`${language}@${minLines}`, expected, actual)
			})
		}
	}
})
