/**
 * Render throughput: one 60-s, 8-scene short (procedural clips, espeak-ng voice, burned captions,
 * a music bed, loudness normalisation), made three ways in the same run:
 *
 * - the render: the render task's own plan of the job (render-runner/plan-render.ts) and its
 *   render, the picture (one process per segment, one per core) and the sound side by side, then
 *   a stream copy;
 * - the lower bound: one encode of the finished frames with the same encoder settings: the
 *   frames the render's encoder receives (its filter graph's output, written raw before the
 *   timing starts: frames decoded from the render's output would be easier to encode, x264
 *   having already dropped their finest detail) and the render's finished sound as WAV;
 * - a naive pipeline: encode each scene, concatenate, burn the captions, mux (render-naive.ts).
 *
 * Prints wall times, ratios, peak RSS (every FFmpeg process, via GNU time) and whether the targets
 * are met: at most 1.1x the lower bound, at least 3x faster than the naive pipeline.
 *
 *   bun scripts/bench/render-throughput.ts [--threads N] [--repeats N] [--write]
 *
 * The render and the lower bound run `--repeats` times (5 by default), back to back in each round;
 * medians are reported (the machine's speed drifts by a few percent from one minute to the next).
 *
 * `--write` replaces the "Render throughput" section of docs/reports/benchmarks.md (npm run bench does it too).
 */
import { mkdir, mkdtemp, rm, stat, statfs } from "node:fs/promises";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { ProceduralBackend } from "../../gpu-worker/backends/procedural.ts";
import { audioEncoderArgs, pictureFrameArgs, RENDER_FORMAT, renderVideo, videoEncoderArgs } from "../../render-runner/ffmpeg-render.ts";
import { layoutRender, type PlannedRender, planRender, type RenderInputs } from "../../render-runner/plan-render.ts";
import { RenderJob, type VisualJob } from "../../shared/contracts/queue.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { quantile } from "../../shared/stats.ts";
import { opensBlock } from "./doc-blocks.ts";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { synthesiseTrack, TEST_TRACKS } from "../music/generate-test-tracks.ts";
import { spokenVoice } from "./spoken-voice.ts";
import { renderNaively } from "./render-naive.ts";
import { createFfmpegRssProbe } from "./render-rss.ts";
import { BENCHMARKS_DOC } from "../docs/doc-paths.ts";

export const TARGET_LOWER_BOUND_RATIO = 1.1;
export const TARGET_NAIVE_SPEEDUP = 3;
const VIDEO_S = 60;

const SENTENCES = [
  "Octopuses have three hearts, and two of them stop beating when the animal swims.",
  "Their blood is blue, because it carries oxygen with copper instead of iron.",
  "Each arm holds a cluster of neurons that can taste and touch on its own.",
  "Some species change colour and texture in a fraction of a second to hide.",
  "They can squeeze through any gap larger than their hard beak.",
  "Mothers guard their eggs for months and often stop eating while they wait.",
  "In aquariums they have learned to open jars and to escape from closed tanks.",
  "So next time you see an octopus, remember it is thinking with its arms. Follow for more.",
];

/** One way's figures over the rounds: medians, and every round's wall time. */
export interface WayFigures {
  wallS: number;
  cpuS: number;
  /** Largest resident set of any of its FFmpeg processes, over every round. */
  peakRssMiB: number;
  rounds: number[];
}

export interface RenderBenchResult {
  threads: number | null;
  /** Picture segments of the render (render-runner/ffmpeg-render.ts pictureSegments). */
  segments: number;
  repeats: number;
  render: WayFigures;
  lowerBound: WayFigures;
  naive: WayFigures;
  /** Each round's render / lower bound, the two run back to back. */
  lowerBoundRatios: number[];
  /** Their median. */
  lowerBoundRatio: number;
  /** Median of the naive runs' wall time over the render's in the same round. */
  naiveSpeedup: number;
  rawInMemory: boolean;
  targetsMet: { lowerBound: boolean; naive: boolean };
  markdown: string[];
}

