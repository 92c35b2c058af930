// The agent (Roo Code or Zoo Code, as a .vsix with roo-context inside) in a real VS Code
// (code-server) driven by headless Chromium and a scripted model: see README.md.
//
//   node drive.mjs --agent roo|zoo --out DIR --extensions DIR [--expect-closed]
//
// Starts the scripted model server (model-server.mjs) and code-server on 127.0.0.1, opens the
// workbench in Chromium (the extension host starts with a window), and waits on the events that
// the driver extension writes (driver-extension/) while the tasks run. Then judges the seeds on
// what the model was actually sent: the recorded requests (DIR/requests/*.json). Every wait is on
// an event (a line in the events file, a request, a process, a UI element), bounded, and fails
// naming what it waited for. Screenshots in DIR/shots. Exits 1 on the first failed check.
//
// --expect-closed: the .vsix has no sidecar binary; the checks are then that the error is shown
// naming the cause, a restart is offered, and every access check failed closed.
// --activation-only: stops once the driver has timed the agent's activation (activation.json).
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { parseArgs } from "node:util"

import { startModelServer, textOf } from "./model-server.mjs"

const { values: args } = parseArgs({
	options: {
		agent: { type: "string" },
		out: { type: "string" },
		extensions: { type: "string" },
		"expect-closed": { type: "boolean", default: false },
		"activation-only": { type: "boolean", default: false },
	},
})
for (const k of ["agent", "out", "extensions"]) if (!args[k]) throw new Error(`missing --${k}`)
const CACHE = process.env.ROO_E2E_CACHE
if (!CACHE) throw new Error("ROO_E2E_CACHE is not set (run.sh sets it)")
const out = path.resolve(args.out)
const shots = path.join(out, "shots")
const node24 = path.join(CACHE, "node24", "bin", "node")
const entry = path.join(CACHE, "code-server", "node_modules", "code-server", "out", "node", "entry.js")
const { chromium } = createRequire(path.join(CACHE, "driver", "package.json"))("playwright-core")
fs.mkdirSync(shots, { recursive: true })

const AGENTS = {
	roo: {
		extensionId: "RooVeterinaryInc.roo-cline",
		sidebarCommand: "roo-cline.SidebarProvider.focus",
		announcement: "apr-2026-v3.52.0-poe-xai-minimax",
	},
	zoo: {
		extensionId: "ZooCodeOrganization.zoo-code",
		sidebarCommand: "zoo-code.SidebarProvider.focus",
		announcement: "aug-2026-v3.80.0-allowlists-models-reliability",
	},
}
const agent = AGENTS[args.agent]
if (!agent) throw new Error(`unknown agent ${args.agent}`)

const STARTUP_MS = 180_000
const t0 = Date.now()
const secs = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`
let page
let stepName = "start"
const cleanups = []

function assert(cond, message) {
	if (!cond) throw new Error(`assertion failed: ${message}`)
}
async function check(name, fn) {
	stepName = name
	const started = Date.now()
	await fn()
	console.log(`[${secs()}] ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)}s)`)
}
async function shot(name) {
	if (page) await page.screenshot({ path: path.join(shots, name) }).catch(() => {})
}
/** Polls `fn` (an event source: a file, a process, the UI) until truthy; fails naming `what`. */
async function waitFor(what, fn, timeout = 60_000) {
	const until = Date.now() + timeout
	for (;;) {
		const value = await fn()
		if (value) return value
		if (Date.now() > until) throw new Error(`timed out after ${timeout / 1000}s waiting for ${what}`)
		await new Promise((r) => setTimeout(r, 200))
	}
}
async function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer()
		srv.on("error", reject)
		srv.listen(0, "127.0.0.1", () => {
			const { port } = srv.address()
			srv.close(() => resolve(port))
		})
	})
}
function procs() {
	const all = []
	for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
		try {
			const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
			const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean)
			if (fields[0] !== "Z") all.push({ pid: Number(pid), ppid: Number(fields[1]), pgrp: Number(fields[2]), cmdline })
		} catch {}
	}
	return all
}
/** roo-context processes in code-server's process group. */
function sidecars(pgrp) {
	return procs().filter((p) => p.pgrp === pgrp && path.basename(p.cmdline[0] ?? "") === "roo-context")
}

// --- the workspace: allowed files, and secrets behind .rooignore (fresh markers each run) ---------
const marker = (kind) => `${kind}-${crypto.randomBytes(8).toString("hex")}`
const ALLOWED = marker("ALLOWED")
const SECRETS = [marker("SECRET"), marker("SECRET"), marker("SECRET")]
const ws = path.join(out, "ws")
fs.mkdirSync(path.join(ws, "src"), { recursive: true })
fs.mkdirSync(path.join(ws, "secrets"), { recursive: true })
fs.writeFileSync(path.join(ws, "README.md"), "# demo\n\nA small workspace for the end-to-end test.\n")
fs.writeFileSync(path.join(ws, "src", "app.ts"), `// ${ALLOWED}\nexport function greet(name: string) {\n\treturn "hello " + name\n}\n`)
fs.writeFileSync(path.join(ws, ".rooignore"), ".env\nsecrets/\n")
fs.writeFileSync(path.join(ws, ".env"), `API_KEY=${SECRETS[0]}\n`)
fs.writeFileSync(path.join(ws, "secrets", "creds.txt"), `password=${SECRETS[1]}\n`)
fs.writeFileSync(path.join(ws, "secrets", "mentioned.md"), `token: ${SECRETS[2]}\n`)

