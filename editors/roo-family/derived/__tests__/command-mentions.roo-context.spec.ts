// Derived from src/__tests__/command-mentions.spec.ts (Roo Code 3.52.1, Zoo Code 3.80.0): the
// same messages and the same expectations, but the commands are real files in
// `<cwd>/.roo/commands/` (and a skill a real `SKILL.md` read by the real SkillsManager) instead
// of a mocked `getCommand` and a mocked skills manager, which a sidecar reading the folders in
// its own process cannot see. Passes against the original (--baseline) and the adapter.
import { describe, it, expect, afterAll } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

import { parseMentions } from "../core/mentions"
import { SkillsManager } from "../services/skills/SkillsManager"

const made: string[] = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

/** A workspace whose `.roo/commands/<name>.md` hold `commands` (a `null` content: a folder). */
function workspace(commands: Record<string, string | null>, skills: Record<string, string> = {}): string {
	const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "command-mentions-")))
	made.push(cwd)
	const folder = path.join(cwd, ".roo", "commands")
	fs.mkdirSync(folder, { recursive: true })
	for (const [name, content] of Object.entries(commands)) {
		if (content === null) fs.mkdirSync(path.join(folder, `${name}.md`))
		else fs.writeFileSync(path.join(folder, `${name}.md`), content)
	}
	for (const [name, skill] of Object.entries(skills)) {
		fs.mkdirSync(path.join(cwd, ".roo", "skills", name), { recursive: true })
		fs.writeFileSync(path.join(cwd, ".roo", "skills", name, "SKILL.md"), skill)
	}
	return cwd
}

const call = (text: string, cwd: string) => parseMentions(text, cwd, undefined, undefined, false, true, 50)

const setupContent = "# Setup Environment\n\nRun the following commands:\n```bash\nnpm install\n```"
const deployContent = "# Deploy Environment\n\nRun the following commands:\n```bash\nnpm run deploy\n```"

