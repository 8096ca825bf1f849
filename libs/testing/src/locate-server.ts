import { DockerUnavailableError } from './docker-unavailable-error';

/** Where a server was found, and how to release it. */
export interface ServerLocation {
  url: string;
  origin: 'env' | 'local' | 'container';
  /** Stops the container if one was started; a no-op otherwise. */
  stop(): Promise<void>;
}

/** How to look for one kind of server. */
export interface LocateServerOptions {
  /** Value of the environment variable that names the server (empty counts as unset). */
  envUrl: string | undefined;
  /** Conventional local address, tried when the environment names nothing. */
  localUrl: string;
  /** Resolves true when the server at `url` answers (within a short timeout); never rejects. */
  answers(url: string): Promise<boolean>;
  /** Starts a container; rejects with {@link DockerUnavailableError} when Docker cannot be used. */
  startContainer(): Promise<{ url: string; stop(): Promise<void> }>;
  /** Message for the error thrown when nothing is available; says what to start. */
  missingMessage: string;
}

const noop = async (): Promise<void> => undefined;

/**
 * Picks a server in this order: the environment's URL (used as is, not probed), the local
 * address if it answers, then a testcontainers container if Docker is reachable. Throws an
 * Error carrying `missingMessage` when none of these is available.
 */
export async function locateServer(options: LocateServerOptions): Promise<ServerLocation> {
  if (options.envUrl) return { url: options.envUrl, origin: 'env', stop: noop };
  if (await options.answers(options.localUrl)) return { url: options.localUrl, origin: 'local', stop: noop };
  try {
    const started = await options.startContainer();
    return { url: started.url, origin: 'container', stop: started.stop };
  } catch (error) {
    if (error instanceof DockerUnavailableError) {
      throw new Error(`${options.missingMessage} (Docker check: ${error.message})`, { cause: error });
    }
    throw error;
  }
}
