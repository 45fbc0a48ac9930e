/**
 * The weekly reports' charts are drawn inside the Edge limits: through the real edge host (Deno
 * workers, the hosted 2-s CPU limit enforced, a request past it ended with 546), ticks build every
 * due report, charts included, each tick under the limit, a cold worker's first chart the dearest
 * (docs/reports/benchmarks.md). The stored PNGs are the charts resvg drew: ffprobe decodes them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type EdgeHostProcess, startEdgeHost } from "../fixtures/edge-host-process.ts";

const CPU_LIMIT_MS = 2_000;
const sql = postgres(LOCAL_DB_URL, { max: 2, onnotice: () => {} });
const storageDir = mkdtempSync(join(tmpdir(), "mdame-weekly-charts-edge-"));
let edgeHost: EdgeHostProcess;
let serviceRoleKey: string;

async function tick(): Promise<void> {
  const response = await fetch(`${edgeHost.functionsUrl}/pipeline/tick`, {
    method: "POST",
    headers: { authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ reason: "test" }),
  });
  if (response.status !== 200) console.log("TICKS", JSON.stringify(tickLines().map((l) => [l.http_status, l.cpu_ms, l.wall_ms, l.memory_mb, l.limit])), edgeHost.output().split("\n").filter((l) => /limit|LIMIT/.test(l)).slice(-3).join("\n").slice(0, 1500));
  expect(response.status).toBe(200);
  await response.body?.cancel();
}

const tickLines = () =>
  edgeHost.output().split("\n").filter((line) => line.includes('"path":"/functions/v1/pipeline/tick"')).map((line) =>
    JSON.parse(line) as Record<string, unknown>
  );

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const { TELEGRAM_BOT_TOKEN: _unconfigured, ...env } = localStackEnv();
  serviceRoleKey = env.SERVICE_ROLE_KEY!;
  // One worker, started cold: the first tick loads vega, vega-lite and resvg's WebAssembly module.
  edgeHost = await startEdgeHost({
    ...env,
    MDAME_EDGE_WORKERS: "1",
    EDGE_CPU_LIMIT_MS: String(CPU_LIMIT_MS),
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storageDir,
    LOG_LEVEL: "info",
  });
}, 120_000);

afterAll(async () => {
  await edgeHost?.stop();
  await sql.end();
  rmSync(storageDir, { recursive: true, force: true });
}, 60_000);

describe("weekly charts on the Edge", () => {
  test("ticks build every due report with its charts, each tick under the CPU limit", async () => {
    const [queued] = await sql`select mdame.queue_weekly_reports('2026-11-22 21:00Z') as added`;
    expect(queued!.added).toBe(2);
    const pending = async () => (await sql`select 1 from mdame.weekly_reports where status = 'pending'`).length;
    for (let i = 0; i < 10 && (await pending()) > 0; i++) await tick().catch((e) => { console.log(edgeHost.output().split("\n").filter((l) => l.includes("tick") || l.includes("cpu") || l.includes("LIMIT")).slice(-8).join("\n")); throw e; });

    const rows = await sql`select dimension_id, status, chart_key from mdame.weekly_reports order by dimension_id`;
    expect(rows.map((r) => `${r.dimension_id} ${r.status}`)).toEqual(["sains-singkat ready", "tech-explained ready"]);
    for (const row of rows) {
      const probe = spawnSync("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", join(storageDir, row.chart_key as string)], {
        encoding: "utf8",
      });
      expect({ key: row.chart_key, codec: probe.stdout.trim() }).toEqual({ key: row.chart_key, codec: "png" });
    }
    const lines = tickLines();
    console.log("TICKS", JSON.stringify(lines.map((l) => [l.http_status, l.cpu_ms, l.wall_ms, l.memory_mb])));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) {
      expect(line.http_status).toBe(200);
      expect(line.cpu_ms as number).toBeLessThan(CPU_LIMIT_MS);
    }
    expect(edgeHost.output()).not.toContain("WORKER_LIMIT");
  }, 180_000);
});
