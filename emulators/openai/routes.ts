/**
 * An OpenAI-compatible Chat Completions API, as the official `openai` client (and Ollama, vLLM,
 * OpenRouter) speak it: `POST /v1/chat/completions` with `Authorization: Bearer <key>` and a body
 * `{model, messages:[{role, content}], temperature, seed, response_format}`; `GET /v1/models`.
 *
 * The emulated model answers the engine's prompts with the same deterministic task answers as the
 * Gemini emulator (tasks/*, through `answerPrompt`): the answer depends only on the model
 * name, the user messages and the generation parameters. With `response_format` `json_object` or
 * `json_schema` the answer is bare JSON, otherwise JSON in a Markdown fence, as chat models write.
 * Usage is reported in `prompt_tokens` / `completion_tokens` / `total_tokens`.
 *
 * Auth: the one key the emulator issues, `sk-local-emulator-key` (the local stack's
 * OPENAI_COMPAT_API_KEY), is accepted; no key is 401 and another key 401 `invalid_api_key`, as
 * OpenAI answers. Faults (faults/fault-book.ts, service `openai`): `unavailable` (503), `rate_limited` (429),
 * `invalid_api_key` (401), `serve` (a recorded answer instead of the model's).
 */
import { createHash } from "node:crypto";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import type { ServedAnswer } from "../faults/fault-book.ts";
import { answerPrompt, fooledBookOf } from "../gemini/routes.ts";

export const OPENAI_EMULATOR_API_KEY = "sk-local-emulator-key";

const COMPLETIONS = "/v1/chat/completions";
const MODELS = "/v1/models";
const MAX_BODY_BYTES = 1024 * 1024;
/** The models `GET /v1/models` lists; any other model id is answered all the same, as Ollama and vLLM serve what they load. */
const LISTED_MODELS = ["emulated-chat", "gpt-4o-mini", "llama3.1:8b"];

function openAiError(status: number, message: string, type: string, code: string | null = null, param: string | null = null): Response {
  return jsonResponse({ error: { message, type, param, code } }, status);
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

interface ChatMessage {
  role?: unknown;
  content?: unknown;
}

/** A message's text: a string, or the text parts of a content array. */
function messageText(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) {
    return message.content
      .map((part) => (part && typeof part === "object" && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : ""))
      .join("");
  }
  return "";
}

function refuseKey(req: Request): Response | undefined {
  const header = req.headers.get("authorization") ?? "";
  const key = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? "";
  if (key === "") {
    return openAiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      "invalid_request_error",
    );
  }
  if (key !== OPENAI_EMULATOR_API_KEY) return invalidKey(key);
  return undefined;
}

function invalidKey(key: string): Response {
  const shown = key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : "*****";
  return openAiError(401, `Incorrect API key provided: ${shown}.`, "invalid_request_error", "invalid_api_key");
}

function completion(model: string, content: string | null, finishReason: string, promptTokens: number, refusal: string | null = null, empty = false) {
  const completionTokens = content ? tokens(content) : 0;
  const id = createHash("sha256").update(JSON.stringify([model, content, finishReason])).digest("base64url").slice(0, 24);
  return jsonResponse({
    id: `chatcmpl-${id}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: empty ? [] : [{ index: 0, message: { role: "assistant", content, refusal }, logprobs: null, finish_reason: finishReason }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    system_fingerprint: "fp_mdame_emulator",
  });
}

function served(model: string, answer: ServedAnswer, promptTokens: number): Response {
  if (answer.empty) return completion(model, null, "stop", promptTokens, null, true);
  if (answer.refusal) return completion(model, null, answer.finishReason ?? "stop", promptTokens, answer.refusal);
  return completion(model, answer.text ?? null, answer.finishReason ?? "stop", promptTokens);
}

export async function handleOpenAi(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname === MODELS) {
    if (req.method !== "GET") return openAiError(405, `Method ${req.method} not allowed.`, "invalid_request_error");
    const refused = refuseKey(req);
    if (refused) return refused;
    return jsonResponse({ object: "list", data: LISTED_MODELS.map((id) => ({ id, object: "model", created: 0, owned_by: "mdame-emulator" })) });
  }
  if (url.pathname !== COMPLETIONS) return undefined;
  if (req.method !== "POST") return openAiError(405, `Method ${req.method} not allowed.`, "invalid_request_error");
  const refused = refuseKey(req);
  if (refused) return refused;

  const fault = ctx.faults.take("openai");
  if (fault?.kind === "unavailable") return openAiError(503, "The server is overloaded or not ready yet.", "server_error");
  if (fault?.kind === "rate_limited") return openAiError(429, "Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded");
  if (fault?.kind === "invalid_api_key") return invalidKey(req.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "");

  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return openAiError(413, `Request body is larger than ${MAX_BODY_BYTES} bytes.`, "invalid_request_error");
  const raw = await req.text();
  if (raw.length > MAX_BODY_BYTES) return openAiError(413, `Request body is larger than ${MAX_BODY_BYTES} bytes.`, "invalid_request_error");
  let body: Record<string, unknown>;
  try {
    const parsed = JSON.parse(raw);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    body = parsed as Record<string, unknown>;
  } catch {
    return openAiError(400, "We could not parse the JSON body of your request.", "invalid_request_error");
  }
  const model = body.model;
  if (typeof model !== "string" || model.trim() === "") return openAiError(400, "you must provide a model parameter", "invalid_request_error", null, "model");
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return openAiError(400, "[] is too short - 'messages'", "invalid_request_error", null, "messages");
  }
  const prompt = (body.messages as ChatMessage[])
    .filter((m) => m && typeof m === "object" && (m.role ?? "user") === "user")
    .map(messageText)
    .join("\n");
  if (prompt.trim() === "") return openAiError(400, "messages must contain a user message with text", "invalid_request_error", null, "messages");
  const format = (body.response_format as { type?: unknown } | undefined)?.type;
  if (format !== undefined && format !== "text" && format !== "json_object" && format !== "json_schema") {
    return openAiError(
      400,
      `Invalid value: '${String(format)}'. Supported values are: 'json_object', 'json_schema', and 'text'.`,
      "invalid_request_error",
      "invalid_value",
      "response_format.type",
    );
  }
  const temperature = typeof body.temperature === "number" ? body.temperature : undefined;
  const seed = typeof body.seed === "number" ? body.seed : undefined;
  const promptTokens = tokens(prompt);
  if (fault?.kind === "serve" && fault.answer) return served(model, fault.answer, promptTokens);

  const json = format === "json_object" || format === "json_schema";
  const text = answerPrompt(model, prompt, { temperature, seed, responseMimeType: json ? "application/json" : undefined }, { fooled: fooledBookOf(ctx) });
  return completion(model, text, "stop", promptTokens);
}
