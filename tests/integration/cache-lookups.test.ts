/**
 * The cache lookups the weekly report's hit rates count, recorded where the caches are consulted,
 * against the real Postgres as the engine role: the LLM answer cache (functions/pipeline/llm-cache.ts)
 * and the stored voice tracks (functions/pipeline/stages/voice-chain.ts), each a miss the first time
 * and a hit the second, and both counted by mdame.weekly_report.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { generateJsonCached, newLlmCounters } from "../../functions/pipeline/llm-cache.ts";
import type { VoiceProvider } from "../../functions/pipeline/deps.ts";
import { speakNarration } from "../../functions/pipeline/stages/voice-chain.ts";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { recordCacheLookup, weeklyReport } from "../../shared/db/rpc/weekly-reports.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import type { TextModel } from "../../shared/providers/llm/types.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();
const log = createLogger("cache-lookups-test", undefined, "silent");
let sql: Sql;
let dir: string;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(localStackEnv().DB_URL, { max: 2, application: "mdame-cache-lookups-test" });
  dir = await mkdtemp(join(tmpdir(), "mdame-cache-lookups-"));
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await rm(dir, { recursive: true, force: true });
}, 60_000);

const lookups = () => admin`select detail from mdame.events where kind = 'cache_lookup' order by id`;

test("the LLM cache records a miss, then a hit for the same call", async () => {
  await admin`delete from mdame.events where kind = 'cache_lookup'`;
  let calls = 0;
  const model: TextModel = {
    provider: "gemini",
    model: "cache-lookup-test-model",
    complete: async () => {
      calls += 1;
      return { text: JSON.stringify({ answer: "forty-two" }), stop: "stop", reason: "STOP" };
    },
  };
  const ctx = { sql, log, task: "script" as const, counters: newLlmCounters(), dimensionId: "tech-explained" };
  const schema = z.object({ answer: z.string() }).strict();
  const prompt = `a prompt of ${crypto.randomUUID()}`;
  expect(await generateJsonCached(ctx, model, prompt, schema, { temperature: 0 })).toEqual({ answer: "forty-two" });
  expect(await generateJsonCached(ctx, model, prompt, schema, { temperature: 0 })).toEqual({ answer: "forty-two" });
  expect(calls).toBe(1);
  expect((await lookups()).map((r) => r.detail)).toEqual([
    { cache: "llm", dimension_id: "tech-explained", hit: false },
    { cache: "llm", dimension_id: "tech-explained", hit: true },
  ]);
}, 60_000);

test("the voice chain reports a miss, then a hit when the track is stored", async () => {
  await admin`delete from mdame.events where kind = 'cache_lookup'`;
  const store = new LocalDirectoryStore(join(dir, "store"));
  let spoken = 0;
  const provider: VoiceProvider = {
    provider: "edge-tts",
    extension: "mp3",
    voiceFor: (d) => d.tts_voice,
    synthesize: async () => {
      spoken += 1;
      return {
        audio: new Uint8Array([1, 2, 3]),
        extension: "mp3",
        contentType: "audio/mpeg",
        durationMs: 900,
        words: [{ text: "hello", offset_ms: 0, duration_ms: 500 }],
      };
    },
  };
  const narration = {
    text: `hello ${crypto.randomUUID()}`,
    rate: "+0%",
    dimension: { language: "en" as const, tts_voice: "en-US-AriaNeural", tts_fallback_voice: null },
  };
  const record = (hit: boolean) => recordCacheLookup(sql, { cache: "tts", dimensionId: "tech-explained", hit, stage: "voice" });
  await speakNarration(store, [provider], narration, dir, log, record);
  await speakNarration(store, [provider], narration, dir, log, record);
  expect(spoken).toBe(1);
  expect((await lookups()).map((r) => r.detail)).toEqual([
    { cache: "tts", dimension_id: "tech-explained", hit: false },
    { cache: "tts", dimension_id: "tech-explained", hit: true },
  ]);
}, 60_000);

test("the weekly report counts the lookups of its week", async () => {
  await admin`delete from mdame.events where kind = 'cache_lookup'`;
  await recordCacheLookup(sql, { cache: "llm", dimensionId: "tech-explained", hit: true });
  await recordCacheLookup(sql, { cache: "llm", dimensionId: "tech-explained", hit: false });
  await recordCacheLookup(sql, { cache: "tts", dimensionId: "tech-explained", hit: true });
  const [today] = await admin`select (now() at time zone 'UTC')::date::text as d`;
  const report = await weeklyReport(sql, "tech-explained", today!.d);
  expect(report.cache.llm).toEqual({ lookups: 2, hits: 1, hit_rate: 0.5 });
  expect(report.cache.tts).toEqual({ lookups: 1, hits: 1, hit_rate: 1 });
}, 60_000);
