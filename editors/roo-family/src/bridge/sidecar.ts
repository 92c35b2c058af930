// One connection to roo-context per process, owned by a worker thread (worker.mjs). The adapters
// call `callSync` where the original function is synchronous (the caller blocks in
// `Atomics.wait` until the worker posts the answer) and `callAsync` otherwise.
//
// `callSync` must never be used for a method during which the sidecar calls back into the host
// (`roo/context/manage` and `roo/context/condense` ask the host to summarize, `roo/mentions/*` may ask for `@problems`):
// the blocked thread could not answer, and the call would deadlock. `SyncMethod` lists the
// methods that never call back, so the compiler refuses the others, and `callSync` checks the
// same list at run time for callers without types.

import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads"
import * as fs from "node:fs"
import * as path from "node:path"

/** Methods the sidecar answers without calling back into the host. */
export const SYNC_METHODS = [
	"roo/ignore/validateAccess",
	"roo/ignore/filterPaths",
	"roo/ignore/formatFilesList",
	"roo/ignore/validateCommand",
	"roo/ignore/instructions",
	"roo/ignore/setRules",
	"roo/protect/check",
	"roo/protect/annotate",
	"roo/protect/instructions",
	"roo/history/effective",
	"roo/history/merge",
	"roo/history/rewind",
	"roo/history/cleanup",
	"roo/history/truncate",
	"roo/history/toolBlocksAsText",
	"roo/history/injectSyntheticToolResults",
	"roo/history/commandBlocks",
	"roo/tokens/count",
	"roo/context/willManage",
	"roo/context/classifyError",
	"roo/files/markRooEdited",
	"roo/files/takeRecentlyModified",
	"roo/files/takeCheckpointPossible",
] as const
export type SyncMethod = (typeof SYNC_METHODS)[number]

/** Where and how to reach the sidecar. */
export interface Target {
	/** Workspace folders (the original's `cwd`). */
	folders: string[]
	/** `initializationOptions` (the flavor first of all). */
	options?: Record<string, unknown>
}

/**
 * The binary: `ROO_CONTEXT_BIN`, else the one packaged next to the bundle (`dist/bin/roo-context`
 * of a .vsix, see vsix/build.sh), else the repository's release build.
 */
export function binary(): string {
	if (process.env.ROO_CONTEXT_BIN) return process.env.ROO_CONTEXT_BIN
	// In a bundle (the worker packaged next to it) the binary is the packaged one, present or not.
	if (fs.existsSync(path.join(__dirname, PACKAGED_WORKER))) {
		return path.join(__dirname, "bin", process.platform === "win32" ? "roo-context.exe" : "roo-context")
	}
	return path.resolve(__dirname, "../../../../target/release/roo-context")
}

/** The worker's name in a bundle's `dist/` (vsix/esbuild-plugin.mjs puts it there). */
const PACKAGED_WORKER = "roo-context-worker.mjs"

/** The worker's file: next to this module, or in a bundle's `dist/` under its packaged name. */
function workerFile(): string {
	const packaged = path.join(__dirname, PACKAGED_WORKER)
	return fs.existsSync(packaged) ? packaged : path.join(__dirname, "worker.mjs")
}

/** The flavor the agent under test expects (`ROO_FAMILY_FLAVOR`, default `roo`). */
export function flavor(): string {
	return process.env.ROO_FAMILY_FLAVOR ?? "roo"
}

/** A JSON-RPC error from the sidecar, with its code. */
export class SidecarError extends Error {
	constructor(
		readonly code: number,
		message: string,
	) {
		super(message)
	}
}

/** The code of a call the sidecar could not answer: it cannot start, has exited, or is stuck. */
export const UNAVAILABLE = -32099

/**
 * Whether `error` says the sidecar could not answer (as opposed to an answer that is an error).
 * Access checks and write protection then fail closed: every path blocked, every file protected.
 */
