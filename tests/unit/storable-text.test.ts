/**
 * Text the operator API takes in: every string of a JSON body (keys too) and every URL part must
 * be storable exactly (no NUL, no lone surrogate), refused with a 400 naming its path; operator
 * names must be one line with nothing a terminal acts on (ANSI escapes, CR/LF, C1, DEL, bidi
 * controls), refused by the contracts with an issue naming the field.
 */
import { describe, expect, test } from "bun:test";
import { ConnectAccountBody } from "../../shared/contracts/account.ts";
import { DimensionConfig, DimensionPatch } from "../../shared/contracts/dimension.ts";
import { AbortRunBody, TickBody, TriggerRunBody } from "../../shared/contracts/operator.ts";
import type { ErrorAnswer } from "../../shared/contracts/http-error.ts";
import { parseJsonText } from "../../shared/http/bounded-body.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { findUnstorableText, formatJsonPath, isOneLineText, visibleText } from "../../shared/text/storable.ts";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";

const GOOD = {
  id: "tech-explained",
  display_name: "Tech Explained",
  language: "en",
  tts_voice: "en-US-AriaNeural",
  trend_geo: "US",
  style: { palette: ["#0b132b", "#5bc0be"], motion: "drift" },
};

/** What a terminal acts on, or what cannot be one line of a name. */
const HOSTILE: [string, string][] = [
  ["an ANSI escape", "Tech\u001b[2J\u001b[31mExplained"],
  ["a carriage return", "Tech\rExplained"],
  ["a line feed", "Tech\nExplained"],
  ["a tab", "Tech\tExplained"],
  ["a C1 control (NEL)", "Tech\u0085Explained"],
  ["a C1 CSI", "Tech\u009b2JExplained"],
  ["DEL", "Tech\u007fExplained"],
  ["a right-to-left override", "Tech\u202eExplained"],
  ["a left-to-right embedding", "Tech\u202aExplained"],
  ["a first strong isolate", "Tech\u2068Explained"],
  ["a pop directional isolate", "Tech\u2069Explained"],
  ["a line separator", "Tech\u2028Explained"],
  ["a NUL", "Tech\u0000Explained"],
  ["a lone high surrogate", "Tech\ud800Explained"],
  ["a lone low surrogate", "Tech\udc00Explained"],
];

const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  (result.error?.issues ?? []).map((issue) => issue.path.map(String).join("."));

describe("one-line operator text", () => {
  test("names in any script, with emoji and marks, are accepted as written", () => {
    for (const name of ["Tech Explained", "Наука коротко", "東京の天気", "العلوم ببساطة", "Café ☕ 👩‍💻", "Zürich — news"]) {
      expect(isOneLineText(name)).toBe(true);
      expect(DimensionConfig.parse({ ...GOOD, display_name: name }).display_name).toBe(name);
    }
  });

  test.each(HOSTILE)("%s is refused in every name-like field of a dimension, named by its path", (_what, text) => {
    const result = DimensionPatch.safeParse({
      display_name: text,
      style: { ...GOOD.style, caption_font: text },
      subject: { keywords: ["space", "rockets", text], categories: [text], excluded_terms: [text] },
      safety_profile: { blocked_terms: [text] },
      sources: [{ kind: "feed", url: `https://feeds.example.test/${text}` }],
    });
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toEqual(expect.arrayContaining([
      "display_name",
      "style.caption_font",
      "subject.keywords.2",
      "subject.categories.0",
      "subject.excluded_terms.0",
      "safety_profile.blocked_terms.0",
      "sources.0.url",
    ]));
  });

  test.each(HOSTILE)("%s is refused in the run, tick, abort and account bodies", (_what, text) => {
    expect(issuePaths(TriggerRunBody.safeParse({ dimension: text }))).toContain("dimension");
    expect(issuePaths(TriggerRunBody.safeParse({ idempotency_key: `key-${text}` }))).toContain("idempotency_key");
    expect(issuePaths(TickBody.safeParse({ reason: text }))).toContain("reason");
    expect(issuePaths(AbortRunBody.safeParse({ reason: text }))).toContain("reason");
    const account = { dimension_id: "tech-explained", platform: "youtube", refresh_token: "1//token" };
    expect(issuePaths(ConnectAccountBody.safeParse({ ...account, channel_handle: `@tech${text}` }))).toContain("channel_handle");
  });

  test("what an error quotes of an input is escaped, so a terminal shows it instead of acting on it", () => {
    expect(visibleText("a\u001b[31m\u202eb\ud800c😀")).toBe("a\\u001b[31m\\u202eb\\ud800c😀");
  });
});

