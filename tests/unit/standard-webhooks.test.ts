import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  WEBHOOK_MAX_BODY_BYTES,
  WEBHOOK_TOLERANCE_S,
  webhookSecrets,
  WebhookVerificationError,
} from "../../shared/webhooks/standard-webhooks.ts";

const NOW = 1_800_000_000;
const BODY = JSON.stringify({ kind: "visual_generation.completed", scene_id: "7d1f", asset_key: "scenes/abc.mp4" });

function headersOf(values: Record<string, string>): Headers {
  return new Headers(values);
}

describe("Standard Webhooks v1", () => {
  test("the signature is base64 HMAC-SHA256 of id.timestamp.body under the decoded whsec_ key (spec example)", async () => {
    // The example delivery from the Standard Webhooks specification.
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = '{"test": 2432232314}';
    const headers = await signWebhook(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", body, 1614265330);
    expect(headers["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    expect(headers["webhook-timestamp"]).toBe("1614265330");
    expect(headers["webhook-id"]).toBe("msg_p5jXN8AQM9LWM0D4loKWxJek");
  });

  test("a fresh secret signs what an independent HMAC computes, and verifies", async () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = await signWebhook(secret, "evt_1", BODY, NOW);
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const expected = createHmac("sha256", key).update(`evt_1.${NOW}.${BODY}`).digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${expected}`);
    expect(await verifyWebhook(secret, headersOf({ ...headers }), BODY, NOW)).toEqual({ id: "evt_1", timestamp: NOW });
  });

  test("two secrets are never the same", () => {
    expect(generateWebhookSecret()).not.toBe(generateWebhookSecret());
  });

  test("a tampered body is refused", async () => {
    const secret = generateWebhookSecret();
    const headers = await signWebhook(secret, "evt_2", BODY, NOW);
    const tampered = BODY.replace("abc", "abd");
    await expect(verifyWebhook(secret, headersOf({ ...headers }), tampered, NOW)).rejects.toThrow(WebhookVerificationError);
  });

  test("a tampered id or timestamp is refused", async () => {
    const secret = generateWebhookSecret();
    const headers = await signWebhook(secret, "evt_3", BODY, NOW);
    await expect(verifyWebhook(secret, headersOf({ ...headers, "webhook-id": "evt_4" }), BODY, NOW)).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook(secret, headersOf({ ...headers, "webhook-timestamp": String(NOW + 1) }), BODY, NOW)).rejects.toThrow(WebhookVerificationError);
  });

  test("a delivery signed with another secret is refused", async () => {
    const headers = await signWebhook(generateWebhookSecret(), "evt_5", BODY, NOW);
    await expect(verifyWebhook(generateWebhookSecret(), headersOf({ ...headers }), BODY, NOW)).rejects.toThrow("no matching signature");
  });

  test("timestamps outside the 5-minute tolerance are refused, in the past and in the future", async () => {
    const secret = generateWebhookSecret();
    const old = await signWebhook(secret, "evt_6", BODY, NOW - WEBHOOK_TOLERANCE_S - 1);
    await expect(verifyWebhook(secret, headersOf({ ...old }), BODY, NOW)).rejects.toThrow("tolerance");
    const future = await signWebhook(secret, "evt_7", BODY, NOW + WEBHOOK_TOLERANCE_S + 1);
    await expect(verifyWebhook(secret, headersOf({ ...future }), BODY, NOW)).rejects.toThrow("tolerance");
    const edge = await signWebhook(secret, "evt_8", BODY, NOW - WEBHOOK_TOLERANCE_S);
    expect((await verifyWebhook(secret, headersOf({ ...edge }), BODY, NOW)).id).toBe("evt_8");
  });

  test("a non-integer timestamp is refused", async () => {
    const secret = generateWebhookSecret();
    const headers = await signWebhook(secret, "evt_9", BODY, NOW);
    await expect(verifyWebhook(secret, headersOf({ ...headers, "webhook-timestamp": "soon" }), BODY, NOW)).rejects.toThrow(WebhookVerificationError);
  });

  test("any one valid v1 signature among several is accepted (key rotation)", async () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const valid = (await signWebhook(current, "evt_10", BODY, NOW))["webhook-signature"];
    const stale = (await signWebhook(previous, "evt_10", BODY, NOW))["webhook-signature"];
    const headers = { "webhook-id": "evt_10", "webhook-timestamp": String(NOW), "webhook-signature": `${stale} ${valid}` };
    expect((await verifyWebhook(current, headersOf(headers), BODY, NOW)).id).toBe("evt_10");
    // Only the stale one: refused.
    await expect(verifyWebhook(current, headersOf({ ...headers, "webhook-signature": stale }), BODY, NOW)).rejects.toThrow(WebhookVerificationError);
  });

  test("a correct MAC under another version tag is not accepted", async () => {
    const secret = generateWebhookSecret();
    const headers = await signWebhook(secret, "evt_11", BODY, NOW);
    const v2 = headers["webhook-signature"].replace(/^v1,/, "v1a,");
    await expect(verifyWebhook(secret, headersOf({ ...headers, "webhook-signature": v2 }), BODY, NOW)).rejects.toThrow(WebhookVerificationError);
  });

  test.each(["webhook-id", "webhook-timestamp", "webhook-signature"])("a delivery without %s is refused", async (missing) => {
    const secret = generateWebhookSecret();
    const headers: Record<string, string> = { ...(await signWebhook(secret, "evt_12", BODY, NOW)) };
    delete headers[missing];
    await expect(verifyWebhook(secret, headersOf(headers), BODY, NOW)).rejects.toThrow("missing");
  });

  test("a body over the size limit is refused even when correctly signed; one at the limit passes", async () => {
    const secret = generateWebhookSecret();
    const atLimit = "x".repeat(WEBHOOK_MAX_BODY_BYTES);
    const ok = await signWebhook(secret, "evt_13", atLimit, NOW);
    expect((await verifyWebhook(secret, headersOf({ ...ok }), atLimit, NOW)).id).toBe("evt_13");
    const over = `${atLimit}x`;
    const signed = await signWebhook(secret, "evt_14", over, NOW);
    await expect(verifyWebhook(secret, headersOf({ ...signed }), over, NOW)).rejects.toThrow("too large");
  });

  test("the size limit counts UTF-8 bytes, not characters", async () => {
    const secret = generateWebhookSecret();
    // Two bytes per character: under the limit in characters, over it in bytes.
    const body = "é".repeat(WEBHOOK_MAX_BODY_BYTES / 2 + 1);
    expect(body.length).toBeLessThan(WEBHOOK_MAX_BODY_BYTES);
    const signed = await signWebhook(secret, "evt_15", body, NOW);
    await expect(verifyWebhook(secret, headersOf({ ...signed }), body, NOW)).rejects.toThrow("too large");
  });

  test("secrets without the whsec_ prefix or shorter than 24 bytes are rejected", async () => {
    await expect(signWebhook("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_16", BODY, NOW)).rejects.toThrow("whsec_");
    const short = `whsec_${Buffer.alloc(16, 1).toString("base64")}`;
    await expect(signWebhook(short, "evt_17", BODY, NOW)).rejects.toThrow("shorter than 24 bytes");
  });
});

describe("strict header and secret parsing", () => {
  test("a timestamp that is not plain digits is refused", async () => {
    const secret = generateWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    for (const ts of [`${now}.0`, ` ${now}`, "1e9", "0x10"]) {
      const headers = new Headers({ "webhook-id": "msg_1", "webhook-timestamp": ts, "webhook-signature": "v1,AAAA" });
      await expect(verifyWebhook(secret, headers, "{}", now)).rejects.toBeInstanceOf(WebhookVerificationError);
    }
  });

  test("a secret that is not base64 is a verification error, not a crash", async () => {
    await expect(signWebhook("whsec_***not base64***", "msg_1", "{}")).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});

describe("rotating the webhook secret", () => {
  test("the verifier holds the newest secret and the previous ones, newest first", () => {
    const [newest, old, older] = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()];
    expect(webhookSecrets({ WEBHOOK_SECRET: newest })).toEqual([newest]);
    expect(webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: ` ${old}, ${older} ` })).toEqual([newest, old, older]);
    expect(webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: `${old} ${older}` })).toEqual([newest, old, older]);
    expect(webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: "" })).toEqual([newest]);
  });

  test("a bad or repeated entry is named", () => {
    const [newest, old] = [generateWebhookSecret(), generateWebhookSecret()];
    expect(() => webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: `${old},MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw` }))
      .toThrow("WEBHOOK_SECRETS_PREVIOUS entry 2: webhook secret must start with whsec_");
    expect(() => webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: `whsec_${Buffer.alloc(8, 1).toString("base64")}` }))
      .toThrow("WEBHOOK_SECRETS_PREVIOUS entry 1: webhook secret is shorter than 24 bytes");
    expect(() => webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: newest })).toThrow(
      "WEBHOOK_SECRETS_PREVIOUS entry 1 repeats WEBHOOK_SECRET",
    );
    expect(() => webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: `${old} ${old}` })).toThrow(
      "WEBHOOK_SECRETS_PREVIOUS entry 2 repeats entry 1",
    );
    expect(() => webhookSecrets({ WEBHOOK_SECRET: "whsec_short" })).toThrow("WEBHOOK_SECRET: webhook secret");
  });

  test("during the overlap a delivery signed with either secret is accepted; after the old one is removed its deliveries are refused", async () => {
    const [newest, old] = [generateWebhookSecret(), generateWebhookSecret()];
    const overlap = webhookSecrets({ WEBHOOK_SECRET: newest, WEBHOOK_SECRETS_PREVIOUS: old });
    const fromNewWorker = await signWebhook(newest, "evt_r1", BODY, NOW);
    const fromOldWorker = await signWebhook(old, "evt_r2", BODY, NOW);
    expect((await verifyWebhook(overlap, headersOf({ ...fromNewWorker }), BODY, NOW)).id).toBe("evt_r1");
    expect((await verifyWebhook(overlap, headersOf({ ...fromOldWorker }), BODY, NOW)).id).toBe("evt_r2");
    const after = webhookSecrets({ WEBHOOK_SECRET: newest });
    expect((await verifyWebhook(after, headersOf({ ...fromNewWorker }), BODY, NOW)).id).toBe("evt_r1");
    await expect(verifyWebhook(after, headersOf({ ...fromOldWorker }), BODY, NOW)).rejects.toThrow("no matching signature for the accepted secret");
    // A secret nobody holds is refused during the overlap too.
    const stranger = await signWebhook(generateWebhookSecret(), "evt_r3", BODY, NOW);
    await expect(verifyWebhook(overlap, headersOf({ ...stranger }), BODY, NOW)).rejects.toThrow("no matching signature for any of the 2 accepted secrets");
  });

  test("several secrets keep the tolerance: an old secret's stale delivery is refused", async () => {
    const [newest, old] = [generateWebhookSecret(), generateWebhookSecret()];
    const stale = await signWebhook(old, "evt_r4", BODY, NOW - WEBHOOK_TOLERANCE_S - 1);
    await expect(verifyWebhook([newest, old], headersOf({ ...stale }), BODY, NOW)).rejects.toThrow("tolerance");
    await expect(verifyWebhook([], headersOf({ ...(await signWebhook(newest, "evt_r5", BODY, NOW)) }), BODY, NOW)).rejects.toThrow("no webhook secret");
  });
});
