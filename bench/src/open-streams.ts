import { Dispatcher } from 'undici';
import { rssKb } from './process-stats';
import { Target } from './target';

/**
 * Opens `count` streams at once that stay open (the provider sends slowly), and measures the
 * edge's resident memory with them open against before: KB per open stream.
 */
export async function memoryPerOpenStream(
  target: Target,
  body: string,
  count: number,
  edgePid: number,
): Promise<{ kbPerStream: number; opened: number; notOpened: Record<string, number> }> {
  const before = rssKb(edgePid);
  const opened: Dispatcher.ResponseData[] = [];
  const notOpened: Record<string, number> = {};
  const missed = (why: string) => (notOpened[why] = (notOpened[why] ?? 0) + 1);
  await Promise.all(
    Array.from({ length: count }, async () => {
      const authorization = target.authorization();
      if (authorization === undefined) return missed('no account with room');
      const res = await target.pool
        .request({ path: target.path, method: 'POST', headers: { 'content-type': 'application/json', authorization }, body })
        .catch((err: Error) => void missed(err.message));
      if (!res) return;
      if (res.statusCode === 200) return opened.push(res);
      const reply = (await res.body.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
      missed(`${res.statusCode} ${reply?.error?.code ?? ''}`.trim());
    }),
  );
  await new Promise((r) => setTimeout(r, 1000));
  const during = rssKb(edgePid);
  for (const res of opened) res.body.destroy();
  return { kbPerStream: opened.length ? (during - before) / opened.length : 0, opened: opened.length, notOpened };
}
