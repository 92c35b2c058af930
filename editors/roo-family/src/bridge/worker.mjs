// The bridge's worker thread: it owns the roo-context processes (one per workspace-folder set
// and flavor) and speaks LSP-framed JSON-RPC with them, so that the thread that called can block
// in `Atomics.wait` until the answer is posted (the originals' synchronous functions stay
// synchronous). Plain JavaScript: a worker is loaded by Node as it is, without a transpiler.
//
// Messages in (on the port from workerData): {id, key, binary, folders, options, method, params,
// flag}. `flag` is an Int32Array over a SharedArrayBuffer: set to 1 and notified once the answer
// {id, result} or {id, error} has been posted back.

import { spawn } from "node:child_process"
import { pathToFileURL } from "node:url"
import * as path from "node:path"
import { workerData } from "node:worker_threads"

const port = workerData.port

/** key → { child, nextId, pending: Map<id, (message) => void>, ready: Promise, buffer } */
const sidecars = new Map()
/**
 * Why the sidecar cannot answer, once it could not start or has exited: every later call is
 * refused with it (fail closed), and none starts a new process, until the host asks to restart
 * (`{restart: true}`). A sidecar that silently came back would reopen access without the user
 * knowing that it had been closed.
 */
let unavailable = null
/** The error code of a call refused or lost because the sidecar cannot answer. */
const UNAVAILABLE = -32099

function frame(message) {
	const body = Buffer.from(JSON.stringify(message), "utf8")
	return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body])
}

function start(key, binary, folders, options) {
	const child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"], env: process.env })
	const sidecar = { key, child, nextId: 1, pending: new Map(), buffer: Buffer.alloc(0), failure: null }
	const fail = (why) => {
		if (sidecar.failure) return
		sidecar.failure = why
		// The notice first, so that the host knows the cause before the lost answers reach it.
		if (!sidecar.stopping && !unavailable) {
			unavailable = why
			port.postMessage({ unavailable: why })
		}
		for (const settle of sidecar.pending.values()) settle({ error: { code: UNAVAILABLE, message: why } })
		sidecar.pending.clear()
		if (sidecars.get(key) === sidecar) sidecars.delete(key)
	}
	child.on("error", (error) => fail(`cannot start ${binary}: ${error.message}`))
	child.on("exit", (code, signal) => fail(`roo-context exited (${signal ? `signal ${signal}` : `code ${code}`})`))
	child.stderr.on("data", () => {})
	child.stdout.on("data", (chunk) => {
		sidecar.buffer = Buffer.concat([sidecar.buffer, chunk])
		for (;;) {
			const headerEnd = sidecar.buffer.indexOf("\r\n\r\n")
			if (headerEnd < 0) return
			const header = sidecar.buffer.subarray(0, headerEnd).toString("ascii")
			const length = Number(/Content-Length: *(\d+)/i.exec(header)?.[1])
			if (!Number.isFinite(length)) return fail(`bad frame header from roo-context: ${header}`)
			if (sidecar.buffer.length < headerEnd + 4 + length) return
			const body = sidecar.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8")
			sidecar.buffer = sidecar.buffer.subarray(headerEnd + 4 + length)
			receive(sidecar, JSON.parse(body))
		}
	})
	sidecar.send = (message) => child.stdin.write(frame(message))
	sidecar.request = (method, params) =>
		new Promise((resolve) => {
			if (sidecar.failure) return resolve({ error: { code: UNAVAILABLE, message: sidecar.failure } })
			const id = sidecar.nextId++
			sidecar.pending.set(id, resolve)
			sidecar.send({ jsonrpc: "2.0", id, method, params })
		})
	const workspaceFolders = folders.map((folder) => ({
		uri: pathToFileURL(path.resolve(folder)).href,
		name: path.basename(folder) || folder,
	}))
	sidecar.ready = sidecar
		.request("initialize", {
			processId: process.pid,
			capabilities: {},
			workspaceFolders,
			initializationOptions: options,
		})
		.then((answer) => {
			if (answer.error) return answer
			sidecar.send({ jsonrpc: "2.0", method: "initialized", params: {} })
			return answer
		})
	sidecars.set(key, sidecar)
	return sidecar
}

function receive(sidecar, message) {
	if (message.id !== undefined && message.method === undefined) {
		const settle = sidecar.pending.get(message.id)
		sidecar.pending.delete(message.id)
		settle?.(message)
		return
	}
	if (message.id !== undefined) {
		// A request back to the host: the calling thread answers it (host.ts's handlers, found by
		// the call tag in the params), then the answer goes back to the sidecar.
		port.postMessage({ hostRequest: { key: sidecar.key, id: message.id, method: message.method, params: message.params } })
		return
	}
	// Notifications (reloads, file changes) are not used by the adapters.
}

port.on("message", async (call) => {
	if (call.hostAnswer) {
		const { key, id, result, error } = call.hostAnswer
		const sidecar = sidecars.get(key)
		if (sidecar) sidecar.send(error ? { jsonrpc: "2.0", id, error } : { jsonrpc: "2.0", id, result: result ?? null })
		return
	}
	if (call.restart) {
		// The user's restart: the old processes end (stdin closed), the next call starts anew.
		for (const sidecar of sidecars.values()) {
			sidecar.stopping = true
			sidecar.child.stdin.end()
		}
		sidecars.clear()
		unavailable = null
		return
	}
	const { id, key, binary, folders, options, method, params, flag } = call
	let answer
	try {
		if (unavailable) throw Object.assign(new Error(unavailable), { code: UNAVAILABLE })
		const sidecar = sidecars.get(key) ?? start(key, binary, folders, options)
		const initialized = await sidecar.ready
		answer = initialized.error ? initialized : await sidecar.request(method, params)
	} catch (error) {
		answer = { error: { code: UNAVAILABLE, message: String(error?.message ?? error) } }
	}
	port.postMessage({ id, result: answer.result, error: answer.error })
	if (flag) {
		Atomics.store(flag, 0, 1)
		Atomics.notify(flag, 0)
	}
})

// Ends the processes with the worker (stdin closed ends a roo-context).
process.on("exit", () => {
	for (const sidecar of sidecars.values()) sidecar.child.kill()
})