// --- the scripted model -------------------------------------------------------------------------
const complete = (result) => ({ tool: "attempt_completion", args: { result } })
const scripts = {
	read: [
		{ tool: "read_file", args: { path: "src/app.ts" } },
		{ tool: "read_file", args: { path: ".env" } },
		{ tool: "read_file", args: { path: "secrets/creds.txt" } },
		complete("I read src/app.ts; .env and secrets/creds.txt are blocked."),
	],
	mention: [complete("The mentioned file is ignored.")],
}
// Seed edit: between the agent's second and third requests the user changes src/app.ts; the
// answer waits until the sidecar has recorded the user's edit in the task's metadata (the file it
// writes), so that the third request is built after the change is known.
const storage = () => path.join(userData, "User", "globalStorage", agent.extensionId.toLowerCase(), "tasks")
const taskIdOf = (name) => events().find((e) => e.event === "taskSubmitted" && e.name === name)?.taskId
const EDITED = `"hi " + name // edited by the user`
scripts.edit = [
	{ tool: "read_file", args: { path: "src/app.ts" } },
	{
		tool: "read_file",
		args: { path: "README.md" },
		async before() {
			fs.writeFileSync(path.join(ws, "src", "app.ts"), `// ${ALLOWED}\nexport function greet(name: string) {\n\treturn ${EDITED}\n}\n`)
			await waitFor("the sidecar to record the user's edit of src/app.ts in task_metadata.json", () => {
				try {
					const meta = JSON.parse(fs.readFileSync(path.join(storage(), taskIdOf("edit"), "task_metadata.json"), "utf8"))
					return meta.files_in_context.some((f) => f.path === "src/app.ts" && f.user_edit_date)
				} catch {
					return false
				}
			}, 30_000)
		},
	},
	complete("Noted the edit."),
]
// Seed kill: the sidecar is killed while the task runs (before the agent's first tool call is
// answered). The read that follows must be refused (access stays closed), the error shown, and
// after the user's restart (the toast's button) the next task reads the file again.
let killed
scripts.kill = [
	{
		tool: "read_file",
		args: { path: "src/app.ts" },
		async before() {
			const victims = sidecars(cs.pid)
			assert(victims.length >= 1, "a sidecar runs before the kill")
			for (const p of victims) process.kill(p.pid, "SIGKILL")
			await waitFor("the killed sidecars to be gone", () => sidecars(cs.pid).every((p) => !victims.some((v) => v.pid === p.pid)), 10_000)
			killed = victims.map((p) => p.pid)
		},
	},
	complete("The read was refused."),
]
scripts.restarted = [{ tool: "read_file", args: { path: "src/app.ts" } }, complete("Read it again.")]
const restartedFlag = path.join(out, "restarted.flag")

const closedScripts = {
	closed: [{ tool: "read_file", args: { path: "src/app.ts" } }, complete("Access is closed.")],
}
const tasks = args["expect-closed"]
	? [{ name: "closed", text: "Read src/app.ts. SEED:closed", timeoutMs: 120_000 }]
	: [
			{ name: "read", text: "Read src/app.ts, then .env, then secrets/creds.txt. SEED:read" },
			{ name: "mention", text: "What does @/secrets/mentioned.md say? SEED:mention" },
			{ name: "edit", text: "Read src/app.ts, then README.md. SEED:edit" },
			{ name: "kill", text: "Read src/app.ts. SEED:kill" },
			{ name: "restarted", text: "Read src/app.ts again. SEED:restarted", waitForFile: restartedFlag },
		]

