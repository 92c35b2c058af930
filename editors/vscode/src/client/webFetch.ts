// The host's answer to a URL mention: a bounded fetch (byte cap, deadline, cancellation, bounded
// redirects, text-like content types only) followed by HTML-to-Markdown in a worker thread and the
// mention limits. One deadline and the cancellation cover download and conversion alike. Uses the
// runtime's `fetch`, so inside VS Code the editor's proxy settings apply.

import * as path from "node:path";
import { Worker } from "node:worker_threads";
import { capToMentionLimits } from "./markdown";
import type { MarkdownJob, MarkdownOutcome } from "./markdownWorker";

/** Default byte cap of a page: the download stops there and the rest is left out (5 MiB). */
export const DEFAULT_MAX_PAGE_BYTES = 5 * 1024 * 1024;
/**
 * Default deadline for the whole mention (redirects, download and conversion): below the sidecar's
 * default `hostTimeoutMs` (10000), so the host's own error names the cause before it gives up.
 */
export const DEFAULT_FETCH_TIMEOUT_MS = 9000;
/** Default number of redirects followed before giving up. */
export const DEFAULT_MAX_REDIRECTS = 5;
/** Heap limit of the conversion thread: a page whose DOM needs more fails instead of the host. */
const CONVERSION_HEAP_MB = 1024;

/** Limits of {@link fetchPage} and {@link resolveUrlMention}; every field has a default. */
export interface PageFetchOptions {
  /** Aborts the fetch (the sidecar cancelled the request). */
  signal?: AbortSignal;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
}

/** A page's text as downloaded. */
export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  /** The media type, lower case, without parameters (`""` when the server sent none). */
  mediaType: string;
  text: string;
  /** True when the body was longer than the byte cap and only the first part was read. */
  truncated: boolean;
  /** The byte cap that applied. */
  maxBytes: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Media types read as text besides `text/*`; everything else is refused unread. */
const TEXT_MEDIA_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/xhtml+xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/typescript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
]);

/** Whether a body of `mediaType` is read (`""`, no Content-Type, is read and sniffed). */
export function isTextMediaType(mediaType: string): boolean {
  return (
    mediaType === "" ||
    mediaType.startsWith("text/") ||
    TEXT_MEDIA_TYPES.has(mediaType) ||
    /^application\/[\w.+-]+\+(json|xml)$/.test(mediaType)
  );
}

function isHtml(mediaType: string): boolean {
  return mediaType === "text/html" || mediaType === "application/xhtml+xml";
}

/** The `charset` parameter of a Content-Type, else a `<meta charset>` in the first bytes of HTML. */
function charsetOf(contentType: string, mediaType: string, head: Uint8Array): string {
  const declared = /;\s*charset="?([\w.:-]+)"?/i.exec(contentType)?.[1];
  if (declared) return declared;
  if (isHtml(mediaType)) {
    const start = Buffer.from(head.subarray(0, 1024)).toString("latin1");
    const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(start)?.[1];
    if (meta) return meta;
  }
  return "utf-8";
}

function decode(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 is the web's default.
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** A NUL byte in the first 8000 bytes (git's test) marks a binary body served as text. */
function looksBinary(bytes: Uint8Array, charset: string): boolean {
  if (/^utf-?(16|32)/i.test(charset)) return false;
  return bytes.subarray(0, 8000).includes(0);
}

function httpUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${what} is not a valid URL: ${value}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`${what} is not an http(s) URL: ${value}`);
  }
  return url;
}

/** Reads at most `maxBytes` of `body`; stops the download (closes the connection) at the cap. */
async function readCapped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - length));
      length = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    length += value.length;
  }
  return { bytes: Buffer.concat(chunks, length), truncated };
}

/**
 * GETs `url` within the limits: at most `maxRedirects` redirects (each to http or https), one
 * deadline of `timeoutMs` for all of it, at most `maxBytes` of body, only text-like media types
 * (others are refused without reading the body), and aborted when `signal` fires. Errors say
 * which limit or answer stopped it.
 */
export function fetchPage(url: string, options: PageFetchOptions = {}): Promise<FetchedPage> {
  return withLimits(options, (signal) => fetchWithin(url, signal, options));
}

/**
 * Runs `work` with a signal that aborts at the deadline (`timeoutMs`) or when `options.signal`
 * aborts; a failure caused by the abort is reported as its reason (`timed out after N ms`, or
 * the caller's), not as a generic AbortError.
 */
