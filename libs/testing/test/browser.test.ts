import { existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, screenshotDir } from '../src';

const PAGE = `<!doctype html>
<html>
  <head><title>browser test</title></head>
  <body>
    <h1>Browser test</h1>
    <button type="button" onclick="document.getElementById('out').textContent = 'clicked'">Say clicked</button>
    <p id="out">waiting</p>
  </body>
</html>`;

let server: Server;
let baseUrl: string;
let browser: Browser;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

test('Chromium clicks a button on a local page and saves a screenshot', async () => {
  const page = await browser.newPage();
  await page.goto(baseUrl);
  await page.getByRole('button', { name: 'Say clicked' }).click();
  expect(await page.locator('#out').textContent()).toBe('clicked');

  const file = join(screenshotDir(__filename), 'clicked.png');
  await page.screenshot({ path: file, fullPage: true });
  expect(existsSync(file)).toBe(true);
  expect(statSync(file).size).toBeGreaterThan(0);
});
