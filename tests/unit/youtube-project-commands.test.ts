import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../cli/args.ts";
import { CLIENT_SECRET_ENV, formatProjectList, readClientSecret } from "../../cli/commands/youtube-project.ts";
import { formatProjectOutcomes } from "../../cli/commands/credentials.ts";
import { judgeProjectPlans } from "../../cli/doctor/youtube-projects.ts";
import { UsageError } from "../../cli/errors.ts";
import { resolveGoogleEndpoints } from "../../cli/oauth-config.ts";
import { RegisterYouTubeProjectBody, type YouTubeProject } from "../../shared/contracts/youtube-project.ts";
import { ClientSecretUnreadableError, openClientSecret, resealClientSecret, sealClientSecret } from "../../shared/crypto/client-secrets.ts";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { decryptCredentials, encryptCredentials, generateCredentialsKey } from "../../shared/crypto/credentials.ts";
import { classifyYouTubeRefusal } from "../../shared/providers/youtube/refusals.ts";
import { errorForStatus } from "../../shared/providers/errors.ts";

function usageError(argv: string[]): UsageError {
  try {
    parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`parsed: ${argv.join(" ")}`);
}

describe("mdame youtube-project", () => {
  test("add takes a name, a client id and bucket sizes, never the secret on argv", () => {
    expect(parseArgs(["youtube-project", "add", "--name", "second", "--client-id", "2-x.apps.googleusercontent.com", "--upload-calls-per-day", "200"])).toEqual(
      {
        name: "youtube-project add",
        project: "second",
        clientId: "2-x.apps.googleusercontent.com",
        sizes: { upload_calls_per_day: 200 },
        json: false,
      },
    );
    expect(usageError(["youtube-project", "add", "--client-id", "x"]).message).toBe("youtube-project add needs --name <name>");
    expect(usageError(["youtube-project", "add", "--name", "second"]).message).toBe("youtube-project add needs --client-id <id>");
    expect(usageError(["youtube-project", "add", "--name", "Second Project", "--client-id", "x"]).message).toContain("not a project name");
    expect(usageError(["youtube-project", "add", "--name", "second", "--client-id", "x", "--client-secret", "s"]).message).toContain("--client-secret");
    expect(parseArgs(["youtube-project", "remove", "second"])).toEqual({ name: "youtube-project remove", project: "second", json: false });
    expect(parseArgs(["youtube-project", "list", "--json"])).toEqual({ name: "youtube-project list", json: true });
  });

  test("the secret comes from the environment, else stdin; neither is a usage error naming both", async () => {
    expect(await readClientSecret({ [CLIENT_SECRET_ENV]: " s3cret \n" }, async () => "piped")).toBe("s3cret");
    expect(await readClientSecret({}, async () => "piped\n")).toBe("piped");
    await expect(readClientSecret({}, async () => null)).rejects.toThrow(`set ${CLIENT_SECRET_ENV}, or pipe it on stdin`);
    await expect(readClientSecret({}, async () => "  \n")).rejects.toThrow("never taken from an argument");
  });

  test("account connect youtube takes --project; default is the environment's client; TikTok takes none", () => {
    expect(parseArgs(["account", "connect", "youtube", "--dimension", "tech-explained", "--project", "second"])).toMatchObject({ project: "second" });
    expect(parseArgs(["account", "connect", "youtube", "--dimension", "tech-explained", "--project", "default"])).toMatchObject({ project: null });
    expect(usageError(["account", "connect", "youtube", "--dimension", "tech-explained", "--project", "No Such"]).message).toContain(
      "--project takes a project's name",
    );
    expect(usageError(["account", "connect", "tiktok", "--dimension", "tech-explained", "--channel", "@c", "--project", "second"]).message).toContain(
      "--project is for youtube",
    );
  });

  test("the list shows each project's bucket against its plan, and names an unregistered client with the command that registers it", () => {
    const project: YouTubeProject = {
      name: "second",
      oauth_client_id: "2-x.apps.googleusercontent.com",
      client: "registered",
      upload_calls_per_day: 100,
      api_units_per_day: 10000,
      analytics_queries_per_day: 10000,
      stats_units_per_day: 10000,
      accounts: 3,
      active_accounts: 2,
      planned_uploads_per_day: 4,
      uploads_today: 1,
      created_at: "2026-12-01T00:00:00Z",
    };
    const lines = formatProjectList([project, {
      ...project,
      name: null,
      client: "unregistered",
      oauth_client_id: "old.apps.googleusercontent.com",
      accounts: 1,
      active_accounts: 1,
    }], 200);
    expect(lines[1]).toMatch(/^second\s+registered\s+100\s+4\s+1\s+2\/3\s+2-x\.apps\.googleusercontent\.com$/);
    expect(lines[3]).toContain("mdame youtube-project add --name <name> --client-id old.apps.googleusercontent.com");
  });

  test("rotation names each project secret that was re-sealed or failed, not the current ones", () => {
    const lines = formatProjectOutcomes([
      { name: "a", oauth_client_id: "a.apps", outcome: "current", from_kid: "0a1b2c3d" },
      { name: "b", oauth_client_id: "b.apps", outcome: "resealed", from_kid: "0a1b2c3d" },
      { name: "c", oauth_client_id: "c.apps", outcome: "failed", from_kid: "0a1b2c3d", reason: "key gone" },
    ], false);
    expect(lines).toEqual(["  re-sealed: client secret of YouTube project b (b.apps)", "  failed: client secret of YouTube project c (c.apps): key gone"]);
  });

  test("the body refuses default as a name, an empty secret and a negative size", () => {
    const body = { name: "second", oauth_client_id: "2-x.apps.googleusercontent.com", client_secret: "s" };
    expect(RegisterYouTubeProjectBody.safeParse(body).success).toBe(true);
    for (const bad of [{ ...body, name: "default" }, { ...body, client_secret: " " }, { ...body, upload_calls_per_day: -1 }, { ...body, extra: 1 }]) {
      expect(RegisterYouTubeProjectBody.safeParse(bad).success).toBe(false);
    }
  });
});

