/** The whole gateway as real processes on loopback, for end-to-end tests. */
export { startStack, type RunningStack, type StackOptions } from './start-stack';
export { buildRelease, type BuiltRelease } from './build-release';
