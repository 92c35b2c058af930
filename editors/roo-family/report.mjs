// Reads a run of the upstream suite (vitest's JSON report and the bridge's per-call log) and
// judges it against the allow-list. Exit 0 when the run is as expected:
//   swap      every failure is on the allow-list, and every listed test still fails;
//   control   (binary path pointing nowhere) every test that called the sidecar failed;
//   baseline  nothing to judge: the counts only.
// Prints `N of M upstream tests pass (K reached the sidecar), F failures: all on the allow-list`,
// the per-module table and the bridge's latency per method.

import * as fs from "node:fs"
import * as path from "node:path"

const args = Object.fromEntries(
	process.argv
		.slice(2)
		.reduce((pairs, arg, i, all) => (arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []),
)
const agent = args.agent
const mode = args.mode
const filtered = "filtered" in args

if (!fs.existsSync(args.results)) {
	console.error(`no vitest report at ${args.results}: see the vitest log next to it`)
	process.exit(1)
}
const report = JSON.parse(fs.readFileSync(args.results, "utf8"))
const root = path.dirname(args.results)

/** `file > describe > test`, the key of a test in the allow-list and the call log. */
const keyOf = (file, name) => `${file} > ${name}`

const tests = new Map()
for (const file of report.testResults) {
	const relative = path.relative(path.join(file.name.split("/src/")[0], "src"), file.name)
	if (file.assertionResults.length === 0 && file.status === "failed") {
		tests.set(keyOf(relative, "(file)"), { file: relative, status: "failed", message: file.message })
	}
	for (const test of file.assertionResults) {
		const name = [...test.ancestorTitles, test.title].join(" > ")
		tests.set(keyOf(relative, name), {
			file: relative,
			status: test.status,
			message: test.failureMessages?.[0]?.split("\n")[0],
		})
	}
}

const calls = fs.existsSync(args.calls)
	? fs
			.readFileSync(args.calls, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line))
	: []
const reached = new Set(calls.filter((c) => c.file && c.test).map((c) => keyOf(c.file, c.test)))

// Derived specs (derived/, copied in by run.sh) replay an upstream test's inputs and expected
// outputs on real files where the upstream test mocks inside the boundary; counted apart.
const isDerived = (file) => /\.roo-context\.spec\.ts$/.test(file)
const runnable = [...tests.values()].filter((t) => t.status !== "skipped" && t.status !== "pending")
const counted = runnable.filter((t) => !isDerived(t.file))
const derived = runnable.filter((t) => isDerived(t.file))
const passed = counted.filter((t) => t.status === "passed").length
const failed = [...tests.entries()].filter(([, t]) => t.status === "failed")
const reachedUpstream = [...reached].filter((k) => tests.has(k) && !isDerived(tests.get(k).file))
const reachedPassing = reachedUpstream.filter((k) => tests.get(k).status === "passed").length
const reachedDerived = [...reached].filter((k) => tests.has(k) && isDerived(tests.get(k).file)).length

const allow = fs.existsSync(args.allow) ? JSON.parse(fs.readFileSync(args.allow, "utf8")) : { failures: [] }
const listed = new Map(allow.failures.map((f) => [keyOf(f.file, f.test), f.reason]))

const lines = []
const problems = []
lines.push(`${agent} (${mode}): ${passed} of ${counted.length} upstream tests pass (${reachedUpstream.length} reached the sidecar, ${reachedPassing} of them pass), ${failed.length} failures`)
if (derived.length > 0) {
	const derivedPassed = derived.filter((t) => t.status === "passed").length
	lines.push(`derived suites: ${derivedPassed} of ${derived.length} pass (${reachedDerived} reached the sidecar)`)
}

if (mode === "swap") {
	const unlisted = failed.filter(([k]) => !listed.has(k))
	const nowPassing = [...listed.keys()].filter((k) => tests.has(k) && tests.get(k).status === "passed")
	const missing = filtered ? [] : [...listed.keys()].filter((k) => !tests.has(k))
	for (const [k, t] of unlisted) problems.push(`failed, not on the allow-list: ${k}\n    ${t.message ?? ""}`)
	for (const k of nowPassing) problems.push(`on the allow-list but passes now (remove it): ${k}`)
	for (const k of missing) problems.push(`on the allow-list but not in the suite: ${k}`)
	if (problems.length === 0) lines.push(`${failed.length} failures: all on the allow-list`)
	if (!filtered && reached.size === 0) problems.push("no test reached the sidecar: is the swap on?")
} else if (mode === "control") {
	const attempted = new Set(calls.filter((c) => c.file && c.test).map((c) => keyOf(c.file, c.test)))
	const survived = [...attempted].filter((k) => tests.get(k)?.status === "passed")
	lines.push(`negative control: ${attempted.size} tests called the missing sidecar, ${attempted.size - survived.length} of them failed`)
	if (attempted.size === 0) problems.push("negative control: no test called the sidecar")
	for (const k of survived) problems.push(`negative control: passed without a sidecar: ${k}`)
}

// Per module: the adapter's own spec files (the originals' __tests__ named after the module).
const modules = new Map()
for (const [k, t] of tests) {
	const base = path.basename(t.file).replace(/\.(spec|test)\.tsx?$/, "").split(".")[0]
	// A spec in `__tests__/` is named after its module's folder; one beside its module (as
	// message-manager/index.spec.ts) after its own folder.
	const folder = path.dirname(t.file)
	const dir = path.basename(folder) === "__tests__" ? path.dirname(folder) : folder
	const module = `${dir}/${base}${isDerived(t.file) ? " (derived)" : ""}`
	if (!modules.has(module)) modules.set(module, { total: 0, passed: 0, reached: 0 })
	const m = modules.get(module)
	if (t.status === "skipped" || t.status === "pending") continue
	m.total++
	if (t.status === "passed") m.passed++
	if (reached.has(k)) m.reached++
}
const table = [...modules.entries()].filter(([, m]) => m.reached > 0).sort(([a], [b]) => a.localeCompare(b))
if (table.length > 0) {
	lines.push("", "| module (its own spec files) | pass | tests | reached the sidecar |", "| --- | --- | --- | --- |")
	for (const [module, m] of table) lines.push(`| ${module} | ${m.passed} | ${m.total} | ${m.reached} |`)
}

// Latency per method from the call log.
const byMethod = new Map()
for (const c of calls) {
	if (!byMethod.has(c.method)) byMethod.set(c.method, [])
	byMethod.get(c.method).push(c.ms)
}
if (byMethod.size > 0 && mode !== "control") {
	const pick = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
	lines.push("", "| method | calls | p50 ms | p99 ms |", "| --- | --- | --- | --- |")
	for (const [method, ms] of [...byMethod.entries()].sort()) {
		const sorted = [...ms].sort((a, b) => a - b)
		lines.push(`| ${method} | ${sorted.length} | ${pick(sorted, 0.5).toFixed(2)} | ${pick(sorted, 0.99).toFixed(2)} |`)
	}
}
lines.push("", `suite time: ${args.seconds} s`)

const text = [...lines, ...problems.map((p) => `PROBLEM: ${p}`)].join("\n")
console.log(text)
fs.writeFileSync(path.join(root, "summary.md"), text + "\n")
process.exit(problems.length === 0 ? 0 : 1)
