/**
 * The Meta emulator over real HTTP, login and tokens: the Facebook Login dialog (consent, cancel,
 * its error pages, Login for Business configurations, PKCE), the code exchange and its refusals,
 * long-lived tokens, /me/accounts with Page tokens and Instagram accounts, debug_token, expiry on
 * the emulator clock, revocation (admin and /me/permissions), Graph's generic errors, the token
 * and rate-limit faults, the admin routes' validation, reset and a restarted emulator process.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { freePort, IT_META_APP, killProcess, spawnEmulatorProcess, startTestEmulator, tempDir } from "./fixtures/emulator-harness.ts";
import {
  admin,
  advanceClock,
  APP_ID,
  APP_SECRET,
  connect,
  consentCode,
  dialogUrl,
  exchangeCode,
  graph,
  type GraphErrorBody,
  longLived,
  mp4,
  REDIRECT_URI,
  registerApp,
  rupload,
  sha256,
} from "./fixtures/meta-client.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let base: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  base = emulator.url;
});
afterAll(() => emulator.stop());
beforeEach(async () => {
  await emulator.reset();
  await registerApp(base);
}, 60_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const error = (body: unknown) => (body as GraphErrorBody).error;

describe("the login dialog", () => {
  test("consents at once: 302 to redirect_uri with code and state (and Facebook's #_=_); the user gets a Page and an Instagram account", async () => {
    const consent = await fetch(dialogUrl(base, { login_hint: "aurora-lab@example.invalid", state: "csrf-7" }), { redirect: "manual" });
    expect(consent.status).toBe(302);
    const location = new URL(consent.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get("state")).toBe("csrf-7");
    expect(location.hash).toBe("#_=_");
    expect(location.searchParams.get("code")!.length).toBeGreaterThan(20);
    const users = (await admin(base, "GET", "users")).body;
    expect(users).toEqual([
      expect.objectContaining({
        login: "aurora-lab",
        name: "Aurora Lab",
        pages: [expect.objectContaining({ name: "Aurora Lab", instagram_business_account: expect.objectContaining({ username: "aurora_lab" }) })],
      }),
    ]);
  });

  test("a user who cancels is sent back with error=access_denied and error_reason=user_denied", async () => {
    const consent = await fetch(dialogUrl(base, { emulator_consent: "deny" }), { redirect: "manual" });
    const location = new URL(consent.headers.get("location")!);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: "access_denied",
      error_code: "200",
      error_description: "Permissions error",
      error_reason: "user_denied",
      state: "st-9",
    });
  });

  test("an unregistered app, a redirect URI not allowed, an unknown permission or configuration get an error page and no redirect", async () => {
    await registerApp(base, { redirect_uris: [REDIRECT_URI], configs: { "987654321": ["instagram_basic", "pages_show_list"] } });
    const cases: Array<[Record<string, string>, string]> = [
      [{ client_id: "999" }, "Invalid App ID"],
      [{ redirect_uri: "http://127.0.0.1:9999/elsewhere" }, "URL blocked"],
      [{ redirect_uri: "javascript:alert(1)" }, "URL blocked"],
      [{ scope: "instagram_basic,publish_to_everyone" }, "Invalid Scopes: publish_to_everyone"],
      [{ scope: "", config_id: "123" }, "Invalid configuration"],
      [{ response_type: "token" }, "Unsupported response_type"],
      [{ code_challenge: "short", code_challenge_method: "S256" }, "Invalid code_challenge"],
    ];
    for (const [params, text] of cases) {
      const page = await fetch(dialogUrl(base, params), { redirect: "manual" });
      expect(page.status, JSON.stringify(params)).toBe(400);
      expect(page.headers.get("location")).toBeNull();
      expect(await page.text(), JSON.stringify(params)).toContain(text);
    }
    // A Login for Business configuration grants its permissions.
    const code = await consentCode(base, { scope: "", config_id: "987654321" });
    const token = (await exchangeCode(base, code)).body.access_token;
    const permissions = await graph(base, "GET", "me/permissions", {}, token);
    expect(permissions.body.data.map((p: { permission: string }) => p.permission).sort()).toEqual(["instagram_basic", "pages_show_list", "public_profile"]);
  });
});

describe("tokens", () => {
  test("the code is exchanged once for a short-lived token; refusals name the client, the secret, the redirect and the code", async () => {
    const code = await consentCode(base);
    expect(error((await graph(base, "GET", "oauth/access_token", { client_secret: APP_SECRET, redirect_uri: REDIRECT_URI, code })).body)).toMatchObject({
      code: 101,
    });
    expect(error((await exchangeCode(base, code, { client_id: "42" })).body)).toMatchObject({ code: 101 });
    expect(error((await exchangeCode(base, code, { client_secret: "wrong" })).body)).toMatchObject({ code: 1, message: "Error validating client secret." });
    const wrongRedirect = await exchangeCode(base, code, { redirect_uri: "http://127.0.0.1:3456/other" });
    expect(error(wrongRedirect.body)).toMatchObject({ code: 100, error_subcode: 36008 });
    // The failed redemption used the code up.
    expect(error((await exchangeCode(base, code)).body)).toMatchObject({ code: 100, error_subcode: 36009 });
    expect(error((await exchangeCode(base, "AQnever-issued")).body)).toMatchObject({ code: 100, message: "Invalid verification code format." });

    const fresh = await exchangeCode(base, await consentCode(base));
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ token_type: "bearer", expires_in: 3600 });
    expect(fresh.body.access_token).toStartWith("EAA");

    const stale = await consentCode(base);
    await advanceClock(base, 10 * 60_000 + 1000);
    expect(error((await exchangeCode(base, stale)).body)).toMatchObject({ code: 100, error_subcode: 36007 });
  });

  test("PKCE: a dialog with a code_challenge needs its code_verifier at the exchange", async () => {
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const without = await consentCode(base, { code_challenge: challenge, code_challenge_method: "S256" });
    expect(error((await exchangeCode(base, without)).body).code).toBe(100);
    const wrong = await consentCode(base, { code_challenge: challenge, code_challenge_method: "S256" });
    expect(error((await exchangeCode(base, wrong, { code_verifier: randomBytes(32).toString("base64url") })).body).code).toBe(100);
    const right = await consentCode(base, { code_challenge: challenge, code_challenge_method: "S256" });
    expect((await exchangeCode(base, right, { code_verifier: verifier })).status).toBe(200);
  });

  test("short-lived tokens expire after an hour on the emulator clock (190/463); long-lived ones after about 60 days", async () => {
    const short = (await exchangeCode(base, await consentCode(base))).body.access_token;
    const long = await longLived(base, short);
    expect(long.body).toMatchObject({ token_type: "bearer", expires_in: 60 * 86400 });
    expect((await graph(base, "GET", "me", {}, short)).body).toMatchObject({ name: "Emulator User" });
    await advanceClock(base, HOUR + 1000);
    const expired = await graph(base, "GET", "me", {}, short);
    expect(expired.status).toBe(400);
    expect(error(expired.body)).toMatchObject({ code: 190, error_subcode: 463, type: "OAuthException" });
    expect(error(expired.body).message).toStartWith("Error validating access token: Session has expired on");
    expect(expired.headers.get("www-authenticate")).toContain("invalid_token");
    expect(error((await longLived(base, short)).body)).toMatchObject({ code: 190, error_subcode: 463 });
    expect((await graph(base, "GET", "me", {}, long.body.access_token, { auth: "header" })).status).toBe(200);
    await advanceClock(base, 60 * DAY);
    expect(error((await graph(base, "GET", "me", {}, long.body.access_token)).body)).toMatchObject({ code: 190, error_subcode: 463 });
  });

  test("/me/accounts lists the Pages with their Page tokens and Instagram accounts; without pages_show_list it is empty", async () => {
    await admin(base, "PUT", "users/twin-channels", {
      pages: [{ name: "Tides", instagram_username: "tides_daily" }, { name: "No Instagram", instagram_username: null }],
    });
    const user = (await admin(base, "GET", "users")).body[0];
    const token =
      (await longLived(base, (await exchangeCode(base, await consentCode(base, { login_hint: "twin-channels" }))).body.access_token)).body.access_token;
    const defaults = await graph(base, "GET", "me/accounts", {}, token);
    expect(defaults.body.data).toHaveLength(2);
    expect(Object.keys(defaults.body.data[0]).sort()).toEqual(["access_token", "category", "category_list", "id", "name", "tasks"]);
    expect(defaults.body.data[0].tasks).toContain("CREATE_CONTENT");
    expect(defaults.body.paging.cursors.after).toBeDefined();
    const withIg = await graph(base, "GET", "me/accounts", { fields: "id,name,instagram_business_account" }, token);
    expect(withIg.body.data).toEqual([
      { id: user.pages[0].page_id, name: "Tides", instagram_business_account: { id: user.pages[0].instagram_business_account.id } },
      { id: user.pages[1].page_id, name: "No Instagram" },
    ]);
    // The same Page token on every call; from a long-lived user token it never expires.
    const again = await graph(base, "GET", "me/accounts", {}, token);
    expect(again.body.data[0].access_token).toBe(defaults.body.data[0].access_token);
    const pageToken = defaults.body.data[0].access_token;
    const debug = await graph(base, "GET", "debug_token", { input_token: pageToken }, `${APP_ID}|${APP_SECRET}`);
    expect(debug.body.data).toMatchObject({ type: "PAGE", expires_at: 0, is_valid: true, profile_id: user.pages[0].page_id, app_id: APP_ID });
    expect((await graph(base, "GET", "me", { fields: "id,name" }, pageToken)).body).toEqual({ id: user.pages[0].page_id, name: "Tides" });
    await advanceClock(base, 61 * DAY);
    expect((await graph(base, "GET", "me", {}, pageToken)).status).toBe(200);

    const narrow = (await exchangeCode(base, await consentCode(base, { login_hint: "narrow", scope: "instagram_basic" }))).body.access_token;
    expect((await graph(base, "GET", "me/accounts", {}, narrow)).body.data).toEqual([]);
  });

  test("debug_token describes a token to its app: scopes, expiry; an invalid one is is_valid false with its error", async () => {
    const short = (await exchangeCode(base, await consentCode(base))).body.access_token;
    const appToken = `${APP_ID}|${APP_SECRET}`;
    const live = await graph(base, "GET", "debug_token", { input_token: short }, appToken);
    expect(live.body.data).toMatchObject({ app_id: APP_ID, type: "USER", application: "MD-AME test", is_valid: true });
    expect(live.body.data.expires_at - live.body.data.issued_at).toBe(3600);
    expect(live.body.data.scopes).toContain("instagram_content_publish");
    expect(live.body.data.granular_scopes.find((g: { scope: string }) => g.scope === "pages_show_list").target_ids).toHaveLength(1);
    expect((await graph(base, "GET", "debug_token", { input_token: short }, short)).body.data.is_valid).toBe(true);
    expect((await graph(base, "GET", "debug_token", { input_token: "EAAnot-ours" }, appToken)).body.data).toMatchObject({
      is_valid: false,
      error: { code: 190 },
    });
    expect(error((await graph(base, "GET", "debug_token", { input_token: short }, `${APP_ID}|wrong`)).body).code).toBe(190);
    expect(error((await graph(base, "GET", "debug_token", {}, appToken)).body).code).toBe(100);
    await advanceClock(base, 2 * HOUR);
    expect((await graph(base, "GET", "debug_token", { input_token: short }, appToken)).body.data).toMatchObject({
      is_valid: false,
      error: { code: 190, subcode: 463 },
    });
  });
});

describe("revocation, errors and faults", () => {
  test("admin revocations: password_changed is 190/460 for every token of the grant; a new login works again", async () => {
    const c = await connect(base);
    const answer = await admin(base, "POST", "revocations", { app_id: APP_ID, user: "sky-facts" });
    // The short-lived user token, the long-lived one and the Page token.
    expect(answer.body).toMatchObject({ app_id: APP_ID, user: "sky-facts", tokens_revoked: 3, reason: "password_changed" });
    for (const token of [c.userToken, c.pageToken]) {
      const refused = await graph(base, "GET", "me", {}, token);
      expect(error(refused.body)).toMatchObject({ code: 190, error_subcode: 460 });
    }
    expect((await rupload(`${base}/video-upload/v23.0/1200000000000000`, c.pageToken, mp4())).body.debug_info.type).toBe("NotAuthorizedError");
    expect((await admin(base, "GET", "revocations")).body.grants).toEqual([{ app_id: APP_ID, user: "sky-facts", reason: "password_changed" }]);
    const again = await connect(base);
    expect((await graph(base, "GET", "me", {}, again.userToken)).status).toBe(200);
    expect((await graph(base, "GET", "me", {}, c.userToken)).status).toBe(400);

    const byToken = await admin(base, "POST", "revocations", { access_token: again.userToken, reason: "app_removed" });
    expect(byToken.body).toMatchObject({ tokens_revoked: 2 });
    expect(error((await graph(base, "GET", "me", {}, again.pageToken)).body)).toMatchObject({ code: 190, error_subcode: 458 });
    expect((await admin(base, "POST", "revocations", { access_token: "nope" })).status).toBe(404);
    expect((await admin(base, "POST", "revocations", { app_id: APP_ID })).status).toBe(400);
    expect((await admin(base, "POST", "revocations", { access_token: again.userToken, reason: "bored" })).status).toBe(400);
  });

  test("DELETE /me/permissions removes the app (190/458 afterwards); deleting one permission takes just that one", async () => {
    const c = await connect(base);
    expect((await graph(base, "DELETE", "me/permissions/pages_manage_posts", {}, c.userToken)).body).toEqual({ success: true });
    expect(error((await graph(base, "POST", `${c.pageId}/video_reels`, { upload_phase: "start" }, c.pageToken)).body).code).toBe(200);
    expect((await graph(base, "DELETE", "me/permissions", {}, c.userToken)).body).toEqual({ success: true });
    expect(error((await graph(base, "GET", "me", {}, c.userToken)).body)).toMatchObject({ code: 190, error_subcode: 458 });
  });

  test("Graph's generic errors: 104 without a token, 190 for one never issued, 100/33 for an unknown id, 2500 for an unknown path", async () => {
    const c = await connect(base);
    expect(error((await graph(base, "GET", "me")).body)).toMatchObject({ code: 104, message: "An access token is required to request this resource." });
    expect(error((await graph(base, "GET", "me", {}, "EAAforged")).body)).toMatchObject({
      code: 190,
      message: "Invalid OAuth access token - Cannot parse access token",
    });
    expect(error((await graph(base, "GET", "17890000000000000", {}, c.userToken)).body)).toMatchObject({
      code: 100,
      error_subcode: 33,
      type: "GraphMethodException",
    });
    expect(error((await graph(base, "GET", "me/feedz/x/y", {}, c.userToken)).body)).toMatchObject({ code: 2500 });
    expect(error((await graph(base, "GET", `${c.pageId}/feed`, {}, c.pageToken)).body)).toMatchObject({
      code: 2500,
      message: "Unknown path components: /" + c.pageId + "/feed",
    });
    expect(error((await graph(base, "GET", "me", { fields: "email,birthday" }, c.userToken)).body).message).toContain("nonexisting field (email)");
    expect(error((await graph(base, "GET", "me/accounts", {}, `${APP_ID}|${APP_SECRET}`)).body).code).toBe(200);
  });

  test("token_expired and session_invalidated refuse a valid token once; app_rate_limited is code 4 with X-App-Usage", async () => {
    const c = await connect(base);
    await emulator.armFault({ service: "meta", kind: "token_expired" });
    expect(error((await graph(base, "GET", "me", {}, c.userToken)).body)).toMatchObject({ code: 190, error_subcode: 463 });
    await emulator.armFault({ service: "meta", kind: "session_invalidated" });
    expect(error((await graph(base, "GET", "me/accounts", {}, c.userToken)).body)).toMatchObject({ code: 190, error_subcode: 460 });
    expect((await graph(base, "GET", "me", {}, c.userToken)).status).toBe(200);
    await emulator.armFault({ service: "meta", kind: "app_rate_limited" });
    const limited = await graph(base, "GET", "me/accounts", {}, c.userToken);
    expect(error(limited.body)).toMatchObject({ code: 4, message: "(#4) Application request limit reached", is_transient: true });
    expect(JSON.parse(limited.headers.get("x-app-usage")!)).toMatchObject({ call_count: 100 });
    await emulator.armFault({ service: "meta", kind: "http_503" });
    expect((await longLived(base, c.userToken)).status).toBe(503);
    expect((await longLived(base, c.userToken)).status).toBe(200);
    await emulator.armFault({ service: "meta", kind: "slow", delay_ms: 300 });
    const started = performance.now();
    expect((await graph(base, "GET", "me", {}, c.userToken)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });
});

describe("admin, reset and restart", () => {
  test("admin routes refuse malformed input with 400 and a message", async () => {
    const bad: Array<[string, string, unknown]> = [
      ["PUT", "apps/not-digits", { app_secret: "s" }],
      ["PUT", `apps/${APP_ID}`, {}],
      ["PUT", `apps/${APP_ID}`, { app_secret: "s", redirect_uris: ["ftp://x"] }],
      ["PUT", `apps/${APP_ID}`, { app_secret: "s", configs: { "1": ["fly"] } }],
      ["PUT", `apps/${APP_ID}`, { app_secret: "s", extra: 1 }],
      ["PUT", "users/Bad Login", {}],
      ["PUT", "users/ok-user", { pages: [{ name: "" }] }],
      ["PUT", "users/ok-user", { pages: [{ name: "A", instagram_username: "Has Spaces" }] }],
      ["PUT", "grants", { app_id: APP_ID, user: "nobody", scopes: ["teleport"] }],
      ["PUT", "settings", { ig_processing_delay_ms: "soon" }],
      ["PUT", "settings", { fb_min_duration_s: 100 }],
      ["PUT", "settings", {}],
    ];
    for (const [method, path, body] of bad) {
      const answer = await admin(base, method, path, body);
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(typeof answer.body.error).toBe("string");
    }
    expect((await admin(base, "PUT", "grants", { app_id: APP_ID, user: "nobody", scopes: [] })).status).toBe(404);
    expect((await admin(base, "POST", "posts", {})).status).toBe(405);
    const huge = await fetch(`${base}/_emulator/meta/settings`, { method: "PUT", body: JSON.stringify({ seed: "x".repeat(20_000) }) });
    expect(huge.status).toBe(413);
    expect((await admin(base, "PUT", "settings", { ig_quota_total: 7, seed: "s2" })).body).toMatchObject({
      ig_quota_total: 7,
      seed: "s2",
      fb_reels_per_24h: 30,
    });
  });

  test("POST /_emulator/reset forgets apps (but the one it was started with), users, tokens, uploads and posts", async () => {
    const c = await connect(base);
    const container = await graph(base, "POST", `${c.igUserId}/media`, { media_type: "REELS", upload_type: "resumable" }, c.userToken);
    expect(container.status).toBe(200);
    await emulator.reset();
    expect((await admin(base, "GET", "apps")).body.map((a: { app_id: string }) => a.app_id)).toEqual([IT_META_APP.appId]);
    expect((await admin(base, "GET", "users")).body).toEqual([]);
    expect((await admin(base, "GET", "uploads")).body).toEqual({ containers: [], reels: [] });
    expect(error((await graph(base, "GET", "me", {}, c.userToken)).body).code).toBe(190);
  });

  test("apps, users, tokens, uploads in flight and posts survive a killed and restarted emulator process", async () => {
    const dataDir = await tempDir("meta-restart");
    const port = await freePort();
    let running = await spawnEmulatorProcess(port, dataDir);
    try {
      const url = running.url;
      await registerApp(url);
      await admin(url, "PUT", "settings", { ig_processing_delay_ms: 0 });
      const c = await connect(url);
      const bytes = mp4({ padBytes: 40_000 });
      const container =
        (await graph(url, "POST", `${c.igUserId}/media`, { media_type: "REELS", upload_type: "resumable", caption: "restart" }, c.userToken)).body;
      await rupload(container.uri, c.userToken, bytes, 0, { body: bytes.subarray(0, 15_000) });
      const done = (await graph(url, "POST", `${c.igUserId}/media`, { media_type: "REELS", upload_type: "resumable" }, c.userToken)).body;
      await rupload(done.uri, c.userToken, bytes);
      const mediaId = (await graph(url, "POST", `${c.igUserId}/media_publish`, { creation_id: done.id }, c.userToken)).body.id;
      await killProcess(running.child);

      running = await spawnEmulatorProcess(port, dataDir);
      const status = await graph(running.url, "GET", container.id, { fields: "status_code,video_status" }, c.userToken);
      expect(status.body).toMatchObject({ status_code: "IN_PROGRESS", video_status: { uploading_phase: { bytes_transferred: 15_000 } } });
      expect((await rupload(container.uri, c.userToken, bytes, 15_000)).body).toEqual({ success: true });
      expect((await graph(running.url, "POST", `${c.igUserId}/media_publish`, { creation_id: container.id }, c.userToken)).status).toBe(200);
      const posts = (await admin(running.url, "GET", "posts")).body.instagram;
      expect(posts.map((p: { media_id: string }) => p.media_id)[0]).toBe(mediaId);
      expect(posts.map((p: { sha256: string }) => p.sha256)).toEqual([sha256(bytes), sha256(bytes)]);
      expect((await graph(running.url, "GET", "me/accounts", {}, c.userToken)).body.data[0].access_token).toBe(c.pageToken);
      expect((await longLived(running.url, c.userToken)).status).toBe(200);
    } finally {
      await killProcess(running.child);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
