/**
 * The ingest stage through the real stage runner, real Postgres and the emulated sources: two
 * dimensions reading the same Google Trends region but about different subjects get disjoint
 * topics; what each dropped is recorded with its score and why; a failing source is skipped; all
 * sources failing leaves the task to be retried.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import { drainStageTasks } from "../../functions/pipeline/stage-runner.ts";
import { DimensionConfig } from "../../shared/contracts/dimension.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let deps: PipelineDeps;
let storageDir: string;

const style = { palette: ["#3b2f2f", "#f4e1c1"], motion: "zoom" as const };

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  emulator = await startTestEmulator();
  storageDir = await mkdtemp(join(tmpdir(), "mdame-it-ingest-"));
  deps = createPipelineDeps({ ...localStackEnv(), ...emulator.serviceEnv(), STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: storageDir, LOG_LEVEL: "error" });

  const kitchen = DimensionConfig.parse({
    id: "kitchen-table",
    display_name: "Kitchen Table",
    language: "en",
    tts_voice: "en-US-GuyNeural",
    trend_geo: "US",
    style,
    safety_profile: { blocked_terms: ["casino"] },
    daily_limit: 5,
    subject: { keywords: ["sourdough", "recipe", "baking", "bread", "cooking", "kitchen", "coffee", "pasta", "ramen"], categories: ["cooking", "baking"] },
    sources: [
      { kind: "google_trends" },
      { kind: "feed", url: `${emulator.url}/feeds/kitchen.xml`, weight: 0.9 },
      { kind: "reddit", subreddit: "Cooking", weight: 0.8 },
      { kind: "feed", url: `${emulator.url}/feeds/broken.xml` },
    ],
    min_score: 0.3,
  });
  await admin`select mdame.create_dimension(${admin.json(kitchen as never)}::jsonb)`;
  // The seeded tech dimension reads the same region, plus Hacker News, Wikipedia and an Atom feed.
  await admin`update mdame.dimensions set daily_limit = 5,
    sources = sources || ${admin.json([{ kind: "feed", url: `${emulator.url}/feeds/space-notes.xml`, weight: 0.7, limit: 30 }] as never)}::jsonb
    where id = 'tech-explained'`;
  await admin`update mdame.dimensions set active = false where id = 'sains-singkat'`;
}, 60_000);

afterAll(async () => {
  await deps?.sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  await emulator?.stop();
  await rm(storageDir, { recursive: true, force: true });
}, 60_000);

/** Runs stage tasks until no dimension of the run is still ingesting (the ingest tasks are the oldest). */
async function ingest(runId: string) {
  for (let i = 0; i < 10; i++) {
    await drainStageTasks(deps, { budgetMs: 1 });
    const [left] = await admin`select count(*)::int as n from mdame.run_dimensions where run_id = ${runId} and status = 'ingesting'`;
    if (left.n === 0) return;
  }
  throw new Error("ingest did not finish");
}

