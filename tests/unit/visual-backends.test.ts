/**
 * Visual backends, pure parts: the per-dimension config, scene hashes per backend list, each
 * backend's request building, Pexels' rendition choice and blocklist, ComfyUI workflow filling,
 * the FFmpeg arguments that fill the frame, and which backends a worker's environment enables.
 */
import { describe, expect, test } from "bun:test";
import { ScenePlan } from "../../shared/contracts/llm.ts";
import { buildScenes } from "../../functions/pipeline/stages/plan.ts";
import { comfyWorkflowFor } from "../../gpu-worker/backends/comfyui.ts";
import { stillMotion, stillToClipArgs, videoToClipArgs } from "../../gpu-worker/backends/clip-motion.ts";
import { createVisualBackends } from "../../gpu-worker/backends/registry.ts";
import { backendSceneAssetKey, sceneAssetKey } from "../../gpu-worker/visual-task.ts";
import { SceneAssetKey } from "../../shared/contracts/callbacks.ts";
import { PROCEDURAL_BACKEND_VERSION } from "../../shared/contracts/visual-backends.ts";
import { VisualJob } from "../../shared/contracts/queue.ts";
import { sceneHash } from "../../shared/hashing.ts";
import { fillWorkflow } from "../../shared/providers/visuals/comfyui.ts";
import { DEFAULT_VISUALS, visualChainVersion, VisualsConfig } from "../../shared/contracts/visuals.ts";
import { geminiImagePrompt, geminiImageRequest } from "../../shared/providers/visuals/gemini-image.ts";
import { isBlocked, type PexelsVideo, type PexelsVideoFile, pickRendition, searchQuery, searchUrl } from "../../shared/providers/visuals/pexels.ts";
import { visualJob } from "../fixtures/visual-job.ts";

describe("visuals config", () => {
  test("a list must be unique, known, and end with procedural; the blocklist defaults to empty", () => {
    expect(VisualsConfig.parse({ backends: ["gemini-image", "pexels", "procedural"] })).toEqual({
      backends: ["gemini-image", "pexels", "procedural"],
      pexels_blocklist: [],
    });
    const message = (value: unknown) => VisualsConfig.safeParse(value).error?.issues.map((i) => i.message).join("; ");
    expect(message({ backends: ["pexels"] })).toContain("must end with procedural");
    expect(message({ backends: ["pexels", "pexels", "procedural"] })).toContain("must not list a backend twice");
    expect(message({ backends: ["dall-e", "procedural"] })).toContain("Invalid option");
  });

  test("a job from before backend lists still parses, and means procedural only", () => {
    const old = { ...visualJob("old-job") } as Record<string, unknown>;
    delete old.keywords;
    delete old.visuals;
    const parsed = VisualJob.parse(old);
    expect(parsed.visuals ?? DEFAULT_VISUALS).toEqual({ backends: ["procedural"], pexels_blocklist: [] });
  });
});

