// The original TypeScript as the fallback of the modules that decide no access: when the sidecar
// cannot answer (it could not start, or has exited and awaits the user's restart), token counts,
// history views, truncation and file tracking are the original module's, so that a task goes on
// instead of stalling on a thrown error. Access checks and write protection have no such
// fallback: they fail closed (closed.ts). The bundle's facades (vsix/esbuild-plugin.mjs) call
// these; the upstream suites load the adapters without them, so a test reaches the sidecar or
// fails.

import { isUnavailable, unavailable } from "./sidecar"
import { registerNotice } from "./closed"

function noted(error: unknown): boolean {
	if (!isUnavailable(error)) return false
	registerNotice()
	return true
}

/** Calls the adapter's function, or the original's while (or once) the sidecar cannot answer. */
export function fallbackCall<R>(adapter: () => R, original: () => R): R {
	registerNotice()
	if (unavailable() !== undefined) return original()
	let result: R
	try {
		result = adapter()
	} catch (error) {
		if (noted(error)) return original()
		throw error
	}
	if (result instanceof Promise) {
		return result.catch((error) => (noted(error) ? original() : Promise.reject(error))) as R
	}
	return result
}

type Constructor = new (...args: any[]) => any

/**
 * A class whose instances are the adapter's, or the original's while the sidecar cannot answer;
 * an adapter instance whose method meets an outage goes on with an original instance made from
 * the same arguments.
 */
export function fallbackClass(adapter: () => Constructor, original: () => Constructor): Constructor {
	const facade = function () {} as unknown as Constructor
	return new Proxy(facade, {
		construct(_target, args) {
			registerNotice()
			if (unavailable() !== undefined) return Reflect.construct(original(), args)
			let instance: any
			try {
				instance = Reflect.construct(adapter(), args)
			} catch (error) {
				if (noted(error)) return Reflect.construct(original(), args)
				throw error
			}
			let backup: any
			const stand = () => (backup ??= Reflect.construct(original(), args))
			return new Proxy(instance, {
				get(target, key) {
					const value = Reflect.get(target, key)
					if (typeof value !== "function" || key === "constructor") return value
					return (...callArgs: unknown[]) =>
						fallbackCall(
							() => value.apply(target, callArgs),
							() => stand()[key](...callArgs),
						)
				},
			})
		},
		get(_target, key) {
			return Reflect.get(adapter(), key)
		},
	})
}
