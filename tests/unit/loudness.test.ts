import { describe, expect, test } from "bun:test";
import {
  isLinear,
  LOUDNESS_TARGET,
  LoudnessMeasurementError,
  loudnormApplyFilter,
  parseEbur128Summary,
  peaksFitAfterGain,
} from "../../shared/media/loudness.ts";

describe("second pass", () => {
  const m = { input_i: -21.85, input_tp: -6.06, input_lra: 4.2, input_thresh: -31.95, target_offset: 0.04 };

  test("applies the measurement linearly at -14 LUFS / -1.5 dBTP", () => {
    const filter = loudnormApplyFilter(m);
    expect(filter).toStartWith("loudnorm=I=-14:TP=-1.5:LRA=11:");
    for (const part of ["measured_I=-21.85", "measured_TP=-6.06", "measured_LRA=4.2", "measured_thresh=-31.95", "offset=0.04", "linear=true"]) {
      expect(filter).toContain(part);
    }
  });

  test("linear only while the peaks plus the gain stay under the ceiling; the render keeps encoder headroom too", () => {
    // +7.85 dB of gain lifts -6.06 dBTP peaks to +1.79: loudnorm would go dynamic.
    expect(isLinear(m)).toBe(false);
    const limited = { ...m, input_i: -14.6, input_tp: -3 };
    expect(isLinear(limited)).toBe(true);
    expect(peaksFitAfterGain(limited)).toBe(true);
    const close = { ...m, input_i: -14.9, input_tp: -2.5 };
    expect(isLinear(close)).toBe(true);
    expect(peaksFitAfterGain(close)).toBe(false);
    expect(LOUDNESS_TARGET.integrated).toBe(-14);
  });
});

const EBUR128 = `[Parsed_ebur128_2 @ 0x5581] t: 59.9 TARGET:-23 LUFS    M: -20.1 S: -21.0     I: -22.2 LUFS
[Parsed_ebur128_2 @ 0x5581] Summary:

  Integrated loudness:
    I:         -22.2 LUFS
    Threshold: -32.4 LUFS

  Loudness range:
    LRA:         3.0 LU
    Threshold: -43.2 LUFS
    LRA low:   -24.6 LUFS
    LRA high:  -21.6 LUFS

  True peak:
    Peak:       -5.7 dBFS
`;

describe("ebur128 summary (the levelling passes' meter)", () => {
  test("reads integrated loudness, its threshold, the range and the true peak from the last summary", () => {
    const earlier = EBUR128.replace("-22.2 LUFS\n    Threshold", "-30.0 LUFS\n    Threshold");
    expect(parseEbur128Summary(earlier + EBUR128)).toEqual({ input_i: -22.2, input_thresh: -32.4, input_lra: 3, input_tp: -5.7, target_offset: 0 });
  });

  test("silence, a summary without the true peak, and no summary at all are refused", () => {
    const silent = EBUR128.replace("I:         -22.2", "I:         -70.0").replace("-5.7 dBFS", "-inf dBFS");
    expect(() => parseEbur128Summary(silent)).toThrow(/silent/);
    const gatedSilence = EBUR128.replace("I:         -22.2", "I:         -70.0");
    expect(() => parseEbur128Summary(gatedSilence)).toThrow(/silent/);
    expect(() => parseEbur128Summary(EBUR128.slice(0, EBUR128.indexOf("  True peak:")))).toThrow(/peak=true/);
    expect(() => parseEbur128Summary("ffmpeg said nothing useful")).toThrow(LoudnessMeasurementError);
  });
});
