// The VS Code-free client library: typed API, host request dispatch, binary lookup, a Node session,
// and the bounded URL fetch behind URL mentions.

export * from "./api";
export * from "./binary";
export * from "./commands";
export * from "./history";
export * from "./host";
export * from "./hygiene";
export * from "./markdown";
export * from "./platforms";
export * from "./promptCache";
export * from "./session";
export * from "./transport";
export * from "./usage";
export * from "./userDiffs";
export * from "./webFetch";
