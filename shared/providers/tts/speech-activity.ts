/**
 * Voice activity in 16-bit mono PCM, in plain TypeScript (Deno-safe: no subprocess, no WASM):
 * an RMS energy envelope, the pauses it shows, and the energy valleys inside speech.
 */

/** Envelope frames: a 10 ms window every 5 ms. */
const HOP_MS = 5;
const WINDOW_MS = 10;
/** Below this a frame is digital silence for the level statistics. */
const FLOOR_DB = -90;
/** A track whose loud part is quieter than this holds no speech worth aligning. */
const AUDIBLE_DB = -60;

export interface Envelope {
  /** RMS level of each frame in dBFS; frame i covers [i * HOP_MS, i * HOP_MS + WINDOW_MS). */
  db: Float32Array;
  /** Level under which a frame counts as silence. */
  thresholdDb: number;
  /** Level of the track's loud speech (its 95th percentile frame). */
  loudDb: number;
}

/** A stretch of silence inside the speech, in ms. */
export interface Pause {
  startMs: number;
  endMs: number;
}

interface SpeechActivity {
  envelope: Envelope;
  /** First and last audible instants, in ms; undefined when nothing is audible. */
  speechStartMs?: number;
  speechEndMs?: number;
  /** Pauses of at least `minPauseMs` strictly between speechStartMs and speechEndMs, in order. */
  pauses: Pause[];
}

function percentile(sorted: Float32Array, p: number): number {
  if (sorted.length === 0) return FLOOR_DB;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))];
}

function energyEnvelope(pcm: Int16Array, sampleRate: number): Envelope {
  const hop = Math.max(1, Math.round((sampleRate * HOP_MS) / 1000));
  const window = Math.max(hop, Math.round((sampleRate * WINDOW_MS) / 1000));
  const frames = Math.max(0, Math.ceil(pcm.length / hop));
  const db = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    const start = f * hop;
    const end = Math.min(pcm.length, start + window);
    let sum = 0;
    for (let i = start; i < end; i++) sum += pcm[i] * pcm[i];
    const rms = end > start ? Math.sqrt(sum / (end - start)) / 32768 : 0;
    db[f] = rms > 0 ? Math.max(FLOOR_DB, 20 * Math.log10(rms)) : FLOOR_DB;
  }
  // Silence is judged against the track's own loud speech and its own noise floor, so a quiet
  // or noisy recording is read the same way as a clean one.
  const sorted = Float32Array.from(db).sort();
  const loud = percentile(sorted, 0.95);
  const floor = percentile(sorted, 0.05);
  const thresholdDb = Math.max(loud - 40, floor + 0.3 * (loud - floor));
  return { db, thresholdDb, loudDb: loud };
}

/** Voice activity with pauses of at least `minPauseMs`. */
export function detectSpeech(pcm: Int16Array, sampleRate: number, minPauseMs = 30): SpeechActivity {
  const envelope = energyEnvelope(pcm, sampleRate);
  const { db, thresholdDb } = envelope;
  if (envelope.loudDb < AUDIBLE_DB) return { envelope, pauses: [] };
  let first = -1;
  let last = -1;
  for (let f = 0; f < db.length; f++) {
    if (db[f] >= thresholdDb) {
      if (first < 0) first = f;
      last = f;
    }
  }
  if (first < 0) return { envelope, pauses: [] };
  const pauses: Pause[] = [];
  let runStart = -1;
  for (let f = first; f <= last; f++) {
    const silent = db[f] < thresholdDb;
    if (silent && runStart < 0) runStart = f;
    if (!silent && runStart >= 0) {
      // A frame's window reaches WINDOW_MS past its start, so silence starts one window after
      // the last loud frame began and ends where the next loud frame's window reaches sound.
      const startMs = runStart * HOP_MS + (WINDOW_MS - HOP_MS);
      const endMs = f * HOP_MS + (WINDOW_MS - HOP_MS);
      if (endMs - startMs >= minPauseMs) pauses.push({ startMs, endMs });
      runStart = -1;
    }
  }
  return {
    envelope,
    speechStartMs: first * HOP_MS + (WINDOW_MS - HOP_MS),
    speechEndMs: last * HOP_MS + WINDOW_MS,
    pauses,
  };
}

/**
 * The instant near `aroundMs` (within `radiusMs`) where the energy dips deepest relative to its
 * surroundings, preferring dips close to `aroundMs`; `aroundMs` itself when no dip stands out.
 * Word boundaries in connected speech sit in such dips more often than not.
 */
export function nearestValley(envelope: Envelope, aroundMs: number, radiusMs: number, minDepthDb = 6): number {
  const { db } = envelope;
  const centre = Math.round(aroundMs / HOP_MS);
  const radius = Math.round(radiusMs / HOP_MS);
  const context = Math.round(40 / HOP_MS);
  let best = aroundMs;
  let bestScore = 0;
  for (let f = Math.max(1, centre - radius); f <= Math.min(db.length - 2, centre + radius); f++) {
    if (!(db[f] <= db[f - 1] && db[f] <= db[f + 1])) continue;
    let leftPeak = db[f];
    let rightPeak = db[f];
    for (let k = 1; k <= context; k++) {
      if (f - k >= 0) leftPeak = Math.max(leftPeak, db[f - k]);
      if (f + k < db.length) rightPeak = Math.max(rightPeak, db[f + k]);
    }
    const depth = Math.min(leftPeak, rightPeak) - db[f];
    if (depth < minDepthDb) continue;
    const score = depth * (1 - Math.abs(f - centre) / (radius + 1));
    if (score > bestScore) {
      bestScore = score;
      best = f * HOP_MS + WINDOW_MS / 2;
    }
  }
  return best;
}
