/**
 * `mdame account connect tiktok` end to end: the real command as its own process, the TikTok
 * emulator in-process, the pipeline API served on a free port against the real Postgres. The test
 * plays the person's browser. Checked: the consent request (hex PKCE challenge, scopes, loopback
 * redirect), the sealed refresh token that refreshes on the emulator, a reconnect that keeps the
 * account and clears needs_reconnect, the state check, a declined consent and the timeout storing
 * nothing, and the API's 4xx for malformed TikTok bodies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import process from "node:process";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { decryptCredentials } from "../../shared/crypto/credentials.ts";
import { refreshAccessToken } from "../../shared/providers/tiktok/oauth.ts";
import { openIdFor } from "../../emulators/tiktok/store.ts";
import { paths } from "../../stack/paths.ts";
import { connectEnv, connectTikTokThroughCli } from "../fixtures/connect-accounts.ts";
import { type ConnectBench, startConnect as startConnectCli, startConnectBench, stopConnectBench } from "./fixtures/connect-cli.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let bench: ConnectBench;
let emulator: ConnectBench["emulator"];
let pipeline: ConnectBench["pipeline"];
let env: Record<string, string>;

beforeAll(async () => {
  bench = await startConnectBench();
  ({ emulator, pipeline, env } = bench);
}, 60_000);

afterAll(() => stopConnectBench(bench), 60_000);

function cliEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const merged: Record<string, string | undefined> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...connectEnv(env), ...overrides };
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
}

/** `mdame account connect tiktok` with this test's emulator environment and `overrides`. */
function startConnect(args: string[], overrides: Record<string, string | undefined> = {}) {
  return startConnectCli("tiktok", args, cliEnv(overrides));
}

async function mdame(args: string[]) {
  const child = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), ...args], { cwd: paths.root, env: cliEnv(), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code: await child.exited, stdout, stderr };
}

const tiktokRows = () =>
  admin`select id, dimension_id, channel_handle, channel_id, oauth_client_id, credentials_enc, health_state from mdame.dimension_accounts where platform = 'tiktok' order by created_at`;

