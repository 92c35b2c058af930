// URL mentions against a real HTTP server on 127.0.0.1 started by each test: a page through a
// redirect (golden Markdown), a body above the byte cap, slow servers, binaries, a redirect loop,
// and a request the sidecar cancels through a real JSON-RPC connection.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as http from "node:http";
import { AddressInfo } from "node:net";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import * as zlib from "node:zlib";
import {
  CancellationTokenSource,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
} from "vscode-jsonrpc/node";
import { registerHostHandlers } from "../src/client/host";
import { MENTION_MAX_LINES, capToMentionLimits, htmlToMarkdown } from "../src/client/markdown";
import { startSession, transportOf } from "../src/client/session";
import { DEFAULT_MAX_PAGE_BYTES, fetchPage, resolveUrlMention } from "../src/client/webFetch";
import { serverBinary, workspace } from "./fixture";

const FIXTURES = path.resolve(__dirname, "..", "..", "test", "fixtures");

/** What the server saw of one response: whether the client hung up before the body ended. */
interface Served {
  path: string;
  bytesWritten: number;
  /** Resolves with true when the connection closed before the response finished. */
  closedEarly: Promise<boolean>;
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** An HTTP server on 127.0.0.1 (a free port) serving `routes`; records every response. */
async function serve(routes: Record<string, Route>) {
  const served: Served[] = [];
  const server = http.createServer((req, res) => {
    const route = routes[new URL(req.url ?? "/", "http://x").pathname];
    let finished = false;
    res.on("finish", () => (finished = true));
    const record: Served = {
      path: req.url ?? "",
      bytesWritten: 0,
      closedEarly: new Promise((resolve) => res.on("close", () => resolve(!finished))),
    };
    served.push(record);
    const write = res.write.bind(res);
    res.write = ((chunk: any, ...rest: any[]) => {
      record.bytesWritten += Buffer.byteLength(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
      return;
    }
    route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (p: string) => `http://127.0.0.1:${port}${p}`,
    served,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes `chunk` until the client hangs up or `limit` bytes went out (the server stops by itself). */
function stream(res: http.ServerResponse, chunk: Buffer, limit: number): void {
  let sent = 0;
  const pump = () => {
    while (sent < limit && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

test("an HTML page behind a redirect becomes the golden Markdown, links made absolute", async () => {
  const page = fs.readFileSync(path.join(FIXTURES, "page.html"));
  const server = await serve({
    "/start": (_req, res) => res.writeHead(301, { location: "/docs/widgets/page.html" }).end(),
    "/docs/widgets/page.html": (_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page),
  });
  try {
    const content = await resolveUrlMention(server.url("/start"));
    const golden = path.join(FIXTURES, "page.md");
    const expected = fs.readFileSync(golden, "utf8").replaceAll("http://SERVER", server.url(""));
    if (process.env.UPDATE_GOLDEN) fs.writeFileSync(golden, `${content.replaceAll(server.url(""), "http://SERVER")}\n`);
    else assert.equal(`${content}\n`, expected);
    for (const kept of ["# Widget guide", "| Name | Default | Meaning |", "```sh", "1.  Download", "[image: widget logo]"]) {
      assert.ok(content.includes(kept), `${kept} is kept`);
    }
    for (const dropped of ["must not appear", "nor this", "svg text", "Enable JavaScript", "base64", "font-family"]) {
      assert.ok(!content.includes(dropped), `${dropped} is dropped`);
    }
    assert.deepEqual(server.served.map((s) => s.path), ["/start", "/docs/widgets/page.html"]);
  } finally {
    await server.close();
  }
});

test("a body above the byte cap is cut there, the download stops, and the text says so", async () => {
  const line = Buffer.from(`${"0123456789".repeat(10)}\n`);
  const server = await serve({
    "/huge.txt": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      stream(res, Buffer.concat(Array(640).fill(line)), 8 * DEFAULT_MAX_PAGE_BYTES);
    },
  });
  try {
    const page = await fetchPage(server.url("/huge.txt"));
    assert.equal(page.truncated, true);
    assert.equal(Buffer.byteLength(page.text), DEFAULT_MAX_PAGE_BYTES);
    assert.equal(await server.served[0].closedEarly, true, "the client hung up before the end");
    assert.ok(server.served[0].bytesWritten < 8 * DEFAULT_MAX_PAGE_BYTES);

    const content = await resolveUrlMention(server.url("/huge.txt"));
    const lines = content.split("\n");
    assert.equal(lines.length, MENTION_MAX_LINES);
    assert.equal(lines[0], line.toString().trimEnd());
    assert.equal(
      lines.slice(-2).join("\n"),
      `[Content truncated: the page is larger than ${DEFAULT_MAX_PAGE_BYTES} bytes; only the first ${DEFAULT_MAX_PAGE_BYTES} were read.]\n` +
        `[Content truncated: showing lines 1-1997 of ${Math.ceil(DEFAULT_MAX_PAGE_BYTES / line.length)}.]`,
    );
  } finally {
    await server.close();
  }
});

test("a compressed body is capped after decompression (a gzip bomb stays at the cap)", async () => {
  const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, "a"));
  const server = await serve({
    "/bomb.txt": (_req, res) => res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(bomb),
  });
  try {
    const page = await fetchPage(server.url("/bomb.txt"));
    assert.equal(page.truncated, true);
    assert.equal(page.text.length, DEFAULT_MAX_PAGE_BYTES);
  } finally {
    await server.close();
  }
});

test("a huge HTML page is converted up to a smaller byte cap", async () => {
  const section = Buffer.from("<h2>Part</h2><p>Text with <a href='/x'>a link</a>.</p>");
  const server = await serve({
    "/huge.html": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<html><body>");
      stream(res, Buffer.concat(Array(100).fill(section)), 50 * 1024 * 1024);
    },
  });
  try {
    const content = await resolveUrlMention(server.url("/huge.html"), { maxBytes: 64 * 1024 });
    assert.ok(content.startsWith(`## Part\n\nText with [a link](${server.url("/x")}).`));
    assert.match(
      content,
      /\n\n\[Content truncated: the page is larger than 65536 bytes; only the first 65536 were read\.\]\n\[Content truncated: showing lines 1-1997 of \d+\.\]$/,
    );
    assert.equal(await server.served[0].closedEarly, true);
  } finally {
    await server.close();
  }
});

test("a server that never answers, or stalls in the body, times out and is hung up on", async () => {
  const server = await serve({
    "/silent": () => {},
    "/stalls": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("the beginning, then nothing");
    },
  });
  try {
    await assert.rejects(resolveUrlMention(server.url("/silent"), { timeoutMs: 300 }), /^Error: timed out after 300 ms$/);
    await assert.rejects(resolveUrlMention(server.url("/stalls"), { timeoutMs: 300 }), /^Error: timed out after 300 ms$/);
    assert.deepEqual(await Promise.all(server.served.map((s) => s.closedEarly)), [true, true]);
  } finally {
    await server.close();
  }
});

test("binaries are refused with a clear error, unread", async () => {
  const zeros = Buffer.alloc(64 * 1024);
  const server = await serve({
    "/photo.png": (_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      stream(res, zeros, 50 * 1024 * 1024);
    },
    "/download": (_req, res) => res.writeHead(200, { "content-type": "application/octet-stream" }).end(zeros),
    "/untyped": (_req, res) => {
      res.removeHeader("content-type");
      res.writeHead(200).end(Buffer.concat([Buffer.from("PK"), zeros]));
    },
    "/lying.txt": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(zeros),
  });
  try {
    await assert.rejects(
      resolveUrlMention(server.url("/photo.png")),
      /^Error: content type image\/png is not text; only text pages \(HTML, Markdown, plain text, JSON, XML, \.\.\.\) are read$/,
    );
    assert.equal(await server.served[0].closedEarly, true, "the image was not downloaded");
    await assert.rejects(resolveUrlMention(server.url("/download")), /content type application\/octet-stream is not text/);
    await assert.rejects(resolveUrlMention(server.url("/untyped")), /^Error: the body is binary \(content type not given\); only text pages are read$/);
    await assert.rejects(resolveUrlMention(server.url("/lying.txt")), /^Error: the body is binary \(content type text\/plain\)/);
  } finally {
    await server.close();
  }
});

test("a redirect loop stops after the redirect limit; redirects leave http(s) never", async () => {
  const server = await serve({
    "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
    "/to-file": (_req, res) => res.writeHead(302, { location: "file:///etc/passwd" }).end(),
    "/nowhere": (_req, res) => res.writeHead(307).end(),
  });
  try {
    await assert.rejects(resolveUrlMention(server.url("/loop")), /^Error: too many redirects \(more than 5\)$/);
    assert.equal(server.served.filter((s) => s.path === "/loop").length, 6);
    await assert.rejects(resolveUrlMention(server.url("/loop"), { maxRedirects: 0 }), /more than 0/);
    await assert.rejects(resolveUrlMention(server.url("/to-file")), /^Error: a redirect is not an http\(s\) URL: file:\/\/\/etc\/passwd$/);
    await assert.rejects(resolveUrlMention(server.url("/nowhere")), /^Error: HTTP 307 redirect without a Location header$/);
  } finally {
    await server.close();
  }
});

test("the sidecar's $/cancelRequest aborts the fetch in the host handler", { timeout: 60_000 }, async () => {
  let arrived!: () => void;
  const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = await serve({
    "/hangs": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<p>still loading");
      arrived();
    },
  });
  const toHost = new PassThrough();
  const toSidecar = new PassThrough();
  const sidecar = createMessageConnection(new StreamMessageReader(toSidecar), new StreamMessageWriter(toHost));
  const host = createMessageConnection(new StreamMessageReader(toHost), new StreamMessageWriter(toSidecar));
  // The handler as the extension wires it, with a deadline far beyond the test's, so only the
  // cancellation can end the download.
  registerHostHandlers(
    transportOf(host),
    { "roo/host/resolveMention": async (params, signal) => ({ content: await resolveUrlMention(params.value, { signal, timeoutMs: 600_000 }) }) },
    ["roo/host/resolveMention"],
    (e) => new ResponseError(e.code, e.message),
  );
  sidecar.listen();
  host.listen();
  try {
    const cancel = new CancellationTokenSource();
    const answer = sidecar.sendRequest(
      "roo/host/resolveMention",
      { kind: "url", value: server.url("/hangs"), cwd: "/", includeDiagnosticMessages: true, maxDiagnosticMessages: 50 },
      cancel.token,
    );
    await requestArrived;
    cancel.cancel();
    assert.equal(await server.served[0].closedEarly, true, "the host hung up on the page");
    await assert.rejects(answer, (error: ResponseError<unknown>) => {
      assert.equal(error.message, "roo/host/resolveMention: the server cancelled the request");
      return true;
    });
  } finally {
    sidecar.dispose();
    host.dispose();
    await server.close();
  }
});

test("an AbortSignal already aborted stops the fetch before it starts", async () => {
  const server = await serve({ "/page": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("hi") });
  try {
    const controller = new AbortController();
    controller.abort(new Error("cancelled by the caller"));
    await assert.rejects(resolveUrlMention(server.url("/page"), { signal: controller.signal }), /^Error: cancelled by the caller$/);
    assert.equal(server.served.length, 0);
  } finally {
    await server.close();
  }
});

test("a refused connection names the network error", async () => {
  const server = await serve({});
  const url = server.url("/gone");
  await server.close();
  await assert.rejects(resolveUrlMention(url), /^Error: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
});

test("the real sidecar puts the host's Markdown, or its error, in the url_content section", { timeout: 120_000 }, async () => {
  const server = await serve({
    "/guide": (_req, res) => res.writeHead(302, { location: "/guide/index.html" }).end(),
    "/guide/index.html": (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<h1>Guide</h1><p>See <a href='api.html'>the API</a>.</p><script>x()</script>"),
  });
  const root = workspace({ "README.md": "# w\n" });
  let stderr = "";
  const session = await startSession({
    binary: serverBinary(),
    workspaceFolders: [root],
    initializationOptions: { logLevel: "warn" },
    // Wired as src/vscodeHost.ts does for kind "url".
    host: { "roo/host/resolveMention": async (params, signal) => ({ content: await resolveUrlMention(params.value, { signal }) }) },
    onStderr: (chunk) => (stderr += chunk),
  });
  try {
    const guide = server.url("/guide");
    const missing = server.url("/missing");
    const parsed = await session.api.mentionsParse({ text: `Read @${guide} and @${missing} please` });
    assert.equal(
      parsed.text,
      `Read '${guide}' and '${missing}' please\n\n` +
        `<url_content url="${guide}">\n# Guide\n\nSee [the API](${server.url("/guide/api.html")}).\n</url_content>\n\n` +
        `<url_content url="${missing}">\nError fetching content: the host could not resolve it: roo/host/resolveMention: HTTP 404 Not Found (code -32603)\n</url_content>`,
    );
    assert.deepEqual(parsed.diagnostics.map((d) => d.code), ["hostError"]);
  } finally {
    assert.equal(await session.stop(), 0, stderr);
    fs.rmSync(root, { recursive: true, force: true });
    await server.close();
  }
});

test("HTTP errors, bad URLs, charsets and plain text", async () => {
  const server = await serve({
    "/latin1.txt": (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
    "/meta.html": (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(Buffer.from('<meta charset="windows-1252"><p>na\xefve</p>', "latin1")),
    "/readme.md": (_req, res) => res.writeHead(200, { "content-type": "text/markdown" }).end("# Title\n\n<b>kept as written</b>\n"),
    "/data.json": (_req, res) => res.writeHead(200, { "content-type": "application/vnd.api+json" }).end('{"a": 1}'),
  });
  try {
    await assert.rejects(resolveUrlMention(server.url("/missing")), /^Error: HTTP 404 Not Found$/);
    await assert.rejects(resolveUrlMention("ftp://127.0.0.1/x"), /^Error: the mention is not an http\(s\) URL: ftp:\/\/127\.0\.0\.1\/x$/);
    await assert.rejects(resolveUrlMention("http://"), /^Error: the mention is not a valid URL: http:\/\/$/);
    assert.equal(await resolveUrlMention(server.url("/latin1.txt")), "café");
    assert.equal(await resolveUrlMention(server.url("/meta.html")), "naïve");
    assert.equal(await resolveUrlMention(server.url("/readme.md")), "# Title\n\n<b>kept as written</b>\n");
    assert.equal(await resolveUrlMention(server.url("/data.json")), '{"a": 1}');
  } finally {
    await server.close();
  }
});

test("the result fits the sidecar's mention limits", () => {
  const many = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join("\n");
  const capped = capToMentionLimits(many).split("\n");
  assert.equal(capped.length, MENTION_MAX_LINES);
  assert.equal(capped[1997], "line 1998");
  assert.equal(capped[1998], "");
  assert.equal(capped[1999], "[Content truncated: showing lines 1-1998 of 5000.]");
  assert.equal(capToMentionLimits(Array(2000).fill("x").join("\n")).split("\n").length, 2000, "exactly at the limit: untouched");
  const long = capToMentionLimits(`${"a".repeat(1996)}😀${"b".repeat(10)}`);
  assert.equal(long, `${"a".repeat(1996)}...`, "no half surrogate pair");
  assert.equal(capToMentionLimits("b".repeat(2000)), "b".repeat(2000));
  assert.equal(capToMentionLimits("c".repeat(2001)), `${"c".repeat(1997)}...`);
});

test("deeply nested or odd HTML converts or fails with an error, never hangs", () => {
  assert.equal(htmlToMarkdown("<p>unclosed <b>bold <a href='x'>link", "http://h/d/"), "unclosed **bold [link](http://h/d/x)**");
  assert.equal(htmlToMarkdown("<base href='http://other/'><a href='y'>y</a>", "http://h/"), "[y](http://other/y)");
  assert.equal(htmlToMarkdown("", "http://h/"), "");
  assert.equal(htmlToMarkdown("<a href='http://[bad'>z</a>", "http://h/"), "[z](http://[bad)");
  const deep = `${"<div>".repeat(3000)}x${"</div>".repeat(3000)}`;
  assert.throws(() => htmlToMarkdown(deep, "http://h/"), /^Error: the page could not be converted to Markdown: the page nests its elements too deeply$/);
});

test("conversion runs off the host's thread, with a deeper stack, and the deadline stops it", { timeout: 120_000 }, async () => {
  const nested = (depth: number) => `<html><body>${"<div>".repeat(depth)}x${"</div>".repeat(depth)}</body></html>`;
  const server = await serve({
    "/deep.html": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(nested(3000)),
    "/deeper.html": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(nested(200_000)),
  });
  try {
    // The worker's stack (4 MB) takes nesting that overflows the host thread's (see above).
    assert.equal(await resolveUrlMention(server.url("/deep.html"), { timeoutMs: 100_000 }), "x");
    // Parsing 200,000 nested elements takes the parser minutes; the host's event loop keeps
    // running meanwhile and the deadline ends the conversion.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    try {
      await assert.rejects(resolveUrlMention(server.url("/deeper.html"), { timeoutMs: 1500 }), /^Error: timed out after 1500 ms$/);
    } finally {
      clearInterval(ticker);
    }
    assert.ok(ticks > 0, "the event loop ran during the conversion");
  } finally {
    await server.close();
  }
});
