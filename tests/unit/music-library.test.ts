import { describe, expect, test } from "bun:test";
import { musicLicenseKeyOf } from "../../shared/contracts/callbacks.ts";
import { licensedTracks, MusicLicense, pickTrackIndex } from "../../render-runner/music-library.ts";
import { ASSUMED_LIMITER_SLOPE, buildMixGraph, duckThreshold, nextMakeupDb } from "../../render-runner/music-mix.ts";
import { MusicBed } from "../../shared/contracts/dimension.ts";

const M = { input_i: -20, input_tp: -5, input_lra: 3, input_thresh: -30, target_offset: 0 };

describe("music library", () => {
  test("only audio tracks with a .license.json sidecar count, in key order", () => {
    const keys = [
      "music/calm/zeta.mp3",
      "music/calm/zeta.license.json",
      "music/calm/alpha.m4a",
      "music/calm/alpha.license.json",
      "music/calm/no-sidecar.mp3",
      "music/calm/notes.txt",
      "music/calm/notes.license.json",
    ];
    expect(licensedTracks(keys)).toEqual([
      { track_key: "music/calm/alpha.m4a", license_key: "music/calm/alpha.license.json" },
      { track_key: "music/calm/zeta.mp3", license_key: "music/calm/zeta.license.json" },
    ]);
    expect(musicLicenseKeyOf("music/calm/dawn.v2.flac")).toBe("music/calm/dawn.v2.license.json");
  });

  test("a unit always gets the same track, and different units spread over the library", async () => {
    const unit = "0f4f3c1e-2b7a-4d5c-8e9f-1a2b3c4d5e6f";
    const first = await pickTrackIndex(unit, "music/calm", 5);
    expect(await pickTrackIndex(unit, "music/calm", 5)).toBe(first);
    const picks = new Set<number>();
    for (let i = 0; i < 40; i++) picks.add(await pickTrackIndex(crypto.randomUUID(), "music/calm", 5));
    expect(picks.size).toBeGreaterThanOrEqual(4);
    for (const p of picks) expect(p).toBeGreaterThanOrEqual(0);
    for (const p of picks) expect(p).toBeLessThan(5);
  });
});

describe("licence sidecar", () => {
  const sidecar = { title: "Dawn", author: "A. Composer", license: "CC BY 4.0", source_url: "https://example.org/dawn" };

  test("a sidecar naming a web page is read", () => {
    expect(MusicLicense.parse(sidecar)).toEqual(sidecar);
  });

  test.each(["file:///etc/passwd", "javascript:alert(1)", "ftp://example.org/dawn"])("a sidecar whose source is %s is refused", (url) => {
    const parsed = MusicLicense.safeParse({ ...sidecar, source_url: url });
    expect(parsed.success ? null : parsed.error.issues.map((i) => i.path.join("."))).toEqual(["source_url"]);
  });
});

describe("music bed contract", () => {
  test("defaults: 10 dB under the voice, 10 dB dip while it speaks, 1.5 s fades", () => {
    expect(MusicBed.parse({ library: "music/calm" })).toEqual({ library: "music/calm", gain_db: -10, duck_db: 10, fade_s: 1.5 });
  });

  test("a bed louder than the voice, a path out of the store or an unknown field is refused", () => {
    expect(MusicBed.safeParse({ library: "music/calm", gain_db: 3 }).success).toBe(false);
    expect(MusicBed.safeParse({ library: "../etc" }).success).toBe(false);
    expect(MusicBed.safeParse({ library: "music/../x" }).success).toBe(false);
    expect(MusicBed.safeParse({ library: "music/calm", volume: 1 }).success).toBe(false);
  });
});

describe("mix graph", () => {
  test("the bed is looped input, faded, ducked by the voice and mixed without renormalising", () => {
    const graph = buildMixGraph({ voice: 2, music: 3, durationS: 30 }, { voice: M, music: M, makeup_db: 0 }, { gain_db: -12, duck_db: 10, fade_s: 2 }, "out")
      .join(";");
    expect(graph).toContain("[3:a]");
    expect(graph).toContain("afade=t=in:d=2.000000");
    expect(graph).toContain("afade=t=out:st=28.000000:d=2.000000");
    expect(graph).toContain("[mixbed][mixkey]sidechaincompress=");
    expect(graph).toContain("amix=inputs=2:duration=first:dropout_transition=0:normalize=0");
    // Voice -20 -> -14 LUFS: +6 dB; bed -20 -> -26 LUFS: -6 dB.
    expect(graph).toContain("volume=6.00dB");
    expect(graph).toContain("volume=-6.00dB");
    expect(graph).toEndWith("[out]");
  });

  test("voice only: no bed, same levelling and limiter", () => {
    const graph = buildMixGraph({ voice: 0, music: null, durationS: 10 }, { voice: M, music: null, makeup_db: 1.5 }, null, "out").join(";");
    expect(graph).not.toContain("sidechaincompress");
    expect(graph).toContain("volume=1.50dB,aresample=192000,alimiter=");
  });

  test("a deeper dip sets a lower threshold", () => {
    expect(duckThreshold(20)).toBeLessThan(duckThreshold(10));
    expect(duckThreshold(0)).toBeGreaterThan(duckThreshold(10));
  });
});

describe("makeup gain between measuring rounds", () => {
  const at = (input_i: number) => ({ ...M, input_i, input_tp: -3 });

  test("the first raise doubles the shortfall: the limiter is assumed to keep half of it", () => {
    // -16.8 LUFS after the limiter, 2.8 dB short of -14: raise by 5.6 dB.
    expect(nextMakeupDb({ makeup_db: 0, measured: at(-16.8) }, null)).toBeCloseTo(2.8 / ASSUMED_LIMITER_SLOPE, 2);
  });

  test("later raises use the share measured between the last two rounds", () => {
    // 0 dB -> -16.8, 4 dB -> -15.2: 0.4 of the raise came out; 1.2 dB short needs 3 dB more.
    expect(nextMakeupDb({ makeup_db: 4, measured: at(-15.2) }, { makeup_db: 0, measured: at(-16.8) })).toBeCloseTo(7, 2);
  });

  test("a measured share is kept within sane bounds, and one raise is at most 12 dB", () => {
    // The loudness did not move at all: the share is taken as 0.2, not 0 (no division by zero).
    expect(nextMakeupDb({ makeup_db: 2, measured: at(-15) }, { makeup_db: 0, measured: at(-15) })).toBeCloseTo(2 + 1 / 0.2, 2);
    // More than the raise came out (noise): taken as 1.
    expect(nextMakeupDb({ makeup_db: 2, measured: at(-14.5) }, { makeup_db: 0, measured: at(-17) })).toBeCloseTo(2.5, 2);
    expect(nextMakeupDb({ makeup_db: 0, measured: at(-40) }, null)).toBe(12);
  });
});
