/**
 * The OAuth emulator's refusals the engine must survive, through real HTTP: the `google-oauth`
 * `invalid_grant` fault, a refresh token revoked for good (admin route and Google's `/revoke`)
 * until the channel is connected again, and the access tokens that go with it.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { ProviderRejectedError } from "../../shared/providers/errors.ts";
import { createYouTubeAccessTokenSource } from "../../shared/providers/youtube/oauth.ts";
import { rm } from "node:fs/promises";
import { armFault, freePort, killProcess, spawnEmulatorProcess, startTestEmulator, tempDir } from "./fixtures/emulator-harness.ts";
import { accessToken, admin, projectOf, setClock, startUpload, usage } from "./fixtures/youtube-emulator.ts";

const CLIENT = "oauth-1.apps.googleusercontent.com";
const REVOKED = { error: "invalid_grant", error_description: "Token has been expired or revoked." };
let emulator: Awaited<ReturnType<typeof startTestEmulator>>;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.reset());

function refresh(refreshToken: string) {
  return fetch(`${emulator.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: CLIENT, client_secret: "secret", refresh_token: refreshToken }),
  });
}

const channelsList = (token: string) => fetch(`${emulator.url}/youtube/v3/channels?part=snippet&mine=true`, { headers: { authorization: `Bearer ${token}` } });

/** Connects `channel` again as a person does: consent, then the code exchange with its PKCE verifier. */
async function connect(channel: string): Promise<Record<string, string>> {
  const verifier = randomBytes(48).toString("base64url");
  const consent = new URL(`${emulator.url}/o/oauth2/v2/auth`);
  for (
    const [key, value] of Object.entries({
      client_id: CLIENT,
      redirect_uri: "http://127.0.0.1:9/cb",
      response_type: "code",
      scope: "https://www.googleapis.com/auth/youtube.upload",
      access_type: "offline",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      login_hint: channel,
    })
  ) consent.searchParams.set(key, value);
  const redirect = await fetch(consent, { redirect: "manual" });
  const code = new URL(redirect.headers.get("location")!).searchParams.get("code")!;
  const exchanged = await fetch(`${emulator.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: CLIENT,
      client_secret: "secret",
      redirect_uri: "http://127.0.0.1:9/cb",
      code,
      code_verifier: verifier,
    }),
  });
  expect(exchanged.status).toBe(200);
  return await exchanged.json() as Record<string, string>;
}

test("the invalid_grant fault refuses the next refresh-token grants with Google's answer, then refreshing works again", async () => {
  await armFault(emulator.url, { service: "google-oauth", kind: "invalid_grant", count: 2 });
  for (let i = 0; i < 2; i++) {
    const refused = await refresh("emulator-refresh-fault-channel");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(REVOKED);
  }
  expect((await refresh("emulator-refresh-fault-channel")).status).toBe(200);

  // The engine's token source reads it as a rejection, not an outage.
  await armFault(emulator.url, { service: "google-oauth", kind: "invalid_grant" });
  const source = createYouTubeAccessTokenSource({
    clientId: CLIENT,
    clientSecret: "secret",
    tokenUrl: `${emulator.url}/token`,
    refreshToken: "emulator-refresh-fault-channel",
  });
  const error = await source.getAccessToken().catch((e) => e);
  expect(error).toBeInstanceOf(ProviderRejectedError);
  expect(error.message).toContain("invalid_grant");
});

test("a refresh token revoked through the admin route fails every refresh, and its access tokens stop working, until the channel is connected again", async () => {
  const token = await accessToken(emulator.url, CLIENT, "gone-channel");
  const other = await accessToken(emulator.url, CLIENT, "kept-channel");
  const revoked = await admin(emulator.url, "POST", "/_emulator/oauth/revocations", { refresh_token: "emulator-refresh-gone-channel" });
  expect(revoked).toEqual({ status: 200, body: { refresh_token: "emulator-refresh-gone-channel", channel: "gone-channel", access_tokens_revoked: 1 } });
  expect((await admin(emulator.url, "GET", "/_emulator/oauth/revocations")).body).toEqual({ revoked: ["emulator-refresh-gone-channel"] });

  for (let i = 0; i < 3; i++) {
    const refused = await refresh("emulator-refresh-gone-channel");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(REVOKED);
  }
  expect((await channelsList(token)).status).toBe(401);
  // Another channel's token is untouched.
  expect((await channelsList(other)).status).toBe(200);

  const connected = await connect("gone-channel");
  expect(connected.refresh_token).toBe("emulator-refresh-gone-channel");
  expect((await refresh("emulator-refresh-gone-channel")).status).toBe(200);
  expect((await channelsList(connected.access_token!)).status).toBe(200);
  expect((await admin(emulator.url, "GET", "/_emulator/oauth/revocations")).body).toEqual({ revoked: [] });
});

test("Google's /revoke endpoint revokes the grant behind an access or refresh token; a second revoke is invalid_token", async () => {
  const token = await accessToken(emulator.url, CLIENT, "app-removed");
  const revoke = (value: string) =>
    fetch(`${emulator.url}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: value }),
    });
  const done = await revoke(token);
  expect(done.status).toBe(200);
  expect(await done.json()).toEqual({});
  expect((await refresh("emulator-refresh-app-removed")).status).toBe(400);
  const again = await revoke("emulator-refresh-app-removed");
  expect(again.status).toBe(400);
  expect(await again.json()).toEqual({ error: "invalid_token", error_description: "Token expired or revoked" });
  expect((await revoke("ya29.never-issued")).status).toBe(400);

  await accessToken(emulator.url, CLIENT, "by-refresh");
  expect((await revoke("emulator-refresh-by-refresh")).status).toBe(200);
  expect((await refresh("emulator-refresh-by-refresh")).status).toBe(400);
});

