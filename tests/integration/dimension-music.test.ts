/**
 * A dimension's music bed through the operator API (the pipeline function with the real Postgres):
 * added with the configuration (defaults filled in), changed and removed with PATCH, and refused
 * with 400 naming the field when it breaks a bound, with nothing stored.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type PipelineServer, servePipeline } from "../fixtures/pipeline-server.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let pipeline: PipelineServer;
let serviceRoleKey: string;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const env: Record<string, string> = { ...localStackEnv(), LOG_LEVEL: "warn" };
  serviceRoleKey = env.SERVICE_ROLE_KEY;
  pipeline = servePipeline(env);
}, 60_000);

afterAll(async () => {
  await pipeline?.stop();
  await db.reset({ log: () => {} });
}, 60_000);

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${pipeline.functionsUrl}/pipeline${path}`, {
    method,
    headers: { authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const storedMusic = (id: string) => admin`select music from mdame.dimensions where id = ${id}`.then((rows) => rows[0]?.music ?? null);

test("a new dimension's bed is stored with its defaults and shown back", async () => {
  const response = await call("POST", "/dimensions", {
    id: "ocean-beds",
    display_name: "Ocean Beds",
    language: "en",
    tts_voice: "en-US-AriaNeural",
    trend_geo: "US",
    style: { palette: ["#000814", "#001d3d"], motion: "drift" },
    music: { library: "music/calm" },
  });
  expect(response.status).toBe(201);
  const expected = { library: "music/calm", gain_db: -10, duck_db: 10, fade_s: 1.5 };
  expect(((await response.json()) as { music: unknown }).music).toEqual(expected);
  expect(await storedMusic("ocean-beds")).toEqual(expected);
});

test("PATCH sets a bed on a seeded dimension, keeps it across other changes, and null removes it", async () => {
  expect(await storedMusic("tech-explained")).toBeNull();
  expect((await call("PATCH", "/dimensions/tech-explained", { music: { library: "music/upbeat", gain_db: -14 } })).status).toBe(200);
  expect(await storedMusic("tech-explained")).toEqual({ library: "music/upbeat", gain_db: -14, duck_db: 10, fade_s: 1.5 });
  expect((await call("PATCH", "/dimensions/tech-explained", { daily_limit: 2 })).status).toBe(200);
  expect(await storedMusic("tech-explained")).toEqual({ library: "music/upbeat", gain_db: -14, duck_db: 10, fade_s: 1.5 });
  const removed = await call("PATCH", "/dimensions/tech-explained", { music: null });
  expect(((await removed.json()) as { music: unknown }).music).toBeNull();
  expect(await storedMusic("tech-explained")).toBeNull();
});

test("a bed breaking a bound is a 400 naming the field, and nothing changes", async () => {
  const response = await call("PATCH", "/dimensions/sains-singkat", { music: { library: "../private", gain_db: 6 } });
  expect(response.status).toBe(400);
  const text = await response.text();
  expect(text).toContain("library");
  expect(text).toContain("gain_db");
  expect(await storedMusic("sains-singkat")).toBeNull();
});
