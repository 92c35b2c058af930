// The VS Code-free client library: typed API, host request dispatch, binary lookup and a Node session.

export * from "./api";
export * from "./binary";
export * from "./commands";
export * from "./host";
export * from "./session";
export * from "./transport";
