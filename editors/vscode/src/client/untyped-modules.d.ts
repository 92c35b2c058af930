// Types for the two runtime packages that ship none: only what src/client/markdown.ts uses.

declare module "@mixmark-io/domino" {
  /** domino's HTML parser (the one turndown uses in Node): a DOM Document from a string. */
  export function createDocument(html?: string, force?: boolean): any;
  const domino: { createDocument: typeof createDocument };
  export default domino;
}

declare module "@joplin/turndown-plugin-gfm" {
  import TurndownService from "turndown";
  /** Tables, strikethrough and task list items. */
  export const gfm: TurndownService.Plugin;
}
