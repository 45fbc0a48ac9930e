import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { DEMO_USAGE, parseDemoArgs } from "../../scripts/demo/args.ts";
import { paths } from "../../stack/paths.ts";

describe("npm run demo's command line", () => {
  test("nothing, --reset or --review", () => {
    expect(parseDemoArgs([])).toEqual({ reset: false, review: false });
    expect(parseDemoArgs(["--reset"])).toEqual({ reset: true, review: false });
    expect(parseDemoArgs(["--review"])).toEqual({ reset: false, review: true });
  });

  test.each([[["--rest"]], [["--reset", "now"]], [["-r"]], [["--reset=yes"]]])("%j is refused with the reason", (argv) => {
    const parsed = parseDemoArgs(argv);
    expect("error" in parsed).toBe(true);
    if ("error" in parsed) expect(parsed.error.length).toBeGreaterThan(5);
  });

  test("a mistyped flag exits 2 with the usage before anything runs", () => {
    const result = spawnSync(process.execPath, [join(paths.root, "scripts", "demo.ts"), "--rest"], { encoding: "utf8", timeout: 30_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("demo: ");
    expect(result.stderr).toContain(DEMO_USAGE);
    expect(result.stdout).toBe("");
  });
});
