/**
 * A dimension in a third language and script, end to end through the real processes (Postgres
 * with pg_cron and pgmq, the Deno edge host, both Bun workers, the emulators): Russian, written in
 * Cyrillic, spoken by espeak-ng behind the Edge TTS protocol. The operator adds it through the
 * API, connects its channel with `mdame account connect`, and triggers its run over HTTP; the
 * test follows the run to its published video. Then it reads what every process of the stack wrote
 * meanwhile: JSON lines a machine can follow by run, dimension and stage, and no secret of the stack.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { RunStatus, TriggeredRun } from "../../shared/contracts/operator.ts";
import { createSql } from "../../shared/db/client.ts";
import { resolveFfmpegBinaries } from "../../shared/media/ffmpeg.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { captionFontFor } from "../../shared/text/fonts.ts";
import { splitWords } from "../../shared/text/words.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv, readStackEnv } from "../../stack/stack-env.ts";
import { type StackHandle, startStack, supervisorPid } from "../../stack/stack-control.ts";
import { componentLogOffsets, componentOutputSince, ENGINE_COMPONENTS, stackSecrets } from "../fixtures/component-logs.ts";
import { connectTestAccounts } from "../fixtures/connect-accounts.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";

const env = localStackEnv();
let stack: StackHandle;
/** Where each component's log file ended before this test's stack started. */
let logOffsets: Record<string, number> = {};
let runId: string | null = null;

