/**
 * A render given two threads cuts its picture in two segments, encoded side by side and joined by
 * a stream copy (render-runner/ffmpeg-render.ts pictureSegments). What comes out must be the same
 * video as in one piece: every frame once, the exact length, and the captions at their times in
 * the second segment too (they are timed on the whole video).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pictureSegments, type RenderPlan, renderVideo } from "../../render-runner/ffmpeg-render.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { sceneClip } from "../fixtures/render-inputs.ts";
import { run, spokenVoice } from "../../scripts/bench/spoken-voice.ts";

let dir: string;
let plan: Omit<RenderPlan, "outPath" | "threads">;

/** Big captions in the middle band at known times; the second and third fall in the second segment. */
const CAPTIONS = [
  ["0:00:01.00", "0:00:04.00", "ALPHA"],
  ["0:00:12.00", "0:00:15.00", "BRAVO"],
  ["0:00:17.00", "0:00:20.00", "CHARLIE"],
] as const;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-render-segments-"));
  const inputs = join(dir, "inputs");
  await mkdir(inputs);
  const voice = await spokenVoice(inputs, "voice", ["Two halves make one video."], { gapMs: 300, levelDb: -12 });
  const a = await sceneClip(join(inputs, "a.mp4"), 2);
  const b = await sceneClip(join(inputs, "b.mp4"), 3);
  const ass = join(inputs, "captions.ass");
  await writeFile(
    ass,
    [
      "[Script Info]",
      "ScriptType: v4.00+",
      "PlayResX: 1080",
      "PlayResY: 1920",
      "WrapStyle: 2",
      "",
      "[V4+ Styles]",
      "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
      "Style: Caption,DejaVu Sans,160,&H00FFFFFF,&H00FFFFFF,&H00000000,&H00000000,-1,0,0,0,100,100,0,0,1,8,0,5,0,0,0,1",
      "",
      "[Events]",
      "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
      ...CAPTIONS.map(([start, end, text]) => `Dialogue: 0,${start},${end},Caption,,0,0,0,,${text}`),
    ].join("\n"),
    "utf8",
  );
  // 22 s: 330 + 330 frames, so a render with two threads is cut at the scene boundary, 11 s.
  plan = { clips: [{ path: a, frames: 330 }, { path: b, frames: 330 }], audioPath: voice.path, subtitlesPath: ass };
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** PSNR (dB) of the caption band of two videos' frames at `atS`. */
async function captionBandPsnr(a: string, b: string, atS: number): Promise<number> {
  const { stderr } = await run("ffmpeg", [
    "-hide_banner",
    "-nostats",
    "-ss",
    String(atS),
    "-i",
    a,
    "-ss",
    String(atS),
    "-i",
    b,
    "-lavfi",
    "[0:v]crop=1080:400:0:760[x];[1:v]crop=1080:400:0:760[y];[x][y]psnr",
    "-frames:v",
    "1",
    "-f",
    "null",
    "-",
  ]);
  const match = /average:(inf|[\d.]+)/.exec(stderr);
  if (!match) throw new Error(`no psnr in: ${stderr.slice(-400)}`);
  return match[1] === "inf" ? Number.POSITIVE_INFINITY : Number(match[1]);
}

test("two segments make the same video as one piece: every frame, the exact length, the captions at their times", async () => {
  expect(pictureSegments({ ...plan, threads: 2 }).map((s) => [s.start, s.end])).toEqual([[0, 330], [330, 660]]);
  const out = join(dir, "out");
  await mkdir(out);
  const whole = join(out, "whole.mp4");
  const split = join(out, "split.mp4");
  await renderVideo({ ...plan, threads: 1, outPath: whole });
  const fractions: number[] = [];
  await renderVideo({ ...plan, threads: 2, outPath: split }, { onProgress: (p) => fractions.push(p.fraction) });

  expect((await readdir(out)).sort()).toEqual(["split.mp4", "whole.mp4"]);
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-count_frames",
    "-select_streams",
    "v",
    "-show_entries",
    "stream=nb_read_frames",
    "-of",
    "csv=p=0",
    split,
  ]);
  expect(stdout.toString().trim()).toBe("660");
  const media = await probeMedia(split);
  expect(Math.abs(media.duration_s - 22)).toBeLessThan(0.05);
  expect(media.audio?.codec_name).toBe("aac");
  expect(fractions.at(-1)).toBe(1);
  expect(fractions.slice(0, -1).every((f) => f >= 0 && f < 1)).toBe(true);

  // Same captions at the same times: each caption shown, and the gaps between them, match.
  for (const atS of [2.5, 9, 13.5, 16, 18.5, 21]) {
    expect(await captionBandPsnr(whole, split, atS)).toBeGreaterThan(30);
  }
  // The check can fail: the same picture without its caption is far apart in that band.
  const bare = join(dir, "bare.mp4");
  await renderVideo({ ...plan, subtitlesPath: null, threads: 1, outPath: bare });
  expect(await captionBandPsnr(whole, bare, 13.5)).toBeLessThan(25);
  expect(await captionBandPsnr(whole, bare, 9)).toBeGreaterThan(30);
  // Three 22-s renders and their probes, beside two stacks' integration files on two cores.
}, 420_000);

test("a render in segments stopped while it runs rejects and leaves no segment, list or sound file", async () => {
  const out = join(dir, "stopped");
  await mkdir(out);
  const stop = new AbortController();
  const rendering = renderVideo({ ...plan, threads: 2, outPath: join(out, "video.mp4") }, {
    signal: stop.signal,
    onProgress: (p) => p.fraction > 0.2 && stop.abort(new Error("shutdown")),
  });
  await expect(rendering).rejects.toThrow("shutdown");
  expect((await readdir(out)).filter((name) => name !== "video.mp4")).toEqual([]);
}, 120_000);
