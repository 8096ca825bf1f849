import { writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';

/** One line of the chart: a colour and its points (x = requests/s, y = ms). */
export interface ChartSeries {
  color: [number, number, number];
  points: [number, number][];
}

const WIDTH = 720;
const HEIGHT = 420;
const MARGIN = 40;

/**
 * Draws latency against rate as a PNG: grey grid lines every 200 requests/s and at a power of
 * ten of ms (2 to 20 lines), one coloured line with square markers per series.
 * The legend is in the Markdown table beside it.
 */
export function writeLatencyChart(path: string, series: ChartSeries[]): void {
  const png = new PNG({ width: WIDTH, height: HEIGHT });
  png.data.fill(255);
  const maxX = Math.max(...series.flatMap((s) => s.points.map(([x]) => x)));
  const maxY = Math.max(1, ...series.flatMap((s) => s.points.map(([, y]) => y))) * 1.1;
  const px = (x: number) => Math.round(MARGIN + (x / maxX) * (WIDTH - 2 * MARGIN));
  const py = (y: number) => Math.round(HEIGHT - MARGIN - (y / maxY) * (HEIGHT - 2 * MARGIN));
  const dot = (x: number, y: number, c: [number, number, number]) => {
    if (x < 0 || y < 0 || x >= WIDTH || y >= HEIGHT) return;
    const i = (y * WIDTH + x) * 4;
    [png.data[i], png.data[i + 1], png.data[i + 2], png.data[i + 3]] = [...c, 255];
  };
  const line = (x0: number, y0: number, x1: number, y1: number, c: [number, number, number], width = 1) => {
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    for (let i = 0; i <= steps; i++) {
      const x = Math.round(x0 + ((x1 - x0) * i) / steps);
      const y = Math.round(y0 + ((y1 - y0) * i) / steps);
      for (let d = 0; d < width; d++) dot(x, y + d, c);
    }
  };
  const grey: [number, number, number] = [220, 220, 220];
  for (let x = 0; x <= maxX; x += 200) line(px(x), py(0), px(x), py(maxY), grey);
  const stepY = 10 ** Math.floor(Math.log10(maxY / 2));
  for (let y = 0; y <= maxY; y += stepY) line(px(0), py(y), px(maxX), py(y), grey);
  line(px(0), py(0), px(maxX), py(0), [0, 0, 0], 2);
  line(px(0), py(0), px(0), py(maxY), [0, 0, 0], 2);
  for (const s of series) {
    const pts = s.points.map(([x, y]) => [px(x), py(y)] as const);
    for (let i = 1; i < pts.length; i++) line(pts[i - 1][0], pts[i - 1][1], pts[i][0], pts[i][1], s.color, 2);
    for (const [x, y] of pts) for (let dx = -3; dx <= 3; dx++) line(x + dx, y - 3, x + dx, y + 3, s.color);
  }
  writeFileSync(path, PNG.sync.write(png));
}
