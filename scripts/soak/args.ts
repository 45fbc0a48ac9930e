/**
 * `npm run soak -- --days N --dimensions D --seed S [--day-seconds T] [--out DIR]`, parsed with
 * node:util's parseArgs; every bad value is reported with what is expected.
 */
import { parseArgs } from "node:util";
import { UsageError, wholeNumber } from "../script-args.ts";

export interface SoakOptions {
  days: number;
  dimensions: number;
  seed: number;
  /** Wall-clock seconds a simulated day may take at most (its deadline). */
  daySeconds: number;
  /** Where report.md and report.json go. */
  outDir: string;
}

export const USAGE =
  "usage: npm run soak -- --days N (1-60) --dimensions D (1-10) --seed S (0-4294967295) [--day-seconds T (60-3600, default 900)] [--out DIR (default out/soak)]";

export function parseSoakArgs(argv: string[]): SoakOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        days: { type: "string" },
        dimensions: { type: "string" },
        seed: { type: "string" },
        "day-seconds": { type: "string" },
        out: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    days: wholeNumber("days", values.days, 1, 60),
    dimensions: wholeNumber("dimensions", values.dimensions, 1, 10),
    seed: wholeNumber("seed", values.seed, 0, 4294967295),
    daySeconds: wholeNumber("day-seconds", values["day-seconds"], 60, 3600, 900),
    outDir: values.out?.trim() || "out/soak",
  };
}
