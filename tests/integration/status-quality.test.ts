/**
 * `mdame status` shows each unit's quality measures: a video's report stored by
 * complete_render_job (as the worker-callback hands it over) comes back through the pipeline's
 * status route and the CLI, spawned as a real process.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import type { QualityReport } from "../../shared/contracts/quality.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let deps: PipelineDeps;
let server: ReturnType<typeof Bun.serve>;
let baseUrl: string;
let serviceRoleKey: string;
let storageDir: string;

const REPORT: QualityReport = {
  passed: true,
  integrated_lufs: -14.2,
  true_peak_dbtp: -1.6,
  duration_s: 41.5,
  checks: [{ check: "integrated_loudness", passed: true, value: -14.2, unit: "LUFS", bound: "-14 +-1 LUFS", reason: null }],
  failures: [],
};

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  storageDir = await mkdtemp(join(tmpdir(), "mdame-status-quality-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/functions/v1/")) return new Response("not found", { status: 404 });
      url.pathname = url.pathname.slice("/functions/v1".length);
      return app.fetch(new Request(url.href, request));
    },
  });
  baseUrl = `http://127.0.0.1:${server.port}/functions/v1`;
  const env: Record<string, string> = {
    ...localStackEnv(),
    FUNCTIONS_URL: baseUrl,
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storageDir,
    LOG_LEVEL: "warn",
  };
  serviceRoleKey = env.SERVICE_ROLE_KEY;
  deps = createPipelineDeps(env);
  app = createPipelineApp(deps);
}, 60_000);
let app: ReturnType<typeof createPipelineApp>;

afterAll(async () => {
  server?.stop(true);
  await deps?.sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  await rm(storageDir, { recursive: true, force: true });
}, 60_000);

async function mdame(args: string[]) {
  const child = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), ...args], {
    cwd: paths.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: baseUrl, SERVICE_ROLE_KEY: serviceRoleKey, COLUMNS: "200" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

test("status shows loudness, true peak, duration and the verdict of each rendered unit", async () => {
  const [{ id: runId }] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values ('status-quality', 'dev', current_date, 'manual') returning id`;
  const [{ id: unitId }] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    values (${runId}, 'tech-explained', 'status-quality-unit', 'status-quality-fp', '{"title": "Why the sky is blue"}', 'render',
            '{"title": "Why the sky is blue", "narration": "n", "description": "d", "hashtags": ["#sky"]}')
    returning id`;
  const [{ msg_id: msgId }] = await admin`select pgmq.send('render', ${admin.json({ unit_id: unitId })}) as msg_id`;
  await admin`select mdame.complete_render_job(${msgId}, ${unitId}, ${
    admin.json({ video_key: `renders/${"b".repeat(64)}.mp4`, duration_s: 41.5, render_ms: 9000, cover_key: `renders/${"b".repeat(64)}.cover.jpg` })
  },
                                                  'wh-status-quality', ${admin.json(REPORT)})`;

  const text = await mdame(["status", runId]);
  expect(text.stderr).toBe("");
  expect(text.code).toBe(0);
  const header = text.stdout.split("\n").find((l) => l.startsWith("unit "))!;
  expect(header).toMatch(/\bquality\b/);
  const row = text.stdout.split("\n").find((l) => l.startsWith(unitId.slice(0, 8)))!;
  expect(row).toContain("-14.2 LUFS -1.6 dBTP 41.5s pass");

  const json = JSON.parse((await mdame(["status", runId, "--json"])).stdout) as { units: Array<{ quality: QualityReport; video: { cover_key?: string } }> };
  expect(json.units[0].quality).toEqual(REPORT);
  // The render's cover (what the render-runner reports beside the video) is part of the unit's status.
  expect(json.units[0].video.cover_key).toBe(`renders/${"b".repeat(64)}.cover.jpg`);
}, 60_000);
