import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { musicBedForJob } from "../../render-runner/music-library.ts";
import { createRenderDefinition } from "../../render-runner/render-task.ts";
import { computeTimeline } from "../../render-runner/timeline.ts";
import type { RenderJob } from "../../shared/contracts/queue.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { LOUDNESS_TARGET, TRUE_PEAK_LIMIT_DBTP } from "../../shared/media/loudness.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import type { TaskContext, TaskOutcome } from "../../shared/worker/pull-worker.ts";
import { generatedLicense, synthesiseHighBandHiss } from "../../scripts/music/generate-test-tracks.ts";
import { measureR128, sceneClip, segmentRms } from "../fixtures/render-inputs.ts";
import { type SpokenVoice, spokenVoice } from "../../scripts/bench/spoken-voice.ts";

/**
 * Loudness and the music bed, through the render task with real espeak-ng and FFmpeg: a quiet
 * voice (about -40 LUFS) and a loud one (about -12 LUFS, peaks near 0 dBFS) both come out at the
 * platform target, and a music bed is heard in the pause between two phrases and dips well under
 * the voice while it speaks. The bed used here is a 12-15 kHz hiss: espeak-ng's speech has
 * nothing above 11 kHz, so a high-pass filter on the output hears the bed alone, even under the
 * voice. Work directories of failed assertions are kept and printed.
 */

const PHRASES = [
  "The ocean covers most of our planet, and we have explored only a small part of it.",
  "Follow for more facts about the deep sea and its strange animals.",
];
const GAP_MS = 3000;
const LIBRARY = "music/probe";
/** Passes only the bed: the voice has no energy there (espeak-ng speaks at 22.05 kHz). */
const BED_ONLY = "highpass=f=11500,highpass=f=11500,highpass=f=11500";
/** Shorter than the video, so it has to loop. */
const PROBE = { name: "probe-hiss", title: "Probe hiss", durationS: 7 };

let dir = "";
let keep = false;
let store: LocalDirectoryStore;
const logLines: Array<Record<string, unknown>> = [];
const logger = createLogger("render-audio-test", { write: (line: string) => void logLines.push(JSON.parse(line)) });
const voices = new Map<string, SpokenVoice>();
const outputs = new Map<string, { path: string; outcome: TaskOutcome; job: RenderJob }>();

function taskContext(): TaskContext {
  return {
    logger,
    signal: new AbortController().signal,
    heartbeat: () => Promise.resolve(),
    queue: "render",
    msgId: 21,
    readCt: 1,
    workerId: "render-audio-test",
  };
}

function jobFor(name: string, voice: SpokenVoice, music: RenderJob["music"]): RenderJob {
  const secondPhraseWord = PHRASES[0].split(" ").length;
  return {
    run_id: "5a0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
    unit_id: crypto.randomUUID(),
    dimension_id: "ocean-facts",
    title: `Loudness ${name}`,
    audio_key: `voice/${name}.mp3`,
    audio_duration_ms: voice.durationMs,
    words: voice.words,
    scenes: [{ index: 0, asset_key: "scenes/clip.mp4", first_word: 0 }, { index: 1, asset_key: "scenes/clip.mp4", first_word: secondPhraseWord }],
    caption_font: "DejaVu Sans",
    caption_profile: "intersection",
    ...(music ? { music } : {}),
    step_token: `step:unit-${name}:6:abc`,
  };
}

async function render(name: string, voiceName: string, music: RenderJob["music"]) {
  const voice = voices.get(voiceName)!;
  const job = jobFor(name, voice, music);
  await store.putFile(job.audio_key, voice.path, "audio/mpeg");
  const outcome = await createRenderDefinition({ store, workDir: join(dir, "work") }).run(job, taskContext());
  if (outcome.kind !== "render.completed") throw new Error(`render ${name} did not complete`);
  const path = join(dir, `${name}.mp4`);
  await store.getFile(outcome.video_key, path);
  outputs.set(name, { path, outcome, job });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-render-audio-test-"));
  await mkdir(join(dir, "work"));
  store = new LocalDirectoryStore(join(dir, "store"));
  voices.set("quiet", await spokenVoice(dir, "quiet", PHRASES, { gapMs: GAP_MS, levelDb: -26 }));
  voices.set("loud", await spokenVoice(dir, "loud", PHRASES, { gapMs: GAP_MS, levelDb: 20 }));
  await store.putFile("scenes/clip.mp4", await sceneClip(join(dir, "clip.mp4"), 2), "video/mp4");

  const tracks = join(dir, "tracks");
  const probe = await synthesiseHighBandHiss(tracks, PROBE);
  await store.putFile(`${LIBRARY}/probe-hiss.m4a`, probe, "audio/mp4");
  await store.putFile(`${LIBRARY}/probe-hiss.license.json`, join(tracks, "probe-hiss.license.json"), "application/json");
  // A track without a sidecar: never used.
  await copyFile(probe, join(tracks, "unlicensed.m4a"));
  await store.putFile(`${LIBRARY}/unlicensed.m4a`, join(tracks, "unlicensed.m4a"), "audio/mp4");

  await render("quiet", "quiet", undefined);
  await render("loud", "loud", undefined);
  await render("bed", "quiet", { library: LIBRARY, gain_db: -10, duck_db: 10, fade_s: 1 });
}, 300_000);