describe("scene hashes per backend list", () => {
  const plan = ScenePlan.parse({
    scenes: Array.from(
      { length: 5 },
      (_, i) => ({ prompt: `scene prompt ${i}`, narration: `word${i}`, ...(i === 0 ? { keywords: ["Solar", "solar", "roof"] } : {}) }),
    ),
  });
  const narration = "word0 word1 word2 word3 word4";

  test("procedural-only keeps the hashes from before backend lists; another list gives other hashes", async () => {
    const style = { motion: "drift" };
    const old = await buildScenes(plan, narration, style, "tech");
    expect(old[0]!.scene_hash).toBe(await sceneHash("scene prompt 0", style, "tech", PROCEDURAL_BACKEND_VERSION));
    const stock = await buildScenes(plan, narration, style, "tech", { backends: ["pexels", "procedural"], pexels_blocklist: [] });
    expect(stock[0]!.scene_hash).not.toBe(old[0]!.scene_hash);
    expect(visualChainVersion(["pexels", "procedural"])).toBe("pexels/1>procedural-ffmpeg/1");
  });

  test("keywords pass to the scene lower-cased and once; a plan without them gives none", async () => {
    const scenes = await buildScenes(plan, narration, {}, "tech");
    expect(scenes[0]!.keywords).toEqual(["solar", "roof"]);
    expect(scenes[1]!.keywords).toEqual([]);
  });

  test("a backend's clip key is content-addressed by (scene_hash, backend) in the form callbacks accept", async () => {
    const hash = "a".repeat(64);
    expect(await backendSceneAssetKey(hash, { name: "procedural", version: PROCEDURAL_BACKEND_VERSION })).toBe(sceneAssetKey(hash));
    const a = await backendSceneAssetKey(hash, { name: "gemini-image", version: "gemini-image/1:model-a" });
    const b = await backendSceneAssetKey(hash, { name: "gemini-image", version: "gemini-image/1:model-b" });
    expect(SceneAssetKey.safeParse(a).success).toBe(true);
    expect(a).not.toBe(b);
  });
});

describe("gemini-image request", () => {
  test("asks for an IMAGE in 9:16 with the scene and the dimension's palette", () => {
    const prompt = geminiImagePrompt("showing: solar panels", { palette: ["#0b132b", "#5bc0be"], motion: "zoom" });
    expect(prompt).toStartWith("showing: solar panels\n");
    expect(prompt).toContain("#0b132b, #5bc0be");
    expect(geminiImageRequest("gemini-2.5-flash-image", prompt)).toEqual({
      model: "gemini-2.5-flash-image",
      contents: prompt,
      config: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "9:16" }, candidateCount: 1 },
    } as never);
  });
});

describe("pexels", () => {
  const file = (id: number, width: number, height: number, fps = 25, type = "video/mp4"): PexelsVideoFile => ({
    id,
    quality: "hd",
    file_type: type,
    width,
    height,
    fps,
    link: `http://127.0.0.1/v/${id}.mp4`,
  });

  test("the search asks for portrait Full HD with the scene's keywords, else its prompt's subject words", () => {
    const url = new URL(searchUrl("https://api.pexels.invalid/", "solar roof"));
    expect(url.pathname).toBe("/videos/search");
    expect(Object.fromEntries(url.searchParams)).toEqual({ query: "solar roof", orientation: "portrait", size: "medium", per_page: "15", page: "1" });
    expect(searchQuery(["solar", "roof"], "ignored")).toBe("solar roof");
    expect(searchQuery([], "Vertical 9:16 overhead shot, soft morning light, drift motion; showing: glacier, melting, glacier")).toBe("glacier melting");
  });

  test("the rendition is the smallest portrait MP4 at least 1080 wide, the higher rate on a tie", () => {
    expect(pickRendition([file(1, 2160, 3840), file(2, 1080, 1920, 25), file(3, 1080, 1920, 50), file(4, 720, 1280)])?.id).toBe(3);
    expect(pickRendition([file(5, 1920, 1080), file(6, 720, 1280), file(7, 1080, 1920, 25, "video/webm")])).toBeNull();
  });

  test("the blocklist rules out video ids and whole-word terms of the page slug, author or query", () => {
    const video = {
      id: 4242,
      width: 1080,
      height: 1920,
      duration: 10,
      url: "https://www.pexels.invalid/video/casino-lights-at-night-4242/",
      user: { id: 1, name: "Ann Lee", url: "https://www.pexels.invalid/@ann" },
      video_files: [],
    } as PexelsVideo;
    expect(isBlocked(video, "city", ["4242"])).toBe("4242");
    expect(isBlocked(video, "city", ["Casino"])).toBe("Casino");
    expect(isBlocked(video, "city", ["ann lee"])).toBe("ann lee");
    expect(isBlocked(video, "city", ["cas", "424", "night life"])).toBeNull();
  });
});

