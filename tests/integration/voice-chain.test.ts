/**
 * The voice stage's chain (Edge TTS -> Gemini TTS -> HALT) through the pipeline's stage runner,
 * against the real Postgres and the emulators. Edge TTS is "down" by pointing its client at a
 * port nothing listens on; Gemini TTS fails through the emulator's faults.
 */
import { describe, expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { VoiceTrack } from "../../shared/contracts/media.ts";
import { readWav } from "../../shared/providers/tts/wav.ts";
import { scriptWords } from "../../shared/providers/tts/word-alignment.ts";
import { freePort } from "./fixtures/emulator-harness.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const admin = adminSql();

const harness = withPipeline({ storagePrefix: "mdame-it-voice-", logLevel: "silent" });

/** Pipeline dependencies with Edge TTS reachable or not. */
async function pipeline(edge: "up" | "down") {
  const edgeUrl = edge === "up" ? harness.env.EDGE_TTS_WSS_URL : `ws://127.0.0.1:${await freePort()}/consumer/speech/synthesize/readaloud/edge/v1`;
  const { deps, app } = harness.open({ EDGE_TTS_WSS_URL: edgeUrl });
  const auth = harness.auth;
  const drain = async () => {
    for (let i = 0; i < 20; i++) {
      const response = await app.request("/pipeline/tick", { method: "POST", headers: auth, body: "{}" });
      expect(response.status).toBe(200);
      if (((await response.json()) as { processed: number }).processed === 0) break;
    }
  };
  return { deps, app, auth, drain };
}

/** Files in the asset store (voice tracks and words among them). */
async function storedFiles(): Promise<string[]> {
  return (await readdir(harness.storageDir, { recursive: true })).map(String).filter((f) => /\.(wav|mp3|json)$/.test(f)).sort();
}

/** TTS requests the emulator has answered so far, per service. */
function ttsRequests() {
  const requests = harness.emulator.logs.filter((l) => typeof l.path === "string");
  return {
    edge: requests.filter((l) => String(l.path).includes("/readaloud/edge/")).length,
    gemini: requests.filter((l) => /-tts:generateContent$/.test(String(l.path))).length,
  };
}

/** A new unit at the media stage with `unitId`'s script (narration changed by `suffix`) and scenes; its voice task queued. */
async function cloneUnit(deps: PipelineDeps, unitId: string, key: string, suffix = "") {
  const [unit] = await admin`
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script)
    select run_id, dimension_id, ${key}, ${key}, topic, 'media',
           jsonb_set(script, '{narration}', to_jsonb(script->>'narration' || ${suffix}))
      from mdame.work_units where id = ${unitId}
    returning id, run_id`;
  await admin`
    insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash)
    select ${unit.id}, scene_index, prompt, narration, first_word, duration_s, scene_hash from mdame.scenes where unit_id = ${unitId}`;
  await admin`select mdame.enqueue_stage_task('voice', ${unit.run_id}, ${unit.id})`;
  return unit.id as string;
}

let firstUnit = "";
let firstTrack: VoiceTrack;

describe("voice chain", () => {
  test("Edge TTS down: Gemini TTS speaks with the dimension's fallback voice, words aligned, track stored", async () => {
    const { deps, app, auth, drain } = await pipeline("down");
    const before = ttsRequests();
    const trigger = await app.request("/pipeline/runs", { method: "POST", headers: auth, body: JSON.stringify({ dimension: "tech-explained" }) });
    expect(trigger.status).toBe(202);
    await drain();

    const [unit] = await admin`select id, stage, script, voice from mdame.work_units where dimension_id = 'tech-explained'`;
    expect(unit.stage).toBe("media");
    const track = VoiceTrack.parse(unit.voice);
    expect(track.provider).toBe("gemini-tts");
    expect(track.voice).toBe("Kore"); // the English default: the seed names no fallback voice
    expect(track.audio_key).toMatch(/^voice\/[0-9a-f]{64}\.wav$/);
    expect(ttsRequests().gemini - before.gemini).toBe(1);

    // The stored track is 24 kHz WAV whose length is the recorded duration.
    const wavPath = join(harness.storageDir, "wav-check.wav");
    await deps.store.getFile(track.audio_key, wavPath);
    const wav = readWav(new Uint8Array(await readFile(wavPath)))!;
    expect(wav.sampleRate).toBe(24_000);
    expect(Math.abs(wav.durationMs - track.duration_ms)).toBeLessThanOrEqual(1);

    // Every script word has a timing, in order, inside the audio.
    const narration = (unit.script as { narration: string }).narration;
    expect(track.words.map((w) => w.text)).toEqual(scriptWords(narration).map((w) => w.text));
    for (let i = 1; i < track.words.length; i++) expect(track.words[i].offset_ms).toBeGreaterThan(track.words[i - 1].offset_ms);
    expect(track.words.at(-1)!.offset_ms).toBeLessThan(track.duration_ms);
    // Scene starts follow the aligned words.
    const scenes = await admin`select first_word from mdame.scenes where unit_id = ${unit.id} order by scene_index`;
    const firsts = scenes.map((s) => s.first_word as number);
    expect(firsts[0]).toBe(0);
    for (let i = 1; i < firsts.length; i++) expect(firsts[i]).toBeGreaterThan(firsts[i - 1]);
    firstUnit = unit.id;
    firstTrack = track;
  }, 120_000);

  test("a second run of the stage for the same narration makes no TTS request and keeps the first run's voice", async () => {
    // Edge TTS is back: the stored Gemini track is still the one spoken, and nothing is synthesised.
    const { deps, drain } = await pipeline("up");
    const before = ttsRequests();
    const unitId = await cloneUnit(deps, firstUnit, "it-voice-rerun");
    await drain();
    const [unit] = await admin`select stage, voice from mdame.work_units where id = ${unitId}`;
    expect(unit.stage).toBe("media");
    expect(VoiceTrack.parse(unit.voice)).toEqual(firstTrack);
    expect(ttsRequests()).toEqual(before);
  }, 60_000);

  test("both providers down: the unit halts with both reasons and nothing goes to render", async () => {
    const { deps, drain } = await pipeline("down");
    // Three calls: Gemini TTS's bounded retries, all answered 503.
    await harness.emulator.armFault({ service: "gemini-tts", kind: "unavailable", count: 3 });
    const before = ttsRequests();
    const filesBefore = await storedFiles();
    const unitId = await cloneUnit(deps, firstUnit, "it-voice-halt", " Both voices are down today.");
    await drain();
    const [unit] = await admin`select stage, voice, error from mdame.work_units where id = ${unitId}`;
    expect(unit.stage).toBe("failed");
    expect(unit.voice).toBeNull();
    expect(unit.error).toContain("HALT");
    expect(unit.error).toContain("edge-tts:");
    expect(unit.error).toContain("gemini-tts:");
    expect(unit.error).toContain("503");
    expect(ttsRequests().gemini - before.gemini).toBe(3);
    const render = await admin`select count(*)::int as n from pgmq.q_render where message->>'unit_id' = ${unitId}`;
    expect(render[0].n).toBe(0);
    expect(await storedFiles()).toEqual(filesBefore);
  }, 60_000);

  test("a safety refusal halts at once: no retry, no other voice", async () => {
    const { deps, drain } = await pipeline("down");
    await harness.emulator.armFault({ service: "gemini-tts", kind: "refusal", count: 1 });
    const before = ttsRequests();
    const unitId = await cloneUnit(deps, firstUnit, "it-voice-refused", " This one is refused.");
    await drain();
    const [unit] = await admin`select stage, error from mdame.work_units where id = ${unitId}`;
    expect(unit.stage).toBe("failed");
    expect(unit.error).toContain("HALT");
    expect(unit.error).toContain("gemini-tts refused the narration (safety)");
    expect(ttsRequests().gemini - before.gemini).toBe(1);
  }, 60_000);

  test("a 429 is retried within the call: the narration is still spoken by Gemini TTS", async () => {
    const { deps, drain } = await pipeline("down");
    await harness.emulator.armFault({ service: "gemini-tts", kind: "rate_limited", count: 1 });
    const before = ttsRequests();
    const unitId = await cloneUnit(deps, firstUnit, "it-voice-429", " After a short wait.");
    await drain();
    const [unit] = await admin`select stage, voice from mdame.work_units where id = ${unitId}`;
    expect(unit.stage).toBe("media");
    expect(VoiceTrack.parse(unit.voice).provider).toBe("gemini-tts");
    expect(ttsRequests().gemini - before.gemini).toBe(2);
  }, 60_000);
});
