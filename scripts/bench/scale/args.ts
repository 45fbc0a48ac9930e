/**
 * `npm run bench:scale -- --dimensions N [--day-minutes M] [--timeout-minutes T] [--seed S]
 * [--port-offset P] [--write]`, parsed with node:util's parseArgs; every bad value is named.
 */
import { parseArgs } from "node:util";
import { UsageError, wholeNumber } from "../../script-args.ts";

/**
 * Wall minutes one engine day takes by default: 1,000 dimensions then offer about 4 units a
 * minute, which this bench sustained on a 2-core machine (docs/scale.md, the figures).
 */
export const DEFAULT_DAY_MINUTES = 240;

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

export const USAGE = "usage: npm run bench:scale -- --dimensions N (1-5000) [--day-minutes M (1-1440, default 240)] " +
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
  const dayMinutes = wholeNumber("day-minutes", text("day-minutes"), 1, 1440, DEFAULT_DAY_MINUTES);
  return {
    dimensions: wholeNumber("dimensions", text("dimensions"), 1, 5000),
    dayMinutes,
    timeoutMinutes: wholeNumber("timeout-minutes", text("timeout-minutes"), 1, 4320, Math.ceil(dayMinutes * 1.5) + 10),
    seed: wholeNumber("seed", text("seed"), 0, 4294967295, 1),
    portOffset: wholeNumber("port-offset", text("port-offset"), 1, 10000, 1200),
    write: values.write === true,
  };
}
