// A roo-context session over a spawned process, for Node hosts and tests: spawns the binary, wires
// vscode-jsonrpc over its stdio, runs `initialize`, and exposes the typed API. The extension uses
// vscode-languageclient instead, with the same api/host modules.

import { ChildProcess, spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import * as path from "node:path";
import {
  MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
} from "vscode-jsonrpc/node";
import { InitializationOptions, ROO_SERVER_REQUEST_METHODS } from "../protocol.generated";
import { RooApi, createRooApi } from "./api";
import { HostHandlers, registerHostHandlers } from "./host";
import { RooTransport } from "./transport";

/** Options of {@link startSession}. */
export interface SessionOptions {
  binary: string;
  workspaceFolders: string[];
  initializationOptions?: InitializationOptions;
  host?: HostHandlers;
  /** Extra server-to-client request methods to answer (beyond the generated table). */
  extraServerRequests?: string[];
  env?: NodeJS.ProcessEnv;
  /** Receives the server's stderr (its logs). */
  onStderr?: (chunk: string) => void;
}

/** What `initialize` returned that clients care about. */
export interface ServerInfo {
  capabilities: Record<string, any>;
  serverInfo?: { name: string; version?: string };
  /** `capabilities.experimental.rooContext.methods`: the custom requests this server answers. */
  methods: string[];
}

/** A running server with its typed API. */
export interface RooSession {
  api: RooApi;
  transport: RooTransport;
  connection: MessageConnection;
  process: ChildProcess;
  server: ServerInfo;
  /** Whether the server advertises a custom request. */
  supports(method: string): boolean;
  /** `shutdown`, `exit`, and waits for the process; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Adapts a MessageConnection to the transport seam. */
export function transportOf(connection: MessageConnection): RooTransport {
  return {
    sendRequest: (method, params) => connection.sendRequest(method, params),
    sendNotification: (method, params) => connection.sendNotification(method, params),
    onRequest: (method, handler) => connection.onRequest(method, handler),
    onNotification: (method, handler) => connection.onNotification(method, handler),
  };
}

/** Folder list in the LSP shape. */
export function workspaceFoldersOf(folders: string[]) {
  return folders.map((folder) => ({ uri: pathToFileURL(path.resolve(folder)).href, name: path.basename(folder) }));
}

/** Spawns the binary and initializes it. */
export async function startSession(options: SessionOptions): Promise<RooSession> {
  const child = spawn(options.binary, [], {
    stdio: ["pipe", "pipe", "pipe"],
    env: options.env ?? process.env,
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", (error) => reject(new Error(`cannot start ${options.binary}: ${error.message}`)));
  });
  await spawned;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => options.onStderr?.(chunk));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const transport = transportOf(connection);
  const serverRequests = [...(Object.values(ROO_SERVER_REQUEST_METHODS) as string[]), ...(options.extraServerRequests ?? [])];
  registerHostHandlers(transport, options.host ?? {}, serverRequests, (e) => new ResponseError(e.code, e.message));
  connection.listen();
  const initializeResult: any = await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    workspaceFolders: workspaceFoldersOf(options.workspaceFolders),
    initializationOptions: options.initializationOptions,
  });
  await connection.sendNotification("initialized", {});
  const methods: string[] = initializeResult?.capabilities?.experimental?.rooContext?.methods ?? [];
  const server: ServerInfo = {
    capabilities: initializeResult.capabilities ?? {},
    serverInfo: initializeResult.serverInfo,
    methods,
  };
  return {
    api: createRooApi(transport),
    transport,
    connection,
    process: child,
    server,
    supports: (method) => methods.includes(method),
    async stop() {
      try {
        await connection.sendRequest("shutdown");
        await connection.sendNotification("exit");
      } catch {
        child.kill();
      }
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
}
