// The swap, at module-resolution time: a vite plugin for the upstream suite's vitest. Any module
// that resolves to an original file for which `src/adapters/<same path>` exists is loaded as a
// re-export of the adapter. The module keeps the original's id, so the suite's `vi.mock` paths
// and the manual mocks next to the originals (`__mocks__/`) apply exactly as before.

import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
export const ADAPTERS = path.resolve(here, "../src/adapters")
/** The import query that names an original module itself (left un-swapped). */
export const ORIGINAL = "roo-original"

/** Original file (absolute, under `upstreamSrc`) → adapter file, for every adapter. */
export function adapterMap(upstreamSrc) {
	const map = new Map()
	const walk = (dir) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name)
			if (entry.isDirectory()) walk(full)
			else if (entry.name.endsWith(".ts")) {
				const original = path.join(upstreamSrc, path.relative(ADAPTERS, full))
				if (!fs.existsSync(original)) {
					throw new Error(`adapter ${full} has no original at ${original}`)
				}
				map.set(original, full)
			}
		}
	}
	walk(ADAPTERS)
	return map
}

/** The plugin; `enabled: false` gives the baseline run with the same configuration. */
export function rooContextAdapters({ upstreamSrc, enabled = true }) {
	const map = enabled ? adapterMap(upstreamSrc) : new Map()
	return {
		name: "roo-context-adapters",
		enforce: "pre",
		// An adapter imports the agent's own modules (its `utils/fs`, its types, the other
		// swapped modules) by the path the original would use: a relative import that leads
		// inside the adapters' tree resolves from the original's folder, so it reaches the module
		// under the original's id (swapped or not, and mocked as the suite mocks it). An import
		// with the query `?roo-original` is the original module itself, never swapped (an adapter
		// re-exports from it what is not a decision).
		async resolveId(source, importer, options) {
			if (!importer || !importer.startsWith(ADAPTERS)) return null
			const originalImporter = path.join(upstreamSrc, path.relative(ADAPTERS, importer.split("?")[0]))
			if (!source.startsWith(".")) {
				// A package (`@roo-code/telemetry`) as the original's folder resolves it, so the
				// suite's `vi.mock` of it applies to the adapter too.
				if (source.startsWith("node:") || path.isAbsolute(source)) return null
				return this.resolve(source, originalImporter, { ...options, skipSelf: true })
			}
			const [bare, query] = source.split("?")
			const candidate = path.resolve(path.dirname(importer), bare)
			if (!candidate.startsWith(ADAPTERS + path.sep) && candidate !== ADAPTERS) return null
			const original = path.join(upstreamSrc, path.relative(ADAPTERS, candidate))
			const resolved = await this.resolve(original, originalImporter, {
				...options,
				skipSelf: true,
			})
			if (!resolved || query !== ORIGINAL) return resolved
			return { ...resolved, id: `${resolved.id.split("?")[0]}?${ORIGINAL}` }
		},
		load(id) {
			const [file, query] = id.split("?")
			if (query === ORIGINAL) return fs.readFileSync(file, "utf8")
			const adapter = map.get(file)
			if (!adapter) return null
			const source = fs.readFileSync(adapter, "utf8")
			const reexport = [`export * from ${JSON.stringify(adapter)}`]
			if (/export\s+default\b/.test(source)) reexport.push(`export { default } from ${JSON.stringify(adapter)}`)
			return reexport.join("\n")
		},
	}
}
