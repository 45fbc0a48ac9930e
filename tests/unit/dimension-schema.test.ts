/**
 * The JSON Schema of a dimension configuration file (`mdame dimension schema`,
 * docs/dimension.schema.json): the committed copy is the generated one, every field is described,
 * and every example dimension file of the project passes both a real JSON Schema validator (Ajv,
 * draft 2020-12) and the Zod contract, while broken files are refused by both.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { readConfigFile } from "../../cli/config-file.ts";
import { parseArgs } from "../../cli/args.ts";
import { main } from "../../cli/main.ts";
import { EXIT } from "../../cli/errors.ts";
import { describeIssues, DimensionConfig } from "../../shared/contracts/dimension.ts";
import { DIMENSION_SCHEMA_COMMAND, DIMENSION_SCHEMA_FILE, dimensionJsonSchema, dimensionJsonSchemaText } from "../../shared/contracts/dimension-schema.ts";
import { paths } from "../../stack/paths.ts";
import { DIMENSION_EXAMPLES_DIR, DOCS_DIR } from "../../scripts/docs/doc-paths.ts";

const root = paths.root;
const schema = dimensionJsonSchema();
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(schema);

/** Dimension files of the project: the examples, the test fixtures. */
function exampleFiles(): string[] {
  const dirs = [DIMENSION_EXAMPLES_DIR, join(root, "tests", "fixtures", "dimensions")];
  return dirs.flatMap((dir) => readdirSync(dir).filter((f) => /\.(json|ya?ml)$/.test(f)).map((f) => join(dir, f)));
}

