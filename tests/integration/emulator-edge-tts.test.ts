import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { MsEdgeTTS } from "msedge-tts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { synthesizeWithEdgeTts } from "../../shared/providers/tts/edge-tts.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());

/** 121 words, 8 sentences: the length of a real voice-over. */
const NARRATION = [
  "Did you know the northern lights might be visible much farther south tonight?",
  "Here is what is going on: a strong burst of particles from the Sun is reaching Earth.",
  "When those particles hit the upper atmosphere, oxygen glows green and red, and nitrogen adds purple edges.",
  "Forecasters measure the storm on a scale from zero to nine, and tonight could reach seven.",
  "To see it, find a dark spot away from city lights and look north after ten o'clock.",
  "Give your eyes twenty minutes to adjust, because faint colours appear slowly.",
  "A phone camera with a long exposure often sees more than your eyes do.",
  "Follow for more sky tips, and tell me in the comments if you spot it.",
].join(" ");
const spokenWords = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""));

function ffprobe(file: string) {
  const out = spawnSync("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels:format=duration", "-of", "json", file]);
  return JSON.parse(out.stdout.toString()) as { streams: Array<{ codec_name: string; sample_rate: string; channels: number }>; format: { duration: string } };
}

/** Mean volume in dBFS of `file` between two times (ffmpeg volumedetect). */
function meanVolume(file: string, fromMs: number, toMs: number): number {
  const out = spawnSync("ffmpeg", [
    "-hide_banner",
    "-nostats",
    "-ss",
    (fromMs / 1000).toFixed(3),
    "-t",
    ((toMs - fromMs) / 1000).toFixed(3),
    "-i",
    file,
    "-af",
    "volumedetect",
    "-f",
    "null",
    "-",
  ]);
  const match = /mean_volume: (-?[\d.]+|-inf) dB/.exec(out.stderr.toString());
  if (!match) throw new Error(`no volume for ${fromMs}-${toMs}: ${out.stderr.toString().slice(-400)}`);
  return match[1] === "-inf" ? -120 : Number(match[1]);
}

test("a 121-word narration becomes decodable 24 kHz mono MP3 with one timing per word", async () => {
  const started = performance.now();
  const result = await synthesizeWithEdgeTts({ text: NARRATION, voice: "en-US-AriaNeural", rate: "+0%", wssUrl: emulator.wssUrl });
  const elapsed = Math.round(performance.now() - started);
  console.log(`edge-tts emulator: ${result.words.length} words, ${result.durationMs} ms of audio in ${elapsed} ms`);

  const file = path.join(emulator.dataDir, "narration.mp3");
  await writeFile(file, result.audio);
  const probe = ffprobe(file);
  expect(probe.streams[0]).toMatchObject({ codec_name: "mp3", sample_rate: "24000", channels: 1 });
  expect(result.format).toBe("audio-24khz-48kbitrate-mono-mp3");
  expect(Math.abs(Number(probe.format.duration) * 1000 - result.durationMs)).toBeLessThan(150);
  expect(result.durationMs).toBeGreaterThan(20_000);
  expect(result.durationMs).toBeLessThan(75_000);

  const expected = spokenWords(NARRATION);
  expect(result.words).toHaveLength(expected.length);
  expect(result.words.map((w) => w.text)).toEqual(expected);
  for (let i = 1; i < result.words.length; i++) {
    const previous = result.words[i - 1];
    expect(result.words[i].offset_ms).toBeGreaterThanOrEqual(previous.offset_ms + previous.duration_ms);
  }
  const last = result.words[result.words.length - 1];
  expect(last.offset_ms + last.duration_ms).toBeLessThanOrEqual(result.durationMs);

  // Speech where a word is said; near-silence in the pause after a sentence.
  for (const i of [0, 17, 40, 77, 110]) {
    const word = result.words[i];
    const volume = meanVolume(file, word.offset_ms + word.duration_ms * 0.2, word.offset_ms + word.duration_ms * 0.8);
    expect(volume).toBeGreaterThan(-35);
  }
  const sentenceEnds = NARRATION.split(/\s+/).map((w, i) => (/[.?!]$/.test(w) ? i : -1)).filter((i) => i >= 0 && i < expected.length - 1);
  for (const i of sentenceEnds.slice(0, 4)) {
    const [end, next] = [result.words[i], result.words[i + 1]];
    const gapVolume = meanVolume(file, end.offset_ms + end.duration_ms + 80, next.offset_ms - 80);
    const wordVolume = meanVolume(file, next.offset_ms + next.duration_ms * 0.2, next.offset_ms + next.duration_ms * 0.8);
    expect(gapVolume).toBeLessThan(wordVolume - 25);
  }
}, 120_000);

