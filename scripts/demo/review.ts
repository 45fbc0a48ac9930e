/**
 * `npm run demo -- --review` (docs/guides/review.md): the demo's first dimension requires review
 * before publishing, so its video waits at awaiting_review and the demo ends with the command that
 * approves it. Set through the operator API, as `mdame dimension set` does; later demos keep it.
 */
import type { RunStatus } from "../../shared/contracts/operator.ts";
import type { ReviewSettings } from "../../shared/contracts/review.ts";

/** The setting the demo gives its first dimension. */
const DEMO_REVIEW: ReviewSettings = { required: true, expires_after: "24h", on_expiry: "reject" };

/** Makes `dimensionId` require review (a change of configuration: today's run starts it again with its own allowance). */
export async function requireReview(env: Record<string, string>, dimensionId: string, say: (line: string) => void): Promise<void> {
  const headers = { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" };
  const url = `${env.FUNCTIONS_URL}/pipeline/dimensions/${dimensionId}`;
  const current = await fetch(url, { headers });
  if (!current.ok) throw new Error(`dimension ${dimensionId} could not be read (${current.status}): ${await current.text()}`);
  const { review } = await current.json() as { review: ReviewSettings | null };
  if (review?.required) {
    say(`review: ${dimensionId} already requires review before publishing`);
    return;
  }
  const response = await fetch(url, { method: "PATCH", headers, body: JSON.stringify({ review: DEMO_REVIEW }) });
  if (!response.ok) throw new Error(`review could not be required of ${dimensionId} (${response.status}): ${await response.text()}`);
  say(`review: ${dimensionId} now requires review before publishing (expires after ${DEMO_REVIEW.expires_after}, then ${DEMO_REVIEW.on_expiry})`);
}

/** The units of the run waiting for review, as the summary lists them. */
export function waitingForReview(status: RunStatus): { dimension: string; unit_id: string; title: string | null; approve: string; reject: string }[] {
  return status.units.filter((u) => u.stage === "awaiting_review").map((u) => ({
    dimension: u.dimension_id,
    unit_id: u.id,
    title: u.title,
    approve: `npm run mdame -- review approve ${u.id}`,
    reject: `npm run mdame -- review reject ${u.id} --reason "..."`,
  }));
}
