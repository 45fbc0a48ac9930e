import { expect, test } from "bun:test";
import { coerceError, isRetriable, NonRetriableError, RetryAfterError } from "../../shared/errors.ts";
import { LlmContractError } from "../../shared/providers/llm/contract.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { UploadSessionExpiredError } from "../../shared/providers/youtube/resumable-upload.ts";
import { toTaskFailure } from "../../shared/worker/pull-worker.ts";

test("a NonRetriableError and its subclasses are final", () => {
  expect(isRetriable(new NonRetriableError("bad input"))).toBe(false);
  expect(isRetriable(new LlmContractError("the answer broke its contract", []))).toBe(false);
});

test("an error carrying retriable: false is final, whatever its class", () => {
  expect(isRetriable(new ProviderRejectedError("youtube", "401 unauthorized", { status: 401 }))).toBe(false);
  expect(isRetriable(new UploadSessionExpiredError("session gone", 404))).toBe(false);
  expect(isRetriable(Object.assign(new Error("refused"), { retriable: false }))).toBe(false);
});

test("everything else may be retried", () => {
  expect(isRetriable(new Error("connection reset"))).toBe(true);
  expect(isRetriable(new ProviderUnavailableError("gemini", "503", { status: 503 }))).toBe(true);
  expect(isRetriable(new RetryAfterError("rate limited", 30))).toBe(true);
  expect(isRetriable(Object.assign(new Error("flaky"), { retriable: true }))).toBe(true);
  expect(isRetriable(coerceError("a thrown string"))).toBe(true);
  // The rule reads the error itself: a plain error wrapping a final one is the wrapper's decision.
  expect(isRetriable(new Error("the stored upload session expired", { cause: new UploadSessionExpiredError("gone", 404) }))).toBe(true);
});

test("the pull worker's failure reports follow the same rule", () => {
  const cases: Error[] = [
    new NonRetriableError("final"),
    new ProviderRejectedError("youtube", "403", { status: 403 }),
    new ProviderUnavailableError("comfyui", "502", { status: 502 }),
    new Error("ffmpeg exited with code 1"),
  ];
  for (const error of cases) expect(toTaskFailure(error).retriable).toBe(isRetriable(error));
});
