import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, normalize, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Every file git tracks. */
const allTracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

/** Every text file git tracks that a person reads, but generated code. */
const tracked = allTracked.filter(
  (f) => /\.(ts|mjs|cjs|js|proto|ya?ml|json|md|sh|sql|lua)$/.test(f) && !f.includes('/gen/') && f !== 'package-lock.json',
);

/**
 * Markdown files a tool writes when it runs, named before they exist: the client's changelog is
 * written by its first `nx release` (docs/workspace.md).
 */
const WRITTEN_LATER = new Set(['libs/quota-client/CHANGELOG.md']);

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
      (f) =>
        !f.startsWith('.ci/') && /shared\/SPEC|\.\.\/shared|SPEC\.md|DESIGN\.md|\bSPEC\ssection/.test(readFileSync(join(ROOT, f), 'utf8')),
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

  it('every *.md any file names (a comment, a manifest, a test, a document) exists, with its heading', () => {
    const byName = new Map<string, string[]>();
    for (const f of allTracked.filter((t) => t.endsWith('.md'))) byName.set(basename(f), [...(byName.get(basename(f)) ?? []), f]);
    /** The files `name` can mean when `from` names it: beside it, from the root, in docs/, or (a bare name) any of that name. */
    const candidates = (from: string, name: string): string[] => {
      if (name.startsWith('{workspaceRoot}/')) return [name.slice('{workspaceRoot}/'.length)];
      const near = [join(dirname(from), name), name.replace(/^\//, ''), join('docs', name)].map((c) => normalize(c));
      return [...new Set(name.includes('/') ? near : [...near, ...(byName.get(name) ?? [])])];
    };
    const broken = tracked.flatMap((f) =>
      // A name ending in .md, not a property access (`forge.md.sha256`) nor a manifest's per-project template.
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/(?:\{\w+\}\/)?[\w./-]*[\w-]\.md(?:#[\w-]+)?(?![\w.]*\w)/g)]
        .map((m) => m[0])
        .filter((cited) => !cited.startsWith('{projectRoot}/'))
        .map((cited) => {
          const [name, anchor] = cited.split('#');
          const files = candidates(f, name).filter((c) => WRITTEN_LATER.has(c) || existsSync(join(ROOT, c)));
          const problem =
            files.length === 0
              ? `no file ${name}`
              : anchor && !files.some((c) => !WRITTEN_LATER.has(c) && anchorsOf(c).has(anchor))
                ? `no heading #${anchor} in ${files.join(' or ')}`
                : undefined;
          return { file: f, cited, problem };
        })
        .filter((l) => l.problem !== undefined),
    );
    expect(broken).toEqual([]);
  });

  it('every repository path a Markdown file names in backticks exists', () => {
    /** Written by a tool when it runs: the bench's profiles (`npm run bench -- --profile`). */
    const written = (path: string) => WRITTEN_LATER.has(path) || path.startsWith('bench/results/profiles');
    const missing = tracked
      .filter((f) => f.endsWith('.md'))
      .flatMap((f) =>
        [...readFileSync(join(ROOT, f), 'utf8').matchAll(/`((?:apps|libs|tools|proto|k8s|docs|observability|bench)\/[^`\s<>*]+)`/g)]
          .map((m) => m[1].replace(/[.,:;]$/, ''))
          .filter((path) => !written(path) && !existsSync(join(ROOT, path)))
          .map((path) => ({ file: f, path })),
      );
    expect(missing).toEqual([]);
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

  it('no code or comment under apps/ and libs/ names an issue by its number: it says the why instead', () => {
    const citing = tracked
      .filter((f) => /^(apps|libs)\//.test(f))
      .flatMap((f) =>
        readFileSync(join(ROOT, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (/\bissues? ?#?\d+\b/i.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(citing).toEqual([]);
  });
});
