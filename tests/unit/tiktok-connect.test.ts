/**
 * The pure parts of `mdame account connect tiktok`: the handle rule, the consent address, where
 * the TikTok app's settings come from, the command line, the API body's TikTok rules and how a
 * TikTok account needing a reconnect is listed. The flow itself: tests/integration/account-connect-tiktok.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { commandHelp, parseArgs } from "../../cli/args.ts";
import { formatAccountList, reconnectCommand } from "../../cli/commands/account.ts";
import { CliError, EXIT, UsageError } from "../../cli/errors.ts";
import { resolveTikTokOAuthConfig } from "../../cli/oauth-config.ts";
import { TIKTOK_SCOPES, tiktokConsentUrl, tiktokHandle } from "../../cli/tiktok-connect.ts";
import { ConnectAccountBody } from "../../shared/contracts/account.ts";

function thrown(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error("expected a CliError");
}

describe("tiktokHandle", () => {
  test("records `@name` whether or not the operator typed the @", () => {
    expect(tiktokHandle("creator.one")).toBe("@creator.one");
    expect(tiktokHandle("@creator_1")).toBe("@creator_1");
    expect(tiktokHandle("  @x  ")).toBe("@x");
  });

  test("refuses what is not one word of at most 100 characters", () => {
    for (const bad of ["", "@", "two words", "@a@b", "<b>", 'a"b', `@${"x".repeat(100)}`]) expect(tiktokHandle(bad)).toBeNull();
    expect(tiktokHandle(`@${"x".repeat(99)}`)).toHaveLength(100);
  });
});

describe("the consent address", () => {
  const config = { clientKey: "ck-1", clientSecret: "s", authBaseUrl: "http://127.0.0.1:9999", apiBaseUrl: "http://127.0.0.1:9999" };

  test("asks for the publishing and measuring scopes with TikTok's hex PKCE challenge, the loopback redirect and the state", async () => {
    const verifier = "v".repeat(64);
    const url = new URL(await tiktokConsentUrl(config, "http://127.0.0.1:4321/oauth2/callback", "st-1", verifier, null));
    expect(`${url.origin}${url.pathname}`).toBe("http://127.0.0.1:9999/v2/auth/authorize/");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: "ck-1",
      scope: TIKTOK_SCOPES.join(","),
      response_type: "code",
      redirect_uri: "http://127.0.0.1:4321/oauth2/callback",
      state: "st-1",
      code_challenge: createHash("sha256").update(verifier).digest("hex"),
      code_challenge_method: "S256",
    });
    // Publishing (Direct Post) and the closed loop's measures (video/query) both need their scope.
    expect(TIKTOK_SCOPES).toEqual(expect.arrayContaining(["user.info.basic", "video.publish", "video.upload", "video.list"]));
  });

  test("passes a login hint on (for the emulator), and no secret ever", async () => {
    const url = await tiktokConsentUrl({ ...config, clientSecret: "very-secret" }, "http://127.0.0.1:4321/oauth2/callback", "st", "v".repeat(64), "creator@x");
    expect(new URL(url).searchParams.get("login_hint")).toBe("creator@x");
    expect(url).not.toContain("very-secret");
  });
});

describe("where the TikTok app's settings come from", () => {
  const fromEnv = { baseUrl: "https://p.supabase.co/functions/v1", serviceRoleKey: "k", source: "environment" };
  const fromFile = { baseUrl: "http://127.0.0.1:54321/functions/v1", serviceRoleKey: "k", source: "/stack/.local/stack.env" };

  test("from the environment: key and secret required, TikTok's hosts by default", () => {
    expect(resolveTikTokOAuthConfig({ TIKTOK_CLIENT_KEY: "aw1", TIKTOK_CLIENT_SECRET: "s" }, fromEnv)).toEqual({
      clientKey: "aw1",
      clientSecret: "s",
      authBaseUrl: "https://www.tiktok.com",
      apiBaseUrl: "https://open.tiktokapis.com",
    });
    const missing = thrown(() => resolveTikTokOAuthConfig({ GOOGLE_OAUTH_CLIENT_ID: "c" }, fromEnv));
    expect(missing.exitCode).toBe(EXIT.usage);
    expect(missing.message).toContain("TIKTOK_CLIENT_KEY: not set");
    expect(missing.message).toContain("TIKTOK_CLIENT_SECRET: not set");
    expect(thrown(() => resolveTikTokOAuthConfig({ TIKTOK_CLIENT_KEY: "aw1", TIKTOK_CLIENT_SECRET: "s", TIKTOK_AUTH_BASE_URL: "ftp://x" }, fromEnv)).message)
      .toContain("TIKTOK_AUTH_BASE_URL must be an http(s) URL");
  });

  test("from the local stack's file: the emulator it wrote, the environment not mixed in", () => {
    const file =
      "TIKTOK_CLIENT_KEY=local-tiktok-client\nTIKTOK_CLIENT_SECRET=local-tiktok-secret\nTIKTOK_API_BASE_URL=http://127.0.0.1:54330/\nTIKTOK_AUTH_BASE_URL=http://127.0.0.1:54330\n";
    expect(resolveTikTokOAuthConfig({ TIKTOK_CLIENT_KEY: "other" }, fromFile, () => file)).toEqual({
      clientKey: "local-tiktok-client",
      clientSecret: "local-tiktok-secret",
      authBaseUrl: "http://127.0.0.1:54330",
      apiBaseUrl: "http://127.0.0.1:54330",
    });
    expect(thrown(() => resolveTikTokOAuthConfig({ TIKTOK_CLIENT_KEY: "k", TIKTOK_CLIENT_SECRET: "s" }, fromFile, () => "")).message)
      .toContain("not configured in /stack/.local/stack.env");
  });
});

describe("the command line", () => {
  test("connect tiktok needs a dimension and a handle; takes a login hint, a timeout, --no-browser and --json", () => {
    expect(parseArgs(["account", "connect", "tiktok", "--dimension", "d1", "--channel", "creator"])).toEqual({
      name: "account connect",
      platform: "tiktok",
      dimension: "d1",
      channel: "@creator",
      loginHint: null,
      timeoutS: 300,
      browser: true,
      json: false,
    });
    expect(
      parseArgs(["account", "connect", "tiktok", "--dimension", "d1", "--channel", "@c", "--login-hint", "c", "--timeout", "30", "--no-browser", "--json"]),
    )
      .toMatchObject({ platform: "tiktok", channel: "@c", loginHint: "c", timeoutS: 30, browser: false, json: true });
    const usage = (argv: string[]) => {
      const error = thrown(() => parseArgs(argv));
      expect(error).toBeInstanceOf(UsageError);
      return error.message;
    };
    expect(usage(["account", "connect", "tiktok", "--dimension", "d1"])).toContain("account connect tiktok needs --channel <@handle>");
    expect(usage(["account", "connect", "tiktok", "--channel", "@c"])).toBe("account connect needs --dimension <id>");
    expect(usage(["account", "connect", "tiktok", "--dimension", "d1", "--channel", "a@b"])).toContain("--channel takes a handle");
    expect(commandHelp("account connect")).toContain("TIKTOK_CLIENT_KEY");
    expect(commandHelp("account connect")).toContain("does not read from TikTok");
  });
});

describe("the API body's TikTok rules", () => {
  const body = { dimension_id: "d1", platform: "tiktok", channel_handle: "@c", channel_id: "-000abc_DEF", refresh_token: "r", oauth_client_id: "ck-1" };

  test("a TikTok account names its open_id and its client key; YouTube keeps its defaults", () => {
    expect(ConnectAccountBody.parse(body)).toEqual(body as never);
    const paths = (value: unknown) => (ConnectAccountBody.safeParse(value).error?.issues ?? []).map((i) => i.path.join("."));
    expect(paths({ ...body, channel_id: undefined })).toEqual(["channel_id"]);
    expect(paths({ ...body, oauth_client_id: undefined })).toEqual(["oauth_client_id"]);
    expect(paths({ ...body, channel_id: "UC" + "x".repeat(21) + "!" })).toEqual(["channel_id"]);
    const youtube = ConnectAccountBody.parse({ dimension_id: "d1", platform: "youtube", channel_handle: "@c", refresh_token: "r" });
    expect(youtube).toMatchObject({ channel_id: null, oauth_client_id: "default" });
    expect(paths({ ...body, platform: "youtube" })).toEqual(["channel_id"]);
  });
});

describe("a TikTok account in the list", () => {
  test("shows its platform, and the reconnect command names tiktok", () => {
    const account = {
      id: "7d3c4c1e-0a1b-4c2d-8e3f-405162738495",
      dimension_id: "tech-explained",
      platform: "tiktok" as const,
      channel_handle: "@creator",
      channel_id: "-000abc",
      active: true,
      has_credentials: true,
      oauth_client_id: "ck-1",
      youtube_project: null,
      upload_cap_24h: 15,
      health: "needs_reconnect" as const,
      health_reason: "invalid_grant",
      health_since: "2026-11-30T00:05:00Z",
      connected_at: "2026-11-30T00:00:00Z",
      created_at: "2026-11-30T00:00:00Z",
    };
    const lines = formatAccountList([account], Date.parse("2026-11-30T00:10:00Z"), 200);
    expect(lines[1]).toMatch(/tech-explained\s+tiktok\s+-\s+active\s+reconnect\s+10m ago\s+@creator \(-000abc\)$/);
    expect(lines[2]).toBe(
      "@creator (tech-explained) needs reconnecting since 5m ago (invalid_grant): mdame account connect tiktok --dimension tech-explained --channel @creator",
    );
    expect(reconnectCommand(account)).toBe("mdame account connect tiktok --dimension tech-explained --channel @creator");
    expect(formatAccountList([], 0)[0]).toContain("mdame account connect tiktok --dimension <id> --channel @handle");
  });
});