const RUSSIAN = {
  id: "nauka-korotko",
  display_name: "Наука коротко",
  language: "ru-RU",
  tts_voice: "ru-RU-SvetlanaNeural",
  trend_geo: "RU",
  style: { palette: ["#102a43", "#243b53", "#f0b429", "#fce588"], motion: "drift", caption_font: "DejaVu Sans" },
  safety_profile: { blocked_terms: ["казино", "ставки", "оружие"] },
  daily_limit: 1,
  // A short video: the render takes most of a run's time.
  narration_min_words: 60,
  narration_max_words: 80,
};

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return await fetch(`${env.FUNCTIONS_URL}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json", ...init.headers },
    signal: AbortSignal.timeout(15_000),
  });
}

beforeAll(async () => {
  const other = supervisorPid();
  if (other !== null) throw new Error(`a stack supervisor (pid ${other}) is already running; this test needs a stack of its own`);
  // From an empty database (migrations + seed, no accounts).
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  await db.stop(() => {});
  logOffsets = componentLogOffsets();
  stack = await startStack({ quiet: true, timeoutMs: 180_000 });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
}, 120_000);

test("a Russian dimension is scripted, spoken, captioned, rendered and published in Russian", async () => {
  const added = await api("/pipeline/dimensions", { method: "POST", body: JSON.stringify(RUSSIAN) });
  expect(added.status).toBe(201);
  await connectTestAccounts(env, [RUSSIAN.id]);

  const trigger = await api("/pipeline/runs", { method: "POST", body: JSON.stringify({ dimension: RUSSIAN.id }) });
  expect(trigger.status).toBe(202);
  runId = TriggeredRun.parse(await trigger.json()).run_id;

  let status: RunStatus | null = null;
  const deadline = Date.now() + 10 * 60_000;
  while (Date.now() < deadline) {
    const response = await api(`/pipeline/runs/${runId}`);
    if (response.ok) {
      status = RunStatus.parse(await response.json());
      if (status.run.status !== "running") break;
    } else {
      await response.body?.cancel();
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  expect(status?.run.status).toBe("completed");
  const [unit] = status!.units;
  expect(status!.units).toHaveLength(1);
  expect(unit).toMatchObject({ dimension_id: RUSSIAN.id, stage: "published", error: null });
  const externalId = unit.publications[0]?.external_id;
  expect(unit.publications[0]?.status).toBe("published");

  // The script, its title and the spoken words are Russian, in Cyrillic.
  const sql = createSql(LOCAL_DB_URL, { max: 1 });
  const [row] = await sql`select script, voice, topic from mdame.work_units where id = ${unit.id}`;
  await sql.end();
  const cyrillic = /\p{Script=Cyrillic}/u;
  expect(row.script.title).toMatch(cyrillic);
  expect(row.topic.title).toMatch(cyrillic);
  const words = splitWords(row.script.narration, RUSSIAN.language).length;
  expect(words).toBeGreaterThanOrEqual(RUSSIAN.narration_min_words);
  expect(words).toBeLessThanOrEqual(RUSSIAN.narration_max_words);
  const spoken = (row.voice.words as { text: string }[]).map((w) => w.text);
  expect(spoken.length).toBe(words);
  expect(spoken.every((w) => cyrillic.test(w) || /\d/.test(w))).toBe(true);
  expect(row.voice.voice).toBe(RUSSIAN.tts_voice);
  // DejaVu Sans covers Cyrillic: the configured caption font is the one the captions use.
  expect(captionFontFor(row.script.narration, RUSSIAN.style.caption_font)).toBe("DejaVu Sans");

  // The platform holds a valid Short with speech, uploaded with the dimension's language.
  const videos = await (await fetch(`${env.EMULATOR_URL}/_emulator/youtube/videos`)).json() as { id: string; path: string; title: string }[];
  const video = videos.find((v) => v.id === externalId)!;
  expect(video.title).toBe(row.script.title);
  // The video resource the platform answered the upload with, beside the file in the emulator's store.
  const resource = JSON.parse(readFileSync(video.path.replace(/\.mp4$/, ".json"), "utf8")).resource as { snippet?: { defaultLanguage?: string } };
  expect(resource.snippet?.defaultLanguage).toBe("ru-RU");
  const info = await probeMedia(video.path);
  expect(info.video).toMatchObject({ codec_name: "h264", width: 1080, height: 1920 });
  expect(info.audio?.codec_name).toBe("aac");
  expect(info.duration_s).toBeGreaterThanOrEqual(15);
  const { ffmpeg } = await resolveFfmpegBinaries();
  const volume = spawnSync(ffmpeg, ["-hide_banner", "-i", video.path, "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"], { encoding: "utf8" });
  expect(Number(/mean_volume:\s*(-?[\d.]+) dB/.exec(volume.stderr)?.[1])).toBeGreaterThan(-35);
}, 15 * 60_000);

/** Lines that report how a task, a job or a step ended, by component and message. */
const OUTCOME_LINES: Record<string, string[]> = {
  pipeline: [
    "stage task done",
    "stage task failed",
    "run triggered",
    "published",
    "script accepted",
    "scenes planned",
    "voice synthesised",
    "trends ingested",
    "script classified",
  ],
  "worker-callback": ["scene completed", "render completed", "worker job failed"],
  "gpu-worker": ["task finished", "task failed", "scene generated", "callback delivered"],
  "render-runner": ["task finished", "task failed", "render stored", "callback delivered"],
  supervisor: ["edge ready", "gpu-worker ready", "render-runner ready"],
};
const STATUSES = ["started", "succeeded", "failed", "retrying", "dead_lettered", "deferred", "skipped", "refused", "cancelled"];

test("every process wrote JSON lines carrying run, dimension, stage and status, and no secret of the stack", () => {
  expect(runId).not.toBeNull();
  const output = componentOutputSince(logOffsets);
  const secrets = stackSecrets(readStackEnv());
  // The secrets looked for include what the OAuth emulator handed out for this run's channel.
  expect(Object.keys(secrets).filter((name) => name.startsWith("access token of")).length).toBeGreaterThan(0);
  for (const name of ["SERVICE_ROLE_KEY", "CREDENTIALS_KEY", "WEBHOOK_SECRET", "GOOGLE_OAUTH_CLIENT_SECRET"]) expect(secrets[name]).toBeString();

  // No secret anywhere in any process's output, the emulators' and the database's included.
  for (const [component, text] of Object.entries(output)) {
    for (const [name, value] of Object.entries(secrets)) {
      if (text.includes(value)) throw new Error(`${component}.log holds ${name}`);
    }
  }

  const lines: Record<string, unknown>[] = [];
  for (const component of ENGINE_COMPONENTS) {
    const text = output[component] ?? "";
    expect(text.length).toBeGreaterThan(0);
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        throw new Error(`${component}.log holds a line that is not JSON: ${line.slice(0, 300)}`);
      }
      expect(typeof entry === "object" && entry !== null && !Array.isArray(entry)).toBe(true);
      lines.push(entry as Record<string, unknown>);
    }
  }
  for (const line of lines) {
    expect(line).toHaveProperty("component");
    expect(line).toHaveProperty("time");
    expect(line).not.toHaveProperty("dimension");
    // A line about a unit, a step or a worker's job names its run, dimension and stage.
    if (line.unit_id !== undefined || line.step_token !== undefined || (line.component === "worker-callback" && line.kind !== undefined)) {
      if (typeof line.execution_id !== "string" || typeof line.dimension_id !== "string" || typeof line.stage !== "string") {
        throw new Error(`a task line lacks execution_id, dimension_id or stage: ${JSON.stringify(line)}`);
      }
    }
    // A line that reports an outcome says which.
    if (OUTCOME_LINES[line.component as string]?.includes(line.msg as string)) {
      if (!STATUSES.includes(line.status as string)) throw new Error(`an outcome line has no status: ${JSON.stringify(line)}`);
    }
  }

  // One run followed across the processes: the Edge stage runner, the callback function and both
  // workers all wrote lines of it, and every stage of it reported its outcome.
  const ofRun = lines.filter((line) => line.execution_id === runId);
  expect(new Set(ofRun.map((line) => line.component))).toEqual(new Set(["pipeline", "worker-callback", "gpu-worker", "render-runner"]));
  expect(ofRun.every((line) => line.dimension_id === RUSSIAN.id)).toBe(true);
  const done = ofRun.filter((line) => line.msg === "stage task done" || (line.msg === "task finished"));
  expect(new Set(done.map((line) => line.stage))).toEqual(new Set(["ingest", "script", "safety", "plan", "voice", "visual_generation", "render", "publish"]));
  expect(done.every((line) => line.status === "succeeded")).toBe(true);
  expect(ofRun.some((line) => line.component === "worker-callback" && line.msg === "render completed" && line.status === "succeeded")).toBe(true);
});
