// The one seam between roo-context's client logic and a JSON-RPC connection. Both vscode-jsonrpc's
// MessageConnection (Node tests, other hosts) and vscode-languageclient's LanguageClient (the
// extension) satisfy it, so nothing in src/client imports `vscode`.

/** Something that can be disposed (a registered handler). */
export interface Disposable {
  dispose(): void;
}

/**
 * The cancellation token a request handler receives: vscode-jsonrpc's and vscode-languageclient's
 * `CancellationToken` both fit; it fires when the peer sends `$/cancelRequest`.
 */
export interface CancellationLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): Disposable;
}

/** The JSON-RPC operations the roo-context client needs. */
export interface RooTransport {
  sendRequest(method: string, params: unknown): Promise<unknown>;
  sendNotification(method: string, params: unknown): Promise<void> | void;
  onRequest(method: string, handler: (params: any, token?: CancellationLike) => unknown): Disposable;
  onNotification(method: string, handler: (params: any) => void): Disposable;
}
