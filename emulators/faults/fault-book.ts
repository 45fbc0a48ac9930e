/**
 * Fault injection shared by the emulated services. A test arms a fault with
 * `POST /_emulator/faults {service, kind, count, ...}`; the next `count` matching calls of that
 * service fail in the documented way, then the service behaves normally again. Faults live in
 * memory only and `POST /_emulator/reset` clears them.
 *
 * | service    | kind                    | effect on the next `count` calls                                  |
 * |------------|-------------------------|-------------------------------------------------------------------|
 * | gemini     | `unavailable`           | HTTP 503 `{error:{code:503,status:"UNAVAILABLE"}}`                  |
 * | gemini     | `rate_limited`          | HTTP 429 `{error:{code:429,status:"RESOURCE_EXHAUSTED"}}`           |
 * | gemini     | `malformed_json`        | HTTP 200 whose text is cut mid-JSON, finishReason `MAX_TOKENS`      |
 * | gemini     | `invalid_api_key`       | HTTP 400 `INVALID_ARGUMENT` with reason `API_KEY_INVALID`           |
 * | gemini     | `prompt_blocked`        | HTTP 200, no candidates, `promptFeedback.blockReason: "SAFETY"`     |
 * | gemini     | `finish_safety`         | HTTP 200, one candidate with no text, `finishReason: "SAFETY"`      |
 * | gemini-tts | `unavailable`           | HTTP 503 on a TTS model's generateContent                           |
 * | gemini-tts | `rate_limited`          | HTTP 429 `RESOURCE_EXHAUSTED` with a RetryInfo `retryDelay` of 1s   |
 * | gemini-tts | `refusal`               | HTTP 200 with `promptFeedback.blockReason: PROHIBITED_CONTENT`, no audio |
 * | gemini     | `serve`                 | HTTP 200 with the given `answer` instead of the model's (see below) |
 * | openai     | `unavailable`           | HTTP 503 `{error:{type:"server_error"}}`                            |
 * | openai     | `rate_limited`          | HTTP 429 `{error:{type:"rate_limit_exceeded"}}`                     |
 * | openai     | `invalid_api_key`       | HTTP 401 `{error:{code:"invalid_api_key"}}`                         |
 * | openai     | `serve`                 | HTTP 200 with the given `answer` instead of the model's             |
 * | gemini     | `low_hook_scores`       | a hook audit (`TASK: hook_audit`) scores the hook 0.2; other tasks untouched |
 * | edge-tts   | `close_before_turn_end` | sends turn.start and part of the audio, then closes the socket     |
 * | youtube    | `drop_after_bytes`      | an upload PUT keeps its first `bytes` bytes, then the connection drops |
 * | youtube    | `http_503`              | the upload call (start or PUT) answers 503 `backendError`, nothing stored |
 * | youtube    | `session_expired`       | the session named by a PUT is discarded and the PUT answers 404     |
 * | storage    | `drop_after_bytes`      | a TUS PATCH keeps its first `bytes` bytes, then the connection drops |
 * | youtube    | `quota_exceeded`        | starting an upload answers 403 `quotaExceeded` (domain `youtube.quota`) |
 * | youtube    | `rate_limited`          | the upload call (start or PUT) answers 429 `rateLimitExceeded`      |
 * | youtube    | `upload_limit_exceeded` | starting an upload answers 400 `uploadLimitExceeded` (domain `youtube.video`), charged as a refused insert |
 * | youtube    | `unauthorized`          | starting an upload answers 401 `authError` although the access token is valid (a grant Google dropped after issuing it), nothing charged |
 * | youtube-analytics | `quota_exceeded` | a reports.query answers 403 `quotaExceeded` (domain `usageLimits`), nothing charged |
 * | youtube-data | `quota_exceeded`      | a videos.batchGetStats or thumbnails.set answers 403 `quotaExceeded`, nothing charged |
 * | youtube-data | `http_503`            | a videos.batchGetStats or thumbnails.set answers 503 `backendError`, nothing stored |
 * | youtube-analytics | `http_503`       | a reports.query answers 503 `backendError` (an outage)             |
 * | youtube-analytics | `http_500`       | a reports.query answers 500 `internalError`                        |
 * | google-oauth | `invalid_grant`       | a refresh-token grant at `/token` answers 400 `invalid_grant` "Token has been expired or revoked." |
 * | tiktok     | `rate_limited`          | a Content Posting API call answers 429 `rate_limit_exceeded`        |
 * | tiktok     | `http_503`              | an API call or upload PUT answers 503 `internal_error`, nothing stored |
 * | tiktok     | `internal_error`        | an API call or upload PUT answers 500 `internal_error`, nothing stored |
 * | tiktok     | `access_token_invalid`  | an API call answers 401 `access_token_invalid` although the token is valid |
 * | tiktok     | `spam_risk_too_many_posts` | a video init answers 403 `spam_risk_too_many_posts`, nothing created |
 * | tiktok     | `fail_processing`       | the publish whose last byte arrives next ends FAILED (`file_format_check_failed`) |
 * | tiktok     | `invalid_grant`         | a refresh-token grant at `/v2/oauth/token/` answers 400 `invalid_grant` |
 * | telegram   | `unavailable`           | a Bot API call answers 502 `Bad Gateway`, nothing sent              |
 * | telegram   | `refused`               | a Bot API call's connection drops, nothing sent                     |
 * | telegram   | `rate_limited`          | a Bot API call answers 429 with `parameters.retry_after: 3`         |
 * | meta       | `http_500` / `http_503` | a Graph API call or rupload POST answers 500 / 503 (code 2, is_transient), nothing stored |
 * | meta       | `drop_after_bytes`      | a rupload POST keeps its first `bytes` bytes, then the connection drops |
 * | meta       | `rate_limited`          | a Graph call answers code 80002 (Instagram) or 80001 (Page token) with `X-Business-Use-Case-Usage`, else code 4 |
 * | meta       | `app_rate_limited`      | a Graph call answers code 4 "Application request limit reached" with `X-App-Usage` |
 * | meta       | `page_rate_limited`     | a Graph call answers code 32 "Page request limit reached" with `X-Page-Usage` |
 * | meta       | `container_error`       | the container or Reel whose bytes complete next ends in error (subcode 2207053) |
 * | meta       | `token_expired` / `session_invalidated` | a valid token is refused once: code 190, subcode 463 / 460 |
 * | gemini, gemini-tts, edge-tts, youtube, youtube-analytics, youtube-data, tiktok, meta | `slow` | the call is answered `delay_ms` later (1..60000), otherwise normally |
 *
 * Any fault armed with `for_ms` (1..3600000) instead applies to every matching call for that long,
 * whatever `count` says: an outage (`unavailable` for 20 s), a quota-exhausted day, a slow spell.
 * `slow` combines with the other kinds: a call can be both delayed and failed. `DELETE /_emulator/faults`
 * (fault-admin.ts) disarms every fault at once.
 *
 * `serve` replays a recorded answer (the malformed-output corpus, tests/fixtures/llm-malformed.jsonl):
 * `answer: {text?, finishReason?, blockReason?, refusal?, empty?}` — the text of the answer, its
 * finish reason (Gemini `STOP`/`MAX_TOKENS`/`SAFETY`..., OpenAI `stop`/`length`/`content_filter`),
 * a Gemini prompt block (`promptFeedback.blockReason`, no candidates), an OpenAI refusal, or no
 * candidate at all (`empty: true`). Arm it with `count: n` to serve it to the next n calls, after
 * which the model answers normally again (a repair that succeeds).
 */

