import type { Command, Redis } from 'ioredis';

/** Answered commands are dropped from the front of the queue once this many are there (and half of it). */
const COMPACT_AT = 1024;

/**
 * The deadlines of one connection's commands, kept by one timer in place of ioredis's two per
 * command (its `commandTimeout` timer, and its `socketTimeout` timer, set again by each command
 * sent while none was in flight): every command has the same deadline, so they fall due in the
 * order they were sent, and the timer is armed for the oldest unanswered one only, and only
 * while there is one. A command not answered `commandTimeoutMs` after it was sent is rejected
 * ("Command timed out", as ioredis's own deadline rejects it); a connection that has sent no data
 * for `socketTimeoutMs` since the oldest command it left unanswered was sent is destroyed, so that
 * the client reconnects rather than wait on it forever (as ioredis's `socketTimeout`).
 *
 * A deadline is that of one send of a command: a command can be sent again with a new promise
 * (a Redis Cluster pipeline whose commands all failed alike, "Connection is closed." while a
 * master is down, MOVED, sends them again, each with `initPromise`), and the deadline of its
 * earlier send must not reject that new try. Rejected between two tries, a command goes out in
 * the next one already settled: its reply is never counted, the pipeline never ends, and ioredis
 * queues every later command for those nodes behind it (one auto-pipeline runs at a time), for
 * good. ioredis's own timer is cleared when the command settles, so each try has its own deadline
 * there too.
 */
export function keepCommandDeadlines(client: Redis, commandTimeoutMs: number, socketTimeoutMs: number): void {
  // Sent commands, the promise each was sent with, and their send times, oldest first, from `head` on.
  const commands: Command[] = [];
  const promises: Promise<unknown>[] = [];
  const sentAt: number[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;
  let lastDataMs = 0;
  // The send time of the oldest command that timed out with no data received since it was sent.
  let silentSince: number | undefined;

  client.on('connect', () => {
    silentSince = undefined;
    client.stream.on('data', () => (lastDataMs = Date.now()));
  });

  const arm = (atMs: number, now: number) => {
    timer = setTimeout(sweep, Math.max(atMs - now, 1));
    timer.unref();
  };

  /** Whether the send at `i` still waits for its reply: its command unsettled, and not sent again since with a new promise. */
  const pending = (i: number) => !commands[i].isSettled && commands[i].promise === promises[i];

  function sweep(): void {
    timer = undefined;
    const now = Date.now();
    while (head < commands.length && (!pending(head) || now - sentAt[head] >= commandTimeoutMs)) {
      const command = commands[head];
      if (pending(head)) {
        if (lastDataMs < sentAt[head]) silentSince ??= sentAt[head];
        command.reject(new Error('Command timed out'));
      }
      head++;
    }
    if (head === commands.length || (head >= COMPACT_AT && head * 2 >= commands.length)) {
      commands.splice(0, head);
      promises.splice(0, head);
      sentAt.splice(0, head);
      head = 0;
    }
    if (silentSince !== undefined && lastDataMs >= silentSince) silentSince = undefined;
    if (silentSince !== undefined && now - silentSince >= socketTimeoutMs) {
      silentSince = undefined;
      client.stream?.destroy(new Error(`Socket timeout: no data for ${socketTimeoutMs} ms with a command unanswered`));
    }
    const next = Math.min(head < commands.length ? sentAt[head] + commandTimeoutMs : Infinity, (silentSince ?? Infinity) + socketTimeoutMs);
    if (next !== Infinity) arm(next, now);
  }

  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    const reply = send(command, stream);
    if (!command.isSettled) {
      const now = Date.now();
      commands.push(command);
      promises.push(command.promise);
      sentAt.push(now);
      if (timer === undefined) arm(now + commandTimeoutMs, now);
    }
    return reply;
  };
}
