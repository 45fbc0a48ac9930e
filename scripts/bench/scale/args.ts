/**
 * `npm run bench:scale -- --dimensions N [--day-minutes M] [--timeout-minutes T] [--seed S]
 * [--port-offset P] [--write]`, parsed with node:util's parseArgs; every bad value is named.
 */
import { parseArgs } from "node:util";
import { UsageError, wholeNumber } from "../../script-args.ts";

/**
 * Units a wall minute the day offers by default: the day lasts `dimensions / 10` wall minutes
 * (never under `MIN_DAY_MINUTES`), a load this bench sustained at N=1000 on a 2-core machine
 * (docs/reference/scale.md, the figures), so `--dimensions 1000` is one engine day in 100 minutes.
 */
export const DEFAULT_UNITS_PER_MINUTE = 10;
export const MIN_DAY_MINUTES = 6;

export function defaultDayMinutes(dimensions: number): number {
  return Math.max(MIN_DAY_MINUTES, Math.ceil(dimensions / DEFAULT_UNITS_PER_MINUTE));
}

export interface ScaleOptions {
  dimensions: number;
  dayMinutes: number;
  /** Wall minutes after which the bench stops and reports what it has. */
  timeoutMinutes: number;
  seed: number;
  /** Added to the clone's ports for the bench's own stack. */
  portOffset: number;
  write: boolean;
}

export const USAGE = "usage: npm run bench:scale -- --dimensions N (1-5000) [--day-minutes M (1-1440, default N/10, at least 6)] " +
  "[--timeout-minutes T (default: the day plus half of it, plus 10)] [--seed S] [--port-offset P (default 1200)] [--write]";

export function parseScaleArgs(argv: string[]): ScaleOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        dimensions: { type: "string" },
        "day-minutes": { type: "string" },
        "timeout-minutes": { type: "string" },
        seed: { type: "string" },
        "port-offset": { type: "string" },
        write: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const text = (name: string) => values[name] as string | undefined;
  const dimensions = wholeNumber("dimensions", text("dimensions"), 1, 5000);
  const dayMinutes = wholeNumber("day-minutes", text("day-minutes"), 1, 1440, defaultDayMinutes(dimensions));
  return {
    dimensions,
    dayMinutes,
    timeoutMinutes: wholeNumber("timeout-minutes", text("timeout-minutes"), 1, 4320, Math.ceil(dayMinutes * 1.5) + 10),
    seed: wholeNumber("seed", text("seed"), 0, 4294967295, 1),
    portOffset: wholeNumber("port-offset", text("port-offset"), 1, 10000, 1200),
    write: values.write === true,
  };
}