/** A recorded answer `serve` replays. */
export interface ServedAnswer {
  text?: string;
  finishReason?: string;
  blockReason?: string;
  refusal?: string;
  empty?: boolean;
}

const MAX_SERVED_TEXT = 64 * 1024;

function servedAnswer(input: unknown): ServedAnswer | string {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return "serve needs answer: an object";
  const { text, finishReason, blockReason, refusal, empty, ...rest } = input as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `answer has unknown keys: ${Object.keys(rest).join(", ")}`;
  if (text !== undefined && (typeof text !== "string" || text.length > MAX_SERVED_TEXT)) {
    return `answer.text must be a string of at most ${MAX_SERVED_TEXT} characters`;
  }
  for (const [name, value] of [["finishReason", finishReason], ["blockReason", blockReason]] as const) {
    if (value !== undefined && (typeof value !== "string" || !/^[A-Za-z_]{1,40}$/.test(value))) return `answer.${name} must be a reason like STOP or length`;
  }
  if (refusal !== undefined && (typeof refusal !== "string" || refusal.length > 2000)) return "answer.refusal must be a string of at most 2000 characters";
  if (empty !== undefined && typeof empty !== "boolean") return "answer.empty must be a boolean";
  return {
    text: text as string | undefined,
    finishReason: finishReason as string | undefined,
    blockReason: blockReason as string | undefined,
    refusal: refusal as string | undefined,
    empty: empty as boolean | undefined,
  };
}

export const FAULT_KINDS = {
  gemini: ["unavailable", "rate_limited", "malformed_json", "invalid_api_key", "prompt_blocked", "finish_safety", "serve", "low_hook_scores", "slow"],
  "gemini-tts": ["unavailable", "rate_limited", "refusal", "slow"],
  openai: ["unavailable", "rate_limited", "invalid_api_key", "serve"],
  "edge-tts": ["close_before_turn_end", "slow"],
  youtube: ["drop_after_bytes", "http_503", "session_expired", "quota_exceeded", "rate_limited", "upload_limit_exceeded", "unauthorized", "slow"],
  "youtube-analytics": ["quota_exceeded", "http_503", "http_500", "slow"],
  "youtube-data": ["quota_exceeded", "http_503", "slow"],
  "google-oauth": ["invalid_grant"],
  storage: ["drop_after_bytes"],
  tiktok: ["rate_limited", "http_503", "internal_error", "access_token_invalid", "spam_risk_too_many_posts", "fail_processing", "invalid_grant", "slow"],
  telegram: ["unavailable", "refused", "rate_limited", "slow"],
  meta: [
    "http_500",
    "http_503",
    "drop_after_bytes",
    "rate_limited",
    "app_rate_limited",
    "page_rate_limited",
    "container_error",
    "token_expired",
    "session_invalidated",
    "slow",
  ],
} as const;

