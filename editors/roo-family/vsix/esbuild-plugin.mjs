// The swap at bundle time: the esbuild counterpart of ../vitest/plugin.mjs, with the same
// mapping (an original module for which `src/adapters/<same path>` exists is replaced by its
// adapter). The adapters' own imports resolve as the original's would: a relative import that
// leads into the adapters' tree names the original module at that place (swapped again if it has
// an adapter, itself with `?roo-original`), a package resolves from the original's folder. At the
// end of each build it puts the bridge's worker and the sidecar binary into `dist/`.

import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

import { ADAPTERS, ORIGINAL, adapterMap } from "../vitest/plugin.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const WORKER = path.resolve(here, "../src/bridge/worker.mjs")
const FALLBACK = path.resolve(here, "../src/bridge/fallback.ts")
const skip = { rooContextSkip: true }
const FACADE = "roo-context-facade"

/**
 * The modules that decide access have no fallback: without the sidecar they fail closed
 * (src/bridge/closed.ts). Every other swapped module is loaded through a facade that calls the
 * adapter, or the original module while the sidecar cannot answer (src/bridge/fallback.ts).
 */
const FAIL_CLOSED = new Set(["core/ignore/RooIgnoreController.ts", "core/protect/RooProtectedController.ts"])

/** The adapter's runtime exports, by kind, read from its source (types and interfaces left out). */
export function exportsOf(source) {
	const found = { functions: [], classes: [], values: [] }
	for (const m of source.matchAll(/^export\s+(async\s+)?function\s+(\w+)/gm)) found.functions.push(m[2])
	for (const m of source.matchAll(/^export\s+class\s+(\w+)/gm)) found.classes.push(m[1])
	for (const m of source.matchAll(/^export\s+(?:const|let)\s+(\w+)/gm)) found.values.push(m[1])
	for (const m of source.matchAll(/^export\s+\{([^}]*)\}\s+from/gm)) {
		found.values.push(...m[1].split(",").map((name) => name.trim().split(/\s+as\s+/).pop()).filter(Boolean))
	}
	if (/^export\s+(default|\*)/m.test(source)) throw new Error("an adapter's default or star export has no facade")
	return found
}

/** The facade module of `original` (absolute paths throughout). */
function facadeSource(original, adapter) {
	const { functions, classes, values } = exportsOf(fs.readFileSync(adapter, "utf8"))
	const lines = [
		`import * as adapter from ${JSON.stringify(adapter)}`,
		`import * as original from ${JSON.stringify(original)}`,
		`import { fallbackCall, fallbackClass } from ${JSON.stringify(FALLBACK)}`,
	]
	if (values.length) lines.push(`export { ${values.join(", ")} } from ${JSON.stringify(adapter)}`)
	for (const name of functions) {
		lines.push(`export function ${name}(...args) { return fallbackCall(() => adapter.${name}(...args), () => original.${name}(...args)) }`)
	}
	for (const name of classes) {
		lines.push(`export const ${name} = fallbackClass(() => adapter.${name}, () => original.${name})`)
	}
	return lines.join("\n") + "\n"
}

/**
 * @param {{ upstreamSrc: string, distDir: string, binary?: string }} options
 *   binary: the roo-context binary to put at `dist/bin/roo-context` (none: a bundle without it,
 *   which then fails closed)
 */
export function rooContextAdapters({ upstreamSrc, distDir, binary }) {
	const map = adapterMap(upstreamSrc)
	const swapped = new Set()
	const inside = (file, dir) => file.startsWith(dir + path.sep)
	return {
		name: "roo-context-adapters",
		setup(build) {
			/** esbuild's own resolution (this plugin skipped); `failed` when it found nothing. */
			const resolve = async (specifier, resolveDir, kind) => {
				const result = await build.resolve(specifier, { resolveDir, kind, pluginData: skip })
				if (result.errors.length) return { failed: true, errors: result.errors }
				const { path: file, external, namespace, sideEffects, suffix } = result
				return { path: file, external, namespace, sideEffects, suffix }
			}
			const swap = (result) => {
				const adapter = result.path && map.get(result.path)
				if (!adapter) return result
				const relative = path.relative(upstreamSrc, result.path)
				swapped.add(relative)
				return FAIL_CLOSED.has(relative) ? { path: adapter } : { path: result.path, namespace: FACADE }
			}
			build.onLoad({ filter: /.*/, namespace: FACADE }, (args) => ({
				contents: facadeSource(args.path, map.get(args.path)),
				loader: "js",
				resolveDir: path.dirname(args.path),
			}))
			build.onResolve({ filter: /.*/ }, async (args) => {
				if (args.pluginData?.rooContextSkip || args.kind === "entry-point" || !args.importer) return undefined
				// A facade's own imports (absolute paths: its adapter, its original, the bridge).
				if (args.namespace === FACADE) return { path: args.path }
				if (inside(args.importer, ADAPTERS)) {
					const originalImporter = path.join(upstreamSrc, path.relative(ADAPTERS, args.importer))
					const from = path.dirname(originalImporter)
					if (!args.path.startsWith(".")) {
						if (args.path.startsWith("node:") || path.isAbsolute(args.path)) return undefined
						const result = await resolve(args.path, from, args.kind)
						return result.failed ? { errors: result.errors } : result
					}
					const [bare, query] = args.path.split("?")
					const candidate = path.resolve(path.dirname(args.importer), bare)
					if (!inside(candidate, ADAPTERS)) return undefined
					const original = path.join(upstreamSrc, path.relative(ADAPTERS, candidate))
					const result = await resolve("./" + path.relative(from, original), from, args.kind)
					if (result.failed) return { errors: result.errors }
					return query === ORIGINAL ? result : swap(result)
				}
				if (!args.path.startsWith(".") || !inside(args.importer, upstreamSrc)) return undefined
				if (args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined
				const result = await resolve(args.path, args.resolveDir, args.kind)
				return result.failed ? undefined : swap(result)
			})
			build.onEnd((result) => {
				if (result.errors.length) return
				const missing = [...map.keys()].map((f) => path.relative(upstreamSrc, f)).filter((f) => !swapped.has(f))
				if (build.initialOptions.entryPoints?.includes?.("extension.ts")) {
					console.log(`[roo-context] swapped ${swapped.size} of ${map.size} modules for their adapters`)
					if (missing.length) console.log(`[roo-context] never imported by the bundle: ${missing.join(", ")}`)
				}
				fs.mkdirSync(path.join(distDir, "bin"), { recursive: true })
				fs.copyFileSync(WORKER, path.join(distDir, "roo-context-worker.mjs"))
				if (binary) {
					const target = path.join(distDir, "bin", "roo-context")
					fs.copyFileSync(binary, target)
					fs.chmodSync(target, 0o755)
				}
			})
		},
	}
}
