import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import type { KeyStanding, ProjectResealOutcome, ResealOutcome } from "../../../shared/contracts/credentials.ts";
import { type CredentialKeyRing, ringKey, ringKids } from "../../../shared/crypto/credential-keys.ts";
import { decryptCredentials, encryptCredentials, isSealedWithCurrentKey, parseSealed } from "../../../shared/crypto/credentials.ts";
import { NotFoundError } from "../../../shared/db/errors.ts";
import { type AccountRow, getAccounts, resealAccountCredentials } from "../../../shared/db/rpc/accounts.ts";
import { getYouTubeProjects, resealYouTubeProjectSecret, type YouTubeProjectPlan } from "../../../shared/db/rpc/youtube-projects.ts";
import { openClientSecret, sealClientSecret } from "../../../shared/crypto/client-secrets.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

type Sealed = AccountRow & { credentials_enc: string };

/** Accounts holding credentials, by id: the order batches follow, so `after` resumes where a batch ended. */
async function sealedAccounts(deps: OperatorDeps): Promise<Sealed[]> {
  const rows = await getAccounts(deps.sql);
  return rows.filter((row): row is Sealed => row.credentials_enc !== null).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The kid a value names and where that key stands in the ring, read without opening it. */
function standingOf(ring: CredentialKeyRing, sealed: string): { kid: string | null; standing: KeyStanding } {
  let kid: string | null;
  try {
    const shape = parseSealed(sealed);
    if (shape.format === "v1") return { kid: null, standing: "v1" };
    kid = shape.kid;
  } catch {
    return { kid: null, standing: "unreadable" };
  }
  if (kid === ring.current.kid) return { kid, standing: "current" };
  return { kid, standing: ringKey(ring, kid) ? "previous" : "missing" };
}

type Resealed = Pick<ResealOutcome, "from_kid" | "outcome" | "reason">;

/**
 * One sealed value (an account's credentials, a Google project's client secret), named by `base`
 * in the outcome: left alone when already sealed with the current key; otherwise opened with the
 * ring and, unless this is a dry run, sealed with the current key and handed to `swap`, which
 * stores it only if the stored value is still the one read, so a concurrent connect or
 * re-registration always wins.
 */
async function reseal<B, V>(
  ring: CredentialKeyRing,
  sealed: string,
  dryRun: boolean,
  base: B,
  steps: { open: () => Promise<V>; seal: (value: V) => Promise<string>; swap: (resealed: string) => Promise<Omit<Resealed, "from_kid">> },
): Promise<B & Resealed> {
  const outcome = (result: Omit<Resealed, "from_kid">) => ({ ...base, from_kid: standingOf(ring, sealed).kid, ...result });
  if (isSealedWithCurrentKey(ring, sealed)) return outcome({ outcome: "current" });
  let resealed: string;
  try {
    const value = await steps.open();
    if (dryRun) return outcome({ outcome: "would_reseal" });
    resealed = await steps.seal(value);
  } catch (error) {
    return outcome({ outcome: "failed", reason: error instanceof Error ? error.message : String(error) });
  }
  return outcome(await steps.swap(resealed));
}

/** One account's credentials (mdame.reseal_account_credentials swaps them). */
function resealOne(deps: OperatorDeps, account: Sealed, dryRun: boolean): Promise<ResealOutcome> {
  const ring = deps.credentialKeys;
  const base = { account_id: account.id, dimension_id: account.dimension_id, channel_handle: account.channel_handle };
  return reseal(ring, account.credentials_enc, dryRun, base, {
    open: () => decryptCredentials(ring, account.credentials_enc, account.id),
    seal: (credentials) => encryptCredentials(ring, credentials, account.id),
    swap: async (resealed) => {
      try {
        const { swapped } = await resealAccountCredentials(deps.sql, { id: account.id, expected: account.credentials_enc, resealed });
        return { outcome: swapped ? "resealed" : "changed" };
      } catch (error) {
        // Removed between the read and the swap: nothing left to re-seal.
        if (error instanceof NotFoundError) return { outcome: "changed", reason: "the account was removed meanwhile" };
        throw error;
      }
    },
  });
}

type Registered = YouTubeProjectPlan & { name: string; client_secret_enc: string };

async function registeredProjects(deps: OperatorDeps): Promise<Registered[]> {
  return (await getYouTubeProjects(deps.sql)).filter((p): p is Registered => p.client_secret_enc !== null && p.name !== null);
}

/** One Google project's client secret (mdame.reseal_youtube_project_secret swaps it). */
function resealProject(deps: OperatorDeps, project: Registered, dryRun: boolean): Promise<ProjectResealOutcome> {
  const ring = deps.credentialKeys;
  return reseal(ring, project.client_secret_enc, dryRun, { name: project.name, oauth_client_id: project.oauth_client_id }, {
    open: () => openClientSecret(ring, project.client_secret_enc, project.oauth_client_id),
    seal: (secret) => sealClientSecret(ring, secret, project.oauth_client_id),
    swap: async (resealed) => {
      const { swapped } = await resealYouTubeProjectSecret(deps.sql, { oauthClientId: project.oauth_client_id, expected: project.client_secret_enc, resealed });
      return { outcome: swapped ? "resealed" : "changed" };
    },
  });
}

/**
 * Key rotation routes of the operator API (`mdame credentials ...`, docs/guides/rotation.md), declared
 * in shared/api/routes/accounts.ts behind the service-role bearer. Only the functions hold the keys,
 * so re-sealing happens here, a bounded batch per request; every request reads the accounts afresh,
 * so a rotation killed at any point is finished by running it again.
 *
 * - `POST /credentials/rotate {limit?, after?, dry_run?}`  re-seals the next `limit` accounts (by id)
 *   after `after` with the current key; answers each account's outcome, progress and `next`; the
 *   batch without `after` also re-seals the registered Google projects' client secrets (a few)
 * - `GET  /credentials/keys`                              accounts by the key their credentials name
 */
export function credentialHandlers(deps: OperatorDeps): Handlers<"rotateCredentials" | "credentialKeys"> {
  return {
    rotateCredentials: async (c) => {
      const body = c.req.valid("json");
      const accounts = await sealedAccounts(deps);
      const pending = body.after === null ? accounts : accounts.filter((a) => a.id > body.after!);
      const slice = pending.slice(0, body.limit);
      const batch: ResealOutcome[] = [];
      for (const account of slice) batch.push(await resealOne(deps, account, body.dry_run));
      const projects: ProjectResealOutcome[] = [];
      if (body.after === null) { for (const project of await registeredProjects(deps)) projects.push(await resealProject(deps, project, body.dry_run)); }
      const result = {
        ring: ringKids(deps.credentialKeys),
        dry_run: body.dry_run,
        total: accounts.length,
        done: accounts.length - pending.length + slice.length,
        batch,
        next: pending.length > slice.length ? slice.at(-1)!.id : null,
        projects,
      };
      const tally = Object.fromEntries(
        ["resealed", "would_reseal", "current", "changed", "failed"].map((k) => [k, batch.filter((o) => o.outcome === k).length]),
      );
      deps.logger.info({ ...tally, done: result.done, total: result.total, dry_run: body.dry_run, kid: result.ring.current }, "credentials rotation batch");
      for (const failed of batch.filter((o) => o.outcome === "failed")) {
        deps.logger.warn(
          { account_id: failed.account_id, dimension_id: failed.dimension_id, status: "failed", from_kid: failed.from_kid, reason: failed.reason },
          "credentials cannot be re-sealed",
        );
      }
      for (const failed of projects.filter((o) => o.outcome === "failed")) {
        deps.logger.warn(
          { project: failed.name, oauth_client_id: failed.oauth_client_id, status: "failed", from_kid: failed.from_kid, reason: failed.reason },
          "a YouTube project's client secret cannot be re-sealed",
        );
      }
      return reply(c, routes.rotateCredentials, 200, result);
    },

    credentialKeys: async (c) => {
      const ring = deps.credentialKeys;
      const accounts = await sealedAccounts(deps);
      const groups = new Map<string, { kid: string | null; standing: KeyStanding; accounts: number }>();
      for (const account of accounts) {
        const { kid, standing } = standingOf(ring, account.credentials_enc);
        const key = `${standing}:${kid}`;
        const group = groups.get(key) ?? { kid, standing, accounts: 0 };
        group.accounts += 1;
        groups.set(key, group);
      }
      // A previous key that still seals a Google project's client secret is needed as much as one sealing an account's credentials.
      const projectKids = (await registeredProjects(deps)).map((p) => standingOf(ring, p.client_secret_enc).kid);
      const named = new Set([...groups.values()].map((g) => g.kid).concat(projectKids));
      // A v1 value names no key: any previous key may have sealed it, so none is called unused.
      const anyV1 = [...groups.values()].some((g) => g.standing === "v1");
      return reply(c, routes.credentialKeys, 200, {
        ring: ringKids(ring),
        accounts: accounts.length,
        by_key: [...groups.values()],
        unused_previous: anyV1 ? [] : ring.previous.map((key) => key.kid).filter((kid) => !named.has(kid)),
      });
    },
  };
}
