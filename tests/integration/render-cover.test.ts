import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COVER_FRAME, makeCover } from "../../render-runner/cover.ts";
import { COVER_TITLE_STYLE, layoutCoverTitle } from "../../render-runner/cover-layout.ts";
import { captionFontMetrics } from "../../render-runner/font-metrics.ts";
import { createRenderDefinition, renderAssetKey, type RenderTaskDeps } from "../../render-runner/render-task.ts";
import { captionBoxViolations, safeZone, zoneRect } from "../../render-runner/safe-zones.ts";
import { renderCoverKey, WorkerCallback } from "../../shared/contracts/callbacks.ts";
import type { CaptionProfile } from "../../shared/contracts/captions.ts";
import type { RenderJob } from "../../shared/contracts/queue.ts";
import type { QualityReport } from "../../shared/contracts/quality.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import type { TaskContext } from "../../shared/worker/pull-worker.ts";
import { run } from "../../scripts/bench/spoken-voice.ts";

/**
 * A render's cover (render-runner/cover.ts) made by real FFmpeg from short generated videos: a
 * 1080x1920 JPEG of a frame that is not black, with the title drawn inside the safe zone, for any
 * title; and the render task reporting it as `cover_key`, or reporting the render without one when
 * the cover fails. The pictures are mid-tone gradients with no pixel near white or black, so what
 * differs between a cover and its frame is the title's fill and outline.
 * When an assertion fails the work directory is kept and its path printed.
 */

const W = 1080;
const H = 1920;
/** A slowly turning mid-tone gradient, drawn small and scaled up (fast to make). */
// A fixed seed: the gradients source draws its axis at random otherwise, and some draws are flat
// enough (normalised luma entropy near 0.23) for the cover to call every frame blank.
const GRADIENT = "gradients=s=270x480:r=30:c0=0x2050a0:c1=0xa05020:speed=0.02:seed=7";

let dir = "";
let keep = false;
/** 2 s of black, then 1 s of gradient: most of the opening is black. */
let blackOpening = "";
/** 1 s of gradient with a silent AAC track: what the stand-in render "renders". */
let plainVideo = "";
/** 1 s of one flat grey: no usable frame anywhere. */
let blankVideo = "";
/** 0.4 s of strong grain, finely encoded: a frame that is large as a JPEG. */
let grainVideo = "";

async function encode(path: string, inputs: string[], filter: string, extra: string[] = []): Promise<string> {
  await run("ffmpeg", [
    "-v",
    "error",
    ...inputs.flatMap((input) => ["-f", "lavfi", "-i", input]),
    "-filter_complex",
    `${filter},scale=${W}:${H}:flags=bilinear,format=yuv420p[v]`,
    "-map",
    "[v]",
    ...extra,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-r",
    "30",
    "-y",
    path,
  ]);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-render-cover-"));
  [blackOpening, plainVideo, blankVideo, grainVideo] = await Promise.all([
    encode(join(dir, "black-opening.mp4"), ["color=c=black:s=270x480:r=30:d=2", `${GRADIENT}:d=1`], "[0:v][1:v]concat=n=2:v=1:a=0"),
    encode(join(dir, "plain.mp4"), [`${GRADIENT}:d=1`, "anullsrc=r=48000:cl=stereo:d=1"], "[0:v]null", ["-map", "1:a", "-c:a", "aac", "-shortest"]),
    encode(join(dir, "blank.mp4"), ["color=c=0x606060:s=270x480:r=30:d=1"], "[0:v]null"),
    encode(join(dir, "grain.mp4"), [`color=c=gray:s=${W}x${H}:r=30:d=0.4`], "[0:v]noise=alls=50:allf=t+u", ["-crf", "16"]),
  ]);
}, 60_000);

