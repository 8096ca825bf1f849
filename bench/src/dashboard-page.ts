/** One panel's series, as Prometheus answered its queries: seconds since the run began, and values. */
export interface PanelData {
  title: string;
  /** Grafana's unit of the panel: reqps, s, short. */
  unit: string;
  series: { name: string; points: [number, number][] }[];
}

const COLORS = [
  '#73bf69',
  '#f2cc0c',
  '#5794f2',
  '#ff780a',
  '#f2495c',
  '#b877d9',
  '#8ab8ff',
  '#fade2a',
  '#96d98d',
  '#ffb357',
  '#ca95e5',
  '#ff7383',
];
const WIDTH = 760;
const HEIGHT = 250;
const PAD = { left: 64, right: 12, top: 10, bottom: 28 };

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function formatValue(value: number, unit: string): string {
  const digits = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
  if (unit === 's') return value >= 1 ? `${digits(value)} s` : `${digits(value * 1000)} ms`;
  if (unit === 'reqps') return `${digits(value)} req/s`;
  return digits(value);
}

const formatTime = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, '0')}`;

/** A panel as an SVG time series chart: gridlines, axes in the panel's unit, one line per series. */
function chart(panel: PanelData, duration: number): string {
  const values = panel.series.flatMap((s) => s.points.map(([, v]) => v)).filter(Number.isFinite);
  const top = Math.max(...values, 0) * 1.1 || 1;
  const x = (t: number) => PAD.left + (t / duration) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => HEIGHT - PAD.bottom - (v / top) * (HEIGHT - PAD.top - PAD.bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = top * f;
    return `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}" class="grid"/><text x="${PAD.left - 6}" y="${y(v) + 4}" class="axis" text-anchor="end">${formatValue(v, panel.unit)}</text>`;
  });
  const ticks = Array.from({ length: 6 }, (_, i) => (duration * i) / 5).map(
    (t) => `<text x="${x(t)}" y="${HEIGHT - 8}" class="axis" text-anchor="middle">${formatTime(t)}</text>`,
  );
  const lines = panel.series.map((s, i) => {
    const path = s.points
      .map(([t, v], j) =>
        Number.isFinite(v) ? `${j === 0 || !Number.isFinite(s.points[j - 1][1]) ? 'M' : 'L'}${x(t).toFixed(1)},${y(v).toFixed(1)}` : '',
      )
      .join('');
    return `<path d="${path}" stroke="${COLORS[i % COLORS.length]}" fill="none" stroke-width="1.5"/>`;
  });
  const empty = values.length === 0 ? `<text x="${WIDTH / 2}" y="${HEIGHT / 2}" class="axis" text-anchor="middle">No data</text>` : '';
  return `<svg width="${WIDTH}" height="${HEIGHT}">${grid.join('')}${ticks.join('')}${lines.join('')}${empty}</svg>`;
}

function legend(panel: PanelData): string {
  return panel.series
    .map((s, i) => `<span class="key"><i style="background:${COLORS[i % COLORS.length]}"></i>${escape(s.name || 'value')}</span>`)
    .join('');
}

/** The dashboard as a page in Grafana's dark colours: two panels a row, each chart with its legend. */
export function drawDashboard(title: string, panels: PanelData[], durationSeconds: number): string {
  const cells = panels.map(
    (p) => `<section><h2>${escape(p.title)}</h2>${chart(p, durationSeconds)}<div class="legend">${legend(p)}</div></section>`,
  );
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { background: #111217; color: #ccccdc; font: 13px/1.4 Inter, "Helvetica Neue", Arial, sans-serif; margin: 16px; }
h1 { font-size: 18px; font-weight: 500; margin: 0 0 12px; }
h1 small { color: #8e8e9e; font-weight: 400; margin-left: 12px; }
main { display: grid; grid-template-columns: repeat(2, ${WIDTH + 24}px); gap: 12px; }
section { background: #181b1f; border: 1px solid #2c3235; border-radius: 4px; padding: 8px 12px; }
h2 { font-size: 13px; font-weight: 500; margin: 0 0 6px; }
.grid { stroke: #2c3235; } .axis { fill: #8e8e9e; font-size: 10px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 11px; min-height: 16px; }
.key i { display: inline-block; width: 12px; height: 3px; margin-right: 5px; vertical-align: middle; }
</style></head><body><h1>${escape(title)}<small>the dashboard's own queries, against Prometheus, over a ${formatTime(durationSeconds)} run</small></h1><main>${cells.join('')}</main></body></html>`;
}
