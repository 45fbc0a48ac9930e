import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import path from "node:path";
import { ROOT, startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());

function runDeno(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, "node_modules/.bin/deno"), ["run", "-A", "--no-lock", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("synthesizeWithEdgeTts works under Deno, the Edge Functions runtime", async () => {
  const text = "Kopi susu gula aren tetap digemari anak muda. Rasanya manis, harganya terjangkau, dan mudah ditemukan di mana saja.";
  const expectedWords = text.split(/\s+/).length;
  const { code, stdout, stderr } = await runDeno(["tests/integration/fixtures/edge-tts-deno.ts", emulator.wssUrl, "id-ID-GadisNeural", text]);
  expect(stderr).not.toContain("error");
  expect(code).toBe(0);
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(result.runtime).toStartWith("deno ");
  expect(result.words).toBe(expectedWords);
  expect(result.first_word.text).toBe("Kopi");
  expect(result.format).toBe("audio-24khz-48kbitrate-mono-mp3");
  expect(result.duration_ms).toBeGreaterThan(3_000);
  expect(result.audio_bytes).toBeGreaterThan(10_000);
}, 120_000);
