// The worker thread that converts one HTML page to Markdown, so a slow or hostile page (huge or
// deeply nested) never blocks the extension host and can be stopped at the deadline or on
// cancellation by terminating the thread (see convertHtmlOffThread in webFetch.ts).

import { parentPort } from "node:worker_threads";
import { htmlToMarkdown } from "./markdown";

/** What the worker receives. */
export interface MarkdownJob {
  html: string;
  pageUrl: string;
}

/** What the worker answers. */
export type MarkdownOutcome = { markdown: string } | { error: string };

parentPort?.once("message", (job: MarkdownJob) => {
  let outcome: MarkdownOutcome;
  try {
    outcome = { markdown: htmlToMarkdown(job.html, job.pageUrl) };
  } catch (error) {
    outcome = { error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(outcome);
});
