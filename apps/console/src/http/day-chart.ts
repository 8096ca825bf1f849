import { html, SafeHtml } from './html';

/** One bar: a day and its value. */
export interface DayValue {
  day: string;
  value: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const PAD_LEFT = 110;
const PAD_BOTTOM = 22;

/**
 * A bar chart of one value per day, drawn on the server as SVG (no script): a bar per day, the
 * largest value on the axis, the first and last day under it. `label` names it for screen
 * readers; the same figures stand in a table beside it.
 */
export function dayChart(label: string, days: DayValue[], format: (value: number) => string): SafeHtml {
  const max = Math.max(0, ...days.map((d) => d.value));
  const plotWidth = WIDTH - PAD_LEFT;
  const plotHeight = HEIGHT - PAD_BOTTOM;
  const slot = plotWidth / Math.max(1, days.length);
  const bars = days.map((d, i) => {
    const h = max > 0 ? (d.value / max) * (plotHeight - 8) : 0;
    return html`<rect
      x="${(PAD_LEFT + i * slot + slot * 0.15).toFixed(1)}"
      y="${(plotHeight - h).toFixed(1)}"
      width="${(slot * 0.7).toFixed(1)}"
      height="${h.toFixed(1)}"
      fill="#2b6cb0"
      ><title>${d.day}: ${format(d.value)}</title></rect
    >`;
  });
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}" style="width:100%;max-width:${WIDTH}px;height:auto">
    <line x1="${PAD_LEFT}" y1="${plotHeight}" x2="${WIDTH}" y2="${plotHeight}" stroke="#8a96a3" />
    <text x="${PAD_LEFT - 6}" y="14" text-anchor="end" font-size="12" fill="#5b6875">${format(max)}</text>
    <text x="${PAD_LEFT - 6}" y="${plotHeight}" text-anchor="end" font-size="12" fill="#5b6875">0</text>
    ${bars}
    <text x="${PAD_LEFT}" y="${HEIGHT - 4}" font-size="12" fill="#5b6875">${days[0]?.day ?? ''}</text>
    <text x="${WIDTH}" y="${HEIGHT - 4}" text-anchor="end" font-size="12" fill="#5b6875">${days[days.length - 1]?.day ?? ''}</text>
  </svg>`;
}
