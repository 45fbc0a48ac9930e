/**
 * `mdame dimension ...` and `mdame account ...` without a server: parsing, usage errors, where the
 * OAuth client and Google's endpoints come from, how refused configs read, and the tables.
 */
import { describe, expect, test } from "bun:test";
import { commandHelp, parseArgs } from "../../cli/args.ts";
import { formatAccountList } from "../../cli/commands/account.ts";
import { formatDimensionList } from "../../cli/commands/dimension.ts";
import { DEFAULT_PUBLISHING } from "../../shared/contracts/publishing.ts";
import { DEFAULT_ADAPT } from "../../shared/contracts/adapt.ts";
import { DEFAULT_SIMILARITY } from "../../shared/contracts/similarity.ts";
import { apiError, EXIT, UsageError } from "../../cli/errors.ts";
import { main } from "../../cli/main.ts";
import { resolveOAuthConfig } from "../../cli/oauth-config.ts";

const ACCOUNT = "7d3c4c1e-0a1b-4c2d-8e3f-405162738495";

function usageError(argv: string[]): UsageError {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`parseArgs(${JSON.stringify(argv)}) accepted it`);
}

describe("dimension commands", () => {
  test("list, show, add, pause and resume", () => {
    expect(parseArgs(["dimension", "list", "--json"])).toEqual({ name: "dimension list", json: true });
    expect(parseArgs(["dimension", "show", "tech-explained"])).toEqual({ name: "dimension show", id: "tech-explained", json: false });
    expect(parseArgs(["dimension", "add", "--file", "d.yaml"])).toEqual({ name: "dimension add", file: "d.yaml", json: false });
    expect(parseArgs(["dimension", "pause", "tech-explained"])).toEqual({ name: "dimension pause", id: "tech-explained", json: false });
    expect(parseArgs(["dimension", "resume", "tech-explained", "--json"])).toEqual({ name: "dimension resume", id: "tech-explained", json: true });
  });

  test("set takes a file and field flags, which name the configuration fields they change", () => {
    expect(parseArgs(["dimension", "set", "tech-explained", "--daily-limit", "3", "--rate", "-10%", "--voice=en-GB-SoniaNeural", "--file", "p.json"])).toEqual({
      name: "dimension set",
      id: "tech-explained",
      file: "p.json",
      fields: { daily_limit: 3, tts_rate: "-10%", tts_voice: "en-GB-SoniaNeural" },
      publishing: {},
      json: false,
    });
    expect(
      parseArgs([
        "dimension",
        "set",
        "x1",
        "--narration-min-words",
        "70",
        "--narration-max-words",
        "90",
        "--trend-geo",
        "GB",
        "--display-name",
        "X",
        "--language",
        "en",
      ]),
    )
      .toMatchObject({ fields: { narration_min_words: 70, narration_max_words: 90, trend_geo: "GB", display_name: "X", language: "en" } });
  });

  test("publishing flags name the publishing fields they change; none clears, true/false are booleans", () => {
    expect(parseArgs([
      "dimension",
      "set",
      "sains-singkat",
      "--time-zone",
      "Asia/Jakarta",
      "--publish-time",
      "18:00",
      "--run-time",
      "none",
      "--privacy",
      "unlisted",
      "--category",
      "28",
      "--made-for-kids",
      "false",
      "--synthetic-media",
      "true",
      "--audio-language",
      "id",
    ])).toEqual({
      name: "dimension set",
      id: "sains-singkat",
      file: null,
      fields: {},
      json: false,
      publishing: {
        time_zone: "Asia/Jakarta",
        publish_time: "18:00",
        run_time: null,
        privacy_status: "unlisted",
        category_id: "28",
        made_for_kids: false,
        contains_synthetic_media: true,
        default_audio_language: "id",
      },
    });
  });

  test("usage errors name what is missing or wrong", () => {
    expect(usageError(["dimension", "add"]).message).toBe("dimension add needs --file <config>");
    expect(usageError(["dimension", "set", "tech-explained"]).message).toContain("needs --file <config> or a field flag");
    expect(usageError(["dimension", "show"]).message).toBe("dimension show needs <id>");
    expect(usageError(["dimension", "show", "Not An Id"]).message).toContain("not a dimension id");
    expect(usageError(["dimension", "set", "x1", "--daily-limit", "two"]).message).toContain("--daily-limit takes a whole number");
    expect(usageError(["dimension", "delete", "x1"]).message).toBe("unknown command: dimension delete");
    expect(usageError(["dimension"]).message).toBe("dimension needs a subcommand");
  });
});