describe("comfyui workflows", () => {
  test("placeholders are filled with their types; a missing one is refused", () => {
    const template = { "1": { class_type: "KSampler", inputs: { seed: "{{seed}}", text: "a {{prompt}} b", model: ["2", 0] } } };
    expect(fillWorkflow(template, { seed: 7, prompt: "cat" })).toEqual({
      "1": { class_type: "KSampler", inputs: { seed: 7, text: "a cat b", model: ["2", 0] } },
    });
    expect(() => fillWorkflow(template, { seed: 7 })).toThrow("workflow placeholders without a value: prompt");
  });

  test("a job's workflow is the same every time and names its still", () => {
    const job = visualJob("comfy-pure");
    const a = comfyWorkflowFor("svd", job, "still.png");
    expect(comfyWorkflowFor("svd", job, "still.png")).toEqual(a);
    expect(a["2"]!.inputs.image).toBe("still.png");
    expect(a["5"]!.inputs.seed).toBe(Number.parseInt(job.scene_hash.slice(0, 12), 16));
  });
});

describe("clip motion", () => {
  test("a still fills the frame (cover, then crop: never letterboxed) for exactly the job's frames", () => {
    const job = visualJob("motion", { duration_s: 2.5, fps: 30 });
    const args = stillToClipArgs(job, "in.png", stillMotion("zoom", 0), "out.mp4");
    const filter = args[args.indexOf("-vf") + 1]!;
    expect(filter).toContain("force_original_aspect_ratio=increase");
    expect(filter).toContain("crop=1440:2560");
    expect(filter).not.toContain("pad=");
    expect(filter).toContain(":d=75:s=720x1280:fps=30");
    expect(args[args.indexOf("-frames:v") + 1]).toBe("75");
    expect(args).toContain("libx264");
  });

  test("each style moves: zoom changes the zoom, drift pans", () => {
    const zoom = stillMotion("zoom", 0);
    expect(zoom.z0).not.toBe(zoom.z1);
    const drift = stillMotion("drift", 2);
    expect(drift.x0 !== drift.x1 || drift.y0 !== drift.y1).toBe(true);
  });

  test("a stock video is looped and cut to the slot and converted to the job's rate", () => {
    const args = videoToClipArgs(visualJob("cut", { duration_s: 4, fps: 30 }), "in.mp4", "out.mp4");
    expect(args.slice(0, 4)).toEqual(["-stream_loop", "-1", "-i", "in.mp4"]);
    expect(args[args.indexOf("-t") + 1]).toBe("4");
    expect(args[args.indexOf("-vf") + 1]).toStartWith("fps=30,scale=720:1280:force_original_aspect_ratio=increase");
  });
});

describe("worker environment", () => {
  test("a backend whose key or URL is unset is skipped, with the reason; procedural is always there", () => {
    const { backends, skipped } = createVisualBackends({}, { ENV: "dev" });
    expect([...backends.keys()]).toEqual(["procedural"]);
    expect(skipped).toMatchObject({
      pexels: "PEXELS_API_KEY is not set",
      "gemini-image": "GEMINI_API_KEY is not set",
      "comfyui-svd": "COMFYUI_URL is not set",
    });
    const all = createVisualBackends({}, { ENV: "dev", GEMINI_API_KEY: "k", PEXELS_API_KEY: "p", COMFYUI_URL: "http://gpu.invalid:8188" });
    expect([...all.backends.keys()].sort()).toEqual(["comfyui-animatediff", "comfyui-svd", "gemini-image", "pexels", "procedural"]);
    expect(all.backends.get("gemini-image")!.version).toBe("gemini-image/1:gemini-2.5-flash-image");
  });

  test("production refuses an emulator URL for a visual backend", () => {
    expect(() => createVisualBackends({}, { ENV: "prod", PEXELS_API_KEY: "p", PEXELS_BASE_URL: "http://127.0.0.1:54330" })).toThrow("PEXELS_BASE_URL");
  });
});
