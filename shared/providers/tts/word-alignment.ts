/**
 * Word timings for speech that came without them (Gemini TTS), from the script and the audio
 * alone, in plain TypeScript so it runs inside the Edge Function.
 *
 * 1. Voice activity: the energy envelope splits the audio into speech and pauses.
 * 2. Each word gets an expected length from its syllables and letters (letters stand in for
 *    phonemes; the proportions were fitted on espeak-ng speech, then the fixed part per word
 *    halved, since a word inside a sentence has no onset and release of its own).
 * 3. A dynamic programme decides which pauses are word boundaries: it groups consecutive words
 *    into the speech between two chosen pauses so that each group's length matches what its
 *    words predict at the track's own speaking rate, a long pause left inside a group costs more
 *    than a short one (a stop consonant's closure is a short pause inside a word), and a pause
 *    chosen at a word boundary should be as long as the punctuation there suggests (a full stop
 *    longer than a comma, a comma longer than none).
 * 4. Within a group, words share its time by expected length; each inner boundary then moves to
 *    the deepest energy dip nearby, where connected speech usually joins two words.
 */
import { WordTiming } from "../../contracts/media.ts";
import { detectSpeech, nearestValley, type Pause } from "./speech-activity.ts";

type PauseKind = "none" | "clause" | "sentence";

interface ScriptWord {
  text: string;
  /** Punctuation after the word. */
  pause: PauseKind;
  /** Expected spoken length, in arbitrary units. */
  weight: number;
}

/** Typical pause after each punctuation, in ms, in read speech. */
const EXPECTED_PAUSE_MS: Record<PauseKind, number> = { none: 20, clause: 180, sentence: 380 };
const MAX_WORDS_PER_GROUP = 30;
const MAX_PAUSES_PER_GROUP = 12;

/** Vowel groups approximate syllables in English and Indonesian spelling alike. */
function syllables(word: string): number {
  const lower = word.toLocaleLowerCase();
  const digits = lower.replace(/[^0-9]/g, "").length;
  const letters = lower.replace(/[^\p{L}]/gu, "");
  let count = (letters.match(/[aeiouyàáâäèéêëìíîïòóôöùúûü]+/g) ?? []).length;
  // A silent final e ("make", "time") adds no syllable in English spelling.
  if (/[^aeiouy]e$/.test(letters) && count > 1) count -= 1;
  // A number is read out: about two syllables a digit.
  return Math.max(1, count + digits * 2);
}