/** The bench's short as the render task receives it: the job, its inputs on disk, and the plan made from them. */
export interface BenchRender {
  job: RenderJob;
  inputs: RenderInputs;
  planned: PlannedRender;
}

/**
 * Makes the short's inputs in `dir` (narration, scene clips, music bed) and plans its render the
 * way the render task does (render-runner/plan-render.ts), so the bench times the task's render.
 */
export async function prepareRenderBench(dir: string, threads?: number): Promise<BenchRender> {
  const logger = createLogger("bench-render", { write: () => {} });
  // Eight phrases with short pauses, padded with silence to 60 s minus the render's tail.
  const voice = await spokenVoice(dir, "voice", SENTENCES, { gapMs: 900, levelDb: 0 });
  const audioMs = VIDEO_S * 1000 - 500;
  if (voice.durationMs > audioMs) throw new Error(`the narration lasts ${voice.durationMs} ms, more than ${audioMs}`);
  const padded = join(dir, "voice-60s.mp3");
  await runFfmpeg(["-i", voice.path, "-af", `apad=whole_dur=${audioMs / 1000}`, "-c:a", "libmp3lame", "-b:a", "96k", "-y", padded]);

  const firstWords = SENTENCES.map((_, i) => SENTENCES.slice(0, i).reduce((n, s) => n + s.split(" ").length, 0));
  const job = RenderJob.parse({
    run_id: "7b0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
    unit_id: "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f",
    dimension_id: "bench",
    title: "Three hearts",
    audio_key: "voice/bench.mp3",
    audio_duration_ms: audioMs,
    words: voice.words,
    scenes: firstWords.map((first, index) => ({ index, asset_key: `scenes/${index}.mp4`, first_word: first })),
    caption_font: "DejaVu Sans",
    caption_profile: "intersection",
    music: { library: "music/bench", gain_db: -10, duck_db: 10, fade_s: 1.5 },
    step_token: "step:bench:render:x",
  });
  const backend = new ProceduralBackend();
  const clips = new Map<string, string>();
  for (const { index, asset_key: assetKey } of job.scenes) {
    const visual: VisualJob = {
      run_id: job.run_id,
      unit_id: job.unit_id,
      scene_id: crypto.randomUUID(),
      scene_index: index,
      scene_hash: (index.toString(16) + "a".repeat(63)).slice(0, 64),
      dimension_id: job.dimension_id,
      prompt: `scene ${index}`,
      style: {
        palette: ["#0b1d51", "#1f77b4", "#e15759", "#f4d35e"],
        motion: (["drift", "pulse", "zoom"] as const)[index % 3],
        caption_font: job.caption_font,
      },
      duration_s: 5,
      width: 720,
      height: 1280,
      fps: 30,
      step_token: `step:bench:${index}:x`,
    };
    const path = join(dir, `scene-${index}.mp4`);
    await backend.generate(visual, path, { logger, signal: new AbortController().signal });
    clips.set(assetKey, path);
  }
  const music = await synthesiseTrack(join(dir, "music"), TEST_TRACKS[0]);
  const inputs: RenderInputs = { clips, voicePath: padded, music: { path: music, mix: job.music! } };
  const planned = await planRender(layoutRender(job), inputs, { subtitlesPath: join(dir, "captions.ass"), outPath: join(dir, "render.mp4"), threads });
  return { job, inputs, planned };
}

async function roomFor(path: string, bytes: number): Promise<boolean> {
  try {
    const fs = await statfs(path);
    // Keep 2 GiB spare for everything else using the machine's memory.
    return fs.bavail * fs.bsize > bytes + 2 * 2 ** 30 && totalmem() > bytes * 2;
  } catch {
    return false;
  }
}

async function timed(block: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await block();
  return (performance.now() - started) / 1000;
}