describe("mdame account connect tiktok", () => {
  test("connects the signed-in TikTok account; its sealed refresh token refreshes on the emulator", async () => {
    const result = await connectTikTokThroughCli(env, "tech-explained", "tech-creator");
    expect(result.created).toBe(true);
    expect(result.account).toMatchObject({
      dimension_id: "tech-explained",
      platform: "tiktok",
      channel_handle: "@tech-creator",
      channel_id: openIdFor(env.TIKTOK_CLIENT_KEY!, "tech-creator"),
      active: true,
      has_credentials: true,
      oauth_client_id: env.TIKTOK_CLIENT_KEY!,
      health: "ok",
    });
    const [row] = await tiktokRows();
    const ring = credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY! });
    expect(row.credentials_enc).toStartWith(`v2.${ring.current.kid}.`);
    const credentials = await decryptCredentials(ring, row.credentials_enc, row.id);
    // What the engine will do with it: a refresh on TikTok's token endpoint, with the client key recorded.
    const refreshed = await refreshAccessToken({
      clientKey: row.oauth_client_id,
      clientSecret: env.TIKTOK_CLIENT_SECRET!,
      apiBaseUrl: env.TIKTOK_API_BASE_URL!,
      refreshToken: credentials.refresh_token,
    });
    expect(refreshed.openId).toBe(row.channel_id);
    expect(refreshed.scopes).toEqual(expect.arrayContaining(["user.info.basic", "video.publish", "video.upload"]));
    const calls = emulator.logs.map((l) => `${l.method} ${l.path} ${l.status}`);
    expect(calls).toContain("GET /v2/auth/authorize/ 302");
    expect(calls).toContain("POST /v2/oauth/token/ 200");
  }, 60_000);

  test("a reconnect of the same creator keeps the account, clears needs_reconnect and prints no credential", async () => {
    const [before] = await tiktokRows();
    await admin`select mdame.mark_account_needs_reconnect(${before.id}::uuid, 'invalid_grant: Refresh token is invalid or expired.')`;
    const [event] =
      await admin`select detail from mdame.events where kind = 'account_needs_reconnect' and detail->>'account_id' = ${before.id} order by id desc limit 1`;
    expect(event.detail.fix).toBe("mdame account connect tiktok --dimension tech-explained --channel @tech-creator");
    const listed = await mdame(["account", "list"]);
    expect(listed.stdout).toMatch(/tiktok\s+-\s+active\s+reconnect/);
    expect(listed.stdout).toContain("mdame account connect tiktok --dimension tech-explained --channel @tech-creator");

    // The command the operator is told to run (the handle without its @ is the same account).
    const run = startConnect(["--dimension", "tech-explained", "--channel", "tech-creator", "--login-hint", "tech-creator"]);
    const url = new URL((await run.consent)!);
    expect(`${url.origin}${url.pathname}`).toBe(`${emulator.url}/v2/auth/authorize/`);
    expect(url.searchParams.get("client_key")).toBe(env.TIKTOK_CLIENT_KEY!);
    expect(url.searchParams.get("scope")).toBe("user.info.basic,video.publish,video.upload,video.list");
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth2\/callback$/);
    expect((await fetch(url)).status).toBe(200);
    const done = await run.finished;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("TikTok account @tech-creator (");
    expect(done.stdout).toContain("reconnected to dimension tech-explained");
    const credentials = await decryptCredentials(credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY! }), before.credentials_enc, before.id);
    expect(`${done.stdout}${done.stderr}`).not.toContain(credentials.refresh_token);
    expect(`${done.stdout}${done.stderr}`).not.toMatch(/(act|rft)\.emu-/);
    const rows = await tiktokRows();
    expect(rows.length).toBe(1);
    expect(rows[0].id).toBe(before.id);
    expect(rows[0].health_state).toBe("ok");
    expect(rows[0].credentials_enc).not.toBe(before.credentials_enc);
  }, 60_000);

  test("the same creator under another handle is refused (409, exit 5) and nothing changes", async () => {
    const before = await tiktokRows();
    const run = startConnect(["--dimension", "tech-explained", "--channel", "@someone-else", "--login-hint", "tech-creator"]);
    expect((await fetch((await run.consent)!)).status).toBe(200);
    const done = await run.finished;
    expect(done.code).toBe(5);
    expect(done.stderr).toContain("already connected to dimension tech-explained as @tech-creator");
    expect(await tiktokRows()).toEqual(before);
  }, 60_000);

  test("a redirect with the wrong state is refused and nothing is stored", async () => {
    const before = (await tiktokRows()).length;
    const run = startConnect(["--dimension", "sains-singkat", "--channel", "@sains-creator", "--login-hint", "sains-creator"]);
    const consent = await fetch((await run.consent)!, { redirect: "manual" });
    expect(consent.status).toBe(302);
    const forged = new URL(consent.headers.get("location")!);
    forged.searchParams.set("state", "forged-state");
    expect((await fetch(forged)).status).toBe(400);
    const done = await run.finished;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("wrong state");
    expect((await tiktokRows()).length).toBe(before);
  }, 60_000);

  test("a consent the creator declines ends the command with nothing stored", async () => {
    const before = (await tiktokRows()).length;
    const run = startConnect(["--dimension", "sains-singkat", "--channel", "@sains-creator"]);
    const url = new URL((await run.consent)!);
    const redirect = new URL(url.searchParams.get("redirect_uri")!);
    redirect.searchParams.set("state", url.searchParams.get("state")!);
    redirect.searchParams.set("error", "access_denied");
    redirect.searchParams.set("error_description", "The user denied the request");
    expect((await fetch(redirect)).status).toBe(400);
    const done = await run.finished;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("access_denied");
    expect((await tiktokRows()).length).toBe(before);
  }, 60_000);

  test("no sign-in before the timeout ends the command with nothing stored", async () => {
    const before = (await tiktokRows()).length;
    const run = startConnect(["--dimension", "sains-singkat", "--channel", "@sains-creator", "--timeout", "5"]);
    expect(await run.consent).toStartWith(emulator.url);
    const done = await run.finished;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("no sign-in within 5 s");
    expect((await tiktokRows()).length).toBe(before);
  }, 60_000);

  test("a missing TikTok app, a missing handle or an unknown dimension is refused before any consent", async () => {
    const noKey = startConnect(["--dimension", "sains-singkat", "--channel", "@x1"], { TIKTOK_CLIENT_KEY: undefined, TIKTOK_CLIENT_SECRET: undefined });
    expect(await noKey.consent).toBeNull();
    const noKeyDone = await noKey.finished;
    expect(noKeyDone.code).toBe(2);
    expect(noKeyDone.stderr).toContain("TIKTOK_CLIENT_KEY: not set");
    expect(noKeyDone.stderr).toContain("TIKTOK_CLIENT_SECRET: not set");

    const noHandle = startConnect(["--dimension", "sains-singkat"]);
    expect(await noHandle.consent).toBeNull();
    const noHandleDone = await noHandle.finished;
    expect(noHandleDone.code).toBe(2);
    expect(noHandleDone.stderr).toContain("needs --channel <@handle>");

    const unknown = startConnect(["--dimension", "no-such-dimension", "--channel", "@x1"]);
    expect(await unknown.consent).toBeNull();
    const unknownDone = await unknown.finished;
    expect(unknownDone.code).toBe(4);
    expect(unknownDone.stderr).toContain("no dimension no-such-dimension");
    expect((await tiktokRows()).length).toBe(1);
  }, 60_000);
});