test("POST /_emulator/reset forgets every revocation", async () => {
  await admin(emulator.url, "POST", "/_emulator/oauth/revocations", { refresh_token: "emulator-refresh-reset-me" });
  expect((await refresh("emulator-refresh-reset-me")).status).toBe(400);
  await emulator.reset();
  expect((await refresh("emulator-refresh-reset-me")).status).toBe(200);
});

test("bad revocation requests are 400 with a message, and bad fault requests for google-oauth arm nothing", async () => {
  const cases: unknown[] = [
    {},
    { refresh_token: "ya29.access" },
    { refresh_token: "emulator-refresh-" },
    { refresh_token: "emulator-refresh-a", also: 1 },
    "[]",
  ];
  for (const body of cases) {
    const answer = await admin(emulator.url, "POST", "/_emulator/oauth/revocations", body);
    expect(answer.status).toBe(400);
    expect(typeof answer.body.error).toBe("string");
  }
  const unknownKind = await fetch(`${emulator.url}/_emulator/faults`, { method: "POST", body: JSON.stringify({ service: "google-oauth", kind: "expired" }) });
  expect(unknownKind.status).toBe(400);
  expect((await unknownKind.json() as { error: string }).error).toContain("invalid_grant");
  const notAService = await fetch(`${emulator.url}/_emulator/faults`, { method: "POST", body: JSON.stringify({ service: "toString", kind: "x" }) });
  expect(notAService.status).toBe(400);
  expect((await admin(emulator.url, "GET", "/_emulator/faults")).body.faults).toEqual([]);
});

test("a killed and restarted emulator keeps its revocations, its clock and the quota spent", async () => {
  const dataDir = await tempDir("youtube-rules-restart");
  const port = await freePort();
  let running = await spawnEmulatorProcess(port, dataDir);
  try {
    await admin(running.url, "PUT", `/_emulator/youtube/projects/${CLIENT}`, { insert_calls_per_day: 1 });
    await setClock(running.url, { now: "2026-07-04T18:00:00Z" });
    expect((await startUpload(running.url, await accessToken(running.url, CLIENT, "restart-channel"))).status).toBe(200);
    await admin(running.url, "POST", "/_emulator/oauth/revocations", { refresh_token: "emulator-refresh-restart-revoked" });
    await killProcess(running.child, "SIGKILL");

    running = await spawnEmulatorProcess(port, dataDir);
    const clock = (await admin(running.url, "GET", "/_emulator/clock")).body;
    expect(Date.parse(clock.now) - Date.parse("2026-07-04T18:00:00Z")).toBeGreaterThanOrEqual(0);
    expect(Date.parse(clock.now) - Date.parse("2026-07-04T18:00:00Z")).toBeLessThan(60_000);
    expect(projectOf(await usage(running.url), CLIENT)?.insert).toEqual({ used: 1, limit: 1, remaining: 0 });
    expect((await startUpload(running.url, await accessToken(running.url, CLIENT, "restart-channel"))).status).toBe(403);
    const refused = await fetch(`${running.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: CLIENT, client_secret: "s", refresh_token: "emulator-refresh-restart-revoked" }),
    });
    expect(refused.status).toBe(400);
  } finally {
    await killProcess(running.child, "SIGTERM");
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);