describe("a Google project's sealed client secret", () => {
  const ring = credentialKeyRing({ CREDENTIALS_KEY: generateCredentialsKey() });

  test("opens for its own client id only, never as an account's credentials", async () => {
    const sealed = await sealClientSecret(ring, "GOCSPX-secret", "a.apps.googleusercontent.com");
    expect(sealed).toStartWith(`v2.${ring.current.kid}.`);
    expect(sealed).not.toContain("GOCSPX");
    expect(await openClientSecret(ring, sealed, "a.apps.googleusercontent.com")).toBe("GOCSPX-secret");
    await expect(openClientSecret(ring, sealed, "b.apps.googleusercontent.com")).rejects.toBeInstanceOf(ClientSecretUnreadableError);
    await expect(decryptCredentials(ring, sealed, "a.apps.googleusercontent.com")).rejects.toThrow();
    // Nor does an account's sealed credentials open as a project secret.
    const account = await encryptCredentials(ring, { refresh_token: "r" }, "a.apps.googleusercontent.com");
    await expect(openClientSecret(ring, account, "a.apps.googleusercontent.com")).rejects.toBeInstanceOf(ClientSecretUnreadableError);
  });

  test("rotation re-seals it with the new key; a ring without its key names the key", async () => {
    const old = credentialKeyRing({ CREDENTIALS_KEY: generateCredentialsKey() });
    const sealed = await sealClientSecret(old, "s", "a.apps");
    const rotated = credentialKeyRing({ CREDENTIALS_KEY: generateCredentialsKey(), CREDENTIALS_KEYS_PREVIOUS: "" });
    await expect(openClientSecret(rotated, sealed, "a.apps")).rejects.toThrow(`sealed with key ${old.current.kid}, which is not in the key ring`);
    const both = { current: rotated.current, previous: [old.current] };
    const resealed = await resealClientSecret(both, sealed, "a.apps");
    expect(resealed).toStartWith(`v2.${rotated.current.kid}.`);
    expect(await openClientSecret(rotated, resealed!, "a.apps")).toBe("s");
    expect(await resealClientSecret(both, resealed!, "a.apps")).toBeNull();
  });
});

test("a refresh token presented with another client's credentials is a refused grant, as invalid_grant is", () => {
  const refused = errorForStatus("google-oauth", 400, "token refresh failed (400) unauthorized_client: Unauthorized", undefined, "unauthorized_client");
  expect(classifyYouTubeRefusal(refused)).toMatchObject({ kind: "grant_refused", reason: expect.stringContaining("unauthorized_client") });
});

test("a connect through a registered project needs only Google's endpoints from the configuration", () => {
  const fromEnv = { baseUrl: "https://p.supabase.co/functions/v1", serviceRoleKey: "k", source: "environment" };
  expect(resolveGoogleEndpoints({}, fromEnv)).toEqual({
    authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    youtubeApiBaseUrl: "https://youtube.googleapis.com",
  });
});

describe("doctor's judgement of the projects' plans", () => {
  const plan = (over: Record<string, unknown>) => ({
    oauth_client_id: "env.apps.googleusercontent.com",
    name: null,
    client_secret_enc: null,
    upload_calls_per_day: 100,
    api_units_per_day: 10000,
    analytics_queries_per_day: 10000,
    stats_units_per_day: 10000,
    accounts: 1,
    active_accounts: 1,
    planned_uploads_per_day: 10,
    uploads_today: 0,
    created_at: new Date(),
    ...over,
  });
  const env = { GOOGLE_OAUTH_CLIENT_ID: "env.apps.googleusercontent.com" };

  test("the environment's client is the project default; a plan that fits is one ok line", () => {
    expect(judgeProjectPlans([plan({})], env)).toEqual([{
      family: "database",
      name: "youtube projects",
      status: "ok",
      message: "planned uploads a day fit every project's bucket (default 10/100)",
    }]);
  });

  test("a project over its bucket is named with how much; an unregistered client with the command that registers it", () => {
    const lines = judgeProjectPlans([
      plan({ planned_uploads_per_day: 130 }),
      plan({ oauth_client_id: "old.apps.googleusercontent.com" }),
      plan({ oauth_client_id: "idle.apps.googleusercontent.com", active_accounts: 0, accounts: 0 }),
    ], env);
    expect(lines.map((l) => [l.status, l.name])).toEqual([["warn", "youtube project default"], ["warn", "youtube project old.apps.googleusercontent.com"]]);
    expect(lines[0]!.message).toContain("130 uploads a day are planned on its 1 active account(s), its bucket takes 100 videos.insert calls a day: 30 over");
    expect(lines[0]!.fix).toContain("move accounts to a project with room (old.apps.googleusercontent.com)");
    expect(lines[1]!.fix).toContain("mdame youtube-project add --name <name> --client-id old.apps.googleusercontent.com");
  });
});
