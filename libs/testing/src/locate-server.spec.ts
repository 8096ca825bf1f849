import { DockerUnavailableError } from './docker-unavailable-error';
import { locateServer, type LocateServerOptions } from './locate-server';

const LOCAL = 'db://127.0.0.1:1/local';
const CONTAINER = 'db://127.0.0.1:2/container';

function options(overrides: Partial<LocateServerOptions>): LocateServerOptions & {
  answers: jest.Mock;
  startContainer: jest.Mock;
  stopContainer: jest.Mock;
} {
  const stopContainer = jest.fn(async () => undefined);
  return {
    envUrl: undefined,
    localUrl: LOCAL,
    answers: jest.fn(async () => false),
    startContainer: jest.fn(async () => ({ url: CONTAINER, stop: stopContainer })),
    missingMessage: 'No server: start one',
    stopContainer,
    ...overrides,
  } as LocateServerOptions & { answers: jest.Mock; startContainer: jest.Mock; stopContainer: jest.Mock };
}

describe('locateServer', () => {
  it('uses the environment URL without probing or starting anything', async () => {
    const opts = options({ envUrl: 'db://env/x' });
    const found = await locateServer(opts);
    expect(found).toMatchObject({ url: 'db://env/x', origin: 'env' });
    expect(opts.answers).not.toHaveBeenCalled();
    expect(opts.startContainer).not.toHaveBeenCalled();
  });

  it('treats an empty environment value as unset', async () => {
    const opts = options({ envUrl: '', answers: jest.fn(async () => true) });
    expect(await locateServer(opts)).toMatchObject({ url: LOCAL, origin: 'local' });
  });

  it('uses the local server when it answers, never touching Docker', async () => {
    const opts = options({ answers: jest.fn(async () => true) });
    const found = await locateServer(opts);
    expect(found).toMatchObject({ url: LOCAL, origin: 'local' });
    expect(opts.answers).toHaveBeenCalledWith(LOCAL);
    expect(opts.startContainer).not.toHaveBeenCalled();
    await expect(found.stop()).resolves.toBeUndefined();
  });

  it('falls back to a container and hands back its stop()', async () => {
    const opts = options({});
    const found = await locateServer(opts);
    expect(found).toMatchObject({ url: CONTAINER, origin: 'container' });
    await found.stop();
    expect(opts.stopContainer).toHaveBeenCalledTimes(1);
  });

  it('throws the "what to start" message when Docker is unavailable', async () => {
    const opts = options({
      startContainer: jest.fn(async () => {
        throw new DockerUnavailableError('no container runtime is reachable');
      }),
    });
    await expect(locateServer(opts)).rejects.toThrow('No server: start one (Docker check: no container runtime is reachable)');
  });

  it('lets other container failures through unchanged', async () => {
    const failure = new Error('image pull failed');
    const opts = options({
      startContainer: jest.fn(async () => {
        throw failure;
      }),
    });
    await expect(locateServer(opts)).rejects.toBe(failure);
  });
});
