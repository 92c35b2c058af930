import { Token, tokenize } from "./lexer";

export interface ParseOptions {
  strict: boolean;
  maxDepth: number;
  allowComments?: boolean;
}

export class ParseError extends Error {
  constructor(
    message: string,
    public readonly line: number,
  ) {
    super(message);
  }
}

export function parse(source: string, options: ParseOptions): unknown {
  const tokens = tokenize(source);
  const state = { position: 0, depth: 0 };
  return parseValue(tokens, state, options);
}

function parseValue(tokens: Token[], state: { position: number; depth: number }, options: ParseOptions): unknown {
  if (state.depth > options.maxDepth) {
    throw new ParseError("too deep", tokens[state.position].line);
  }
  state.depth += 1;
  return tokens[state.position++].value;
}
