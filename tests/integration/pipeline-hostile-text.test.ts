/**
 * The operator API against text the database cannot store exactly or a terminal would act on, with
 * the real Postgres behind it: a lone surrogate (which jsonb refuses and a text parameter would turn
 * into U+FFFD) or a control character in a name is a 400 naming the field, never a 500, and nothing
 * is written; text in any script is stored exactly as sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ErrorAnswer } from "../../shared/contracts/http-error.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type InProcessPipeline, startInProcessPipeline } from "../fixtures/in-process-pipeline.ts";

const admin = adminSql();

const BASE = "http://edge.test/pipeline";
const DIMENSION = {
  id: "hostile-text",
  display_name: "Hostile Text",
  language: "en",
  tts_voice: "en-US-AriaNeural",
  trend_geo: "US",
  style: { palette: ["#0b132b", "#5bc0be"], motion: "drift" },
};
const errorLines: string[] = [];
let deps: InProcessPipeline["deps"];
let app: InProcessPipeline["app"];
let auth: Record<string, string>;
let pipeline: InProcessPipeline;

beforeAll(async () => {
  pipeline = await startInProcessPipeline({ name: "hostile-text", log: { write: (line: string) => void errorLines.push(line), level: "error" } });
  ({ app, deps } = pipeline);
  auth = { authorization: pipeline.bearer, "content-type": "application/json" };
  const created = await send("POST", "/dimensions", JSON.stringify(DIMENSION));
  expect(created.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await pipeline?.close();
}, 60_000);

async function send(method: string, path: string, body: string): Promise<Response> {
  return await app.request(`${BASE}${path}`, { method, headers: auth, body });
}

/** The stored configuration, as text exactly as Postgres holds it. */
const storedRow = async () => (await admin`select display_name, style::text, subject::text, sources::text from mdame.dimensions where id = ${DIMENSION.id}`)[0];

/** The answer to a refused request: its status, the field the issues name, and the message. */
async function refusal(response: Response) {
  const answer = (await response.json()) as ErrorAnswer;
  return { status: response.status, fields: (answer.issues ?? []).map((i) => i.path.join(".")), error: answer.error };
}

describe("a lone surrogate in a JSON body", () => {
  test.each([
    ["display_name", '{"display_name": "\\ud800"}', "display_name"],
    ["style.caption_font", '{"style": {"palette": ["#0b132b", "#5bc0be"], "motion": "drift", "caption_font": "Deja\\ud800Vu"}}', "style.caption_font"],
    ["subject.keywords[2]", '{"subject": {"keywords": ["space", "rockets", "moon\\udc00"]}}', "subject.keywords.2"],
    ["sources[0].url", '{"sources": [{"kind": "feed", "url": "https://feeds.example.test/\\ud83d"}]}', "sources.0.url"],
  ])("PATCH %s is a 400 naming the field, and the dimension is unchanged", async (named, body, field) => {
    const before = await storedRow();
    const { status, fields, error } = await refusal(await send("PATCH", `/dimensions/${DIMENSION.id}`, body));
    expect(status).toBe(400);
    expect(fields).toEqual([field]);
    expect(error).toBe(`${named}: holds a lone surrogate (half of a UTF-16 pair), which has no UTF-8 form`);
    expect(await storedRow()).toEqual(before);
  });

  test("POST /dimensions with one is a 400 and creates nothing", async () => {
    const body = JSON.stringify({ ...DIMENSION, id: "surrogate-name" }).replace('"Hostile Text"', '"Hostile \\udfff Text"');
    const { status, fields } = await refusal(await send("POST", "/dimensions", body));
    expect(status).toBe(400);
    expect(fields).toEqual(["display_name"]);
    expect(await admin`select id from mdame.dimensions where id = 'surrogate-name'`).toHaveLength(0);
  });

  test("a text parameter (the trigger's dimension) is a 400 naming it, never read as U+FFFD", async () => {
    const { status, fields } = await refusal(await send("POST", "/runs", '{"dimension": "hostile-text\\ud800"}'));
    expect(status).toBe(400);
    expect(fields).toEqual(["dimension"]);
    expect((await admin`select count(*)::int as n from mdame.pipeline_runs`)[0].n).toBe(0);
  });

  test("an object key holding one is named too", async () => {
    const { status, error } = await refusal(await send("PATCH", `/dimensions/${DIMENSION.id}`, '{"subject": {"key\\ud800": []}}'));
    expect(status).toBe(400);
    expect(error).toStartWith('subject["key\\ud800"]: the key holds a lone surrogate');
  });
});

describe("control characters in operator names", () => {
  test.each([
    ["an ANSI escape", "Hostile\u001b[2J\u001b[31m Text"],
    ["a CR LF", "Hostile\r\nText"],
    ["a right-to-left override", "Hostile \u202eTxet"],
    ["an isolate", "Hostile \u2067Text\u2069"],
    ["a C1 control", "Hostile\u009bText"],
    ["DEL", "Hostile\u007fText"],
  ])("%s in display_name, caption_font and keywords is a 400 naming each field; nothing is stored", async (_what, text) => {
    const before = await storedRow();
    const body = JSON.stringify({
      display_name: text,
      style: { ...DIMENSION.style, caption_font: text },
      subject: { keywords: ["space", text] },
    });
    const { status, fields } = await refusal(await send("PATCH", `/dimensions/${DIMENSION.id}`, body));
    expect(status).toBe(400);
    expect(fields.sort()).toEqual(["display_name", "style.caption_font", "subject.keywords.1"]);
    expect(await storedRow()).toEqual(before);
  });

  test("an account's channel handle with an escape is a 400 naming it; no account is stored", async () => {
    const body = JSON.stringify({ dimension_id: DIMENSION.id, platform: "youtube", channel_handle: "@hostile\u001b]0;x\u0007", refresh_token: "1//token" });
    const { status, fields } = await refusal(await send("POST", "/accounts", body));
    expect(status).toBe(400);
    expect(fields).toEqual(["channel_handle"]);
    expect(await admin`select id from mdame.dimension_accounts where dimension_id = ${DIMENSION.id}`).toHaveLength(0);
  });
});

test("text in any script, with emoji and joiners, is stored exactly as sent", async () => {
  const name = "Наука 東京 العلوم 👩‍💻 Café";
  const keyword = "𝔘𝔫𝔦𝔠𝔬𝔡𝔢";
  const response = await send("PATCH", `/dimensions/${DIMENSION.id}`, JSON.stringify({ display_name: name, subject: { keywords: [keyword] } }));
  expect(response.status).toBe(200);
  const [row] = await admin`select display_name, subject->'keywords'->>0 as keyword from mdame.dimensions where id = ${DIMENSION.id}`;
  expect(row).toEqual({ display_name: name, keyword });
  expect(errorLines).toEqual([]);
});
