/**
 * `mdame spend` and `mdame prices` without a server: parsing, usage errors, and what the operator
 * reads; the grouping of get_spend's rows into the report. The routes and the SQL are proven
 * against the real database in tests/integration/spend.test.ts and supabase/tests/database.
 */
import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../cli/args.ts";
import { formatSpend } from "../../cli/commands/spend.ts";
import { UsageError } from "../../cli/errors.ts";
import { spendReport, type SpendRow } from "../../shared/contracts/spend.ts";

describe("parsing", () => {
  test("spend with and without filters, prices list, set and reset", () => {
    expect(parseArgs(["spend"])).toEqual({ name: "spend", dimension: null, month: null, json: false });
    expect(parseArgs(["spend", "--dimension", "tech-explained", "--month", "2026-11", "--json"]))
      .toEqual({ name: "spend", dimension: "tech-explained", month: "2026-11", json: true });
    expect(parseArgs(["prices", "list"])).toEqual({ name: "prices list", json: false });
    expect(parseArgs(["prices", "set", "gemini-image", "images", "0.03"]))
      .toEqual({ name: "prices set", price: { provider: "gemini-image", model: "*", kind: "images", usd_per_unit: 0.03 }, json: false });
    expect(parseArgs(["prices", "set", "gemini", "output_tokens", "0.00001", "--model", "gemini-2.5-pro"]))
      .toEqual({ name: "prices set", price: { provider: "gemini", model: "gemini-2.5-pro", kind: "output_tokens", usd_per_unit: 0.00001 }, json: false });
    expect(parseArgs(["prices", "reset", "gemini-image", "images"]))
      .toEqual({ name: "prices reset", price: { provider: "gemini-image", model: "*", kind: "images" }, json: false });
  });

  test("bad values are usage errors, naming what is wrong", () => {
    const cases: [string[], RegExp][] = [
      [["spend", "--month", "2026-13"], /month like 2026-12/],
      [["spend", "--dimension", "Not An Id"], /no dimension id/],
      [["prices", "set", "gemini-image", "lunches", "1"], /kind/],
      [["prices", "set", "gemini-image", "images", "cheap"], /number of USD/],
      [["prices", "set", "gemini-image", "images", "1001"], /usd: must be 0 to 1000/],
      [["prices", "set", "Gemini", "images", "1"], /provider/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseArgs(argv)).toThrow(UsageError);
      expect(() => parseArgs(argv)).toThrow(message);
    }
  });
});

const row = (r: Partial<SpendRow>): SpendRow => ({
  dimension_id: "tech-explained",
  provider: "gemini",
  model: "gemini-2.5-flash",
  kind: "input_tokens",
  calls: 4,
  cached_calls: 1,
  quantity: 4000,
  usd: 0.0012,
  ...r,
});

describe("the report", () => {
  const report = spendReport("2026-12", [
    row({}),
    row({ kind: "output_tokens", quantity: 800, usd: 0.002 }),
    row({ provider: "gemini-image", model: "m", kind: "images", calls: 2, cached_calls: 0, quantity: 2, usd: 0.078 }),
    row({
      dimension_id: "sains-singkat",
      provider: "edge-tts",
      model: "id-ID-GadisNeural",
      kind: "characters",
      calls: 1,
      cached_calls: 0,
      quantity: 700,
      usd: 0,
    }),
  ], new Map([["tech-explained", { daily_usd: 2 }], ["sains-singkat", null]]));

  test("a call counted in two kinds is one call; costs add up per provider, dimension and month", () => {
    const tech = report.dimensions.find((d) => d.dimension_id === "tech-explained")!;
    const gemini = tech.providers.find((p) => p.provider === "gemini")!;
    expect([gemini.calls, gemini.cached_calls]).toEqual([4, 1]);
    expect(gemini.usd).toBeCloseTo(0.0032, 10);
    expect(tech.usd).toBeCloseTo(0.0812, 10);
    expect(tech.budget).toEqual({ daily_usd: 2 });
    expect(report.usd).toBeCloseTo(0.0812, 10);
  });

  test("printed per dimension with its budget, each provider's calls, cached calls, cost and units", () => {
    const lines = formatSpend(report);
    expect(lines[0]).toBe("2026-12: $0.0812 in all");
    expect(lines).toContain("tech-explained: $0.0812 (budget $2.00/day)");
    expect(lines).toContain("sains-singkat: $0.0000 (no budget)");
    expect(lines.find((l) => l.startsWith("gemini "))).toMatch(/^gemini +4 +1 +\$0\.0032 +4000 input_tokens, 800 output_tokens$/);
    expect(formatSpend(spendReport("2026-11", [], new Map()))).toEqual(["2026-11: nothing spent"]);
  });
});
