import type { CaptionBox, CaptionProfile } from "../shared/contracts/captions.ts";
import { captionBoxViolations as boxViolations, type CaptionZone } from "../shared/media/quality-gate.ts";

/**
 * Where each platform's player UI covers a 1080x1920 vertical video, as margins in pixels from each
 * edge. Captions must stay inside what is left. Sources (the platforms' own creative guidance, as
 * published or as their overlay templates are measured):
 *
 * - YouTube Shorts: the title, channel row and subscribe button cover the bottom of the frame and
 *   the like/comment/share column the right; the search/menu bar the top. Overlay guides put the
 *   bottom block at about the lower 25% (~480 px) and the action column at ~120-190 px
 *   (https://www.youraithumbnailgenerator.com/guides/youtube-shorts-safe-zones-complete-guide,
 *   https://shortsfire.com/blog/shorts-safe-zones-keep-your-text-visible). Kept at the stricter
 *   figures the engine has always used: top 288, bottom 672, left 48, right 192.
 * - TikTok: TikTok Ads Manager's safe-zone guidance for 9:16 in-feed video: keep the top 150 px
 *   (status bar, account info), bottom 440 px (description, music, CTA) and right 150 px (profile
 *   picture and action buttons) clear; the usable centre is about 780x1330 px, so 150 px on the
 *   left too (summarised at https://adfuseai.com/blog/tiktok-ad-sizes-specs-guide).
 * - Instagram Reels: Meta's Reels ads guidance: leave 14% of the top (269 px), 35% of the bottom
 *   (672 px) and 6% of each side (65 px) free of text and logos (at 1440x2560 the same guidance
 *   reads top 358, bottom 896, sides 86:
 *   https://www.imagefactory.co.kr/en/guides/instagram-story-ad-text-safe-zone).
 */
export interface SafeZone {
  profile: CaptionProfile;
  width: number;
  height: number;
  top: number;
  bottom: number;
  left: number;
  right: number;
}

const FRAME = { width: 1080, height: 1920 } as const;

type Margins = Pick<SafeZone, "top" | "bottom" | "left" | "right">;

export const PLATFORM_MARGINS: Readonly<Record<Exclude<CaptionProfile, "intersection">, Margins>> = {
  youtube_shorts: { top: 288, bottom: 672, left: 48, right: 192 },
  tiktok: { top: 150, bottom: 440, left: 150, right: 150 },
  reels: { top: 269, bottom: 672, left: 65, right: 65 },
};

/** The zone of a profile; `intersection` takes the widest margin on every side. */
export function safeZone(profile: CaptionProfile): SafeZone {
  const margins = profile === "intersection"
    ? (["top", "bottom", "left", "right"] as const).reduce((acc, side) => {
      acc[side] = Math.max(...Object.values(PLATFORM_MARGINS).map((m) => m[side]));
      return acc;
    }, { top: 0, bottom: 0, left: 0, right: 0 } as Margins)
    : PLATFORM_MARGINS[profile];
  return { profile, ...FRAME, ...margins };
}

/** The zone as edges on the frame: x from left to right, y from top to bottom. */
export function zoneRect(zone: SafeZone): { left: number; right: number; top: number; bottom: number } {
  return { left: zone.left, right: zone.width - zone.right, top: zone.top, bottom: zone.height - zone.bottom };
}

/** The zone as the quality gate checks caption boxes against it. */
export function captionZone(zone: SafeZone): CaptionZone {
  return { name: `${zone.profile} safe zone`, ...zoneRect(zone) };
}

/** One sentence per box outside the zone, naming its cue. */
export function captionBoxViolations(boxes: readonly CaptionBox[], zone: SafeZone): string[] {
  return boxViolations(boxes, captionZone(zone));
}
