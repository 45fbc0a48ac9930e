import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { paths } from "../../stack/paths.ts";
import { E2E_SECOND_STACK_TESTS, FIRST_STACK_ONLY_TESTS, MEDIA_INTEGRATION_TESTS, parseBunTest, splitIntegrationFiles } from "../../scripts/test.ts";

/** What a test that reaches the database or the stack's fixed ports imports or names. */
const REACHES_DB_OR_STACK =
  /stack\/(db|supervisor|stack-control|stack-env|ports)\.ts|shared\/db\/|admin-sql|createSql|LOCAL_DB_URL|LOCAL_STACK|localStackEnv|startTestEmulator|edge-host/;

/** The project files a test file imports, itself included, following relative imports outside node_modules. */
function importedFiles(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || !existsSync(file)) return seen;
  seen.add(file);
  for (const match of readFileSync(file, "utf8").matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)) {
    const target = resolve(dirname(file), match[1]!);
    // Only test code: the engine's own modules are what the tests exercise, not how they connect.
    if (target.startsWith(join(paths.root, "tests"))) importedFiles(target, seen);
  }
  return seen;
}

describe("the integration files run beside the others", () => {
  test.each(MEDIA_INTEGRATION_TESTS)("%s exists and reaches neither the database nor the stack's ports", (file) => {
    const path = join(paths.root, file);
    expect(existsSync(path)).toBe(true);
    const reaching = [...importedFiles(path)].filter((f) => REACHES_DB_OR_STACK.test(readFileSync(f, "utf8")));
    expect(reaching).toEqual([]);
  });

  test("the check itself catches a file that reaches the database", () => {
    const reaching = [...importedFiles(join(paths.root, "tests", "integration", "hostile-input.test.ts"))].filter((f) =>
      REACHES_DB_OR_STACK.test(readFileSync(f, "utf8"))
    );
    expect(reaching.length).toBeGreaterThan(0);
  });
});

test("bun test's closing counts are read from its last summary", () => {
  expect(parseBunTest(" 3 pass\n 1 fail\n...\n 12 pass\n 0 fail\n 2 skip\n")).toEqual({ passed: 12, failed: 0, skipped: 2 });
});

describe("the integration and e2e files shared between two stacks", () => {
  const integration = readdirSync(join(paths.root, "tests", "integration"))
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => `./tests/integration/${name}`)
    .filter((f) => !MEDIA_INTEGRATION_TESTS.includes(f));

  test("every database file runs exactly once, the pinned ones on the first stack, the two shares within one file", () => {
    const { first, second } = splitIntegrationFiles(integration);
    expect([...first, ...second].sort()).toEqual([...integration].sort());
    expect(new Set([...first, ...second]).size).toBe(integration.length);
    for (const pinned of FIRST_STACK_ONLY_TESTS) {
      expect(existsSync(join(paths.root, pinned))).toBe(true);
      expect(first).toContain(pinned);
      expect(second).not.toContain(pinned);
    }
    expect(Math.abs(first.length - second.length)).toBeLessThanOrEqual(1);
  });

  test("the split of a small list keeps the pinned files first and balances the rest", () => {
    const pinned = FIRST_STACK_ONLY_TESTS[0]!;
    const { first, second } = splitIntegrationFiles([
      "./tests/integration/b.test.ts",
      pinned,
      "./tests/integration/a.test.ts",
      "./tests/integration/c.test.ts",
    ]);
    expect(first).toEqual([pinned, "./tests/integration/b.test.ts"]);
    expect(second).toEqual(["./tests/integration/a.test.ts", "./tests/integration/c.test.ts"]);
  });

  test("the e2e files of the second stack exist", () => {
    for (const file of E2E_SECOND_STACK_TESTS) expect(existsSync(join(paths.root, file))).toBe(true);
  });
});

describe("each test file's wall time", () => {
  test("runs from its header line to the next header or the end, hooks included, across chunks", async () => {
    const { FileClock, slowestFiles } = await import("../../scripts/test.ts");
    const clock = new FileClock();
    clock.feed("bun test v1\n\ntests/integration/alerts.te", 0);
    clock.feed("st.ts:\n(pass) x [1.00ms]\n", 10);
    clock.feed("\n./tests/integration/render.test.ts:\n", 4010);
    clock.feed("(pass) y [2.00ms]\n 2 pass\n", 5000);
    clock.close(6010);
    expect([...clock.seconds]).toEqual([["tests/integration/alerts.test.ts", 4], ["tests/integration/render.test.ts", 2]]);
    expect(slowestFiles(clock.seconds, 1)).toEqual(["    4.0 s  tests/integration/alerts.test.ts"]);
  });
});
