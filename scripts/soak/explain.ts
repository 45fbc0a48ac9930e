/**
 * Which injected fault explains a failure. A fault explains a failed unit (or a failed ingest) when
 * it was in force while that work was under way and it can cause what the failure says: the stage
 * it failed in is one the fault reaches, and its error reads like that fault's effect. A failure no
 * fault explains is a finding of the soak (listed, exit code 1).
 */
import type { InjectedFault } from "./driver.ts";
import type { FaultKind } from "./plan.ts";

/** A failure under examination: a unit or a dimension's ingest. */
export interface Failure {
  kind: "unit" | "ingest";
  id: string;
  day: number;
  dimension_id: string;
  /** The stage it was in when it failed (for a unit, the last stage it entered). */
  stage: string;
  error: string;
  /** When the work began (unit created, ingest started) and when it was failed. */
  started_at: string;
  failed_at: string;
}

/** Lost work: a lease that expired, a deadline passed, a connection cut. */
const LOST_WORK =
  /attempts? exhausted|deadline passed|without a completion|\blease|connection|terminat|ECONN|socket|closed|reset by peer|fetch failed|timed? ?out|abort/i;

interface Rule {
  stages: readonly string[] | "any";
  error: RegExp;
}

const LLM_STAGES = ["ingest", "script", "safety", "plan"] as const;

const RULES: Record<FaultKind, Rule> = {
  kill: { stages: "any", error: LOST_WORK },
  pg_restart: { stages: "any", error: LOST_WORK },
  llm_outage: { stages: LLM_STAGES, error: /503|unavailable|overloaded/i },
  llm_rate_limited: { stages: LLM_STAGES, error: /429|rate|resource_exhausted|exceeded your current quota/i },
  llm_slow: { stages: LLM_STAGES, error: LOST_WORK },
  llm_malformed: { stages: LLM_STAGES, error: /json|parse|schema|malformed|max_tokens|truncat|invalid|repair/i },
  tts_outage: { stages: ["media"], error: /voice|tts|speech|edge|halt/i },
  tts_slow: { stages: ["media"], error: LOST_WORK },
  upload_outage: { stages: ["publish"], error: /503|backend ?error|unavailable/i },
  upload_rate_limited: { stages: ["publish"], error: /429|rate ?limit/i },
  upload_slow: { stages: ["publish"], error: LOST_WORK },
  // A spent quota defers the day's publications (docs/reference/distribution.md); it explains no failure, so a
  // unit that fails for quota is reported unexplained.
  quota_exhausted: { stages: [], error: /$^/ },
  // A revoked grant marks the account needs_reconnect and defers its publications until the operator
  // reconnects it: it explains no failure either.
  token_revoked: { stages: [], error: /$^/ },
  // Sessions ended by the server (57P01) and logins refused by pg_hba.conf (28000), or the leases and deadlines they cost.
  db_sick: { stages: "any", error: new RegExp(`${LOST_WORK.source}|pg_hba|administrator command|57P01|28000`, "i") },
};

/** How long after a fault ends its effect may still surface (retries, leases, deadlines on the scaled clock). */
const AFTERMATH_MS = 5 * 60_000;

export function explains(fault: InjectedFault, failure: Failure): boolean {
  if (!fault.injected_at) return false;
  const rule = RULES[fault.kind];
  const from = Date.parse(fault.injected_at);
  const until = Date.parse(fault.active_until ?? fault.injected_at) + AFTERMATH_MS;
  const inForce = from <= Date.parse(failure.failed_at) && until >= Date.parse(failure.started_at);
  const stageReached = rule.stages === "any" || rule.stages.includes(failure.stage);
  return inForce && stageReached && rule.error.test(failure.error);
}

/** The faults that explain a failure, the closest in time first. */
export function explanations(faults: InjectedFault[], failure: Failure): InjectedFault[] {
  const at = Date.parse(failure.failed_at);
  return faults.filter((f) => explains(f, failure)).sort((a, b) => Math.abs(Date.parse(a.injected_at!) - at) - Math.abs(Date.parse(b.injected_at!) - at));
}
