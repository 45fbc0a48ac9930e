import { describe, expect, test } from "bun:test";
import { musicLicenseKeyOf, WorkerCallback } from "../../shared/contracts/callbacks.ts";

const music = {
  track_key: "music/calm/dawn.mp3",
  license_key: "music/calm/dawn.license.json",
  title: "Dawn",
  author: "A. Composer",
  license: "CC BY 4.0",
  source_url: "https://example.org/dawn",
};

const renderCompleted = (overrides: Record<string, unknown>) => ({
  kind: "render.completed",
  msg_id: 7,
  unit_id: "6f1c1a52-4b0e-4c43-9a53-2a5f4f0d1c11",
  video_key: `renders/${"a".repeat(64)}.mp4`,
  duration_s: 30,
  width: 1080,
  height: 1920,
  size_bytes: 1000,
  render_ms: 100,
  quality: undefined,
  music: { ...music, ...overrides },
  worker_id: "w1",
});

/** The first issue of the music record of a render.completed, as the callback would refuse it. */
function musicIssue(overrides: Record<string, unknown>): { path: string; message: string } | null {
  const parsed = WorkerCallback.safeParse(renderCompleted(overrides));
  if (parsed.success) return null;
  const issue = parsed.error.issues.find((i) => i.path[0] === "music");
  return issue ? { path: issue.path.join("."), message: issue.message } : null;
}

describe("a render callback's music record", () => {
  test("a track in a library with its sidecar and a web source is accepted", () => {
    expect(musicIssue({})).toBeNull();
  });

  test.each([
    ["track_key", "../../etc/passwd"],
    ["track_key", "music/calm/../../secrets/key.mp3"],
    ["track_key", "/music/calm/dawn.mp3"],
    ["track_key", "music//dawn.mp3"],
    ["track_key", "music\\calm\\dawn.mp3"],
    ["track_key", "music/calm/da\u001bwn.mp3"],
    ["license_key", "music/calm/other.license.json"],
  ])("%s %j is refused", (field, value) => {
    const issue = musicIssue(field === "track_key" ? { track_key: value, license_key: musicLicenseKeyOf(value) } : { [field]: value });
    expect(issue?.path).toBe(`music.${field}`);
  });

  test.each(["file:///etc/passwd", "javascript:alert(1)", "ftp://example.org/dawn", "data:text/plain,x"])("source_url %s is refused", (url) => {
    const issue = musicIssue({ source_url: url });
    expect(issue).toEqual({ path: "music.source_url", message: "must be an http(s) URL" });
  });

  test("the sidecar key replaces the track's extension", () => {
    expect(musicLicenseKeyOf("music/calm/dawn.mp3")).toBe("music/calm/dawn.license.json");
    expect(musicLicenseKeyOf("music/calm/v1.2/dawn")).toBe("music/calm/v1.2/dawn.license.json");
    expect(musicLicenseKeyOf("music/calm/.hidden")).toBe("music/calm/.hidden.license.json");
  });
});
