/**
 * The demo dimensions as the seed stores them are valid dimension files: read back from the real
 * database, each passes Ajv against docs/dimension.schema.json and the Zod contract, and equals its
 * example file in docs/examples/dimensions/. The example files go through `mdame dimension add`
 * and `show` for real: the JSON one's `$schema` key is dropped, and `show` prints every section.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import Ajv2020 from "ajv/dist/2020.js";
import { readConfigFile } from "../../cli/config-file.ts";
import { DIMENSION_SETTINGS, DimensionConfig } from "../../shared/contracts/dimension.ts";
import { dimensionJsonSchema } from "../../shared/contracts/dimension-schema.ts";
import { getDimensions } from "../../shared/db/rpc/dimensions.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type PipelineServer, servePipeline } from "../fixtures/pipeline-server.ts";
import { DIMENSION_EXAMPLES_DIR } from "../../scripts/docs/doc-paths.ts";

const admin = adminSql();
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(dimensionJsonSchema());
const EXAMPLES = DIMENSION_EXAMPLES_DIR;
const exampleFile = { "tech-explained": join(EXAMPLES, "tech-explained.yaml"), "sains-singkat": join(EXAMPLES, "sains-singkat.json") } as const;

let pipeline: PipelineServer;
let serviceRoleKey: string;
let dir: string;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const env: Record<string, string> = { ...localStackEnv(), LOG_LEVEL: "warn" };
  serviceRoleKey = env.SERVICE_ROLE_KEY;
  pipeline = servePipeline(env);
  dir = await mkdtemp(join(tmpdir(), "mdame-dimension-examples-"));
}, 90_000);

afterAll(async () => {
  await pipeline?.stop();
  await db.reset({ log: () => {} });
  await rm(dir, { recursive: true, force: true });
}, 90_000);

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

describe("the demo dimensions", () => {
  test("as the seed stores them, they pass Ajv and the contract, and equal their example files", async () => {
    const stored = await getDimensions(admin);
    expect(stored.map((d) => d.id)).toEqual(["sains-singkat", "tech-explained"]);
    for (const row of stored) {
      const config = Object.fromEntries(DIMENSION_SETTINGS.map((key) => [key, row[key]]));
      // Through JSON, as a file would hold it.
      const asFile = JSON.parse(JSON.stringify(config));
      expect({ id: row.id, errors: validate(asFile) ? [] : validate.errors }).toEqual({ id: row.id, errors: [] });
      const parsed = DimensionConfig.parse(asFile);
      const example = DimensionConfig.parse(readConfigFile(exampleFile[row.id as keyof typeof exampleFile]));
      expect(example).toEqual(parsed);
    }
  });

  test("an example file goes through mdame dimension add (its $schema key dropped) and show prints every section", async () => {
    const text = await readFile(exampleFile["sains-singkat"], "utf8");
    expect(JSON.parse(text).$schema).toBe("../../dimension.schema.json");
    const copy = join(dir, "sains-copy.json");
    await writeFile(copy, text.replace('"id": "sains-singkat"', '"id": "sains-salinan"'));
    const added = await mdame(["dimension", "add", "--file", copy]);
    expect(added).toMatchObject({ code: 0, stderr: "" });
    expect(added.stdout).toContain("dimension sains-salinan added");
    const shown = await mdame(["dimension", "show", "sains-salinan"]);
    expect(shown.code).toBe(0);
    for (
      const section of [
        "subject",
        "sources",
        "visuals",
        "llm",
        "captions",
        "music",
        "min_score",
        "publishing",
        "adapt",
        "safety_profile",
        "alerts",
        "tts_fallback_voice",
      ]
    ) {
      expect(shown.stdout).toMatch(new RegExp(`^ {2}${section}( |$)`, "m"));
    }
    expect(shown.stdout).toMatch(/^ {4}- kind wikipedia, weight 0\.6, project id\.wikipedia, limit 40$/m);
    expect(shown.stdout).toMatch(/^ {2}min_score +0\.35$/m);
  });
});