describe("account commands", () => {
  test("connect youtube needs a dimension; takes a channel, a login hint, a timeout and --no-browser", () => {
    expect(parseArgs(["account", "connect", "youtube", "--dimension", "tech-explained"])).toEqual({
      name: "account connect",
      platform: "youtube",
      dimension: "tech-explained",
      channel: null,
      project: null,
      loginHint: null,
      timeoutS: 300,
      browser: true,
      json: false,
    });
    expect(
      parseArgs([
        "account",
        "connect",
        "youtube",
        "--dimension",
        "d1",
        "--channel",
        "@mine",
        "--login-hint",
        "me@example.invalid",
        "--timeout",
        "30",
        "--no-browser",
        "--json",
      ]),
    )
      .toMatchObject({ channel: "@mine", loginHint: "me@example.invalid", timeoutS: 30, browser: false, json: true });
    expect(usageError(["account", "connect", "youtube"]).message).toBe("account connect needs --dimension <id>");
    expect(usageError(["account", "connect", "threads", "--dimension", "d1"]).message).toContain("the platforms are youtube, tiktok, instagram and facebook");
    expect(usageError(["account", "connect", "youtube", "--dimension", "d1", "--timeout", "1"]).message).toContain("from 5 to 3600");
    expect(usageError(["account", "connect", "youtube", "--dimension", "d1", "--channel", "two words"]).message).toContain("--channel takes a handle");
  });

  test("connect instagram and facebook take a Page, not a channel or a project", () => {
    expect(parseArgs(["account", "connect", "instagram", "--dimension", "d1"])).toMatchObject({ platform: "instagram", dimension: "d1", page: null });
    expect(parseArgs(["account", "connect", "facebook", "--dimension", "d1", "--page", "Sky Facts"])).toMatchObject({
      platform: "facebook",
      page: "Sky Facts",
    });
    expect(usageError(["account", "connect", "facebook", "--dimension", "d1", "--channel", "@x"]).message).toContain("--channel is not for facebook");
    expect(usageError(["account", "connect", "instagram", "--dimension", "d1", "--project", "second"]).message).toContain("--project is for youtube");
    expect(usageError(["account", "connect", "tiktok", "--dimension", "d1", "--channel", "@x", "--page", "P"]).message).toContain(
      "--page is for instagram and facebook",
    );
  });

  test("list, pause, resume and remove", () => {
    expect(parseArgs(["account", "list"])).toEqual({ name: "account list", dimension: null, json: false });
    expect(parseArgs(["account", "list", "--dimension", "d1", "--json"])).toEqual({ name: "account list", dimension: "d1", json: true });
    expect(parseArgs(["account", "pause", ACCOUNT.toUpperCase()])).toEqual({ name: "account pause", id: ACCOUNT, json: false });
    expect(parseArgs(["account", "remove", ACCOUNT])).toEqual({ name: "account remove", id: ACCOUNT, json: false });
    expect(usageError(["account", "resume", "42"]).message).toContain("not an account id");
  });

  test("the help lists the new commands and what connect needs", () => {
    expect(commandHelp("dimension")).toContain("mdame dimension set <id>");
    expect(commandHelp("account connect")).toContain("GOOGLE_OAUTH_CLIENT_ID");
    expect(commandHelp(null)).toContain("account connect");
  });
});

