/**
 * The platform adapters the publish stage knows, by the platform an account is on
 * (dimension_accounts.platform). Adding a platform: its adapter here, the value in the platform
 * checks of dimension_accounts and publications, and its emulator (docs/reference/distribution.md).
 */
import { NonRetriableError } from "../../../shared/errors.ts";
import type { PlatformAdapter } from "./adapter.ts";
import { facebookAdapter } from "./facebook.ts";
import { instagramAdapter } from "./instagram.ts";
import { tiktokAdapter } from "./tiktok.ts";
import { youtubeAdapter } from "./youtube.ts";

// deno-lint-ignore no-explicit-any -- each adapter keeps its own ticket and metadata types; the stage is generic over them.
type AnyAdapter = PlatformAdapter<any, any>;

const ADAPTERS: Record<string, AnyAdapter> = {
  youtube: youtubeAdapter,
  tiktok: tiktokAdapter,
  instagram: instagramAdapter,
  facebook: facebookAdapter,
};

/** The adapter of `platform`; an account on a platform this engine cannot publish to is a configuration error. */
export function platformAdapter(platform: string): AnyAdapter {
  const adapter = ADAPTERS[platform];
  if (!adapter) throw new NonRetriableError(`no publishing adapter for platform ${platform}: this engine publishes to ${Object.keys(ADAPTERS).join(", ")}`);
  return adapter;
}
