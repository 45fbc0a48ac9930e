/**
 * ComfyUI's HTTP + WebSocket API, spoken directly (ComfyUI ships no JS client):
 *
 *   POST /upload/image (multipart `image`)  -> {name, subfolder, type}
 *   POST /prompt {prompt: <API-format workflow>, client_id} -> {prompt_id, number, node_errors}
 *   WS   /ws?clientId=<client_id>  status / execution_start / executing / progress / executed /
 *        execution_success / execution_error / execution_interrupted messages; `executing` with
 *        `node: null` marks the prompt done
 *   GET  /history/{prompt_id} -> {<prompt_id>: {outputs: {<node>: {images: [{filename, subfolder, type}]}}, status}}
 *   GET  /view?filename=&subfolder=&type=  -> the file
 *   POST /interrupt {prompt_id}  stops the running prompt
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { errorForStatus, ProviderRejectedError, ProviderUnavailableError } from "../errors.ts";

const PROVIDER = "comfyui";
/** How often, and how far apart, a missing history entry is asked for again. */
const HISTORY_ATTEMPTS = 10;
const HISTORY_RETRY_MS = 200;

/** An API-format workflow: node id -> {class_type, inputs}. */
export type ComfyWorkflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: unknown }>;

type PlaceholderValues = Record<string, string | number>;

/**
 * The workflow with its `{{name}}` placeholders filled: an input that is exactly one placeholder
 * takes the value with its type (numbers stay numbers); one inside a longer string is replaced as
 * text. A placeholder without a value is an error, so a workflow never runs half-filled.
 */
export function fillWorkflow(template: ComfyWorkflow, values: PlaceholderValues): ComfyWorkflow {
  const missing = new Set<string>();
  const fill = (value: unknown): unknown => {
    if (typeof value === "string") {
      const whole = /^\{\{(\w+)\}\}$/.exec(value);
      if (whole) {
        if (!(whole[1]! in values)) missing.add(whole[1]!);
        return values[whole[1]!];
      }
      return value.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
        if (!(name in values)) missing.add(name);
        return String(values[name] ?? "");
      });
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  const filled = fill(template) as ComfyWorkflow;
  if (missing.size > 0) throw new Error(`workflow placeholders without a value: ${[...missing].join(", ")}`);
  return filled;
}

const OutputFile = z.object({ filename: z.string().min(1), subfolder: z.string(), type: z.string() });
type ComfyOutputFile = z.infer<typeof OutputFile>;

const HistoryEntry = z.object({
  outputs: z.record(z.string(), z.object({ images: z.array(OutputFile).optional() }).passthrough()),
  status: z.object({ status_str: z.string(), completed: z.boolean() }).passthrough().optional(),
}).passthrough();

/** A message from `/ws` (JSON text frames; binary preview frames are ignored). */
interface WsMessage {
  type: string;
  data?: { prompt_id?: string; node?: string | null; value?: number; max?: number; exception_message?: string; node_type?: string };
}

interface RunOptions {
  signal?: AbortSignal;
  /** Called on every progress step or node change of this prompt. */
  onProgress?: (progress: { node: string | null; value?: number; max?: number }) => void;
  /** Longest a prompt may run. Default 20 minutes. */
  timeoutMs?: number;
}

export class ComfyUiClient {
  constructor(private readonly options: { baseUrl: string; requestTimeoutMs?: number; fetch?: typeof fetch }) {}

  private url(path: string): string {
    return `${this.options.baseUrl.replace(/\/+$/, "")}${path}`;
  }

  private async request(path: string, init: RequestInit = {}, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(this.options.requestTimeoutMs ?? 60_000);
    try {
      return await (this.options.fetch ?? fetch)(this.url(path), { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (error) {
      signal?.throwIfAborted();
      throw new ProviderUnavailableError(PROVIDER, `ComfyUI ${path} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  private async json(path: string, init: RequestInit = {}, signal?: AbortSignal): Promise<unknown> {
    const response = await this.request(path, init, signal);
    const text = await response.text();
    if (!response.ok) throw errorForStatus(PROVIDER, response.status, `ComfyUI ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new ProviderUnavailableError(PROVIDER, `ComfyUI ${path} answered non-JSON`);
    }
  }

  /** Uploads an input picture for LoadImage; returns the name to put in the workflow. */
  async uploadImage(bytes: Uint8Array, filename: string, signal?: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append("image", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), filename);
    form.append("type", "input");
    form.append("overwrite", "true");
    const body = z.object({ name: z.string().min(1), subfolder: z.string().optional() }).passthrough()
      .parse(await this.json("/upload/image", { method: "POST", body: form }, signal));
    return body.subfolder ? `${body.subfolder}/${body.name}` : body.name;
  }

  /** Asks ComfyUI to stop a prompt (the running one, if it is this one). */
  async interrupt(promptId: string): Promise<void> {
    await this.request("/interrupt", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt_id: promptId }) });
  }

