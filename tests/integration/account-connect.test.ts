/**
 * `mdame account connect youtube` end to end: the real command as its own process, the OAuth and
 * YouTube emulators in-process, the pipeline API served on a free port against the real Postgres.
 * The test plays the person's browser. Checked: PKCE and the consent rules on the emulator, the
 * state check and the timeout on the command's loopback, the sealed token on the account row, and
 * that nothing is stored when a step fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import process from "node:process";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { decryptCredentials } from "../../shared/crypto/credentials.ts";
import { channelIdFor } from "../../emulators/google-oauth/routes.ts";
import { paths } from "../../stack/paths.ts";
import { connectEnv, connectThroughCli } from "../fixtures/connect-accounts.ts";
import { type ConnectBench, startConnect as startConnectCli, startConnectBench, stopConnectBench } from "./fixtures/connect-cli.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let bench: ConnectBench;
let emulator: ConnectBench["emulator"];
let env: Record<string, string>;

beforeAll(async () => {
  bench = await startConnectBench();
  ({ emulator, env } = bench);
}, 60_000);

afterAll(() => stopConnectBench(bench), 60_000);

/** `mdame account connect youtube` with this test's emulator environment. */
function startConnect(args: string[]) {
  return startConnectCli("youtube", args, { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...connectEnv(env) });
}

const accountRows = () =>
  admin`select id, dimension_id, channel_handle, channel_id, credentials_enc, connected_at from mdame.dimension_accounts order by created_at`;

