/**
 * Several Google projects end to end: two projects registered with `mdame youtube-project add`
 * (their secrets sealed by the API), two channels connected through them with `mdame account
 * connect youtube --project`, each published by the real stage runner. The OAuth emulator knows the
 * three clients (the environment's too) and records which client presented each refresh: each
 * channel's token is refreshed with its own project's client, and each upload is charged to that
 * project's bucket, in the ledger and on YouTube's side. Bad input is refused with nothing stored,
 * and doctor's plan check warns only when a project's planned uploads exceed its bucket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { projectChecks } from "../../cli/doctor/youtube-projects.ts";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { CredentialsRotationBatch } from "../../shared/contracts/credentials.ts";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { generateCredentialsKey } from "../../shared/crypto/credentials.ts";
import { openClientSecret } from "../../shared/crypto/client-secrets.ts";
import { paths } from "../../stack/paths.ts";
import { connectEnv, connectThroughCli } from "../fixtures/connect-accounts.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { servePipeline } from "../fixtures/pipeline-server.ts";
import { type ConnectBench, startConnectBench, stopConnectBench } from "./fixtures/connect-cli.ts";
import { publicationsOf, quietEngine, runStages, unitAtPublish } from "./fixtures/publish-stage.ts";

const admin = adminSql();
const ALPHA = { name: "alpha", clientId: "111-alpha.apps.googleusercontent.com", secret: "GOCSPX-alpha-secret" };
const BETA = { name: "beta", clientId: "222-beta.apps.googleusercontent.com", secret: "GOCSPX-beta-secret" };

let bench: ConnectBench;
let env: Record<string, string>;
let deps: PipelineDeps;
let workDir: string;
let videoPath: string;

/** `mdame <args>` as its own process against this test's API; `stdin` is piped when given. */
async function mdame(args: string[], extraEnv: Record<string, string> = {}, stdin?: string) {
  const child = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), ...args], {
    cwd: paths.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...connectEnv(env), ...extraEnv },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

async function registerEmulatorClient(clientId: string, secret: string): Promise<void> {
  const response = await fetch(`${env.EMULATOR_URL}/_emulator/oauth/clients`, {
    method: "POST",
    body: JSON.stringify({ client_id: clientId, client_secret: secret }),
  });
  expect(response.status).toBe(200);
}

