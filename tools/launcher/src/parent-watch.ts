const CHECK_EVERY_MS = 1000;

/**
 * Calls `onGone` once the process that started this one has ended: this one is then handed to
 * init (or a subreaper), and its parent pid changes. `npm start` needs it: npm passes SIGINT and
 * SIGTERM on to the launcher, but dies of SIGHUP or SIGKILL without a word to it.
 */
export function watchParent(onGone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, CHECK_EVERY_MS);
  timer.unref();
}