function pkce() {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function consentUrl(params: Record<string, string>): string {
  const url = new URL(`${emulator.url}/o/oauth2/v2/auth`);
  const defaults = {
    client_id: env.GOOGLE_OAUTH_CLIENT_ID!,
    redirect_uri: "http://127.0.0.1:9/oauth2/callback",
    response_type: "code",
    scope: "https://www.googleapis.com/auth/youtube.upload",
    access_type: "offline",
    state: "s-1",
  };
  for (const [k, v] of Object.entries({ ...defaults, ...params })) if (v !== "") url.searchParams.set(k, v);
  return url.toString();
}

async function exchange(form: Record<string, string>) {
  const response = await fetch(`${emulator.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: env.GOOGLE_OAUTH_CLIENT_ID!,
      client_secret: env.GOOGLE_OAUTH_CLIENT_SECRET!,
      redirect_uri: "http://127.0.0.1:9/oauth2/callback",
      ...form,
    }),
  });
  return { status: response.status, body: await response.json() as Record<string, string> };
}

describe("the OAuth emulator's consent and code exchange", () => {
  test("consents with a redirect carrying the code and the state, and redeems the code once, only with the right verifier", async () => {
    const { verifier, challenge } = pkce();
    const consent = await fetch(consentUrl({ code_challenge: challenge, code_challenge_method: "S256", login_hint: "pkce-channel@example.invalid" }), {
      redirect: "manual",
    });
    expect(consent.status).toBe(302);
    const location = new URL(consent.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe("http://127.0.0.1:9/oauth2/callback");
    expect(location.searchParams.get("state")).toBe("s-1");
    const code = location.searchParams.get("code")!;

    expect(await exchange({ code, code_verifier: pkce().verifier })).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    // The failed attempt used the code up, as Google does: a new consent is needed.
    expect((await exchange({ code, code_verifier: verifier })).body.error).toBe("invalid_grant");

    const again = await fetch(consentUrl({ code_challenge: challenge, code_challenge_method: "S256", login_hint: "pkce-channel" }), { redirect: "manual" });
    const code2 = new URL(again.headers.get("location")!).searchParams.get("code")!;
    expect((await exchange({ code: code2, code_verifier: verifier, redirect_uri: "http://127.0.0.1:10/other" })).body.error).toBe("redirect_uri_mismatch");
    const again2 = await fetch(consentUrl({ code_challenge: challenge, code_challenge_method: "S256", login_hint: "pkce-channel" }), { redirect: "manual" });
    const code3 = new URL(again2.headers.get("location")!).searchParams.get("code")!;
    const ok = await exchange({ code: code3, code_verifier: verifier });
    expect(ok.status).toBe(200);
    expect(ok.body.refresh_token).toBe("emulator-refresh-pkce-channel");
    expect(ok.body.access_token).toStartWith("ya29.");
    expect((await exchange({ code: code3, code_verifier: verifier })).body.error).toBe("invalid_grant");
  });

  test("refuses a bad client, a non-loopback redirect, a missing or plain challenge, with an error page and no redirect", async () => {
    const { challenge } = pkce();
    const s256 = { code_challenge: challenge, code_challenge_method: "S256" };
    const cases: [Record<string, string>, number, string][] = [
      [{ ...s256, client_id: "not-a-client" }, 401, "invalid_client"],
      [{ ...s256, redirect_uri: "https://attacker.invalid/cb" }, 400, "redirect_uri_mismatch"],
      [{}, 400, "invalid_request"],
      [{ code_challenge: challenge, code_challenge_method: "plain" }, 400, "invalid_request"],
      [{ ...s256, scope: "" }, 400, "invalid_request"],
    ];
    for (const [params, status, error] of cases) {
      const response = await fetch(consentUrl(params), { redirect: "manual" });
      expect(response.status).toBe(status);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain(error);
    }
  });
});

describe("the YouTube emulator's channels.list", () => {
  test("answers the access token's channel for mine=true, and refuses a missing token or filter", async () => {
    const { verifier, challenge } = pkce();
    const consent = await fetch(consentUrl({ code_challenge: challenge, code_challenge_method: "S256", login_hint: "list-me" }), { redirect: "manual" });
    const code = new URL(consent.headers.get("location")!).searchParams.get("code")!;
    const { body } = await exchange({ code, code_verifier: verifier });
    const mine = await fetch(`${emulator.url}/youtube/v3/channels?part=snippet&mine=true`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({ items: [{ id: channelIdFor("list-me"), snippet: { customUrl: "@list-me", title: "list-me" } }] });
    expect((await fetch(`${emulator.url}/youtube/v3/channels?part=snippet&mine=true`)).status).toBe(401);
    const noFilter = await fetch(`${emulator.url}/youtube/v3/channels?part=snippet`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(noFilter.status).toBe(400);
  });
});

describe("mdame account connect youtube", () => {
  test("connects the signed-in channel and stores its refresh token sealed for the account", async () => {
    const result = await connectThroughCli(env, "tech-explained", "tech-explained-demo");
    expect(result.created).toBe(true);
    expect(result.account).toMatchObject({
      dimension_id: "tech-explained",
      platform: "youtube",
      channel_handle: "@tech-explained-demo",
      channel_id: channelIdFor("tech-explained-demo"),
      active: true,
      has_credentials: true,
      // The Google project whose YouTube quota the channel spends: the OAuth client the CLI used.
      oauth_client_id: env.GOOGLE_OAUTH_CLIENT_ID!,
      health: "ok",
    });
    const [row] = await accountRows();
    // Sealed with the current key, which the value names.
    const ring = credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY! });
    expect(row.credentials_enc).toStartWith(`v2.${ring.current.kid}.`);
    expect(row.credentials_enc).not.toContain("emulator-refresh");
    const credentials = await decryptCredentials(ring, row.credentials_enc, row.id);
    expect(credentials.refresh_token).toBe("emulator-refresh-tech-explained-demo");
    // The scopes the consent granted are recorded with the account, YouTube Analytics among them.
    const [scopes] = await admin<{ granted_scopes: string[] }[]>`select granted_scopes from mdame.dimension_accounts where id = ${row.id}`;
    expect(scopes!.granted_scopes).toEqual([
      "https://www.googleapis.com/auth/youtube.readonly",
      "https://www.googleapis.com/auth/youtube.upload",
      "https://www.googleapis.com/auth/yt-analytics.readonly",
    ]);
    // The flow went through the consent, the code exchange with its verifier, and channels.list.
    const paths = emulator.logs.map((l) => `${l.method} ${l.path} ${l.status}`);
    expect(paths).toContain("GET /o/oauth2/v2/auth 302");
    expect(paths).toContain("POST /token 200");
    expect(paths).toContain("GET /youtube/v3/channels 200");
  }, 60_000);

  test("prints no credential, and a reconnect replaces the credentials of the same account", async () => {
    const [before] = await accountRows();
    const run = startConnect(["--dimension", "tech-explained", "--login-hint", "tech-explained-demo"]);
    const url = await run.consent;
    expect(url).toStartWith(`${emulator.url}/o/oauth2/v2/auth?`);
    expect(new URL(url!).searchParams.get("code_challenge_method")).toBe("S256");
    expect((await fetch(url!)).status).toBe(200);
    const done = await run.finished;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("reconnected to dimension tech-explained");
    expect(`${done.stdout}${done.stderr}`).not.toContain("emulator-refresh");
    expect(`${done.stdout}${done.stderr}`).not.toContain("ya29.");
    const rows = await accountRows();
    expect(rows.length).toBe(1);
    expect(rows[0].id).toBe(before.id);
    expect(rows[0].credentials_enc).not.toBe(before.credentials_enc);
    // Async: the API answering it runs in this process.
    const list = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), "account", "list"], {
      cwd: paths.root,
      env: { PATH: process.env.PATH ?? "", ...connectEnv(env) },
      stdout: "pipe",
    });
    const listed = await new Response(list.stdout).text();
    expect(listed).toContain("stored");
    expect(listed).toContain("@tech-explained-demo");
    expect(listed).not.toMatch(/v[12]\./);
  }, 60_000);

  test("a redirect with the wrong state is refused and nothing is stored", async () => {
    const before = (await accountRows()).length;
    const run = startConnect(["--dimension", "sains-singkat", "--login-hint", "sains-singkat-demo"]);
    const url = await run.consent;
    const consent = await fetch(url!, { redirect: "manual" });
    const forged = new URL(consent.headers.get("location")!);
    forged.searchParams.set("state", "forged-state");
    const landing = await fetch(forged);
    expect(landing.status).toBe(400);
    const done = await run.finished;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("wrong state");
    expect((await accountRows()).length).toBe(before);
  }, 60_000);

  test("no sign-in before the timeout ends the command with nothing stored", async () => {
    const before = (await accountRows()).length;
    const run = startConnect(["--dimension", "sains-singkat", "--timeout", "5"]);
    expect(await run.consent).toStartWith(emulator.url);
    const done = await run.finished;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("no sign-in within 5 s");
    expect((await accountRows()).length).toBe(before);
  }, 60_000);

  test("an unknown dimension is refused before any consent (exit 4)", async () => {
    const run = startConnect(["--dimension", "no-such-dimension"]);
    expect(await run.consent).toBeNull();
    const done = await run.finished;
    expect(done.code).toBe(4);
    expect(done.stderr).toContain("no dimension no-such-dimension");
  }, 60_000);

  test("a consent the user declines ends the command with nothing stored", async () => {
    const before = (await accountRows()).length;
    const run = startConnect(["--dimension", "sains-singkat"]);
    const url = new URL((await run.consent)!);
    const redirect = new URL(url.searchParams.get("redirect_uri")!);
    redirect.searchParams.set("state", url.searchParams.get("state")!);
    redirect.searchParams.set("error", "access_denied");
    expect((await fetch(redirect)).status).toBe(400);
    const done = await run.finished;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("access_denied");
    expect((await accountRows()).length).toBe(before);
  }, 60_000);
});
