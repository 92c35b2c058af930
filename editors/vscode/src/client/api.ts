// The typed API object: one function per custom method, built from the generated method tables, so
// a method added to the Rust protocol crate appears here after `npm run gen-types` with no edit.

import {
  ROO_CLIENT_NOTIFICATION_METHODS,
  ROO_REQUEST_METHODS,
  RooClientNotifications,
  RooRequests,
} from "../protocol.generated";
import { RooTransport } from "./transport";

type RequestName = keyof typeof ROO_REQUEST_METHODS;
type NotificationName = keyof typeof ROO_CLIENT_NOTIFICATION_METHODS;

/** One async function per client-to-server request, named after the method (`roo/fold/context` → `foldContext`). */
export type RooRequestApi = {
  [K in RequestName]: (
    params: RooRequests[(typeof ROO_REQUEST_METHODS)[K]]["params"],
  ) => Promise<RooRequests[(typeof ROO_REQUEST_METHODS)[K]]["result"]>;
};

/** One function per client-to-server notification (`roo/settings/update` → `settingsUpdate`). */
export type RooNotificationApi = {
  [K in NotificationName]: (
    params: RooClientNotifications[(typeof ROO_CLIENT_NOTIFICATION_METHODS)[K]],
  ) => Promise<void>;
};

/** Every custom method, typed, plus generic `request`/`notify` by method name. */
export type RooApi = RooRequestApi &
  RooNotificationApi & {
    request<M extends keyof RooRequests>(method: M, params: RooRequests[M]["params"]): Promise<RooRequests[M]["result"]>;
    notify<M extends keyof RooClientNotifications>(method: M, params: RooClientNotifications[M]): Promise<void>;
  };

/** Builds the API over any transport. */
export function createRooApi(transport: RooTransport): RooApi {
  const request = <M extends keyof RooRequests>(method: M, params: RooRequests[M]["params"]) =>
    transport.sendRequest(method, params) as Promise<RooRequests[M]["result"]>;
  const notify = async <M extends keyof RooClientNotifications>(method: M, params: RooClientNotifications[M]) => {
    await transport.sendNotification(method, params);
  };
  const api: Record<string, unknown> = { request, notify };
  for (const [name, method] of Object.entries(ROO_REQUEST_METHODS)) {
    api[name] = (params: unknown) => transport.sendRequest(method, params);
  }
  for (const [name, method] of Object.entries(ROO_CLIENT_NOTIFICATION_METHODS)) {
    api[name] = async (params: unknown) => {
      await transport.sendNotification(method, params);
    };
  }
  return api as RooApi;
}
