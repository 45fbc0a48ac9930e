import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../cli/args.ts";
import { formatCensus, formatProgress, formatSummary } from "../../cli/commands/credentials.ts";
import { judgeCensus } from "../../cli/doctor/credential-keys.ts";
import type { CredentialKeysCensus, ResealOutcome } from "../../shared/contracts/credentials.ts";

const ring = { current: "3fa1c02b", previous: ["9b2e11aa"] };
const census = (by_key: CredentialKeysCensus["by_key"], unused_previous: string[] = []): CredentialKeysCensus => ({
  ring,
  accounts: by_key.reduce((n, g) => n + g.accounts, 0),
  by_key,
  unused_previous,
});
const tally = { resealed: 3, would_reseal: 0, current: 1, changed: 1, failed: 1 };
const outcome = (o: Partial<ResealOutcome>): ResealOutcome => ({
  account_id: "3f0c6a52-7d7e-4c0e-9d55-2f1b7b1c9a10",
  dimension_id: "tech-explained",
  channel_handle: "@a",
  outcome: "resealed",
  from_kid: null,
  ...o,
});

describe("mdame credentials rotate", () => {
  test("parses its flags, with the batch bounded", () => {
    expect(parseArgs(["credentials", "rotate"])).toEqual({ name: "credentials rotate", dryRun: false, batch: 10, json: false });
    expect(parseArgs(["credentials", "rotate", "--dry-run", "--batch", "25", "--json"])).toEqual({
      name: "credentials rotate",
      dryRun: true,
      batch: 25,
      json: true,
    });
    expect(() => parseArgs(["credentials", "rotate", "--batch", "101"])).toThrow("--batch takes a whole number from 1 to 100");
    expect(() => parseArgs(["credentials", "rotate", "now"])).toThrow("credentials rotate takes no argument");
    expect(() => parseArgs(["credentials"])).toThrow("credentials needs a subcommand");
  });

  test("progress, summary and census lines say what happened to whom", () => {
    expect(formatProgress(tally, 6, 10, false)).toBe("re-sealed 3/10 (checked 6/10: 1 already current, 1 changed by a connect meanwhile, 1 failed)");
    expect(formatProgress({ ...tally, would_reseal: 4 }, 6, 10, true)).toStartWith("would re-seal 4/10");
    const lines = formatSummary(tally, [
      outcome({ outcome: "failed", reason: "sealed with key 77aa0c1d, which is not in the key ring" }),
      outcome({ outcome: "changed" }),
    ], false);
    expect(lines[0]).toBe("done: 3 re-sealed, 1 already current, 1 changed by a connect meanwhile, 1 failed");
    expect(lines[1]).toBe(
      "  failed: account 3f0c6a52-7d7e-4c0e-9d55-2f1b7b1c9a10 (@a, dimension tech-explained): sealed with key 77aa0c1d, which is not in the key ring",
    );
    expect(lines[2]).toStartWith("  changed meanwhile: account 3f0c6a52");
    expect(formatCensus(census([{ kid: "3fa1c02b", standing: "current", accounts: 4 }, { kid: null, standing: "v1", accounts: 1 }]))).toEqual([
      "accounts sealed with the current key 3fa1c02b: 4/5",
      "  1 sealed in the v1 format (no key id)",
    ]);
  });
});

describe("doctor's credential keys line", () => {
  test("fails on a key not in the ring, warns while accounts are behind or a previous key is unused, else ok", () => {
    const missing = judgeCensus(census([{ kid: "3fa1c02b", standing: "current", accounts: 2 }, { kid: "77aa0c1d", standing: "missing", accounts: 1 }]), null);
    expect(missing.status).toBe("fail");
    expect(missing.message).toBe(
      "1 account sealed with key 77aa0c1d, not in the functions' key ring (ring: current 3fa1c02b, previous 9b2e11aa): their videos cannot be published",
    );
    const behind = judgeCensus(
      census([{ kid: "3fa1c02b", standing: "current", accounts: 2 }, { kid: "9b2e11aa", standing: "previous", accounts: 3 }]),
      "3fa1c02b",
    );
    expect(behind).toMatchObject({
      status: "warn",
      message: "3 accounts on previous key 9b2e11aa; 2/5 on the current key 3fa1c02b",
      fix: "run `mdame credentials rotate` (docs/guides/rotation.md)",
    });
    const unused = judgeCensus(census([{ kid: "3fa1c02b", standing: "current", accounts: 2 }], ["9b2e11aa"]), null);
    expect(unused.status).toBe("warn");
    expect(unused.message).toContain("previous key(s) 9b2e11aa seal nothing");
    expect(judgeCensus(census([{ kid: "3fa1c02b", standing: "current", accounts: 2 }]), "0badc0de"))
      .toMatchObject({ status: "warn", message: "this configuration's CREDENTIALS_KEY (kid 0badc0de) is not the functions' current key (3fa1c02b)" });
    expect(judgeCensus(census([{ kid: "3fa1c02b", standing: "current", accounts: 2 }]), "3fa1c02b"))
      .toEqual({
        family: "database",
        name: "credential keys",
        status: "ok",
        message: "all 2 accounts sealed with the current key (ring: current 3fa1c02b, previous 9b2e11aa)",
      });
  });
});