afterAll(async () => {
  if (keep) {
    console.error(`render audio test evidence kept in ${dir}`);
    return;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function evidence(block: () => Promise<void> | void) {
  try {
    await block();
  } catch (error) {
    keep = true;
    throw error;
  }
}

for (const name of ["quiet", "loud", "bed"]) {
  test(`${name}: the video plays at -14 LUFS +-1 with true peaks at most -1 dBTP, and lasts exactly its frames`, () =>
    evidence(async () => {
      const { path, job } = outputs.get(name)!;
      const voiceLevel = await measureR128(voices.get(name === "loud" ? "loud" : "quiet")!.path);
      const out = await measureR128(path);
      console.error(`${name}: voice in ${voiceLevel.integrated} LUFS / ${voiceLevel.truePeak} dBTP -> video ${out.integrated} LUFS / ${out.truePeak} dBTP`);
      expect(Math.abs(voiceLevel.integrated - LOUDNESS_TARGET.integrated)).toBeGreaterThan(1.5);
      expect(Math.abs(out.integrated - LOUDNESS_TARGET.integrated)).toBeLessThanOrEqual(1);
      expect(out.truePeak).toBeLessThanOrEqual(TRUE_PEAK_LIMIT_DBTP);

      const timeline = computeTimeline(job.words, job.scenes, job.audio_duration_ms);
      const info = await probeMedia(path);
      expect(info.video!.nb_frames).toBe(timeline.total_frames);
      expect(Math.abs(info.duration_s - timeline.total_frames / 30)).toBeLessThan(0.05);
    }), 60_000);
}

test("the voice-only renders report no music", () => {
  expect(outputs.get("quiet")!.outcome).not.toHaveProperty("music");
  expect(outputs.get("loud")!.outcome).not.toHaveProperty("music");
});

test("the bed's track and its licence are reported with the video", () =>
  evidence(() => {
    const { outcome } = outputs.get("bed")!;
    if (outcome.kind !== "render.completed") throw new Error("not completed");
    expect(outcome.music).toEqual({ track_key: `${LIBRARY}/probe-hiss.m4a`, license_key: `${LIBRARY}/probe-hiss.license.json`, ...generatedLicense(PROBE) });
    const stored = logLines.find((l) => l.msg === "render stored" && l.music_track === `${LIBRARY}/probe-hiss.m4a`);
    expect(stored?.loudness_linear).toBe(true);
  }));

test("the bed is heard in the pause and dips at least 15 dB under the voice while it speaks", () =>
  evidence(async () => {
    const { path } = outputs.get("bed")!;
    const voice = voices.get("quiet")!;
    const gap = voice.gaps[0];
    // Past the compressor's release, before the next phrase.
    const gapBed = await segmentRms(path, gap.start_ms / 1000 + 1.2, gap.end_ms / 1000 - 0.2, BED_ONLY);
    const plain = await segmentRms(outputs.get("quiet")!.path, gap.start_ms / 1000 + 1.2, gap.end_ms / 1000 - 0.2, BED_ONLY);
    for (const phrase of voice.phrases) {
      const from = phrase.start_ms / 1000 + 0.5;
      const to = phrase.end_ms / 1000 - 0.5;
      const speech = await segmentRms(path, from, to);
      const bedUnderSpeech = await segmentRms(path, from, to, BED_ONLY);
      console.error(`bed: ${gapBed.toFixed(1)} dB in the pause, ${bedUnderSpeech.toFixed(1)} dB under speech at ${speech.toFixed(1)} dB`);
      expect(speech - bedUnderSpeech).toBeGreaterThanOrEqual(15);
      expect(gapBed - bedUnderSpeech).toBeGreaterThanOrEqual(6);
    }
    expect(gapBed).toBeGreaterThan(-45);
    // Without a bed the same band is empty.
    expect(plain).toBeLessThan(gapBed - 30);
  }), 60_000);

test("a library with no licensed track leaves the video to the voice alone, and says so", () =>
  evidence(async () => {
    await store.putFile("music/unlicensed/only.m4a", join(dir, "tracks", "unlicensed.m4a"), "audio/mp4");
    const job = jobFor("no-licence", voices.get("quiet")!, { library: "music/unlicensed", gain_db: -10, duck_db: 10, fade_s: 1 });
    const before = logLines.length;
    await mkdir(join(dir, "work", "no-licence"), { recursive: true });
    const bed = await musicBedForJob(store, job, join(dir, "work", "no-licence"), logger, { fetch: true });
    expect(bed).toBeNull();
    expect(logLines.slice(before).some((l) => l.msg === "music library unusable; rendering the voice alone" && String(l.error).includes("license.json"))).toBe(
      true,
    );
  }));
