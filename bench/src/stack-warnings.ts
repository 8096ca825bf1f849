/** Warning and error log lines of a stack counted by service, message and error message. */
export function warningsByMessage(logs: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of logs) {
    if (!/"level":"(warn|error)"/.test(line)) continue;
    try {
      const event = JSON.parse(line) as { service?: string; msg?: string; err?: { message?: string } };
      const what = `${event.service}: ${event.msg}${event.err?.message ? ` (${event.err.message})` : ''}`;
      counts[what] = (counts[what] ?? 0) + 1;
    } catch {
      // not a JSON line
    }
  }
  return counts;
}
