/**
 * A render's signed URL for the operator's pages (the ops video, a review): valid
 * OPS_RENDER_URL_TTL_S, or none when storage no longer holds the render (released by an abort, say),
 * which is logged with `context`.
 */
import { OPS_RENDER_URL_TTL_S } from "../../../shared/contracts/ops.ts";
import { AssetNotFoundError } from "../../../shared/storage/asset-store.ts";
import type { OperatorDeps } from "./deps.ts";

export async function signedRenderUrl(
  deps: Pick<OperatorDeps, "store" | "logger">,
  key: string | null,
  context: Record<string, unknown>,
): Promise<{ url: string | null; expiresAt: string | null }> {
  if (key === null) return { url: null, expiresAt: null };
  const expires = new Date(Date.now() + OPS_RENDER_URL_TTL_S * 1000);
  try {
    return { url: await deps.store.signedUrl(key, OPS_RENDER_URL_TTL_S), expiresAt: expires.toISOString() };
  } catch (error) {
    if (!(error instanceof AssetNotFoundError)) throw error;
    deps.logger.warn({ ...context, status: "missing", asset_key: key }, "a render is not in storage");
    return { url: null, expiresAt: null };
  }
}
