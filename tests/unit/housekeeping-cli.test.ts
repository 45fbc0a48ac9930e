/**
 * `mdame storage usage` and `mdame housekeeping` without a server: parsing, usage errors, what the
 * operator reads, and the outbox's backoff. The routes and the SQL are proven against the real
 * database in tests/integration/housekeeping.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../cli/args.ts";
import { formatBytes, formatHousekeeping, formatStorageUsage } from "../../cli/commands/storage.ts";
import { UsageError } from "../../cli/errors.ts";
import { main } from "../../cli/main.ts";
import { storageRetryDelayS } from "../../functions/pipeline/housekeeping/storage-deletions.ts";
import { HousekeepingAnswer, StorageUsage } from "../../shared/contracts/housekeeping.ts";

const SETTINGS = [
  { name: "scene_cache_ttl_days", value: 30, default_value: 30, min_value: 1, max_value: 3650 },
  { name: "batch_size", value: 2, default_value: 500, min_value: 1, max_value: 10000 },
] as const;

describe("parsing", () => {
  test("storage usage, housekeeping with and without --dry-run, settings with changes and a reset", () => {
    expect(parseArgs(["storage", "usage"])).toEqual({ name: "storage usage", tables: 15, json: false });
    expect(parseArgs(["storage", "usage", "--tables", "5", "--json"])).toEqual({ name: "storage usage", tables: 5, json: true });
    expect(parseArgs(["housekeeping"])).toEqual({ name: "housekeeping", dryRun: false, json: false });
    expect(parseArgs(["housekeeping", "--dry-run", "--json"])).toEqual({ name: "housekeeping", dryRun: true, json: true });
    expect(parseArgs(["housekeeping", "settings"])).toEqual({ name: "housekeeping settings", changes: {}, json: false });
    expect(parseArgs(["housekeeping", "settings", "--render-retention-days", "30", "--reset", "batch-size"]))
      .toEqual({ name: "housekeeping settings", changes: { render_retention_days: 30, batch_size: null }, json: false });
  });

  test("bad values are usage errors", () => {
    for (
      const argv of [
        ["housekeeping", "--dry"],
        ["housekeeping", "settings", "--events-days", "0"],
        ["housekeeping", "settings", "--reset", "forever"],
        ["housekeeping", "settings", "--events-days", "5", "--reset", "events_days"],
        ["storage", "usage", "--tables", "0"],
        ["storage"],
      ]
    ) {
      expect(() => parseArgs(argv)).toThrow(UsageError);
    }
  });
});

describe("what the operator reads", () => {
  test("the sizes: totals, tables, folders", () => {
    const usage = StorageUsage.parse({
      database: {
        database_bytes: 15 * 2 ** 20,
        pending_storage_deletions: 3,
        storage_prefixes: ["scenes"],
        tables: [{ name: "mdame.events", total_bytes: 2048, index_bytes: 1024 }],
      },
      storage: {
        source: "listing",
        backend: "local-directory",
        total_bytes: 3 * 2 ** 30,
        total_objects: 7,
        prefixes: [{ prefix: "scenes", objects: 7, bytes: 3 * 2 ** 30 }],
      },
    });
    const text = formatStorageUsage(usage).join("\n");
    expect(text).toContain("database 15 MiB; storage 3.0 GiB in 7 objects (listed on local-directory); 3 storage deletions pending");
    expect(text).toMatch(/mdame\.events\s+2\.0 KiB\s+1\.0 KiB/);
    expect(text).toMatch(/scenes\/\s+7\s+3\.0 GiB/);
    expect(formatBytes(900)).toBe("900 B");
  });

  test("a dry run says nothing was deleted and what one pass would take under the batch size", () => {
    const answer = HousekeepingAnswer.parse({
      dry_run: true,
      engine_now: "2026-12-02T08:00:00.000Z",
      settings: SETTINGS,
      kinds: [{ kind: "scene_cache", due: "5", deleted: 0, storage_keys_queued: 0 }],
      storage_deletions: { removed: 0, failed: 0, pending: 0 },
    });
    const lines = formatHousekeeping(answer);
    expect(lines[0]).toContain("dry run");
    expect(lines[0]).toContain("nothing was deleted");
    expect(lines.find((l) => l.startsWith("scene_cache"))).toMatch(/^scene_cache\s+5\s+2\s+-$/);
  });

  test("a real pass reports the Storage outbox's drain", async () => {
    let out = "";
    const answer = {
      dry_run: false,
      engine_now: "2026-12-02T08:00:00.000Z",
      settings: SETTINGS,
      kinds: [{ kind: "renders", due: 4, deleted: 2, storage_keys_queued: 2 }],
      storage_deletions: { removed: 1, failed: 1, pending: 1 },
    };
    let asked: { url: string; body: unknown } | undefined;
    const code = await main(["housekeeping"], {
      out: { write: (t: string) => (out += t) },
      err: { write: () => {} },
      env: { FUNCTIONS_URL: "http://pipeline.test", SERVICE_ROLE_KEY: "k".repeat(40) },
      fetch: async (url, init) => {
        asked = { url, body: JSON.parse(String(init.body)) };
        return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    expect(code).toBe(0);
    expect(asked).toEqual({ url: "http://pipeline.test/pipeline/housekeeping", body: { dry_run: false } });
    expect(out).toMatch(/renders\s+4\s+2\s+2/);
    expect(out).toContain("storage: 1 objects removed, 1 removals failed (retried later), 1 still pending");
  });
});

test("a failed Storage removal waits 1 min, doubled each time, at most 6 h", () => {
  expect([1, 2, 3, 4, 9, 10, 50].map(storageRetryDelayS)).toEqual([60, 120, 240, 480, 15360, 21600, 21600]);
});