function machine(): string {
  return `${availableParallelism()} × ${cpus()[0]?.model?.trim() ?? "unknown cpu"}, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} at the end`;
}

const median = (values: number[]): number => quantile(values, 0.5);

/**
 * Runs the three ways `repeats` times, interleaved: each round runs the render and the lower
 * bound back to back (in alternating order), so a change in the machine's speed during the run
 * (its cores are shared with other tenants) touches both alike; the naive pipeline runs in every
 * second round. Medians are reported; the ratios are taken within each round.
 */
export async function runRenderThroughputBenchmark(
  options: { threads?: number; repeats?: number; log?: (line: string) => void } = {},
): Promise<RenderBenchResult> {
  const log = options.log ?? console.log;
  const repeats = options.repeats ?? 5;
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`repeats must be a whole number of at least 1, not ${repeats}`);
  const dir = await mkdtemp(join(tmpdir(), "mdame-bench-render-"));
  const rss = await createFfmpegRssProbe();
  let rawDir: string | null = null;
  try {
    log(`preparing a ${VIDEO_S}-s, ${SENTENCES.length}-scene short (voice, procedural clips, captions, music bed)`);
    const { planned: { plan, frames, segments } } = await prepareRenderBench(dir, options.threads);

    log("lower bound's input: the frames the render's encoder receives, raw (not timed); its sound is the first render's, as WAV");
    // Raw frames in memory when there is room, so the lower bound measures the encoder, not the disk.
    rawDir = await roomFor("/dev/shm", frames * RENDER_FORMAT.width * RENDER_FORMAT.height * 1.5) ? await mkdtemp("/dev/shm/mdame-bench-") : dir;
    const raw = join(rawDir, "frames.yuv");
    await runFfmpeg([...pictureFrameArgs(plan), "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", raw]);
    const rawBytes = (await stat(raw)).size;
    // The render's finished sound, taken from the first timed render (every round runs the render
    // before or after the lower bound; the first round runs it first).
    const wav = join(dir, "audio.wav");

    const ways = {
      render: () => renderVideo(plan, { ffmpegPath: rss.ffmpegPath }),
      lowerBound: () =>
        runFfmpeg([
          "-f",
          "rawvideo",
          "-pix_fmt",
          "yuv420p",
          "-s",
          `${RENDER_FORMAT.width}x${RENDER_FORMAT.height}`,
          "-r",
          String(RENDER_FORMAT.fps),
          "-i",
          raw,
          "-i",
          wav,
          "-map",
          "0:v",
          "-map",
          "1:a",
          "-frames:v",
          String(frames),
          ...videoEncoderArgs(plan),
          ...audioEncoderArgs(),
          "-movflags",
          "+faststart",
          "-y",
          join(dir, "lower-bound.mp4"),
        ], { ffmpegPath: rss.ffmpegPath }),
      naive: async () => {
        const naiveDir = join(dir, "naive");
        await rm(naiveDir, { recursive: true, force: true });
        await mkdir(naiveDir);
        await renderNaively({ ...plan, outPath: join(naiveDir, "naive.mp4") }, naiveDir, { ffmpegPath: rss.ffmpegPath });
      },
    };
    type Way = keyof typeof ways;
    const runs: Record<Way, Array<{ wallS: number; cpuS: number; rssMiB: number }>> = { render: [], lowerBound: [], naive: [] };
    const measure = async (way: Way, round: number) => {
      await rss.reset();
      const wallS = await timed(ways[way]);
      const readings = await rss.readings();
      if (way === "render" && runs.render.length === 0) await runFfmpeg(["-i", plan.outPath, "-map", "0:a", "-c:a", "pcm_s16le", "-y", wav]);
      const run = { wallS, cpuS: readings.reduce((sum, r) => sum + r.cpuS, 0), rssMiB: Math.max(0, ...readings.map((r) => r.maxRssKiB)) / 1024 };
      runs[way].push(run);
      log(`round ${round}/${repeats}: ${way} ${wallS.toFixed(1)} s wall, ${run.cpuS.toFixed(1)} s FFmpeg CPU`);
    };
    // The naive pipeline takes three times as long: it runs in every second round (the middle one when there are fewer than 4).
    const naiveRounds = repeats >= 4 ? new Set([...Array(repeats).keys()].filter((r) => r % 2 === 1)) : new Set([Math.floor((repeats - 1) / 2)]);
    const naiveBeside: number[] = [];
    for (let round = 0; round < repeats; round++) {
      const order: Way[] = round % 2 === 0 ? ["render", "lowerBound"] : ["lowerBound", "render"];
      for (const way of order) await measure(way, round + 1);
      if (naiveRounds.has(round)) {
        await measure("naive", round + 1);
        naiveBeside.push(runs.render.length - 1);
      }
    }

    const figures = (way: Way): WayFigures => ({
      wallS: median(runs[way].map((r) => r.wallS)),
      cpuS: median(runs[way].map((r) => r.cpuS)),
      peakRssMiB: Math.max(...runs[way].map((r) => r.rssMiB)),
      rounds: runs[way].map((r) => r.wallS),
    });
    const render = figures("render");
    const lowerBound = figures("lowerBound");
    const naive = figures("naive");
    const lowerBoundRatios = runs.render.map((r, i) => r.wallS / runs.lowerBound[i].wallS);
    const lowerBoundRatio = median(lowerBoundRatios);
    // Each naive run against the render of its own round.
    const naiveSpeedup = median(runs.naive.map((r, i) => r.wallS / runs.render[naiveBeside[i]].wallS));
    const result: RenderBenchResult = {
      threads: options.threads ?? null,
      segments: segments.length,
      repeats,
      render,
      lowerBound,
      naive,
      lowerBoundRatios,
      lowerBoundRatio,
      naiveSpeedup,
      rawInMemory: rawDir !== dir,
      targetsMet: { lowerBound: lowerBoundRatio <= TARGET_LOWER_BOUND_RATIO, naive: naiveSpeedup >= TARGET_NAIVE_SPEEDUP },
      markdown: [],
    };
    result.markdown = markdownSection(result, frames, rawBytes);
    return result;
  } finally {
    await rss.dispose();
    if (rawDir !== null && rawDir !== dir) await rm(rawDir, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  }
}