afterAll(async () => {
  if (keep) {
    console.error(`render cover test evidence kept in ${dir}`);
    return;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Marks the evidence to keep when the assertion block throws. */
async function evidence(block: () => Promise<void> | void) {
  try {
    await block();
  } catch (error) {
    keep = true;
    throw error;
  }
}

/** One frame as 8-bit luma: an image, or a video's frame at `atS`. */
async function luma(path: string, atS?: number): Promise<Buffer> {
  const seek = atS === undefined ? [] : ["-ss", atS.toFixed(3)];
  const { stdout } = await run("ffmpeg", ["-v", "error", ...seek, "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1"]);
  expect(stdout.length).toBe(W * H);
  return stdout;
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  count: number;
}

/** Bounding box and number of the pixels where `pick` holds; null when none does. */
function pixelBox(pick: (i: number) => boolean): Box | null {
  let left = W, right = -1, top = H, bottom = -1, count = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (!pick(y * W + x)) continue;
      count++;
      left = Math.min(left, x);
      right = Math.max(right, x);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  }
  return count === 0 ? null : { left, right, top, bottom, count };
}

/** What the cover drew over its frame: the pixels that differ from the video's frame by more than `threshold`. */
async function drawnOver(coverPath: string, videoPath: string, frameS: number, threshold = 48) {
  const [cover, frame] = await Promise.all([luma(coverPath), luma(videoPath, frameS)]);
  return {
    cover,
    frame,
    changed: pixelBox((i) => Math.abs(cover[i] - frame[i]) > threshold),
    white: pixelBox((i) => cover[i] >= 215),
    dark: pixelBox((i) => cover[i] <= 40),
  };
}

function expectInside(box: Box | null, rect: { left: number; right: number; top: number; bottom: number }, label: string, slack = 0) {
  expect(box, label).not.toBeNull();
  expect(box!.left, label).toBeGreaterThanOrEqual(Math.floor(rect.left) - slack);
  expect(box!.right, label).toBeLessThanOrEqual(Math.ceil(rect.right) + slack);
  expect(box!.top, label).toBeGreaterThanOrEqual(Math.floor(rect.top) - slack);
  expect(box!.bottom, label).toBeLessThanOrEqual(Math.ceil(rect.bottom) + slack);
}

test("the cover is a 1080x1920 JPEG of a picture frame, never the black opening, with the title drawn in the safe zone", () =>
  evidence(async () => {
    const cover = await makeCover(
      { videoPath: blackOpening, durationS: 3, title: "Three hearts", captionFont: "DejaVu Sans", captionProfile: "youtube_shorts" },
      { outPath: join(dir, "basic.jpg") },
    );
    const info = await probeMedia(cover.path);
    expect(info.video).toMatchObject({ codec_name: "mjpeg", width: W, height: H });
    expect(info.size_bytes).toBe(cover.size_bytes);
    expect(cover.size_bytes).toBeLessThanOrEqual(COVER_FRAME.maxBytes);
    expect(cover.quality).toBe(COVER_FRAME.quality);
    expect(cover.frame_source).toBe("opening");
    expect(cover.frame_s).toBeGreaterThanOrEqual(2);
    expect(cover.title).toMatchObject({ lines: ["Three hearts"], em_px: COVER_TITLE_STYLE.emPx, font_name: "DejaVu Sans", shortened: false });

    const { cover: pixels, frame, changed, white, dark } = await drawnOver(cover.path, blackOpening, cover.frame_s);
    // The frame is the gradient (luma about 80-100), not the black opening.
    expect(frame.reduce((sum, v) => sum + v, 0) / frame.length).toBeGreaterThan(60);
    // White fill and a dark outline, where the layout put the title, inside the zone.
    const zone = zoneRect(safeZone("youtube_shorts"));
    expect(changed!.count).toBeGreaterThan(5000);
    expect(white!.count).toBeGreaterThan(3000);
    expect(dark!.count).toBeGreaterThan(1000);
    for (const [name, box] of [["changed", changed], ["white", white], ["dark", dark]] as const) {
      expectInside(box, zone, `${name} pixels in the zone`);
      expectInside(box, cover.title!.box, `${name} pixels in the title's box`, 2);
    }
    // The drawn title spans most of the width its layout measured.
    expect(white!.right - white!.left).toBeGreaterThan((cover.title!.box.right - cover.title!.box.left) * 0.85);
    // Elsewhere the cover is the frame, give or take the JPEG.
    const box = cover.title!.box;
    const outside = pixelBox((i) => {
      const x = i % W;
      const y = Math.floor(i / W);
      return (x < box.left || x > box.right || y < box.top || y > box.bottom) && Math.abs(pixels[i] - frame[i]) > 16;
    });
    expect(outside?.count ?? 0).toBeLessThan(W * H * 0.002);
  }), 30_000);

test("a black opening window falls back to the whole video; a video of nothing usable still gets a cover", () =>
  evidence(async () => {
    const later = await makeCover(
      { videoPath: blackOpening, durationS: 3, title: "Later", captionFont: "DejaVu Sans", captionProfile: "tiktok" },
      { outPath: join(dir, "later.jpg"), windowS: 1 },
    );
    expect(later.frame_source).toBe("whole_video");
    expect(later.frame_s).toBeGreaterThanOrEqual(2);

    const blank = await makeCover(
      { videoPath: blankVideo, durationS: 1, title: "Grey", captionFont: "DejaVu Sans", captionProfile: "tiktok" },
      { outPath: join(dir, "blank.jpg") },
    );
    expect(blank.frame_source).toBe("unfiltered");
    expect((await probeMedia(blank.path)).video).toMatchObject({ codec_name: "mjpeg", width: W, height: H });
    const { white } = await drawnOver(blank.path, blankVideo, blank.frame_s);
    expectInside(white, zoneRect(safeZone("tiktok")), "the title on the grey frame");
  }), 30_000);

test("long titles wrap to at most three lines inside every profile's safe zone, shortened with an ellipsis past that", () => {
  const long = "The deep ocean hides creatures with three hearts, blue blood and brains in their arms, and here is what scientists found when they looked";
  const medium = "Octopuses have three hearts and blue blood";
  for (const profile of ["youtube_shorts", "tiktok", "reels", "intersection"] as const) {
    const zone = safeZone(profile);
    const r = zoneRect(zone);
    for (const title of [medium, long, "Pneumonoultramicroscopicsilicovolcanoconiosis explained in one minute"]) {
      const layout = layoutCoverTitle(title, { zone, captionFont: "DejaVu Sans" })!;
      const label = `${profile}: ${layout.lines.join(" / ")}`;
      expect(layout.lines.length, label).toBeLessThanOrEqual(3);
      expect(layout.em_px, label).toBeGreaterThanOrEqual(COVER_TITLE_STYLE.minEmPx);
      expect(captionBoxViolations([layout.box], zone), label).toEqual([]);
      const metrics = captionFontMetrics(layout.font_name);
      for (const line of layout.lines) expect(metrics.measure(line, layout.font_size), label).toBeLessThan(r.right - r.left);
      if (title === medium) {
        expect(layout.shortened, label).toBe(false);
        expect(layout.lines.join(" "), label).toBe(medium);
      }
      if (title === long) {
        expect(layout.shortened, label).toBe(true);
        expect(layout.lines.at(-1)!.endsWith("…"), label).toBe(true);
        expect(long.startsWith(layout.lines.join(" ").slice(0, -1)), label).toBe(true);
      }
    }
  }
});

const HOSTILE_TITLES: Array<{ title: string; profile: CaptionProfile; font: string }> = [
  { title: `He said "it's 100%": 50% off; [x], a,b 'q' \\ done`, profile: "tiktok", font: "DejaVu Sans" },
  { title: "Tricks {\\fs300\\c&H0000FF&} \\N and %{pts} %% inside", profile: "reels", font: "DejaVu Sans" },
  { title: "🔥 Three hearts 🐙 and blue blood 👨‍👩‍👧", profile: "youtube_shorts", font: "DejaVu Sans" },
  { title: "هل تعلم؟ للأخطبوط ثلاثة قلوب ودم أزرق!", profile: "youtube_shorts", font: "Noto Sans Arabic" },
  { title: "タコの心臓は3つある！「青い血」の秘密を知っていますか？", profile: "intersection", font: "Noto Sans CJK JP" },
  {
    title: "The deep ocean hides creatures with three hearts, blue blood and brains in their arms: what scientists found",
    profile: "intersection",
    font: "DejaVu Sans",
  },
];

test(
  "titles with quotes, colons, percent signs, ASS overrides, emoji, Arabic and Japanese are drawn, in their script's font, inside the zone",
  () =>
    evidence(async () => {
      for (const [i, { title, profile, font }] of HOSTILE_TITLES.entries()) {
        const cover = await makeCover(
          { videoPath: plainVideo, durationS: 1, title, captionFont: "DejaVu Sans", captionProfile: profile },
          { outPath: join(dir, `hostile-${i}.jpg`) },
        );
        const label = `${title} -> ${cover.title?.lines.join(" / ")}`;
        expect((await probeMedia(cover.path)).video, label).toMatchObject({ codec_name: "mjpeg", width: W, height: H });
        expect(cover.title?.font_name, label).toBe(font);
        expect(cover.title!.lines.join(" "), label).not.toMatch(/\p{Emoji_Presentation}/u);
        const { changed, white } = await drawnOver(cover.path, plainVideo, cover.frame_s);
        expect(white!.count, label).toBeGreaterThan(1500);
        expectInside(changed, zoneRect(safeZone(profile)), label);
        // Drawn as laid out: an override in the title is text, not a 300 px font or a line break.
        expectInside(changed, cover.title!.box, label, 2);
      }
      // A title of emoji only leaves nothing to draw: the frame alone.
      const bare = await makeCover(
        { videoPath: plainVideo, durationS: 1, title: "🔥🐙", captionFont: "DejaVu Sans", captionProfile: "tiktok" },
        { outPath: join(dir, "emoji-only.jpg") },
      );
      expect(bare.title).toBeNull();
      expect((await drawnOver(bare.path, plainVideo, bare.frame_s)).white).toBeNull();
    }),
  60_000,
);

test("a frame that makes a large JPEG is encoded coarser, under the size bound", () =>
  evidence(async () => {
    const cover = await makeCover(
      { videoPath: grainVideo, durationS: 0.4, title: "Grain", captionFont: "DejaVu Sans", captionProfile: "tiktok" },
      { outPath: join(dir, "grain.jpg") },
    );
    expect(cover.quality).toBeGreaterThan(COVER_FRAME.quality);
    expect(cover.size_bytes).toBeLessThanOrEqual(COVER_FRAME.maxBytes);
    expect((await stat(cover.path)).size).toBe(cover.size_bytes);
    expect((await probeMedia(cover.path)).video).toMatchObject({ codec_name: "mjpeg", width: W, height: H });
  }), 30_000);

/** The render task with its inputs in a local store; FFmpeg's render and the gate stand in, the cover is real unless replaced. */
async function renderTaskSetup() {
  const store = new LocalDirectoryStore(join(dir, "store"));
  await mkdir(join(dir, "work"), { recursive: true });
  const dummy = join(dir, "input.bin");
  await writeFile(dummy, "not read: the stand-in render copies plain.mp4");
  await store.putFile("voice/cover-test.mp3", dummy, "audio/mpeg");
  await store.putFile("scenes/cover-test.mp4", dummy, "video/mp4");
  const passed: QualityReport = { passed: true, integrated_lufs: -14, true_peak_dbtp: -1.5, duration_s: 1, checks: [], failures: [] };
  const deps: RenderTaskDeps = {
    store,
    workDir: join(dir, "work"),
    render: async (plan) => {
      await copyFile(plainVideo, plan.outPath);
      const level = { input_i: -14, input_tp: -2, input_lra: 3, input_thresh: -24, target_offset: 0 };
      return { levels: { voice: level, music: null, makeup_db: 0 }, final: level, linear: true };
    },
    qualityGate: () => Promise.resolve(passed),
  };
  const job = (title: string): RenderJob => ({
    run_id: crypto.randomUUID(),
    unit_id: crypto.randomUUID(),
    dimension_id: "ocean-facts",
    title,
    audio_key: "voice/cover-test.mp3",
    audio_duration_ms: 500,
    words: [{ text: "Three", offset_ms: 0, duration_ms: 200 }, { text: "hearts.", offset_ms: 200, duration_ms: 300 }],
    scenes: [{ index: 0, asset_key: "scenes/cover-test.mp4", first_word: 0 }],
    caption_font: "DejaVu Sans",
    caption_profile: "youtube_shorts",
    step_token: "step:cover-test:5:abc",
  });
  const lines: Array<Record<string, unknown>> = [];
  const ctx: TaskContext = {
    logger: createLogger("render-cover-test", { write: (line: string) => void lines.push(JSON.parse(line)) }),
    signal: new AbortController().signal,
    heartbeat: () => Promise.resolve(),
    queue: "render",
    msgId: 7,
    readCt: 1,
    workerId: "render-cover-test",
  };
  return { store, deps, job, lines, ctx };
}

test(
  "the render task stores the cover beside the video and reports cover_key; a failing cover leaves the render reported without one",
  () =>
    evidence(async () => {
      const { store, deps, job, lines, ctx } = await renderTaskSetup();

      const withCover = job("Three hearts");
      const outcome = await createRenderDefinition(deps).run(withCover, ctx);
      const videoKey = await renderAssetKey(withCover);
      const coverKey = renderCoverKey(videoKey);
      expect(outcome).toMatchObject({ kind: "render.completed", video_key: videoKey, cover_key: coverKey });
      // The callback the worker sends with it is valid as worker-callback reads it.
      expect(() => WorkerCallback.parse({ ...outcome, msg_id: 7, worker_id: "render-cover-test" })).not.toThrow();
      const stored = join(dir, "stored-cover.jpg");
      await store.getFile(coverKey, stored);
      expect((await probeMedia(stored)).video).toMatchObject({ codec_name: "mjpeg", width: W, height: H });
      expect(lines.find((l) => l.msg === "cover stored")).toMatchObject({ cover_key: coverKey, frame_source: "opening", status: "succeeded" });

      // Reported again (a lost callback): the stored cover is reported, none is made.
      let made = 0;
      const counting: RenderTaskDeps = { ...deps, cover: () => Promise.reject(new Error(`made ${++made}`)) };
      const again = await createRenderDefinition(counting).run({ ...withCover, step_token: "step:cover-test:5:other" }, ctx);
      expect(again).toMatchObject({ kind: "render.completed", video_key: videoKey, cover_key: coverKey, render_ms: null });
      expect(made).toBe(0);

      // The cover fails: the render is stored and reported all the same, without cover_key, the reason logged.
      const without = job("Three hearts, no cover");
      const failing: RenderTaskDeps = { ...deps, cover: () => Promise.reject(new Error("the cover font vanished")) };
      const bare = await createRenderDefinition(failing).run(without, ctx);
      const bareKey = await renderAssetKey(without);
      expect(bare).toMatchObject({ kind: "render.completed", video_key: bareKey });
      expect(bare).not.toHaveProperty("cover_key");
      expect(await store.exists(bareKey)).toBe(true);
      expect(await store.exists(renderCoverKey(bareKey))).toBe(false);
      expect(lines.find((l) => l.msg === "cover not made; reporting the render without one")).toMatchObject({
        video_key: bareKey,
        reason: "the cover font vanished",
        status: "failed",
      });

      // Reported again with covers working: made from the stored video this time.
      const made2 = await createRenderDefinition(deps).run({ ...without, step_token: "step:cover-test:5:later" }, ctx);
      expect(made2).toMatchObject({ kind: "render.completed", video_key: bareKey, cover_key: renderCoverKey(bareKey), render_ms: null });
      expect(await store.exists(renderCoverKey(bareKey))).toBe(true);
    }),
  60_000,
);