export function isUnavailable(error: unknown): error is SidecarError {
	return error instanceof SidecarError && error.code === UNAVAILABLE
}

/**
 * Once the sidecar cannot start or has exited, every call is refused with the cause until
 * `restart()`: the bridge never starts a new process on its own, so access that was closed
 * stays closed until the user chooses to reopen it. Listeners hear the cause once per outage.
 */
const unavailableListeners = new Set<(cause: string) => void>()
let unavailableCause: string | undefined

export function onUnavailable(listener: (cause: string) => void): { dispose(): void } {
	unavailableListeners.add(listener)
	if (unavailableCause !== undefined) listener(unavailableCause)
	return { dispose: () => void unavailableListeners.delete(listener) }
}

/** Why the sidecar cannot answer now, or undefined while it can (or has not been asked yet). */
export function unavailable(): string | undefined {
	return unavailableCause
}

/** Ends the sidecar processes and lets the next call start them again. */
export function restart(): void {
	unavailableCause = undefined
	connection().port.postMessage({ restart: true })
}

function noteUnavailable(cause: string) {
	if (unavailableCause !== undefined) return
	unavailableCause = cause
	for (const listener of unavailableListeners) {
		try {
			listener(cause)
		} catch (error) {
			console.error("roo-context: an unavailability listener failed", error)
		}
	}
}

let worker: { port: MessagePortLike; next: number } | undefined

interface MessagePortLike {
	postMessage(message: unknown): void
}

function connection() {
	if (!worker) {
		const { port1, port2 } = new MessageChannel()
		const thread = new Worker(workerFile(), {
			workerData: { port: port2 },
			transferList: [port2],
		})
		thread.unref()
		port1.unref()
		worker = { port: port1, next: 1 }
		;(worker as any).receiver = port1
		;(worker as any).waiting = new Map<number, (answer: any) => void>()
		port1.on("message", (answer: any) => {
			if (answer.hostRequest) return void answerHost(answer.hostRequest)
			if (answer.unavailable) return void noteUnavailable(answer.unavailable)
			const settle = (worker as any).waiting.get(answer.id)
			;(worker as any).waiting.delete(answer.id)
			settle?.(answer)
		})
	}
	return worker as { port: any; next: number; receiver: any; waiting: Map<number, (answer: any) => void> }
}

function keyOf(target: Target): string {
	return JSON.stringify([binary(), [...target.folders].sort(), target.options ?? {}])
}

function message(target: Target, method: string, params: unknown, flag?: Int32Array) {
	const c = connection()
	const id = c.next++
	return {
		id,
		call: {
			id,
			key: keyOf(target),
			binary: binary(),
			folders: target.folders,
			options: { flavor: flavor(), ...target.options },
			method,
			params,
			flag,
		},
	}
}

/** Longest a synchronous call waits (a stuck sidecar is an error, never a hang). */
const SYNC_TIMEOUT_MS = Number(process.env.ROO_FAMILY_SYNC_TIMEOUT_MS ?? 30_000)

/** A synchronous request (see the file comment for which methods may use it). */
export function callSync<R = any>(target: Target, method: SyncMethod, params: unknown): R {
	if (!(SYNC_METHODS as readonly string[]).includes(method)) {
		throw new Error(`${method} may call back into the host: use callAsync`)
	}
	const started = performance.now()
	const flag = new Int32Array(new SharedArrayBuffer(4))
	const c = connection()
	const { id, call } = message(target, method, params, flag)
	// The answer must not be taken by the port's listener: take it with receiveMessageOnPort.
	c.waiting.set(id, () => {})
	c.port.postMessage(call)
	if (Atomics.wait(flag, 0, 0, SYNC_TIMEOUT_MS) === "timed-out") {
		c.waiting.delete(id)
		throw new SidecarError(UNAVAILABLE, `${method}: no answer from roo-context in ${SYNC_TIMEOUT_MS} ms`)
	}
	let answer: any
	for (;;) {
		const received = receiveMessageOnPort(c.receiver)
		if (!received) break
		if (received.message.id === id) {
			answer = received.message
			break
		}
		if (received.message.unavailable) {
			noteUnavailable(received.message.unavailable)
			continue
		}
		if (received.message.hostRequest) {
			// Another (asynchronous) call's request back to the host: answered once this one returns.
			const request = received.message.hostRequest
			setImmediate(() => answerHost(request))
			continue
		}
		const settle = c.waiting.get(received.message.id)
		c.waiting.delete(received.message.id)
		settle?.(received.message)
	}
	c.waiting.delete(id)
	if (!answer) throw new SidecarError(UNAVAILABLE, `${method}: the answer was lost`)
	return settled(method, params, answer, started)
}