function markdownSection(r: RenderBenchResult, frames: number, rawBytes: number): string[] {
  const met = (ok: boolean) => (ok ? "**met**" : "**not met**");
  const rounds = (w: WayFigures) => w.rounds.map((s) => s.toFixed(1)).join(" / ");
  const row = (label: string, w: WayFigures) =>
    `| ${label} | ${w.wallS.toFixed(1)} s | ${rounds(w)} | ${(w.wallS / r.render.wallS).toFixed(2)} | ${w.cpuS.toFixed(1)} s | ${
      w.peakRssMiB.toFixed(0)
    } MiB |`;
  const pairs = r.lowerBoundRatios.map((ratio) => ratio.toFixed(2)).join(" / ");
  return [
    "## Render throughput",
    "",
    `Command: \`bun scripts/bench/render-throughput.ts\` (part of \`npm run bench\`). Measured ${
      new Date().toISOString().slice(0, 16).replace("T", " ")
    } UTC on ${machine()};`,
    `Threads per render: ${
      r.threads ?? `every core (${availableParallelism()})`
    }. One ${VIDEO_S}-s short: ${SENTENCES.length} procedural 720x1280 scene clips looped and scaled`,
    `to 1080x1920, espeak-ng narration, burned captions, a music bed ducked under the voice, loudness normalised to -14 LUFS;`,
    `${frames} frames of H.264 high (x264 veryfast, CRF 21) + AAC 128k. ${r.repeats} rounds in one process: each runs the render and the lower bound`,
    `back to back (alternating which goes first), so a change in the machine's speed touches both; the naive pipeline runs in ${
      r.naive.rounds.length === 1 ? "the middle round" : "every second round"
    }.`,
    "",
    "| way | wall time (median) | rounds | vs render | FFmpeg CPU time (user + sys, median) | peak RSS (largest FFmpeg process) |",
    "|---|---|---|---|---|---|",
    row(
      r.segments === 1
        ? "render (one picture encode, the sound beside it, then a stream copy)"
        : `render (the picture in ${r.segments} segments encoded side by side, one x264 thread each, the sound beside them, then a stream copy)`,
      r.render,
    ),
    row(
      `lower bound: one encode of the frames the render's encoder receives (raw yuv420p ${r.rawInMemory ? "in memory" : "on disk"}, ${
        (rawBytes / 2 ** 30).toFixed(1)
      } GiB) and of its sound (WAV), same settings`,
      r.lowerBound,
    ),
    row("naive: encode each scene, concat (re-encode), burn captions (re-encode), mux (copy)", r.naive),
    "",
    `Targets: render at most ${TARGET_LOWER_BOUND_RATIO}x the lower bound: ${met(r.targetsMet.lowerBound)} (${
      r.lowerBoundRatio.toFixed(2)
    }x, the median of the rounds' ${pairs});`,
    `at least ${TARGET_NAIVE_SPEEDUP}x faster than the naive pipeline: ${met(r.targetsMet.naive)} (${
      r.naiveSpeedup.toFixed(2)
    }x, the median of each naive run over the render of its round).`,
    `In CPU time: render ${(r.render.cpuS / r.lowerBound.cpuS).toFixed(2)}x the lower bound; naive ${(r.naive.cpuS / r.render.cpuS).toFixed(2)}x the render.`,
    "The machine's cores are shared with other tenants: the same work takes a few percent more or less from one minute to the next, in wall and in CPU time.",
  ];
}

