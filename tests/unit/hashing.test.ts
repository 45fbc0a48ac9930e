import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { canonicalJson, dimensionConfigHash, llmCallKey, runKey, sceneHash, sha256Hex, topicFingerprint, voiceKey, workUnitKey } from "../../shared/hashing.ts";

const nodeSha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("sha256Hex", () => {
  test("matches the FIPS 180-2 example and node:crypto, for strings and bytes", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex("scène ✓")).toBe(nodeSha256("scène ✓"));
    expect(await sha256Hex(new TextEncoder().encode("abc"))).toBe(await sha256Hex("abc"));
  });
});

describe("canonicalJson", () => {
  test("the same value with keys in any order gives the same text, at every depth", () => {
    const a = { b: 1, a: { d: [1, { y: 2, x: 1 }], c: "z" } };
    const b = { a: { c: "z", d: [1, { x: 1, y: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"c":"z","d":[1,{"x":1,"y":2}]},"b":1}');
  });

  test("array order is significant", () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  test("undefined members are dropped, null members are kept", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: 1, b: null })).not.toBe(canonicalJson({ a: 1 }));
  });

  test("different values give different text", () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: "1" }));
    expect(canonicalJson({ a: { b: 1 } })).not.toBe(canonicalJson({ a: { b: 2 } }));
  });
});

describe("idempotency keys", () => {
  test("run key is sha256 of env:utc date:trigger kind:the configurations it starts", async () => {
    const configs = { "tech-explained": "a".repeat(64), "sains-singkat": "b".repeat(64) };
    expect(await runKey("dev", "2026-11-29", "cron", configs))
      .toBe(nodeSha256(`dev:2026-11-29:cron:{"sains-singkat":"${"b".repeat(64)}","tech-explained":"${"a".repeat(64)}"}`));
    expect(await runKey("dev", "2026-11-29", "cron", configs)).not.toBe(await runKey("prod", "2026-11-29", "cron", configs));
    expect(await runKey("dev", "2026-11-29", "cron", configs)).not.toBe(await runKey("dev", "2026-11-30", "cron", configs));
    expect(await runKey("dev", "2026-11-29", "cron", configs)).not.toBe(await runKey("dev", "2026-11-29", "manual", configs));
    expect(await runKey("dev", "2026-11-29", "cron", configs))
      .not.toBe(await runKey("dev", "2026-11-29", "cron", { ...configs, "sains-singkat": "c".repeat(64) }));
  });

  test("a configuration hash is sha256 of its canonical JSON, the text mdame.config_hash hashes", async () => {
    const config = { language: "ru-RU", id: "nauka", style: { palette: ["#000000"], motion: "drift" } };
    // supabase/tests/database/canonical_json/sorts_keys_at_every_depth.test.sql hashes the same text in SQL.
    expect(await dimensionConfigHash(config))
      .toBe(nodeSha256('{"id":"nauka","language":"ru-RU","style":{"motion":"drift","palette":["#000000"]}}'));
  });

  test("work unit key is sha256 of dimension:fingerprint:stage", async () => {
    expect(await workUnitKey("tech-explained", "f00d", "script")).toBe(nodeSha256("tech-explained:f00d:script"));
    expect(await workUnitKey("tech-explained", "f00d", "script")).not.toBe(await workUnitKey("tech-explained", "f00d", "voice"));
  });

  test("voice and LLM call keys change with each input and ignore key order", async () => {
    const base = await voiceKey("Hello there", "en-US-AriaNeural", "edge", "+0%");
    expect(await voiceKey("Hello there", "en-US-AriaNeural", "edge", "+0%")).toBe(base);
    for (
      const other of [
        await voiceKey("Hello there!", "en-US-AriaNeural", "edge", "+0%"),
        await voiceKey("Hello there", "en-US-GuyNeural", "edge", "+0%"),
        await voiceKey("Hello there", "en-US-AriaNeural", "gemini", "+0%"),
        await voiceKey("Hello there", "en-US-AriaNeural", "edge", "+10%"),
      ]
    ) expect(other).not.toBe(base);

    const llm = await llmCallKey("gemini-2.5-flash", { system: "s", user: "u" }, { temperature: 0.7, topP: 0.9 });
    expect(await llmCallKey("gemini-2.5-flash", { user: "u", system: "s" }, { topP: 0.9, temperature: 0.7 })).toBe(llm);
    expect(await llmCallKey("gemini-2.5-pro", { system: "s", user: "u" }, { temperature: 0.7, topP: 0.9 })).not.toBe(llm);
    expect(await llmCallKey("gemini-2.5-flash", { system: "s", user: "u2" }, { temperature: 0.7, topP: 0.9 })).not.toBe(llm);
    expect(await llmCallKey("gemini-2.5-flash", { system: "s", user: "u" }, { temperature: 0.9, topP: 0.9 })).not.toBe(llm);
  });
});

