// The VS Code-free client library: typed API, host request dispatch, binary lookup, a Node session,
// and the bounded URL fetch behind URL mentions.

export * from "./api";
export * from "./binary";
export * from "./commands";
export * from "./host";
export * from "./markdown";
export * from "./platforms";
export * from "./session";
export * from "./transport";
export * from "./webFetch";
