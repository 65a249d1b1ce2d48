/**
 * The errors of the file connector, each naming the place — system, object, the file relative to
 * the directory, the line — and never a byte of the file's contents (a cell may hold a personal
 * datum or a secret, and a message travels to HTTP callers and logs). The operating system's own
 * error travels as `cause`, for the log only.
 */
import { ConnectorError, type ConnectorErrorCode } from '../connector-error.js';

/** Where something happened: the system, the object when there is one, the file and line when known. */
export interface Place {
  systemId: string;
  object?: string;
  /** Relative to the system's directory, with '/' separators. */
  file?: string;
  line?: number;
}

export function describePlace(place: Place): string {
  const parts = [`system '${place.systemId}'`];
  if (place.object !== undefined) parts.push(`object ${place.object}`);
  if (place.file !== undefined) parts.push(place.line === undefined ? `file ${place.file}` : `file ${place.file} line ${place.line}`);
  return parts.join(', ');
}

export function fileError(code: ConnectorErrorCode, place: Place, message: string, cause?: unknown): ConnectorError {
  return new ConnectorError(code, `${describePlace(place)}: ${message}`, {
    ...(cause === undefined ? {} : { cause }),
    details: {
      system: place.systemId,
      ...(place.object === undefined ? {} : { object: place.object }),
      ...(place.file === undefined ? {} : { file: place.file }),
      ...(place.line === undefined ? {} : { line: place.line }),
    },
  });
}

/** A line of a file that is not what its format says: an operator's fix, retried by syncs once fixed. */
export function malformed(place: Place, what: string, cause?: unknown): ConnectorError {
  return fileError('definition-mismatch', place, `${what}; fix the file (or the object's format options) and read again`, cause);
}

/** What an operating system error code means, in words that name no path or content. */
export function systemReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'it does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of its path is not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'EROFS':
      return 'the file system is read-only';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'EIO':
      return 'an input/output error';
    default:
      return code === undefined ? 'an unexpected error' : `error ${code}`;
  }
}

/** A failure of the file system while `doing`, as the caller is answered it. */
export function ioError(place: Place, doing: string, cause: unknown): ConnectorError {
  if (cause instanceof ConnectorError) return cause;
  return fileError('unavailable', place, `${doing} failed: ${systemReason(cause)}`, cause);
}