type FaultService = keyof typeof FAULT_KINDS;

export interface Fault {
  service: FaultService;
  kind: string;
  /** How many more calls this fault applies to. */
  remaining: number;
  /** `drop_after_bytes` only: bytes of the PUT body kept before the connection drops. */
  bytes?: number;
  /** `serve` only: the answer given instead of the model's. */
  answer?: ServedAnswer;
  /** `slow` only: how long the call waits before it is answered. */
  delay_ms?: number;
  /** Set by `for_ms`: the fault applies to every matching call until then (epoch ms), `remaining` aside. */
  until?: number;
}

const MAX_DELAY_MS = 60_000;
const MAX_FOR_MS = 3_600_000;

export class FaultBook {
  #faults: Fault[] = [];

  /** Validates and arms a fault from the JSON a test posted; returns an error message or the fault. */
  arm(input: unknown): Fault | string {
    if (input === null || typeof input !== "object") return "body must be a JSON object";
    const { service, kind, count = 1, bytes, answer, delay_ms: delayMs, for_ms: forMs } = input as Record<string, unknown>;
    if (typeof service !== "string" || !Object.hasOwn(FAULT_KINDS, service)) {
      return `service must be one of ${Object.keys(FAULT_KINDS).join(", ")}`;
    }
    const kinds: readonly string[] = FAULT_KINDS[service as FaultService];
    if (typeof kind !== "string" || !kinds.includes(kind)) return `kind for ${service} must be one of ${kinds.join(", ")}`;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 1000) return "count must be an integer 1..1000";
    if (kind === "drop_after_bytes" && (typeof bytes !== "number" || !Number.isInteger(bytes) || bytes < 0)) {
      return "drop_after_bytes needs bytes: a non-negative integer";
    }
    if (kind === "slow" && (typeof delayMs !== "number" || !Number.isInteger(delayMs) || delayMs < 1 || delayMs > MAX_DELAY_MS)) {
      return `slow needs delay_ms: an integer 1..${MAX_DELAY_MS}`;
    }
    if (forMs !== undefined && (typeof forMs !== "number" || !Number.isInteger(forMs) || forMs < 1 || forMs > MAX_FOR_MS)) {
      return `for_ms must be an integer 1..${MAX_FOR_MS}`;
    }
    let served: ServedAnswer | undefined;
    if (kind === "serve") {
      const checked = servedAnswer(answer);
      if (typeof checked === "string") return checked;
      served = checked;
    }
    const fault: Fault = { service: service as FaultService, kind, remaining: count, bytes: bytes as number | undefined, answer: served };
    if (kind === "slow") fault.delay_ms = delayMs as number;
    if (forMs !== undefined) fault.until = Date.now() + (forMs as number);
    this.#faults.push(fault);
    return fault;
  }

  /**
   * Consumes one use of the oldest armed fault of `service` whose kind is accepted by `accepts`
   * (a call that a fault kind cannot apply to, such as a status query for `drop_after_bytes`,
   * leaves it armed). `slow` faults are left to `delayFor`.
   */
  take(service: FaultService, accepts: (kind: string) => boolean = () => true): Fault | undefined {
    return this.#consume((f) => f.service === service && f.kind !== "slow" && accepts(f.kind));
  }

  /** Milliseconds the next call of `service` waits before it is answered (an armed `slow`), else 0. */
  delayFor(service: FaultService): number {
    return this.#consume((f) => f.service === service && f.kind === "slow")?.delay_ms ?? 0;
  }

  #consume(matches: (fault: Fault) => boolean): Fault | undefined {
    const now = Date.now();
    this.#faults = this.#faults.filter((f) => f.until === undefined || f.until > now);
    const fault = this.#faults.find(matches);
    if (!fault) return undefined;
    // A timed fault stays armed until it expires; a counted one wears out.
    if (fault.until === undefined) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    }
    return { ...fault };
  }

  list(): Fault[] {
    const now = Date.now();
    return this.#faults.filter((f) => f.until === undefined || f.until > now).map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }
}

/** Waits out an armed `slow` fault of `service`, if any. */
export async function slowDown(faults: FaultBook, service: FaultService): Promise<void> {
  const ms = faults.delayFor(service);
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}
