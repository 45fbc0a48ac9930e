/**
 * The render's picture and sound run as two FFmpeg processes beside each other, then a stream copy
 * (render-runner/ffmpeg-render.ts): what comes out is one MP4 with both, and the intermediate
 * files (picture, measured mix, encoded sound) are gone whether the render succeeds or is stopped.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RenderPlan, renderVideo } from "../../render-runner/ffmpeg-render.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { LOUDNESS_TARGET } from "../../shared/media/loudness.ts";
import { measureR128, sceneClip } from "../fixtures/render-inputs.ts";
import { spokenVoice } from "../../scripts/bench/spoken-voice.ts";

let dir: string;
let plan: Omit<RenderPlan, "outPath">;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-render-parts-"));
  const inputs = join(dir, "inputs");
  await mkdir(inputs);
  const voice = await spokenVoice(inputs, "voice", ["Two processes make one video.", "Nothing is left behind."], { gapMs: 300, levelDb: -12 });
  const clip = await sceneClip(join(inputs, "clip.mp4"), 2);
  plan = { clips: [{ path: clip, frames: Math.ceil((voice.durationMs / 1000) * 30) + 15 }], audioPath: voice.path, subtitlesPath: null };
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("one MP4 with picture and normalised sound, and nothing else left in its directory", async () => {
  const out = join(dir, "ok");
  await mkdir(out);
  const fractions: number[] = [];
  const report = await renderVideo({ ...plan, outPath: join(out, "video.mp4") }, { onProgress: (p) => fractions.push(p.fraction) });
  expect(await readdir(out)).toEqual(["video.mp4"]);
  const media = await probeMedia(join(out, "video.mp4"));
  expect(media.video?.codec_name).toBe("h264");
  expect(media.audio?.codec_name).toBe("aac");
  expect(Math.abs(media.duration_s - plan.clips[0]!.frames / 30)).toBeLessThan(0.1);
  expect(Math.abs((await measureR128(join(out, "video.mp4"))).integrated - LOUDNESS_TARGET.integrated)).toBeLessThanOrEqual(1);
  expect(report.linear).toBe(true);
  expect(fractions.at(-1)).toBe(1);
}, 120_000);

test("a render stopped while it runs rejects and leaves no intermediate file", async () => {
  const out = join(dir, "stopped");
  await mkdir(out);
  const stop = new AbortController();
  const rendering = renderVideo({ ...plan, outPath: join(out, "video.mp4") }, { signal: stop.signal, onProgress: () => stop.abort(new Error("shutdown")) });
  await expect(rendering).rejects.toThrow();
  expect((await readdir(out)).filter((name) => name !== "video.mp4")).toEqual([]);
}, 120_000);
