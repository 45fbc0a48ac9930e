/**
 * The whole engine on the real pg_net and Vault: `npm run demo`'s script on the supervised stack,
 * whose database wakes the stage runner with `net.http_post` to the edge host, at the URL and with
 * the key the stack stored in Vault. The run completes and publishes a video per dimension, and
 * pg_net's own record (net._http_response) shows every wake-up answered 200 by the tick while the
 * stack ran. The stack's own sender of the stand-in is not started beside the real worker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { TickAnswer } from "../../shared/contracts/operator.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { readStackStatus } from "../../stack/stack-control.ts";
import { missingExtensions, superuser } from "./fixtures.ts";

describe.skipIf(missingExtensions !== null)("wake-ups through pg_net (the extension)", () => {
  let before = 0;

  beforeAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
    const sql = superuser();
    try {
      before = (await sql`select coalesce(max(id), 0)::int as id from net._http_response`)[0].id;
    } finally {
      await sql.end({ timeout: 2 });
    }
  }, 120_000);

  afterAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
  }, 120_000);

  test("a demo run completes, every wake-up posted by pg_net and answered 200 by the tick", async () => {
    const demo = spawnSync(process.execPath, [join(paths.root, "scripts", "demo.ts")], {
      cwd: paths.root,
      encoding: "utf8",
      timeout: 20 * 60_000,
      env: { ...process.env, LOG_LEVEL: "warn" },
    });
    if (demo.status !== 0) console.error(`${demo.stdout}\n${demo.stderr}`);
    expect(demo.status).toBe(0);
    const summary = JSON.parse(readFileSync(join(paths.root, "out", "demo-summary.json"), "utf8")) as { run_status: string; videos: unknown[] };
    expect(summary.run_status).toBe("completed");
    expect(summary.videos.length).toBe(2);
    // pg_net's own worker sent the wake-ups: the stack started no stand-in sender to take its queue.
    expect(readStackStatus()?.components.net?.state).toBe("absent");

    await db.ensureRunning(() => {});
    const sql = superuser();
    try {
      const responses = await sql`select status_code, content, error_msg from net._http_response where id > ${before} order by id`;
      // A wake-up posted as the demo's stack shut down (the edge host stops before the database)
      // finds nobody listening; pg_net records it as a connection failure. Those can only come after
      // the last answered one: any failure before it happened while the edge host was up.
      const answered = responses.findLastIndex((r) => r.status_code !== null);
      const afterStop = responses.slice(answered + 1);
      const whileUp = responses.slice(0, answered + 1);
      expect(whileUp.length).toBeGreaterThan(0);
      expect(whileUp.map((r) => r.status_code ?? r.error_msg)).toEqual(whileUp.map(() => 200));
      for (const response of whileUp) TickAnswer.parse(JSON.parse(response.content));
      for (const r of afterStop) expect(r.error_msg).toMatch(/couldn't connect/i);
    } finally {
      await sql.end({ timeout: 2 });
    }
  }, 25 * 60_000);
});
