/**
 * An emulator of ComfyUI's HTTP + WebSocket API, on its own port (its `/ws` needs the server's
 * WebSocket upgrade, which the shared emulator keeps for Edge TTS). Run with
 * `bun emulators/comfyui/server.ts` (COMFYUI_EMULATOR_PORT, default 8188) or startComfyUiEmulator().
 *
 *   POST /upload/image         multipart `image` -> {name, subfolder, type: "input"}
 *   POST /prompt               {prompt, client_id} -> {prompt_id, number, node_errors: {}}; 400 with node_errors
 *                              when a node lacks class_type/inputs, LoadImage names a file never uploaded, or
 *                              there is no SaveImage
 *   WS   /ws?clientId=         status on connect; per prompt: execution_start, executing (each node), progress
 *                              (KSampler steps), executed (SaveImage output), execution_success, executing null;
 *                              or execution_interrupted after POST /interrupt
 *   GET  /history/{prompt_id}  {<id>: {prompt, outputs, status}}
 *   GET  /view?filename=&subfolder=&type=
 *   POST /interrupt            stops the running prompt (any, or the one named by prompt_id)
 *
 * Frames are deterministic PNGs made by FFmpeg: for img2vid, the uploaded still slowly zoomed; for
 * text-to-video, the prompt's words over a moving gradient.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import process from "node:process";
import type { ServerWebSocket } from "bun";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { LABEL_Y, wrapCaption } from "../media-draw.ts";

type Node = { class_type?: unknown; inputs?: Record<string, unknown> };
interface PromptRecord {
  id: string;
  number: number;
  clientId: string;
  workflow: Record<string, Node>;
  outputs: Record<string, { images: Array<{ filename: string; subfolder: string; type: string }> }>;
  status: { status_str: string; completed: boolean; messages: unknown[] };
  interrupted: boolean;
  /** In the history yet: ComfyUI stores the entry after execution_success, before `executing` null. */
  stored: boolean;
}

interface ComfyUiEmulatorOptions {
  port?: number;
  dataDir: string;
  /** Pause per sampler step, so progress can be watched (and interrupted). Default 40 ms. */
  stepDelayMs?: number;
  /**
   * Pause between a prompt's end (execution_success or execution_error) and its history entry, as
   * ComfyUI's prompt worker sends execution_success from the executor and only then stores the
   * history (task_done) and sends `executing` with node null. Default 20 ms.
   */
  historyDelayMs?: number;
}

