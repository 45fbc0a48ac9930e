import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { type ComfyUiClient, type ComfyWorkflow, fillWorkflow } from "../../shared/providers/visuals/comfyui.ts";
import { VISUAL_BACKEND_VERSIONS } from "../../shared/contracts/visuals.ts";
import { type GeminiImageClient, geminiImagePrompt } from "../../shared/providers/visuals/gemini-image.ts";
import { paidCall } from "../../shared/spend/metered.ts";
import { generateStill } from "./gemini-image.ts";
import animatediffWorkflow from "../workflows/animatediff.json" with { type: "json" };
import svdWorkflow from "../workflows/svd-img2vid.json" with { type: "json" };
import { framesToClipArgs } from "./clip-motion.ts";
import { NoVisualResultError, type VisualBackend, type VisualBackendContext } from "./visual-backend.ts";

type ComfyWorkflowName = "svd" | "animatediff";

/** What each workflow generates at: the model's native portrait size, frame count and rate. */
const WORKFLOW_SHAPES: Record<ComfyWorkflowName, { width: number; height: number; frames: number; fps: number }> = {
  svd: { width: 576, height: 1024, frames: 25, fps: 8 },
  animatediff: { width: 512, height: 896, frames: 16, fps: 8 },
};

const TEMPLATES: Record<ComfyWorkflowName, ComfyWorkflow> = {
  svd: svdWorkflow as ComfyWorkflow,
  animatediff: animatediffWorkflow as ComfyWorkflow,
};

/** What a workflow is expected to hold the GPU for, for the budget check before it runs. */
const ESTIMATED_GPU_SECONDS = 120;

const NEGATIVE_PROMPT = "text, watermark, logo, blurry, deformed, low quality";

/** The filled workflow of a job (pure: the same job gives the same workflow). */
export function comfyWorkflowFor(name: ComfyWorkflowName, job: VisualJob, image?: string): ComfyWorkflow {
  const shape = WORKFLOW_SHAPES[name];
  return fillWorkflow(TEMPLATES[name], {
    prompt: `${job.prompt}. Colour palette ${job.style.palette.join(" ")}`,
    negative_prompt: NEGATIVE_PROMPT,
    seed: Number.parseInt(job.scene_hash.slice(0, 12), 16),
    width: shape.width,
    height: shape.height,
    frames: shape.frames,
    fps: shape.fps,
    prefix: `mdame/${job.scene_hash.slice(0, 16)}`,
    ...(image === undefined ? {} : { image }),
  });
}

/**
 * A clip from ComfyUI on a GPU machine: SVD animating a Gemini still (img2vid), or AnimateDiff
 * from the prompt alone. The frames it saves are fetched and stretched over the scene's length
 * (slowed down to at most the clip's rate, looped if still short), filled to the frame by FFmpeg.
 */
export class ComfyUiBackend implements VisualBackend {
  readonly name: "comfyui-svd" | "comfyui-animatediff";
  readonly version: string;
  readonly spend = { provider: "comfyui", kind: "gpu_seconds" } as const;

  constructor(
    private readonly options: { workflow: ComfyWorkflowName; client: ComfyUiClient; stills?: GeminiImageClient; ffmpegPath?: string; preset?: string },
  ) {
    this.name = options.workflow === "svd" ? "comfyui-svd" : "comfyui-animatediff";
    if (options.workflow === "svd" && !options.stills) throw new Error("the SVD workflow needs a source of stills");
    this.version = VISUAL_BACKEND_VERSIONS[this.name] + (options.stills ? `:${options.stills.model}` : "");
  }

  async generate(job: VisualJob, outPath: string, ctx: VisualBackendContext): Promise<void> {
    const { client } = this.options;
    let image: string | undefined;
    if (this.options.workflow === "svd") {
      const still = await generateStill(this.options.stills!, geminiImagePrompt(job.prompt, job.style), ctx.signal);
      image = await client.uploadImage(still.bytes, `mdame-${job.scene_hash.slice(0, 16)}.png`, ctx.signal);
      ctx.progress?.();
    }
    const workflow = comfyWorkflowFor(this.options.workflow, job, image);
    // Billed by the GPU time the workflow held, as the operator's price per GPU second says.
    const files = await paidCall({ provider: "comfyui", model: this.options.workflow, estimate: { gpu_seconds: ESTIMATED_GPU_SECONDS } }, async () => {
      const started = performance.now();
      const value = await client.run(workflow, {
        signal: ctx.signal,
        onProgress: (p) => {
          ctx.progress?.();
          if (p.value !== undefined) ctx.logger.debug({ node: p.node, value: p.value, max: p.max }, "comfyui progress");
        },
      });
      return { value, used: { gpu_seconds: Math.round(performance.now() - started) / 1000 } };
    });
    const frames = files.filter((f) => f.type === "output" && /\.png$/i.test(f.filename)).sort((a, b) => a.filename.localeCompare(b.filename));
    if (frames.length === 0) throw new NoVisualResultError(this.name, "ComfyUI saved no frames");
    const dir = dirname(outPath);
    for (const [i, frame] of frames.entries()) {
      await writeFile(join(dir, `frame_${String(i + 1).padStart(5, "0")}.png`), await client.view(frame, ctx.signal));
    }
    ctx.progress?.();
    const shape = WORKFLOW_SHAPES[this.options.workflow];
    const sourceFps = Math.min(job.fps, Math.max(shape.fps / 2, frames.length / job.duration_s));
    await runFfmpeg(framesToClipArgs(job, join(dir, "frame_%05d.png"), sourceFps, outPath, this.options.preset), {
      signal: ctx.signal,
      ffmpegPath: this.options.ffmpegPath,
    });
  }
}
