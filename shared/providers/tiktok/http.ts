/**
 * What the TikTok clients share: the default hosts, the one fetch wrapper (a dropped connection
 * becomes ProviderUnavailableError), answer bodies read with a hard cap, and zod failures named
 * by field path only, so no value from an answer (a token among them) reaches an error message.
 */
import type { z } from "zod";
import { readCappedStream } from "../../http/capped-stream.ts";
import { ProviderUnavailableError } from "../errors.ts";

/** Host of the Open API (OAuth token endpoints, Content Posting API). */
export const DEFAULT_API_BASE_URL = "https://open.tiktokapis.com";
/** Host of the Login Kit authorize page. */
export const DEFAULT_AUTH_BASE_URL = "https://www.tiktok.com";

/** TikTok's JSON answers are a few hundred bytes; anything near this cap is not one of them. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export async function send(provider: string, url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual" });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ProviderUnavailableError(provider, `${what}: connection failed: ${message}`, { cause: error });
  }
}

/** The answer's text, at most MAX_ANSWER_BYTES; a longer or unreadable body is an outage, not an answer. */
export async function readAnswer(provider: string, response: Response, what: string): Promise<string> {
  try {
    const bytes = await readCappedStream(response.body, MAX_ANSWER_BYTES, () => new Error("too large"));
    return new TextDecoder().decode(bytes);
  } catch {
    throw new ProviderUnavailableError(provider, `${what}: the answer (${response.status}) was unreadable or larger than ${MAX_ANSWER_BYTES} bytes`, {
      status: response.status,
    });
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** "field.path: problem" for each issue, without the values zod saw. */
export function issuesOf(error: z.ZodError): string {
  return error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.code}`).join("; ");
}

/** TikTok's own text in an error message, shortened and on one line. */
export function clip(text: string, max = 300): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