async function withLimits<T>(options: PageFetchOptions, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const cancelled = () => controller.abort(options.signal?.reason ?? new Error("cancelled"));
  if (options.signal?.aborted) cancelled();
  options.signal?.addEventListener("abort", cancelled);
  try {
    if (controller.signal.aborted) throw controller.signal.reason;
    return await work(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", cancelled);
  }
}

async function fetchWithin(url: string, signal: AbortSignal, options: PageFetchOptions): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_PAGE_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let current = httpUrl(url, "the mention");
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(current, {
      method: "GET",
      redirect: "manual",
      signal,
      headers: {
        accept: "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.1",
        "user-agent": "roo-context (VS Code extension; URL mention)",
      },
    }).catch((error: unknown) => {
      // Node's fetch says only "fetch failed"; the cause names the network error.
      const cause = (error as { cause?: unknown })?.cause;
      if (!signal.aborted && cause instanceof Error) throw new Error(`${(error as Error).message}: ${cause.message}`);
      throw error;
    });
    if (REDIRECT_STATUSES.has(response.status)) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      if (!location) throw new Error(`HTTP ${response.status} redirect without a Location header`);
      if (redirects >= maxRedirects) throw new Error(`too many redirects (more than ${maxRedirects})`);
      current = httpUrl(new URL(location, current).href, "a redirect");
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
    }
    const contentType = response.headers.get("content-type") ?? "";
    const mediaType = contentType.split(";")[0].trim().toLowerCase();
    if (!isTextMediaType(mediaType)) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`content type ${mediaType} is not text; only text pages (HTML, Markdown, plain text, JSON, XML, ...) are read`);
    }
    const { bytes, truncated } = response.body
      ? await readCapped(response.body, maxBytes)
      : { bytes: new Uint8Array(), truncated: false };
    const charset = charsetOf(contentType, mediaType, bytes);
    if (looksBinary(bytes, charset)) {
      throw new Error(`the body is binary (content type ${mediaType || "not given"}); only text pages are read`);
    }
    return { url: current.href, mediaType, text: decode(bytes, charset), truncated, maxBytes };
  }
}

/**
 * {@link htmlToMarkdown} in a worker thread, terminated when `signal` aborts (deadline or
 * cancellation), so neither a huge page nor a pathological one (deep nesting is quadratic in
 * the parser) can block the extension host.
 */
export function convertHtmlOffThread(html: string, pageUrl: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const worker = new Worker(path.join(__dirname, "markdownWorker.js"), {
      resourceLimits: { maxOldGenerationSizeMb: CONVERSION_HEAP_MB },
    });
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", aborted);
      void worker.terminate();
      finish();
    };
    const aborted = () => settle(() => reject(signal.reason));
    signal.addEventListener("abort", aborted);
    worker.once("message", (outcome: MarkdownOutcome) =>
      settle(() => ("markdown" in outcome ? resolve(outcome.markdown) : reject(new Error(outcome.error)))),
    );
    worker.once("error", (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          new Error(
            error.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? `the page could not be converted to Markdown: it needs more than ${CONVERSION_HEAP_MB} MB`
              : `the page could not be converted to Markdown: ${error.message}`,
          ),
        ),
      ),
    );
    worker.once("exit", (code) => settle(() => reject(new Error(`the Markdown conversion stopped (exit code ${code})`))));
    worker.postMessage({ html, pageUrl } satisfies MarkdownJob);
  });
}

/**
 * The content of a URL mention: the page fetched within the limits, HTML as Markdown, cut to the
 * sidecar's mention limits, with a note when the byte cap or the line limit left something out.
 * Throws with a readable message (the sidecar shows it as `Error fetching content: ...`).
 */
export function resolveUrlMention(url: string, options: PageFetchOptions = {}): Promise<string> {
  return withLimits(options, async (signal) => {
    const page = await fetchWithin(url, signal, options);
    const text = isHtml(page.mediaType) ? await convertHtmlOffThread(page.text, page.url, signal) : page.text;
    const notes = page.truncated
      ? [`[Content truncated: the page is larger than ${page.maxBytes} bytes; only the first ${page.maxBytes} were read.]`]
      : [];
    return capToMentionLimits(text, notes);
  });
}
