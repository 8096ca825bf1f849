import { FileHandle, open } from 'node:fs/promises';
import { CtlUsageError } from '../parse-args';

/** Why a path cannot be a new file, by the system's error: the operator's to fix, not a fault of the CLI. */
const NOT_WRITABLE: Readonly<Record<string, string>> = {
  EEXIST: 'exists: it must name a new file',
  ENOENT: 'cannot be written: its directory does not exist',
  ENOTDIR: 'cannot be written: a part of its directory is not a directory',
  EISDIR: 'cannot be written: it is a directory',
  EACCES: 'cannot be written: permission denied',
  EPERM: 'cannot be written: permission denied',
  EROFS: 'cannot be written: the file system is read-only',
  ENAMETOOLONG: 'cannot be written: the name is too long',
};

/** The USAGE refusal of a path a flag names that the system would not write, or `err` itself. */
export function notWritable(flag: string, path: string, err: unknown): Error {
  const why = NOT_WRITABLE[(err as NodeJS.ErrnoException).code ?? ''];
  return why ? new CtlUsageError(`--${flag} ${path} ${why}`) : (err as Error);
}

/**
 * Creates the new file a flag names (an existing one is left alone), before the command changes
 * anything: a path that cannot be written is refused as USAGE.
 */
export async function createNewFile(flag: string, path: string): Promise<FileHandle> {
  try {
    return await open(path, 'wx');
  } catch (err) {
    throw notWritable(flag, path, err);
  }
}
