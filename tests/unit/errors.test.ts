import { describe, expect, test } from "bun:test";
import { coerceError, isRetriable, NonRetriableError, RetryAfterError } from "../../shared/errors.ts";
import { LlmContractError } from "../../shared/providers/llm/contract.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { UploadSessionExpiredError } from "../../shared/providers/youtube/resumable-upload.ts";
import { oneLineMessage, toTaskFailure } from "../../shared/worker/pull-worker.ts";
import { WorkerCallback } from "../../shared/contracts/callbacks.ts";

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

describe("a worker's failure message", () => {
  test("is one plain line the callback contract accepts: breaks joined, controls and bidi controls escaped, cut whole", () => {
    const thrown = new Error("ffmpeg exited 1\r\n  [mp4 @ 0x1] moov atom not found\n\u202eevil\u001b[31m red\u0007");
    const { message } = toTaskFailure(thrown);
    expect(message).toBe("ffmpeg exited 1 | [mp4 @ 0x1] moov atom not found | \\u202eevil\\u001b[31m red\\u0007");
    const callback = {
      kind: "render.failed",
      msg_id: 1,
      worker_id: "w",
      unit_id: "00000000-0000-4000-8000-000000000001",
      error: { message, retriable: false },
    };
    expect(WorkerCallback.safeParse(callback).success).toBe(true);
    expect(WorkerCallback.safeParse({ ...callback, error: { message: "line\u202e", retriable: false } }).success).toBe(false);
    // A cut never leaves half an escape or half a surrogate pair.
    for (let max = 1; max <= 12; max++) {
      const cut = oneLineMessage("ab\u202e😀\u0007", max);
      expect(cut).not.toMatch(/\\u[0-9a-f]{0,3}$/);
      expect(cut.isWellFormed()).toBe(true);
    }
  });
});
