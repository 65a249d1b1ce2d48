/**
 * The id a process holds queue items under: host, process id and a random part, so two processes
 * never share one (not even a restarted process with a recycled pid), and an operator reading
 * `locked_by` or a reaper's error knows which machine and process it was.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** A new worker id; `role` tells apart the holders within one process (daemon, api, run). */
export function newWorkerId(role: string): string {
  // locked_by holds 200 characters; a long host name is cut, never the distinguishing tail.
  return `${hostname().slice(0, 64)}:${process.pid}:${role}:${randomBytes(4).toString('hex')}`;
}
