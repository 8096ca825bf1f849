import { loadConfig } from './config';
import { runCtl } from './run-ctl';

runCtl(process.argv.slice(2), loadConfig(process.env)).then(({ output, exitCode }) => {
  process.stdout.write(`${output}\n`);
  process.exitCode = exitCode;
});
