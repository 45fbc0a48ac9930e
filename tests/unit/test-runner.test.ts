import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { paths } from "../../stack/paths.ts";
import { MEDIA_INTEGRATION_TESTS, parseBunTest } from "../../scripts/test.ts";

/** What a test that reaches the database or the stack's fixed ports imports or names. */
const REACHES_DB_OR_STACK = /stack\/(db|supervisor|stack-control|stack-env|ports)\.ts|shared\/db\/|admin-sql|createSql|LOCAL_DB_URL|LOCAL_STACK|localStackEnv|startTestEmulator|edge-host/;

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
    const reaching = [...importedFiles(join(paths.root, "tests", "integration", "hostile-input.test.ts"))].filter((f) => REACHES_DB_OR_STACK.test(readFileSync(f, "utf8")));
    expect(reaching.length).toBeGreaterThan(0);
  });
});

test("bun test's closing counts are read from its last summary", () => {
  expect(parseBunTest(" 3 pass\n 1 fail\n...\n 12 pass\n 0 fail\n 2 skip\n")).toEqual({ passed: 12, failed: 0, skipped: 2 });
});
