/**
 * docs/guides/channel-setup.md's field table is the one scripts/docs/dimension-table.ts generates from the
 * contract: every field of DimensionConfig at every depth, with type, default, bounds and description.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { fieldRows, fieldTable, pageWithTable, TABLE_COMMAND, TABLE_END, TABLE_PAGE, TABLE_START } from "../../scripts/docs/dimension-table.ts";
import { DIMENSION_SETTINGS } from "../../shared/contracts/dimension.ts";

const page = readFileSync(TABLE_PAGE, "utf8");
const rows = fieldRows();

describe("the dimension field table of docs/guides/channel-setup.md", () => {
  test("the page holds the generated table", () => {
    if (pageWithTable(page) !== page) throw new Error(`docs/guides/channel-setup.md's field table is stale: run \`${TABLE_COMMAND}\` and commit it`);
  });

  test("it lists every setting of the contract and the fields of every section, each described", () => {
    const fields = rows.map((r) => r.field);
    for (const setting of DIMENSION_SETTINGS) expect(fields).toContain(setting);
    for (
      const nested of [
        "subject.excluded_terms",
        "sources[kind=reddit].subreddit",
        "sources[kind=feed].url",
        "visuals.pexels_blocklist",
        "llm.critic[].model",
        "captions.profile",
        "music.duck_db",
        "publishing.run_time",
        "alerts.telegram_chat_id",
        "adapt.video_length.target_s",
      ]
    ) {
      expect(fields).toContain(nested);
    }
    expect(rows.filter((r) => r.description.length < 10).map((r) => r.field)).toEqual([]);
  });

  test("types, defaults and bounds come from the contract", () => {
    const row = (field: string) => rows.find((r) => r.field === field);
    expect(row("daily_limit")).toMatchObject({ type: "integer", default: "`1`", bounds: "0–50" });
    expect(row("id")).toMatchObject({ default: "required" });
    expect(row("publishing.time_zone")).toMatchObject({ default: '`"UTC"`', bounds: "≤ 64 characters" });
    expect(row("music")).toMatchObject({ type: "object or null", default: "`null`" });
    expect(row("sources[kind=google_trends].weight")).toMatchObject({ type: "number", default: "`1`", bounds: "> 0, ≤ 1" });
    expect(row("alerts.telegram_chat_id")).toMatchObject({ default: "optional" });
  });

  test("a table missing a field or holding a stale default is told apart from the generated one", () => {
    const table = fieldTable();
    const withoutMusic = page.replace(/^\| `music\.fade_s` .*\n/m, "");
    expect(withoutMusic).not.toBe(page);
    expect(pageWithTable(withoutMusic)).not.toBe(withoutMusic);
    const staleDefault = page.replace(/^(\| `daily_limit` \| integer \| )`1`/m, "$1`2`");
    expect(staleDefault).not.toBe(page);
    expect(pageWithTable(staleDefault)).toBe(page);
    expect(table.startsWith(TABLE_START) && table.endsWith(TABLE_END)).toBe(true);
    expect(() => pageWithTable("# no markers here\n")).toThrow("lacks the table markers");
  });
});
