// Measures the URL-mention conversion: turndown in a worker thread (what the extension does)
// against the same conversion on the calling thread (the baseline), for a small and a large page
// built from test/fixtures/page.html. Prints medians and the ratio worker / in-thread, so the
// worker's start-up cost can be judged on any machine. Run: npm run bench (after npm ci).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { htmlToMarkdown } = require("../out/src/client/markdown.js");
const { convertHtmlOffThread } = require("../out/src/client/webFetch.js");

const page = readFileSync(path.join(here, "..", "test", "fixtures", "page.html"), "utf8");
const body = page.slice(page.indexOf("<body>") + 6, page.indexOf("</body>"));
const pages = {
  small: page,
  large: `<html><body>${body.repeat(Math.ceil((1024 * 1024) / body.length))}</body></html>`,
};
const runs = Number(process.env.RUNS ?? 5);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
async function time(work) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await work();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

for (const [name, html] of Object.entries(pages)) {
  const url = "https://example.invalid/docs/page.html";
  const inThread = await time(() => htmlToMarkdown(html, url));
  const inWorker = await time(() => convertHtmlOffThread(html, url, new AbortController().signal));
  console.log(
    `${name} page (${(html.length / 1024).toFixed(0)} KiB): in-thread ${inThread.toFixed(1)} ms, ` +
      `worker ${inWorker.toFixed(1)} ms, ratio worker/in-thread ${(inWorker / inThread).toFixed(2)}`,
  );
}
