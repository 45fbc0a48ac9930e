/**
 * The emulator's clock (clock.ts says what follows it):
 *
 *   GET    /_emulator/clock                      {now, offset_ms, real_time}
 *   POST   /_emulator/clock {"now": "<ISO 8601>"}   the clock reads that instant now, and runs on from it
 *   POST   /_emulator/clock {"offset_ms": n}        the clock runs n ms ahead of real time (negative: behind)
 *   POST   /_emulator/clock {"advance_ms": n}       moves the clock n ms further (negative: back)
 *   DELETE /_emulator/clock                      back to real time (as `POST /_emulator/reset` does)
 *
 * Exactly one of `now`, `offset_ms`, `advance_ms`; the resulting offset stays within ±10,000 days.
 * Anything else is 400 with a message. Every answer is the clock's state after the change.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readAdminJson, unknownKeys } from "../admin-json.ts";
import { MAX_OFFSET_MS } from "./clock.ts";

const CLOCK_PATH = "/_emulator/clock";
const KEYS = ["now", "offset_ms", "advance_ms"] as const;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function clockState(ctx: EmulatorContext) {
  return { now: new Date(ctx.clock.now()).toISOString(), offset_ms: ctx.clock.offsetMs, real_time: ctx.clock.offsetMs === 0 };
}

/** The offset a POST body asks for, or an error message. */
function requestedOffset(body: Record<string, unknown>, current: number): number | string {
  const extra = unknownKeys(body, KEYS);
  if (extra) return extra;
  const given = KEYS.filter((key) => body[key] !== undefined);
  if (given.length !== 1) return "give exactly one of now (an ISO 8601 instant), offset_ms or advance_ms";
  let offset: number;
  if (given[0] === "now") {
    const now = body.now;
    if (typeof now !== "string" || !ISO_INSTANT.test(now) || Number.isNaN(Date.parse(now))) {
      return "now must be an ISO 8601 instant with a time zone, e.g. 2026-03-08T09:30:00Z";
    }
    offset = Date.parse(now) - Date.now();
  } else {
    const value = body[given[0]!];
    if (typeof value !== "number" || !Number.isInteger(value)) return `${given[0]} must be an integer number of milliseconds`;
    offset = given[0] === "offset_ms" ? value : current + value;
  }
  if (Math.abs(offset) > MAX_OFFSET_MS) return `the clock may be moved at most ${MAX_OFFSET_MS} ms (10,000 days) from real time`;
  return offset;
}

export async function handleClockAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname !== CLOCK_PATH) return undefined;
  if (req.method === "GET") return jsonResponse(clockState(ctx));
  if (req.method === "DELETE") {
    await ctx.clock.reset();
    return jsonResponse(clockState(ctx));
  }
  if (req.method !== "POST") return jsonResponse({ error: `${req.method} is not allowed on ${CLOCK_PATH}: use GET, POST or DELETE` }, 405);
  const body = await readAdminJson(req);
  if (body instanceof Response) return body;
  const offset = requestedOffset(body, ctx.clock.offsetMs);
  if (typeof offset === "string") return jsonResponse({ error: offset }, 400);
  await ctx.clock.setOffset(offset);
  return jsonResponse(clockState(ctx));
}