async function refreshToken(refreshToken: string, clientId: string, secret: string) {
  const response = await fetch(`${env.EMULATOR_URL}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, client_secret: secret, refresh_token: refreshToken }),
  });
  return { status: response.status, body: await response.json() as Record<string, string> };
}

const accountCount = async () => (await admin<{ n: number }[]>`select count(*)::int as n from mdame.dimension_accounts`)[0]!.n;

beforeAll(async () => {
  bench = await startConnectBench();
  workDir = await mkdtemp(join(tmpdir(), "mdame-it-projects-"));
  videoPath = join(workDir, "video.mp4");
  await writeFile(videoPath, randomBytes(300 * 1024));
  env = { ...bench.env, STORAGE_BACKEND: "local", STORAGE_LOCAL_DIR: join(workDir, "store") };
  deps = quietEngine(env);
  // The emulator knows the three clients as Google would: each only with its own secret.
  await registerEmulatorClient(env.GOOGLE_OAUTH_CLIENT_ID!, env.GOOGLE_OAUTH_CLIENT_SECRET!);
  await registerEmulatorClient(ALPHA.clientId, ALPHA.secret);
  await registerEmulatorClient(BETA.clientId, BETA.secret);
}, 60_000);

afterAll(async () => {
  await deps?.sql.end({ timeout: 2 });
  await stopConnectBench(bench);
  if (workDir) await rm(workDir, { recursive: true, force: true });
}, 60_000);

describe("mdame youtube-project", () => {
  test("registers a project with the secret from the environment or stdin, sealed for its client id", async () => {
    const alpha = await mdame(["youtube-project", "add", "--name", ALPHA.name, "--client-id", ALPHA.clientId, "--upload-calls-per-day", "1"], {
      YOUTUBE_PROJECT_CLIENT_SECRET: ALPHA.secret,
    });
    expect(alpha.code).toBe(0);
    expect(alpha.stdout).toContain("YouTube project alpha registered");
    const beta = await mdame(["youtube-project", "add", "--name", BETA.name, "--client-id", BETA.clientId], {}, `${BETA.secret}\n`);
    expect(beta.code).toBe(0);
    expect(`${alpha.stdout}${alpha.stderr}${beta.stdout}${beta.stderr}`).not.toContain("GOCSPX");

    const rows = await admin<{ name: string; oauth_client_id: string; client_secret_enc: string; upload_calls_per_day: number }[]>`
      select name, oauth_client_id, client_secret_enc, upload_calls_per_day from mdame.youtube_projects where name is not null order by name`;
    expect(rows.map((r) => [r.name, r.oauth_client_id, r.upload_calls_per_day])).toEqual([["alpha", ALPHA.clientId, 1], ["beta", BETA.clientId, 100]]);
    const ring = credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY! });
    expect(rows[0]!.client_secret_enc).toStartWith(`v2.${ring.current.kid}.`);
    expect(rows[0]!.client_secret_enc).not.toContain("GOCSPX");
    expect(await openClientSecret(ring, rows[1]!.client_secret_enc, BETA.clientId)).toBe(BETA.secret);
  }, 60_000);

  test("refuses a duplicate name (exit 5), a missing secret (exit 2) and the name default, storing nothing", async () => {
    const duplicate = await mdame(["youtube-project", "add", "--name", ALPHA.name, "--client-id", "333-other.apps.googleusercontent.com"], {
      YOUTUBE_PROJECT_CLIENT_SECRET: "s",
    });
    expect(duplicate.code).toBe(5);
    expect(duplicate.stderr).toContain("a YouTube project named alpha is registered already");
    const noSecret = await mdame(["youtube-project", "add", "--name", "gamma", "--client-id", "333-other.apps.googleusercontent.com"]);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain("set YOUTUBE_PROJECT_CLIENT_SECRET, or pipe it on stdin");
    const reserved = await mdame(["youtube-project", "add", "--name", "default", "--client-id", "333-other.apps.googleusercontent.com"], {
      YOUTUBE_PROJECT_CLIENT_SECRET: "s",
    });
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toContain("default is the environment's client");
    const [row] = await admin<
      { n: number }[]
    >`select count(*)::int as n from mdame.youtube_projects where oauth_client_id = '333-other.apps.googleusercontent.com'`;
    expect(row!.n).toBe(0);
  }, 60_000);
});

describe("channels connected through different projects", () => {
  test("an unknown project is refused before any consent, with nothing stored", async () => {
    const before = await accountCount();
    const run = await mdame(["account", "connect", "youtube", "--dimension", "tech-explained", "--project", "nope", "--no-browser", "--timeout", "10"]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("no YouTube project nope (registered: default, alpha, beta)");
    expect(run.stderr).not.toContain("/o/oauth2/v2/auth");
    // The API refuses a YouTube grant of a client it holds no secret for: it could never refresh it.
    const direct = await fetch(`${env.FUNCTIONS_URL}/pipeline/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        dimension_id: "tech-explained",
        platform: "youtube",
        channel_handle: "@stray",
        refresh_token: "emulator-refresh-stray",
        oauth_client_id: "999-stray.apps.googleusercontent.com",
      }),
    });
    expect(direct.status).toBe(404);
    expect(((await direct.json()) as { error: string }).error).toContain(
      "no YouTube project has the OAuth client 999-stray.apps.googleusercontent.com: register it first",
    );
    expect(await accountCount()).toBe(before);
  }, 60_000);

  test("each connect signs in with its project's client and records the project, which account list shows", async () => {
    const alpha = await connectThroughCli(env, "tech-explained", "alpha-channel", 60, ALPHA.name);
    const beta = await connectThroughCli(env, "sains-singkat", "beta-channel", 60, BETA.name);
    expect(alpha.account).toMatchObject({ oauth_client_id: ALPHA.clientId, youtube_project: "alpha", has_credentials: true });
    expect(beta.account).toMatchObject({ oauth_client_id: BETA.clientId, youtube_project: "beta", has_credentials: true });
    const list = await mdame(["account", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/tech-explained\s+youtube\s+alpha\s+active\s+stored.*@alpha-channel/);
    expect(list.stdout).toMatch(/sains-singkat\s+youtube\s+beta\s+active\s+stored.*@beta-channel/);
  }, 120_000);

  test("publishing refreshes each token with its own client and charges each project's bucket", async () => {
    const alphaUnit = await unitAtPublish(admin, deps, videoPath, "tech-explained");
    const betaUnit = await unitAtPublish(admin, deps, videoPath, "sains-singkat");
    await runStages(deps);
    for (const { unitId } of [alphaUnit, betaUnit]) {
      expect([...(await publicationsOf(admin, unitId)).values()].map((p) => p.status)).toEqual(["published"]);
    }
    const { refreshes } = await (await fetch(`${env.EMULATOR_URL}/_emulator/oauth/refreshes`)).json() as {
      refreshes: { client_id: string; channel: string; outcome: string }[];
    };
    const byChannel = (channel: string) => [...new Set(refreshes.filter((r) => r.channel === channel).map((r) => `${r.client_id} ${r.outcome}`))];
    expect(byChannel("alpha-channel")).toEqual([`${ALPHA.clientId} issued`]);
    expect(byChannel("beta-channel")).toEqual([`${BETA.clientId} issued`]);

    const ledger = await admin<{ oauth_client_id: string; n: number }[]>`
      select oauth_client_id, count(*)::int as n from mdame.quota_ledger where call_kind = 'videos.insert' and status <> 'released' group by 1 order by 1`;
    expect([...ledger]).toEqual([{ oauth_client_id: ALPHA.clientId, n: 1 }, { oauth_client_id: BETA.clientId, n: 1 }]);
    const usage = await (await fetch(`${env.EMULATOR_URL}/_emulator/youtube/usage`)).json() as {
      projects: { client_id: string; insert_calls_used?: number }[];
    };
    const clients = usage.projects.map((p) => p.client_id);
    expect(clients).toContain(ALPHA.clientId);
    expect(clients).toContain(BETA.clientId);
    expect(clients).not.toContain(env.GOOGLE_OAUTH_CLIENT_ID);
  }, 120_000);

  test("the emulator refuses a refresh token presented with another client, and a registered client with a wrong secret", async () => {
    expect(await refreshToken("emulator-refresh-alpha-channel", BETA.clientId, BETA.secret)).toMatchObject({
      status: 400,
      body: { error: "unauthorized_client" },
    });
    expect(await refreshToken("emulator-refresh-alpha-channel", ALPHA.clientId, "wrong")).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect((await refreshToken("emulator-refresh-alpha-channel", ALPHA.clientId, ALPHA.secret)).status).toBe(200);
  });

  test("a project is not removed while accounts use it", async () => {
    const removal = await mdame(["youtube-project", "remove", ALPHA.name]);
    expect(removal.code).toBe(5);
    expect(removal.stderr).toContain("YouTube project alpha is used by 1 account(s): @alpha-channel (tech-explained)");
    const list = await mdame(["youtube-project", "list"]);
    expect(list.stdout).toMatch(/alpha\s+registered\s+1\s+1\s+1\s+1\s+111-alpha/);
  }, 60_000);
});

