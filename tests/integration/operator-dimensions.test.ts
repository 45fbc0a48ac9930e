/**
 * `mdame dimension ...` and `mdame account list|pause|resume|remove` against the real Postgres: the
 * pipeline API served on a free port, `mdame` spawned as a real process, the rows checked after.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type PipelineServer, servePipeline } from "../fixtures/pipeline-server.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();

let pipeline: PipelineServer;
let serviceRoleKey: string;
let dir: string;

const NEW_DIMENSION = {
  id: "space-minutes",
  display_name: "Space Minutes",
  language: "en",
  tts_voice: "en-GB-SoniaNeural",
  trend_geo: "GB",
  style: { palette: ["#000814", "#001d3d", "#ffc300"], motion: "zoom" },
  safety_profile: { blocked_terms: ["casino"] },
  daily_limit: 2,
};

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const env: Record<string, string> = { ...localStackEnv(), LOG_LEVEL: "warn" };
  serviceRoleKey = env.SERVICE_ROLE_KEY;
  pipeline = servePipeline(env);
  dir = await mkdtemp(join(tmpdir(), "mdame-dimensions-"));
}, 60_000);

afterAll(async () => {
  await pipeline?.stop();
  await db.reset({ log: () => {} });
  await rm(dir, { recursive: true, force: true });
}, 60_000);

async function mdame(args: string[]) {
  const child = Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), ...args], {
    cwd: paths.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: pipeline.functionsUrl, SERVICE_ROLE_KEY: serviceRoleKey },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const dimensionRow = (id: string) => admin`select * from mdame.dimensions where id = ${id}`.then((rows) => rows[0]);
const auth = () => ({ authorization: `Bearer ${serviceRoleKey}`, "content-type": "application/json" });

describe("mdame dimension", () => {
  test("add stores a dimension from a JSON file with its defaults; show and list print it", async () => {
    const added = await mdame(["dimension", "add", "--file", await file("space.json", NEW_DIMENSION)]);
    expect(added).toMatchObject({ code: 0, stderr: "" });
    expect(added.stdout).toContain("dimension space-minutes added");
    const row = await dimensionRow("space-minutes");
    expect(row).toMatchObject({ tts_rate: "+0%", daily_limit: 2, narration_min_words: 95, narration_max_words: 150, active: true });
    expect(row.style).toEqual({ palette: ["#000814", "#001d3d", "#ffc300"], motion: "zoom", caption_font: "DejaVu Sans" });

    const shown = await mdame(["dimension", "show", "space-minutes", "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: "space-minutes", accounts: 0, active: true, trend_geo: "GB" });
    const listed = await mdame(["dimension", "list"]);
    expect(listed.stdout.split("\n").map((l) => l.split(/\s+/)[0])).toEqual(["id", "sains-singkat", "space-minutes", "tech-explained", ""]);
  });

  test("a YAML file is read the same way", async () => {
    const yaml = [
      "id: yaml-facts",
      "display_name: YAML Facts",
      "language: id",
      "tts_voice: id-ID-ArdiNeural",
      "trend_geo: ID",
      "style:",
      "  palette: ['#111111', '#eeeeee']",
      "  motion: pulse",
      "narration_min_words: 80",
      "narration_max_words: 120",
      "",
    ].join("\n");
    expect((await mdame(["dimension", "add", "--file", await file("facts.yaml", yaml)])).code).toBe(0);
    expect(await dimensionRow("yaml-facts")).toMatchObject({ language: "id", narration_min_words: 80, narration_max_words: 120 });
  });

  test("a bad config names every bad field at once and stores nothing", async () => {
    const bad = { ...NEW_DIMENSION, id: "Bad Id", language: "french", daily_limit: 99, trend_geo: "gb", colour: "red" };
    const result = await mdame(["dimension", "add", "--file", await file("bad.json", bad)]);
    expect(result.code).toBe(2);
    for (
      const line of [
        "  id: must be",
        "  language: must be a BCP-47 language tag like en, ru-RU or ja-JP",
        "  daily_limit: must be 0 to 50",
        "  trend_geo: must be a two-letter",
        "  colour: unknown field",
      ]
    ) {
      expect(result.stderr).toContain(line);
    }
    expect([...await admin`select id from mdame.dimensions where id not in ('tech-explained', 'sains-singkat', 'space-minutes', 'yaml-facts')`]).toEqual([]);

    // The API holds the same line for callers other than mdame: 400 with every issue, nothing stored.
    const direct = await pipeline.app.request("/pipeline/dimensions", {
      method: "POST",
      headers: auth(),
      body: JSON.stringify({ ...NEW_DIMENSION, id: "direct-one", tts_voice: "id-ID-ArdiNeural", daily_limit: -1 }),
    });
    expect(direct.status).toBe(400);
    const issues = ((await direct.json()) as { issues: { path: string[] }[] }).issues.map((i) => i.path.join("."));
    expect(issues.sort()).toEqual(["daily_limit", "tts_voice"]);
    expect(await dimensionRow("direct-one")).toBeUndefined();
  });

  test("an id already taken is a conflict (exit 5) and leaves the stored dimension alone", async () => {
    const again = await mdame(["dimension", "add", "--file", await file("again.json", { ...NEW_DIMENSION, display_name: "Other" })]);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain("dimension space-minutes already exists");
    expect((await dimensionRow("space-minutes")).display_name).toBe("Space Minutes");
  });

  test("set changes the named fields from flags and a file, and checks the merged configuration whole", async () => {
    const set = await mdame([
      "dimension",
      "set",
      "space-minutes",
      "--daily-limit",
      "3",
      "--rate",
      "-10%",
      "--file",
      await file("patch.json", { display_name: "Space in a Minute" }),
    ]);
    expect(set.code).toBe(0);
    expect(await dimensionRow("space-minutes")).toMatchObject({ daily_limit: 3, tts_rate: "-10%", display_name: "Space in a Minute", trend_geo: "GB" });

    // Each field alone is fine; merged, the voice no longer speaks the language: refused, unchanged.
    const mismatch = await mdame(["dimension", "set", "space-minutes", "--language", "id"]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain("tts_voice: speaks en-GB, but the dimension's language is id");
    const narrow = await mdame(["dimension", "set", "space-minutes", "--narration-min-words", "145"]);
    expect(narrow.stderr).toContain("narration_max_words: must be at least 10 more than narration_min_words (145)");
    expect(await dimensionRow("space-minutes")).toMatchObject({ language: "en", narration_min_words: 95 });

    // `show --json` output given back whole changes nothing, not even updated_at.
    const shown = await mdame(["dimension", "show", "space-minutes", "--json"]);
    const before = (await dimensionRow("space-minutes")).updated_at;
    expect((await mdame(["dimension", "set", "space-minutes", "--file", await file("shown.json", shown.stdout)])).code).toBe(0);
    expect((await dimensionRow("space-minutes")).updated_at).toEqual(before);

    expect((await mdame(["dimension", "set", "no-such-dimension", "--daily-limit", "1"])).code).toBe(4);
    expect((await mdame(["dimension", "set", "space-minutes"])).code).toBe(2);
  });

  test("publishing settings: flags change only the ones they name, show prints them and when production starts", async () => {
    expect((await dimensionRow("space-minutes")).publishing).toEqual({
      category_id: "27",
      privacy_status: "public",
      time_zone: "UTC",
      publish_time: null,
      run_time: null,
      made_for_kids: false,
      contains_synthetic_media: true,
      default_audio_language: null,
    });
    const set = await mdame(["dimension", "set", "space-minutes", "--time-zone", "asia/jakarta", "--publish-time", "18:00", "--category", "28"]);
    expect(set).toMatchObject({ code: 0, stderr: "" });
    expect(set.stdout).toMatch(/^ {4}publish_time +18:00$/m);
    expect(set.stdout).toMatch(/^ {4}run_time +14:00 Asia\/Jakarta \(4 h before publish_time\)$/m);
    expect(set.stdout).toMatch(/^ {4}default_audio_language +en \(the dimension's language\)$/m);
    expect((await dimensionRow("space-minutes")).publishing).toMatchObject({
      time_zone: "Asia/Jakarta",
      publish_time: "18:00",
      category_id: "28",
      privacy_status: "public",
    });

    // A second set keeps what the first one set; `none` clears a time.
    expect((await mdame(["dimension", "set", "space-minutes", "--privacy", "unlisted", "--publish-time", "none"])).code).toBe(0);
    expect((await dimensionRow("space-minutes")).publishing).toMatchObject({
      time_zone: "Asia/Jakarta",
      publish_time: null,
      category_id: "28",
      privacy_status: "unlisted",
    });

    const unknownZone = await mdame(["dimension", "set", "space-minutes", "--time-zone", "Mars/Olympus_Mons", "--made-for-kids", "maybe"]);
    expect(unknownZone.code).toBe(2);
    expect(unknownZone.stderr).toContain('publishing.time_zone: unknown time zone "Mars/Olympus_Mons"');
    expect(unknownZone.stderr).toContain("publishing.made_for_kids: must be true or false");
    const route = await pipeline.app.request("/pipeline/dimensions/space-minutes", {
      method: "PATCH",
      headers: auth(),
      body: JSON.stringify({ publishing: { time_zone: "Nowhere/Land" } }),
    });
    expect(route.status).toBe(400);
    expect(await route.text()).toContain("unknown time zone");
    expect((await dimensionRow("space-minutes")).publishing.time_zone).toBe("Asia/Jakarta");
  });

  test("pause keeps the dimension out of new runs; resume brings it back", async () => {
    expect((await mdame(["dimension", "pause", "space-minutes"])).stdout).toContain("paused");
    expect((await dimensionRow("space-minutes")).active).toBe(false);
    const run = await pipeline.app.request("/pipeline/runs", {
      method: "POST",
      headers: auth(),
      body: JSON.stringify({ idempotency_key: "paused-dimension-run" }),
    });
    expect(run.status).toBe(202);
    const { run_id } = await run.json() as { run_id: string };
    const picked = await admin`select dimension_id from mdame.run_dimensions where run_id = ${run_id} order by dimension_id`;
    expect(picked.map((r) => r.dimension_id)).toEqual(["sains-singkat", "tech-explained", "yaml-facts"]);
    expect((await mdame(["run", "--dimension", "space-minutes"])).code).toBe(4);
    await pipeline.app.request(`/pipeline/runs/${run_id}/abort`, { method: "POST", headers: auth(), body: "{}" });

    expect((await mdame(["dimension", "resume", "space-minutes"])).code).toBe(0);
    expect((await dimensionRow("space-minutes")).active).toBe(true);
    expect((await mdame(["dimension", "pause", "no-such-dimension"])).code).toBe(4);
  });

  test("the routes refuse malformed JSON, oversized bodies and bad ids with 4xx", async () => {
    expect((await pipeline.app.request("/pipeline/dimensions")).status).toBe(401);
    expect((await pipeline.app.request("/pipeline/dimensions", { method: "POST", headers: auth(), body: "{not json" })).status).toBe(400);
    const huge = JSON.stringify({ ...NEW_DIMENSION, id: "huge", display_name: "x".repeat(70_000) });
    expect((await pipeline.app.request("/pipeline/dimensions", { method: "POST", headers: auth(), body: huge })).status).toBe(413);
    expect((await pipeline.app.request("/pipeline/dimensions/NOT%20AN%20ID", { headers: auth() })).status).toBe(400);
    expect((await pipeline.app.request("/pipeline/dimensions/no-such-one", { headers: auth() })).status).toBe(404);
    expect((await pipeline.app.request("/pipeline/dimensions/space-minutes", { method: "PATCH", headers: auth(), body: "{}" })).status).toBe(400);
    expect(
      (await pipeline.app.request("/pipeline/dimensions/space-minutes", { method: "PATCH", headers: auth(), body: JSON.stringify({ id: "renamed" }) })).status,
    ).toBe(400);
  });
});

describe("mdame account list|pause|resume|remove", () => {
  test("lists accounts with whether credentials are stored, pauses, resumes and removes them", async () => {
    const [account] = await admin`select * from mdame.connect_account('space-minutes', 'youtube', '@space-minutes', null)`;
    const listed = await mdame(["account", "list", "--dimension", "space-minutes"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(account.id);
    expect(listed.stdout).toContain("missing");
    const json = JSON.parse((await mdame(["account", "list", "--json"])).stdout) as { id: string; has_credentials: boolean }[];
    expect(json.find((a) => a.id === account.id)?.has_credentials).toBe(false);
    expect(JSON.stringify(json)).not.toContain("credentials_enc");

    expect((await mdame(["account", "pause", account.id])).code).toBe(0);
    expect((await admin`select active from mdame.dimension_accounts where id = ${account.id}`)[0].active).toBe(false);
    expect((await mdame(["account", "resume", account.id])).code).toBe(0);
    expect((await admin`select active from mdame.dimension_accounts where id = ${account.id}`)[0].active).toBe(true);

    expect((await mdame(["account", "remove", account.id])).stdout).toContain("removed");
    expect([...await admin`select id from mdame.dimension_accounts where id = ${account.id}`]).toEqual([]);
    expect((await mdame(["account", "remove", account.id])).code).toBe(4);
    expect((await mdame(["account", "list", "--dimension", "no-such-dimension"])).code).toBe(4);
  });

  test("the account routes refuse bad bodies and ids with 4xx and store nothing", async () => {
    const body = { dimension_id: "space-minutes", platform: "youtube", channel_handle: "@x", refresh_token: "r" };
    expect((await pipeline.app.request("/pipeline/accounts", { method: "POST", body: JSON.stringify(body) })).status).toBe(401);
    expect((await pipeline.app.request("/pipeline/accounts", { method: "POST", headers: auth(), body: "{" })).status).toBe(400);
    expect(
      (await pipeline.app.request("/pipeline/accounts", { method: "POST", headers: auth(), body: JSON.stringify({ ...body, platform: "tiktok" }) })).status,
    ).toBe(400);
    expect(
      (await pipeline.app.request("/pipeline/accounts", { method: "POST", headers: auth(), body: JSON.stringify({ ...body, dimension_id: "no-such-one" }) }))
        .status,
    ).toBe(404);
    expect((await pipeline.app.request("/pipeline/accounts/not-a-uuid/pause", { method: "POST", headers: auth() })).status).toBe(400);
    expect([...await admin`select id from mdame.dimension_accounts where channel_handle = '@x'`]).toEqual([]);
  });
});