/** Replaces (or appends) the "## Render throughput" section of a benchmarks document. */
export function replaceSection(document: string, section: string[]): string {
  const lines = document.split("\n");
  const start = lines.findIndex((l) => l.trim() === "## Render throughput");
  if (start < 0) return `${document.replace(/\n*$/, "")}\n\n${section.join("\n")}\n`;
  // The section ends at the next heading, or at a block another command owns.
  let end = lines.findIndex((l, i) => i > start && (l.startsWith("## ") || opensBlock(l)));
  if (end < 0) end = lines.length;
  return [...lines.slice(0, start), ...section, "", ...lines.slice(end)].join("\n").replace(/\n*$/, "\n");
}

const USAGE = "usage: bun scripts/bench/render-throughput.ts [--threads N] [--repeats N] [--write]";

/** Reads the command line; throws with the usage on anything it does not know. */
export function parseBenchArgs(argv: string[]): { threads?: number; repeats: number; write: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { threads: { type: "string" }, repeats: { type: "string" }, write: { type: "boolean", default: false } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`);
  }
  const whole = (name: string, raw: string | undefined, fallback: number | undefined) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number of at least 1, not "${raw}"\n${USAGE}`);
    return n;
  };
  return { threads: whole("threads", values.threads, undefined), repeats: whole("repeats", values.repeats, 5)!, write: values.write };
}

if (import.meta.main) {
  let args: ReturnType<typeof parseBenchArgs>;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const result = await runRenderThroughputBenchmark({ threads: args.threads, repeats: args.repeats, log: (line) => console.log(`bench: ${line}`) });
  console.log(result.markdown.join("\n"));
  if (args.write) {
    const { readFileSync, writeFileSync } = await import("node:fs");
    const path = BENCHMARKS_DOC;
    writeFileSync(path, replaceSection(readFileSync(path, "utf8"), result.markdown));
    console.log("bench: written to docs/reports/benchmarks.md");
  }
}
