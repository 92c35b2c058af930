// Test-only driver inside the extension host: drives the agent through its own exported API, as
// the agent's e2e suite does (setConfiguration, then startNewTask), and writes every event it
// sees to the events file that drive.mjs waits on (JSON lines). The scenario comes from the file
// named by ROO_E2E_SCENARIO: { extensionId, sidebarCommand, configuration, taskConfiguration,
// tasks: [{ name, text }], events }. A task's completion result is accepted (the primary button),
// since a task completes only then. Activates at startup ("*"), before the agent
// (onStartupFinished), so that it can time the agent's activation.
const fs = require("node:fs")
const vscode = require("vscode")

exports.activate = (context) => {
	const file = process.env.ROO_E2E_SCENARIO
	if (!file) return
	const scenario = JSON.parse(fs.readFileSync(file, "utf8"))
	const log = (event) => fs.appendFileSync(scenario.events, JSON.stringify({ at: Date.now(), ...event }) + "\n")
	run(scenario, log).catch((error) => log({ event: "driverFailed", error: String(error?.stack ?? error) }))
	context.subscriptions.push(
		vscode.commands.registerCommand("roo-e2e.runTask", async (text) => {
			const api = vscode.extensions.getExtension(scenario.extensionId).exports
			return api.startNewTask({ configuration: scenario.taskConfiguration, text })
		}),
	)
}

async function run(scenario, log) {
	const extension = vscode.extensions.getExtension(scenario.extensionId)
	if (!extension) throw new Error(`${scenario.extensionId} is not installed`)
	const wasActive = extension.isActive
	const started = performance.now()
	const api = wasActive ? extension.exports : await extension.activate()
	log({ event: "activated", ms: performance.now() - started, wasActive })

	const completed = new Map()
	const waiters = new Map()
	api.on("message", ({ taskId, message }) => {
		if (message.partial) return
		log({ event: "message", taskId, type: message.type, say: message.say, ask: message.ask, text: message.text })
		if (message.type === "ask" && message.ask === "completion_result") {
			// Accepting the result is what completes a task: the webview's `askResponse`
			// message with `yesButtonClicked`, which the webview's own primary button does not
			// send for a completion (it starts a new task, which aborts this one). The API has no
			// call for it, so the driver answers the ask as the message handler does.
			const current = api.sidebarProvider?.getCurrentTask?.()
			if (current?.taskId === taskId) current.handleWebviewAskResponse("yesButtonClicked")
			else log({ event: "cannotAccept", taskId })
		}
	})
	for (const name of ["taskStarted", "taskCompleted", "taskAborted", "taskToolFailed"]) {
		api.on(name, (taskId, ...rest) => {
			log({ event: name, taskId, detail: name === "taskToolFailed" ? rest : undefined })
			if (name === "taskCompleted" || name === "taskAborted") {
				completed.set(taskId, name)
				waiters.get(taskId)?.(name)
			}
		})
	}

	await api.setConfiguration(scenario.configuration)
	await vscode.commands.executeCommand(scenario.sidebarCommand)
	await until(() => api.isReady(), 60_000, "the agent's webview to be ready")
	log({ event: "ready" })

	for (const task of scenario.tasks) {
		if (task.waitForFile) {
			// drive.mjs acts first (kills the sidecar, say) and writes this file when it has.
			await until(() => fs.existsSync(task.waitForFile), 120_000, `${task.waitForFile}`)
		}
		const taskId = await api.startNewTask({ configuration: scenario.taskConfiguration, text: task.text })
		log({ event: "taskSubmitted", name: task.name, taskId })
		const outcome = await new Promise((resolve) => {
			if (completed.has(taskId)) return resolve(completed.get(taskId))
			waiters.set(taskId, resolve)
			setTimeout(() => resolve("timeout"), task.timeoutMs ?? 180_000)
		})
		log({ event: "taskEnded", name: task.name, taskId, outcome })
		if (outcome !== "taskCompleted" && !task.mayFail) break
		await api.clearCurrentTask()
	}
	log({ event: "done" })
}

async function until(condition, timeoutMs, what) {
	const end = Date.now() + timeoutMs
	while (!(await condition())) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
		await new Promise((resolve) => setTimeout(resolve, 100))
	}
}

exports.deactivate = () => {}
