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
 */
export function keepCommandDeadlines(client: Redis, commandTimeoutMs: number, socketTimeoutMs: number): void {
  // Sent commands and their send times, oldest first, from `head` on.
  const commands: Command[] = [];
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

  function sweep(): void {
    timer = undefined;
    const now = Date.now();
    while (head < commands.length && (commands[head].isSettled || now - sentAt[head] >= commandTimeoutMs)) {
      const command = commands[head];
      if (!command.isSettled) {
        if (lastDataMs < sentAt[head]) silentSince ??= sentAt[head];
        command.reject(new Error('Command timed out'));
      }
      head++;
    }
    if (head === commands.length || (head >= COMPACT_AT && head * 2 >= commands.length)) {
      commands.splice(0, head);
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
      sentAt.push(now);
      if (timer === undefined) arm(now + commandTimeoutMs, now);
    }
    return reply;
  };
}
