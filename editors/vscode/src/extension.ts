// The VS Code extension: starts the roo-context sidecar with vscode-languageclient, forwards
// workspace folders and settings, serves the sidecar's host requests, shows its notifications, and
// exports the typed API (one function per custom method) for other extensions.

import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorHandler,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import { RooApi, createRooApi } from "./client/api";
import { resolveServerBinary } from "./client/binary";
import { commandApproval } from "./client/commands";
import {
  NotificationEvent,
  Presentation,
  describeContextEvents,
  describeNotification,
  onServerNotifications,
  registerHostHandlers,
} from "./client/host";
import { RooTransport } from "./client/transport";
import { Flavor, ROO_SERVER_REQUEST_METHODS, Settings } from "./protocol.generated";
import { cancelSummarize, vscodeHostHandlers } from "./vscodeHost";

const SECTION = "roo-context";

/** What `vscode.extensions.getExtension("roo-context.roo-context").exports` gives other extensions. */
export interface RooContextExtensionApi {
  /** One function per custom method; waits for the server to be ready. */
  api: RooApi;
  /** Resolves once the server is initialized. */
  ready: Promise<void>;
  /** Custom methods the running server advertises. */
  methods(): string[];
  /** Every server notification (user edits, reloads, condense events). */
  onNotification: vscode.Event<NotificationEvent>;
  /** What to do with a `validateCommand` result: run (`allowed`), refuse (`blocked`) or ask the
   * user (`undecidable`). Never auto-approve anything but `allowed`. */
  commandApproval: typeof commandApproval;
}

/** The sidecar's settings from the `roo-context.*` configuration. */
export function settingsFromConfiguration(config: vscode.WorkspaceConfiguration): Settings {
  return {
    logLevel: config.get<string>("logLevel"),
    denyOutsideWorkspace: config.get<boolean>("denyOutsideWorkspace"),
    extraProtectedPatterns: config.get<string[]>("extraProtectedPatterns"),
    flavor: config.get<Flavor>("flavor"),
  };
}

function transportOf(client: LanguageClient): RooTransport {
  return {
    sendRequest: (method, params) => client.sendRequest(method, params),
    sendNotification: (method, params) => client.sendNotification(method, params),
    onRequest: (method, handler) => client.onRequest(method, handler),
    onNotification: (method, handler) => client.onNotification(method, handler),
  };
}

/** Where the blocking rule is written: `file:line`, or `implicit` for a rule with no file. */
function ruleLocation(blockedBy: { file?: string | null; line?: number | null } | null | undefined): string {
  if (!blockedBy?.file) return "implicit";
  return blockedBy.line ? `${blockedBy.file}:${blockedBy.line}` : blockedBy.file;
}

/**
 * vscode-languageclient shows its connection and start-up failures as bare toasts of its own
 * ('force'); the extension reports the sidecar's state itself, once, with actions, so those go to
 * the log only (otherwise they push the actionable notification out of view).
 */
class RooLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | "force" = true): void {
    super.error(message, data, showNotification === "force" ? false : showNotification);
  }
}

let client: LanguageClient | undefined;

