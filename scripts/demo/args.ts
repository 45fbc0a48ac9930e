/** `npm run demo [-- --reset] [--review]`: the demo's command line, every other word refused. */
import { parseArgs } from "node:util";

export const DEMO_USAGE =
  "usage: npm run demo [-- --reset] [--review]   (--reset: start from an empty database and fresh emulators; --review: the first dimension's video waits for `mdame review approve`)";

export type DemoArgs = { reset: boolean; review: boolean } | { error: string };

/** The demo's options, or why the command line is not one (an unknown flag, a stray word). */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { reset: { type: "boolean" }, review: { type: "boolean" } },
      strict: true,
      allowPositionals: false,
    });
    return { reset: values.reset === true, review: values.review === true };
  } catch (error) {
    return { error: (error as Error).message.split("\n")[0]! };
  }
}
