/** Thrown when testcontainers cannot be used: the package fails to load or no container runtime answers. */
export class DockerUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DockerUnavailableError';
  }
}