/** An asynchronous request. */
export function callAsync<R = any>(target: Target, method: string, params: unknown): Promise<R> {
	const started = performance.now()
	const c = connection()
	const { id, call } = message(target, method, params)
	return new Promise((resolve, reject) => {
		c.waiting.set(id, (answer) => {
			try {
				resolve(settled(method, params, answer, started))
			} catch (error) {
				reject(error)
			}
		})
		c.port.postMessage(call)
	})
}

function settled(method: string, _params: unknown, answer: any, started: number) {
	logCall(method, performance.now() - started, answer.error)
	if (answer.error) throw new SidecarError(answer.error.code, `${method}: ${answer.error.message}`)
	return answer.result
}

/**
 * One line per call in `ROO_FAMILY_CALL_LOG` (JSON lines: test file, test name, method, ms,
 * error code): how "reached the sidecar" is counted, and the bridge's latency.
 */
function logCall(method: string, ms: number, error?: { code: number }) {
	const log = process.env.ROO_FAMILY_CALL_LOG
	if (!log) return
	const state = (globalThis as any).expect?.getState?.() ?? {}
	const line = JSON.stringify({
		file: state.testPath ? path.relative(process.cwd(), state.testPath) : undefined,
		test: state.currentTestName,
		method,
		ms: Math.round(ms * 1000) / 1000,
		error: error?.code,
	})
	fs.appendFileSync(log, line + "\n")
}

/** A handler of the sidecar's requests back to the host during one asynchronous call. */
export type HostHandler = (method: string, params: any) => Promise<unknown>

const hostHandlers = new Map<string, HostHandler>()
let nextTag = 1

/**
 * Runs `call` with `handler` answering the sidecar's requests back to the host. The call must
 * put the returned tag where the sidecar passes it through (`metadata.rooFamilyCall`), which
 * `answerHost` reads to find the handler; `metadata.metadata` is the host's own metadata.
 */
export async function withHost<R>(handler: HostHandler, call: (tag: string) => Promise<R>): Promise<R> {
	const tag = `${process.pid}:${nextTag++}`
	hostHandlers.set(tag, handler)
	try {
		return await call(tag)
	} finally {
		hostHandlers.delete(tag)
	}
}

/** The metadata passed through the sidecar: the call tag and the host's own metadata. */
export function taggedMetadata(tag: string, metadata: unknown): Record<string, unknown> {
	return metadata === undefined ? { rooFamilyCall: tag } : { rooFamilyCall: tag, metadata }
}

async function answerHost(request: { key: string; id: number | string; method: string; params: any }) {
	const c = connection()
	const handler = hostHandlers.get(request.params?.metadata?.rooFamilyCall)
	let reply: { result?: unknown; error?: { code: number; message: string; data?: unknown } }
	if (!handler) {
		reply = { error: { code: -32601, message: `no host handler for ${request.method}` } }
	} else {
		try {
			reply = { result: await handler(request.method, request.params) }
		} catch (error: any) {
			reply =
				error instanceof SidecarError
					? { error: { code: error.code, message: error.message } }
					: { error: { code: -32603, message: String(error?.message ?? error) } }
		}
	}
	c.port.postMessage({ hostAnswer: { key: request.key, id: request.id, ...reply } })
}
