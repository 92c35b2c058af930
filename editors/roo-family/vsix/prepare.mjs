// Installs an unpacked agent snapshot for packaging: the extension and its webview, with the
// registry workarounds of ../install.mjs (the `@ai-sdk/baseten` override, the local stand-in for
// `ai-sdk-provider-poe`, `--ignore-scripts`), then builds the workspace packages the bundle
// imports. The test tree of ../run.sh installs only the extension; a .vsix also needs the
// webview (`@roo-code/vscode-webview`), so packaging has its own tree.
//
//   node prepare.mjs TREE STUBS NODE_PATH

import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const [tree, stubs, nodePath] = process.argv.slice(2).map((a, i) => (i < 2 ? path.resolve(a) : a))
const cache = process.env.ROO_FAMILY_CACHE ?? path.join(os.homedir(), ".cache/roo-context-upstream")

function run(cwd, command, args) {
	console.log(`$ (${path.basename(cwd)}) ${path.basename(command)} ${args.join(" ")}`)
	execFileSync(command, args, { cwd, stdio: "inherit", env: { ...process.env, PATH: nodePath, CI: "true", HUSKY: "0" } })
}

const manifestPath = path.join(tree, "package.json")
const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"))
const pnpmVersion = /^pnpm@([\d.]+)/.exec(manifest.packageManager ?? "")?.[1] ?? "10.8.1"
const stubTarget = path.join(tree, ".roo-context-stubs")
fs.cpSync(stubs, stubTarget, { recursive: true })
// The webview's vite build reads the stand-in's names statically (rollup leaves CommonJS outside
// node_modules untranslated): an ES module twin of each stub file, under the `import` condition.
for (const stub of fs.readdirSync(stubTarget)) {
	const dir = path.join(stubTarget, stub)
	const pkgPath = path.join(dir, "package.json")
	const pkg = JSON.parse(fs.readFileSync(pkgPath, "utf8"))
	for (const [key, file] of Object.entries(pkg.exports ?? {})) {
		const cjs = fs.readFileSync(path.join(dir, file), "utf8")
		const esm = cjs.replace(/^"use strict"\n/, "").replace(/^exports\.(\w+) =/gm, "export const $1 =")
		const twin = file.replace(/\.js$/, ".mjs")
		fs.writeFileSync(path.join(dir, twin), esm)
		pkg.exports[key] = { import: twin, require: file }
	}
	fs.writeFileSync(pkgPath, JSON.stringify(pkg, null, "\t") + "\n")
}
manifest.pnpm ??= {}
manifest.pnpm.overrides ??= {}
manifest.pnpm.overrides["@ai-sdk/baseten"] = "1.0.33"
manifest.pnpm.overrides["ai-sdk-provider-poe"] = "link:./.roo-context-stubs/ai-sdk-provider-poe"
fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, "\t") + "\n")

// pnpm of the snapshot's version, shared with ../install.mjs's cache.
const prefix = path.join(cache, `pnpm-${pnpmVersion}`)
const pnpm = path.join(prefix, "node_modules/.bin/pnpm")
if (!fs.existsSync(pnpm)) {
	fs.mkdirSync(prefix, { recursive: true })
	execFileSync("npm", ["install", "--prefix", prefix, "--no-save", `pnpm@${pnpmVersion}`], { stdio: "inherit" })
}
const extension = JSON.parse(fs.readFileSync(path.join(tree, "src/package.json"), "utf8")).name
const webview = JSON.parse(fs.readFileSync(path.join(tree, "webview-ui/package.json"), "utf8")).name
run(tree, pnpm, ["install", "--no-frozen-lockfile", "--ignore-scripts", "--filter", `${extension}...`, "--filter", `${webview}...`])
// The one workspace package the extension's esbuild.mjs imports built (the others are bundled
// from their sources; `@roo-code/types`' own build fails its declaration step on the stub).
run(tree, pnpm, ["--filter", "@roo-code/build", "build"])
console.log(`prepared ${extension} and ${webview} with pnpm ${pnpmVersion}`)
