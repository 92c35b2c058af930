import { describe, expect, it } from "vitest";
import { parse, ParseError } from "./parser";

const strict = { strict: true, maxDepth: 8 };

function parseAll(inputs: string[]) {
  return inputs.map((input) => {
    return parse(input, strict);
  });
}

describe("parse", () => {
  describe("numbers", () => {
    it("parses integers", () => {
      expect(parse("1", strict)).toBe(1);
    });

    it("parses negative numbers", () => {
      const value = parse("-1", strict);
      expect(value).toBe(-1);
      expect(typeof value).toBe("number");
    });

    it.each([["1e3", 1000], ["2e2", 200]])("parses exponent %s", (input, value) => {
      const parsed = parse(input, strict);
      expect(parsed).toBe(value);
    });
  });

  describe("strings", () => {
    it("parses escapes", () => {
      const value = parse('"\\n"', strict);
      expect(value).toBe("\n");
    });

    it("parses unicode escapes", () => {
      expect(parse('"\\u0041"', strict)).toBe("A");
    });

    it(`parses template ${"names"}`, () => {
      const values = parseAll(['"a"', '"b"']);
      expect(values).toEqual(["a", "b"]);
    });
  });

  describe.each(["strict", "loose"])("in %s mode", (mode) => {
    it("rejects deep nesting", () => {
      const options = { strict: mode === "strict", maxDepth: 2 };
      expect(() => parse("[[[[[[[[[1]]]]]]]]]", options)).toThrow(ParseError);
    });

    it.skip("reports the line", () => {
      expect(() => parse("\n\n[", strict)).toThrow(ParseError);
    });
  });
});

describe("ParseError", () => {
  it("keeps the line", () => {
    const error = new ParseError("x", 3);
    expect(error.line).toBe(3);
  });

  it("is an Error", () => {
    const error = new ParseError("x", 3);
    expect(error).toBeInstanceOf(Error);
  });
});

test("a top-level test", () => {
  expect(parse("true", strict)).toBe(true);
});

test("another top-level test", () => {
  const value = parse("false", strict);
  expect(value).toBe(false);
});
