import { z } from "zod";
import { count, uuid } from "./columns.ts";
import { DimensionId } from "./dimension-id.ts";

/**
 * Key rotation through the operator API (functions/pipeline/operator/credential-routes.ts):
 * `mdame credentials rotate` and the doctor's key census. Answers name keys by their kid only
 * (shared/crypto/credential-keys.ts), never a key or a credential.
 */

const Kid = z.string().regex(/^[0-9a-f]{8}$/);

/** The kids of the functions' key ring. */
const KeyRingKids = z.object({ current: Kid, previous: z.array(Kid) }).strict();
type KeyRingKids = z.infer<typeof KeyRingKids>;

/** Largest batch one request re-seals: each account costs a decryption, an encryption and an RPC. */
export const MAX_RESEAL_BATCH = 100;

/** Body of POST /pipeline/credentials/rotate: the next batch after `after` (account ids in order). */
export const RotateCredentialsBody = z.object({
  limit: z.number().int().min(1).max(MAX_RESEAL_BATCH).default(10),
  /** The last account id of the previous batch; absent or null: from the first account. */
  after: uuid.nullable().default(null),
  /** Report what would change; write nothing. */
  dry_run: z.boolean().default(false),
}).strict();
export type RotateCredentialsBody = z.input<typeof RotateCredentialsBody>;

/**
 * What became of one account's credentials:
 * - `resealed`: sealed anew with the current key (compare-and-swap won)
 * - `would_reseal`: a dry run found them sealed with another key (or v1), and they open
 * - `current`: already sealed with the current key; left alone
 * - `changed`: stored anew by a connect between the read and the swap; left as the connect stored them
 * - `failed`: they do not open with the ring (`reason` says why and what to do)
 */
export const ResealOutcomeKind = z.enum(["resealed", "would_reseal", "current", "changed", "failed"]);
export type ResealOutcomeKind = z.infer<typeof ResealOutcomeKind>;

/** What became of one sealed value, whoever holds it: the fields of both outcomes below. */
const resealed = {
  outcome: ResealOutcomeKind,
  /** The kid the value named before; null for the v1 format (no kid) or a value of no known format. */
  from_kid: Kid.nullable(),
  reason: z.string().optional(),
};

/** One account of the batch: which account, and what became of its credentials. */
export const ResealOutcome = z.object({
  account_id: uuid,
  dimension_id: DimensionId,
  channel_handle: z.string(),
  ...resealed,
}).strict();
export type ResealOutcome = z.infer<typeof ResealOutcome>;

/** What became of a registered Google project's client secret (sealed with the same ring; the outcomes above). */
export const ProjectResealOutcome = z.object({
  name: z.string(),
  oauth_client_id: z.string(),
  ...resealed,
}).strict();
export type ProjectResealOutcome = z.infer<typeof ProjectResealOutcome>;

/** Answer of POST /pipeline/credentials/rotate. */
export const CredentialsRotationBatch = z.object({
  ring: KeyRingKids,
  dry_run: z.boolean(),
  /** Accounts holding credentials, and how many of them come at or before this batch's last one. */
  total: count,
  done: count,
  batch: z.array(ResealOutcome),
  /** Pass as `after` for the next batch; null when this batch reached the last account. */
  next: uuid.nullable(),
  /** The registered Google projects' client secrets: handled by the batch that starts at the first account (no `after`), empty in the others. */
  projects: z.array(ProjectResealOutcome),
}).strict();
export type CredentialsRotationBatch = z.infer<typeof CredentialsRotationBatch>;

/**
 * Accounts by the key their credentials name: `current` or `previous` (in the ring), `missing`
 * (not in the ring: they no longer open), `v1` (the first format, no kid: opened by trying the ring),
 * `unreadable` (no known format).
 */
export const KeyStanding = z.enum(["current", "previous", "missing", "v1", "unreadable"]);
export type KeyStanding = z.infer<typeof KeyStanding>;

/** Answer of GET /pipeline/credentials/keys. */
export const CredentialKeysCensus = z.object({
  ring: KeyRingKids,
  accounts: count,
  by_key: z.array(z.object({ kid: Kid.nullable(), standing: KeyStanding, accounts: count }).strict()),
  /** Previous kids no stored value (account credentials, or a Google project's client secret) names any more: they may leave the ring. */
  unused_previous: z.array(Kid),
}).strict();
export type CredentialKeysCensus = z.infer<typeof CredentialKeysCensus>;