test("two dimensions on one geo but different subjects get disjoint, on-subject topics from their own sources", async () => {
  const [run] = await admin`select * from mdame.start_run('it-ingest-sources', 'dev', 'manual', current_date, null)`;
  await ingest(run.run_id);

  const units = await admin`select dimension_id, topic from mdame.work_units where run_id = ${run.run_id} order by dimension_id, created_at`;
  const titles = (dimension: string) => units.filter((u) => u.dimension_id === dimension).map((u) => u.topic.title as string);
  const kitchen = titles("kitchen-table");
  const tech = titles("tech-explained");
  expect(kitchen.length).toBeGreaterThanOrEqual(3);
  expect(tech.length).toBeGreaterThanOrEqual(3);
  expect(kitchen.filter((t) => tech.includes(t))).toEqual([]);
  expect(units.filter((u) => u.dimension_id === "kitchen-table").map((u) => u.topic.source).sort()).toContain("reddit");
  expect(kitchen).toContain("sourdough starter");
  expect(tech).toContain("james webb telescope");
  // Every topic says which of its subject's terms it matched, and how it scored.
  for (const unit of units) {
    expect(unit.topic.matched.length).toBeGreaterThan(0);
    expect(unit.topic.score).toBeGreaterThanOrEqual(0.3);
    expect(Object.keys(unit.topic.score_components).sort()).toEqual(["novelty", "recency", "relevance", "traffic"]);
  }

  const dropped = await admin`select dimension_id, title, source, reason, score, components, detail from mdame.rejected_topics where run_id = ${run.run_id}`;
  const find = (dimension: string, title: string) => dropped.find((d) => d.dimension_id === dimension && d.title === title);
  // The shared trends feed: each dimension keeps what is about it and records the rest as off-subject.
  expect(find("kitchen-table", "james webb telescope")).toMatchObject({ reason: "off_subject", source: "google_trends" });
  expect(find("tech-explained", "sourdough starter")).toMatchObject({ reason: "off_subject" });
  expect(find("tech-explained", "Taylor Swift")).toMatchObject({ reason: "off_subject", source: "wikipedia" });
  // The same story from two sources is one topic.
  expect(find("kitchen-table", "Sourdough Starter Tips")).toMatchObject({ reason: "near_duplicate", source: "feed", detail: { of: "sourdough starter" } });
  expect(find("tech-explained", "The James Webb Telescope's new deep field")?.reason).toBe("near_duplicate");
  for (const row of dropped) {
    expect(typeof row.score).toBe("number");
    expect(row.components).toHaveProperty("relevance");
  }
  // The unsafe trend is still audited by the safety filter, before any scoring.
  const [audit] = await admin`select count(*)::int as n from mdame.safety_audit_logs where run_id = ${run.run_id} and subject_text = 'online casino bonus'`;
  expect(audit.n).toBe(2);
  const [kitchenRun] = await admin`select status, units_created from mdame.run_dimensions where run_id = ${run.run_id} and dimension_id = 'kitchen-table'`;
  // The broken feed was skipped, not fatal.
  expect(kitchenRun).toMatchObject({ status: "ingested", units_created: kitchen.length });
}, 120_000);

test("when every source of a dimension fails, its ingest task is retried later, not lost", async () => {
  await admin`update mdame.dimensions set active = false where id in ('tech-explained', 'kitchen-table')`;
  await admin`update mdame.dimensions set active = true, sources = ${
    admin.json([
      { kind: "feed", url: `${emulator.url}/feeds/unavailable.xml`, weight: 1, limit: 5 },
      { kind: "wikipedia", project: "xx.wikipedia", weight: 1, limit: 5 },
    ] as never)
  }::jsonb where id = 'sains-singkat'`;
  // Today's run holds the lock until it closes; this one is tomorrow's.
  await admin`update mdame.pipeline_runs set status = 'completed', finished_at = now()`;
  await admin`delete from mdame.system_locks`;
  // The first run's script tasks are older than the new ingest task and would be claimed first.
  await admin`delete from pgmq.q_stage_tasks`;
  const [run] = await admin`select * from mdame.start_run('it-ingest-all-fail', 'dev', 'manual', current_date + 1, null)`;
  await drainStageTasks(deps, { budgetMs: 1 });

  const [rd] = await admin`select status from mdame.run_dimensions where run_id = ${run.run_id} and dimension_id = 'sains-singkat'`;
  expect(rd.status).toBe("ingesting");
  const [msg] =
    await admin`select read_ct, vt > now() as hidden from pgmq.q_stage_tasks where message->>'run_id' = ${run.run_id} and message->>'stage' = 'ingest'`;
  expect(msg).toMatchObject({ read_ct: 1, hidden: true });
  const [event] = await admin`select detail from mdame.events where run_id = ${run.run_id} order by id desc limit 1`;
  expect(JSON.stringify(event?.detail ?? {})).toContain("every source failed");
}, 60_000);
