/** The PNG's pixels per SVG pixel (chart-png.ts): 1, about 1250 px wide, under the 1280 px Telegram shows a photo at. */
export const CHART_PNG_SCALE = 1;
