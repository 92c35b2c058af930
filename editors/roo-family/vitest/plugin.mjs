// The swap, at module-resolution time: a vite plugin for the upstream suite's vitest. Any module
// that resolves to an original file for which `src/adapters/<same path>` exists is loaded as a
// re-export of the adapter. The module keeps the original's id, so the suite's `vi.mock` paths
// and the manual mocks next to the originals (`__mocks__/`) apply exactly as before.

import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
export const ADAPTERS = path.resolve(here, "../src/adapters")

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
		// An adapter imports the agent's own modules (its `utils/fs`, its types) by the path the
		// original would use: a relative import that leads nowhere inside the adapters resolves
		// from the original's folder.
		async resolveId(source, importer, options) {
			if (!importer || !importer.startsWith(ADAPTERS) || !source.startsWith(".")) return null
			const candidate = path.resolve(path.dirname(importer), source)
			const inside = ["", ".ts", ".mjs", ".js"].some((ext) => fs.existsSync(candidate + ext))
			if (inside) return null
			const original = path.join(upstreamSrc, path.relative(ADAPTERS, candidate))
			return this.resolve(original, path.join(upstreamSrc, path.relative(ADAPTERS, importer)), {
				...options,
				skipSelf: true,
			})
		},
		load(id) {
			const adapter = map.get(id.split("?")[0])
			if (!adapter) return null
			const source = fs.readFileSync(adapter, "utf8")
			const reexport = [`export * from ${JSON.stringify(adapter)}`]
			if (/export\s+default\b/.test(source)) reexport.push(`export { default } from ${JSON.stringify(adapter)}`)
			return reexport.join("\n")
		},
	}
}