const requestEvents = []
const model = await startModelServer({
	dir: path.join(out, "requests"),
	scripts: args["expect-closed"] ? closedScripts : scripts,
	onRequest: (r) => requestEvents.push(r),
})
cleanups.push(() => model.close())
console.log(`[${secs()}] scripted model on ${model.url}`)

// --- code-server ----------------------------------------------------------------------------------
const eventsFile = path.join(out, "events.jsonl")
fs.writeFileSync(eventsFile, "")
const scenarioFile = path.join(out, "scenario.json")
fs.writeFileSync(
	scenarioFile,
	JSON.stringify(
		{
			extensionId: agent.extensionId,
			sidebarCommand: agent.sidebarCommand,
			events: eventsFile,
			configuration: {
				apiProvider: "openai",
				openAiBaseUrl: model.url,
				openAiApiKey: "e2e-not-a-key",
				openAiModelId: "scripted",
				openAiStreamingEnabled: true,
				lastShownAnnouncementId: agent.announcement,
				telemetrySetting: "disabled",
			},
			taskConfiguration: {
				autoApprovalEnabled: true,
				alwaysAllowReadOnly: true,
				alwaysAllowReadOnlyOutsideWorkspace: false,
				mode: "code",
			},
			tasks,
		},
		null,
		2,
	),
)
const events = () =>
	fs
		.readFileSync(eventsFile, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l))

const userData = path.join(out, "user-data")
fs.mkdirSync(path.join(userData, "User"), { recursive: true })
fs.writeFileSync(
	path.join(userData, "User", "settings.json"),
	JSON.stringify(
		{
			"workbench.startupEditor": "none",
			"workbench.tips.enabled": false,
			"chat.disableAIFeatures": true,
			"security.workspace.trust.enabled": false,
			"extensions.ignoreRecommendations": true,
			"telemetry.telemetryLevel": "off",
			"update.mode": "none",
			"git.openRepositoryInParentFolders": "never",
		},
		null,
		2,
	),
)
// The bridge's per-call log inside the extension host (method, milliseconds): the latency of the
// synchronous bridge in the real extension, and proof that the calls reached the sidecar.
const callLog = path.join(out, "calls.jsonl")
delete process.env.ROO_CONTEXT_BIN
function callSummary() {
	if (!fs.existsSync(callLog)) return { calls: 0, methods: {} }
	const calls = fs.readFileSync(callLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
	const methods = {}
	for (const c of calls) (methods[c.method] ??= []).push(c.ms)
	const pick = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]
	const all = calls.filter((c) => c.error === undefined).map((c) => c.ms).sort((a, b) => a - b)
	const summary = { calls: calls.length, failed: calls.filter((c) => c.error !== undefined).length, p50: pick(all, 0.5), p99: pick(all, 0.99), methods: {} }
	for (const [m, xs] of Object.entries(methods)) {
		xs.sort((a, b) => a - b)
		summary.methods[m] = { calls: xs.length, p50: pick(xs, 0.5), p99: pick(xs, 0.99) }
	}
	return summary
}
const port = await freePort()
const log = fs.openSync(path.join(out, "code-server.log"), "w")
const cs = spawn(
	node24,
	[
		entry,
		...["--config", path.join(out, "config.yaml"), "--bind-addr", `127.0.0.1:${port}`, "--auth", "none"],
		...["--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"],
		...["--reconnection-grace-time", "5", "--user-data-dir", userData, "--extensions-dir", path.resolve(args.extensions), ws],
	],
	{ detached: true, stdio: ["ignore", log, log], env: { ...process.env, ROO_E2E_SCENARIO: scenarioFile, ROO_CONTEXT_BIN: undefined, ROO_FAMILY_CALL_LOG: callLog } },
)
const csExited = new Promise((r) => cs.on("exit", r))
cleanups.push(async () => {
	try {
		process.kill(-cs.pid, "SIGTERM")
	} catch {}
	await Promise.race([csExited, new Promise((r) => setTimeout(r, 3000))])
	try {
		process.kill(-cs.pid, "SIGKILL")
	} catch {}
})
console.log(`[${secs()}] code-server pid ${cs.pid} on 127.0.0.1:${port}`)

