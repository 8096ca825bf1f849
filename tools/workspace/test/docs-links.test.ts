import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Every file git tracks, but generated code and binary files. */
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|mjs|js|proto|ya?ml|json|md)$/.test(f) && !f.includes('/gen/') && f !== 'package-lock.json');

/** The anchor GitHub gives a Markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
const anchorsOf = (file: string) => new Set([...readFileSync(join(ROOT, file), 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1])));

/** `file#anchor` is a file of the repository and, with an anchor, a heading of it. */
function brokenLink(target: string): string | undefined {
  const [file, anchor] = target.split('#');
  if (!existsSync(join(ROOT, file))) return `no file ${file}`;
  if (anchor && !anchorsOf(file).has(anchor)) return `no heading #${anchor} in ${file}`;
  return undefined;
}

describe('the docs a clone contains', () => {
  it('no file cites the specification or design kept outside the repository', () => {
    const outside = tracked.filter(
      (f) => !f.startsWith('.ci/') && /shared\/SPEC|\.\.\/shared|SPEC\.md|DESIGN\.md/.test(readFileSync(join(ROOT, f), 'utf8')),
    );
    expect(outside).toEqual([]);
  });

  it('every docs/ path a comment, a manifest or a test names exists, with its heading', () => {
    const broken = tracked.flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/\bdocs\/[\w-]+\.(?:md|yaml)(?:#[\w-]+)?/g)]
        .map((m) => ({ file: f, link: m[0], problem: brokenLink(m[0]) }))
        .filter((l) => l.problem !== undefined),
    );
    expect(broken).toEqual([]);
  });

  it('every relative link of a Markdown file leads to a file and heading that exist', () => {
    const broken = tracked
      .filter((f) => f.endsWith('.md'))
      .flatMap((f) =>
        [...readFileSync(join(ROOT, f), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)]
          .map((m) => m[1])
          .filter((target) => !/^[a-z]+:/.test(target))
          .map((target) => {
            const [path, anchor] = target.split('#');
            const file = path === '' ? f : relative(ROOT, normalize(join(ROOT, dirname(f), path)));
            return {
              file: f,
              link: target,
              problem: existsSync(join(ROOT, file)) ? brokenLink(anchor ? `${file}#${anchor}` : file) : `no file ${file}`,
            };
          })
          .filter((l) => l.problem !== undefined),
      );
    expect(broken).toEqual([]);
  });
});