  /**
   * Queues a workflow and waits for it over the WebSocket; returns the files its nodes saved.
   * Aborting (the task's signal) sends /interrupt before rejecting.
   */
  async run(workflow: ComfyWorkflow, options: RunOptions = {}): Promise<ComfyOutputFile[]> {
    const { signal } = options;
    signal?.throwIfAborted();
    const clientId = randomUUID();
    const wsUrl = this.url(`/ws?clientId=${clientId}`).replace(/^http/, "ws");
    const ws = new WebSocket(wsUrl);
    let promptId: string | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        ws.addEventListener("open", () => resolve(), { once: true });
        ws.addEventListener("error", () => reject(new ProviderUnavailableError(PROVIDER, `ComfyUI WebSocket ${wsUrl} did not open`)), { once: true });
      });
      // Messages are collected from the start, so none for this prompt is missed before its id is known.
      const early: WsMessage[] = [];
      let settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
      const done = new Promise<void>((resolve, reject) => {
        settle = { resolve, reject };
      });
      // Awaited below; a failure before then (the queue call) must not surface as unhandled.
      done.catch(() => {});
      const handle = (message: WsMessage) => {
        const data = message.data ?? {};
        if (promptId === undefined) return void early.push(message);
        if (data.prompt_id !== promptId) return;
        if (message.type === "progress") options.onProgress?.({ node: data.node ?? null, value: data.value, max: data.max });
        // ComfyUI sends execution_success from the executor, then stores the history entry, then
        // `executing` with node null: only that last one means /history holds the outputs.
        else if (message.type === "executing" && data.node === null) settle!.resolve();
        else if (message.type === "executing") options.onProgress?.({ node: data.node ?? null });
        else if (message.type === "execution_error") {
          settle!.reject(new ProviderRejectedError(PROVIDER, `ComfyUI node ${data.node_type ?? "?"} failed: ${data.exception_message ?? "unknown error"}`));
        } else if (message.type === "execution_interrupted") settle!.reject(new ProviderUnavailableError(PROVIDER, "ComfyUI interrupted the prompt"));
      };
      ws.addEventListener("message", (event) => {
        if (typeof event.data !== "string") return;
        let message: WsMessage;
        try {
          message = JSON.parse(event.data) as WsMessage;
        } catch {
          return; // A frame that is not JSON is not a status message.
        }
        handle(message);
      });
      ws.addEventListener("close", () => settle!.reject(new ProviderUnavailableError(PROVIDER, "ComfyUI WebSocket closed before the prompt finished")));
      const queued = z.object({ prompt_id: z.string().min(1) }).passthrough()
        .parse(
          await this.json("/prompt", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ prompt: workflow, client_id: clientId }),
          }, signal),
        );
      promptId = queued.prompt_id;

      const stop = new Promise<never>((_, reject) => {
        const timer = setTimeout(
          () => reject(new ProviderUnavailableError(PROVIDER, "ComfyUI prompt ran past its time limit")),
          options.timeoutMs ?? 20 * 60_000,
        );
        done.finally(() => clearTimeout(timer)).catch(() => {});
        if (signal?.aborted) reject(signal.reason);
        else signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
      stop.catch(() => {});
      early.splice(0).forEach(handle);
      try {
        await Promise.race([done, stop]);
      } catch (error) {
        // Stop the GPU work this task no longer wants (shutdown, lost lease, time limit).
        await this.interrupt(promptId).catch(() => {});
        throw error;
      }
      const entry = await this.historyEntry(promptId, signal);
      if (!entry) throw new ProviderUnavailableError(PROVIDER, `ComfyUI has no history for prompt ${promptId}`);
      if (entry.status && entry.status.status_str !== "success") throw new ProviderRejectedError(PROVIDER, `ComfyUI prompt ended ${entry.status.status_str}`);
      return Object.values(entry.outputs).flatMap((output) => output.images ?? []);
    } finally {
      ws.close();
    }
  }

  /**
   * The prompt's history entry. Asked again a few times while it is missing: a server that announced
   * the end before storing it (or a proxy in between) answers `{}` for a moment.
   */
  private async historyEntry(promptId: string, signal?: AbortSignal): Promise<z.infer<typeof HistoryEntry> | undefined> {
    for (let attempt = 0;; attempt++) {
      const history = z.record(z.string(), HistoryEntry).parse(await this.json(`/history/${encodeURIComponent(promptId)}`, {}, signal));
      if (history[promptId] || attempt === HISTORY_ATTEMPTS - 1) return history[promptId];
      await new Promise((resolve) => setTimeout(resolve, HISTORY_RETRY_MS));
      signal?.throwIfAborted();
    }
  }

  /** A saved output file's bytes. */
  async view(file: ComfyOutputFile, signal?: AbortSignal): Promise<Uint8Array> {
    const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type });
    const response = await this.request(`/view?${query}`, {}, signal);
    if (!response.ok) throw errorForStatus(PROVIDER, response.status, `ComfyUI /view answered ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }
}
