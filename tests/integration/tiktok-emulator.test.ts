/**
 * The TikTok emulator over real HTTP, part 1: Login Kit OAuth v2 (desktop PKCE, refresh, revoke,
 * expiry on the emulator clock), creator_info for audited and unaudited clients, the admin routes,
 * and state surviving a restart. Posting and uploads: tiktok-emulator-posting.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { freePort, killProcess, spawnEmulatorProcess, startTestEmulator, tempDir } from "./fixtures/emulator-harness.ts";
import {
  advanceClock,
  authorizeUrl,
  CLIENT_KEY,
  connect,
  creatorInfo,
  fetchStatus,
  initVideo,
  pkce,
  REDIRECT_URI,
  setAudited,
  setSettings,
  tokenCall,
} from "./fixtures/tiktok-client.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let base: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  base = emulator.url;
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.reset(), 60_000);

async function consentCode(params: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const consent = await fetch(authorizeUrl(base, { code_challenge: challenge, login_hint: "sky-facts@example.invalid", ...params }), { redirect: "manual" });
  return { consent, verifier, challenge };
}

describe("Login Kit OAuth v2", () => {
  test("consents at once, redirecting with code, scopes and state; the code is redeemed once with the hex-S256 verifier", async () => {
    const { consent, verifier } = await consentCode({ state: "csrf-42" });
    expect(consent.status).toBe(302);
    const location = new URL(consent.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get("state")).toBe("csrf-42");
    expect(location.searchParams.get("scopes")).toBe("user.info.basic,video.publish,video.upload");
    const code = location.searchParams.get("code")!;
    expect(code.length).toBeGreaterThan(10);

    const wrongVerifier = await tokenCall(base, { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: pkce().verifier });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body).toMatchObject({ error: "invalid_request", error_description: "Code verifier or code challenge is invalid." });
    expect(typeof wrongVerifier.body.log_id).toBe("string");
    // The failed attempt used the code up, as TikTok's single-use codes are.
    const afterFailure = await tokenCall(base, { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect(afterFailure.status).toBe(400);
    expect(afterFailure.body.error).toBe("invalid_grant");

    const second = await consentCode();
    const code2 = new URL(second.consent.headers.get("location")!).searchParams.get("code")!;
    const ok = await tokenCall(base, { grant_type: "authorization_code", code: code2, redirect_uri: REDIRECT_URI, code_verifier: second.verifier });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ expires_in: 86400, scope: "user.info.basic,video.publish,video.upload", token_type: "Bearer" });
    expect(ok.body.refresh_expires_in).toBe(365 * 86400);
    expect(String(ok.body.access_token)).toStartWith("act.");
    expect(String(ok.body.refresh_token)).toStartWith("rft.");
    expect(String(ok.body.open_id).length).toBeGreaterThan(8);
    const reused = await tokenCall(base, { grant_type: "authorization_code", code: code2, redirect_uri: REDIRECT_URI, code_verifier: second.verifier });
    expect(reused.body.error).toBe("invalid_grant");
  });

  test("the consent page refuses a base64url challenge, a non-S256 method, a non-desktop redirect URI, an unknown scope", async () => {
    const { verifier } = pkce();
    const base64url = createHash("sha256").update(verifier).digest("base64url");
    const cases: Array<[Record<string, string>, string]> = [
      [{ code_challenge: base64url }, "code_challenge"],
      [{ code_challenge_method: "plain" }, "code_challenge_method"],
      [{ redirect_uri: "https://example.com/callback/" }, "redirect_uri"],
      [{ redirect_uri: "http://127.0.0.1/callback/" }, "redirect_uri"],
      [{ redirect_uri: "http://127.0.0.1:3455/callback/?x=1" }, "redirect_uri"],
      [{ scope: "video.publish,video.delete" }, "scope"],
      [{ scope: "" }, "scope"],
      [{ response_type: "token" }, "response_type"],
      [{ client_key: "" }, "client_key"],
    ];
    for (const [params, named] of cases) {
      const { consent } = await consentCode(params);
      expect(consent.status, JSON.stringify(params)).toBe(400);
      expect(consent.headers.get("location")).toBeNull();
      expect(await consent.text()).toContain(`<b>${named}</b>`);
    }
  });

  test("the code is redeemed only by its client, with its redirect URI and a client secret", async () => {
    const a = await consentCode();
    const codeA = new URL(a.consent.headers.get("location")!).searchParams.get("code")!;
    const otherRedirect = await tokenCall(base, {
      grant_type: "authorization_code",
      code: codeA,
      redirect_uri: "http://127.0.0.1:9999/callback/",
      code_verifier: a.verifier,
    });
    expect(otherRedirect.body.error).toBe("invalid_grant");
    const b = await consentCode();
    const codeB = new URL(b.consent.headers.get("location")!).searchParams.get("code")!;
    const otherClient = await tokenCall(base, {
      client_key: "another-client",
      grant_type: "authorization_code",
      code: codeB,
      redirect_uri: REDIRECT_URI,
      code_verifier: b.verifier,
    });
    expect(otherClient.body.error).toBe("invalid_grant");
    const noSecret = await tokenCall(base, {
      client_secret: "",
      grant_type: "authorization_code",
      code: "x",
      redirect_uri: REDIRECT_URI,
      code_verifier: b.verifier,
    });
    expect(noSecret.status).toBe(401);
    expect(noSecret.body.error).toBe("invalid_client");
    const badGrant = await tokenCall(base, { grant_type: "password" });
    expect(badGrant.body.error).toBe("unsupported_grant_type");
  });

  test("access tokens expire after 24 hours on the emulator clock; the refresh token issues new ones until 365 days", async () => {
    const first = await connect(base);
    expect((await creatorInfo(base, first.access_token)).status).toBe(200);
    await advanceClock(base, 86_400_000 + 1000);
    const expired = await creatorInfo(base, first.access_token);
    expect(expired.status).toBe(401);
    expect(expired.error.code).toBe("access_token_invalid");

    const refreshed = await tokenCall(base, { grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    expect(refreshed.body.refresh_token).toBe(first.refresh_token);
    expect(refreshed.body.open_id).toBe(first.open_id);
    expect(refreshed.body.expires_in).toBe(86400);
    expect(Number(refreshed.body.refresh_expires_in)).toBeLessThan(365 * 86400 - 86400 + 10);
    expect((await creatorInfo(base, String(refreshed.body.access_token))).status).toBe(200);

    const otherClient = await tokenCall(base, { client_key: "another-client", grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(otherClient.body.error).toBe("invalid_grant");
    const unknown = await tokenCall(base, { grant_type: "refresh_token", refresh_token: "rft.not-issued" });
    expect(unknown.body.error).toBe("invalid_grant");

    await advanceClock(base, 364 * 86_400_000);
    const late = await tokenCall(base, { grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(late.status).toBe(400);
    expect(late.body.error).toBe("invalid_grant");
  });

  test("revoking through /v2/oauth/revoke/ kills the access tokens and refuses the refresh token until a new consent", async () => {
    const first = await connect(base);
    const revoked = await tokenCall(base, { token: first.access_token }, "/v2/oauth/revoke/");
    expect(revoked.status).toBe(200);
    expect((await creatorInfo(base, first.access_token)).error.code).toBe("access_token_invalid");
    const refresh = await tokenCall(base, { grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe("invalid_grant");
    const again = await tokenCall(base, { token: first.access_token }, "/v2/oauth/revoke/");
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_request");

    const listed = await (await fetch(`${base}/_emulator/tiktok/revocations`)).json() as { revoked: Array<{ user: string; client_key: string }> };
    expect(listed.revoked).toEqual([expect.objectContaining({ user: "sky-facts", client_key: CLIENT_KEY })]);

    const reconnected = await connect(base);
    expect(reconnected.refresh_token).not.toBe(first.refresh_token);
    expect(reconnected.open_id).toBe(first.open_id);
    expect((await tokenCall(base, { grant_type: "refresh_token", refresh_token: reconnected.refresh_token })).status).toBe(200);
    expect((await (await fetch(`${base}/_emulator/tiktok/revocations`)).json() as { revoked: unknown[] }).revoked).toEqual([]);
  });

  test("the revocation admin route revokes a user's grant by client and user, or by refresh token", async () => {
    const grant = await connect(base, "tech-daily");
    const response = await fetch(`${base}/_emulator/tiktok/revocations`, {
      method: "POST",
      body: JSON.stringify({ client_key: CLIENT_KEY, user: "tech-daily" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ user: "tech-daily", refresh_token: grant.refresh_token, access_tokens_revoked: 1 });
    expect((await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token })).body.error).toBe("invalid_grant");
    expect((await creatorInfo(base, grant.access_token)).status).toBe(401);

    const missing = await fetch(`${base}/_emulator/tiktok/revocations`, { method: "POST", body: JSON.stringify({ refresh_token: "rft.nobody" }) });
    expect(missing.status).toBe(404);
    const malformed = await fetch(`${base}/_emulator/tiktok/revocations`, { method: "POST", body: JSON.stringify({ user: "tech-daily" }) });
    expect(malformed.status).toBe(400);
  });

  test("an armed invalid_grant fault refuses the next refresh only", async () => {
    const grant = await connect(base);
    await emulator.armFault({ service: "tiktok", kind: "invalid_grant" });
    expect((await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token })).body.error).toBe("invalid_grant");
    expect((await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token })).status).toBe(200);
  });

  test("with rotate_refresh_tokens each refresh answers a new refresh token and refuses the old one; issued access tokens live on", async () => {
    const grant = await connect(base);
    expect((await setSettings(base, { rotate_refresh_tokens: true })).status).toBe(200);
    const first = await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token });
    expect(first.status).toBe(200);
    const rotated = String(first.body.refresh_token);
    expect(rotated).not.toBe(grant.refresh_token);
    expect((await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token })).body.error).toBe("invalid_grant");
    // The consent's access token still works; the rotated refresh token refreshes (and rotates again).
    expect((await creatorInfo(base, grant.access_token)).status).toBe(200);
    const second = await tokenCall(base, { grant_type: "refresh_token", refresh_token: rotated });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(rotated);
    expect((await setSettings(base, { rotate_refresh_tokens: "yes" })).status).toBe(400);
  });
});

describe("creator_info", () => {
  test("an unaudited client (the default) is offered only SELF_ONLY; an audited one the public account's options", async () => {
    const grant = await connect(base, "aurora-lab");
    const unaudited = await creatorInfo(base, grant.access_token);
    expect(unaudited.status).toBe(200);
    expect(unaudited.error.code).toBe("ok");
    expect(unaudited.data.privacy_level_options).toEqual(["SELF_ONLY"]);
    expect(unaudited.data.creator_username).toBe("aurora-lab");
    expect(unaudited.data).toMatchObject({ comment_disabled: false, duet_disabled: false, stitch_disabled: false });
    expect(unaudited.data.max_video_post_duration_sec).toBeGreaterThan(0);

    const marked = await setAudited(base, true);
    expect(await marked.json()).toMatchObject({ client_key: CLIENT_KEY, audited: true });
    const audited = await creatorInfo(base, grant.access_token);
    expect(audited.data.privacy_level_options).toEqual(["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"]);
    // Audit is per client key: another client stays unaudited.
    const other = await connect(base, "aurora-lab", { clientKey: "other-client" });
    expect((await creatorInfo(base, other.access_token)).data.privacy_level_options).toEqual(["SELF_ONLY"]);

    expect((await setAudited(base, "yes" as unknown as boolean)).status).toBe(400);
  });

  test("needs a bearer token of the emulator and the video.publish scope", async () => {
    const none = await fetch(`${base}/v2/post/publish/creator_info/query/`, { method: "POST" });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("access_token_invalid");
    const basic = await connect(base, "sky-facts", { scope: "user.info.basic" });
    const refused = await creatorInfo(base, basic.access_token);
    expect(refused.status).toBe(401);
    expect(refused.error.code).toBe("scope_not_authorized");
  });

  test("20 calls a minute per access token, then 429 rate_limit_exceeded until the minute passes", async () => {
    const grant = await connect(base);
    for (let i = 0; i < 20; i += 1) expect((await creatorInfo(base, grant.access_token)).status).toBe(200);
    const limited = await creatorInfo(base, grant.access_token);
    expect(limited.status).toBe(429);
    expect(limited.error.code).toBe("rate_limit_exceeded");
    await advanceClock(base, 61_000);
    expect((await creatorInfo(base, grant.access_token)).status).toBe(200);
  });
});

describe("admin and persistence", () => {
  test("POST /_emulator/reset forgets grants, audits and publishes", async () => {
    const grant = await connect(base);
    await setAudited(base, true);
    const init = await initVideo(base, grant.access_token, { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 });
    expect(init.status).toBe(200);
    await emulator.reset();
    expect((await creatorInfo(base, grant.access_token)).status).toBe(401);
    expect((await tokenCall(base, { grant_type: "refresh_token", refresh_token: grant.refresh_token })).body.error).toBe("invalid_grant");
    expect(await (await fetch(`${base}/_emulator/tiktok/publishes`)).json()).toEqual([]);
    const fresh = await connect(base);
    expect((await creatorInfo(base, fresh.access_token)).data.privacy_level_options).toEqual(["SELF_ONLY"]);
  });

  test("grants, tokens, audits and publishes in flight survive a killed and restarted emulator process", async () => {
    const dataDir = await tempDir("tiktok-restart");
    const port = await freePort();
    let running = await spawnEmulatorProcess(port, dataDir);
    try {
      const grant = await connect(running.url);
      await setAudited(running.url, true);
      const init = await initVideo(running.url, grant.access_token, { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 });
      expect(init.status).toBe(200);
      await killProcess(running.child);
      running = await spawnEmulatorProcess(port, dataDir);
      expect((await creatorInfo(running.url, grant.access_token)).data.privacy_level_options).toContain("PUBLIC_TO_EVERYONE");
      const status = await fetchStatus(running.url, grant.access_token, init.data.publish_id);
      expect(status.data).toMatchObject({ status: "PROCESSING_UPLOAD", uploaded_bytes: 0 });
      expect((await tokenCall(running.url, { grant_type: "refresh_token", refresh_token: grant.refresh_token })).status).toBe(200);
    } finally {
      await killProcess(running.child);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
