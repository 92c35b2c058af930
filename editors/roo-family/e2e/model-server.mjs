// A scripted OpenAI-compatible chat server on 127.0.0.1 for the end-to-end test: every request is
// recorded (the exact body the agent sent, one file each), and each chat completion is answered by
// the script of the task it belongs to, as a stream of native tool calls. Stateless: the script is
// chosen by a `SEED:<name>` marker in the task's first user message, and the turn is the number
// of assistant messages the request already carries.
//
// A script turn is `{ tool, args }` (one native tool call) or `{ text }`; `before(request)` runs
// before the answer is sent (a seed's "user" acting between two requests) and may return a
// promise the answer waits for.

import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"

/** The text of a message's content (a string or an array of parts). */
export function textOf(content) {
	if (typeof content === "string") return content
	if (!Array.isArray(content)) return ""
	return content.map((part) => (typeof part === "string" ? part : (part.text ?? ""))).join("\n")
}

/** The seed named in the first user message of a chat request, or undefined. */
export function seedOf(body) {
	const first = body.messages?.find((m) => m.role === "user")
	return /SEED:([\w-]+)/.exec(textOf(first?.content))?.[1]
}

function chunk(id, delta, finish) {
	return { id, object: "chat.completion.chunk", created: 0, model: "scripted", choices: [{ index: 0, delta, finish_reason: finish ?? null }] }
}

/**
 * @param {{ dir: string, scripts: Record<string, Array<object>>, onRequest?: (record) => void }} options
 * @returns {Promise<{ port: number, url: string, requests: Array<object>, close(): Promise<void> }>}
 */
export async function startModelServer({ dir, scripts, onRequest }) {
	fs.mkdirSync(dir, { recursive: true })
	const requests = []
	const server = http.createServer(async (req, res) => {
		const chunks = []
		for await (const c of req) chunks.push(c)
		const raw = Buffer.concat(chunks).toString("utf8")
		const n = requests.length + 1
		const record = { n, method: req.method, url: req.url, at: Date.now(), raw }
		let body
		try {
			body = raw ? JSON.parse(raw) : undefined
		} catch {}
		record.seed = body ? seedOf(body) : undefined
		record.turn = body?.messages ? body.messages.filter((m) => m.role === "assistant").length : undefined
		requests.push(record)
		fs.writeFileSync(path.join(dir, `${String(n).padStart(3, "0")}-${record.seed ?? "none"}-${record.turn ?? "x"}.json`), raw || "{}")
		onRequest?.(record)
		if (req.method === "GET" && /\/models\/?$/.test(req.url)) {
			res.writeHead(200, { "content-type": "application/json" })
			return void res.end(JSON.stringify({ object: "list", data: [{ id: "scripted", object: "model" }] }))
		}
		if (req.method !== "POST" || !/\/chat\/completions$/.test(req.url)) {
			res.writeHead(404)
			return void res.end()
		}
		const script = scripts[record.seed]
		const step = script?.[record.turn] ?? { text: `no script for seed ${record.seed} turn ${record.turn}` }
		record.answer = step
		if (step.before) {
			try {
				await step.before(record, body)
			} catch (error) {
				// The seed's precondition failed: the agent sees a server error, the log says why.
				record.beforeError = String(error?.message ?? error)
				console.error(`[model] seed ${record.seed} turn ${record.turn}: ${record.beforeError}`)
				res.writeHead(500, { "content-type": "application/json" })
				return void res.end(JSON.stringify({ error: { message: record.beforeError } }))
			}
		}
		const id = `chatcmpl-${n}`
		const events = []
		if (step.error) {
			res.writeHead(step.error.status ?? 400, { "content-type": "application/json" })
			return void res.end(JSON.stringify({ error: step.error }))
		}
		if (step.tool) {
			const call = { index: 0, id: `call_${n}`, type: "function", function: { name: step.tool, arguments: "" } }
			events.push(chunk(id, { role: "assistant", content: null, tool_calls: [call] }))
			const args = JSON.stringify(step.args ?? {})
			// The arguments in two pieces, as real servers stream them.
			const half = Math.floor(args.length / 2)
			for (const piece of [args.slice(0, half), args.slice(half)]) {
				events.push(chunk(id, { tool_calls: [{ index: 0, function: { arguments: piece } }] }))
			}
			events.push(chunk(id, {}, "tool_calls"))
		} else {
			events.push(chunk(id, { role: "assistant", content: step.text }))
			events.push(chunk(id, {}, "stop"))
		}
		events.push({ ...chunk(id, {}), choices: [], usage: { prompt_tokens: 1000, completion_tokens: 20, total_tokens: 1020 } })
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
		for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`)
		res.end("data: [DONE]\n\n")
	})
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
	const { port } = server.address()
	return {
		port,
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	}
}
