import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { BodyTooLargeError, limitBody, parseJsonText, readBoundedText } from "../../shared/http/bounded-body.ts";
import { createErrorHandler } from "../../shared/http/error-handler.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { findUnstorableText } from "../../shared/text/storable.ts";

const chunked = (parts: (string | Uint8Array)[]) =>
  new Request("http://x.test/", {
    method: "POST",
    body: new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(typeof next === "string" ? new TextEncoder().encode(next) : next);
      },
    }),
    duplex: "half",
  } as RequestInit);

const hasUnstorableText = (value: unknown) => findUnstorableText(value) !== undefined;

describe("readBoundedText", () => {
  test("a body of exactly the cap is read; one byte more is refused with 413", async () => {
    expect(await readBoundedText(chunked(["abc", "de"]), 5)).toBe("abcde");
    const refused = await readBoundedText(chunked(["abc", "def"]), 5).catch((e) => e);
    expect(refused).toBeInstanceOf(BodyTooLargeError);
    expect(refused.status).toBe(413);
  });

  test("invalid UTF-8 is a 400, not replacement characters passed on", async () => {
    const error = await readBoundedText(chunked([new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]), 100).catch((e) => e);
    expect(error.status).toBe(400);
    expect(error.message).toBe("the body is not valid UTF-8");
  });
});

describe("parseJsonText", () => {
  test("malformed JSON is a 400 whose message does not quote the input", () => {
    const error = (() => {
      try {
        return parseJsonText(`{"secret-looking": ${"9".repeat(1000)}`);
      } catch (e) {
        return e as { status: number; message: string };
      }
    })();
    expect(error).toMatchObject({ status: 400, message: "the body is not valid JSON" });
  });

  test("a NUL character anywhere, key or value, at any depth, is a 400", () => {
    expect(hasUnstorableText({ a: [{ b: "ok" }, "fine"] })).toBe(false);
    expect(hasUnstorableText({ a: [{ b: "x\u0000" }] })).toBe(true);
    expect(hasUnstorableText({ ["k\u0000"]: 1 })).toBe(true);
    expect(() => parseJsonText('{"a": ["\\u0000"]}')).toThrow("NUL character");
  });

  test("a deeply nested body is refused or parsed, never a crash of the walker", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    let outcome: unknown;
    try {
      outcome = parseJsonText(deep);
    } catch (error) {
      outcome = (error as { status?: number }).status;
    }
    expect(outcome === 400 || Array.isArray(outcome)).toBe(true);
  });
});

describe("limitBody", () => {
  test("a route reading the body its own way (c.req.text) still stops at the cap with 413", async () => {
    const app = new Hono();
    app.onError(createErrorHandler(createLogger("test", { write: () => {} })));
    app.use("*", limitBody(8));
    app.post("/", async (c) => c.text(await c.req.text()));
    expect(await (await app.request(chunked(["1234", "5678"]))).text()).toBe("12345678");
    const refused = await app.request(chunked(["1234", "5678", "9"]));
    expect(refused.status).toBe(413);
  });
});