describe("Command Mentions (real command files)", () => {
	describe("parseMentions with command support", () => {
		it("should parse command mentions and include content", async () => {
			const cwd = workspace({ setup: setupContent })
			const result = await call("/setup Please help me set up the project", cwd)
			expect(result.slashCommandHelp).toContain('<command name="setup">')
			expect(result.slashCommandHelp).toContain(setupContent)
			expect(result.slashCommandHelp).toContain("</command>")
			expect(result.text).toContain("Please help me set up the project")
		})

		it("should handle multiple commands in message", async () => {
			const cwd = workspace({ setup: setupContent, deploy: deployContent })
			const result = await call("/setup the project\nThen /deploy later", cwd)
			expect(result.slashCommandHelp).toContain('<command name="setup">')
			expect(result.slashCommandHelp).toContain("# Setup Environment")
			expect(result.slashCommandHelp).toContain('<command name="deploy">')
			expect(result.slashCommandHelp).toContain("# Deploy Environment")
		})

		it("should leave non-existent commands unchanged", async () => {
			const cwd = workspace({})
			const result = await call("/nonexistent command", cwd)
			expect(result.text).toBe("/nonexistent command")
			expect(result.slashCommandHelp).toBeUndefined()
			expect(result.text).not.toContain("Command 'nonexistent' not found")
		})

		it("should load skill content when command is missing and mode skill exists", async () => {
			const cwd = workspace(
				{},
				{ "skill-only": "---\nname: skill-only\ndescription: Skill-generated command\n---\n\nUse skill workflow\n" },
			)
			const skillsManager = new SkillsManager({ cwd } as any)
			await skillsManager.discoverSkills()
			const result = await parseMentions("/skill-only run", cwd, undefined, undefined, false, true, 50, skillsManager, "code")
			expect(result.text).toContain("Command 'skill-only' (see below for command content)")
			expect(result.slashCommandHelp).toContain("Skill: skill-only")
			expect(result.slashCommandHelp).toContain("Description: Skill-generated command")
			expect(result.slashCommandHelp).toContain("Source: project")
			expect(result.slashCommandHelp).toContain("--- Skill Instructions ---")
			expect(result.slashCommandHelp).toContain("Use skill workflow")
		})

		it("should preserve command precedence over skill fallback", async () => {
			const cwd = workspace(
				{ setup: "# Command wins" },
				{ setup: "---\nname: setup\ndescription: Setup skill\n---\n\nSkill should not be used\n" },
			)
			const skillsManager = new SkillsManager({ cwd } as any)
			await skillsManager.discoverSkills()
			const result = await parseMentions("/setup now", cwd, undefined, undefined, false, true, 50, skillsManager, "code")
			expect(result.slashCommandHelp).toContain('<command name="setup">')
			expect(result.slashCommandHelp).not.toContain("Skill: setup")
		})

		it("should handle command loading errors during existence check", async () => {
			// The command file cannot be read (it is a folder): treated as non-existent.
			const cwd = workspace({ "error-command": null })
			const result = await call("/error-command test", cwd)
			expect(result.text).toBe("/error-command test")
			expect(result.slashCommandHelp).toBeUndefined()
		})

		it("should handle command loading errors during processing", async () => {
			const cwd = workspace({ "error-command": "# Error command" })
			const result = await call("/error-command test", cwd)
			expect(result.slashCommandHelp).toContain('<command name="error-command">')
			expect(result.slashCommandHelp).toContain("# Error command")
			expect(result.slashCommandHelp).toContain("</command>")
		})

		it("should handle command names with hyphens and underscores at start", async () => {
			const cwd = workspace({ "setup-dev": "# Dev setup" })
			const result = await call("/setup-dev for the project", cwd)
			expect(result.slashCommandHelp).toContain('<command name="setup-dev">')
			expect(result.slashCommandHelp).toContain("# Dev setup")
		})

		it("should preserve command content formatting", async () => {
			const commandContent = `# Complex Command

## Step 1
Run this command:
\`\`\`bash
npm install
\`\`\`

## Step 2
- Check file1.js
- Update file2.ts
- Test everything

> **Note**: This is important!`
			const cwd = workspace({ complex: commandContent })
			const result = await call("/complex command", cwd)
			expect(result.slashCommandHelp).toContain('<command name="complex">')
			expect(result.slashCommandHelp).toContain("# Complex Command")
			expect(result.slashCommandHelp).toContain("```bash")
			expect(result.slashCommandHelp).toContain("npm install")
			expect(result.slashCommandHelp).toContain("- Check file1.js")
			expect(result.slashCommandHelp).toContain("> **Note**: This is important!")
			expect(result.slashCommandHelp).toContain("</command>")
		})

		it("should handle empty command content", async () => {
			// An empty file is no command in either implementation; a blank one is a command
			// whose content (trimmed) is empty, which is what the mocked `content: ""` stood for.
			const cwd = workspace({ empty: "\n" })
			const result = await call("/empty command", cwd)
			expect(result.slashCommandHelp).toContain('<command name="empty">')
			expect(result.slashCommandHelp).toContain("</command>")
		})
	})

	describe("command mention text transformation", () => {
		it("should transform existing command mentions at start of message", async () => {
			const cwd = workspace({ setup: "# Setup instructions" })
			const result = await call("/setup the project", cwd)
			expect(result.text).toContain("Command 'setup' (see below for command content)")
		})

		it("should leave non-existent command mentions unchanged", async () => {
			const cwd = workspace({})
			const result = await call("/nonexistent the project", cwd)
			expect(result.text).toBe("/nonexistent the project")
		})

		it("should process multiple commands in message", async () => {
			const cwd = workspace({ setup: "# Setup instructions", deploy: "# Deploy instructions" })
			const result = await call("/setup the project\nThen /deploy later", cwd)
			expect(result.text).toContain("Command 'setup' (see below for command content)")
			expect(result.text).toContain("Command 'deploy' (see below for command content)")
		})

		it("should match commands anywhere with proper word boundaries", async () => {
			const cwd = workspace({ build: "# Build instructions" })
			let result = await call("/build the project", cwd)
			expect(result.text).toContain("Command 'build'")
			result = await call("Please /build and test", cwd)
			expect(result.text).toContain("Command 'build'")
			result = await call("Run the /build", cwd)
			expect(result.text).toContain("Command 'build'")
			result = await call("Some text\n/build the project", cwd)
			expect(result.text).toContain("Command 'build'")
		})
	})
})