describe("POST /pipeline/accounts with a TikTok body", () => {
  const auth = () => ({ authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" });
  const valid = () => ({
    dimension_id: "sains-singkat",
    platform: "tiktok",
    channel_handle: "@space-creator",
    channel_id: openIdFor(env.TIKTOK_CLIENT_KEY!, "space-creator"),
    refresh_token: "rft.direct",
    oauth_client_id: env.TIKTOK_CLIENT_KEY!,
  });
  const post = (body: unknown) => pipeline.app.request("/pipeline/accounts", { method: "POST", headers: auth(), body: JSON.stringify(body) });

  test("refuses a malformed TikTok body with 400 naming the field, and stores nothing", async () => {
    const { channel_id: _id, ...noOpenId } = valid();
    const { oauth_client_id: _key, ...noClientKey } = valid();
    const cases: [unknown, string][] = [
      [noOpenId, "channel_id"],
      [{ ...valid(), channel_id: null }, "channel_id"],
      [{ ...valid(), channel_id: "open id with spaces" }, "channel_id"],
      [{ ...valid(), channel_id: "x".repeat(129) }, "channel_id"],
      [noClientKey, "oauth_client_id"],
      [{ ...valid(), oauth_client_id: "" }, "oauth_client_id"],
      [{ ...valid(), channel_handle: "two words" }, "channel_handle"],
      [{ ...valid(), refresh_token: "" }, "refresh_token"],
      [{ ...valid(), platform: "threads" }, "platform"],
      // An Instagram account names its IG user id (digits), not an open_id.
      [{ ...valid(), platform: "instagram" }, "must be a Meta object id"],
      [{ ...valid(), access_token: "act.x" }, "access_token"],
    ];
    for (const [body, field] of cases) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain(field);
    }
    expect([...await admin`select id from mdame.dimension_accounts where dimension_id = 'sains-singkat' and platform = 'tiktok'`]).toEqual([]);
  });

  test("accepts a well-formed TikTok body: the open_id as channel id, the client key as OAuth client", async () => {
    const response = await post(valid());
    expect(response.status).toBe(201);
    const { account } = await response.json() as { account: Record<string, unknown> };
    expect(account).toMatchObject({
      platform: "tiktok",
      channel_handle: "@space-creator",
      channel_id: valid().channel_id,
      oauth_client_id: env.TIKTOK_CLIENT_KEY!,
      has_credentials: true,
    });
    const [row] = await admin`select platform, channel_id, oauth_client_id from mdame.dimension_accounts where id = ${account.id as string}`;
    expect(row).toEqual({ platform: "tiktok", channel_id: valid().channel_id, oauth_client_id: env.TIKTOK_CLIENT_KEY! });
    // TikTok accounts spend no Google project's quota.
    expect([...await admin`select 1 from mdame.youtube_projects where oauth_client_id = ${env.TIKTOK_CLIENT_KEY!}`]).toEqual([]);
  });
});
