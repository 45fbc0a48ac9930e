import { expect, test } from "bun:test";
import { nextPacificMidnight, pacificDay } from "../../emulators/youtube/pacific-day.ts";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

test("the quota day is the date in Los Angeles, not in UTC", () => {
  expect(pacificDay(at("2026-01-16T07:59:59Z"))).toBe("2026-01-15");
  expect(pacificDay(at("2026-01-16T08:00:00Z"))).toBe("2026-01-16");
  expect(pacificDay(at("2026-07-04T06:59:59Z"))).toBe("2026-07-03");
  expect(pacificDay(at("2026-07-04T07:00:00Z"))).toBe("2026-07-04");
  expect(pacificDay(at("2027-01-01T07:59:59Z"))).toBe("2026-12-31");
});

test("the next reset is the next midnight Pacific time, through both daylight-saving changes and a year's end", () => {
  expect(iso(nextPacificMidnight(at("2026-01-15T20:00:00Z")))).toBe("2026-01-16T08:00:00.000Z");
  expect(iso(nextPacificMidnight(at("2026-07-04T12:00:00Z")))).toBe("2026-07-05T07:00:00.000Z");
  // 2026-03-08 springs forward at 02:00: a 23-hour day.
  expect(iso(nextPacificMidnight(at("2026-03-07T09:00:00Z")))).toBe("2026-03-08T08:00:00.000Z");
  expect(iso(nextPacificMidnight(at("2026-03-08T08:00:00Z")))).toBe("2026-03-09T07:00:00.000Z");
  // 2026-11-01 falls back at 02:00: a 25-hour day.
  expect(iso(nextPacificMidnight(at("2026-11-01T07:00:00Z")))).toBe("2026-11-02T08:00:00.000Z");
  expect(iso(nextPacificMidnight(at("2026-11-01T09:30:00Z")))).toBe("2026-11-02T08:00:00.000Z");
  expect(iso(nextPacificMidnight(at("2026-12-31T20:00:00Z")))).toBe("2027-01-01T08:00:00.000Z");
  // The instant of midnight itself belongs to the new day; its reset is a day later.
  expect(iso(nextPacificMidnight(at("2026-01-16T08:00:00Z")))).toBe("2026-01-17T08:00:00.000Z");
});