test("an Indonesian voice speaks Indonesian text with word timings", async () => {
  const text = "Gerhana bulan total bisa disaksikan dari seluruh Indonesia malam ini. Jangan lupa siapkan kamera!";
  const result = await synthesizeWithEdgeTts({ text, voice: "id-ID-GadisNeural", rate: "+0%", wssUrl: emulator.wssUrl });
  expect(result.words.map((w) => w.text)).toEqual(spokenWords(text));
  const file = path.join(emulator.dataDir, "id.mp3");
  await writeFile(file, result.audio);
  expect(ffprobe(file).streams[0].codec_name).toBe("mp3");
  expect(result.durationMs).toBeGreaterThan(2_000);
}, 60_000);

test("the prosody rate changes the speed of speech", async () => {
  const text = "Bees share the way to flowers with a dance that points toward the sun.";
  const fast = await synthesizeWithEdgeTts({ text, voice: "en-US-GuyNeural", rate: "+50%", wssUrl: emulator.wssUrl });
  const slow = await synthesizeWithEdgeTts({ text, voice: "en-US-GuyNeural", rate: "-25%", wssUrl: emulator.wssUrl });
  expect(fast.durationMs).toBeLessThan(slow.durationMs * 0.8);
}, 60_000);

test("XML special characters in the text are escaped and spoken", async () => {
  const text = 'Salt & pepper <really> matter in "simple" cooking, don\'t they?';
  const result = await synthesizeWithEdgeTts({ text, voice: "en-GB-SoniaNeural", rate: "+0%", wssUrl: emulator.wssUrl });
  expect(result.words.map((w) => w.text)).toEqual(["Salt", "pepper", "really", "matter", "in", "simple", "cooking", "don't", "they"]);
}, 60_000);

test("a socket closed before turn.end is a retriable truncated-stream error", async () => {
  await emulator.armFault({ service: "edge-tts", kind: "close_before_turn_end", count: 1 });
  const error = await synthesizeWithEdgeTts({ text: NARRATION, voice: "en-US-AriaNeural", rate: "+0%", wssUrl: emulator.wssUrl }).catch((e) => e);
  expect(error).toBeInstanceOf(ProviderUnavailableError);
  expect(error.message).toContain("turn.end");
}, 60_000);

test("an upgrade without Edge's trusted client token is refused (403) and not retried", async () => {
  const client = MsEdgeTTS as unknown as { TRUSTED_CLIENT_TOKEN: string };
  const original = client.TRUSTED_CLIENT_TOKEN;
  client.TRUSTED_CLIENT_TOKEN = "0000";
  try {
    const error = await synthesizeWithEdgeTts({ text: "Hello there.", voice: "en-US-AriaNeural", rate: "+0%", wssUrl: emulator.wssUrl }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error.status).toBe(403);
  } finally {
    client.TRUSTED_CLIENT_TOKEN = original;
  }
}, 60_000);

test("a voice the service does not have fails clearly", async () => {
  // espeak-ng has no Zulu voice, so the emulator has no zu-ZA voice to speak with.
  const error = await synthesizeWithEdgeTts({ text: "Sawubona mhlaba.", voice: "zu-ZA-ThandoNeural", rate: "+0%", wssUrl: emulator.wssUrl, timeoutMs: 20_000 })
    .catch((e) => e);
  expect(error).toBeInstanceOf(ProviderUnavailableError);
}, 60_000);
