/**
 * Every process refuses to start, with a clear message, when ENV is missing or wrong, differs
 * from the environment the database records, or is prod with emulator URLs.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";

const bun = process.execPath;
const deno = join(paths.root, "node_modules", ".bin", "deno");

function start(argv: string[], env: Record<string, string | undefined>) {
  const clean = Object.fromEntries(Object.entries({ ...localStackEnv(), PATH: process.env.PATH, ...env }).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const result = spawnSync(argv[0], argv.slice(1), { cwd: paths.root, env: clean, encoding: "utf8", timeout: 60_000 });
  return { status: result.status, stderr: `${result.stderr}\n${result.stdout}` };
}

beforeAll(async () => {
  await db.ensureRunning(() => {});
  // The engine must exist for the database-side check; reset only if it does not.
  const probe = spawnSync("psql", ["-At", "-c", "select value from mdame.settings where key = 'env'"], {
    env: { ...process.env, ...db.pgEnv() },
    encoding: "utf8",
  });
  if (probe.stdout.trim() !== "dev") await db.reset({ log: () => {} });
}, 60_000);

const COMPONENTS: [string, string[]][] = [
  ["gpu-worker", [bun, "gpu-worker/main.ts"]],
  ["render-runner", [bun, "render-runner/main.ts"]],
  ["edge host", [deno, "run", "-A", "stack/edge-host.ts"]],
];

describe.each(COMPONENTS)("%s", (_name, argv) => {
  test("refuses to start without ENV", () => {
    const run = start(argv, { ENV: undefined });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("ENV must be set to dev or prod");
  });

  test("refuses ENV=staging", () => {
    const run = start(argv, { ENV: "staging" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("ENV must be set to dev or prod");
  });

  test("refuses ENV=prod with emulator URLs", () => {
    const run = start(argv, { ENV: "prod" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("ENV=prod refuses emulator URLs");
  });
});

test("a worker refuses ENV=prod against a database that records dev", () => {
  const run = start([bun, "gpu-worker/main.ts"], {
    ENV: "prod",
    FUNCTIONS_URL: "https://functions.example.invalid/functions/v1",
    SUPABASE_URL: "https://project.example.invalid",
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("ENV=prod but this database is dev");
});
