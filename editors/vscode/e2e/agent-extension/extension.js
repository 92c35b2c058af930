// Test-only agent stand-in: what a Roo-family agent does when its read tool reads a file, through
// the roo-context extension's exported API (`api.filesTrack`), so the e2e test can then edit the
// file on disk and see the roo-context extension's reaction to `roo/files/didChange`.
const fs = require("node:fs");
const path = require("node:path");
const vscode = require("vscode");

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.commands.registerCommand("roo-context-e2e.trackCurrentFile", async () => {
      const file = vscode.window.activeTextEditor?.document.uri.fsPath;
      if (!file) return void vscode.window.showWarningMessage("roo-context e2e: no active file");
      const roo = vscode.extensions.getExtension("roo-context.roo-context");
      const { api, ready } = roo.isActive ? roo.exports : await roo.activate();
      await ready;
      const storageDir = path.join(context.globalStorageUri.fsPath, "tasks", "e2e-task");
      fs.mkdirSync(storageDir, { recursive: true });
      const rel = vscode.workspace.asRelativePath(file, false);
      try {
        const result = await api.filesTrack({ taskId: "e2e-task", storageDir, path: rel, source: "read_tool" });
        void vscode.window.showInformationMessage(`roo-context e2e: tracking ${rel} (watched: ${result.watched})`);
      } catch (error) {
        void vscode.window.showErrorMessage(`roo-context e2e: filesTrack failed: ${error.message ?? error}`);
      }
    }),
  );
};
exports.deactivate = () => {};
