/**
 * `mdame account connect instagram|facebook` end to end: the real command as its own process, the
 * Meta emulator in-process (its login dialog, token exchanges, `/me/accounts`), the pipeline API
 * served on a free port against the real Postgres. The test plays the person's browser. Checked:
 * the dialog's request (app id, permissions, loopback redirect), the account recorded with its IG
 * user id or Page id and the handle read from Meta, the sealed long-lived token that the engine can
 * exchange again, the granted permissions recorded, the Page chosen with --page among several, a
 * reconnect that keeps the account and clears needs_reconnect, a declined consent and a missing
 * Meta app storing nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import process from "node:process";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { decryptCredentials } from "../../shared/crypto/credentials.ts";
import { longLivedToken, managedPages, META_LOGIN_SCOPES } from "../../shared/providers/meta/login.ts";
import { connectEnv, connectMetaThroughCli } from "../fixtures/connect-accounts.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type ConnectBench, startConnect as startConnectCli, startConnectBench, stopConnectBench } from "./fixtures/connect-cli.ts";

const admin = adminSql();

let bench: ConnectBench;
let emulator: ConnectBench["emulator"];
let env: Record<string, string>;

beforeAll(async () => {
  bench = await startConnectBench();
  ({ emulator, env } = bench);
  // A user who manages two Pages, one with an Instagram account.
  const put = await fetch(`${emulator.url}/_emulator/meta/users/two-pages`, {
    method: "PUT",
    body: JSON.stringify({ pages: [{ name: "Sky Facts", instagram_username: "sky_facts" }, { name: "Kitchen Notes", instagram_username: null }] }),
  });
  if (!put.ok) throw new Error(await put.text());
}, 60_000);

afterAll(() => stopConnectBench(bench), 60_000);

function cliEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const merged: Record<string, string | undefined> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...connectEnv(env), ...overrides };
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
}

const metaRows = () =>
  admin`select id, platform, channel_handle, channel_id, oauth_client_id, credentials_enc, health_state, granted_scopes
          from mdame.dimension_accounts where platform in ('instagram', 'facebook') order by created_at`;

const host = () => ({ graphBaseUrl: env.META_GRAPH_BASE_URL!, version: "v23.0" });

describe("mdame account connect instagram|facebook", () => {
  test("connects the user's Instagram account: its IG user id, its @username, a long-lived token the engine can exchange", async () => {
    const run = startConnectCli("instagram", ["--dimension", "tech-explained", "--login-hint", "sky-facts"], cliEnv());
    const dialog = new URL((await run.consent)!);
    expect(`${dialog.origin}${dialog.pathname}`).toBe(`${emulator.url}/v23.0/dialog/oauth`);
    expect(dialog.searchParams.get("client_id")).toBe(env.META_APP_ID!);
    expect(dialog.searchParams.get("scope")).toBe(META_LOGIN_SCOPES.join(","));
    expect(dialog.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth2\/callback$/);
    expect((await fetch(dialog)).status).toBe(200);
    const done = await run.finished;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("Instagram account @sky_facts (");
    expect(done.stdout).toContain("connected to dimension tech-explained");

    const [row] = await metaRows();
    const ring = credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY! });
    const { refresh_token: userToken } = await decryptCredentials(ring, row.credentials_enc, row.id);
    expect(`${done.stdout}${done.stderr}`).not.toContain(userToken);
    // The IG user id is the one Meta links to the user's Page; the token exchanges for a fresh one, as each publish does.
    const [page] = await managedPages({ host: host(), userToken });
    expect(row).toMatchObject({ platform: "instagram", channel_handle: "@sky_facts", channel_id: page!.instagramAccountId, oauth_client_id: env.META_APP_ID });
    const fresh = await longLivedToken({ host: host(), app: { appId: env.META_APP_ID!, appSecret: env.META_APP_SECRET! }, userToken });
    expect(fresh.expiresIn).toBeGreaterThan(50 * 86_400);
    expect(row.granted_scopes).toEqual(expect.arrayContaining(["instagram_basic", "instagram_content_publish", "pages_manage_posts"]));
  }, 60_000);

  test("a user with several Pages names one with --page; without it the command lists them and stores nothing", async () => {
    const before = (await metaRows()).length;
    const ambiguous = startConnectCli("facebook", ["--dimension", "tech-explained", "--login-hint", "two-pages"], cliEnv());
    expect((await fetch((await ambiguous.consent)!)).status).toBe(200);
    const refused = await ambiguous.finished;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("manages several Pages (Sky Facts (");
    expect(refused.stderr).toContain("Kitchen Notes (");
    expect((await metaRows()).length).toBe(before);

    const result = await connectMetaThroughCli(env, "facebook", "tech-explained", "two-pages", "kitchen notes");
    expect(result.account).toMatchObject({ platform: "facebook", channel_handle: "Kitchen-Notes", oauth_client_id: env.META_APP_ID, has_credentials: true });
    expect(result.account.channel_id).toMatch(/^\d+$/);

    // Instagram on the same user can only be the Page that has an Instagram account.
    const ig = await connectMetaThroughCli(env, "instagram", "sains-singkat", "two-pages");
    expect(ig.account.channel_handle).toBe("@sky_facts");
  }, 60_000);

  test("a reconnect keeps the account and clears needs_reconnect; the command to run is the one the account list prints", async () => {
    const [before] = (await metaRows()).filter((r) => r.platform === "facebook");
    await admin`select mdame.mark_account_needs_reconnect(${before.id}::uuid, 'Meta refused the account''s token (code 190/460)')`;
    const listed = Bun.spawn([process.execPath, "cli/mdame.ts", "account", "list"], { env: cliEnv(), stdout: "pipe", stderr: "pipe" });
    const list = await new Response(listed.stdout).text();
    const fix = `mdame account connect facebook --dimension tech-explained --page ${before.channel_id}`;
    expect(list).toContain(fix);

    const run = startConnectCli("facebook", [...fix.split(" ").slice(4), "--login-hint", "two-pages"], cliEnv());
    expect((await fetch((await run.consent)!)).status).toBe(200);
    const done = await run.finished;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("reconnected to dimension tech-explained");
    const [after] = (await metaRows()).filter((r) => r.platform === "facebook");
    expect(after).toMatchObject({ id: before.id, health_state: "ok" });
    expect(after.credentials_enc).not.toBe(before.credentials_enc);
  }, 60_000);

  test("a declined consent, or no Meta app configured, stores nothing", async () => {
    const before = (await metaRows()).length;
    const run = startConnectCli("instagram", ["--dimension", "sains-singkat", "--login-hint", "someone"], cliEnv());
    const dialog = new URL((await run.consent)!);
    dialog.searchParams.set("emulator_consent", "deny");
    expect((await fetch(dialog)).status).toBe(400);
    const done = await run.finished;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("access_denied");

    const noApp = startConnectCli("facebook", ["--dimension", "sains-singkat"], cliEnv({ META_APP_ID: undefined, META_APP_SECRET: undefined }));
    expect(await noApp.consent).toBeNull();
    const noAppDone = await noApp.finished;
    expect(noAppDone.code).toBe(2);
    expect(noAppDone.stderr).toContain("META_APP_ID: not set");

    const withChannel = startConnectCli("facebook", ["--dimension", "sains-singkat", "--channel", "@x"], cliEnv());
    expect(await withChannel.consent).toBeNull();
    expect((await withChannel.finished).stderr).toContain("--channel is not for facebook");
    expect((await metaRows()).length).toBe(before);
  }, 60_000);
});
