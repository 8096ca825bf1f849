import { existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { repoRoot } from './test-tls';

/**
 * Flags for headless Chromium on a machine whose network is closed: without the background
 * networking ones, Chromium's own connections (updates, sync, QUIC probes) are refused many at a time.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium (or CHROMIUM_PATH), headless, on a fresh empty profile; playwright-core never downloads one. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: run \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

/** The folder (made if missing) for one test file's screenshots: test-output/screenshots/<test file name without .ts>. */
export function screenshotDir(testFile: string): string {
  const dir = join(repoRoot(), 'test-output', 'screenshots', basename(testFile, '.ts'));
  mkdirSync(dir, { recursive: true });
  return dir;
}
