// Preloaded (node --expose-gc --require) into a process under a memory test, which starts it with
// an IPC channel: the message 'memory' is answered with process.memoryUsage() taken after full
// garbage collections, so what is measured is only what is still held.
const { setImmediate: nextTurn } = require('node:timers/promises');

process.on('message', async (message) => {
  if (message !== 'memory') return;
  // Several rounds with a turn between them: finalizers run, and what they let go is collected too.
  for (let round = 0; round < 4; round += 1) {
    global.gc();
    await nextTurn();
  }
  process.send({ memory: process.memoryUsage() });
});
// The channel must not keep the process alive: it exits on SIGTERM as it would in production.
process.channel.unref();