/** Words as the voice will speak them: punctuation stripped from the ends, noted as the pause after. */
export function scriptWords(text: string): ScriptWord[] {
  const words: ScriptWord[] = [];
  for (const raw of text.split(/\s+/).filter(Boolean)) {
    const pause: PauseKind = /[.!?…]["'”’)\]]*$/.test(raw) ? "sentence" : /[,;:—–]["'”’)\]]*$/.test(raw) ? "clause" : "none";
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (word) {
      const letters = word.replace(/[^\p{L}\p{N}]/gu, "").length;
      words.push({ text: word, pause, weight: 1.5 + syllables(word) + 0.7 * letters });
    } else if (words.length > 0 && pause !== "none") {
      const last = words[words.length - 1];
      if (pause === "sentence" || last.pause === "none") last.pause = pause;
    }
  }
  return words;
}

/** Cost of leaving a pause of `ms` inside a group (not a word boundary), growing with its length. */
function innerPauseCost(ms: number): number {
  return 3 * (ms / 100) ** 2;
}

/** Cost of a word boundary with `kind` punctuation at a pause of `ms`. */
function boundaryCost(kind: PauseKind, ms: number): number {
  return 1.5 * Math.log((ms + 60) / (EXPECTED_PAUSE_MS[kind] + 60)) ** 2;
}

/** Cost of a word boundary with punctuation but no pause at all. */
const MISSED_PUNCTUATION: Record<PauseKind, number> = { none: 0, clause: 1.5, sentence: 3 };

interface Point {
  /** Where speech before this point ends, and where speech after it starts. */
  endMs: number;
  startMs: number;
}

interface Plan {
  cost: number;
  /** Previous (word count, point index). */
  from?: [number, number];
}

/** Chooses the pauses at word boundaries: for each word, the point it starts at (or -1: inside a group). */
function choosePauses(words: ScriptWord[], points: Point[], secondsPerWeight: number): number[][] {
  const n = words.length;
  const m = points.length; // points[0] = speech start, points[m - 1] = speech end
  const weightPrefix = [0];
  for (const w of words) weightPrefix.push(weightPrefix[weightPrefix.length - 1] + w.weight);
  const missedPrefix = [0];
  for (const w of words) missedPrefix.push(missedPrefix[missedPrefix.length - 1] + MISSED_PUNCTUATION[w.pause]);
  const pauseCostPrefix = [0];
  for (let k = 0; k < m; k++) {
    const inner = k > 0 && k < m - 1 ? innerPauseCost(points[k].startMs - points[k].endMs) : 0;
    pauseCostPrefix.push(pauseCostPrefix[k] + inner);
  }
  const plans: Plan[][] = Array.from({ length: n + 1 }, () => new Array<Plan>(m).fill({ cost: Infinity }));
  plans[0][0] = { cost: 0 };
  for (let j = 0; j < n; j++) {
    for (let a = 0; a < m - 1; a++) {
      const here = plans[j][a];
      if (here.cost === Infinity) continue;
      for (let jj = j + 1; jj <= Math.min(n, j + MAX_WORDS_PER_GROUP); jj++) {
        const expected = (weightPrefix[jj] - weightPrefix[j]) * secondsPerWeight * 1000;
        // Punctuation inside the group that got no pause.
        const missed = missedPrefix[jj - 1] - missedPrefix[j];
        for (let b = a + 1; b <= Math.min(m - 1, a + MAX_PAUSES_PER_GROUP + 1); b++) {
          if ((b === m - 1) !== (jj === n)) continue; // the last group ends at the speech end, and only it
          const actual = points[b].endMs - points[a].startMs;
          // A group three times shorter or longer than its words predict is never the best
          // plan (its cost alone outweighs any pause); skipping it keeps the search near-linear.
          if (actual * 3 < expected) continue;
          if (actual > expected * 3) break;
          const inner = pauseCostPrefix[b] - pauseCostPrefix[a + 1];
          const ratio = Math.log(actual / expected);
          let cost = here.cost + 4 * (jj - j) * ratio * ratio + inner + missed;
          if (b < m - 1) cost += boundaryCost(words[jj - 1].pause, points[b].startMs - points[b].endMs);
          if (cost < plans[jj][b].cost) plans[jj][b] = { cost, from: [j, a] };
        }
      }
    }
  }
  const groups: number[][] = [];
  let at: [number, number] = [n, m - 1];
  while (at[0] > 0) {
    const from = plans[at[0]][at[1]].from;
    if (!from) throw new Error("no alignment found");
    groups.unshift([from[0], at[0], from[1], at[1]]);
    at = from;
  }
  return groups;
}

function pausePoints(pauses: Pause[], speechStartMs: number, speechEndMs: number): Point[] {
  return [
    { endMs: speechStartMs, startMs: speechStartMs },
    ...pauses.map((p) => ({ endMs: p.startMs, startMs: p.endMs })),
    { endMs: speechEndMs, startMs: speechEndMs },
  ];
}

interface AlignmentOptions {
  /** Shortest silence taken for a pause; default 30 ms. */
  minPauseMs?: number;
  /** Move inner boundaries to energy dips (default true). */
  snapToValleys?: boolean;
}

/**
 * Word timings of `text` spoken in `pcm` (16-bit mono at `sampleRate`), in ms from the start of
 * the audio. Throws when the audio holds no audible speech or the text no word.
 */
export function alignWords(pcm: Int16Array, sampleRate: number, text: string, options: AlignmentOptions = {}): WordTiming[] {
  const words = scriptWords(text);
  if (words.length === 0) throw new Error("the text has no word to align");
  const activity = detectSpeech(pcm, sampleRate, options.minPauseMs ?? 20);
  const { speechStartMs, speechEndMs } = activity;
  if (speechStartMs === undefined || speechEndMs === undefined) throw new Error("the audio holds no audible speech");
  const points = pausePoints(activity.pauses, speechStartMs, speechEndMs);
  const totalWeight = words.reduce((sum, w) => sum + w.weight, 0);

  // The speaking rate, first from the speech without its long pauses, then again from the
  // pauses the first pass took as word boundaries.
  const longPauses = activity.pauses.filter((p) => p.endMs - p.startMs >= 120).reduce((sum, p) => sum + p.endMs - p.startMs, 0);
  let secondsPerWeight = Math.max(0.01, (speechEndMs - speechStartMs - longPauses) / 1000 / totalWeight);
  let groups = choosePauses(words, points, secondsPerWeight);
  const spoken = groups.reduce((sum, [, , a, b]) => sum + points[b].endMs - points[a].startMs, 0);
  secondsPerWeight = Math.max(0.01, spoken / 1000 / totalWeight);
  groups = choosePauses(words, points, secondsPerWeight);

  const starts = new Array<number>(words.length);
  const ends = new Array<number>(words.length);
  for (const [j, jj, a, b] of groups) {
    const from = points[a].startMs;
    const to = points[b].endMs;
    const weight = words.slice(j, jj).reduce((sum, w) => sum + w.weight, 0);
    let cursor = from;
    starts[j] = from;
    for (let i = j; i < jj - 1; i++) {
      cursor += ((to - from) * words[i].weight) / weight;
      const share = ((to - from) * Math.min(words[i].weight, words[i + 1].weight)) / weight;
      const boundary = options.snapToValleys === false ? cursor : nearestValley(activity.envelope, cursor, Math.min(80, share / 2));
      starts[i + 1] = Math.max(starts[i] + 1, Math.min(to - 1, boundary));
      ends[i] = starts[i + 1];
    }
    ends[jj - 1] = to;
  }
  return words.map((w, i) =>
    WordTiming.parse({
      text: w.text,
      offset_ms: Math.max(0, Math.round(starts[i])),
      duration_ms: Math.max(0, Math.round(ends[i] - starts[i])),
    })
  );
}