describe("doctor's plan check", () => {
  test("warns for the project whose planned uploads exceed its bucket, by how much, and not otherwise", async () => {
    // alpha takes 1 upload a day; tech-explained plans 1 (fits), then 3 (2 over).
    await admin`update mdame.dimensions set daily_limit = 1 where id in ('tech-explained', 'sains-singkat')`;
    const fits = await projectChecks(deps.sql, env);
    expect(fits.map((c) => c.status)).toEqual(["ok"]);
    expect(fits[0]!.message).toContain("alpha 1/1");

    await admin`update mdame.dimensions set daily_limit = 3 where id = 'tech-explained'`;
    const over = await projectChecks(deps.sql, env);
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ status: "warn", name: "youtube project alpha" });
    expect(over[0]!.message).toContain("3 uploads a day are planned on its 1 active account(s), its bucket takes 1 videos.insert calls a day: 2 over");
    expect(over[0]!.fix).toContain("mdame youtube-project add --name <name> --client-id <id>");
    expect(over[0]!.fix).toContain("move accounts to a project with room (beta)");
  });
});

describe("key rotation", () => {
  test("re-seals the projects' client secrets with the new key, and a repeat finds them current", async () => {
    const key = generateCredentialsKey();
    const rotated = servePipeline({ ...env, CREDENTIALS_KEY: key, CREDENTIALS_KEYS_PREVIOUS: env.CREDENTIALS_KEY! });
    try {
      const rotate = async () => {
        const response = await rotated.app.request("/pipeline/credentials/rotate", {
          method: "POST",
          headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ limit: 100 }),
        });
        expect(response.status).toBe(200);
        return CredentialsRotationBatch.parse(await response.json());
      };
      const first = await rotate();
      expect(first.projects.map((p) => [p.name, p.outcome])).toEqual([["alpha", "resealed"], ["beta", "resealed"]]);
      const ring = credentialKeyRing({ CREDENTIALS_KEY: key });
      const [row] = await admin<{ client_secret_enc: string }[]>`select client_secret_enc from mdame.youtube_projects where name = 'alpha'`;
      expect(row!.client_secret_enc).toStartWith(`v2.${ring.current.kid}.`);
      expect(await openClientSecret(ring, row!.client_secret_enc, ALPHA.clientId)).toBe(ALPHA.secret);
      expect((await rotate()).projects.map((p) => p.outcome)).toEqual(["current", "current"]);
    } finally {
      await rotated.stop();
    }
  }, 60_000);
});
