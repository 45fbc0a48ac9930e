/**
 * The Edge stages' share of the one task model (shared/tasks/task.ts): each stage is a function
 * of its own typed task and a context, and returns a typed outcome. The stage runner
 * (stage-runner.ts) records the outcome through its completion RPC, which archives the message;
 * a stage never completes, fails or archives its own message.
 */
import type { IngestTask, PlanTask, PublishTask, SafetyTask, ScriptTask, StageName, VoiceTask } from "../../shared/contracts/queue.ts";
import type { VoiceTrack } from "../../shared/contracts/media.ts";
import type { SafetyVerdict } from "../../shared/contracts/safety.ts";
import type { SimilarityCheck, SimilarityPass } from "../../shared/contracts/similarity.ts";
import type { HookAuditRecord, StoredScript } from "../../shared/contracts/work-unit.ts";
import type { BaseTaskContext, Task } from "../../shared/tasks/task.ts";
import type { PipelineDeps } from "./deps.ts";

/** The claim a stage task runs under: its message, how often it was read, and the lease completions check. */
export interface StageLease {
  msgId: number;
  readCt: number;
  /** This claim's lease; completion RPCs refuse it once another claim has taken the unit. */
  holder: string;
}

/** What a stage receives besides its payload. */
export interface StageContext extends BaseTaskContext {
  deps: PipelineDeps;
  /** For the few records a stage must make durable before it ends (publish: each account's upload). */
  lease: StageLease;
}

/** Ingest: the topics to turn into units, and every refused or dropped signal to audit. */
type IngestOutcome = {
  kind: "topics.recorded";
  /** Each with its unit key, fingerprint and the classifier's verdict (record_topics reads them). */
  topics: Record<string, unknown>[];
  /** Refused by the firewall, the rules or the classifier, or dropped by the selection. */
  rejected: object[];
};

/** Model-written text the safety gate refused: audited, never stored, and the unit rejected. */
type UnsafeOutput = {
  kind: "unsafe_output";
  subject: "script" | "scene_plan";
  /** The refused text as the audit log keeps it. */
  text: string;
  verdict: SafetyVerdict;
};

type ScriptOutcome =
  | { kind: "script.recorded"; script: StoredScript }
  | { kind: "script.rejected"; reason: string; audits: HookAuditRecord[] }
  | UnsafeOutput;

/** The safety gate's verdict on the stored script, allowed or not. */
type SafetyOutcome = { kind: "safety.judged"; verdict: SafetyVerdict };

/** One scene of the plan as record_scene_plan stores it. */
export interface PlannedScene {
  index: number;
  prompt: string;
  narration: string;
  first_word: number;
  duration_s: number;
  scene_hash: string;
  /** Stock-search words for the scene (empty when the plan gave none). */
  keywords: string[];
}

/**
 * `plan.too_similar`: the channel-standing guard found the script too like a published video; SQL
 * sends it back to the script stage or rejects the unit (mdame.record_too_similar).
 */
type PlanOutcome =
  | { kind: "plan.recorded"; scenes: PlannedScene[]; visual: Record<string, unknown>; similarity: SimilarityPass }
  | { kind: "plan.too_similar"; check: SimilarityCheck; maxRegenerations: number }
  | UnsafeOutput;

type VoiceOutcome = { kind: "voice.recorded"; voice: VoiceTrack; sceneFirstWords: number[] };

/**
 * Every account's upload is recorded (record_publication, as each one finishes); the completion
 * publishes the unit through the last one. `publish.deferred`: every account is published or
 * deferred and at least one is deferred; the unit waits at stage deferred (defer_unit_publish).
 */
type PublishOutcome =
  | { kind: "publish.completed"; publicationId: string; externalId: string }
  | { kind: "publish.deferred" };

/** Each stage's payload and outcomes. */
export interface StageTypes {
  ingest: { task: IngestTask; outcome: IngestOutcome };
  script: { task: ScriptTask; outcome: ScriptOutcome };
  safety: { task: SafetyTask; outcome: SafetyOutcome };
  plan: { task: PlanTask; outcome: PlanOutcome };
  voice: { task: VoiceTask; outcome: VoiceOutcome };
  publish: { task: PublishTask; outcome: PublishOutcome };
}

/** A stage: its own task in, one of its outcomes out; a throw is a failure the runner retries or dead-letters. */
export type Stage<S extends StageName> = Task<StageTypes[S]["task"], StageContext, StageTypes[S]["outcome"]>;

export type StageOutcome = StageTypes[StageName]["outcome"];
export type StageOutcomeKind = StageOutcome["kind"];
