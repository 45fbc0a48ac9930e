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
 *
 * `serve` replays a recorded answer (the malformed-output corpus, tests/fixtures/llm-malformed):
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
  if (text !== undefined && (typeof text !== "string" || text.length > MAX_SERVED_TEXT)) return `answer.text must be a string of at most ${MAX_SERVED_TEXT} characters`;
  for (const [name, value] of [["finishReason", finishReason], ["blockReason", blockReason]] as const) {
    if (value !== undefined && (typeof value !== "string" || !/^[A-Za-z_]{1,40}$/.test(value))) return `answer.${name} must be a reason like STOP or length`;
  }
  if (refusal !== undefined && (typeof refusal !== "string" || refusal.length > 2000)) return "answer.refusal must be a string of at most 2000 characters";
  if (empty !== undefined && typeof empty !== "boolean") return "answer.empty must be a boolean";
  return { text: text as string | undefined, finishReason: finishReason as string | undefined, blockReason: blockReason as string | undefined, refusal: refusal as string | undefined, empty: empty as boolean | undefined };
}

export const FAULT_KINDS = {
  gemini: ["unavailable", "rate_limited", "malformed_json", "invalid_api_key", "prompt_blocked", "finish_safety", "serve", "low_hook_scores"],
  "gemini-tts": ["unavailable", "rate_limited", "refusal"],
  openai: ["unavailable", "rate_limited", "invalid_api_key", "serve"],
  "edge-tts": ["close_before_turn_end"],
  youtube: ["drop_after_bytes", "http_503", "session_expired"],
  storage: ["drop_after_bytes"],
} as const;

export type FaultService = keyof typeof FAULT_KINDS;

export interface Fault {
  service: FaultService;
  kind: string;
  /** How many more calls this fault applies to. */
  remaining: number;
  /** `drop_after_bytes` only: bytes of the PUT body kept before the connection drops. */
  bytes?: number;
  /** `serve` only: the answer given instead of the model's. */
  answer?: ServedAnswer;
}

export class FaultBook {
  #faults: Fault[] = [];

  /** Validates and arms a fault from the JSON a test posted; returns an error message or the fault. */
  arm(input: unknown): Fault | string {
    if (input === null || typeof input !== "object") return "body must be a JSON object";
    const { service, kind, count = 1, bytes, answer } = input as Record<string, unknown>;
    if (typeof service !== "string" || !(service in FAULT_KINDS)) {
      return `service must be one of ${Object.keys(FAULT_KINDS).join(", ")}`;
    }
    const kinds: readonly string[] = FAULT_KINDS[service as FaultService];
    if (typeof kind !== "string" || !kinds.includes(kind)) return `kind for ${service} must be one of ${kinds.join(", ")}`;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 1000) return "count must be an integer 1..1000";
    if (kind === "drop_after_bytes" && (typeof bytes !== "number" || !Number.isInteger(bytes) || bytes < 0)) {
      return "drop_after_bytes needs bytes: a non-negative integer";
    }
    let served: ServedAnswer | undefined;
    if (kind === "serve") {
      const checked = servedAnswer(answer);
      if (typeof checked === "string") return checked;
      served = checked;
    }
    const fault: Fault = { service: service as FaultService, kind, remaining: count, bytes: bytes as number | undefined, answer: served };
    this.#faults.push(fault);
    return fault;
  }

  /**
   * Consumes one use of the oldest armed fault of `service` whose kind is accepted by `accepts`
   * (a call that a fault kind cannot apply to, such as a status query for `drop_after_bytes`,
   * leaves it armed).
   */
  take(service: FaultService, accepts: (kind: string) => boolean = () => true): Fault | undefined {
    const fault = this.#faults.find((f) => f.service === service && accepts(f.kind));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return { ...fault };
  }

  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }
}
