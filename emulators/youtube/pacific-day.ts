/**
 * YouTube's quota day: it starts at midnight America/Los_Angeles, so it lasts 23 hours on the
 * spring-forward Sunday and 25 on the fall-back one. Computed with the platform's time-zone data,
 * never a fixed offset.
 */
const PACIFIC = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Los_Angeles",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

function pacificParts(ms: number): { day: string; hour: number; minute: number } {
  const parts = Object.fromEntries(PACIFIC.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour), minute: Number(parts.minute) };
}

/** The Pacific calendar date (`YYYY-MM-DD`) of an instant: the quota day it is charged to. */
export function pacificDay(ms: number): string {
  return pacificParts(ms).day;
}

/** The instant (epoch ms) the quota day after the one holding `ms` begins. */
export function nextPacificMidnight(ms: number): number {
  const [year, month, day] = pacificDay(ms).split("-").map(Number) as [number, number, number];
  // Midnight Pacific is 08:00 UTC in standard time and 07:00 UTC in daylight time; the clocks
  // change at 02:00 local, so midnight always exists and is exactly one of the two.
  for (const utcHour of [7, 8]) {
    const candidate = Date.UTC(year, month - 1, day + 1, utcHour);
    const parts = pacificParts(candidate);
    if (parts.hour === 0 && parts.minute === 0) return candidate;
  }
  throw new Error(`no Pacific midnight after ${new Date(ms).toISOString()}`);
}