describe("sceneHash", () => {
  const style = { palette: ["#0b132b", "#5bc0be"], motion: "drift" };
  const args = ["a lighthouse at dusk", style, "tech-explained", "procedural-ffmpeg@1"] as const;

  test("is a stable 64-hex digest, independent of the style's key order", async () => {
    const hash = await sceneHash(...args);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await sceneHash(args[0], { motion: "drift", palette: ["#0b132b", "#5bc0be"] }, args[2], args[3])).toBe(hash);
  });

  test("changes with the prompt, the style, the dimension and the backend version", async () => {
    const hash = await sceneHash(...args);
    const variants = [
      await sceneHash("a lighthouse at dawn", style, args[2], args[3]),
      await sceneHash(args[0], { ...style, motion: "pulse" }, args[2], args[3]),
      await sceneHash(args[0], { ...style, palette: ["#5bc0be", "#0b132b"] }, args[2], args[3]),
      await sceneHash(args[0], style, "sains-singkat", args[3]),
      await sceneHash(args[0], style, args[2], "procedural-ffmpeg@2"),
    ];
    for (const variant of variants) expect(variant).not.toBe(hash);
    expect(new Set(variants).size).toBe(variants.length);
  });

  test("fields cannot bleed into one another (no plain concatenation)", async () => {
    expect(await sceneHash("ab", style, "c", "v1")).not.toBe(await sceneHash("a", style, "bc", "v1"));
  });
});

describe("topicFingerprint", () => {
  test("ignores case, punctuation and spacing", async () => {
    const fp = await topicFingerprint("Apple unveils M5 chip");
    expect(await topicFingerprint("  APPLE unveils: M5 chip!! ")).toBe(fp);
    expect(await topicFingerprint("apple-unveils_m5...chip")).toBe(fp);
  });

  test("the same title in composed and decomposed Unicode, or in full-width letters, is one fingerprint", async () => {
    expect(await topicFingerprint("Caf\u00e9 prices soar")).toBe(await topicFingerprint("Cafe\u0301 prices soar"));
    expect(await topicFingerprint("ＡＩ chips")).toBe(await topicFingerprint("ai chips"));
  });

  test("keeps letters of any script and digits apart from one another", async () => {
    expect(await topicFingerprint("Harga beras naik")).not.toBe(await topicFingerprint("Harga beras turun"));
    expect(await topicFingerprint("iPhone 17")).not.toBe(await topicFingerprint("iPhone 16"));
    expect(await topicFingerprint("東京 オリンピック")).not.toBe(await topicFingerprint("大阪 オリンピック"));
  });

  test("is the sha256 of the normalised title", async () => {
    expect(await topicFingerprint("Hello, World!")).toBe(nodeSha256("hello world"));
  });
});

describe("normalisation edge cases", () => {
  test("accented and plain spellings of a title are one fingerprint", async () => {
    expect(await topicFingerprint("Pokémon GO update")).toBe(await topicFingerprint("pokemon go update"));
  });

  test("values with toJSON (dates) hash by what they serialise to", () => {
    const a = canonicalJson({ at: new Date("2026-01-01T00:00:00Z") });
    const b = canonicalJson({ at: new Date("2026-01-02T00:00:00Z") });
    expect(a).toBe('{"at":"2026-01-01T00:00:00.000Z"}');
    expect(a).not.toBe(b);
  });
});
