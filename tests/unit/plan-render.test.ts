import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { musicLicenseKeyOf } from "../../shared/contracts/callbacks.ts";
import { layoutRender, planRender, type RenderInputs, sceneClipKeys } from "../../render-runner/plan-render.ts";
import { TimelineError } from "../../render-runner/timeline.ts";
import type { WordTiming } from "../../shared/contracts/media.ts";
import type { RenderJob } from "../../shared/contracts/queue.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import { planContents, renderTaskPlan } from "../fixtures/render-inputs.ts";

/**
 * The render plan (render-runner/plan-render.ts) is the one way a job becomes FFmpeg's work: the
 * same job and inputs always give the same plan, and the render task renders exactly that plan.
 * No FFmpeg runs here: the inputs are stand-in bytes and the render a stand-in that records.
 */

const TEXT = "Octopuses have three hearts. Their blood is blue. They taste with their arms. Follow for more.".split(" ");
const WORDS: WordTiming[] = TEXT.map((text, i) => ({ text, offset_ms: i * 400, duration_ms: 350 }));

const JOB: RenderJob = {
  run_id: "7b0d8a44-6f0e-4d8e-9b1e-0c2a7d9b3f10",
  unit_id: "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f",
  dimension_id: "ocean-facts",
  title: "Three hearts",
  audio_key: "voice/three-hearts.mp3",
  audio_duration_ms: WORDS.length * 400,
  words: WORDS,
  // Out of order, and the first clip shown again last: the plan follows the scene indexes.
  scenes: [
    { index: 2, asset_key: "scenes/a.mp4", first_word: 8 },
    { index: 0, asset_key: "scenes/a.mp4", first_word: 0 },
    { index: 1, asset_key: "scenes/b.mp4", first_word: 4 },
  ],
  caption_font: "DejaVu Sans",
  caption_profile: "tiktok",
  music: { library: "music/calm", gain_db: -12, duck_db: 8, fade_s: 1 },
  step_token: "step:unit-plan:6:abc",
};

let dir = "";
let inputs: RenderInputs;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-plan-render-"));
  const files = join(dir, "inputs");
  await mkdir(files);
  const file = async (name: string, content: string) => {
    await writeFile(join(files, name), content, "utf8");
    return join(files, name);
  };
  inputs = {
    clips: new Map([["scenes/a.mp4", await file("a.mp4", "clip a")], ["scenes/b.mp4", await file("b.mp4", "clip b")]]),
    voicePath: await file("voice.mp3", "voice"),
    music: { path: await file("tide.m4a", "tide"), mix: JOB.music! },
  };
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function planIn(name: string, options: { preset?: string; threads?: number } = {}) {
  await mkdir(join(dir, name));
  return planRender(layoutRender(JOB), inputs, { subtitlesPath: join(dir, name, "captions.ass"), outPath: join(dir, name, "render.mp4"), ...options });
}

describe("render plan", () => {
  test("the same job and inputs give the same plan and the same captions script every time", async () => {
    const first = await planIn("first");
    const second = await planIn("second");
    expect(second.layout).toEqual(first.layout);
    expect(second.frames).toBe(first.frames);
    expect(second.segments).toEqual(first.segments);
    expect(await planContents(second.plan)).toEqual(await planContents(first.plan));
    expect(await readFile(first.plan.subtitlesPath!, "utf8")).toBe(first.layout.subtitles);
    expect(first.layout.subtitles).toContain("Title: Three hearts");
  });

  test("one clip per scene in index order, each filling its slot, adding up to the video's frames", async () => {
    const { layout, plan, frames } = await planIn("order");
    const clip = (key: string) => inputs.clips.get(key)!;
    expect(plan.clips.map((c) => c.path)).toEqual([clip("scenes/a.mp4"), clip("scenes/b.mp4"), clip("scenes/a.mp4")]);
    expect(plan.clips.map((c) => c.frames)).toEqual(layout.timeline.scenes.map((s) => s.frames));
    expect(frames).toBe(layout.timeline.total_frames);
    expect(plan.clips.reduce((sum, c) => sum + c.frames, 0)).toBe(frames);
    expect(sceneClipKeys(layout)).toEqual(["scenes/a.mp4", "scenes/b.mp4"]);
    expect(plan.music).toEqual(inputs.music);
  });

  test("a scene whose clip was not fetched is refused, named", async () => {
    const partial = { ...inputs, clips: new Map([["scenes/a.mp4", inputs.clips.get("scenes/a.mp4")!]]) };
    await expect(planRender(layoutRender(JOB), partial, { subtitlesPath: join(dir, "partial.ass"), outPath: join(dir, "partial.mp4") }))
      .rejects.toThrow("no local clip for scene 1 (scenes/b.mp4)");
  });
});

describe("render task", () => {
  test("renders the plan planRender makes of its job and the inputs it fetched", async () => {
    const store = new LocalDirectoryStore(join(dir, "store"));
    await store.putFile(JOB.audio_key, inputs.voicePath, "audio/mpeg");
    for (const [key, path] of inputs.clips) await store.putFile(key, path, "video/mp4");
    const track = `${JOB.music!.library}/tide.m4a`;
    await store.putFile(track, inputs.music!.path, "audio/mp4");
    const license = join(dir, "tide.license.json");
    await writeFile(license, JSON.stringify({ title: "Tide", author: "MD-AME", license: "CC0-1.0", source_url: "https://example.org/tide" }), "utf8");
    await store.putFile(musicLicenseKeyOf(track), license, "application/json");

    const options = { preset: "faster", threads: 1 };
    const fromTask = await renderTaskPlan({ store, workDir: dir, fontsDir: "/opt/fonts", ...options }, JOB);
    const planned = await planIn("beside-task", options);
    expect(fromTask).toEqual(await planContents({ ...planned.plan, fontsDir: "/opt/fonts" }));
    expect(fromTask.clips.length).toBe(3);
    expect(fromTask.music?.mix).toEqual(JOB.music);
  });

  test("a job that cannot be laid out fails before anything is fetched", async () => {
    const empty = new LocalDirectoryStore(join(dir, "empty-store"));
    const doomed = { ...JOB, scenes: [{ index: 0, asset_key: "scenes/a.mp4", first_word: 0 }, { index: 1, asset_key: "scenes/b.mp4", first_word: 99 }] };
    const error = await renderTaskPlan({ store: empty, workDir: dir }, doomed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimelineError);
    expect((error as Error).message).toBe("scene 1 starts at word 99, but there are 16 words");
  });
});