describe("where the OAuth client and Google's endpoints come from", () => {
  const fromEnv = { baseUrl: "https://p.supabase.co/functions/v1", serviceRoleKey: "k", source: "environment" };
  const fromFile = { baseUrl: "http://127.0.0.1:54321/functions/v1", serviceRoleKey: "k", source: "/stack/.local/stack.env" };

  test("from the environment: the client is required, the endpoints default to Google's", () => {
    expect(resolveOAuthConfig({ GOOGLE_OAUTH_CLIENT_ID: "c.apps.googleusercontent.com", GOOGLE_OAUTH_CLIENT_SECRET: "s" }, fromEnv)).toEqual({
      clientId: "c.apps.googleusercontent.com",
      clientSecret: "s",
      authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
      tokenUrl: "https://oauth2.googleapis.com/token",
      youtubeApiBaseUrl: "https://youtube.googleapis.com",
    });
    expect(() => resolveOAuthConfig({ GOOGLE_OAUTH_CLIENT_ID: "c" }, fromEnv)).toThrow("GOOGLE_OAUTH_CLIENT_SECRET: not set");
    expect(() => resolveOAuthConfig({ GOOGLE_OAUTH_CLIENT_ID: "c", GOOGLE_OAUTH_CLIENT_SECRET: "s", GOOGLE_OAUTH_AUTH_URL: "ftp://x" }, fromEnv))
      .toThrow("GOOGLE_OAUTH_AUTH_URL must be an http(s) URL");
  });

  test("from the local stack's file: the endpoints it wrote, and the environment is not mixed in", () => {
    const file = [
      "GOOGLE_OAUTH_CLIENT_ID=local.apps.googleusercontent.com",
      "GOOGLE_OAUTH_CLIENT_SECRET=x",
      "GOOGLE_OAUTH_AUTH_URL=http://127.0.0.1:54330/o/oauth2/v2/auth",
      "GOOGLE_OAUTH_TOKEN_URL=http://127.0.0.1:54330/token",
      "YOUTUBE_API_BASE_URL=http://127.0.0.1:54330",
      "EMULATOR_URL=http://127.0.0.1:54330",
    ].join("\n");
    const config = resolveOAuthConfig({ GOOGLE_OAUTH_CLIENT_ID: "other" }, fromFile, () => file);
    expect(config).toEqual({
      clientId: "local.apps.googleusercontent.com",
      clientSecret: "x",
      authUrl: "http://127.0.0.1:54330/o/oauth2/v2/auth",
      tokenUrl: "http://127.0.0.1:54330/token",
      youtubeApiBaseUrl: "http://127.0.0.1:54330",
    });
  });

  test("from a stack file of a stack on the real YouTube: Google's endpoints, never the emulator's", () => {
    const file = "GOOGLE_OAUTH_CLIENT_ID=123-abc.apps.googleusercontent.com\nGOOGLE_OAUTH_CLIENT_SECRET=GOCSPX-x\nEMULATOR_URL=http://127.0.0.1:54330\n";
    const config = resolveOAuthConfig({}, fromFile, () => file);
    expect(config.authUrl).toBe("https://accounts.google.com/o/oauth2/v2/auth");
    expect(config.tokenUrl).toBe("https://oauth2.googleapis.com/token");
    expect(config.youtubeApiBaseUrl).toBe("https://youtube.googleapis.com");
  });
});

