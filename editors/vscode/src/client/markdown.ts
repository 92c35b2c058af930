// Turns a fetched page into the text a URL mention carries: HTML becomes Markdown (turndown with the
// GFM plugin for tables and strikethrough, parsed by domino, so it runs in Node without a browser),
// and every result is cut to the sidecar's mention limits (the same lines and line length as a file
// mention), with a note saying what was left out.

import domino from "@mixmark-io/domino";
import TurndownService from "turndown";
import { gfm } from "@joplin/turndown-plugin-gfm";

/** Most lines a mention carries (the sidecar's `DEFAULT_LINE_LIMIT` for file mentions). */
export const MENTION_MAX_LINES = 2000;
/** Longest line, in UTF-16 units (the sidecar's `MAX_LINE_LENGTH`); longer lines end in `...`. */
export const MENTION_MAX_LINE_LENGTH = 2000;

/** Elements whose content is never page text. */
const DROPPED_ELEMENTS: TurndownService.TagName[] = [
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "embed",
  "canvas",
  "svg" as TurndownService.TagName,
];

function converter(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  service.use(gfm);
  service.remove(DROPPED_ELEMENTS);
  // Inline images (`data:` URLs) can be megabytes of base64: keep only what they stand for.
  service.addRule("inlineDataImage", {
    filter: (node: any) => node.nodeName === "IMG" && /^data:/i.test(node.getAttribute("src") ?? ""),
    replacement: (_content: string, node: any) => {
      const alt = (node.getAttribute("alt") ?? "").trim();
      return alt ? `[image: ${alt}]` : "";
    },
  });
  return service;
}

/** Rewrites `attribute` of every `selector` match to an absolute URL (unparsable values stay). */
function absolutize(document: any, selector: string, attribute: string, base: string): void {
  for (const element of document.querySelectorAll(selector)) {
    const value = element.getAttribute(attribute);
    if (value === null || /^(#|data:|javascript:|mailto:)/i.test(value.trim())) continue;
    try {
      element.setAttribute(attribute, new URL(value.trim(), base).href);
    } catch {
      // A malformed URL is left as the page wrote it.
    }
  }
}

/**
 * Converts an HTML page to Markdown, keeping headings, links, lists, tables and code blocks.
 * Relative links and image sources are resolved against the page's `<base href>` or `pageUrl`
 * (the URL after redirects). Scripts, styles and embedded objects are dropped.
 */
export function htmlToMarkdown(html: string, pageUrl: string): string {
  const document = domino.createDocument(html);
  let base = pageUrl;
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl).href;
    } catch {
      // An unusable <base> is ignored.
    }
  }
  absolutize(document, "a[href]", "href", base);
  absolutize(document, "img[src]", "src", base);
  try {
    return converter().turndown(document.body ?? document.documentElement).trim();
  } catch (error) {
    // turndown recurses per element: thousands of nested elements overflow the stack.
    const why = error instanceof RangeError ? "the page nests its elements too deeply" : String(error);
    throw new Error(`the page could not be converted to Markdown: ${why}`);
  }
}

/** `line` cut to the mention line length, never splitting a surrogate pair. */
function capLine(line: string): string {
  if (line.length <= MENTION_MAX_LINE_LENGTH) return line;
  let end = MENTION_MAX_LINE_LENGTH - 3;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${line.slice(0, end)}...`;
}

/**
 * Cuts `text` to the sidecar's mention limits: at most {@link MENTION_MAX_LINES} lines in all,
 * each at most {@link MENTION_MAX_LINE_LENGTH} units. `notes` (e.g. "the download stopped at the
 * byte cap") are appended after a blank line, together with the line count when lines were
 * dropped; the notes' lines count toward the limit.
 */
export function capToMentionLimits(text: string, notes: string[] = []): string {
  const lines = text.split("\n");
  const allNotes = [...notes];
  // Room for the blank line and the notes, plus the line-count note if it turns out to be needed.
  const roomWithNotes = MENTION_MAX_LINES - (allNotes.length + 2);
  let kept = lines;
  if (lines.length + (allNotes.length ? allNotes.length + 1 : 0) > MENTION_MAX_LINES) {
    kept = lines.slice(0, roomWithNotes);
    allNotes.push(`[Content truncated: showing lines 1-${kept.length} of ${lines.length}.]`);
  }
  const body = kept.map(capLine).join("\n");
  return allNotes.length ? `${body}\n\n${allNotes.join("\n")}` : body;
}