/** Starts the sidecar and returns the API for other extensions. */
export async function activate(context: vscode.ExtensionContext): Promise<RooContextExtensionApi> {
  const output = vscode.window.createOutputChannel("roo-context");
  const notifications = new vscode.EventEmitter<NotificationEvent>();
  context.subscriptions.push(output, notifications);
  const config = () => vscode.workspace.getConfiguration(SECTION);

  const binary = resolveServerBinary({
    env: process.env,
    setting: config().get<string>("serverPath"),
    extensionPath: context.extensionPath,
    platform: process.platform,
    exists: (file) => fs.existsSync(file),
  });
  output.appendLine(`roo-context binary: ${binary.path} (from ${binary.source})`);

  // The sidecar's state stays visible: a status bar item, and an error notification with actions
  // when it cannot start or has crashed too often to be restarted (else only the log would say so).
  const stateItem = vscode.window.createStatusBarItem("roo-context.state", vscode.StatusBarAlignment.Left, 0);
  stateItem.name = "roo-context";
  stateItem.command = "roo-context.showLog";
  stateItem.show();
  context.subscriptions.push(stateItem);
  let stopReported = false;
  const showState = (state: State) => {
    const running = state === State.Running;
    if (running) stopReported = false;
    stateItem.text =
      state === State.Running ? "$(pass) roo-context" : state === State.Starting ? "$(sync~spin) roo-context: starting" : "$(error) roo-context: stopped";
    stateItem.tooltip = `roo-context sidecar: ${running ? "running" : state === State.Starting ? "starting" : "stopped"} (${binary.path}). Click for the log.`;
    stateItem.backgroundColor = state === State.Stopped ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  };
  showState(State.Starting);
  const reportStopped = (why: string) => {
    if (stopReported) return;
    stopReported = true;
    showState(State.Stopped);
    void vscode.window
      .showErrorMessage(`roo-context: the sidecar is not running. ${why}`, "Show Log", "Restart")
      .then((choice) => {
        if (choice === "Restart") void vscode.commands.executeCommand("roo-context.restart");
        if (choice === "Show Log") output.show(true);
      });
  };
  let defaultErrorHandler: ErrorHandler | undefined;
  const errorHandler: ErrorHandler = {
    error: (error, message, count) => (defaultErrorHandler ??= client!.createDefaultErrorHandler(4)).error(error, message, count),
    closed: async () => {
      const result = await (defaultErrorHandler ??= client!.createDefaultErrorHandler(4)).closed();
      if (result.action !== CloseAction.DoNotRestart) return result;
      reportStopped(result.message ?? "Its connection closed.");
      return { ...result, handled: true };
    },
  };

  const serverOptions: ServerOptions = { command: binary.path, args: [] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }],
    initializationOptions: settingsFromConfiguration(config()),
    outputChannel: output,
    errorHandler,
    // A sidecar that fails `initialize` is not retried: `ready` rejects and reportStopped says so.
    initializationFailedHandler: () => false,
  };
  client = new RooLanguageClient(SECTION, "roo-context", serverOptions, clientOptions);
  context.subscriptions.push(client.onDidChangeState((event) => showState(event.newState)));
  const transport = transportOf(client);
  const show = (shown: Presentation) => {
    output.appendLine(shown.text);
    if (shown.level === "popup") void vscode.window.showInformationMessage(shown.text);
  };

  const serverRequests = Object.values(ROO_SERVER_REQUEST_METHODS) as string[];
  context.subscriptions.push(
    registerHostHandlers(
      transport,
      vscodeHostHandlers(serverRequests, () => config().get<string>("summaryModelFamily") ?? ""),
      serverRequests,
      (e) => new ResponseError(e.code, e.message),
    ),
    onServerNotifications(transport, (event) => {
      notifications.fire(event);
      if (/cancelSummarize$/.test(event.method)) cancelSummarize(event.params);
      show(describeNotification(event.method, event.params));
    }),
  );

  // Workspace folders travel with `initialize` and `workspace/didChangeWorkspaceFolders` (the
  // client does that); settings go as `initializationOptions` and on every change:
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(SECTION) || !client) return;
      void client.sendNotification("workspace/didChangeConfiguration", {
        settings: { rooContext: settingsFromConfiguration(config()) },
      });
    }),
  );

  const ready = client.start();
  const api = createRooApi({
    ...transport,
    sendRequest: async (method, params) => {
      await ready;
      const result = await transport.sendRequest(method, params);
      // Condense and truncation events of roo/context/manage are shown to the user.
      describeContextEvents(result).forEach(show);
      return result;
    },
  });
  const methods = () =>
    ((client?.initializeResult?.capabilities.experimental as any)?.rooContext?.methods as string[] | undefined) ?? [];

  context.subscriptions.push(
    vscode.commands.registerCommand("roo-context.showStatus", async () => {
      const status = await api.workspaceStatus({});
      output.appendLine(JSON.stringify(status, null, 2));
      output.show(true);
    }),
    vscode.commands.registerCommand("roo-context.checkAccess", async () => {
      const file = vscode.window.activeTextEditor?.document.uri.fsPath;
      if (!file) return void vscode.window.showWarningMessage("roo-context: no active file");
      const [decision] = (await api.ignoreValidateAccess({ paths: [file] })).results;
      const text = decision.allowed
        ? `roo-context: the agent may read ${vscode.workspace.asRelativePath(file)}`
        : `roo-context: blocked by ${decision.blockedBy?.pattern ?? decision.blockedBy?.kind} (${ruleLocation(decision.blockedBy)})`;
      void vscode.window.showInformationMessage(text);
    }),
    vscode.commands.registerCommand("roo-context.restart", async () => {
      stopReported = false;
      await client?.restart().catch((error) => reportStopped(`It failed to restart: ${error instanceof Error ? error.message : String(error)}`));
    }),
    vscode.commands.registerCommand("roo-context.showLog", () => output.show(true)),
  );

  await ready.catch((error) => {
    output.appendLine(`roo-context failed to start: ${error}`);
    reportStopped(`It failed to start (${binary.path}): ${error instanceof Error ? error.message : String(error)}`);
  });
  return { api, ready, methods, onNotification: notifications.event, commandApproval };
}

/** Stops the sidecar. */
export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