describe("storable JSON bodies", () => {
  test("the first unstorable string is found in document order, keys included, with its path", () => {
    const body = { display_name: "ok", subject: { keywords: ["a", "b", "c\ud800"] }, later: "\u0000" };
    const found = findUnstorableText(body);
    expect(found && formatJsonPath(found.path)).toBe("subject.keywords[2]");
    const key = findUnstorableText({ subject: { ["k\u0000"]: 1 } });
    expect(key).toMatchObject({ key: true, path: ["subject", "k\u0000"] });
    expect(key && formatJsonPath(key.path)).toBe('subject["k\\u0000"]');
    expect(findUnstorableText({ a: ["fine", { b: "Café ☕ 👩‍💻" }] })).toBeUndefined();
  });

  test("parseJsonText refuses a lone surrogate escape with a 400 naming the field", () => {
    const refused = (() => {
      try {
        parseJsonText('{"sources": [{"kind": "feed", "url": "https://a.test/\\udfff"}]}');
      } catch (error) {
        return error as { status: number; message: string; issue: unknown };
      }
    })();
    expect(refused?.status).toBe(400);
    expect(refused?.message).toStartWith("sources[0].url: ");
    expect(refused?.message).toContain("lone surrogate");
    expect(refused?.issue).toMatchObject({ code: "unstorable_text", path: ["sources", 0, "url"] });
  });
});

describe("the pipeline app", () => {
  const KEY = "service-role-key-for-tests";
  const unusedSql = new Proxy(() => {}, {
    get: () => {
      throw new Error("no database in unit tests");
    },
    apply: () => {
      throw new Error("no database in unit tests");
    },
  });
  const deps = {
    env: { ENV: "dev", SERVICE_ROLE_KEY: KEY, FUNCTIONS_URL: "http://edge.test" },
    sql: unusedSql,
    logger: createLogger("pipeline", { write: () => {} }, "fatal"),
  } as unknown as PipelineDeps;
  const app = createPipelineApp(deps);
  const send = (method: string, path: string, body?: string) =>
    app.request(`http://edge.test/pipeline${path}`, { method, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body });

  test.each([
    ["PATCH", "/dimensions/tech-explained", "display_name", '{"display_name": "\\ud800"}'],
    ["PATCH", "/dimensions/tech-explained", "subject.keywords[2]", '{"subject": {"keywords": ["a", "b", "x\\udbff"]}}'],
    [
      "PATCH",
      "/dimensions/tech-explained",
      "style.caption_font",
      '{"style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "\\udc00"}}',
    ],
    ["POST", "/dimensions", "sources[0].url", '{"id": "x1", "sources": [{"kind": "feed", "url": "https://a.test/\\ud800"}]}'],
    ["POST", "/runs", "dimension", '{"dimension": "tech\\ud800"}'],
    ["POST", "/accounts", "refresh_token", '{"channel_handle": "@a", "refresh_token": "\\udfff"}'],
  ])("%s %s with a lone surrogate is a 400 naming %s, before any database call", async (method, path, field, body) => {
    const response = await send(method, path, body);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as ErrorAnswer;
    expect(answer.error).toStartWith(`${field}: `);
    expect(answer.issues?.[0]?.code).toBe("unstorable_text");
  });

  test.each([
    ["/runs?limit=%00", "query.limit", "NUL"],
    ["/accounts?dimension=%ED%A0%80", "query.dimension", "not percent-encoded UTF-8"],
    ["/dimensions/%ED%A0%80", "path[3]", "not percent-encoded UTF-8"],
    ["/dimensions/a%00b", "path[3]", "NUL"],
  ])("GET %s is a 400 naming %s", async (path, field, reason) => {
    const response = await send("GET", path);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as ErrorAnswer;
    expect(answer.error).toStartWith(`${field}: `);
    expect(answer.error).toContain(reason);
  });

  test("a bad route parameter is a 400 whose issue names it", async () => {
    const response = await send("GET", "/dimensions/Not_An_Id!");
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorAnswer).issues?.[0]?.path).toEqual(["id"]);
  });

  test.each(["null", "[]", "true", '"yes"'])("POST /housekeeping with the body %s is a 400 before any database call, never a default pass", async (body) => {
    const response = await send("POST", "/housekeeping", body);
    expect(response.status).toBe(400);
  });

  test("a trailing slash is a 404 on every method, not a 405 claiming the path serves GET", async () => {
    for (const method of ["GET", "POST", "DELETE"]) {
      const response = await send(method, "/dimensions/");
      expect({ method, status: response.status, allow: response.headers.get("allow") }).toEqual({ method, status: 404, allow: null });
    }
    const wrongMethod = await send("DELETE", "/dimensions");
    expect({ status: wrongMethod.status, allow: wrongMethod.headers.get("allow") }).toEqual({ status: 405, allow: "GET, HEAD, POST" });
  });

  test("an ANSI escape in a display name is a 400 naming the field", async () => {
    const response = await send("PATCH", "/dimensions/tech-explained", JSON.stringify({ display_name: "\u001b]0;owned\u0007Tech" }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorAnswer).issues?.map((i) => i.path.join("."))).toEqual(["display_name"]);
  });
});
