/**
 * Log lines never carry a credential: pino's key-path redaction plus value scrubbing of every string
 * (message, fields, child bindings, error messages and stacks), and harmless text stays as written.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createLogger } from "../../shared/logging/logger.ts";
import { clearRegisteredSecrets, REDACTED, registerSecrets, scrubText, secretValuesOf } from "../../shared/logging/scrub.ts";

afterEach(() => clearRegisteredSecrets());

function capture(secrets: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger("test", { write: (line: string) => void lines.push(line) }, "debug", secrets);
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIiwiaXNzIjoic3VwYWJhc2UifQ.c2lnbmF0dXJlLWJ5dGVzLWhlcmU";
const TELEGRAM = "7123456789:AAHk3Lq_9zXvP0cR-5mT2bWnYe8sJdFgU4o";

describe("scrubText replaces each kind of credential", () => {
  const cases: [string, string, string][] = [
    ["a Bearer token", "authorization: Bearer 3f9a0c1d2e4b5a6978c0d1e2f3a4b5c6", "3f9a0c1d2e4b5a6978c0d1e2f3a4b5c6"],
    ["a Google access token", "got ya29.a0AfB_byC1xYz-Q2w3E4r5T6y7U8i9O0p from Google", "ya29.a0AfB_byC1xYz-Q2w3E4r5T6y7U8i9O0p"],
    ["a Google refresh token", "refresh with 1//0gAbCdEfGhIjKlMnOpQrStUvWxYz-0123456789", "1//0gAbCdEfGhIjKlMnOpQrStUvWxYz-0123456789"],
    ["the emulator's refresh token", "token emulator-refresh-tech-daily-demo revoked", "emulator-refresh-tech-daily-demo"],
    ["a JWT (a service role key)", `key ${JWT} rejected`, JWT],
    ["a Supabase secret key", "using sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz for storage", "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"],
    ["a Standard Webhooks secret", "secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw= in use", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw="],
    ["a Telegram bot token", `bot token ${TELEGRAM} configured`, TELEGRAM],
    ["a Telegram bot token in a URL", `POST https://api.telegram.org/bot${TELEGRAM}/sendMessage failed`, TELEGRAM],
    ["client_secret in a form body", "grant_type=refresh_token&client_id=app&client_secret=GOCSPX-abc123def456", "GOCSPX-abc123def456"],
    ["access_token in a query string", "GET /v1/me?fields=id&access_token=act.9f8e7d6c5b4a", "act.9f8e7d6c5b4a"],
    ["refresh_token in a form body", "refresh_token=rft.0123456789abcdef&grant_type=refresh_token", "rft.0123456789abcdef"],
    ["an authorization code in a redirect", "redirected to http://127.0.0.1:8765/callback?code=4/emulator-Zx9Yw8&state=s1", "4/emulator-Zx9Yw8"],
    [
      "an API key in a query string",
      "POST /v1beta/models/gemini:generateContent?key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",
      "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",
    ],
    ["a token in quoted JSON text", `body {"refresh_token":"opaque-0123456789","scope":"x"}`, "opaque-0123456789"],
  ];
  for (const [what, text, secret] of cases) {
    test(what, () => {
      const out = scrubText(text);
      expect(out).not.toContain(secret);
      expect(out).toContain(REDACTED);
    });
  }

  test("a registered secret value of any shape", () => {
    const hex = "4be3c2d1a0f9e8d7c6b5a4938271605f4be3c2d1a0f9e8d7c6b5a4938271605f";
    registerSecrets([hex]);
    expect(scrubText(`key=${hex}`)).not.toContain(hex);
    expect(scrubText(`the key ${hex}.`)).toBe(`the key ${REDACTED}.`);
  });
});

describe("scrubText keeps harmless text", () => {
  const harmless = [
    "run 0b7c6a9e-1f2d-4c3b-8a59-6e7d8c9b0a1f published to youtube as dQw4w9WgXcQ",
    "render started: 7 scenes, 42 cues, total_ms=31500",
    "worker exited (code 1) after 12.3 s; restart #2 in 0.5 s",
    "edge host listening on http://127.0.0.1:54321/functions/v1",
    "stage script for unit 5c0f... step_token=st_0001 attempt 2",
    "Basic authentication is not used; Bearer tokens are",
    "scenes/5c0f/3.png cached at 12:34:56",
    "retry at 2026-12-02T04:34:18.123Z in 1//2 of the interval",
    "dimension tech-explained, language en-US, voice en-US-AriaNeural",
  ];
  for (const text of harmless) test(JSON.stringify(text), () => expect(scrubText(text)).toBe(text));
});

describe("secretValuesOf the environment", () => {
  test("takes keys, secrets, tokens and rings; leaves client ids, URLs and names", () => {
    const values = secretValuesOf({
      SERVICE_ROLE_KEY: "a".repeat(64),
      CREDENTIALS_KEYS_PREVIOUS: "k1:bbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccc",
      TELEGRAM_BOT_TOKEN: TELEGRAM,
      GOOGLE_OAUTH_CLIENT_SECRET: "dddddddddddddddd",
      GOOGLE_OAUTH_CLIENT_ID: "mdame-local.apps.googleusercontent.com",
      TIKTOK_CLIENT_KEY: "local-tiktok-client",
      SUPABASE_URL: "http://127.0.0.1:54321",
      SHORT_KEY: "abc",
    });
    expect(values.sort()).toEqual(["a".repeat(64), "cccccccccccccccccccc", "dddddddddddddddd", "k1:bbbbbbbbbbbbbbbbbbbb", TELEGRAM].sort());
  });
});

describe("createLogger", () => {
  test("redacts secret keys, scrubs message, fields, bindings and errors, keeps the rest", () => {
    const secret = "f00dfeedf00dfeedf00dfeedf00dfeed";
    const { logger, lines, parsed } = capture([secret]);
    const child = logger.child({
      execution_id: "run-1",
      dimension_id: "tech-explained",
      stage: "publish",
      url: `https://api.telegram.org/bot${TELEGRAM}/getMe`,
    });
    child.info({
      token: "t0k3n-value",
      bot_token: TELEGRAM,
      id_token: JWT,
      apikey: "k-123",
      key: "k-456",
      headers: { authorization: `Bearer ${secret}` },
      status: "succeeded",
    }, `uploaded with Bearer ${secret}`);
    const error = new Error(`token endpoint said: refresh_token=${"r".repeat(20)}&client_secret=${secret}`);
    child.error({ err: error, status: "failed" }, "publish failed");
    child.warn(new Error(`upstream answered for ya29.${"x".repeat(40)}`));
    child.info("formatted %s", `access_token=${"q".repeat(24)}`);

    const text = lines.join("");
    for (const leaked of [secret, TELEGRAM, JWT, "t0k3n-value", "k-123", "k-456", "r".repeat(20), "x".repeat(40), "q".repeat(24)]) {
      expect(text).not.toContain(leaked);
    }
    const [first, second, third, fourth] = parsed();
    expect(first).toMatchObject({
      component: "test",
      execution_id: "run-1",
      dimension_id: "tech-explained",
      stage: "publish",
      status: "succeeded",
      msg: `uploaded with Bearer ${REDACTED}`,
    });
    expect(first!.url).toBe(`https://api.telegram.org/bot${REDACTED}/getMe`);
    expect(second).toMatchObject({ status: "failed", msg: "publish failed" });
    const err = second!.err as { type: string; message: string; stack: string };
    expect(err.type).toBe("Error");
    expect(err.message).toBe(`token endpoint said: refresh_token=${REDACTED}&client_secret=${REDACTED}`);
    expect(err.stack).toContain("token endpoint said");
    expect(err.stack).toContain("log-redaction.test.ts");
    expect(third!.msg).toBe(`upstream answered for ${REDACTED}`);
    expect(fourth!.msg).toBe(`formatted access_token=${REDACTED}`);
  });

  test("a line without secrets is written as logged", () => {
    const { logger, parsed } = capture(["0123456789abcdef0123"]);
    logger.info({ execution_id: "r", unit_id: "u", video_key: "renders/u.mp4", scenes: 7, nested: { list: ["a", 1, null] } }, "render stored");
    expect(parsed()[0]).toMatchObject({
      execution_id: "r",
      unit_id: "u",
      video_key: "renders/u.mp4",
      scenes: 7,
      nested: { list: ["a", 1, null] },
      msg: "render stored",
    });
  });
});
