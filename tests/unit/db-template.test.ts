/** The reset template's name (stack/db-template.ts): it follows every input of a reset, and nothing else. */
import { afterAll, expect, test } from "bun:test";
import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { paths } from "../../stack/paths.ts";
import { restoreSql, snapshotSql, TEMPLATE_PREFIX, templateName, templateRequested } from "../../stack/db-template.ts";

const project = mkdtempSync(join(tmpdir(), "mdame-template-"));
const supabaseDir = join(project, "supabase");
cpSync(join(paths.root, "supabase"), supabaseDir, { recursive: true });
afterAll(() => rmSync(project, { recursive: true, force: true }));

const inputs = { supabaseDir, pgmqShape: "1.5", serverPgmq: null, pgBinDir: "/usr/lib/postgresql/15/bin" };

test("the name is the prefix and 16 hex digits, the same for the same inputs", () => {
  expect(templateName(inputs)).toMatch(new RegExp(`^${TEMPLATE_PREFIX}[0-9a-f]{16}$`));
  expect(templateName(inputs)).toBe(templateName({ ...inputs }));
  expect(templateName(inputs)).toBe(templateName({ ...inputs, supabaseDir: join(paths.root, "supabase") }));
});

test("a migration, the seed, the pgmq layout, the server's pgmq or the server each name another template", () => {
  const before = templateName(inputs);
  expect(templateName({ ...inputs, pgmqShape: "1.4" })).not.toBe(before);
  expect(templateName({ ...inputs, serverPgmq: "1.5.1" })).not.toBe(before);
  expect(templateName({ ...inputs, pgBinDir: "/opt/supabase-pg/bin" })).not.toBe(before);
  appendFileSync(join(supabaseDir, "seed.sql"), "\n-- another seed\n");
  const seeded = templateName(inputs);
  expect(seeded).not.toBe(before);
  writeFileSync(join(supabaseDir, "migrations", "29991231000000_more.sql"), "select 1;\n");
  expect(templateName(inputs)).not.toBe(seeded);
});

test("pgTAP files and the declared schema are not inputs: a reset never reads them", () => {
  const before = templateName(inputs);
  writeFileSync(join(supabaseDir, "tests", "another.test.sql"), "select 1;\n");
  writeFileSync(join(supabaseDir, "schemas", "another.sql"), "select 1;\n");
  expect(templateName(inputs)).toBe(before);
});

test("only MDAME_RESET_TEMPLATE=1 asks for it", () => {
  expect(templateRequested({ MDAME_RESET_TEMPLATE: "1" })).toBe(true);
  expect(templateRequested({ MDAME_RESET_TEMPLATE: "0" })).toBe(false);
  expect(templateRequested({})).toBe(false);
});

test("database names are spliced only when they are plain identifiers", () => {
  expect(restoreSql("postgres", `${TEMPLATE_PREFIX}0123456789abcdef`)[1]).toContain("template mdame_reset_0123456789abcdef");
  expect(() => snapshotSql("postgres", "x; drop database postgres")).toThrow("is not a database name");
});
