/**
 * Each visual backend through its emulator with its real client (Gemini image via @google/genai,
 * Pexels over its documented REST API), real FFmpeg, and the clip checked as the render reads it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningEmulator, startEmulator } from "../../emulators/main.ts";
import { GeminiImageBackend } from "../../gpu-worker/backends/gemini-image.ts";
import { PexelsBackend } from "../../gpu-worker/backends/pexels.ts";
import { NoVisualResultError } from "../../gpu-worker/backends/visual-backend.ts";
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { visualJob } from "../fixtures/visual-job.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { probeMedia } from "../../shared/media/ffprobe.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { GeminiImageClient } from "../../shared/providers/visuals/gemini-image.ts";
import { PexelsClient } from "../../shared/providers/visuals/pexels.ts";

const logger = createLogger("visual-backends-test", { write: () => {} });
let dir = "";
let emulator: RunningEmulator;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-visual-backends-"));
  emulator = await startEmulator({ port: 0, dataDir: join(dir, "emulator"), geminiApiKey: "test-gemini-key", log: () => {} });
});
afterAll(async () => {
  await emulator?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

async function expectClip(path: string, job: VisualJob) {
  const info = await probeMedia(path);
  expect(info.video).toMatchObject({ width: job.width, height: job.height, codec_name: "h264" });
  expect(info.video!.fps).toBe(job.fps);
  expect(Math.abs(info.duration_s - job.duration_s)).toBeLessThan(0.1);
}

const ctx = () => ({ logger, signal: new AbortController().signal });

describe("gemini-image", () => {
  const client = () => new GeminiImageClient({ apiKey: "test-gemini-key", baseUrl: emulator.url, model: "gemini-2.5-flash-image" });

  test("a Gemini still becomes a moving 720x1280 H.264 clip of the job's rate and length", async () => {
    const job = visualJob("gemini-still");
    const backend = new GeminiImageBackend({ client: client() });
    expect(backend.version).toBe("gemini-image/1:gemini-2.5-flash-image");
    const out = join(dir, "gemini.mp4");
    await backend.generate(job, out, ctx());
    await expectClip(out, job);
  }, 120_000);

  test("the image is deterministic PNG from the prompt, and a wrong key is refused as non-retriable", async () => {
    const a = await client().generate("a lighthouse at dusk");
    const b = await client().generate("a lighthouse at dusk");
    const c = await client().generate("a red bicycle");
    expect(a.mimeType).toBe("image/png");
    expect([...a.bytes.slice(1, 4)].map((x) => String.fromCharCode(x)).join("")).toBe("PNG");
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(Buffer.from(a.bytes).equals(Buffer.from(c.bytes))).toBe(false);
    const wrong = new GeminiImageClient({ apiKey: "not-the-key", baseUrl: emulator.url, model: "gemini-2.5-flash-image" });
    await expect(wrong.generate("a lighthouse")).rejects.toBeInstanceOf(ProviderRejectedError);
  }, 60_000);
});

describe("pexels", () => {
  const client = (apiKey = "test-pexels-key") => new PexelsClient({ apiKey, baseUrl: emulator.url });

  test("a stock video is searched, a 1080-wide portrait rendition cut to the slot, and its credit returned", async () => {
    const job = visualJob("pexels-clip", { duration_s: 4.2 });
    const pexels = client();
    const result = await new PexelsBackend({ client: pexels }).generate(job, join(dir, "pexels.mp4"), ctx());
    await expectClip(join(dir, "pexels.mp4"), job);
    expect(result.credit).toMatchObject({ provider: "pexels", licence: "Pexels License" });
    expect(result.credit!.page_url).toStartWith(`${emulator.url}/video/solar-panels-`);
    expect(result.credit!.author).toStartWith("Pexels Creator");
    expect(pexels.lastRateLimit.limit).toBe(20_000);
    expect(pexels.lastRateLimit.remaining).toBeLessThan(20_000);
  }, 120_000);

  test("a search without the key is refused; a 429 is a retriable error and the quota is not asked again before it resets", async () => {
    await expect(client("").search("solar")).rejects.toMatchObject({ status: 401 });
    const pexels = client();
    const armed = await fetch(`${emulator.url}/_emulator/pexels/faults`, { method: "POST", body: JSON.stringify({ kind: "rate_limited", count: 1 }) });
    expect(armed.status).toBe(200);
    await expect(pexels.search("solar")).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(pexels.lastRateLimit.remaining).toBe(0);
    // The emulator would answer now; the client keeps off until the announced reset.
    await expect(pexels.search("solar")).rejects.toThrow("quota spent until");
  }, 30_000);

  test("a blocklist that rules out every candidate leaves no result", async () => {
    const job = visualJob("pexels-blocked", { keywords: ["casino"], visuals: { backends: ["pexels", "procedural"], pexels_blocklist: ["casino"] } });
    await expect(new PexelsBackend({ client: client() }).generate(job, join(dir, "blocked.mp4"), ctx())).rejects.toBeInstanceOf(NoVisualResultError);
  }, 30_000);
});
