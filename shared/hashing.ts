/**
 * Deterministic hashing and the idempotency keys of docs/design.md.
 * WebCrypto only, so the same code runs in Deno, Bun and Node.
 */

const encoder = new TextEncoder();

/** Hex SHA-256 of a string or bytes. */
export async function sha256Hex(input: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * JSON with object keys sorted at every depth, so equal values always hash alike.
 * `undefined` members are dropped, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return sortKeys((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/**
 * A dimension's configuration hash: sha256 of the canonical JSON of its configuration (every
 * DimensionConfig field; not whether it is active). mdame.config_hash computes the same in SQL.
 */
export function dimensionConfigHash(config: Record<string, unknown>): Promise<string> {
  return sha256Hex(canonicalJson(config));
}

/**
 * run key: sha256(env : utc date : trigger kind : canonical JSON of {dimension_id: config hash}) over
 * the dimensions the run starts, so a configuration changed during the day keys a new run for that
 * dimension. mdame.run_key computes the same in SQL (the triggers use that one).
 */
export function runKey(env: string, utcDate: string, triggerKind: string, configHashes: Record<string, string>): Promise<string> {
  return sha256Hex(`${env}:${utcDate}:${triggerKind}:${canonicalJson(configHashes)}`);
}

/** work unit key: sha256(dimension_id : topic fingerprint : stage). */
export function workUnitKey(dimensionId: string, topicFingerprint: string, stage: string): Promise<string> {
  return sha256Hex(`${dimensionId}:${topicFingerprint}:${stage}`);
}

/** scene_hash = sha256(scene prompt + style + dimension_id + backend/model version). */
export function sceneHash(prompt: string, style: unknown, dimensionId: string, backendVersion: string): Promise<string> {
  return sha256Hex(canonicalJson({ prompt, style, dimension_id: dimensionId, backend: backendVersion }));
}

/** voice key = sha256(text + voice + provider + rate). */
export function voiceKey(text: string, voice: string, provider: string, rate: string): Promise<string> {
  return sha256Hex(canonicalJson({ text, voice, provider, rate }));
}

/** LLM call cache key = sha256(model + canonical prompt + generation params). */
export function llmCallKey(model: string, prompt: unknown, params: unknown): Promise<string> {
  return sha256Hex(canonicalJson({ model, prompt, params }));
}

/**
 * Topic fingerprint: the title lower-cased, accents and punctuation dropped, so the same trend
 * spelled differently ("Pokémon GO!" and "pokemon go") dedupes.
 */
export function topicFingerprint(title: string): Promise<string> {
  const normalised = title.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  return sha256Hex(normalised);
}
