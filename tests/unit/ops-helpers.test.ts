/**
 * The pure parts of the ops API: the next run of a pg_cron expression, the byte range a Storage
 * download serves, and the ISO timestamps of an RPC's JSON document.
 */
import { expect, test } from "bun:test";
import { byteRange } from "../../emulators/storage/routes.ts";
import { nextCronRun } from "../../functions/pipeline/operator/ops-routes.ts";
import { isoTimestamps } from "../../shared/db/rpc/ops.ts";

const at = (iso: string) => new Date(iso);

test("the next run of an engine schedule is computed in UTC from its cron expression", () => {
  const from = at("2026-12-06T21:30:20Z"); // a Sunday
  expect(nextCronRun("* * * * *", from)?.toISOString()).toBe("2026-12-06T21:31:00.000Z");
  expect(nextCronRun("*/5 * * * *", from)?.toISOString()).toBe("2026-12-06T21:35:00.000Z");
  expect(nextCronRun("0 * * * *", from)?.toISOString()).toBe("2026-12-06T22:00:00.000Z");
  expect(nextCronRun("30 22 * * 0", from)?.toISOString()).toBe("2026-12-06T22:30:00.000Z");
  expect(nextCronRun("0 21 * * 0", from)?.toISOString()).toBe("2026-12-13T21:00:00.000Z");
  // pg_cron's `$` is the last day of the month.
  expect(nextCronRun("0 3 $ * *", from)?.toISOString()).toBe("2026-12-31T03:00:00.000Z");
});

test("what pg_cron accepts but no calendar gives (interval jobs) and what is not cron have no next run", () => {
  const from = at("2026-12-06T21:30:00Z");
  for (const expression of ["30 seconds", "", "* * * *", "0 0 * * * *", "61 * * * *", "not cron"]) {
    expect(nextCronRun(expression, from)).toBeNull();
  }
});

test("a Range header gives one byte range of the object, or the whole object, or 416", () => {
  expect(byteRange(null, 100)).toBeNull();
  expect(byteRange("bytes=0-9", 100)).toEqual({ start: 0, end: 9 });
  expect(byteRange("bytes=90-", 100)).toEqual({ start: 90, end: 99 });
  expect(byteRange("bytes=-10", 100)).toEqual({ start: 90, end: 99 });
  expect(byteRange("bytes=-500", 100)).toEqual({ start: 0, end: 99 });
  expect(byteRange("bytes=50-5000", 100)).toEqual({ start: 50, end: 99 });
  expect(byteRange("bytes=100-", 100)).toBe("unsatisfiable");
  expect(byteRange("bytes=-0", 100)).toBe("unsatisfiable");
  expect(byteRange("bytes=0-", 0)).toBe("unsatisfiable");
  // Several ranges, other units, malformed or inverted ranges: the whole object (RFC 9110 lets a server ignore them).
  for (const header of ["bytes=0-1,5-6", "items=0-1", "bytes=abc", "bytes=9-3", "bytes=-"]) expect(byteRange(header, 100)).toBeNull();
});

test("Postgres's JSON timestamps become ISO 8601 UTC, other text is left alone", () => {
  expect(isoTimestamps({
    at: "2026-12-02T07:54:00.109745+00:00",
    local: "2026-12-02T00:54:00-07:00",
    nested: [{ when: "2026-12-02T07:54:00+00:00" }],
    day: "2026-12-02",
    title: "2026-12-02T07:54:00 is not a timestamp without its offset",
    n: 3,
    none: null,
  })).toEqual({
    at: "2026-12-02T07:54:00.109Z",
    local: "2026-12-02T07:54:00.000Z",
    nested: [{ when: "2026-12-02T07:54:00.000Z" }],
    day: "2026-12-02",
    title: "2026-12-02T07:54:00 is not a timestamp without its offset",
    n: 3,
    none: null,
  });
});
