/**
 * The fault kinds the accelerated soak arms (emulators/faults/fault-book.ts), seen through the real clients:
 * a quota-exhausted YouTube refuses to start an upload with 403 quotaExceeded and 429 is a rate
 * limit; a fault armed `for_ms` applies to every call until it expires; `slow` delays an answer;
 * `DELETE /_emulator/faults` disarms everything; bad fault parameters are refused with 400 and arm
 * nothing. Posted feeds are served as RSS the feed source reads, and survive an emulator restart.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { createGeminiJsonModel } from "../../shared/providers/llm/gemini.ts";
import { feedSource } from "../../shared/providers/sources/feed.ts";
import { createYouTubeAccessTokenSource } from "../../shared/providers/youtube/oauth.ts";
import { startUploadSession } from "../../shared/providers/youtube/resumable-upload.ts";
import { startEmulator } from "../../emulators/main.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;

const metadata = { snippet: { title: "Tides in one minute", description: "d", tags: [], categoryId: "27" }, status: { privacyStatus: "public" } };

async function startUpload(): Promise<string> {
  const accessToken = await createYouTubeAccessTokenSource({
    clientId: "client-1",
    clientSecret: "secret-1",
    tokenUrl: `${emulator.url}/token`,
    refreshToken: "emulator-refresh-soak",
  }).getAccessToken();
  return await startUploadSession({ baseUrl: emulator.url, accessToken, metadata, contentLength: 1000, contentType: "video/mp4" });
}

const gemini = () => createGeminiJsonModel({ apiKey: "k", baseUrl: emulator.url, model: "gemini-2.5-flash" });

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.reset());

test("a quota-exhausted day refuses every upload start with 403 quotaExceeded until the fault expires", async () => {
  await emulator.armFault({ service: "youtube", kind: "quota_exceeded", for_ms: 1500 });
  for (let i = 0; i < 3; i++) {
    const error = await startUpload().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(String((error as Error).message)).toContain("exceeded your quota");
  }
  await Bun.sleep(1600);
  expect(await startUpload()).toContain("upload_id=");
});

test("a rate-limited upload start answers 429, which the client treats as retriable, then uploads go on", async () => {
  await emulator.armFault({ service: "youtube", kind: "rate_limited", count: 1 });
  const error = await startUpload().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  expect(await startUpload()).toContain("upload_id=");
});

test("slow delays the answer by delay_ms and the answer is otherwise normal", async () => {
  await emulator.armFault({ service: "youtube", kind: "slow", delay_ms: 700, count: 1 });
  const started = performance.now();
  expect(await startUpload()).toContain("upload_id=");
  expect(performance.now() - started).toBeGreaterThanOrEqual(650);
  const again = performance.now();
  await startUpload();
  expect(performance.now() - again).toBeLessThan(650);
});

test("an LLM outage armed for_ms fails every call while it lasts; DELETE disarms it at once", async () => {
  await emulator.armFault({ service: "gemini", kind: "unavailable", for_ms: 60_000 });
  const model = gemini();
  for (let i = 0; i < 2; i++) {
    const error = await model.complete("TASK: script\nTopic: tides", { temperature: 0.2 }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
  }
  const disarmed = await (await fetch(`${emulator.url}/_emulator/faults`, { method: "DELETE" })).json() as { disarmed: unknown[] };
  expect(disarmed.disarmed).toHaveLength(1);
  const listed = await (await fetch(`${emulator.url}/_emulator/faults`)).json() as { faults: unknown[] };
  expect(listed.faults).toEqual([]);
});

test("bad fault parameters are refused with 400 and arm nothing", async () => {
  for (
    const bad of [
      { service: "youtube", kind: "slow" },
      { service: "youtube", kind: "slow", delay_ms: 600_000 },
      { service: "gemini", kind: "unavailable", for_ms: -1 },
      { service: "gemini", kind: "unavailable", for_ms: "soon" },
    ]
  ) {
    const response = await fetch(`${emulator.url}/_emulator/faults`, { method: "POST", body: JSON.stringify(bad) });
    expect({ bad, status: response.status }).toEqual({ bad, status: 400 });
  }
  const listed = await (await fetch(`${emulator.url}/_emulator/faults`)).json() as { faults: unknown[] };
  expect(listed.faults).toEqual([]);
});

test("a posted feed is read by the feed source, and a restarted emulator still serves it", async () => {
  const items = [
    { title: "How reef currents at Karovi glow at night", description: "Observers compared plankton.", category: "ocean", age_minutes: 30 },
    { title: "Why tide & kelp <forests> move", age_minutes: 90 },
  ];
  const put = await fetch(`${emulator.url}/_emulator/posted-feeds/soak-ocean`, { method: "PUT", body: JSON.stringify({ items }) });
  expect(put.status).toBe(200);
  const read = () =>
    feedSource().fetch({ kind: "feed", url: `${emulator.url}/posted-feeds/soak-ocean.xml`, limit: 30, weight: 1 }, { geo: "US", now: Date.now() });
  const signals = await read();
  expect(signals.map((s) => s.title)).toEqual(items.map((i) => i.title));

  const restarted = await startEmulator({ port: 0, dataDir: emulator.dataDir, log: () => {} });
  try {
    const xml = await (await fetch(`${restarted.url}/posted-feeds/soak-ocean.xml`)).text();
    expect(xml).toContain("How reef currents at Karovi glow at night");
  } finally {
    await restarted.stop();
  }
});

test("a bad posted feed is refused with 400 and the feed served before stays as it was", async () => {
  await fetch(`${emulator.url}/_emulator/posted-feeds/soak-sky`, { method: "PUT", body: JSON.stringify({ items: [{ title: "Storm clouds at Lumo split" }] }) });
  for (
    const body of [
      '{"items": [{"title": ""}]}',
      '{"items": "many"}',
      "not json",
      JSON.stringify({ items: Array.from({ length: 101 }, (_, i) => ({ title: `t${i}` })) }),
    ]
  ) {
    const response = await fetch(`${emulator.url}/_emulator/posted-feeds/soak-sky`, { method: "PUT", body });
    expect(response.status).toBe(400);
  }
  const xml = await (await fetch(`${emulator.url}/posted-feeds/soak-sky.xml`)).text();
  expect(xml).toContain("Storm clouds at Lumo split");
  expect((await fetch(`${emulator.url}/posted-feeds/nothing-here.xml`)).status).toBe(404);
});