export interface RunningComfyUi {
  url: string;
  stop(): Promise<void>;
  /** Prompts received, in order (for tests: what the backend sent). */
  prompts: Array<{ id: string; workflow: Record<string, Node>; interrupted: boolean }>;
  interrupts: number;
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const safeName = (name: string) => /^[A-Za-z0-9._-]{1,120}$/.test(name);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startComfyUiEmulator(options: ComfyUiEmulatorOptions): Promise<RunningComfyUi> {
  const inputDir = path.join(options.dataDir, "input");
  const outputDir = path.join(options.dataDir, "output");
  await mkdir(inputDir, { recursive: true });
  await mkdir(outputDir, { recursive: true });
  const sockets = new Map<string, ServerWebSocket<{ clientId: string }>>();
  const history = new Map<string, PromptRecord>();
  const queue: PromptRecord[] = [];
  let running: PromptRecord | undefined;
  let counter = 0;
  const state: RunningComfyUi = { url: "", stop: async () => {}, prompts: [], interrupts: 0 };

  const send = (clientId: string, type: string, data: Record<string, unknown>) => sockets.get(clientId)?.send(JSON.stringify({ type, data }));

  function validate(workflow: unknown): { error?: string; nodeErrors?: Record<string, unknown> } {
    if (workflow === null || typeof workflow !== "object" || Array.isArray(workflow) || Object.keys(workflow).length === 0) {
      return { error: "prompt must be a non-empty object of nodes" };
    }
    const nodeErrors: Record<string, unknown> = {};
    let saves = 0;
    for (const [id, node] of Object.entries(workflow as Record<string, Node>)) {
      if (typeof node?.class_type !== "string" || node.inputs === null || typeof node.inputs !== "object") {
        nodeErrors[id] = { errors: [{ type: "invalid_node", message: "a node needs class_type and inputs" }] };
        continue;
      }
      if (node.class_type === "SaveImage") saves++;
      for (const [name, value] of Object.entries(node.inputs)) {
        if (typeof value === "string" && /\{\{\w+\}\}/.test(value)) {
          nodeErrors[id] = { errors: [{ type: "value_not_valid", message: `${name}: unfilled placeholder ${value}` }] };
        }
      }
      if (
        node.class_type === "LoadImage" &&
        !(typeof node.inputs.image === "string" && safeName(node.inputs.image) && existsSync(path.join(inputDir, node.inputs.image)))
      ) {
        nodeErrors[id] = { errors: [{ type: "custom_validation_failed", message: `Invalid image file: ${String(node.inputs.image)}` }] };
      }
    }
    if (saves === 0) return { error: "Prompt has no outputs" };
    return Object.keys(nodeErrors).length > 0 ? { error: "Prompt outputs failed validation", nodeErrors } : {};
  }

  async function render(record: PromptRecord, saveId: string): Promise<string[]> {
    const nodes = Object.values(record.workflow);
    const input = (cls: string, name: string) => nodes.find((n) => n.class_type === cls)?.inputs?.[name];
    const svd = nodes.some((n) => n.class_type === "SVD_img2vid_Conditioning");
    const width = Number(input(svd ? "SVD_img2vid_Conditioning" : "EmptyLatentImage", "width") ?? 512);
    const height = Number(input(svd ? "SVD_img2vid_Conditioning" : "EmptyLatentImage", "height") ?? 512);
    const frames = Math.min(64, Number(input(svd ? "SVD_img2vid_Conditioning" : "EmptyLatentImage", svd ? "video_frames" : "batch_size") ?? 16));
    const prefix = String(record.workflow[saveId]?.inputs?.filename_prefix ?? "ComfyUI").replace(/[^A-Za-z0-9_-]+/g, "_");
    const seed = createHash("sha256").update(JSON.stringify(record.workflow)).digest();
    const work = path.join(outputDir, `.${record.id}`);
    await mkdir(work, { recursive: true });
    let args: string[];
    if (svd) {
      const still = path.join(inputDir, String(input("LoadImage", "image")));
      args = [
        "-i",
        still,
        "-vf",
        `scale=${width * 2}:${height * 2}:force_original_aspect_ratio=increase,crop=${width * 2}:${height * 2},` +
        `zoompan=z='1+0.15*on/${frames}':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=${frames}:s=${width}x${height}`,
      ];
    } else {
      const textFile = path.join(work, "caption.txt");
      const prompt = String(input("CLIPTextEncode", "text") ?? "");
      const subject = prompt.includes("showing:") ? prompt.slice(prompt.lastIndexOf("showing:") + 8) : prompt;
      await writeFile(textFile, wrapCaption(subject.split(/[.;\n]/)[0]!.trim()) || " ");
      const c = (i: number) => `0x${seed.subarray(i, i + 3).toString("hex")}`;
      args = [
        "-f",
        "lavfi",
        "-i",
        `gradients=s=${width}x${height}:r=8:c0=${c(0)}:c1=${c(3)}:seed=${seed.readUInt32BE(8)}:speed=0.05,` +
        `drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:textfile=${textFile}:fontsize=${
          Math.round(width / 12)
        }:fontcolor=white:box=1:boxcolor=black@0.4:x=(w-text_w)/2:y=${LABEL_Y}`,
      ];
    }
    await runFfmpeg([...args, "-frames:v", String(frames), "-pix_fmt", "rgb24", "-flags", "+bitexact", "-f", "image2", "-y", path.join(work, "f_%05d.png")]);
    const names: string[] = [];
    for (const [i, file] of (await readdir(work)).filter((f) => f.endsWith(".png")).sort().entries()) {
      const name = `${prefix}_${String(counter).padStart(5, "0")}_${String(i + 1).padStart(5, "0")}_.png`;
      await writeFile(path.join(outputDir, name), await readFile(path.join(work, file)));
      names.push(name);
    }
    return names;
  }

  async function execute(record: PromptRecord): Promise<void> {
    running = record;
    const { clientId, id } = record;
    send(clientId, "execution_start", { prompt_id: id, timestamp: Date.now() });
    const interrupted = () => {
      send(clientId, "execution_interrupted", { prompt_id: id, node_id: "0", node_type: "KSampler", executed: [], timestamp: Date.now() });
      record.status = { status_str: "error", completed: false, messages: [["execution_interrupted", { prompt_id: id }]] };
    };
    try {
      for (const [nodeId, node] of Object.entries(record.workflow)) {
        if (record.interrupted) return interrupted();
        send(clientId, "executing", { node: nodeId, display_node: nodeId, prompt_id: id });
        if (node.class_type === "KSampler") {
          const steps = Math.min(100, Number(node.inputs?.steps ?? 20));
          for (let step = 1; step <= steps; step++) {
            await sleep(options.stepDelayMs ?? 40);
            if (record.interrupted) return interrupted();
            send(clientId, "progress", { value: step, max: steps, prompt_id: id, node: nodeId });
          }
        }
        if (node.class_type === "SaveImage") {
          const names = await render(record, nodeId);
          const output = { images: names.map((filename) => ({ filename, subfolder: "", type: "output" })) };
          record.outputs[nodeId] = output;
          send(clientId, "executed", { node: nodeId, display_node: nodeId, output, prompt_id: id });
        }
      }
      send(clientId, "execution_success", { prompt_id: id, timestamp: Date.now() });
      record.status = { status_str: "success", completed: true, messages: [["execution_success", { prompt_id: id }]] };
    } catch (error) {
      send(clientId, "execution_error", { prompt_id: id, node_id: "0", node_type: "SaveImage", exception_message: String((error as Error)?.message ?? error) });
      record.status = { status_str: "error", completed: false, messages: [["execution_error", { prompt_id: id }]] };
    } finally {
      // Stored in the history only now, then `executing` null: ComfyUI's order (main.py prompt_worker).
      await sleep(options.historyDelayMs ?? 20);
      record.stored = true;
      send(clientId, "executing", { node: null, prompt_id: id });
      running = undefined;
    }
  }

  async function drain(): Promise<void> {
    if (running) return;
    const next = queue.shift();
    if (!next) return;
    await execute(next);
    void drain();
  }

  const server = Bun.serve<{ clientId: string }, never>({
    port: options.port ?? 0,
    hostname: "127.0.0.1",
    async fetch(req, srv) {
      const url = new URL(req.url);
      if (url.pathname === "/ws") {
        const clientId = url.searchParams.get("clientId") || randomUUID().replaceAll("-", "");
        return srv.upgrade(req, { data: { clientId } }) ? undefined : json({ error: "expected a WebSocket upgrade" }, 400);
      }
      if (url.pathname === "/prompt" && req.method === "POST") {
        const body = await req.json().catch(() => null) as { prompt?: unknown; client_id?: unknown } | null;
        const problem = validate(body?.prompt);
        if (problem.error) {
          return json({ error: { type: "prompt_outputs_failed_validation", message: problem.error, details: "" }, node_errors: problem.nodeErrors ?? {} }, 400);
        }
        const record: PromptRecord = {
          id: randomUUID(),
          number: counter++,
          clientId: typeof body?.client_id === "string" ? body.client_id : "",
          workflow: body!.prompt as Record<string, Node>,
          outputs: {},
          status: { status_str: "running", completed: false, messages: [] },
          stored: false,
          interrupted: false,
        };
        history.set(record.id, record);
        state.prompts.push(record);
        queue.push(record);
        void drain();
        return json({ prompt_id: record.id, number: record.number, node_errors: {} });
      }
      if (url.pathname === "/interrupt" && req.method === "POST") {
        const body = await req.json().catch(() => ({})) as { prompt_id?: unknown };
        state.interrupts++;
        if (running && (body.prompt_id === undefined || body.prompt_id === running.id)) running.interrupted = true;
        return new Response(null, { status: 200 });
      }
      const historyRoute = /^\/history\/([0-9a-f-]{36})$/.exec(url.pathname);
      if (historyRoute && req.method === "GET") {
        const record = history.get(historyRoute[1]!);
        if (!record || !record.stored) return json({});
        return json({
          [record.id]: { prompt: [record.number, record.id, record.workflow, {}, Object.keys(record.outputs)], outputs: record.outputs, status: record.status },
        });
      }
      if (url.pathname === "/view" && req.method === "GET") {
        const filename = url.searchParams.get("filename") ?? "";
        const type = url.searchParams.get("type") ?? "output";
        const dir = type === "input" ? inputDir : outputDir;
        if (!safeName(filename) || (url.searchParams.get("subfolder") ?? "") !== "" || !existsSync(path.join(dir, filename))) {
          return new Response("not found", { status: 404 });
        }
        return new Response(await readFile(path.join(dir, filename)), { headers: { "content-type": "image/png" } });
      }
      if (url.pathname === "/upload/image" && req.method === "POST") {
        const form = await req.formData().catch(() => null);
        const image = form?.get("image");
        if (!(image instanceof File) || image.size === 0 || image.size > 50 * 1024 * 1024) {
          return new Response("image is required (at most 50 MB)", { status: 400 });
        }
        const name = safeName(image.name) ? image.name : `upload-${createHash("sha256").update(image.name).digest("hex").slice(0, 12)}.png`;
        await writeFile(path.join(inputDir, name), new Uint8Array(await image.arrayBuffer()));
        return json({ name, subfolder: "", type: "input" });
      }
      return json({ error: `no route ${req.method} ${url.pathname}` }, 404);
    },
    websocket: {
      open(ws) {
        sockets.set(ws.data.clientId, ws);
        ws.send(
          JSON.stringify({ type: "status", data: { status: { exec_info: { queue_remaining: queue.length + (running ? 1 : 0) } }, sid: ws.data.clientId } }),
        );
      },
      message() {},
      close(ws) {
        sockets.delete(ws.data.clientId);
      },
    },
  });
  state.url = `http://127.0.0.1:${server.port}`;
  state.stop = async () => {
    await server.stop(true);
  };
  return state;
}

if (import.meta.main) {
  const emulator = await startComfyUiEmulator({
    port: Number(process.env.COMFYUI_EMULATOR_PORT ?? 8188),
    dataDir: process.env.COMFYUI_EMULATOR_DATA_DIR ?? ".local/emulators/comfyui",
  });
  process.stdout.write(`${JSON.stringify({ service: "comfyui", event: "listening", url: emulator.url })}\n`);
  const stop = async () => {
    await emulator.stop();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
