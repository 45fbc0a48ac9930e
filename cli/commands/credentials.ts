/**
 * `mdame credentials rotate`: re-seals every account's credentials with the functions' current key,
 * a batch per request, until the last account (docs/guides/rotation.md). Only the functions hold the keys;
 * this command drives them and reports progress. Killed at any point, running it again finishes.
 */
import {
  type CredentialKeysCensus,
  MAX_RESEAL_BATCH,
  type ProjectResealOutcome,
  type ResealOutcome,
  type ResealOutcomeKind,
} from "../../shared/contracts/credentials.ts";
import type { ApiClient } from "../api-client.ts";
import { type CommandSpec, JSON_FLAG } from "../command-spec.ts";
import { EXIT } from "../errors.ts";
import { type CommandContext, printJson, printLine } from "../output.ts";

export type CredentialsRotateCommand = { name: "credentials rotate"; dryRun: boolean; batch: number; json: boolean };

export const CREDENTIALS_SPECS: CommandSpec[] = [
  {
    words: ["credentials", "rotate"],
    positionals: [],
    flags: [
      { name: "dry-run", kind: "boolean", description: "report what would be re-sealed; change nothing" },
      {
        name: "batch",
        kind: "integer",
        value: "<n>",
        description: `accounts re-sealed per request (default 10, at most ${MAX_RESEAL_BATCH})`,
        min: 1,
        max: MAX_RESEAL_BATCH,
      },
      JSON_FLAG,
    ],
    summary: "re-seal every account's credentials (and the Google projects' client secrets) with the current CREDENTIALS_KEY, online",
    details: "Run it after deploying the functions with a new CREDENTIALS_KEY and the old one in CREDENTIALS_KEYS_PREVIOUS. " +
      "Each account is re-sealed only if its credentials did not change meanwhile (a connect always wins). Safe to interrupt " +
      "and run again. Exits 0 when no account failed, 1 otherwise (each failure is named with what to do). See docs/guides/rotation.md.",
  },
];

/** Parses the flags of `credentials rotate` (args.ts has checked their kinds and bounds). */
export function parseCredentialsRotate(flags: Map<string, string | number | boolean>): CredentialsRotateCommand {
  return {
    name: "credentials rotate",
    dryRun: flags.get("dry-run") === true,
    batch: (flags.get("batch") as number | undefined) ?? 10,
    json: flags.get("json") === true,
  };
}

type Tally = Record<ResealOutcomeKind, number>;

const account = (o: ResealOutcome) => `account ${o.account_id} (${o.channel_handle}, dimension ${o.dimension_id})`;

/** One progress line: `re-sealed 3/10 (checked 4/10: 1 already current, 0 failed)`. Pure, for tests. */
export function formatProgress(tally: Tally, done: number, total: number, dryRun: boolean): string {
  const head = dryRun ? `would re-seal ${tally.would_reseal}` : `re-sealed ${tally.resealed}`;
  const changed = tally.changed > 0 ? `, ${tally.changed} changed by a connect meanwhile` : "";
  return `${head}/${total} (checked ${done}/${total}: ${tally.current} already current${changed}, ${tally.failed} failed)`;
}

/** The final summary line, then one line per account that needs the operator. Pure, for tests. */
export function formatSummary(tally: Tally, outcomes: ResealOutcome[], dryRun: boolean): string[] {
  const first = dryRun
    ? `dry run: ${tally.would_reseal} would be re-sealed, ${tally.current} already current, ${tally.failed} failed; nothing was changed`
    : `done: ${tally.resealed} re-sealed, ${tally.current} already current, ${tally.changed} changed by a connect meanwhile, ${tally.failed} failed`;
  return [
    first,
    ...outcomes.filter((o) => o.outcome === "failed").map((o) => `  failed: ${account(o)}: ${o.reason ?? "no reason given"}`),
    ...outcomes.filter((o) => o.outcome === "changed").map((o) =>
      `  changed meanwhile: ${account(o)}${o.reason ? `: ${o.reason}` : ""}; left as stored (run rotate again to check it)`
    ),
  ];
}

/** One line per registered Google project whose client secret was not simply current. Pure, for tests. */
export function formatProjectOutcomes(projects: ProjectResealOutcome[], dryRun: boolean): string[] {
  return projects.filter((p) => p.outcome !== "current").map((p) => {
    const what = `client secret of YouTube project ${p.name} (${p.oauth_client_id})`;
    if (p.outcome === "failed") return `  failed: ${what}: ${p.reason ?? "no reason given"}`;
    if (p.outcome === "changed") return `  changed meanwhile: ${what}; left as stored (run rotate again to check it)`;
    return `  ${dryRun ? "would re-seal" : "re-sealed"}: ${what}`;
  });
}

/** Where the keys stand after the rotation: what doctor reports too. Pure, for tests. */
export function formatCensus(census: CredentialKeysCensus): string[] {
  const current = census.by_key.filter((g) => g.standing === "current").reduce((n, g) => n + g.accounts, 0);
  const lines = [`accounts sealed with the current key ${census.ring.current}: ${current}/${census.accounts}`];
  for (const group of census.by_key.filter((g) => g.standing !== "current")) {
    const what = group.standing === "v1"
      ? "in the v1 format (no key id)"
      : group.standing === "unreadable"
      ? "in no known format"
      : `with ${group.standing} key ${group.kid}`;
    lines.push(`  ${group.accounts} sealed ${what}`);
  }
  if (census.unused_previous.length > 0) {
    lines.push(`previous keys no account needs any more: ${census.unused_previous.join(", ")} (they may leave CREDENTIALS_KEYS_PREVIOUS)`);
  }
  return lines;
}

export async function credentialsRotateCommand(command: CredentialsRotateCommand, api: ApiClient, ctx: CommandContext): Promise<number> {
  const tally: Tally = { resealed: 0, would_reseal: 0, current: 0, changed: 0, failed: 0 };
  const outcomes: ResealOutcome[] = [];
  const projects: ProjectResealOutcome[] = [];
  let after: string | null = null;
  let first = true;
  for (;;) {
    const batch = await api.rotateCredentials({ limit: command.batch, after, dry_run: command.dryRun });
    if (first && !command.json) {
      const previous = batch.ring.previous.length > 0 ? `previous keys: ${batch.ring.previous.join(", ")}` : "no previous key";
      printLine(
        ctx.out,
        `${command.dryRun ? "checking" : "re-sealing"} the credentials of ${batch.total} account(s) with key ${batch.ring.current} (${previous})`,
      );
      first = false;
    }
    projects.push(...batch.projects);
    for (const outcome of batch.batch) {
      tally[outcome.outcome] += 1;
      outcomes.push(outcome);
    }
    if (!command.json && batch.batch.length > 0) printLine(ctx.out, formatProgress(tally, batch.done, batch.total, command.dryRun));
    if (batch.next === null) break;
    after = batch.next;
  }
  const census = await api.credentialKeys();
  if (command.json) printJson(ctx.out, { dry_run: command.dryRun, ...tally, accounts: outcomes, projects, keys: census });
  else {for (const line of [...formatSummary(tally, outcomes, command.dryRun), ...formatProjectOutcomes(projects, command.dryRun), ...formatCensus(census)]) {
      printLine(ctx.out, line);
    }}
  return tally.failed > 0 || projects.some((p) => p.outcome === "failed") ? EXIT.failure : EXIT.ok;
}