describe("what the operator reads", () => {
  test("a 400 with several issues lists each on its own line, unknown fields one by one", () => {
    const error = apiError(400, {
      error: "invalid request",
      issues: [{ code: "too_big", path: ["daily_limit"], message: "must be 0 to 50" }, {
        code: "unrecognized_keys",
        path: [],
        keys: ["a", "b"],
        message: "Unrecognized keys",
      }],
    }, "u");
    expect(error.message).toBe("the API refused the request:\n  daily_limit: must be 0 to 50\n  a: unknown field\n  b: unknown field");
    expect(error.exitCode).toBe(EXIT.failure);
  });

  test("the dimension and account tables", () => {
    const dimension = {
      id: "tech-explained",
      display_name: "Tech Explained",
      language: "en" as const,
      tts_voice: "en-US-AriaNeural",
      tts_fallback_voice: null,
      tts_rate: "+0%",
      trend_geo: "US",
      style: { palette: ["#000000", "#ffffff"], motion: "drift" as const, caption_font: "DejaVu Sans" },
      safety_profile: { blocked_terms: [], blocked_categories: [], strictness: "standard" as const },
      visuals: { backends: ["procedural" as const], pexels_blocklist: [] },
      daily_limit: 1,
      narration_min_words: 95,
      narration_max_words: 150,
      llm: {},
      captions: { profile: "intersection" as const },
      music: null,
      active: false,
      created_at: "2026-11-30T00:00:00Z",
      updated_at: "2026-11-30T00:00:00Z",
      subject: { keywords: [], categories: [], excluded_terms: [] },
      sources: [{ kind: "google_trends" as const, weight: 1 }],
      min_score: 0,
      publishing: { ...DEFAULT_PUBLISHING },
      adapt: DEFAULT_ADAPT,
      similarity: DEFAULT_SIMILARITY,
      budget: null,
      alerts: null,
      review: null,
      accounts: 2,
      active_accounts: 1,
    };
    const [header, row] = formatDimensionList([dimension]);
    expect(header).toStartWith("id");
    expect(row).toMatch(/^tech-explained\s+paused\s+en\s+en-US-AriaNeural \+0%\s+US\s+1\s+95-150\s+1\/2\s+Tech Explained$/);
    expect(formatDimensionList([])[0]).toContain("mdame dimension add");

    const account = {
      id: ACCOUNT,
      dimension_id: "tech-explained",
      platform: "youtube" as const,
      channel_handle: "@tech",
      channel_id: null,
      active: true,
      has_credentials: true,
      oauth_client_id: "default",
      youtube_project: "default",
      upload_cap_24h: 15,
      health: "ok" as const,
      health_reason: null,
      health_since: null,
      connected_at: "2026-11-30T00:00:00Z",
      created_at: "2026-11-30T00:00:00Z",
    };
    const lines = formatAccountList([account, { ...account, has_credentials: false, connected_at: null, active: false }], Date.parse("2026-11-30T00:10:00Z"));
    expect(lines[1]).toMatch(/youtube\s+default\s+active\s+stored\s+10m ago\s+@tech$/);
    expect(lines[2]).toMatch(/paused\s+missing\s+-\s+@tech$/);
    expect(lines).toHaveLength(3);

    const refused = {
      ...account,
      health: "needs_reconnect" as const,
      health_reason: "invalid_grant: Token has been expired or revoked.",
      health_since: "2026-11-30T00:05:00Z",
    };
    const withRefused = formatAccountList([refused], Date.parse("2026-11-30T00:10:00Z"));
    expect(withRefused[1]).toMatch(/active\s+reconnect\s+10m ago\s+@tech$/);
    expect(withRefused[2]).toBe(
      "@tech (tech-explained) needs reconnecting since 5m ago (invalid_grant: Token has been expired or revoked.): " +
        "mdame account connect youtube --dimension tech-explained --channel @tech",
    );
  });

  test("a config file that breaks the contract is refused with every field named and nothing sent (exit 2)", async () => {
    const path = `${process.env.TMPDIR ?? "/tmp"}/mdame-unit-bad-${process.pid}.json`;
    await Bun.write(path, JSON.stringify({ id: "ok-id", language: "english", daily_limit: 500 }));
    const err: string[] = [];
    let called = false;
    const code = await main(["dimension", "add", "--file", path], {
      out: { write: () => {} },
      err: { write: (s: string) => err.push(s) },
      env: { FUNCTIONS_URL: "http://api.test/functions/v1", SERVICE_ROLE_KEY: "srk" },
      fetch: async () => {
        called = true;
        return new Response("{}");
      },
    });
    expect(code).toBe(EXIT.usage);
    expect(called).toBe(false);
    const text = err.join("");
    for (const field of ["display_name", "language", "tts_voice", "trend_geo", "style", "daily_limit"]) expect(text).toContain(`  ${field}: `);
    expect(
      await main(["dimension", "add", "--file", "/nonexistent/x.json"], {
        out: { write: () => {} },
        err: { write: (s: string) => err.push(s) },
        env: { FUNCTIONS_URL: "http://a.test", SERVICE_ROLE_KEY: "k" },
      }),
    ).toBe(EXIT.usage);
    expect(err.join("")).toContain("cannot read /nonexistent/x.json: no such file");
  });
});