let browser
async function finish(code) {
	if (browser) await browser.close().catch(() => {})
	for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
	process.exit(code)
}

try {
	await check("code-server answers /healthz", () =>
		waitFor("/healthz", async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok, STARTUP_MS),
	)
	browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] })
	page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
	await check("the workbench loads the workspace", async () => {
		await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`)
		await page.locator(".monaco-workbench").waitFor({ timeout: STARTUP_MS })
		await shot("01-workbench.png")
	})
	let activation
	await check(`${args.agent} activates (timed by the driver)`, async () => {
		activation = await waitFor("the driver's 'activated' event", () => events().find((e) => e.event === "activated" || e.event === "driverFailed"), STARTUP_MS)
		assert(activation.event === "activated", `driver: ${activation.error}`)
		console.log(`        activation ${activation.ms.toFixed(0)} ms${activation.wasActive ? " (already active)" : ""}`)
		fs.writeFileSync(path.join(out, "activation.json"), JSON.stringify(activation))
	})
	if (args["activation-only"]) {
		console.log(`[${secs()}] activation measured`)
		await finish(0)
	}
	await check("the agent's webview is ready", async () => {
		const e = await waitFor("the driver's 'ready' event", () => events().find((e) => e.event === "ready" || e.event === "driverFailed"), STARTUP_MS)
		assert(e.event === "ready", `driver: ${e.error}`)
		await shot("02-ready.png")
	})

	if (args["expect-closed"]) {
		await check("the error names the cause and offers a restart", async () => {
			const toast = page.locator(".notification-toast", { hasText: "roo-context cannot run" }).first()
			await toast.waitFor({ timeout: STARTUP_MS })
			const text = await toast.innerText()
			assert(/cannot start .*roo-context/.test(text), `the toast names the missing binary: ${text}`)
			assert(/Restart roo-context/.test(text), `the toast offers a restart: ${text}`)
			await shot("03-closed-error.png")
		})
		await check("the task goes on with the original modules (no stall) and completes", async () => {
			const ended = await waitFor("the task to end", () => events().find((e) => e.event === "taskEnded" || e.event === "driverFailed"), 150_000)
			await shot("04-closed-task.png")
			assert(ended.event === "taskEnded" && ended.outcome === "taskCompleted", `the task completed: ${JSON.stringify(ended)}`)
		})
		await check("access stayed closed: even the allowed file was refused with Roo's .rooignore message", async () => {
			const sent = model.requests.filter((r) => r.seed === "closed")
			assert(sent.length === 2, `2 requests for the closed task, got ${sent.length}`)
			const all = sent.map((r) => r.raw).join("\n")
			assert(!all.includes(ALLOWED), "no byte of src/app.ts reached the model while access is closed")
			const result = JSON.parse(sent[1].raw).messages.filter((m) => m.role === "tool").map((m) => textOf(m.content)).at(-1) ?? ""
			assert(/Access blocked by \.rooignore/.test(result) && result.includes("src/app.ts"), `request 2's tool result: ${result}`)
		})
	} else {
		for (const task of tasks) {
			if (task.name === "restarted") {
				await check("the sidecar's death is shown, naming the cause, with a restart; the restart is clicked", async () => {
					const toast = page.locator(".notification-toast", { hasText: "roo-context cannot run" }).first()
					await toast.waitFor({ timeout: 60_000 })
					const text = await toast.innerText()
					assert(/roo-context exited \(signal SIGKILL\)/.test(text), `the toast names the cause: ${text}`)
					await shot("04-killed.png")
					await toast.getByRole("button", { name: "Restart roo-context" }).click()
					await toast.waitFor({ state: "detached", timeout: 15_000 })
					fs.writeFileSync(restartedFlag, "")
				})
			}
			await check(`task '${task.name}' completes (its result accepted)`, async () => {
				const e = await waitFor(`task '${task.name}' to end`, () => events().find((e) => (e.event === "taskEnded" && e.name === task.name) || e.event === "driverFailed"), 240_000)
				await shot(`03-${task.name}.png`)
				assert(e.event === "taskEnded" && e.outcome === "taskCompleted", `task ${task.name}: ${JSON.stringify(e)}`)
			})
		}
		const bySeed = (seed) => model.requests.filter((r) => r.seed === seed && r.method === "POST")
		const toolResults = (r) => {
			const body = JSON.parse(r.raw)
			return body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content))
		}
		await check("seed read: the allowed file reached the model", async () => {
			const sent = bySeed("read")
			assert(sent.length === 4, `4 requests for the read task, got ${sent.length}`)
			assert(toolResults(sent[1]).some((t) => t.includes(ALLOWED)), "request 2 carries src/app.ts")
		})
		await check("seed read: .env and secrets/creds.txt refused with Roo's .rooignore message", async () => {
			const sent = bySeed("read")
			const third = toolResults(sent[2]).at(-1) ?? ""
			const fourth = toolResults(sent[3]).at(-1) ?? ""
			assert(/Access blocked by \.rooignore/.test(third) && third.includes(".env"), `request 3's tool result: ${third}`)
			assert(/Access blocked by \.rooignore/.test(fourth) && fourth.includes("secrets/creds.txt"), `request 4's tool result: ${fourth}`)
		})
		await check("seed mention: the @-mentioned ignored file is not sent", async () => {
			const [first] = bySeed("mention")
			assert(first, "the mention task reached the model")
			assert(/Note: File is ignored by \.rooignore\./.test(first.raw), "the mention says the file is ignored")
		})
		await check("seed edit: the next request's environment details name the user's edit", async () => {
			const sent = bySeed("edit")
			assert(sent.length === 3, `3 requests for the edit task, got ${sent.length}`)
			const env = (r) => /# Recently Modified Files[^#]*/.exec(r.raw.replace(/\\n/g, "\n"))?.[0] ?? ""
			assert(!env(sent[1]).includes("src/app.ts"), "request 2 (before the edit) names no modified file")
			assert(env(sent[2]).includes("src/app.ts"), `request 3 names src/app.ts as modified: ${env(sent[2]) || "no such section"}`)
		})
		await check("seed kill: after the sidecar was killed, the read was refused and the task completed", async () => {
			const sent = bySeed("kill")
			assert(killed?.length >= 1, "the sidecar was killed")
			assert(sent.length === 2, `2 requests for the kill task, got ${sent.length}`)
			const result = toolResults(sent[1]).at(-1) ?? ""
			assert(/Access blocked by \.rooignore/.test(result) && result.includes("src/app.ts"), `request 2's tool result: ${result}`)
			assert(!sent[1].raw.includes(ALLOWED), "no byte of src/app.ts reached the model after the kill")
		})
		await check("seed restarted: a restart from the error resumes access", async () => {
			const sent = bySeed("restarted")
			assert(sent.length === 2, `2 requests for the task after the restart, got ${sent.length}`)
			assert(toolResults(sent[1]).some((t) => t.includes(ALLOWED)), "request 2 carries src/app.ts again")
			const running = sidecars(cs.pid)
			assert(running.length >= 1 && running.every((p) => !killed.includes(p.pid)), "a new sidecar runs")
		})
	}
	await check("no secret byte in any request the model received", async () => {
		const hits = []
		for (const r of model.requests) for (const s of SECRETS) if (r.raw.includes(s)) hits.push(`${r.n}:${s}`)
		fs.writeFileSync(path.join(out, "secret-scan.json"), JSON.stringify({ requests: model.requests.length, markers: SECRETS.length, hits }, null, 2))
		assert(hits.length === 0, `secret markers in requests: ${hits.join(", ")}`)
		console.log(`        ${model.requests.length} requests scanned for ${SECRETS.length} markers: 0 hits`)
	})
	await check("the sidecar ran inside the extension host", async () => {
		const running = sidecars(cs.pid)
		if (args["expect-closed"]) assert(running.length === 0, "no sidecar runs when the binary is missing")
		else assert(running.length >= 1, "a roo-context process runs in code-server's process group")
	})
	const calls = callSummary()
	fs.writeFileSync(path.join(out, "calls-summary.json"), JSON.stringify(calls, null, 2))
	console.log(`        bridge: ${calls.calls} calls (${calls.failed} refused), answered p50 ${calls.p50?.toFixed(2)} ms, p99 ${calls.p99?.toFixed(2)} ms`)
	console.log(`[${secs()}] passed (${args.agent}${args["expect-closed"] ? ", closed" : ""})`)
	await finish(0)
} catch (error) {
	console.error(`[${secs()}] FAILED at '${stepName}': ${error.message}`)
	await shot(`fail-${stepName.replace(/\W+/g, "-")}.png`)
	try {
		console.error("events tail:\n" + fs.readFileSync(eventsFile, "utf8").split("\n").slice(-15).join("\n"))
	} catch {}
	await finish(1)
}