/** The whole dimension configurations quoted in the docs: ```json blocks naming an id and a tts_voice. */
function docsExamples(): { where: string; value: unknown }[] {
  const found: { where: string; value: unknown }[] = [];
  const pages = readdirSync(DOCS_DIR, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"));
  for (const file of pages) {
    const text = readFileSync(join(DOCS_DIR, file), "utf8");
    for (const match of text.matchAll(/```json\n([\s\S]*?)```/g)) {
      const block = match[1]!;
      if (block.includes('"tts_voice"') && block.includes('"id"')) found.push({ where: `docs/${file}`, value: JSON.parse(block) });
    }
  }
  for (const match of readFileSync(join(root, "README.md"), "utf8").matchAll(/```json\n([\s\S]*?)```/g)) {
    if (match[1]!.includes('"tts_voice"') && match[1]!.includes('"id"')) found.push({ where: "README.md", value: JSON.parse(match[1]!) });
  }
  return found;
}

function ajvErrors(value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

describe("the dimension JSON Schema", () => {
  test(`${DIMENSION_SCHEMA_FILE} is the schema the contract generates`, () => {
    const committed = readFileSync(join(root, DIMENSION_SCHEMA_FILE), "utf8");
    if (committed !== dimensionJsonSchemaText()) {
      throw new Error(
        `${DIMENSION_SCHEMA_FILE} is stale: shared/contracts/dimension.ts changed since it was written; run \`${DIMENSION_SCHEMA_COMMAND}\` and commit it`,
      );
    }
  });

  test("it is draft 2020-12 with an id and a title, and every field at every depth has a description", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBeString();
    expect(schema.title).toBeString();
    const undescribed: string[] = [];
    let fields = 0;
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((n) => walk(n, at));
      if (typeof node !== "object" || node === null) return;
      const n = node as Record<string, unknown>;
      for (const [key, field] of Object.entries((n.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        fields += 1;
        if (typeof field.description !== "string" || field.description.length < 10) undescribed.push(`${at}${key}`);
        walk(field, `${at}${key}.`);
      }
      for (const key of ["anyOf", "oneOf", "allOf", "items"]) walk(n[key], key === "items" ? `${at}[].` : at);
    };
    walk(schema, "");
    expect(undescribed).toEqual([]);
    expect(fields).toBeGreaterThan(80);
  });

  test("fields with a default are optional; the six without one are required", () => {
    expect((schema.required as string[]).sort()).toEqual(["display_name", "id", "language", "style", "trend_geo", "tts_voice"]);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.daily_limit).toMatchObject({ default: 1, minimum: 0, maximum: 50, type: "integer" });
    expect(properties.tts_rate).toMatchObject({ default: "+0%", pattern: "^[+-][0-9]{1,2}%$" });
    expect(schema.additionalProperties).toBe(false);
  });

  test("every example dimension file passes Ajv and the contract", () => {
    const files = exampleFiles().filter((f) => !f.includes(`${join("dimensions", "invalid")}`));
    expect(files.map((f) => f.slice(root.length + 1)).sort()).toEqual([
      "docs/examples/dimensions/sains-singkat.json",
      "docs/examples/dimensions/tech-explained.yaml",
      "tests/fixtures/dimensions/everything.yaml",
      "tests/fixtures/dimensions/minimal.json",
    ]);
    for (const file of files) {
      const raw = file.endsWith(".json") ? JSON.parse(readFileSync(file, "utf8")) : readConfigFile(file);
      // A JSON file may name its schema for editors: the schema allows the key, the reader drops it.
      expect({ file, errors: ajvErrors(raw) }).toEqual({ file, errors: [] });
      const parsed = DimensionConfig.safeParse(readConfigFile(file));
      expect({ file, issues: parsed.success ? [] : describeIssues(parsed.error.issues) }).toEqual({ file, issues: [] });
    }
  });

  test("every whole configuration quoted in the docs passes Ajv and the contract", () => {
    const quoted = docsExamples();
    expect(quoted.map((q) => q.where)).toEqual(expect.arrayContaining(["docs/reference/distribution.md", "docs/reference/languages.md"]));
    for (const { where, value } of quoted) {
      expect({ where, errors: ajvErrors(value) }).toEqual({ where, errors: [] });
      const parsed = DimensionConfig.safeParse(value);
      expect({ where, issues: parsed.success ? [] : describeIssues(parsed.error.issues) }).toEqual({ where, issues: [] });
    }
  });

  test("the examples' schema references lead to the committed schema", () => {
    for (const file of exampleFiles()) {
      const text = readFileSync(file, "utf8");
      const reference = /yaml-language-server: \$schema=(\S+)/.exec(text)?.[1] ?? (file.endsWith(".json") ? JSON.parse(text).$schema : undefined);
      if (reference === undefined) continue;
      expect(resolve(dirname(file), reference)).toBe(join(root, DIMENSION_SCHEMA_FILE));
    }
  });

  const refused: [string, string[], string[]][] = [
    ["unknown-field.json", ["/ must NOT have additional properties"], ["colour: unknown field"]],
    ["missing-required.yaml", ["/ must have required property 'trend_geo'"], ["trend_geo: is required"]],
    ["out-of-bounds.json", ["/daily_limit must be <= 50", "/min_score must be <= 1"], ["daily_limit: must be 0 to 50", "min_score: must be 0 to 1"]],
    ["bad-source.yaml", ["/sources/0/subreddit must match pattern", "/sources/1/kind must be equal to constant"], [
      "sources.0.subreddit: must be a subreddit name like space (without r/)",
      "sources.1.kind: must have kind google_trends, hacker_news, wikipedia, feed or reddit",
    ]],
    ["wrong-types.json", [
      "/id must match pattern",
      "/trend_geo must match pattern",
      "/style/palette must NOT have fewer than 2 items",
      "/style/motion must be equal to one of the allowed values",
      "/publishing/category_id must be string",
      "/publishing/made_for_kids must be boolean",
    ], [
      "id: must be 2-41",
      "trend_geo: must be a two-letter",
      "style.palette:",
      "style.motion:",
      "publishing.category_id: must be a category id",
      "publishing.made_for_kids: must be true or false",
    ]],
  ];
  for (const [name, ajvSays, zodSays] of refused) {
    test(`${name} is refused by both, for the same fields`, () => {
      const value = readConfigFile(join(root, "tests", "fixtures", "dimensions", "invalid", name));
      const errors = ajvErrors(value).join("\n");
      for (const text of ajvSays) expect(errors).toContain(text);
      const parsed = DimensionConfig.safeParse(value);
      expect(parsed.success).toBe(false);
      const issues = parsed.success ? "" : describeIssues(parsed.error.issues).join("\n");
      for (const text of zodSays) expect(issues).toContain(text);
    });
  }

  test("`mdame dimension schema` takes only --out", () => {
    expect(parseArgs(["dimension", "schema"])).toEqual({ name: "dimension schema", out: null });
    expect(parseArgs(["dimension", "schema", "--out", "d.json"])).toEqual({ name: "dimension schema", out: "d.json" });
    expect(() => parseArgs(["dimension", "schema", "--json"])).toThrow("unknown flag: --json");
    expect(() => parseArgs(["dimension", "schema", "extra"])).toThrow("takes no argument");
  });

  test("`mdame dimension schema` prints it, `--out` writes it, and no API is needed", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: { write: (s: string) => out.push(s) }, err: { write: (s: string) => err.push(s) }, env: {}, stackEnvFile: "/nonexistent/stack.env" };
    expect(await main(["dimension", "schema"], io)).toBe(EXIT.ok);
    expect(out.join("")).toBe(dimensionJsonSchemaText());
    const dir = mkdtempSync(join(tmpdir(), "mdame-schema-"));
    try {
      out.length = 0;
      expect(await main(["dimension", "schema", "--out", join(dir, "d.schema.json")], io)).toBe(EXIT.ok);
      expect(readFileSync(join(dir, "d.schema.json"), "utf8")).toBe(dimensionJsonSchemaText());
      expect(out.join("")).toContain(`wrote the dimension configuration schema to ${join(dir, "d.schema.json")}`);
      expect(await main(["dimension", "schema", "--out", join(dir, "no", "such", "dir.json")], io)).toBe(EXIT.usage);
      expect(err.join("")).toContain("cannot write");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
