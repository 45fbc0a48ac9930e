/**
 * A dimension in a third language and script, end to end through the real processes (Postgres
 * with pg_cron and pgmq, the Deno edge host, both Bun workers, the emulators): Russian, written in
 * Cyrillic, spoken by espeak-ng behind the Edge TTS protocol. The operator adds it through the
 * API, connects its channel with `mdame account connect`, and triggers its run over HTTP; the
 * test follows the run to its published video.
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
import { localStackEnv } from "../../stack/stack-env.ts";
import { type StackHandle, startStack, supervisorPid } from "../../stack/stack-control.ts";
import { connectTestAccounts } from "../fixtures/connect-accounts.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";

const env = localStackEnv();
let stack: StackHandle;

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
  const { run_id: runId } = TriggeredRun.parse(await trigger.json());

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
