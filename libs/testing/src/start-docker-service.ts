import type { StartedTestContainer } from 'testcontainers';
import { DockerUnavailableError } from './docker-unavailable-error';

/** What to run in a throw-away container. */
export interface DockerServiceSpec {
  image: string;
  /** Port inside the container; it is published on a random host port. */
  port: number;
  env?: Record<string, string>;
  /** Log line that means the service is ready. */
  readyLog: RegExp;
  /** How many times `readyLog` must appear (postgres prints it twice: init server, then real server). */
  readyLogTimes?: number;
}

/** A running container and where to reach its service from this host. */
export interface StartedDockerService {
  host: string;
  port: number;
  stop(): Promise<void>;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Starts `spec` with testcontainers. The package is loaded only here, so callers that find a
 * local server never pay for it. Throws {@link DockerUnavailableError} when testcontainers
 * cannot load or finds no container runtime; any later failure is a real error and propagates.
 */
export async function startDockerService(spec: DockerServiceSpec): Promise<StartedDockerService> {
  let testcontainers: typeof import('testcontainers');
  try {
    testcontainers = await import('testcontainers');
  } catch (error) {
    throw new DockerUnavailableError(`the testcontainers package could not be loaded on Node ${process.version}: ${describe(error)}`);
  }
  try {
    await testcontainers.getContainerRuntimeClient();
  } catch (error) {
    throw new DockerUnavailableError(`no container runtime is reachable: ${describe(error)}`);
  }

  const { GenericContainer, Wait } = testcontainers;
  const container: StartedTestContainer = await new GenericContainer(spec.image)
    .withEnvironment(spec.env ?? {})
    .withExposedPorts(spec.port)
    .withWaitStrategy(Wait.forLogMessage(spec.readyLog, spec.readyLogTimes ?? 1))
    .withStartupTimeout(120_000)
    .start();

  return {
    host: container.getHost(),
    port: container.getMappedPort(spec.port),
    stop: async () => {
      await container.stop();
    },
  };
}
